/* The offline path: when the network is down (the browser says so, or the API cannot be
   reached twice in a row) recording goes on. The tablet's engine (static/js/offline/engine.js,
   loaded in the background: online recording never waits for it) referees each entry as the
   server would; a refusal shows beside its field, an accepted entry goes into the device's
   durable queue (queue.js) with its verdict, and the screen is drawn from the engine's view at
   once (offline-view.js). A finished deal's next deal starts here too, with a client id the
   server accepts later. The sync (sync.js) sends the queue in order whenever the server
   answers; once a deal's entries are all on the server the screen shows the server's own
   rendering again (or opens the server's page of a deal started here). Undo takes back the
   device's last entry while it still waits there; a stored one is the server's to undo.

   What the device knows of the deal it shows is kept beside the queue in localStorage
   ("kortos.device.<deal>": snapshot, seq, number, totals base, latest entries, and for undo
   the deal before this device's first entry in it and the entries recorded here since), so a
   reload while offline (the service worker serves the page) draws the same screen again. */

import { S, csrf, current, dealUrl, newKey, seq, setSync } from "./shared.js";
import { createEngine, engineSupported } from "../offline/engine.js";
import { isClientDealId, newClientDealId, openQueue } from "../offline/queue.js";
import { createSync } from "../offline/sync.js";
import { clearPending, useOfflinePath } from "./record.js";
import { onSwap, pollGuard, refresh } from "./live.js";
import { previewGuard } from "./preview.js";
import { clearErrors, showError } from "./errors.js";
import { restoreForm } from "./form.js";
import { recorded, useDraftStore, wireDrafts } from "./draft-forms.js";
import { renderStatus } from "./status.js";
import { conflictText, oneAtATime, renderSetAside, showConflict } from "./conflict.js";
import { conflictVerdicts } from "./conflict-verdicts.js";
import { baseTotals, drawFreshDeal, drawHeading, drawState, loadDrawer } from "./offline-view.js";

