// BesluitBron: the live explorer (loaded by explorer.js). On the explorer page (root #besluitbron-explorer) it lets a
// visitor pick a connector and a tool, fill a form generated from the tool's input schema, and call
// it over MCP (bb-mcp.js) after an approval card: allow once, always allow this tool, deny. Cards
// expire after data-card-ttl-ms (default 60 s). Standing approvals live in localStorage
// (bb-approvals.js) and can be revoked on the page. Results render as text (bb-results.js).

import {Approvals} from "./bb-approvals.js";
import {append, clear, el, uid, withBreaks} from "./bb-dom.js";
import {pageLanguage, translator} from "./bb-i18n.js";
import {McpError, callTool, listTools} from "./bb-mcp.js";
import {renderCalls, renderResult} from "./bb-results.js";

const DEFAULT_CARD_TTL_MS = 60000;
const CALLS_TOOL = "list_platform_calls";

function Explorer(rootNode) {
  this.root = rootNode;
  this.lang = pageLanguage();
  this.t = translator(this.lang);
  this.approvals = new Approvals();
  this.catalog = null; // explorer.json: the connectors, each naming its own tools file
  this.catalogUrl = null;
  this.toolFiles = new Map(); // slug → Promise<tools from explorer/<slug>.json, or null when it failed>
  this.toolWords = new Map(); // slug → those tools, once loaded (titles for the permission list)
  this.live = new Map(); // slug → Promise<{url, tools} | {error, address}>
  this.workingOrigin = null; // the origin whose MCP endpoints answered first
  this.pendingCard = null;
}

Explorer.prototype.start = async function start() {
  const t = this.t;
  this.status = el("p", {class: "bb-live__status", attrs: {role: "status"}, dataset: {bbLiveStatus: "", state: "loading"}},
    t("live_loading"));
  this.connectorSelect = el("select", {id: "bb-connector", name: "connector"});
  this.alwaysAll = el("input", {type: "checkbox", id: "bb-always-all", attrs: {"aria-describedby": "bb-always-all-hint"}});
  this.alwaysAllHint = el("span", {id: "bb-always-all-hint", class: "bb-hint"});
  this.toolSelect = el("select", {id: "bb-tool", name: "tool"});
  this.toolInfo = el("div", {class: "bb-tool-info", attrs: {"aria-live": "polite"}});
  this.argsBox = el("fieldset", {class: "bb-args"});
  this.formErrors = el("div", {class: "bb-form-errors", attrs: {role: "alert"}});
  this.callButton = el("button", {type: "submit", class: "md-button md-button--primary", dataset: {bbCall: ""}},
    t("call"));
  this.form = el("form", {class: "bb-form", attrs: {novalidate: true}, hidden: true},
    el("div", {class: "bb-field"}, el("label", {htmlFor: "bb-connector"}, t("connector")), this.connectorSelect),
    this.switchRow = el("div", {class: "bb-field bb-field--check"}, this.alwaysAll,
      el("label", {htmlFor: "bb-always-all"}, t("always_all")), this.alwaysAllHint),
    el("div", {class: "bb-field"}, el("label", {htmlFor: "bb-tool"}, t("tool")), this.toolSelect),
    this.toolInfo, this.argsBox, this.formErrors,
    this.actionsRow = el("div", {class: "bb-actions"}, this.callButton));
  this.cardSlot = el("div", {class: "bb-card-slot"});
  const resultsTitleId = uid("bb-results-title");
  this.resultsBody = el("div", {class: "bb-results__body"});
  this.resultsTitle = el("h3", {id: resultsTitleId, class: "bb-results__title", tabIndex: -1}, t("results_title"));
  this.results = el("section", {class: "bb-results", hidden: true, attrs: {"aria-labelledby": resultsTitleId},
    dataset: {bbResults: "", external: ""}},
  el("p", {class: "bb-external"}, el("span", {class: "bb-external__label"}, t("external_data")), " ",
    el("span", {class: "bb-external__note"}, t("external_note"))),
  this.resultsTitle, this.resultsBody);
  this.permissions = el("section", {class: "bb-permissions", dataset: {bbPermissions: ""},
    attrs: {"aria-labelledby": "bb-permissions-title"}});
  this.permissionStatus = el("p", {class: "bb-hint", attrs: {role: "status"}, dataset: {bbPermissionStatus: ""}});
  const titleId = "bb-live-title";
  append(clear(this.root),
    el("section", {class: "bb-live", attrs: {"aria-labelledby": titleId}},
      el("h2", {id: titleId}, t("live_title")),
      el("p", {}, t("live_intro")),
      this.status, this.form, this.cardSlot, this.results, this.permissions));

  this.connectorSelect.addEventListener("change", () => this.selectConnector());
  this.toolSelect.addEventListener("change", () => this.selectTool());
  this.alwaysAll.addEventListener("change", () => {
    this.approvals.setConnector(this.connectorSelect.value, this.alwaysAll.checked);
  });
  this.form.addEventListener("submit", (event) => {
    event.preventDefault();
    this.submit();
  });
  this.approvals.onChange(() => this.renderPermissions());
  window.addEventListener("storage", () => this.renderPermissions());

  const catalogUrl = new URL(this.root.dataset.catalog || "explorer.json", document.baseURI);
  this.catalogUrl = catalogUrl;
  try {
    const response = await fetch(catalogUrl, {credentials: "omit"});
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    this.catalog = await response.json();
  } catch {
    this.setStatus("offline", t("catalog_failed", {url: catalogUrl.pathname}));
    return;
  }
  for (const connector of this.catalog.connectors || []) {
    this.connectorSelect.append(el("option", {value: connector.slug}, `${connector.title} (${connector.path})`));
  }
  this.form.hidden = false;
  this.renderPermissions();
  // Standing approvals name tools: fetch the words of those connectors (only those) for the list's titles.
  const approved = new Set(this.approvals.list().filter((item) => item.tool !== null).map((item) => item.slug));
  const known = [...approved].map((slug) => this.connector(slug)).filter(Boolean);
  if (known.length) Promise.all(known.map((c) => this.describedTools(c))).then(() => this.renderPermissions());
  await this.selectConnector();
};

