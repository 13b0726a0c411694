// BesluitBron: entry of the live explorer, loaded on every page (mkdocs.yml extra_javascript).
// It loads the explorer itself (bb-explorer.js) only on the page that has its root element.
const root = document.getElementById("besluitbron-explorer");
if (root) import("./bb-explorer.js").then((module) => module.start(root));
