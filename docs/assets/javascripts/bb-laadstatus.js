// BesluitBron: the live Laadstatus (loaded by laadstatus.js). On the Laadstatus page (root #besluitbron-load-status) it reads
// the server's GET /status: per source whether it receives material and since when, a chart of the
// time since the newest material, and for the local sources a sortable table of organs with the
// stalled ones marked. Without a reachable /status the build-time snapshot stays, and the page says so.

import {append, clear, el, uid, withBreaks} from "./bb-dom.js";
import {formatNumber, pageLanguage, translator} from "./bb-i18n.js";

const DAY_MS = 86400000;

function parseJsonAttr(value, fallback) {
  try {
    const parsed = JSON.parse(value || "");
    return parsed && typeof parsed === "object" ? parsed : fallback;
  } catch {
    return fallback;
  }
}

/** Whole days from the ISO date `isoDate` to `reference` (a Date), or null. */
function daysSince(isoDate, reference) {
  if (!isoDate) return null;
  const start = Date.parse(`${String(isoDate).slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(start)) return null;
  const end = Date.UTC(reference.getUTCFullYear(), reference.getUTCMonth(), reference.getUTCDate());
  return Math.max(0, Math.round((end - start) / DAY_MS));
}

function measuredDate(source) {
  const parsed = source.measured_at ? new Date(source.measured_at) : null;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : new Date();
}

/** The day a source's ages count from: its recording day when it answers from the offline sample. */
function referenceDate(source, recordedOn) {
  const recorded = recordedOn[source.source] ? new Date(`${recordedOn[source.source]}T12:00:00Z`) : null;
  return recorded && !Number.isNaN(recorded.getTime()) ? recorded : measuredDate(source);
}

class LoadStatus {
  constructor(root) {
    this.root = root;
    this.lang = pageLanguage();
    this.t = translator(this.lang);
    this.titles = parseJsonAttr(root.dataset.titles, {});
    this.media = parseJsonAttr(root.dataset.media, {});  // gazette codes and organisation types in words
    this.snapshot = document.getElementById("besluitbron-load-status-snapshot");
  }

  days(n) {
    if (n === null) return this.t("ls_unknown");
    if (n === 0) return this.t("ls_today");
    return n === 1 ? this.t("ls_day") : this.t("ls_days", {days: formatNumber(this.lang, n)});
  }

  async start() {
    const t = this.t;
    this.status = el("p", {class: "bb-live__status", attrs: {role: "status"}, dataset: {bbStatusState: "loading"}},
      t("ls_loading"));
    this.body = el("div", {class: "bb-load-status__body"});
    append(clear(this.root), this.status, this.body);
    const data = await this.fetchStatus();
    if (!data) {
      const hasSnapshot = this.root.dataset.snapshot === "true";
      this.status.dataset.bbStatusState = "offline";
      this.status.textContent = hasSnapshot ? t("ls_unreachable") : t("ls_unreachable_nosnapshot");
      if (this.snapshot && hasSnapshot) {
        this.snapshot.before(el("p", {class: "bb-snapshot__label", dataset: {bbSnapshotLabel: ""}},
          t("ls_snapshot_label")));
      }
      return;
    }
    if (this.snapshot) this.snapshot.hidden = true;
    const time = new Intl.DateTimeFormat(this.lang === "en" ? "en-GB" : "nl-NL",
      {hour: "2-digit", minute: "2-digit", second: "2-digit"}).format(new Date());
    this.status.dataset.bbStatusState = "live";
    const measured = [...new Set(data.status.sources.map((source) => source.measured_at).filter(Boolean)
      .map((iso) => this.when(iso)))];
    this.sameMeasurement = measured.length === 1;
    this.recordedOn = (data.status.sample_data && data.status.sample_data.recorded_on) || {};
    const sampled = Object.keys(this.recordedOn).length > 0;
    append(clear(this.status), withBreaks([t("ls_live", {url: data.url, time}),
      this.sameMeasurement ? t("ls_measured_at", {when: measured[0]}) : "", sampled ? t("ls_sample") : ""]
      .join(" ").trim()));
    this.render(data.status);
    this.liveCheck(data.status.live_check);
  }

  /** The last `python -m proxy check-live` run, when one has run: when, and which platforms drifted. */
  liveCheck(check) {
    if (!check || typeof check !== "object" || !check.checked_at) return;
    const platforms = Object.entries(check.platforms || {});
    const drifted = platforms.filter(([, p]) => p && (p.status === "drift" || p.status === "unreachable"))
      .map(([key, p]) => `${this.titles[key] || key} (${(p.findings || []).join("; ") || p.status})`);
    const when = this.when(check.checked_at);
    this.status.after(el("p", {class: "bb-live-check", dataset: {bbLiveCheck: drifted.length ? "drift" : "ok"}},
      drifted.length ? this.t("ls_live_check_drift", {when, list: drifted.join(", ")})
        : this.t("ls_live_check_ok", {when})));
  }

  /** /status of this origin, else of the registry's public address; null when neither answers. */
  async fetchStatus() {
    const urls = [];
    if (location.protocol === "http:" || location.protocol === "https:") urls.push(new URL("/status", location.origin));
    try {
      const published = new URL("/status", this.root.dataset.publicUrl);
      if (published.origin !== location.origin) urls.push(published);
    } catch {
      // no usable public address
    }
    for (const url of urls) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 8000);
      try {
        const response = await fetch(url, {credentials: "omit", cache: "no-store", signal: controller.signal,
          headers: {Accept: "application/json"}});
        if (!response.ok) continue;
        const status = await response.json();
        if (status && Array.isArray(status.sources)) return {url: url.href, status};
      } catch {
        // unreachable, not JSON, or refused by CORS: try the next
      } finally {
        clearTimeout(timer);
      }
    }
    return null;
  }

  when(iso) {
    return String(iso).replace("T", " ").replace(/:\d\d(\.\d+)?\+00:00$/, " UTC");
  }

  title(source) {
    return String(this.titles[source.source] || source.title || source.source);
  }

  receiving(source) {
    if (source.receiving === true) return this.t("ls_yes");
    if (source.receiving === false) return this.t("ls_no");
    return this.t("ls_unknown");
  }

  render(status) {
    const t = this.t;
    const limit = Number(status.stalled_after_days) || Number(this.root.dataset.stalledAfterDays) || 60;
    const sources = status.sources.filter((s) => s && typeof s === "object");
    // Per source
    const rows = sources.map((source) => {
      const age = daysSince(source.current_through, referenceDate(source, this.recordedOn));
      const notes = [];
      if (this.recordedOn[source.source]) notes.push(t("ls_sample_of", {date: this.recordedOn[source.source]}));
      const media = Object.entries(source.current_through_per_medium || {});
      if (media.length) {
        notes.push(t("ls_per_medium", {list: media.map(([m, d]) => `${this.media[m] || m} ${d || "–"}`).join("; ")}));
      }
      // The measurement's own note (index names, copies) is a diagnostic: behind a toggle, not in running text.
      const reason = source.reason ? el("details", {class: "bb-tech"}, el("summary", {}, t("technical_details")),
        el("p", {attrs: {lang: "en"}}, String(source.reason))) : null;
      if (!this.sameMeasurement) {
        notes.push(source.measured_at ? t("ls_measured_at", {when: this.when(source.measured_at)}) : t("ls_not_measured"));
      }
      return el("tr", {dataset: {bbSource: String(source.source), receiving: String(source.receiving)}},
        el("th", {attrs: {scope: "row"}}, this.title(source)),
        el("td", {class: `bb-state bb-state--${source.receiving === true ? "ok" : source.receiving === false
          ? "stalled" : "unknown"}`}, this.receiving(source)),
        el("td", {class: "bb-nowrap"}, source.current_through || "–"),
        el("td", {class: "bb-nowrap"}, this.days(age)),
        el("td", {class: "bb-note"}, notes.join(" · ") || (reason ? "" : "–"), reason));
    });
    const sourcesTitle = uid("bb-ls-sources");
    append(this.body,
      el("section", {attrs: {"aria-labelledby": sourcesTitle}, dataset: {bbSources: ""}},
        el("h3", {id: sourcesTitle}, t("ls_sources_title")),
        el("div", {class: "bb-table-scroll", attrs: {tabindex: "0", role: "region", "aria-labelledby": sourcesTitle}},
          el("table", {},
            el("thead", {}, el("tr", {}, ["ls_source", "ls_receiving", "ls_newest", "ls_age", "ls_note"]
              .map((key) => el("th", {attrs: {scope: "col"}}, t(key))))),
            el("tbody", {}, rows)))),
      this.chart(sources, limit),
      sources.filter((s) => s.organs_total !== null && s.organs_total !== undefined && Array.isArray(s.organs))
        .map((s) => this.organs(s, limit)));
  }

  /** Horizontal bars: days since the newest material per source, with the stalled limit as a line. */
  chart(sources, limit) {
    const t = this.t;
    const ages = sources.map((s) => daysSince(s.current_through, referenceDate(s, this.recordedOn)));
    const scale = Math.max(limit * 1.25, ...ages.filter((a) => a !== null)) || 1;
    const pct = (n) => `${Math.min(100, (n / scale) * 100).toFixed(2)}%`;
    const titleId = uid("bb-ls-chart");
    const descId = uid("bb-ls-chart-desc");
    const rows = sources.map((source, i) => {
      const age = ages[i];
      const stalled = age !== null && age >= limit;
      const state = age === null ? "unknown" : stalled ? "stalled" : "ok";
      return el("li", {class: `bb-chart__row bb-chart__row--${state}`, dataset: {bbChartRow: String(source.source)}},
        el("span", {class: "bb-chart__label"}, this.title(source)),
        el("span", {class: "bb-chart__track", attrs: {"aria-hidden": "true"}},
          el("span", {class: "bb-chart__bar", style: `width: ${age === null ? "0" : pct(Math.max(age, scale / 200))}`}),
          el("span", {class: "bb-chart__limit", style: `left: ${pct(limit)}`})),
        el("span", {class: "bb-chart__value"}, age === null ? t("ls_chart_unknown")
          : `${this.days(age)}${stalled ? ` · ${t("ls_stalled")}` : ""}`));
    });
    return el("figure", {class: "bb-chart", attrs: {"aria-labelledby": titleId, "aria-describedby": descId},
      dataset: {bbChart: ""}},
    el("figcaption", {},
      el("strong", {id: titleId}, t("ls_chart_title")), " ",
      el("span", {id: descId}, t("ls_chart_desc", {days: formatNumber(this.lang, limit)}))),
    el("ul", {class: "bb-chart__rows"}, rows),
    el("p", {class: "bb-chart__legend", attrs: {"aria-hidden": "true"}},
      el("span", {class: "bb-chart__legend-limit"}), " ", t("ls_chart_threshold", {days: formatNumber(this.lang, limit)})));
  }

  /** The organs of one local source as a table sortable by every column; stalled ones marked. */
  organs(source, limit) {
    const t = this.t;
    const reference = referenceDate(source, this.recordedOn);
    const sampled = Boolean(this.recordedOn[source.source]);
    const organs = source.organs.map((o) => {
      // Nothing of it was recorded: a gap of the sample, not a stall of the organisation.
      const absent = sampled && !o.current_through;
      return {
        name: String(o.name || o.organ || ""),
        medium: String(this.media[o.medium] || o.medium || "–"),
        date: o.current_through || "",
        age: daysSince(o.current_through, reference),
        absent,
        stalled: Boolean(o.stalled) && !absent,
        key: String(o.organ || ""),
      };
    });
    const columns = [
      {key: "name", label: t("ls_organ"), value: (o) => o.name.toLocaleLowerCase(this.lang)},
      {key: "medium", label: t("ls_medium"), value: (o) => o.medium},
      {key: "date", label: t("ls_organ_newest"), value: (o) => o.date},
      // No date: the stalest of all on the platform, but last when only the sample lacks it.
      {key: "age", label: t("ls_organ_age"), value: (o) => (o.age !== null ? o.age : o.absent ? -1 : Infinity)},
      {key: "stalled", label: t("ls_organ_state"), value: (o) => (o.stalled ? 1 : 0)},
    ];
    const titleId = uid("bb-ls-organs");
    const tbody = el("tbody");
    let sort = {key: "age", dir: "descending"};
    const headers = columns.map((column) => {
      const button = el("button", {type: "button", class: "bb-sort", dataset: {bbSort: column.key},
        attrs: {title: t("ls_sort_by", {column: column.label})}}, column.label,
      el("span", {class: "bb-sort__icon", attrs: {"aria-hidden": "true"}}));
      const th = el("th", {attrs: {scope: "col"}, dataset: {column: column.key}}, button);
      button.addEventListener("click", () => {
        sort = {key: column.key, dir: sort.key === column.key && sort.dir === "ascending" ? "descending" : "ascending"};
        draw();
      });
      return th;
    });
    const filter = this.organFilter(organs, () => draw());
    const draw = () => {
      const column = columns.find((c) => c.key === sort.key);
      const sign = sort.dir === "ascending" ? 1 : -1;
      const shown = organs.filter(filter.matches);
      filter.count(shown.length);
      const sorted = shown.sort((a, b) => {
        const x = column.value(a);
        const y = column.value(b);
        if (x < y) return -sign;
        if (x > y) return sign;
        return a.name.localeCompare(b.name, this.lang);
      });
      for (const th of headers) {
        if (th.dataset.column === sort.key) th.setAttribute("aria-sort", sort.dir);
        else th.removeAttribute("aria-sort");
      }
      append(clear(tbody), sorted.map((o) => el("tr", {class: o.stalled ? "bb-organ--stalled" : "",
        dataset: {bbOrgan: o.key, stalled: String(o.stalled)}},
      el("th", {attrs: {scope: "row"}}, o.name),
      el("td", {}, o.medium),
      el("td", {class: "bb-nowrap"}, o.date || "–"),
      el("td", {class: "bb-num"}, o.age === null ? "–" : formatNumber(this.lang, o.age)),
      o.absent ? el("td", {class: "bb-state bb-state--unknown"}, t("ls_not_in_sample"))
        : el("td", {class: `bb-state bb-state--${o.stalled ? "stalled" : "ok"}`},
          o.stalled ? t("ls_stalled") : t("ls_active")))),
      sorted.length ? null : el("tr", {dataset: {bbNoOrgan: ""}},
        el("td", {attrs: {colspan: String(columns.length)}}, t("ls_filter_none"))));
    };
    draw();
    const total = source.organs_total ?? organs.length;
    const absent = organs.filter((o) => o.absent).length;
    const stalled = absent ? organs.filter((o) => o.stalled).length
      : source.organs_stalled ?? organs.filter((o) => o.stalled).length;
    return el("section", {class: "bb-organs", attrs: {"aria-labelledby": titleId},
      dataset: {bbOrgans: String(source.source)}},
    el("h3", {id: titleId}, t("ls_organs_title", {source: this.title(source)})),
    el("p", {}, t("ls_organs_summary", {stalled: formatNumber(this.lang, stalled),
      total: formatNumber(this.lang, total), days: formatNumber(this.lang, limit)}),
    absent ? ` ${t("ls_organs_absent", {absent: formatNumber(this.lang, absent)})}` : "", " ", t("ls_sort_hint")),
    filter.form,
    el("div", {class: "bb-table-scroll bb-table-scroll--tall", attrs: {tabindex: "0", role: "region",
      "aria-labelledby": titleId}},
    el("table", {}, el("thead", {}, el("tr", {}, headers)), tbody)));
  }

  /** Narrowing the organs table: words of the name, a kind, only the stalled ones; the count said as it changes. */
  organFilter(organs, redraw) {
    const t = this.t;
    const fold = (text) => String(text).normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLocaleLowerCase(this.lang);
    const field = (label, control) => el("div", {class: "bb-field"}, el("label", {htmlFor: control.id}, label), control);
    const name = el("input", {type: "search", id: uid("bb-ls-name"), attrs: {autocomplete: "off", spellcheck: "false",
      placeholder: t("ls_filter_name_example")}, dataset: {bbFilter: "name"}, on: {input: redraw}});
    const kinds = [...new Set(organs.map((o) => o.medium))].sort((a, b) => a.localeCompare(b, this.lang));
    const medium = el("select", {id: uid("bb-ls-medium"), dataset: {bbFilter: "medium"}, on: {change: redraw}},
      el("option", {value: ""}, t("ls_filter_medium_all")), kinds.map((k) => el("option", {value: k}, k)));
    const stalled = el("input", {type: "checkbox", id: uid("bb-ls-stalled"), dataset: {bbFilter: "stalled"},
      on: {change: redraw}});
    const said = el("p", {class: "bb-hint", attrs: {"aria-live": "polite"}, dataset: {bbFilterCount: ""}});
    const form = el("form", {class: "bb-form bb-organ-filter", attrs: {role: "search", "aria-label": t("ls_filter_title")},
      on: {submit: (event) => event.preventDefault()}},
    field(t("ls_filter_name"), name),
    kinds.length > 1 ? field(t("ls_medium"), medium) : null,
    el("div", {class: "bb-field bb-field--check"}, stalled, el("label", {htmlFor: stalled.id}, t("ls_filter_stalled"))),
    said);
    return {
      form,
      matches: (o) => {
        const words = fold(name.value).split(/\s+/).filter(Boolean);
        const folded = fold(o.name);
        return words.every((w) => folded.includes(w)) && (!medium.value || o.medium === medium.value)
          && (!stalled.checked || o.stalled);
      },
      count: (shown) => {
        said.textContent = shown === organs.length ? "" : t("ls_filter_count",
          {shown: formatNumber(this.lang, shown), total: formatNumber(this.lang, organs.length)});
      },
    };
  }
}

/** Start the live Laadstatus in its root element (once). */
export function start(rootNode) {
  if (rootNode.dataset.bbStarted !== undefined) return;
  rootNode.dataset.bbStarted = "";
  new LoadStatus(rootNode).start();
}