Explorer.prototype.connector = function connector(slug) {
  return (this.catalog.connectors || []).find((c) => c.slug === slug) || null;
};

Explorer.prototype.setStatus = function setStatus(state, text) {
  this.status.dataset.state = state;
  append(clear(this.status), withBreaks(text));
};

/** A connector's tools as the site describes them (words per language, schemas), fetched once when first needed:
 * one small file per connector, so the page and its catalog stay small however many connectors there are. */
Explorer.prototype.describedTools = function describedTools(connector) {
  if (!this.toolFiles.has(connector.slug)) {
    this.toolFiles.set(connector.slug, (async () => {
      try {
        const response = await fetch(new URL(connector.tools_url, this.catalogUrl), {credentials: "omit"});
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const tools = (await response.json()).tools || [];
        this.toolWords.set(connector.slug, tools);
        return tools;
      } catch {
        return null;
      }
    })());
  }
  return this.toolFiles.get(connector.slug);
};

/** The MCP URLs to try for a connector: this origin first, then the registry's public address. */
Explorer.prototype.candidates = function candidates(connector) {
  const urls = [];
  if (location.protocol === "http:" || location.protocol === "https:") {
    urls.push(new URL(connector.path, location.origin).href);
  }
  try {
    const published = new URL(connector.address);
    if (published.origin !== location.origin) urls.push(published.href);
  } catch {
    // no usable public address
  }
  if (this.workingOrigin) urls.sort((a, b) => Number(new URL(b).origin === this.workingOrigin)
    - Number(new URL(a).origin === this.workingOrigin));
  return urls;
};

