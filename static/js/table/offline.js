/* The offline path's entry point (one job: starting it; screen.js imports startOffline).
   It opens the device's queue and starts its sync first: every entry goes through them, one
   recorded online too (record.js hands it to the outbox, the sync sends it and tells the
   screen); the engine comes after, in the background.
   When the network is down (the browser says so, or the API cannot be reached twice in a row)
   recording goes on. The tablet's engine (static/js/offline/engine.js, loaded in the
   background: online recording never waits for it) referees each entry as the server would; a
   refusal shows beside its field, an accepted entry goes into the device's durable queue
   (queue.js) with its verdict, and the screen is drawn from the engine's view at once
   (offline-view.js). A finished deal's next deal starts here too, with a client id the server
   accepts later. The sync (sync.js) sends the queue in order whenever the server answers; once
   a deal's entries are all on the server the screen shows the server's own rendering again (or
   opens the server's page of a deal started here). Undo takes back the device's last entry
   while it still waits there; a stored one is the server's to undo.

   One job per module; each reads and writes the one state in offline-state.js, and
   none imports this entry point (tests/test_house.py checks the tablet's imports for cycles):
   offline-state.js   the device's state of the shown deal (kept in localStorage) and its redraw;
   offline-record.js  an entry recorded on the device, in turn;
   offline-undo.js    undo on the device;
   offline-deal.js    the next deal started on the device;
   offline-handover.js  what the sync says (status line, conflicts, the server's screen back);
   offline-warmup.js  the engine's warm-up once it is ready. */

import { S, appUser, csrf } from "./shared.js";
import { reported } from "./connection.js";
import { createEngine, engineSupported } from "../offline/engine.js";
import { isClientDealId, openQueue } from "../offline/queue.js";
import { createSync } from "../offline/sync.js";
import { screenHooks, useOfflinePath, useOutbox } from "./record.js";
import { onSwap, pollGuard } from "./live.js";
import { previewGuard } from "./preview.js";
import { useDraftStore, wireDrafts } from "./draft-forms.js";
import { loadDrawer } from "./offline-view.js";
import { O, active, dropDevice, note, redraw, show, shownDeal, stateNow } from "./offline-state.js";
import { playedOn, usePlanEngine } from "./plan.js";
import { devicePreview, learnStored, record, takeOver } from "./offline-record.js";
import { undo } from "./offline-undo.js";
import { nextDeal } from "./offline-deal.js";
import { onChange, sayAgain, sayStatus } from "./offline-handover.js";
import { onReachability, watchConnection } from "./connection.js";
import { onSaved } from "./record.js";
import { warmUp } from "./offline-warmup.js";

/** Do the device's entries go on top of the server's deal (its view with the snapshot)? The
    tablet's referee tries them there, in order; without it, only a deal still running may. */
async function canPutOnTop(deal, records) {
  if (deal.finished) return false;
  if (!O.ready || !deal.snapshot) return true;
  let snapshot = deal.snapshot;
  for (const record of records) {
    const answer = await O.engine.apply(snapshot, record.payload);
    if (!answer.snapshot) return false;
    snapshot = answer.snapshot;
  }
  return true;
}

/** An entry recorded online goes into the queue as the sync's: no verdict of the device,
    the form it came from, and who recorded it. */
function onlineRecord(entry, deal) {
  return {
    kind: "entry", online: true, key: entry.key, deal, payload: entry.payload,
    expected_seq: entry.expected_seq, form: entry.form, user: appUser(),
  };
}

/** A tablet updated with an entry still kept the old way (record.js's localStorage copy,
    "kortos.pending.<deal>"): it joins the queue under its own key, read once. */
async function takeOldPending() {
  const prefix = "kortos.pending.";
  let names = [];
  try { names = Object.keys(localStorage).filter((name) => name.startsWith(prefix)); } catch (e) { return; }
  for (const name of names) {
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(name) || "null"); } catch (e) { kept = null; }
    const deal = Number(name.slice(prefix.length));
    if (kept && kept.key && kept.payload && Number.isInteger(deal) && deal > 0
        && !(await O.queue.list()).some((r) => r.key === kept.key)) {
      await O.queue.enqueue(onlineRecord(kept, deal));
    }
    try { localStorage.removeItem(name); } catch (e) { /* read once is enough */ }
  }
}

/** Starts in the background: the device's queue and its sync (every entry goes through them,
    online or not), then the engine. */
