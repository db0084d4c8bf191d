// The offline page (templates/offline.html, shown by the service worker): "try again", and the
// recording screens this device keeps a copy of, so that the scorer can go back to the table.

// static/js/sw.js names these so; it marks each kept screen with whose it is (X-Kept-For).
const PAGES_CACHE = "kortos-pages-v1";
const META_CACHE = "kortos-meta-v1";
const SCREEN = /^\/(deals|sessions)\/\d+\/$/;

document.querySelector("[data-retry]")?.addEventListener("click", () => location.reload());

// After a sign-out the screens are gone because they were forgotten, not because they were
// never opened: the page says which.
(async () => {
  if (!("caches" in window)) return;
  const forgotten = await (await caches.open(META_CACHE)).match("/__forgotten__");
  if (!forgotten) return;
  document.querySelector("[data-never-opened]")?.setAttribute("hidden", "");
  document.querySelector("[data-forgotten]")?.removeAttribute("hidden");
})().catch(() => undefined);

async function keptScreens() {
  if (!("caches" in window) || !(await caches.has(PAGES_CACHE))) return [];
  const said = await (await caches.open(META_CACHE)).match("/__user__");
  const user = said ? await said.text() : null;
  const cache = await caches.open(PAGES_CACHE);
  const screens = [];
  for (const request of await cache.keys()) {
    const url = new URL(request.url);
    if (url.origin !== location.origin || !SCREEN.test(url.pathname)) continue;
    const response = await cache.match(request);
    if (!response || response.headers.get("X-Kept-For") !== user) continue;
    const html = await response.text();
    const kept = new DOMParser().parseFromString(html, "text/html");
    // The screen's own heading ("<game> · deal 3"), as the scorer saw it at the table.
    const title = kept.querySelector("h1")?.textContent.replace(/\s+/g, " ").trim() || kept.title || url.pathname;
    screens.push({ href: url.pathname, title });
  }
  return screens;
}

keptScreens().then((screens) => {
  const section = document.querySelector("[data-kept-pages]");
  if (!section || screens.length === 0) return;
  const list = section.querySelector("ul");
  for (const { href, title } of screens) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.className = "row-link";
    link.href = href;
    const words = document.createElement("span");
    words.className = "title big-text";
    words.textContent = title;
    const arrow = document.createElement("span");
    arrow.setAttribute("aria-hidden", "true");
    arrow.textContent = "›";
    link.append(words, arrow);
    item.append(link);
    list.append(item);
  }
  section.hidden = false;
}, () => {});
