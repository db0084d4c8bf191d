/* The table's service worker: the app installs on a tablet and a reload, or a
   browser restarted without the network, brings the scorer back to the recording screen.

   Served at /sw.js (scope "/") by web/pages/app_shell.py, which puts one line before this
   file: `const SHELL = {version, files, offline, pyodide, workbox};` — the version is a hash of
   the static files, so any change to them changes this script's bytes and the browser installs
   the new worker, which fetches the new shell and deletes the old cache.

   Five routes. Four are Workbox's strategies (its classic builds, served by the site itself
   from node_modules: SHELL.workbox; docs/tablet-storage-and-worker.md says why not its ES
   modules): the shell and the engine's content-addressed files cache first, the engine's
   manifest network first, any other page the network with the offline page as its fallback.
   The recording screens are our own handler: a kept copy per user, live fragments written
   into their pages, polls never answered from the device, the network awaited 10 s. No build
   step produces a precache list: the server lists the shell's files at request time.

   What is never touched: anything but GET (entries and deal starts go through the tablet's
   IndexedDB queue, static/js/offline/queue.js, which sends them when the server answers), the
   API, other origins, and every page not listed in PAGES (they go to the network as before).
*/
/* global SHELL, workbox */
"use strict";

importScripts(...SHELL.workbox);
const { CacheFirst, NetworkFirst, NetworkOnly } = workbox.strategies;

const SHELL_CACHE = `kortos-shell-${SHELL.version}`;
// The pages and the engine outlive a new shell: a deploy must not take the recording screen
// away from an offline tablet, nor make it download Pyodide (13 MB) again.
const PAGES_CACHE = "kortos-pages-v1";
const ENGINE_CACHE = "kortos-engine-v1";
const META_CACHE = "kortos-meta-v1";
const KEPT = [SHELL_CACHE, PAGES_CACHE, ENGINE_CACHE, META_CACHE];

/** The recording screens of a session and a deal, and their live fragments. */
const PAGES = /^\/(deals|sessions)\/\d+\/(live\/)?$/;
const ENGINE_DIR = "/static/offline/";
const ENGINE_MANIFEST = `${ENGINE_DIR}engine.json`;
/** Where signing in or out happens: the pages kept so far belong to someone else from then on. */
const SIGN_IN_OUT = /^\/log(in|out)\/$/;
/** How long a navigation waits for the network before showing the kept copy (Wi-Fi in a hall
    often hangs rather than fails); the network's answer still refreshes the copy. */
const NAVIGATION_PATIENCE_MS = 10000;
const LANGUAGES = Object.keys(SHELL.offline);
/** base.html's <meta name="app-user">: who a kept page belongs to, kept with it as KEPT_FOR. */
const APP_USER = /<meta name="app-user" content="([^"]*)"/;
const KEPT_FOR = "X-Kept-For";
/** How many screens (pages and live fragments) the tablet keeps at most. */
const PAGES_KEPT = 60;
/** A screen's live part lies between these marks (deal.html, session.html), exactly what its
    live fragment (/deals/N/live/, /sessions/N/live/) holds: a fragment the tablet fetched is
    written into the kept page too, so a reload offline draws the deal as the tablet last knew it
    (its own entries, an undo, what a poll saw), never the page of the last navigation. */