/** tools/list of a connector, live (cached per page). */
Explorer.prototype.liveTools = function liveTools(connector) {
  if (!this.live.has(connector.slug)) {
    this.live.set(connector.slug, (async () => {
      for (const url of this.candidates(connector)) {
        try {
          const tools = await listTools(url, {timeoutMs: 8000});
          this.workingOrigin = new URL(url).origin;
          return {url, tools};
        } catch {
          // try the next address
        }
      }
      return {error: true, address: connector.address};
    })());
  }
  return this.live.get(connector.slug);
};

/** The connector's tools: the live list when the server answers (catalog words per language), else the catalog. */
Explorer.prototype.selectConnector = async function selectConnector() {
  const slug = this.connectorSelect.value;
  const connector = this.connector(slug);
  if (!connector) return;
  this.cancelCard();
  this.alwaysAll.checked = this.approvals.connectorAllowed(slug);
  this.alwaysAllHint.textContent = this.t("always_all_hint", {connector: connector.title});
  this.setStatus("loading", this.t("live_loading"));
  this.callButton.disabled = true;
  this.toolSelect.dataset.connector = "";
  const [live, described] = await Promise.all([this.liveTools(connector), this.describedTools(connector)]);
  if (this.connectorSelect.value !== slug) return; // the visitor moved on meanwhile
  const words = new Map((described || []).map((tool) => [tool.name, tool]));
  if (live.error) {
    this.tools = (described || []).map((tool) => ({...tool, inputSchema: tool.input_schema,
      parameterWords: tool.parameter_words || {}}));
    this.endpoint = null;
    this.setStatus("offline", this.t("live_unreachable", {address: connector.address}));
  } else {
    this.tools = live.tools.map((tool) => {
      const known = words.get(tool.name);
      return {
        name: tool.name,
        title: known ? known.title : (tool.title || (tool.annotations && tool.annotations.title) || tool.name),
        description: known ? known.description : (tool.description || ""),
        question: known ? known.question : "",
        readOnly: Boolean(tool.annotations && tool.annotations.readOnlyHint),
        inputSchema: tool.inputSchema || {type: "object"},
        parameterWords: known ? (known.parameter_words || {}) : {},
      };
    });
    this.endpoint = live.url;
    this.setStatus("live", this.t("live_ok", {address: live.url, count: this.tools.length}));
  }
  clear(this.toolSelect);
  for (const tool of this.tools) this.toolSelect.append(el("option", {value: tool.name}, `${tool.title} (${tool.name})`));
  this.toolSelect.dataset.connector = slug;
  this.selectTool();
};

Explorer.prototype.currentTool = function currentTool() {
  return (this.tools || []).find((tool) => tool.name === this.toolSelect.value) || null;
};

