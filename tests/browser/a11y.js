// Accessibility basics, evaluated in the page by tests/browser/conftest.py::check_a11y.
() => {
  const visible = el => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const nameOf = el => {
    if (el.getAttribute('aria-label')) return el.getAttribute('aria-label').trim();
    const by = el.getAttribute('aria-labelledby');
    if (by) return by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent || '').join(' ').trim();
    if (el.labels && el.labels.length) return Array.from(el.labels).map(l => l.textContent).join(' ').trim();
    if (el.tagName === 'BUTTON' || el.tagName === 'A') return el.textContent.trim();
    return (el.getAttribute('title') || '').trim();
  };
  const unnamed = [];
  const small = [];
  const controls = document.querySelectorAll(
    'button, input:not([type=hidden]), select, textarea, a.button, .tabs a, .crumbs a');
  for (const el of controls) {
    if (el.closest('[hidden]')) continue;
    const target = (el.matches('input[type=radio], input[type=checkbox]') && el.closest('label')) || el;
    if (!visible(target)) continue;
    if (!nameOf(el)) unnamed.push(el.outerHTML.slice(0, 120));
    const box = target.getBoundingClientRect();
    if (box.width < 44 || box.height < 44) small.push(`${Math.round(box.width)}x${Math.round(box.height)} ${target.outerHTML.slice(0, 100)}`);
  }
  const parse = c => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = el => {
    for (let node = el; node; node = node.parentElement) {
      const c = parse(getComputedStyle(node).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) return c.slice(0, 3);
    }
    return parse(getComputedStyle(document.body).backgroundColor).slice(0, 3);
  };
  const contrast = [];
  const texts = document.querySelectorAll('h1, h2, h3, p, li, td, th, label, button, a, .value, .sub, .help, .muted, .who, .name');
  for (const el of texts) {
    if (!visible(el) || !el.textContent.trim() || el.closest('.summary-chart, [aria-disabled=true], :disabled')) continue;
    const fg = parse(getComputedStyle(el).color).slice(0, 3);
    const bg = background(el);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    if (ratio < 4.5) contrast.push(`${ratio.toFixed(2)} ${el.tagName}.${el.className}: ${el.textContent.trim().slice(0, 40)}`);
  }
  return {unnamed, small, contrast};
}
