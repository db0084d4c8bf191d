"""Where the Record button sits against everything the scorer taps, measured from boxes.

What the scorer can see of a control is its box clipped by every scrolling box it sits in
(the recording screen's page scrolls above the Record strip, never under it): the button
must share no area with any control's visible part, and its own box lies wholly inside the
viewport."""

from __future__ import annotations

from typing import Any

#: Every tappable control's visible box against the named button's box, as JSON.
OVERLAPS = """([name]) => {
  const button = Array.from(document.querySelectorAll("button")).find(b => b.textContent.trim() === name);
  if (!button) return {missing: true};
  const own = button.getBoundingClientRect();
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    let box = {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
    // A fixed box (the docked pad) is clipped by no scroller above it.
    for (let node = el; node && node !== document.documentElement; node = node.parentElement) {
      if (getComputedStyle(node).position === "fixed") break;
      const parent = node.parentElement;
      if (!parent) break;
      const style = getComputedStyle(parent);
      if (style.overflowX !== "visible" || style.overflowY !== "visible") {
        const c = parent.getBoundingClientRect();
        box = {left: Math.max(box.left, c.left), top: Math.max(box.top, c.top),
               right: Math.min(box.right, c.right), bottom: Math.min(box.bottom, c.bottom)};
      }
    }
    box.left = Math.max(box.left, 0); box.top = Math.max(box.top, 0);
    box.right = Math.min(box.right, innerWidth); box.bottom = Math.min(box.bottom, innerHeight);
    return box;
  };
  const controls = document.querySelectorAll(
    "input:not([type=hidden]), button, select, textarea, label.tile, label.prize, .stepper-row, .slot");
  const hits = [];
  let checked = 0;
  for (const el of controls) {
    if (el === button || button.contains(el) || el.closest("[hidden]")) continue;
    if (el.getClientRects().length === 0) continue;  // not rendered
    const v = visible(el);
    if (v.right <= v.left || v.bottom <= v.top) continue;  // scrolled out of sight
    checked += 1;
    const w = Math.min(v.right, own.right) - Math.max(v.left, own.left);
    const h = Math.min(v.bottom, own.bottom) - Math.max(v.top, own.top);
    if (w > 0.5 && h > 0.5) {
      hits.push((el.id ? "#" + el.id : el.tagName.toLowerCase() + "." + el.className) + " "
                + (el.getAttribute("aria-label") || el.textContent.trim()).slice(0, 40));
    }
  }
  const inside = own.top >= 0 && own.left >= 0 && own.bottom <= innerHeight + 0.5 && own.right <= innerWidth + 0.5;
  return {hits, checked, inside, box: [own.left, own.top, own.right, own.bottom]};
}"""


def record_clear_of_controls(page: Any, name: str, step: str) -> None:
    """The Record button is wholly on screen and lies over no control the scorer can see."""
    page.wait_for_timeout(120)  # a smooth scroll or the preview's layout may still be settling
    report = page.evaluate(OVERLAPS, [name])
    assert not report.get("missing"), f"{step}: no button {name!r}"
    where = f"{step} at {page.viewport_size}: {name} at {report['box']}"
    assert report["inside"], f"{where} is not wholly inside the viewport"
    assert report["checked"] > 0, f"{where}: no control on screen to compare with"
    assert report["hits"] == [], f"{where} lies over {report['hits']}"

