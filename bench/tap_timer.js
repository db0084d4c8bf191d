// Each tap's time to the frame showing its verdict, measured in the recording screen (added
// before its scripts): from the Record button's click (the tap) to the frame that paints the
// live part with the next entry count (the verdict is drawn in the same task). Read by
// bench/bench_offline_engine.py and tests/browser/test_offline_recording.py.
window.__verdicts = [];
window.__tapAt = null;
document.addEventListener("click", (e) => {
  const b = e.target.closest("button");
  if (b && (b.matches("button[form]") || b.closest("form[data-entry]"))) window.__tapAt = performance.now();
}, true);
new MutationObserver((changes) => {
  for (const c of changes) {
    if (c.attributeName === "data-seq" && window.__tapAt !== null) {
      const tap = window.__tapAt;
      window.__tapAt = null;
      // The frame that shows it: requestAnimationFrame runs just before that frame is painted.
      requestAnimationFrame((frame) => window.__verdicts.push(frame - tap));
    }
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-seq"] });
