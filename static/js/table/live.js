/* The live part of the screen is rendered by the server (in the reader's language) and
   swapped in after each change; watchers (and the scorer's own screen) poll for changes
   every few seconds with the shown version as the validator (ETag/304). */

import { S, current, dealUrl, setSync } from "./shared.js";
import { reported } from "./connection.js";

// Called after every swap, to bring the new forms to life (screen.js, offline.js).
const afterSwap = [];
export function onSwap(hook) { afterSwap.push(hook); }
// Asked before a poll may replace the screen: false while the offline path draws it.
let mayPoll = () => true;
export function pollGuard(guard) { mayPoll = guard; }

export function swap(html) {
  const open = {};
  S.liveBox.querySelectorAll("details[data-keep-open]").forEach((d) => { open[d.dataset.keepOpen] = d.open; });
  S.liveBox.innerHTML = html;
  S.liveBox.querySelectorAll("details[data-keep-open]").forEach((d) => {
    if (d.dataset.keepOpen in open && !d.querySelector(".error:not(:empty)")) d.open = open[d.dataset.keepOpen];
  });
  S.version = current().dataset.version;
  S.dirty = false;
  afterSwap.forEach((hook) => hook());
}

/** This screen's own refresh after its own change: a poll in flight meanwhile (or started while
    it runs) would bring the same news first and call it "another device", so it stands aside.
    Resolves true when the server's rendering was swapped in. */
export function refresh() {
  S.localChanges += 1;
  S.refreshing += 1;
  return reported(fetch(S.screen.dataset.liveUrl, { credentials: "same-origin", cache: "no-store" })).then((response) => {
    // The device's own copy (the server did not answer) is what the screen already shows.
    if (response.status !== 200 || response.headers.get("X-From-Device")) return false;
    return response.text().then((html) => { swap(html); return true; });
  }).catch(() => false /* the next poll brings it */).then((swapped) => { S.refreshing -= 1; return swapped; });
}

export function poll() {
  if (S.sending || S.refreshing || document.hidden || !mayPoll()) return;
  const mark = S.localChanges;
  // The version this screen shows, as a validator: the server answers 304 (nothing rendered)
  // while it is still the deal's; the browser hands a 304 of a request that carries its own
  // validator straight to this page, so no cached copy is ever mistaken for news.
  reported(fetch(S.screen.dataset.liveUrl, { credentials: "same-origin", headers: { "If-None-Match": '"' + S.version + '"' } }))
    .then((response) => {
      // This screen changed the deal meanwhile: its own refresh shows that, not "another device".
      if (mark !== S.localChanges || S.refreshing || !mayPoll()) return undefined;
      const running = response.headers.get("X-Running-Deal");
      const finished = current().dataset.status === "finished";
      if (running && running !== S.dealId && finished && !S.dirty) {
        window.location.assign(dealUrl(running));
        return undefined;
      }
      const version = response.headers.get("X-Deal-Version");
      if (response.status !== 200 || S.sending || version === S.version) return undefined;
      return response.text().then((html) => {
        // Only the devices recording the deal changed (the part after "~"): the deal is as shown,
        // so the banner alone is replaced and a half-typed entry stays as typed.
        if (version && dealPart(version) === dealPart(S.version)) {
          swapPresence(html, version);
          return;
        }
        const wasDirty = S.dirty;
        swap(html);
        setSync("idle", wasDirty ? S.T.changed_elsewhere : S.T.updated);
      });
    }).catch(() => { /* offline: try again later */ });
}

/** A version is the deal's own, then "~" and a mark of the other devices present (web/presence.py). */
function dealPart(version) { return String(version).split("~")[0]; }

function swapPresence(html, version) {
  const box = S.liveBox.querySelector("[data-presence-box]");
  const fresh = document.createElement("template");
  fresh.innerHTML = html;
  const next = fresh.content.querySelector("[data-presence-box]");
  if (box && next) box.replaceWith(next);
  S.version = version;
  current().dataset.version = version;
}

/** After an entry the referee's verdict is what the scorer reads next: bring it into view. */
export function showVerdict() {
  const verdict = S.liveBox.querySelector("[data-conclusion]") || S.liveBox.querySelector("[data-finished]");
  if (!verdict) return;
  const box = verdict.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) verdict.scrollIntoView({ block: "start" });
}
