/* Whether the server answers, from real answers only (one job). Every request the recording
   screen makes reports here: an answer from the server says "reachable", a failed request (or
   a copy the service worker served from the device, X-From-Device) says "unreachable". While
   unreachable, a tiny request (/healthz) asks again every second, so the screen says the
   server is back within a second of it answering; the browser's online/offline events only
   make it ask at once (a hall's Wi-Fi can be "online" and answer nothing). Nothing here runs
   on a timer of its own opinion: the state is always the last answer's. */

const PROBE = "/healthz";
const PROBE_EVERY_MS = 1000;

const listeners = [];
let reachable = null;
let lastAnswerAt = null;
let probing = null;

/** null before the first answer, then true or false: what the last real answer said. */
export function isReachable() { return reachable; }
/** When the server last answered (ms), or null. */
export function lastAnswer() { return lastAnswerAt; }

/** `hook(reachable)` after each change (not on every answer). */
export function onReachability(hook) { listeners.push(hook); }

function set(value) {
  if (value) lastAnswerAt = Date.now();
  if (reachable === value) return;
  reachable = value;
  if (value) {
    stopProbing();
    // base.html's note ("as of 21:14") goes: the screen is the server's again.
    document.dispatchEvent(new CustomEvent("kortos:server-answered"));
  } else startProbing();
  listeners.forEach((hook) => hook(value));
}

/** The server answered (any status: a 400 is an answer too). */
export function answered() { set(true); }
/** A request failed on the way (no answer). */
export function unanswered() { set(false); }

/** `fetch(...)`'s promise, reported: resolves and rejects as it does. */
export function reported(request) {
  return request.then((response) => {
    if (response.headers.get("X-From-Device")) unanswered(); else answered();
    return response;
  }, (error) => { unanswered(); throw error; });
}

function probe() {
  return reported(fetch(PROBE, { cache: "no-store", credentials: "same-origin" })).catch(() => undefined);
}

function startProbing() {
  if (probing !== null) return;
  probing = setInterval(probe, PROBE_EVERY_MS);
}

function stopProbing() {
  if (probing === null) return;
  clearInterval(probing);
  probing = null;
}

/** Listens to the browser's hints; a page that came from the device starts unreachable. */
export function watchConnection() {
  window.addEventListener("online", probe);
  window.addEventListener("offline", () => { set(false); probe(); });
  if (document.querySelector('meta[name="kept-at"]') || navigator.onLine === false) set(false);
  probe();
}
