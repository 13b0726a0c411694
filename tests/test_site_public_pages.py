"""The pages a Dutch public service has (Over BesluitBron, Privacy, Toegankelijkheid, the footer) and the registry's
`server.operator` they read: one source, validated by name, shown exactly, in both languages.

One site build of a variant registry whose operator facts all differ from the shipped ones: whatever the built
site says about the operator must be the variant's, and nothing the shipped registry says about its operator may
be left on any page (so no page repeats a fact by hand).
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

import proxy
from proxy.core.errors import RegistryError
from proxy.registry.model import parse_registry
from proxy.web.app import server_identity
from site_hooks.site_labels import LABELS
from site_hooks.site_public_words import PUBLIC_WORDS
from tests.site_helpers import ROOT, attr, build_site, tag

REGISTRY = ROOT / "registry.json"
SHIPPED: dict[str, Any] = json.loads(REGISTRY.read_text(encoding="utf-8"))
PREFIX = {"nl": "", "en": "en/"}
# mkdocs-material 9.8.2 partials/copyright.html, which overrides/partials/copyright.html translates.
COPYRIGHT_UPSTREAM_SHA256 = "bc86bca3bf75070fe5d72e2a3463bdddf87c10f4d6459c945fe81c5d384e35ea"

VARIANT_OPERATOR: dict[str, Any] = {
    "name": {"nl": "Gemeente Voorbeeldstad", "en": "Municipality of Voorbeeldstad"},
    "kind": "public_body",
    "about": {"nl": "Draait in het rekencentrum van Voorbeeldstad; alleen team Webbeheer kan bij de logboeken.",
              "en": "Runs in the Voorbeeldstad data centre; only the Web team can read the logs."},
    "contact": {"name": {"nl": "Klantcontactcentrum Voorbeeldstad", "en": "Voorbeeldstad contact centre"},
                "email": "besluitbron@voorbeeldstad.example", "url": "https://voorbeeldstad.example/contact"},
    "address": {"nl": "Postbus 4711, 9999 ZZ Voorbeeldstad", "en": "PO Box 4711, 9999 ZZ Voorbeeldstad"},
    "code_license": "EUPL-1.2",
    "data_license": "CC-BY-4.0",
    "source_url": "https://code.voorbeeldstad.example/besluitbron",
    "controller": {"name": {"nl": "College van B&W van Voorbeeldstad", "en": "Voorbeeldstad executive board"},
                   "email": "privacy@voorbeeldstad.example"},
    "legal_basis": "public_task",
    "dpo": {"name": {"nl": "FG Voorbeeldstad", "en": "Voorbeeldstad DPO"}, "email": "fg@voorbeeldstad.example"},
    "hosting": {"location": {"nl": "Een virtuele machine bij Voorbeeldhosting in Amsterdam.",
                             "en": "A virtual machine at Voorbeeldhosting in Amsterdam."},
                "processors": [{"name": "Voorbeeldhosting B.V.",
                                "role": {"nl": "host de server en zijn logboeken",
                                         "en": "hosts the server and its logs"},
                                "location": {"nl": "Nederland", "en": "the Netherlands"},
                                "url": "https://voorbeeldhosting.example/privacy"}]},
    "accessibility": {"status": "B", "checked": "2026-10-31",
                      "report_url": "https://voorbeeldstad.example/onderzoek-wcag.pdf",
                      "register_url": "https://www.toegankelijkheidsverklaring.nl/register/99999"},
}
PAGES = ("over.html", "privacy.html", "toegankelijkheid.html")


def _variant_data() -> dict[str, Any]:
    data = copy.deepcopy(SHIPPED)
    data["server"]["operator"] = copy.deepcopy(VARIANT_OPERATOR)
    data["server"]["public_url"] = "https://besluitbron.example.nl"  # a public installation
    for derived in ("allowed_hosts", "allowed_origins"):  # from public_url
        data["server"].pop(derived, None)
    return data


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("public")
    path = tmp / "registry.json"
    path.write_text(json.dumps(_variant_data(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return build_site(path, tmp / "site")


def _soup(site: Path, lang: str, page: str) -> BeautifulSoup:
    return BeautifulSoup((site / PREFIX[lang] / page).read_text(encoding="utf-8"), "html.parser")


def _text(node: Any) -> str:
    return " ".join(node.get_text(" ").split())


# --------------------------------------------------------------------------- one source: the registry


@pytest.mark.site
@pytest.mark.parametrize("lang", ["nl", "en"])
def test_over_page_shows_exactly_the_registry_operator(site: Path, lang: str) -> None:
    op = VARIANT_OPERATOR
    soup = _soup(site, lang, "over.html")
    facts = {tr["data-fact"]: tr for tr in soup.select("[data-operator] tr[data-fact], [data-software] tr[data-fact]")}
    assert _text(facts["operator"].find_all("td")[1]) == op["name"][lang]
    assert _text(facts["about"].find_all("td")[1]) == op["about"][lang]
    assert _text(facts["address"].find_all("td")[1]) == op["address"][lang]
    contact = facts["contact"]
    assert op["contact"]["name"][lang] in _text(contact)
    assert {a["href"] for a in contact.find_all("a")} == {f"mailto:{op['contact']['email']}", op["contact"]["url"]}
    assert [a["href"] for a in facts["code-license"].find_all("a")] == ["https://spdx.org/licenses/EUPL-1.2.html"]
    assert [a["href"] for a in facts["source-code"].find_all("a")] == [op["source_url"]]
    # The version the server reports in initialize, not one written on the page.
    identity = server_identity(parse_registry(_variant_data()).server)
    assert tag(facts["version"].find("code")).get_text() == identity.version == proxy.__version__
    data_license = soup.select_one("[data-fact=data-license]")
    assert data_license is not None and attr(data_license.find("a"), "href") == "https://spdx.org/licenses/CC-BY-4.0.html"
    # Every source's own licence, linked to its page.
    rows = {tr["data-platform"]: tr for tr in soup.select("[data-source-licences] tr[data-platform]")}
    assert set(rows) == set(SHIPPED["platforms"])
    for key, platform in SHIPPED["platforms"].items():
        assert _text(rows[key].find_all("td")[1]) == platform["attribution"]["license"][lang]
        assert attr(rows[key].find("a"), "href") == f"bronplatforms/{key}.html"


@pytest.mark.site
@pytest.mark.parametrize("lang", ["nl", "en"])
def test_privacy_page_names_controller_basis_rights_and_the_authority(site: Path, lang: str) -> None:
    op = VARIANT_OPERATOR
    soup = _soup(site, lang, "privacy.html")
    article = tag(soup.find("article"))
    text = _text(article)
    controller = soup.select_one("[data-controller] tr[data-fact=controller]")
    assert controller is not None and op["controller"]["name"][lang] in _text(controller)
    assert attr(controller.find("a"), "href") == f"mailto:{op['controller']['email']}"
    dpo = soup.select_one("[data-controller] tr[data-fact=dpo]")
    assert dpo is not None and attr(dpo.find("a"), "href") == f"mailto:{op['dpo']['email']}"
    basis = soup.select_one("[data-legal-basis]")
    assert basis is not None and basis["data-legal-basis"] == "public_task"
    assert {"nl": "Artikel 6, eerste lid, onder e, AVG", "en": "Article 6(1)(e) GDPR"}[lang] in _text(basis)
    rights = {"nl": ("Inzage", "Rectificatie", "Wissen", "Beperking", "Bezwaar"),
              "en": ("Access", "Rectification", "Erasure", "Restriction", "Objection")}[lang]
    shown = [_text(li.find("strong")) for li in article.select("li") if li.find("strong")]
    for right in rights:
        assert right in shown, right
    rights_contact = soup.select_one("[data-rights-contact]")
    assert rights_contact is not None
    assert {a["href"] for a in rights_contact.find_all("a")} == {f"mailto:{op['controller']['email']}",
                                                                  f"mailto:{op['dpo']['email']}"}
    authority = [a for a in article.find_all("a") if "autoriteitpersoonsgegevens.nl" in str(a.get("href", ""))]
    assert authority and "Autoriteit Persoonsgegevens" in _text(authority[0])
    # Recipients: every platform of an enabled source connector, with its page.
    served = {c["platform"] for c in SHIPPED["connectors"] if c["enabled"] and "platform" in c}
    assert {li["data-platform"] for li in soup.select("[data-recipients] li")} == served
    assert "IP" in text  # the server log's IP addresses are named
    # Where it runs and who processes for the operator (issue 43), from server.operator.hosting.
    hosting = VARIANT_OPERATOR["hosting"]
    location = soup.select_one("[data-hosting-location]")
    assert location is not None and _text(location) == hosting["location"][lang]
    rows = soup.select("[data-processors] tr[data-processor]")
    assert [[_text(td) for td in row.find_all("td")] for row in rows] == [
        [p["name"], p["role"][lang], p["location"][lang]] for p in hosting["processors"]]
    assert attr(rows[0].find("a"), "href") == hosting["processors"][0]["url"]
    over = _soup(site, lang, "over.html").select_one("[data-operator] tr[data-fact=hosting]")
    assert over is not None and hosting["processors"][0]["name"] in _text(over)
    assert attr(over.find("a"), "href") == "privacy.html"


@pytest.mark.site
@pytest.mark.parametrize("lang", ["nl", "en"])
def test_accessibility_statement_has_the_registry_status_and_date(site: Path, lang: str) -> None:
    access = VARIANT_OPERATOR["accessibility"]
    soup = _soup(site, lang, "toegankelijkheid.html")
    status = soup.select_one("[data-accessibility] tr[data-fact=status]")
    assert status is not None and status["data-status"] == "B"
    assert {"nl": "B – voldoet gedeeltelijk", "en": "B – partially compliant"}[lang] in _text(status)
    checked = soup.select_one("[data-accessibility] tr[data-fact=checked] time")
    assert checked is not None and checked["datetime"] == access["checked"]
    links = {a["href"] for a in soup.select("[data-accessibility] a")}
    assert {access["report_url"], access["register_url"], _variant_data()["server"]["public_url"] + "/"} <= links
    assert VARIANT_OPERATOR["name"][lang] in _text(soup.select_one("[data-accessibility] tr[data-fact=operator]"))
    contact = soup.select_one("[data-accessibility-contact] a")
    assert contact is not None and contact["href"] == f"mailto:{VARIANT_OPERATOR['contact']['email']}"
    assert soup.select_one("[data-ombudsman]") is not None  # a public body: the ombudsman route
    text = _text(soup.find("article"))
    assert "WCAG 2.1" in text and "axe-core" in text and "390" in text and "1280" in text


@pytest.mark.site
@pytest.mark.parametrize("lang", ["nl", "en"])
def test_every_footer_names_the_operator_its_contact_and_the_three_pages(site: Path, lang: str) -> None:
    op = VARIANT_OPERATOR
    pages = sorted(p for p in (site / PREFIX[lang]).rglob("*.html")
                   if lang == "en" or p.relative_to(site).parts[0] != "en")
    assert len(pages) > 10
    made_with = {"nl": "Gemaakt met", "en": "Made with"}[lang]
    for path in pages:
        footer = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser").find("footer")
        assert footer is not None, path
        service = footer.select_one("[data-besluitbron-service]")
        assert service is not None, path
        assert _text(service.select_one("[data-footer-operator]")) == op["name"][lang]
        assert attr(service.select_one("[data-footer-email]"), "href") == f"mailto:{op['contact']['email']}"
        assert proxy.__version__ in _text(service.select_one("[data-footer-version]"))
        linked = [a["data-footer-page"] for a in service.select("[data-footer-page]")]
        assert linked == ["over.md", "privacy.md", "toegankelijkheid.md"], path
        for a in service.select("[data-footer-page]"):
            href = attr(a, "href")
            # 404.html links from the site root (it is served at any path), every other page relatively.
            target = site / href.lstrip("/") if href.startswith("/") else path.parent / href
            assert target.resolve().is_file(), (path, href)
        # The Alle Bronnen connector (in_footer) is still named.
        assert footer.select("[data-besluitbron-footer] [data-connector]"), path
        copyright_text = _text(footer.select_one(".md-copyright"))
        assert copyright_text.startswith(made_with), (path, copyright_text)
        if lang == "nl":
            assert "Made with" not in _text(footer), path


@pytest.mark.site
def test_no_page_repeats_the_shipped_operator_by_hand(site: Path) -> None:
    """Every operator fact on the site comes from the registry: the shipped operator's words are nowhere."""
    shipped = SHIPPED["server"]["operator"]
    leftovers = [shipped["name"]["nl"], shipped["name"]["en"], shipped["about"]["nl"][:60],
                 shipped["about"]["en"][:60], shipped["contact"]["email"]]
    for path in site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        for words in leftovers:
            assert words not in html, (path.relative_to(site).as_posix(), words)


