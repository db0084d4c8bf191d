/* Undo on the device (one job: taking back the device's last entry while it still waits in
   the queue). Split out of offline.js: undo replays the deal from before this
   device's first entry and withdraws the entry from the queue, a path of its own. A stored
   entry is the server's to undo: online it goes there, offline the scorer is told so. */

import { S, setSync } from "./shared.js";
import { isClientDealId } from "../offline/queue.js";
import { clearErrors, showError } from "./errors.js";
import { restoreForm } from "./form.js";
import { wireDrafts } from "./draft-forms.js";
import { renderStatus } from "./status.js";
import { drawFreshDeal, drawState } from "./offline-view.js";
import { O, advanced, failed, saveDevice, show, shownDeal } from "./offline-state.js";
import { inTurn } from "./offline-record.js";

/** Undo while the device draws the deal (record.js hands it over when the offline path is
    active). The device's last entry, still waiting, is taken back here (undoNow); one the
    server already stores is the server's to undo: online it goes there (hooks.online), offline
    the scorer is told it needs the connection and nothing changes. Answers true when taken. */
export function undo(form, hooks) {
  if (!O.ready || !O.drawer) return false;
  // Decided in its turn, after any entry tapped before it: that entry is then the last one.
  inTurn(() => undoNow(hooks));
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
    setSync("error", failed(error));
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