const LIVE_START = "<!--live-->";
const LIVE_END = "<!--/live-->";
/** A page served from the device carries this meta (base.html's pages read it: "as of 21:14"). */
const KEPT_AT_META = (at) => `<meta name="kept-at" content="${Number(at) || 0}">`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      // cache: "reload" so that the HTTP cache's older copy (static files are not
      // content-addressed) never ends up in a new shell.
      const fresh = (url) => new Request(url, { cache: "reload" });
      // Without the offline page there is no worker worth having; a static file that fails
      // (a deploy in progress) is fetched again when a page asks for it.
      await cache.addAll(Object.values(SHELL.offline).map(fresh));
      const kept = await Promise.allSettled(SHELL.files.map((url) => cache.add(fresh(url))));
      kept.forEach((outcome, i) => {
        if (outcome.status === "rejected") console.warn(`sw: ${SHELL.files[i]} not kept:`, outcome.reason);
      });
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith("kortos-") && !KEPT.includes(name)) await caches.delete(name);
      }
      // Control the page that installed us: its first visit already works offline.
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("message", (event) => {
  const message = event.data || {};
  if (message.type === "hello") event.waitUntil(hello(message, event));
  else if (message.type === "signed-out") event.waitUntil(forgetPages());
  else if (message.type === "claim") event.waitUntil(self.clients.claim());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (SIGN_IN_OUT.test(url.pathname) && request.method === "POST") {
    // Left to the network as it is; only the kept pages go, before the next user's pages come.
    event.waitUntil(forgetPages());
    return;
  }
  if (request.method !== "GET") return;
  if (url.pathname === ENGINE_MANIFEST) event.respondWith(engineManifest.handle({ event, request }));
  else if (url.pathname.startsWith(ENGINE_DIR)) event.respondWith(engineFiles.handle({ event, request }));
  else if (url.pathname.startsWith("/static/")) event.respondWith(shellFiles.handle({ event, request }));
  else if (PAGES.test(url.pathname)) event.respondWith(page(event, url));
  else if (request.mode === "navigate") event.respondWith(elsewhere.handle({ event, request }));
});

/** Kept under the address's path alone: a file is one copy whatever its query. (Read with
    ignoreSearch, which finds that copy for any query.) */
const byPath = {
  cacheKeyWillBeUsed: async ({ request, mode }) => (mode === "write" ? new URL(request.url).pathname : request),
};

// -- the app shell: cache first (the version in the cache's name keeps it current) --------------

// ignoreSearch: the engine's worker is started as engine-worker.js?manifest=...; Workbox keeps
// only 200s (its default for a cache-first strategy), as the shell should.
const shellFiles = new CacheFirst({
  cacheName: SHELL_CACHE,
  matchOptions: { ignoreSearch: true },
  plugins: [byPath, {
    cachedResponseWillBeUsed: async ({ event, cachedResponse }) =>
      (cachedResponse && event && event.request && new URL(event.request.url).search ? withoutAddress(cachedResponse) : cachedResponse),
  }],
});

/** A kept copy answered as a new response: a worker script started as engine-worker.js?x=y
    then keeps its own address (a kept response carries the address it was kept under). */