# --------------------------------------------------------------------------- the registry's operator block


def _message(edit: Any) -> str:
    data = copy.deepcopy(SHIPPED)
    edit(data["server"])
    with pytest.raises(RegistryError) as info:
        parse_registry(data)
    return str(info.value)


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda s: s["operator"]["contact"].pop("email"), "server.operator.contact: 'email' is a required property"),
    (lambda s: s["operator"].update(kind="gemeente"), "server.operator.kind: 'gemeente' is not one of"),
    (lambda s: s["operator"].update(code_license="EUPL 1.2!"), "server.operator.code_license: 'EUPL 1.2!' does not"),
    (lambda s: s["operator"]["accessibility"].update(status="F"), "server.operator.accessibility.status: 'F'"),
    (lambda s: s["operator"]["accessibility"].update(checked="2026-02-30"),
     "server.operator.accessibility.checked: '2026-02-30' is not a date"),
    (lambda s: s["operator"]["accessibility"].update(status="A"),
     "server.operator.accessibility.report_url: status 'A' rests on a complete research report"),
    (lambda s: s["operator"]["accessibility"].update(status="E"), "server.operator.accessibility.status: 'E'"),
    (lambda s: s["operator"].update(legal_basis="public_task"),
     "server.operator.legal_basis: 'public_task' does not fit kind 'person'"),
    (lambda s: s["operator"].update(source_url="ftp://example.org/x"), "server.operator.source_url: 'ftp://"),
    (lambda s: s["operator"].update(dpo={"name": {"nl": "x", "en": "x"}}),
     "server.operator.dpo: 'email' is a required property"),
    (lambda s: s.pop("operator"), "server: 'operator' is a required property"),
    (lambda s: (s["operator"].pop("hosting"), s.update(public_url="https://besluitbron.example.nl")),
     "server.operator.hosting: a public installation says where it runs and who processes data for it"),
    (lambda s: s["operator"]["hosting"]["processors"].append({"name": "X", "role": {"nl": "x", "en": "x"}}),
     "server.operator.hosting.processors[0]: 'location' is a required property"),
])
def test_a_broken_operator_block_is_refused_naming_the_field(edit: Any, expected: str) -> None:
    assert expected in _message(edit)