const O = {
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
function saveDevice(state) {
  try { localStorage.setItem(deviceKey(state.deal), JSON.stringify(state)); } catch (e) { /* memory only */ }
}
function loadDevice(deal) {
  try { return JSON.parse(localStorage.getItem(deviceKey(deal)) || "null"); } catch (e) { return null; }
}
function dropDevice(deal) {
  try { localStorage.removeItem(deviceKey(deal)); } catch (e) { /* nothing kept */ }
}

function note(text) {
  let line = document.querySelector("[data-offline-note]");
  if (!line) {
    line = document.createElement("p");
    line.className = "small muted";
    line.setAttribute("data-offline-note", "");
    S.syncLine.after(line);
  }
  line.textContent = text;
}

/** The deal the screen shows: a client id from the URL's hash (a deal started here), else
    the server's id. */
function shownDeal() {
  const hash = decodeURIComponent(location.hash.slice(1));
  return isClientDealId(hash) ? hash : Number(S.dealId);
}

function active() {
  return O.ready && !!O.drawer && (O.drawn || O.down || navigator.onLine === false || O.waitingHere > 0);
}

/** The device's state of the shown deal: as drawn, or from the server's page and snapshot. */
async function stateNow() {
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
function nextDealer(view) {
  if (Number.isInteger(view.loser)) return view.loser;
  return (view.dealer + 1) % view.players;
}

function advanced(state, answer, payload, key) {
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

function show(state, sentences) {
  O.state = state;
  O.drawn = true;
  saveDevice(state);
  drawState(state, O.drawer, sentences);
}

/** After the next frame is painted (or 100 ms, as in a hidden tab that paints nothing). */
function afterPaint() {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });
}

// Entries go in one at a time, in the order tapped: the screen shows a verdict before the
// device's storage has answered, and a tap in that moment (one tap per entry in some games)
// waits its turn instead of being dropped without a word.
let inLine = Promise.resolve();
function record(form, payload, key = newKey()) {
  const turn = inLine.then(() => recordNow(form, payload, key));
  inLine = turn.catch(() => false);
  return turn;
}

/** One entry on the device: refereed by the engine, queued with its verdict, drawn at once.
    Answers "queued", "refused" (shown beside its field; nothing kept) or false (not done). */
async function recordNow(form, payload, key) {
  if (O.busy) return false;
  O.busy = true;
  try {
    const state = await stateNow();
    const answer = await O.engine.apply(state.snapshot, payload);
    if (answer.refusal) {
      clearErrors();
      showError(form ? form.id : "form-" + payload.type, answer.refusal.error);
      return "refused";
    }
    if (!answer.snapshot) throw new Error(answer.failure || "The engine gave no answer.");
    // Stored and drawn at once; should the device's storage fail, the screen goes back to
    // what it showed and the values go back into the form (nothing typed is lost).
    const next = advanced(state, answer, payload, key);
    const said = next.view.last ? O.drawer.sentences(next.view, next.view.last) : [];
    const before = { drawn: O.drawn, state: O.state };
    if (form) form.reset();
    O.state = next;
    O.drawn = true;
    drawState(next, O.drawer, said);
    // The device's storage is written once the verdict's frame is painted: its first write
    // after a load (an IndexedDB transaction, the localStorage copy) held that frame up by
    // tens of milliseconds, more on a busy device. The screen already showed the verdict
    // before the write was confirmed; a tap meanwhile waits its turn (inLine).
    await afterPaint();
    saveDevice(next);
    // `said`: the verdict as the scorer read it, in the session's language; a conflict dialog
    // shows these very words beside the server's.
    const queued = O.queue.enqueue({ kind: "entry", key, deal: state.deal, payload, expected_seq: state.seq, verdict: answer.result, said });
    try {
      await queued;
    } catch (error) {
      if (before.drawn) show(before.state, []); else { O.drawn = false; O.state = null; dropDevice(next.deal); await refresh(); }
      restoreForm(payload);
      throw error;
    }
    O.waitingHere += 1;
    recorded(state.deal, form && form.id);
    wireDrafts(next.deal);
    S.dirty = false;
    O.sync.kick();
    return "queued";
  } catch (error) {
    setSync("error", String(error && error.message ? error.message : error));
    return false;
  } finally {
    O.busy = false;
  }
}

/** Undo while the device draws the deal (record.js hands it over when the offline path is
    active). The device's last entry, still waiting, is taken back here (undoNow); one the
    server already stores is the server's to undo: online it goes there (hooks.online), offline
    the scorer is told it needs the connection and nothing changes. Answers true when taken. */
function undo(form, hooks) {
  if (!O.ready || !O.drawer) return false;
  // Decided in its turn, after any entry tapped before it: that entry is then the last one.
  const turn = inLine.then(() => undoNow(hooks));
  inLine = turn.catch(() => false);
  return true;
}

/** The last entry is on the server: online (and the deal is the server's page), its undo is
    the server's; else said plainly, changing nothing. */
function storedUndo(hooks) {
  if (!O.down && navigator.onLine !== false && !isClientDealId(shownDeal())) return false;
  clearErrors();
  showError("form-undo", sentence("undo_needs_connection"));
  return true;
}

function sentence(key) { return (S.T.offline_text && S.T.offline_text[key]) || S.T[key] || key; }

async function undoNow(hooks) {
  if (O.busy) return false;
  O.busy = true;
  let online = false;
  try {
    const state = O.state;
    const log = (O.drawn && state && state.log) || [];
    const last = log[log.length - 1];
    if (!last || !state.origin) { online = !storedUndo(hooks); return false; }
    clearErrors();
    // What remains, played again by the engine from the deal as it was before this device's
    // first entry (not the bridge's replay from a fresh deal: a deal may carry something over
    // from the one before). Nothing is changed until the engine has answered.
    let back = { ...state.origin, origin: null, log: [] };
    for (const entry of log.slice(0, -1)) {
      const answer = await O.engine.apply(back.snapshot, entry.payload);
      if (!answer.snapshot) throw new Error((answer.refusal && answer.refusal.error) || answer.failure || "The engine gave no answer.");
      back = advanced(back, answer, entry.payload, entry.key);
    }
    const taken = await O.sync.withdraw(last.key);
    if (taken === "sent") { online = !storedUndo(hooks); return false; }  // the server has it now
    if (taken !== "withdrawn") {
      showError("form-undo", sentence(taken === "later" ? "undo_later_deal" : "conflict_status"));
      return false;
    }
    O.waitingHere = Math.max(0, O.waitingHere - 1);
    const said = back.view.last ? O.drawer.sentences(back.view, back.view.last) : [];
    if (state.view.finished && !back.view.finished) {
      // The deal's end is taken back: its entry forms, gone with the end, come back as a fresh
      // deal's page has them, then the deal so far is drawn into them.
      O.state = back;
      O.drawn = true;
      saveDevice(back);
      drawFreshDeal(back, O.drawer);
      drawState(back, O.drawer, said);
    } else {
      show(back, said);
    }
    restoreForm(last.payload, { afterChange: hooks.afterChange });
    await wireDrafts(back.deal);
    await sayUndone();
    return true;
  } catch (error) {
    setSync("error", String(error && error.message ? error.message : error));
    return false;
  } finally {
    O.busy = false;
    if (online) hooks.online();
  }
}

/** "Undone." on the sync line, as online, before what the device still keeps. */
async function sayUndone() {
  const [waiting, lastSyncedAt] = await Promise.all([O.queue.count(), O.queue.lastSyncedAt()]);
  renderStatus(S.syncLine, { state: O.sync.state, waiting, lastSyncedAt }, S.T.offline_text || {});
  S.syncLine.prepend(S.T.undone + " · ");
  delete S.syncLine.dataset.line;  // the next status is written whole, "Undone." goes then
  // Online with nothing of this deal left to send: the server's own screen comes back.
  if (!O.waitingHere && !O.down && navigator.onLine !== false) O.sync.kick();
}

/** What the server's preview would answer for a form's entry, from the device's referee (the
    drawer words it; preview.js asks while the server cannot be asked). */
async function devicePreview(payload) {
  const state = await stateNow();
  return O.drawer.preview(state, payload, (entry) => O.engine.apply(state.snapshot, entry));
}

/** The online path's entry could not be sent twice: it goes to the queue under its own key
    (its localStorage copy stays until the sync has sent it). */
async function takeOver(pending) {
  if (!O.ready || !O.drawer || pending.expected_seq !== (O.state ? O.state.seq : seq())) return false;
  O.down = true;
  const done = await record(document.getElementById(pending.form), pending.payload, pending.key);
  // Refused here, it would be refused there too: nothing is kept (as the online path does on a 400).
  if (done === "refused") clearPending(pending.key);
  return !!done;
}

/** The next deal, started on the device: a queued deal start with a client id. */
function nextDeal(form) {
  if (!O.ready || !O.drawer || O.busy) return false;
  (async () => {
    O.busy = true;
    try {
      const state = await stateNow();
      if (!state.view.finished) return;
      const chosen = form.querySelector('input[name="dealer"]:checked');
      const dealer = chosen ? parseInt(chosen.value, 10) : state.nextDealer;
      const answer = await O.engine.newDeal({
        game: state.snapshot.game, players: state.view.players, dealer, options: state.snapshot.options || {},
        previous: state.snapshot,
      });
      if (!answer.snapshot) throw new Error(answer.failure || "The engine could not start the deal.");
      const client = newClientDealId();
      await O.queue.enqueue({ kind: "deal_start", key: newKey(), session: Number(S.screen.dataset.session), deal: client, dealer });
      const base = state.base.map((total, seat) => total + (state.view.outcome ? state.view.outcome.points[seat] : 0));
      const fresh = {
        deal: client, snapshot: answer.snapshot, view: { ...answer.view, outcome: null }, seq: 0,
        number: state.number + 1, base, entries: [], nextDealer: nextDealer(answer.view),
        origin: null, log: [], stored: null,
      };
      O.state = fresh;
      O.drawn = true;
      O.waitingHere = 1;
      saveDevice(fresh);
      history.replaceState(null, "", "#" + client);
      drawFreshDeal(fresh, O.drawer);
      wireDrafts(client);
      O.sync.kick();
    } catch (error) {
      setSync("error", String(error && error.message ? error.message : error));
    } finally {
      O.busy = false;
    }
  })();
  return true;
}

async function countHere() {
  const deal = O.state ? O.state.deal : shownDeal();
  let n = await O.queue.count({ deal });
  if (isClientDealId(deal)) {
    const server = await O.queue.serverDealId(deal);
    if (server !== null) n += await O.queue.count({ deal: server });
  }
  return n;
}

/** The sync said something: the status line, a conflict, and the server's screen back once
    this deal's entries are all there. */
async function onChange(status) {
  if (status.state === "idle" || status.state === "sending") O.down = false;
  if (status.state === "offline" || status.state === "retrying") O.down = status.state === "offline" || O.down;
  const quiet = status.state === "idle" && !status.waiting && !O.sent && !O.drawn;
  if (!quiet) {
    renderStatus(S.syncLine, status, S.T.offline_text || {});
    if (status.state === "idle" && !status.waiting) S.syncLine.dataset.state = "saved";
  }
  if (status.state === "conflict" && status.conflict) return showTheConflict(status.conflict);
  await showSetAside();
  const kept = readKept();
  if (kept && !(await O.queue.list()).some((r) => r.key === kept.key)) {
    O.sent = true;
    clearPending(kept.key);
  }
  if (status.state === "sending") {
    O.sent = true;
    S.localChanges += 1;  // a poll that started before this is stale news, not another device
  }
  O.waitingHere = await countHere();
  if (O.waitingHere || status.state !== "idle") return undefined;
  // Everything of this deal is on the server: show the server's own screen of it.
  const deal = O.state ? O.state.deal : shownDeal();
  if (isClientDealId(deal)) {
    const server = await O.queue.serverDealId(deal);
    if (server !== null) {
      dropDevice(deal);
      note(S.T.offline_table.moving);
      window.location.assign(dealUrl(server));
    }
    return undefined;
  }
  if (O.drawn || O.sent) {
    O.sent = false;
    const swapped = await refresh();
    if (swapped) {
      O.drawn = false;
      O.state = null;
      dropDevice(deal);
    }
  }
  return undefined;
}

function readKept() {
  try { return JSON.parse(localStorage.getItem("kortos.pending." + S.dealId) || "null"); } catch (e) { return null; }
}

/** What the scorer set aside in a conflict stays readable on the screen (never dropped). */
async function showSetAside() {
  const records = await O.queue.listAside();
  let box = document.getElementById("set-aside");
  if (!records.length) { if (box) box.replaceChildren(); return; }
  if (!box) {
    box = document.createElement("div");
    box.id = "set-aside";
    (document.querySelector("[data-offline-note]") || S.syncLine).after(box);
  }
  renderSetAside(box, records, { text: conflictText(S.T) });
}

function showTheConflict(conflict) {
  O.desk ??= oneAtATime({ open: openConflict, current: () => O.sync.conflict });
  O.desk.offer(conflict).catch((error) => setSync("error", String(error && error.message ? error.message : error)));
}

async function openConflict(conflict) {
  let box = document.getElementById("conflict");
  if (!box) {
    box = document.createElement("div");
    box.id = "conflict";
    S.syncLine.after(box);
  }
  // The verdicts in the session's language (the engine's own text is English); the engine
  // only once it is loaded: a conflict is never held up by its loading.
  const { explain } = await conflictVerdicts(conflict, {
    drawer: O.drawer, engine: O.ready ? O.engine : null, session: S.screen.dataset.session,
  });
  return showConflict(box, conflict, {
    text: conflictText(S.T),
    explain,
    // The dialog stays (its buttons off, "Resolving…") until all of this is done; a conflict
    // the sync meets meanwhile waits for it to close.
    onChoose: async (choice) => {
      await O.sync.resolve(choice);
      // The server's version (with mine on top, if chosen) is what the screen shows next.
      const deal = O.state ? O.state.deal : shownDeal();
      if (!isClientDealId(deal)) {
        dropDevice(deal);
        O.state = null;
        O.drawn = false;
        await refresh();
      }
    },
  });
}

/** The device's state of the shown deal from before a reload, drawn again when the queue
    still holds that deal's records. */
async function redraw() {
  const deal = shownDeal();
  const kept = loadDevice(deal);
  if (!kept) return;
  O.waitingHere = await countHere();
  const pageSeq = seq();
  const newer = isClientDealId(deal) || kept.seq > pageSeq;
  if (!O.waitingHere || !newer) { if (!isClientDealId(deal)) dropDevice(deal); return; }
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

/** Starts in the background; answers whether the queue holds the entry kept from before a
    reload (`kept`: record.js's localStorage copy), which the sync then sends. */
export async function startOffline({ kept } = {}) {
  if (!S.canRecord) return false;
  try {
    O.queue = await openQueue();
  } catch (error) {
    note(S.T.offline_table.unavailable);
    return false;
  }
  // Drafts need only the device's storage: every game, engine or not.
  useDraftStore(O.queue);
  onSwap(() => { wireDrafts(Number(S.dealId)); });
  if (!isClientDealId(shownDeal())) await wireDrafts(Number(S.dealId));
  if (!engineSupported()) { note(S.T.offline_table.unavailable); return false; }
  O.drawer = await loadDrawer(S.screen.dataset.game);
  if (!O.drawer) { note(S.T.offline_table.unavailable_game); return false; }
  const holdsKept = !!kept && (await O.queue.list()).some((r) => r.key === kept.key);
  const language = String((S.T.offline_text && S.T.offline_text.language) || document.documentElement.lang || "en").slice(0, 2);
  O.engine = createEngine({ context: { names: S.T.names, language, notation: S.screen.dataset.notation } });
  useOfflinePath({ active, record: (form, payload) => { record(form, payload); }, takeOver, nextDeal, undo });
  pollGuard(() => !O.drawn && !O.waitingHere);
  previewGuard(() => !active(), O.drawer.preview ? devicePreview : null);
  // Every API answer names the server's engine version: a deploy met while syncing makes the
  // tablet load the new referee before its next verdict.
  const fetchNoting = (...args) => fetch(...args).then((response) => {
    O.engine.serverVersion(response.headers.get("X-Engine-Version"));
    return response;
  });
  O.sync = createSync({ queue: O.queue, fetch: fetchNoting, headers: () => ({ "X-CSRFToken": csrf() }), onChange });
  window.addEventListener("offline", () => { O.down = true; });
  window.addEventListener("online", () => { O.down = false; });
  // What an earlier visit queued goes to the server at once, engine or not.
  O.sync.start();
  O.engine.ready().then(async () => {
    O.ready = true;
    await redraw();
    // Warm up: the screen's state read, and one legal entry through the engine (its answer
    // dropped), so that the first real tap does not pay for Python's first run of the code.
    const warm = O.drawn ? O.state : await stateNow().catch(() => null);
    if (warm && !warm.view.finished) {
      const sample = O.drawer.sample(warm.view);
      const answer = await O.engine.apply(warm.snapshot, sample).catch(() => null);
      // And the drawing of its verdict, into a copy of the screen nobody sees: the first
      // real verdict then finds the drawing code compiled and its sentences' plural rules made.
      if (answer && answer.snapshot) {
        try {
          const trial = advanced(warm, answer, sample, "warm-up");
          drawState(trial, O.drawer, trial.view.last ? O.drawer.sentences(trial.view, trial.view.last) : [], current().cloneNode(true));
        } catch (error) { /* a warm-up only */ }
      }
    }
    S.screen.dataset.offline = "ready";  // the tests (and the styles) may ask
  }, () => { note(S.T.offline_table.unavailable); });
  return holdsKept;
}
