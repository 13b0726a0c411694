// BesluitBron: a box that scrolls sideways (a wide table on a phone) must be reachable by keyboard
// (WCAG 2.1.1; axe "scrollable-region-focusable"). Material does this for code blocks only.
const BOXES = ".md-typeset__scrollwrap, .md-typeset .bb-scroll";

function mark() {
  for (const box of document.querySelectorAll(BOXES)) {
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    if (scrolls && !box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.dataset.bbScrollable = "";
    } else if (!scrolls && "bbScrollable" in box.dataset) {
      box.removeAttribute("tabindex");
      delete box.dataset.bbScrollable;
    }
  }
}

let pending = 0;
function later() {
  cancelAnimationFrame(pending);
  pending = requestAnimationFrame(mark);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", later);
else later();
window.addEventListener("load", later);
window.addEventListener("resize", later);