def test_an_old_registry_is_told_where_its_operator_words_moved() -> None:
    def old(server: dict[str, Any]) -> None:
        operator = server.pop("operator")
        server["privacy"]["operator"] = operator["about"]
        server["fault_contact"] = operator["contact"]

    message = _message(old)
    assert "server.privacy.operator: moved to server.operator.about" in message
    assert "server.fault_contact: server.operator.contact takes its place" in message


def test_operator_contact_is_the_fault_contact_and_user_agent_contact_unless_given_apart() -> None:
    shipped = parse_registry(copy.deepcopy(SHIPPED)).server
    assert "fault_contact" not in SHIPPED["server"] and "contact" not in SHIPPED["server"]
    assert shipped.fault_contact == shipped.operator.contact
    assert shipped.contact == shipped.operator.contact.url and shipped.contact in shipped.user_agent
    data = copy.deepcopy(SHIPPED)
    data["server"]["fault_contact"] = {"name": {"nl": "Storingsdienst", "en": "Fault desk"}, "email": "s@x.example"}
    data["server"]["contact"] = "mailto:platforms@x.example"
    data["server"]["operator"]["contact"].pop("url")
    apart = parse_registry(data).server
    assert apart.fault_contact.email == "s@x.example" and apart.operator.contact.email != "s@x.example"
    assert apart.contact == "mailto:platforms@x.example"
    data["server"].pop("contact")
    assert parse_registry(data).server.contact == f"mailto:{data['server']['operator']['contact']['email']}"


