// Installs the table's service worker (static/js/sw.js, served at /sw.js for the whole site) and
// tells it what it cannot see for itself: the page's language (its offline page speaks it),
// whether this page was loaded before the worker took control (then the worker keeps a copy
// of it now, so a first visit already works offline). A browser without service workers simply
// works online as before.

const WORKER = "/sw.js";

// Who is signed in (base.html's meta, empty when no one; absent on the offline page, which
// speaks for no one): when it changes, the worker forgets the screens kept for the one before,
// however the change came (signing in or out, an invitation, a session that expired).
const user = document.querySelector('meta[name="app-user"]')?.content;

function hello(worker, adopted) {
  worker.postMessage({ type: "hello", language: document.documentElement.lang, url: location.href, adopted, user });
}

if ("serviceWorker" in navigator && window.isSecureContext) {
  const container = navigator.serviceWorker;
  if (container.controller) hello(container.controller, false);
  else {
    container.addEventListener("controllerchange", () => {
      if (container.controller) hello(container.controller, true);
    }, { once: true });
  }
  container.register(WORKER, { scope: "/" }).catch((error) => {
    // Offline recording needs the worker; the page itself works without it.
    console.warn("The service worker could not be installed:", error);
  });
  // A page whose loading began while the worker was activating is not among the pages the
  // worker claimed then: it asks to be claimed, or it would stay outside until a reload.
  container.ready.then((registration) => {
    if (!container.controller && registration.active) registration.active.postMessage({ type: "claim" });
  });
  // Signing out: the worker sees the sign-out's POST go by and forgets the kept screens then;
  // without the network, sign-out.js tells it (and says what happens to what waits here).
}