function withoutAddress(response) {
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

// -- the engine: its manifest from the network when there is one, its files kept for good ------

// The manifest names the engine now: from the network, the kept copy when there is none; a new
// one drops the files of the engines it no longer names.
const engineManifest = new NetworkFirst({
  cacheName: ENGINE_CACHE,
  plugins: [{
    cacheKeyWillBeUsed: async () => ENGINE_MANIFEST,
    cacheWillUpdate: async ({ response }) => (response.status === 200 ? response : null),
    cacheDidUpdate: async ({ newResponse }) => {
      await pruneEngine(await caches.open(ENGINE_CACHE), await newResponse.clone().json());
    },
  }],
});

// The archive and the catalogue are named by their hash, Pyodide's files by its version: a
// kept copy is always the right one, and the manifest's pruning (by name, not by age or count)
// is what lets old ones go.
const engineFiles = new CacheFirst({ cacheName: ENGINE_CACHE, matchOptions: { ignoreSearch: true }, plugins: [byPath] });

/** The files of this engine: every string the manifest gives beside its version and Pyodide's
    folder names one (the archive, the refusals' catalogue, a snapshot...). */
function engineNames(manifest) {
  return Object.entries(manifest)
    .filter(([key, value]) => typeof value === "string" && key !== "version" && key !== "pyodide")
    .map(([, name]) => name);
}

/** Drops the files of engines and Pyodide versions that the current manifest no longer names. */
async function pruneEngine(cache, manifest) {
  const wanted = engineNames(manifest).map((name) => ENGINE_DIR + name);
  const pyodide = `${ENGINE_DIR}${manifest.pyodide}/`;
  for (const request of await cache.keys()) {
    const path = new URL(request.url).pathname;
    if (path !== ENGINE_MANIFEST && !wanted.includes(path) && !path.startsWith(pyodide)) await cache.delete(request);
  }
}

/** Keeps the engine after a visit whose page loaded it before this worker was in control. */
async function warmEngine(event) {
  const cache = await caches.open(ENGINE_CACHE);
  const response = await engineManifest.handle({ event, request: new Request(ENGINE_MANIFEST, { cache: "no-cache" }) });
  if (response.status !== 200) return;
  const manifest = await response.json();
  const names = engineNames(manifest);
  if (manifest.pyodide === SHELL.pyodide.dir) names.push(...SHELL.pyodide.files.map((file) => `${manifest.pyodide}/${file}`));
  for (const name of names) {
    try {
      if (!(await cache.match(ENGINE_DIR + name))) await engineFiles.handle({ event, request: new Request(ENGINE_DIR + name) });
    } catch {
      // The network went away: the engine worker's own requests keep the rest later.
    }
  }
}

// -- the recording screens: the network first, the kept copy when there is none ----------------

async function page(event, url) {
  const request = event.request;
  const cache = await caches.open(PAGES_CACHE);
  const key = url.origin + url.pathname; // one copy a screen, whatever the query
  const fromNetwork = fetch(request).then(async (response) => {
    if (response.status === 200 && response.type === "basic") {
      const text = await keepPage(cache, key, response.clone());
      event.waitUntil(refreshSessionOf(cache, key, text));
    }
    // "Nothing new" is news too: the kept copy is still the server's deal at this moment.
    else if (response.status === 304) event.waitUntil(heardOf(key));
    return response;
  });
  // The network's answer still refreshes the copy when the copy was shown first.
  event.waitUntil(fromNetwork.catch(() => undefined));
  if (request.headers.has("If-None-Match")) {
    // A poll that names the version it holds gets the network's answer or a network error,
    // never a kept fragment: the screen may be ahead of it (entries recorded offline), and a
    // failed poll is how it knows that the server is not answering.
    return fromNetwork;
  }
  // Only a copy kept for the user signed in now: never one user's screen to another.
  const kept = async () => {
    const copy = await cache.match(key);
    return copy && copy.headers.get(KEPT_FOR) === (await currentUser()) ? copy : undefined;
  };
  if (request.mode !== "navigate") {
    return fromNetwork.catch(async (offline) => {
      const copy = await kept();
      return copy ? fromDevice(copy) : Promise.reject(offline);
    });
  }
  const found = await kept();
  const copy = found && (await servedFromDevice(found, key));
  if (!copy) return fromNetwork.catch(() => offlinePage());
  let timer;
  const patience = new Promise((resolve) => {
    timer = setTimeout(() => resolve(copy), NAVIGATION_PATIENCE_MS);
  });
  try {
    return await Promise.race([fromNetwork, patience]);
  } catch {
    return copy;
  } finally {
    clearTimeout(timer);
  }
}

// Any other page: the network, and without it the offline page.
const elsewhere = new NetworkOnly({ plugins: [{ handlerDidError: () => offlinePage() }] });

/** The small page that says the tablet is offline, in the language of the last page seen. */
async function offlinePage() {
  const meta = await caches.open(META_CACHE);
  const said = await meta.match("/__language__");
  const language = said ? await said.text() : "";
  const url = SHELL.offline[LANGUAGES.includes(language) ? language : SHELL.defaultLanguage];
  const kept = await caches.match(url, { cacheName: SHELL_CACHE });
  return kept || Response.error();
}

/** A kept fragment as the device serves it, marked so: the screen must not take it for the
    server's answer (static/js/table/connection.js). */
function fromDevice(copy) {
  const headers = new Headers(copy.headers);
  headers.set("X-From-Device", "1");
  return new Response(copy.body, { status: copy.status, statusText: copy.statusText, headers });
}

/** A kept page as the device serves it: the page says it came from here, and since when the
    server has not been heard (`<meta name="kept-at">`). */
async function servedFromDevice(copy, key) {
  const text = await copy.text();
  const at = await knownAt(key);
  const marked = text.replace(/<head>/i, (head) => head + KEPT_AT_META(at));
  return new Response(marked, { status: copy.status, statusText: copy.statusText, headers: copy.headers });
}

// The kept screens are written one change at a time: a poll's answer and the screen's own
// refresh may arrive together, and each reads a copy before writing it.
let keeping = Promise.resolve();
function inOrder(work) {
  const turn = keeping.then(work, work);
  keeping = turn.catch(() => undefined);
  return turn;
}

const FRAGMENT = /\/live\/$/;
/** A screen's page and its live fragment, whichever of the two `key` names. */
function pair(key) {
  return FRAGMENT.test(key) ? { page: key.replace(FRAGMENT, "/"), fragment: key } : { page: key, fragment: key + "live/" };
}

/** The live part of a page (between the marks), or null. */
function livePart(html) {
  const start = html.indexOf(LIVE_START);
  const end = html.indexOf(LIVE_END, start + LIVE_START.length);
  return start < 0 || end < 0 ? null : html.slice(start + LIVE_START.length, end);
}

function withLivePart(html, live) {
  const start = html.indexOf(LIVE_START);
  const end = html.indexOf(LIVE_END, start + LIVE_START.length);
  if (start < 0 || end < 0) return html;
  return html.slice(0, start + LIVE_START.length) + live + html.slice(end);
}

/** The deal's revision a live part shows (deal_live.html's data-version "seq.revision.…"), or
    null (a session's screen: its fingerprint has no order, the latest answer is the newest). */
function revision(live) {
  const found = /data-version="\d+\.(\d+)\./.exec(live || "");
  return found ? Number(found[1]) : null;
}

/** Is `fresh` at least as new as `kept`? An answer that overtook a newer one on the way (a
    poll and a refresh cross) must not take the newer deal back. */
function notOlder(fresh, kept) {
  const [a, b] = [revision(fresh), revision(kept)];
  return a === null || b === null || a >= b;
}

/** Keeps a screen's copy, the newest last; the oldest go past PAGES_KEPT (a season of
    evenings on one tablet must not fill its storage). A live fragment is written into the kept
    page as well, and a page's live part into the kept fragment, so both are the newest deal
    the tablet saw (heardOf notes when). */
async function keepPage(cache, key, response) {
  // Whose screen it is: the page's own app-user meta (base.html), else (a live fragment) the
  // user the pages last said was signed in.
  const text = await response.text();
  const named = APP_USER.exec(text);
  const owner = named ? named[1] : await currentUser();
  const headersOf = (source) => {
    const headers = new Headers(source.headers);
    headers.set(KEPT_FOR, owner);
    return headers;
  };
  await (await caches.open(META_CACHE)).delete("/__forgotten__");
  const put = async (at, body, source) => {
    await cache.delete(at);
    await cache.put(at, new Response(body, { status: source.status, statusText: source.statusText, headers: headersOf(source) }));
  };
  await inOrder(async () => {
    const { page, fragment } = pair(key);
    const isFragment = key === fragment;
    const keptPage = await cache.match(page);
    const keptFragment = await cache.match(fragment);
    const samePerson = (copy) => copy && copy.headers.get(KEPT_FOR) === owner;
    if (isFragment) {
      const before = samePerson(keptFragment) ? await keptFragment.text() : null;
      if (before !== null && !notOlder(text, before)) return;
      await put(fragment, text, response);
      if (samePerson(keptPage)) {
        const html = await keptPage.text();
        const live = livePart(html);
        if (live !== null && notOlder(text, live)) await put(page, withLivePart(html, text), keptPage);
      }
    } else {
      let html = text;
      const live = livePart(html);
      const known = samePerson(keptFragment) ? await keptFragment.text() : null;
      // A fragment newer than this page (an answer that overtook it) goes into the page.
      if (live !== null && known !== null && !notOlder(live, known)) html = withLivePart(html, known);
      await put(page, html, response);
      if (keptFragment && livePart(html) !== null) await put(fragment, livePart(html), keptFragment);
    }
    await heardOf(key);
    const keys = await cache.keys();
    for (const old of keys.slice(0, Math.max(0, keys.length - PAGES_KEPT))) await cache.delete(old);
  });
  return text;
}

const DEAL_PAGE = /\/deals\/\d+\/$/;

/** A deal's page names its session: the session's kept screen (which deal runs, the totals) is
    brought up to date too, so that it is not the one screen left behind. In the background:
    nothing waits for it. */
async function refreshSessionOf(cache, key, text) {
  const session = DEAL_PAGE.test(new URL(key).pathname) && /data-session="(\d+)"/.exec(text);
  if (!session) return;
  const address = new URL(`/sessions/${session[1]}/`, key).href;
  if (!(await cache.match(address))) return;
  try {
    const fresh = await fetch(address, { credentials: "same-origin" });
    if (fresh.status === 200 && !fresh.redirected) await keepPage(cache, address, fresh);
  } catch {
    // Offline again: the session's copy stays as it was.
  }
}

/** The server answered for a screen (a page, its fragment, or "nothing new"): its kept copies
    are the deal as of now. Kept beside them (a tiny record, not a rewrite of the page on every
    poll). */
async function heardOf(key) {
  const meta = await caches.open(META_CACHE);
  await meta.put("/__known__" + new URL(pair(key).page).pathname, new Response(String(Date.now())));
}

/** When the server last answered for the screen at `key` (ms), or 0. */
async function knownAt(key) {
  const said = await (await caches.open(META_CACHE)).match("/__known__" + new URL(pair(key).page).pathname);
  return said ? Number(await said.text()) || 0 : 0;
}

/** Who the pages last said is signed in ("" for no one; null before any page said). */
async function currentUser() {
  const said = await (await caches.open(META_CACHE)).match("/__user__");
  return said ? said.text() : null;
}

async function forgetPages() {
  await caches.delete(PAGES_CACHE);
  // The offline page then says why no screen is listed (not "never opened here").
  await (await caches.open(META_CACHE)).put("/__forgotten__", new Response(String(Date.now())));
}

/** Each page says its language (for the offline page), who is signed in (another user's
    screens are forgotten) and, when it was loaded before this worker took control, its
    address: that copy is kept now, so the first visit works offline. */
async function hello({ language, url, adopted, user }, event) {
  const meta = await caches.open(META_CACHE);
  if (LANGUAGES.includes(language)) await meta.put("/__language__", new Response(language));
  if (typeof user === "string" && user !== (await currentUser())) {
    await meta.put("/__user__", new Response(user));
    // Screens kept for someone else go; one this user's page kept a moment ago stays.
    const cache = await caches.open(PAGES_CACHE);
    for (const request of await cache.keys()) {
      const copy = await cache.match(request);
      if (!copy || copy.headers.get(KEPT_FOR) !== user) await cache.delete(request);
    }
  }
  if (!adopted || typeof url !== "string") return;
  const address = new URL(url, self.location.origin);
  if (address.origin !== self.location.origin || !PAGES.test(address.pathname)) return;
  const key = address.origin + address.pathname;
  try {
    const response = await fetch(key, { credentials: "same-origin" });
    if (response.status === 200 && !response.redirected) await keepPage(await caches.open(PAGES_CACHE), key, response);
    if (address.pathname.startsWith("/deals/")) await warmEngine(event);
  } catch {
    // Offline already: nothing to keep; the next visit online keeps it.
  }
}