def test_controller_defaults_to_the_operator_and_a_person_needs_no_address() -> None:
    person = parse_registry(copy.deepcopy(SHIPPED)).server.operator
    assert person.controller_name == person.name and person.controller_email is None
    data = _variant_data()
    data["server"]["operator"].pop("controller")
    body = parse_registry(data).server.operator
    assert body.controller_name == body.name and body.controller_email == body.contact.email


def test_shipped_code_licence_agrees_with_the_package() -> None:
    """The shipped registry says what pyproject.toml says of the code's licence (nothing: NOASSERTION)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = project.get("license")
    declared = declared.get("text") if isinstance(declared, dict) else declared
    has_file = any((ROOT / name).is_file() for name in ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"))
    expected = declared or ("(see LICENSE)" if has_file else "NOASSERTION")
    assert SHIPPED["server"]["operator"]["code_license"] == expected


# --------------------------------------------------------------------------- overrides and labels


def _without_blocks(text: str) -> str:
    """An override with its BesluitBron blocks and header comment taken out."""
    text = re.sub(r"^[ \t]*\{#-\s*BesluitBron: ([^()]*) \(begin\) -#\}.*?\{#-\s*BesluitBron: \1 \(end\) -#\}\n", "",
                  text, flags=re.DOTALL | re.MULTILINE)
    return re.sub(r"\A\{#-.*?-#\}\n", "", text, flags=re.DOTALL)


def test_footer_override_is_the_pinned_upstream_plus_marked_blocks() -> None:
    """Keeps the sha256 pin in test_site_build.py meaningful: the override is upstream, apart from its blocks."""
    import material

    upstream = (Path(material.__file__).parent / "templates" / "partials" / "footer.html").read_text(encoding="utf-8")
    override = (ROOT / "overrides" / "partials" / "footer.html").read_text(encoding="utf-8")
    assert override.count("(begin) -#}") == override.count("(end) -#}") == 2
    assert _without_blocks(override) == _without_blocks(upstream)


def test_copyright_override_is_upstream_with_the_words_translated() -> None:
    import material

    path = Path(material.__file__).parent / "templates" / "partials" / "copyright.html"
    upstream = path.read_text(encoding="utf-8")
    assert hashlib.sha256(upstream.encode()).hexdigest() == COPYRIGHT_UPSTREAM_SHA256, (
        "Material's copyright partial changed: merge it into overrides/partials/copyright.html, then update the pin")
    override = (ROOT / "overrides" / "partials" / "copyright.html").read_text(encoding="utf-8")
    translated = ('{{ config.extra.besluitbron_footer.made_with if config.extra.besluitbron_footer '
                  'else "Made with" }}')
    assert _without_blocks(override).replace(translated, "Made with") == _without_blocks(upstream)


def test_public_words_do_not_shadow_other_labels() -> None:
    """site_labels spreads PUBLIC_WORDS into LABELS: a key also written there would silently win or lose."""
    tree = ast.parse((ROOT / "site_hooks" / "site_labels.py").read_text(encoding="utf-8"))
    own = {key.value for node in ast.walk(tree) if isinstance(node, ast.Dict)
           for key in node.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)}
    assert not own & set(PUBLIC_WORDS)
    assert all(LABELS[key] is PUBLIC_WORDS[key] for key in PUBLIC_WORDS)
    assert all(word.startswith("pub_") for word in PUBLIC_WORDS)


def test_a_public_installation_says_nothing_of_running_on_one_computer(site: Path) -> None:
    assert not [p for p in site.rglob("*.html") if 'class="local-banner"' in p.read_text(encoding="utf-8")]
    for lang in PREFIX:
        assert "127.0.0.1" not in (site / PREFIX[lang] / "llms.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["nl", "en"])
def test_over_names_where_to_report_a_security_problem(site: Path, lang: str) -> None:
    """The privacy and security officer found no security contact or disclosure policy on the site."""
    row = _soup(site, lang, "over.html").select_one("[data-software] tr[data-fact=security]")
    assert row is not None
    links = {a["href"] for a in row.select("a")}
    fault = _variant_data()["server"].get("fault_contact") or VARIANT_OPERATOR["contact"]
    assert f"mailto:{fault['email']}" in links
    assert "https://besluitbron.example.nl/.well-known/security.txt" in links and "SECURITY.md" in _text(row)
