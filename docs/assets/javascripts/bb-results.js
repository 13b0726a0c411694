// BesluitBron: tool output as a person wants to read it. Everything from the tool is external data
// and goes into the page as text nodes (bb-dom.el); the only links are citation URIs with an
// http(s) scheme (bb-dom.safeLink).

import {el, safeLink, uid} from "./bb-dom.js";
import {fieldLabel, formatNumber, pageLanguage, translator, valueLabel} from "./bb-i18n.js";

const MAX_DEPTH = 6;

/** The precision object in words: "1,234 results, exact; 20 shown", plus what else it says. */
export function precisionSentence(t, lang, precision) {
  const total = precision.total;
  const relation = precision.total_relation;
  let head;
  if (total === null || total === undefined || relation === "unknown") head = t("precision_unknown");
  else if (relation === "exact") head = total === 1 ? t("precision_exact_one")
    : t("precision_exact", {total: formatNumber(lang, total)});
  else if (relation === "lower_bound") head = total === 1 ? t("precision_lower_bound_one")
    : t("precision_lower_bound", {total: formatNumber(lang, total)});
  else head = total === 1 ? t("precision_estimate_one") : t("precision_estimate", {total: formatNumber(lang, total)});
  const parts = [`${head}; ${t("precision_shown", {returned: formatNumber(lang, precision.returned ?? 0)})}`];
  if (precision.truncated) {
    parts.push(typeof precision.next_offset === "number"
      ? t("precision_more", {offset: formatNumber(lang, precision.next_offset)}) : t("precision_more_no_offset"));
  }
  if (precision.partial) parts.push(t("precision_partial"));
  return parts.join("; ");
}

/** Text the server wrote for the assistant (English): on a Dutch page marked as English, after a Dutch word of notice. */
function serverWords(t, lang, text) {
  if (lang === "en") return [text];
  return [el("span", {class: "bb-server-note"}, t("server_english")), " ", el("span", {attrs: {lang: "en"}}, text)];
}

function renderPrecision(t, lang, precision) {
  const box = el("div", {class: "bb-precision", dataset: {bbPrecision: ""}},
    el("p", {class: "bb-precision__summary"}, el("strong", {}, precisionSentence(t, lang, precision))));
  // How the platform matched the query is its own query language (index names, DSL): a diagnostic, behind a toggle.
  if (precision.matched) box.append(el("details", {class: "bb-tech bb-precision__matched"},
    el("summary", {}, t("technical_details")),
    el("p", {}, t("precision_matched", {matched: String(precision.matched)}))));
  // The server's own explanations are English, as the assistant reads them: marked so, and said so once.
  const english = lang === "en" ? {} : {lang: "en"};
  if (precision.hint) box.append(el("p", {class: "bb-precision__hint"}, ...serverWords(t, lang, String(precision.hint))));
  if (Array.isArray(precision.not_applied) && precision.not_applied.length) {
    box.append(el("p", {class: "bb-precision__not-applied"}, t("precision_not_applied_intro"), " ",
      el("span", {attrs: english}, precision.not_applied.map(String).join("; "))));
  }
  return box;
}

const PAGE_LANG = pageLanguage();
const PAGE_T = translator(PAGE_LANG);

/** A field's name as a reader sees it: its words in the page's language, with the key itself beside them. */
function fieldName(key) {
  const words = fieldLabel(PAGE_LANG, key);
  return words ? [words, " ", el("code", {class: "bb-field-key"}, key)] : el("code", {class: "bb-field-key"}, key);
}

/** Any JSON value as nested lists of text (depth-limited); never markup. */
export function renderValue(value, depth = 0) {
  if (value === null || value === undefined) return el("span", {class: "bb-null"}, "–");
  if (typeof value === "boolean") return el("span", {class: "bb-scalar"}, PAGE_T(value ? "yes" : "no"));
  if (typeof value === "string" && valueLabel(PAGE_LANG, value) && valueLabel(PAGE_LANG, value) !== value) {
    return el("span", {class: "bb-scalar"}, [valueLabel(PAGE_LANG, value), " ", el("code", {class: "bb-field-key"}, value)]);
  }
  if (typeof value !== "object") return el("span", {class: "bb-scalar"}, String(value));
  if (depth >= MAX_DEPTH) return el("code", {}, JSON.stringify(value));
  if (Array.isArray(value)) {
    if (!value.length) return el("span", {class: "bb-null"}, "[]");
    return el("ol", {class: "bb-value-list"}, value.map((item) => el("li", {}, renderValue(item, depth + 1))));
  }
  const entries = Object.entries(value);
  if (!entries.length) return el("span", {class: "bb-null"}, "{}");
  return el("dl", {class: "bb-fields"}, entries.map(([key, item]) => [
    el("dt", {}, fieldName(key)), el("dd", {}, renderValue(item, depth + 1)),
  ]));
}

