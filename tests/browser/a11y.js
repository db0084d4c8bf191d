// Evaluated in the page by tests/browser/conftest.py::check_a11y once axe-core (loaded from
// node_modules, pinned by package-lock.json) is in the page. axe-core is the standard checker;
// the one check of our own is the club's touch-target size (UI.md: thumb-first, 48 px asked,
// 44 px enforced), which is stricter than WCAG 2.2's 24 px that axe's target-size rule tests.
async () => {
  const results = await axe.run(document, {
    resultTypes: ['violations'],
    runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']},
  });
  const violations = results.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id} (${v.impact}): ${v.help}: ` + v.nodes.slice(0, 5).map(
      n => `${n.target.join(' ')} ${(n.failureSummary || '').replace(/\s+/g, ' ').slice(0, 220)}`).join(' | '));
  const visible = el => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const small = [];
  const controls = document.querySelectorAll(
    'button, input:not([type=hidden]), select, textarea, a.button, .tabs a, .crumbs a');
  for (const el of controls) {
    if (el.closest('[hidden]')) continue;
    const target = (el.matches('input[type=radio], input[type=checkbox]') && el.closest('label')) || el;
    if (!visible(target)) continue;
    const box = target.getBoundingClientRect();
    if (box.width < 44 || box.height < 44) small.push(`${Math.round(box.width)}x${Math.round(box.height)} ${target.outerHTML.slice(0, 100)}`);
  }
  return {violations, small};
}
