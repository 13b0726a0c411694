// BesluitBron: entry of the live Laadstatus, loaded on every page (mkdocs.yml extra_javascript).
// It loads the Laadstatus itself (bb-laadstatus.js) only on the page that has its root element.
const root = document.getElementById("besluitbron-load-status");
if (root) import("./bb-laadstatus.js").then((module) => module.start(root));