function renderHit(t, hit, number, chunks) {
  // Results cite through cited_chunks (each hit's cited_chunk is an index); an inline citation also works.
  const chunk = Number.isInteger(hit.cited_chunk) && Array.isArray(chunks) ? chunks[hit.cited_chunk] : null;
  const citation = hit.citation || (chunk && typeof chunk === "object" ? chunk : {});
  const title = String(citation.title || hit.title || hit.name || hit.identifier || `#${number}`);
  const item = el("li", {class: "bb-hit", id: uid("bb-hit"), dataset: {bbHit: String(number)}},
    el("p", {class: "bb-hit__title"},
      el("span", {class: "bb-hit__number", attrs: {"aria-hidden": "true"}}, `[${number}]`), " ",
      citation.uri ? safeLink(citation.uri, title, {class: "bb-hit__link", dataset: {bbCitation: String(number)}})
        : el("span", {}, title)));
  if (citation.text) item.append(el("p", {class: "bb-hit__text"}, String(citation.text)));
  if (citation.requires_attribution && citation.label) {
    item.append(el("p", {class: "bb-hit__attribution", dataset: {bbAttribution: ""}},
      t("attribution", {label: String(citation.label)})));
  }
  const rest = Object.fromEntries(Object.entries(hit).filter(([key]) => key !== "citation" && key !== "cited_chunk"));
  if (Object.keys(rest).length) {
    item.append(el("details", {class: "bb-hit__fields"}, el("summary", {}, t("all_fields")), renderValue(rest, 1)));
  }
  return item;
}

/** A whole tools/call result. */
export function renderResult(t, lang, result) {
  const box = el("div", {class: "bb-result"});
  const structured = result.structuredContent;
  const texts = (result.content || []).filter((block) => block && block.type === "text").map((block) => block.text);
  if (result.isError) {
    box.append(el("div", {class: "bb-alert bb-alert--error", attrs: {role: "alert"}, dataset: {bbToolError: ""}},
      el("p", {}, t("tool_error")), texts.map((text) => el("p", {class: "bb-pre"}, String(text)))));
    return box;
  }
  if (structured && typeof structured === "object" && !Array.isArray(structured)
      && Array.isArray(structured.results) && structured.precision && typeof structured.precision === "object") {
    box.append(renderPrecision(t, lang, structured.precision));
    if (!structured.results.length) box.append(el("p", {class: "bb-empty"}, t("no_results")));
    else {
      box.append(el("h4", {}, t("hits_title")),
        el("ol", {class: "bb-hits", attrs: {start: "1"}},
          structured.results.map((hit, i) => renderHit(t, hit, i + 1, structured.cited_chunks))));
    }
    const shown = new Set(["results", "precision", "cited_chunks"]);
    const extra = Object.fromEntries(Object.entries(structured).filter(([k]) => !shown.has(k)));
    if (Object.keys(extra).length) box.append(renderValue(extra));
  } else if (structured !== undefined) {
    box.append(renderValue(structured));
  } else if (texts.length) {
    box.append(el("h4", {}, t("text_content")), texts.map((text) => el("p", {class: "bb-pre"}, String(text))));
  }
  box.append(el("details", {class: "bb-raw"}, el("summary", {}, t("raw_json")),
    el("pre", {}, el("code", {}, JSON.stringify(structured !== undefined ? structured : result, null, 2)))));
  return box;
}

/** The list_platform_calls output: one entry per call, its facts on a line and its URL below. */
export function renderCalls(t, lang, output) {
  const calls = Array.isArray(output.calls) ? output.calls : [];
  const box = el("div", {class: "bb-calls", dataset: {bbCalls: String(calls.length)}},
    el("p", {class: "bb-hint"}, t("calls_caption")));
  if (!calls.length) {
    box.append(el("p", {}, t("calls_none")));
    return box;
  }
  box.append(el("ol", {class: "bb-call-list"}, calls.map((call) => {
    const facts = [
      [t("col_source"), String(call.source ?? "")],
      [t("col_method"), String(call.method ?? "")],
      [t("col_status"), call.error ? `${call.status ?? "–"} (${call.error})` : String(call.status ?? "–")],
      [t("col_duration"), t("ms", {value: formatNumber(lang, Math.round(Number(call.duration_ms) || 0))})],
      [t("col_bytes"), formatNumber(lang, Number(call.bytes) || 0)],
      [t("col_cache"), call.cache_hit ? t("cache_hit") : t("cache_miss")],
      [t("col_time"), String(call.at_utc || "").replace("T", " ").replace(/\+00:00$/, "")],
    ];
    return el("li", {class: "bb-call", dataset: {bbCall: ""}},
      el("dl", {class: "bb-call__facts"}, facts.map(([name, value]) => el("div", {}, el("dt", {}, name),
        el("dd", {}, value)))),
      el("p", {class: "bb-call__url"}, el("span", {class: "bb-visually-hidden"}, `${t("col_url")}: `),
        el("code", {}, String(call.url ?? ""))));
  })));
  if (output.truncated) {
    box.append(el("p", {}, t("calls_truncated", {shown: calls.length, total: output.total})));
  }
  return box;
}
