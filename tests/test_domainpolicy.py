"""The domain policy: excluded > context URLs > preferred."""

from __future__ import annotations

import pytest

from proxy.core.errors import ToolInputError
from proxy.registry.model import DomainPolicy
from proxy.results.domainpolicy import apply_policy, context_urls, on_domain
from proxy.results.outputs import citation, precision


def _hit(uri: str) -> dict[str, object]:
    return {"id": uri, "citation": citation(uri=uri, title="t", text="x", source="s", label="l",
                                            requires_attribution=True)}


def _result(*uris: str) -> dict[str, object]:
    return {"results": [_hit(u) for u in uris],
            "precision": precision(total=len(uris), total_relation="exact", returned=len(uris), truncated=False,
                                   matched="full text")}


def test_domains_match_subdomains_and_ignore_www() -> None:
    assert on_domain("https://www.rechtspraak.nl/x", ("rechtspraak.nl",))
    assert on_domain("https://uitspraken.rechtspraak.nl/x", ("www.rechtspraak.nl",))
    assert not on_domain("https://notrechtspraak.nl/x", ("rechtspraak.nl",))


def test_excluded_wins_over_preferred_and_is_reported() -> None:
    policy = DomainPolicy(excluded_domains=("bad.nl",), context_urls=("https://bad.nl/ctx", "https://good.nl/ctx"),
                          preferred_domains=("bad.nl", "good.nl"))
    out = apply_policy(_result("https://a.nl/1", "https://bad.nl/2", "https://good.nl/3"), policy)
    assert [h["id"] for h in out["results"]] == ["https://good.nl/3", "https://a.nl/1"]
    assert out["precision"]["returned"] == 2
    assert "1 result(s) withheld" in out["precision"]["not_applied"][0]
    assert context_urls(policy) == ["https://good.nl/ctx"]


def test_a_document_on_an_excluded_domain_is_refused() -> None:
    policy = DomainPolicy(excluded_domains=("bad.nl",), context_urls=(), preferred_domains=())
    with pytest.raises(ToolInputError, match="domain policy"):
        apply_policy({"citation": _hit("https://sub.bad.nl/doc")["citation"], "text": "..."}, policy)


def test_empty_policy_changes_nothing() -> None:
    data = _result("https://a.nl/1")
    assert apply_policy(data, DomainPolicy((), (), ())) is data


def test_nested_documents_and_other_cited_lists_follow_the_policy() -> None:
    policy = DomainPolicy(excluded_domains=("bad.nl",), context_urls=(), preferred_domains=())
    with pytest.raises(ToolInputError, match="domain policy"):
        apply_policy({"document": _hit("https://www.bad.nl/doc"), "precision": None}, policy)
    out = apply_policy({"decisions": [_hit("https://bad.nl/1"), _hit("https://ok.nl/2")], "case": None}, policy)
    assert [h["id"] for h in out["decisions"]] == ["https://ok.nl/2"]
