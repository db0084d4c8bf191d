/* The device's state of the deal it shows, and its redraw (one job: what the device knows of
   the shown deal, kept and drawn). Split out of offline.js because recording, undo,
   a deal started here and the sync's hand-over all read and write this one state: it lives in
   one place (O) that each of them imports, and none of them imports another for it.

   What the device knows of the deal it shows is kept beside the queue in localStorage
   ("kortos.device.<deal>": snapshot, seq, number, totals base, latest entries, and for undo
   the deal before this device's first entry in it and the entries recorded here since), so a
   reload while offline (the service worker serves the page) draws the same screen again. */

import { S, current, dealUrl, seq } from "./shared.js";
import { isClientDealId } from "../offline/queue.js";
import { wireDrafts } from "./draft-forms.js";
import { baseTotals, drawFreshDeal, drawHeading, drawState } from "./offline-view.js";
import { readPlan } from "./plan.js";

/** The offline path's one state, shared by its modules (offline.js sets it up at start). */
export const O = {
  engine: null,
  ready: false,
  queue: null,
  sync: null,
  drawer: null,
  // The API could not be reached (cleared when it answers again or the browser is back online).
  down: false,
  // The screen shows the device's state, not the server's rendering.
  drawn: false,
  // Records of the shown deal still waiting in the queue.
  waitingHere: 0,
  // The device's state of the shown deal (see deviceKey), or null while the server's is shown.
  state: null,
  // The server's screen as the engine reads it, per version (stateNow).
  pageState: null,
  // Something was sent since the page loaded (the line then says so when all is saved).
  sent: false,
  busy: false,
  // The conflict dialogs, one at a time (conflict.js's oneAtATime).
  desk: null,
};

const deviceKey = (deal) => "kortos.device." + deal;
export function saveDevice(state) {
  try { localStorage.setItem(deviceKey(state.deal), JSON.stringify(state)); } catch (e) { /* memory only */ }
}
function loadDevice(deal) {
  try { return JSON.parse(localStorage.getItem(deviceKey(deal)) || "null"); } catch (e) { return null; }
}
export function dropDevice(deal) {
  try { localStorage.removeItem(deviceKey(deal)); } catch (e) { /* nothing kept */ }
}

export function note(text) {
  let line = document.querySelector("[data-offline-note]");
  if (!line) {
    line = document.createElement("p");
    line.className = "small muted";
    line.setAttribute("data-offline-note", "");
    S.syncLine.after(line);
  }
  line.textContent = text;
}

/** An error's words for the sync line. */
export function failed(error) {
  return String(error && error.message ? error.message : error);
}

/** The deal the screen shows: a client id from the URL's hash (a deal started here), else
    the server's id. */
export function shownDeal() {
  const hash = decodeURIComponent(location.hash.slice(1));
  return isClientDealId(hash) ? hash : Number(S.dealId);
}

export function active() {
  return O.ready && !!O.drawer && (O.drawn || O.down || navigator.onLine === false || O.waitingHere > 0);
}

/** The device's state of the shown deal: as drawn, or from the server's page and snapshot. */
export async function stateNow() {
  if (O.drawn && O.state) return O.state;
  // Read once per version of the server's screen (at load, after each swap): the first tap
  // offline then waits for nothing but the engine's verdict.
  if (O.pageState && O.pageState.version === S.version) return structuredClone(O.pageState.state);
  const script = document.getElementById("deal-snapshot");
  if (!script) throw new Error("The page does not carry the deal's snapshot.");
  const snapshot = JSON.parse(script.textContent);
  const answer = await O.engine.view(snapshot);
  if (!answer.view) throw new Error(answer.failure || "The engine could not read the deal.");
  const view = { ...answer.view, outcome: answer.view.outcome ?? null };
  const state = {
    deal: Number(S.dealId), snapshot, view, seq: seq(), number: Number(S.screen.dataset.number),
    base: baseTotals(current(), view, O.drawer), entries: [], nextDealer: nextDealer(view),
    origin: null, log: [], stored: pageUndo(),
    // The session's plan as the server's screen gave it: the tablet keeps it with the deal.
    plan: readPlan(),
  };
  O.pageState = { version: S.version, state };
  return structuredClone(state);
}

/** What the server's screen offers to undo (its last stored entry: {label, payload}), or null. */
function pageUndo() {
  const form = current().querySelector("#form-undo");
  if (!form) return null;
  let payload = null;
  try { payload = JSON.parse(form.dataset.payload || "null"); } catch (e) { payload = null; }
  const what = form.querySelector(".what");
  return { label: what ? what.textContent.trim() : "", payload };
}

/** The dealer of the next deal as the game says: one seat on, or the deal's loser where the
    game has the loser deal (rules' next_dealer). */
export function nextDealer(view) {
  if (Number.isInteger(view.loser)) return view.loser;
  return (view.dealer + 1) % view.players;
}

/** The state after one entry the engine accepted. */
export function advanced(state, answer, payload, key) {
  const view = { ...answer.view, outcome: answer.outcome ?? answer.view.outcome ?? null };
  const text = O.drawer.describe(payload, view.last);
  return {
    ...state, snapshot: answer.snapshot, view, seq: state.seq + 1, nextDealer: nextDealer(view),
    entries: [{ seq: state.seq + 1, text }, ...state.entries].slice(0, 6),
    // What an undo on the device needs: the deal as it was before this device's first entry
    // in it (origin), and the entries recorded here since (log), to be played again from it.
    origin: state.origin || { ...state, origin: null, log: [] },
    log: [...(state.log || []), { seq: state.seq + 1, key, payload, text }],
  };
}

export function show(state, sentences) {
  O.state = state;
  O.drawn = true;
  saveDevice(state);
  drawState(state, O.drawer, sentences);
}

/** The queue's records of the shown deal that the device refereed (and, for a deal started
    here, of its server id). An entry recorded online and still on its way is the online
    path's: it does not make the device draw the deal. */
export async function countHere() {
  const deal = O.state ? O.state.deal : shownDeal();
  const refereed = async (d) => (await O.queue.list({ deal: d })).filter((r) => !(r.online && r.verdict === undefined)).length;
  let n = await refereed(deal);
  if (isClientDealId(deal)) {
    const server = await O.queue.serverDealId(deal);
    if (server !== null) n += await refereed(server);
  }
  return n;
}

/** The device's state of the shown deal from before a reload, drawn again when the queue
    still holds that deal's records. */
export async function redraw() {
  const deal = shownDeal();
  const kept = loadDevice(deal);
  if (!kept) {
    // A deal started here that the server has since accepted: its drawing was let go once the
    // server's own page of it was kept, so that page is the deal (never the deal before it).
    const server = isClientDealId(deal) ? await O.queue.serverDealId(deal) : null;
    if (server !== null) window.location.replace(dealUrl(server));
    return;
  }
  O.waitingHere = await countHere();
  const pageSeq = seq();
  const newer = isClientDealId(deal) || kept.seq > pageSeq;
  // A state the tablet learned from the server (kept.known) is drawn with nothing waiting too.
  if ((!O.waitingHere && !kept.known) || !newer) { if (!isClientDealId(deal)) dropDevice(deal); return; }
  if (isClientDealId(deal)) {
    O.state = kept;
    O.drawn = true;
    drawFreshDeal(kept, O.drawer);
    const last = kept.view.last;
    if (last) drawState(kept, O.drawer, O.drawer.sentences(kept.view, last));
  } else {
    show(kept, kept.view.last ? O.drawer.sentences(kept.view, kept.view.last) : []);
  }
  drawHeading(kept);
  await wireDrafts(deal);
}