export async function startOffline() {
  if (!S.canRecord) { useOutbox(null); return false; }
  try {
    O.queue = await openQueue();
  } catch (error) {
    useOutbox(null);
    note(S.T.offline_table.unavailable);
    return false;
  }
  // Drafts need only the device's storage: every game, engine or not.
  useDraftStore(O.queue);
  onSwap(() => { wireDrafts(Number(S.dealId)); });
  if (!isClientDealId(shownDeal())) await wireDrafts(Number(S.dealId));
  startSync();
  try { await takeOldPending(); } catch (error) { /* the kept entry stays where it was */ }
  useOutbox({
    enqueue: async (entry) => {
      await O.queue.enqueue(onlineRecord(entry, Number(S.dealId)));
      O.sync.kick();
    },
  });
  // What an earlier visit queued goes to the server at once, engine or not.
  O.sync.start();
  if (!engineSupported()) { note(S.T.offline_table.unavailable); return false; }
  O.drawer = await loadDrawer(S.screen.dataset.game);
  // A drawer that only answers the screen's questions (room.js) draws nothing offline.
  if (!O.drawer || typeof O.drawer.draw !== "function") { note(S.T.offline_table.unavailable_game); return false; }
  const language = String((S.T.offline_text && S.T.offline_text.language) || document.documentElement.lang || "en").slice(0, 2);
  O.engine = createEngine({ context: { names: S.T.names, language, notation: S.screen.dataset.notation } });
  usePlanEngine(O.engine);
  // Playing on past the reached plan, offline: the choice is the device's (the server sees the
  // plan exceeded once the next deal reaches it); online the form tells the server.
  document.addEventListener("submit", (event) => {
    const form = event.target instanceof Element ? event.target.closest("form[data-play-on]") : null;
    if (!form || !active() || !O.ready || !O.drawer) return;
    event.preventDefault();
    stateNow().then((state) => {
      const chosen = playedOn(state);
      show(chosen, chosen.view.last ? O.drawer.sentences(chosen.view, chosen.view.last) : []);
    }).catch(() => undefined);
  });
  useOfflinePath({ active, record: (form, payload) => { record(form, payload); }, takeOver, nextDeal, undo, learnStored });
  // The server's screen may replace the device's drawing once nothing of this deal waits here.
  pollGuard(() => !O.waitingHere && (!O.drawn || (O.state && O.state.known)));
  onSwap(() => {
    if (!O.drawn || O.waitingHere) return;
    O.drawn = false;
    if (O.state && !isClientDealId(O.state.deal)) dropDevice(O.state.deal);
    O.state = null;
  });
  previewGuard(() => !active(), O.drawer.preview ? devicePreview : null);
  O.engine.ready().then(async () => {
    O.ready = true;
    await redraw();
    // Warm up, so that the first real tap does not pay for the engine's first run.
    await warmUp();
    S.screen.dataset.offline = "ready";  // the tests (and the styles) may ask
  }, () => { note(S.T.offline_table.unavailable); });
  return true;
}

/** The one sync of the device's queue, with everything that tells it the network's news. */
function startSync() {
  // Every API answer names the server's engine version: a deploy met while syncing makes the
  // tablet load the new referee before its next verdict.
  const fetchNoting = (...args) => reported(fetch(...args)).then((response) => {
    if (O.engine) O.engine.serverVersion(response.headers.get("X-Engine-Version"));
    return response;
  });
  // maxDelay: the online path's own back-off (1, 2, 4 … 15 s) is the one back-off now.
  O.sync = createSync({
    queue: O.queue, fetch: fetchNoting, headers: () => ({ "X-CSRFToken": csrf() }), onChange, canPutOnTop,
    user: appUser, screen: screenHooks, maxDelay: 15000,
  });
  window.addEventListener("offline", () => { O.down = true; });
  // Whether the server answers is what its answers say (connection.js): back, the sync sends
  // at once and the line says so within a second.
  onReachability((up) => {
    O.down = !up;
    if (up) O.sync.kick();
    sayAgain();
  });
  watchConnection();
  // An entry saved online is a sync too: the line's "last synced" is that moment.
  // Its key is remembered: a conflict never calls this tablet's own entry another device's.
  onSaved((key) => (key ? O.queue.rememberSent(key) : O.queue.noteSynced()).then(sayAgain, () => undefined));
  // "2 minutes ago" becomes "3 minutes ago" without anything else happening.
  setInterval(() => sayStatus(), 10_000);
}