Explorer.prototype.selectTool = function selectTool() {
  const tool = this.currentTool();
  this.cancelCard();
  clear(this.toolInfo);
  clear(this.formErrors);
  clear(this.argsBox);
  if (!tool) return;
  if (tool.description) this.toolInfo.append(el("p", {}, tool.description));
  if (tool.question) this.toolInfo.append(el("p", {}, el("em", {}, tool.question)));
  this.argsBox.append(el("legend", {}, this.t("parameters")));
  const schema = tool.inputSchema || {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const properties = Object.entries(schema.properties || {});
  if (!properties.length) this.argsBox.append(el("p", {}, this.t("no_parameters")));
  const words = tool.parameterWords || {};
  this.fields = properties.map(([name, prop]) => this.field(name, prop || {}, required.has(name), words[name]));
  for (const field of this.fields) this.argsBox.append(field.node);
  // Without a server nothing can be called: only the tool's words stay (its parameters are documented below).
  const online = Boolean(this.endpoint);
  this.callButton.disabled = !online;
  this.argsBox.hidden = !online;
  this.actionsRow.hidden = !online;
  this.switchRow.hidden = !online;
};

function mainType(prop) {
  const type = Array.isArray(prop.type) ? prop.type.find((x) => x !== "null") : prop.type;
  if (type) return type;
  if (Array.isArray(prop.enum)) return "enum";
  return "json";
}

/** One form control for one schema property: {name, node, read() → {value} | {skip} | {error}}. */
Explorer.prototype.field = function field(name, prop, required, words) {
  const t = this.t;
  const id = `bb-arg-${name}`;
  const hintId = `${id}-hint`;
  const type = mainType(prop);
  const hint = [];
  // The registry's words in the page's language; the schema's own (English) text in running text only on an
  // English page, on a Dutch one behind "Technische details".
  const schemaText = prop.description ? String(prop.description) : "";
  if (words) hint.push(String(words));
  else if (schemaText && this.lang === "en") hint.push(schemaText);
  const technical = !words && schemaText && this.lang !== "en" ? schemaText : "";
  if (prop.default !== undefined) hint.push(t("default_value", {value: JSON.stringify(prop.default)}));
  const labelText = [el("code", {}, name), required ? ` (${t("required")})` : ""];
  const described = hint.length || type === "array" ? hintId : undefined;
  const wrap = el("div", {class: "bb-field", dataset: {bbArg: name}});
  const label = el("label", {htmlFor: id}, labelText);
  let read;

  const enumValues = Array.isArray(prop.enum) ? prop.enum : null;
  if (enumValues && type !== "array") {
    const select = el("select", {id, name, attrs: {"aria-describedby": described}},
      required ? null : el("option", {value: ""}, t("not_set")),
      enumValues.map((v, i) => el("option", {value: String(i), selected: prop.default === v}, String(v))));
    append(wrap, label, select);
    read = () => (select.value === "" ? {skip: true} : {value: enumValues[Number(select.value)]});
  } else if (type === "array" && prop.items && Array.isArray(prop.items.enum)) {
    const values = prop.items.enum;
    const boxes = values.map((v, i) => el("input", {type: "checkbox", id: `${id}-${i}`, value: String(i)}));
    const set = el("fieldset", {class: "bb-checks", attrs: {"aria-describedby": described}},
      el("legend", {}, labelText),
      boxes.map((box, i) => el("span", {class: "bb-check"}, box, el("label", {htmlFor: box.id}, String(values[i])))));
    wrap.append(set);
    read = () => {
      const chosen = boxes.filter((box) => box.checked).map((box) => values[Number(box.value)]);
      return chosen.length ? {value: chosen} : {skip: true};
    };
  } else if (type === "array") {
    hint.push(t("one_per_line"));
    const area = el("textarea", {id, name, rows: 3, attrs: {"aria-describedby": hintId}});
    append(wrap, label, area);
    const itemType = prop.items ? mainType(prop.items) : "string";
    read = () => {
      const lines = area.value.split("\n").map((line) => line.trim()).filter(Boolean);
      if (!lines.length) return {skip: true};
      if (itemType === "integer" || itemType === "number") {
        const numbers = lines.map(Number);
        if (numbers.some((n) => !Number.isFinite(n))) return {error: t("invalid_json", {field: name})};
        return {value: numbers};
      }
      return {value: lines};
    };
  } else if (type === "boolean") {
    const select = el("select", {id, name, attrs: {"aria-describedby": described}},
      el("option", {value: ""}, t("not_set")), el("option", {value: "true"}, t("yes")),
      el("option", {value: "false"}, t("no")));
    append(wrap, label, select);
    read = () => (select.value === "" ? {skip: true} : {value: select.value === "true"});
  } else if (type === "integer" || type === "number") {
    const input = el("input", {id, name, type: "number", attrs: {
      "aria-describedby": described, min: prop.minimum, max: prop.maximum, step: type === "integer" ? "1" : "any",
      placeholder: prop.default !== undefined ? String(prop.default) : undefined, inputmode: "numeric"}});
    append(wrap, label, input);
    read = () => {
      const raw = input.value.trim();
      if (!raw) return {skip: true};
      const n = Number(raw);
      if (!Number.isFinite(n) || (type === "integer" && !Number.isInteger(n))) {
        return {error: t("invalid_number", {field: name})};
      }
      return {value: n};
    };
  } else if (type === "string") {
    const input = el("input", {id, name, type: prop.format === "date" ? "date" : "text", attrs: {
      "aria-describedby": described, maxlength: prop.maxLength, autocomplete: "off", spellcheck: "false"}});
    append(wrap, label, input);
    read = () => (input.value === "" ? {skip: true} : {value: input.value});
  } else {
    const area = el("textarea", {id, name, rows: 3, attrs: {"aria-describedby": described}});
    append(wrap, label, area);
    read = () => {
      if (!area.value.trim()) return {skip: true};
      try {
        return {value: JSON.parse(area.value)};
      } catch {
        return {error: t("invalid_json", {field: name})};
      }
    };
  }
  if (hint.length) wrap.append(el("p", {class: "bb-hint", id: hintId}, hint.join(" · ")));
  if (technical) {
    wrap.append(el("details", {class: "bb-tech"}, el("summary", {}, t("technical_details")),
      el("p", {attrs: {lang: "en"}}, technical)));
  }
  return {name, required, node: wrap, read};
};

Explorer.prototype.collect = function collect() {
  const args = {};
  const errors = [];
  const invalid = [];
  for (const field of this.fields || []) {
    const outcome = field.read();
    let error = outcome.error || null;
    if (!error && outcome.skip && field.required) error = this.t("missing_required", {field: field.name});
    for (const control of field.node.querySelectorAll("input, select, textarea")) {
      if (error) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    }
    if (error) {
      errors.push(error);
      invalid.push(field.name);
    } else if (!outcome.skip) args[field.name] = outcome.value;
  }
  return {args, errors, invalid};
};

Explorer.prototype.submit = async function submit() {
  const tool = this.currentTool();
  const connector = this.connector(this.connectorSelect.value);
  if (!tool || !connector || !this.endpoint) return;
  clear(this.formErrors);
  const {args, errors, invalid} = this.collect();
  if (errors.length) {
    append(this.formErrors, el("ul", {}, errors.map((e) => el("li", {}, e))));
    const first = invalid.length ? this.argsBox.querySelector(`[data-bb-arg="${invalid[0]}"] :is(input, select, textarea)`)
      : null;
    if (first) first.focus();
    return;
  }
  // What the card shows is exactly what is sent: the arguments are fixed as this text.
  const exact = JSON.stringify(args, null, 2);
  const request = {connector, tool, endpoint: this.endpoint, exact};
  // Standing approvals hold for tools that declare themselves read-only; anything else asks every time.
  const standing = tool.readOnly ? this.approvals.standing(connector.slug, tool.name) : null;
  if (standing) {
    const note = standing === "connector" ? this.t("auto_allowed_connector", {connector: connector.title})
      : this.t("auto_allowed_tool", {tool: tool.title});
    await this.run(request, note);
    return;
  }
  const decision = await this.ask(request);
  if (decision === "once" || decision === "always") {
    if (decision === "always") this.approvals.allowTool(connector.slug, tool.name);
    await this.run(request, null);
  } else if (decision === "deny") {
    this.showResults("denied");
    this.resultsBody.append(el("p", {dataset: {bbDenied: ""}}, this.t("denied", {tool: tool.title})));
  }
};

/** Show the approval card; resolves with "once", "always", "deny", "expired" or "cancelled". */
Explorer.prototype.ask = function ask(request) {
  const t = this.t;
  this.cancelCard();
  const ttl = Math.max(0, Number(this.root.dataset.cardTtlMs) || DEFAULT_CARD_TTL_MS);
  const deadline = Date.now() + ttl;
  const titleId = uid("bb-card-title");
  const countdown = el("p", {class: "bb-card__expiry", dataset: {bbCardExpiry: ""}});
  const buttons = [
    ["once", "allow-once", "md-button md-button--primary", t("allow_once")],
    request.tool.readOnly ? ["always", "allow-always", "md-button", t("allow_always")] : null,
    ["deny", "deny", "md-button bb-button--deny", t("deny")],
  ].filter(Boolean).map(([decision, action, cls, text]) => el("button", {type: "button", class: cls, dataset: {bbAction: action, decision}},
    text));
  const heading = el("h3", {id: titleId, tabIndex: -1}, t("card_title"));
  const card = el("div", {class: "bb-card", attrs: {role: "group", "aria-labelledby": titleId},
    dataset: {bbCard: "", state: "pending", connector: request.connector.slug, tool: request.tool.name}},
  heading,
  el("p", {}, t("card_intro")),
  el("dl", {class: "bb-card__facts"},
    el("dt", {}, t("card_connector")),
    el("dd", {dataset: {bbCardConnector: ""}}, request.connector.title, " ", el("code", {}, withBreaks(request.endpoint))),
    el("dt", {}, t("card_tool")),
    el("dd", {dataset: {bbCardTool: ""}}, request.tool.title, " ", el("code", {}, request.tool.name)),
    el("dt", {}, t("card_arguments")),
    el("dd", {}, el("pre", {class: "bb-card__args"}, el("code", {dataset: {bbCardArgs: ""}}, request.exact)))),
  el("p", {class: request.tool.readOnly ? "bb-hint" : "bb-card__warning"},
    request.tool.readOnly ? t("card_readonly") : t("card_not_readonly")),
  el("p", {class: "bb-hint"}, t("card_trace_note")),
  countdown,
  el("div", {class: "bb-actions"}, buttons));

  return new Promise((resolve) => {
    const tick = () => {
      const left = deadline - Date.now();
      if (left <= 0) return finish("expired");
      countdown.textContent = t("card_expires", {seconds: Math.ceil(left / 1000)});
      return undefined;
    };
    const interval = setInterval(tick, 250);
    const timeout = setTimeout(() => finish("expired"), ttl);
    const finish = (decision) => {
      if (card.dataset.state !== "pending") return;
      clearInterval(interval);
      clearTimeout(timeout);
      this.pendingCard = null;
      if (decision === "expired") {
        card.dataset.state = "expired";
        for (const button of buttons) button.disabled = true;
        countdown.textContent = t("card_expired");
        countdown.setAttribute("role", "alert");
      } else {
        card.dataset.state = decision;
        card.remove();
      }
      resolve(decision);
    };
    for (const button of buttons) button.addEventListener("click", () => finish(button.dataset.decision));
    this.pendingCard = {finish};
    tick();
    append(clear(this.cardSlot), card);
    heading.focus();
  });
};

Explorer.prototype.cancelCard = function cancelCard() {
  if (this.pendingCard) this.pendingCard.finish("cancelled");
  clear(this.cardSlot);
};

Explorer.prototype.showResults = function showResults(state) {
  clear(this.cardSlot);
  this.results.hidden = false;
  this.results.dataset.state = state;
  clear(this.resultsBody);
};

/** Call the tool with the approved arguments, then ask for the platform calls behind the answer. */
Explorer.prototype.run = async function run(request, note) {
  const t = this.t;
  const {connector, tool, endpoint, exact} = request;
  this.showResults("running");
  this.results.dataset.complete = "false";
  this.resultsTitle.textContent = `${t("results_title")}: ${tool.title}`;
  if (note) this.resultsBody.append(el("p", {class: "bb-hint", dataset: {bbAutoAllowed: ""}}, note));
  const progress = el("p", {attrs: {role: "status"}}, t("running", {tool: tool.title}));
  this.resultsBody.append(progress);
  this.callButton.disabled = true;
  this.resultsTitle.focus();
  try {
    const {result, trace} = await callTool(endpoint, tool.name, JSON.parse(exact));
    progress.remove();
    this.resultsBody.append(renderResult(t, this.lang, result || {}));
    this.results.dataset.state = result && result.isError ? "tool-error" : "done";
    const hasCalls = (this.tools || []).some((x) => x.name === CALLS_TOOL);
    if (trace && hasCalls && tool.name !== CALLS_TOOL) await this.showCalls(connector, endpoint, trace);
  } catch (err) {
    progress.remove();
    const message = err instanceof McpError ? `${err.message} (${err.code})` : String(err.message || err);
    this.resultsBody.append(el("div", {class: "bb-alert bb-alert--error", attrs: {role: "alert"}},
      el("p", {}, t("call_failed", {message}))));
    this.results.dataset.state = "error";
  } finally {
    this.callButton.disabled = !this.endpoint;
    this.results.dataset.complete = "true";
  }
};

Explorer.prototype.showCalls = async function showCalls(connector, endpoint, trace) {
  const t = this.t;
  const titleId = uid("bb-calls-title");
  const section = el("section", {class: "bb-calls-section", attrs: {"aria-labelledby": titleId}},
    el("h4", {id: titleId}, t("calls_title")));
  this.resultsBody.append(section);
  try {
    const {result} = await callTool(endpoint, CALLS_TOOL, {trace});
    if (result.isError || !result.structuredContent) throw new Error(
      (result.content || []).map((block) => block.text).join(" ") || "no structured content");
    section.append(renderCalls(t, this.lang, result.structuredContent));
  } catch (err) {
    section.append(el("p", {}, t("calls_failed", {message: String(err.message || err)})));
  }
};

Explorer.prototype.renderPermissions = function renderPermissions() {
  const t = this.t;
  const items = this.approvals.list();
  const titleOf = (slug) => (this.catalog && this.connector(slug) ? this.connector(slug).title : slug);
  const toolTitle = (slug, name) => {
    const tool = (this.toolWords.get(slug) || []).find((x) => x.name === name);
    return tool ? `${tool.title} (${name})` : name;
  };
  clear(this.permissions);
  this.permissions.append(el("h3", {id: "bb-permissions-title"}, t("permissions_title")),
    el("p", {class: "bb-hint"}, t("permissions_intro")));
  if (!items.length) {
    this.permissions.append(el("p", {dataset: {bbPermissionsEmpty: ""}}, t("permissions_none")));
  } else {
    this.permissions.append(el("ul", {class: "bb-permission-list"}, items.map((item) => {
      const what = item.tool === null ? t("permission_connector", {connector: titleOf(item.slug)})
        : t("permission_tool", {connector: titleOf(item.slug), tool: toolTitle(item.slug, item.tool)});
      const revoke = el("button", {type: "button", class: "md-button bb-button--small",
        dataset: {bbRevoke: ""}, attrs: {"aria-label": `${t("revoke")}: ${what}`}}, t("revoke"));
      revoke.addEventListener("click", () => {
        if (item.tool === null) this.approvals.setConnector(item.slug, false);
        else this.approvals.revokeTool(item.slug, item.tool);
        this.announce(t("revoked", {what}));
      });
      return el("li", {dataset: {bbPermission: item.tool === null ? `${item.slug}:*` : `${item.slug}:${item.tool}`}},
        el("span", {}, what), " ", revoke);
    })));
    const all = el("button", {type: "button", class: "md-button bb-button--small", dataset: {bbRevokeAll: ""}},
      t("revoke_all"));
    all.addEventListener("click", () => {
      this.approvals.revokeAll();
      this.announce(t("revoked", {what: t("permissions_title").toLowerCase()}));
    });
    this.permissions.append(el("p", {}, all));
  }
  if (this.connectorSelect.value) this.alwaysAll.checked = this.approvals.connectorAllowed(this.connectorSelect.value);
  this.permissions.append(this.permissionStatus);
};

/** Say what was revoked, and put focus on the list's heading (the pressed button is gone). */
Explorer.prototype.announce = function announce(text) {
  this.permissionStatus.textContent = text;
  const heading = this.permissions.querySelector("h3");
  if (heading) {
    heading.tabIndex = -1;
    heading.focus();
  }
};

/** Start the explorer in its root element (once). */
export function start(rootNode) {
  if (rootNode.dataset.bbStarted !== undefined) return;
  rootNode.dataset.bbStarted = "";
  new Explorer(rootNode).start();
}
