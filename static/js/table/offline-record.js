/* Recording an entry on the device (one job: an entry refereed by the tablet's engine, queued
   with its verdict, drawn at once), and the turn every change on the device waits for. Split
   out of offline.js: the busiest path offline, read on its own; undo
   (offline-undo.js) takes its turn in the same line, so it imports inTurn from here. */

import { S, appUser, newKey, seq, setSync } from "./shared.js";
import { refresh } from "./live.js";
import { clearErrors, showError } from "./errors.js";
import { restoreForm } from "./form.js";
import { recorded, wireDrafts } from "./draft-forms.js";
import { drawState } from "./offline-view.js";
import { O, advanced, dropDevice, failed, saveDevice, show, stateNow } from "./offline-state.js";

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

/** `step` run after every change tapped before it (its answer, or its failure, is the turn's). */
export function inTurn(step) {
  const turn = inLine.then(step);
  inLine = turn.catch(() => false);
  return turn;
}

/** Which deal a record is of, in words a conflict dialog can name it by (the dialog may appear
    over another deal's screen): its number, the game and the table's players. */
function where(state) {
  return { number: state.number, game: S.screen.dataset.gameName || S.screen.dataset.game, players: S.T.names || [] };
}

export function record(form, payload, key = newKey()) {
  return inTurn(() => recordNow(form, payload, key));
}

/** One entry on the device: refereed by the engine, queued with its verdict, drawn at once.
    `queued`: it already waits in the queue (recorded online): the verdict joins that record.
    Answers "queued", "refused" (shown beside its field; nothing kept) or false (not done). */
async function recordNow(form, payload, key, queued = false) {
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
    const kept = queued
      ? O.queue.update({ [key]: { verdict: answer.result, said, where: where(state), online: undefined } })
      : O.queue.enqueue({ kind: "entry", key, deal: state.deal, payload, expected_seq: state.seq, verdict: answer.result, said, where: where(state), user: appUser() });
    try {
      await kept;
    } catch (error) {
      if (before.drawn) show(before.state, []); else { O.drawn = false; O.state = null; dropDevice(next.deal); await refresh(); }
      // An entry already queued online is not lost: it is still there, or the server has it.
      if (!queued) restoreForm(payload);
      throw error;
    }
    O.waitingHere += 1;
    recorded(state.deal, form && form.id);
    wireDrafts(next.deal);
    S.dirty = false;
    O.sync.kick();
    return "queued";
  } catch (error) {
    setSync("error", failed(error));
    return false;
  } finally {
    O.busy = false;
  }
}

export function learnStored(payload, key) {
  return inTurn(() => learnNow(payload, key));
}

/** The server stored this screen's entry, but its new screen could not be fetched (the network
    went between the two answers): the tablet's referee draws the deal with it, as the server
    has it, so the screen and a reload show what the tablet knows. Nothing waits in the queue:
    the entry is the server's (its undo is the server's too). Answers true when drawn. */
async function learnNow(payload, key) {
  if (!O.ready || !O.drawer || O.busy) return false;
  O.busy = true;
  try {
    const state = await stateNow();
    const answer = await O.engine.apply(state.snapshot, payload);
    if (!answer.snapshot) return false;
    const next = advanced(state, answer, payload, key);
    const text = next.log[next.log.length - 1].text;
    const known = { ...next, origin: null, log: [], stored: { label: text, payload }, known: true };
    show(known, known.view.last ? O.drawer.sentences(known.view, known.view.last) : []);
    return true;
  } catch (error) {
    return false;
  } finally {
    O.busy = false;
  }
}

/** What the server's preview would answer for a form's entry, from the device's referee (the
    drawer words it; preview.js asks while the server cannot be asked). */
export async function devicePreview(payload) {
  const state = await stateNow();
  return O.drawer.preview(state, payload, (entry) => O.engine.apply(state.snapshot, entry));
}

/** The network failed the online path's queued entry twice: the device referees it and its
    verdict joins the record, which from then on is the device's own. */
export async function takeOver(pending) {
  if (!O.ready || !O.drawer || pending.expected_seq !== (O.state ? O.state.seq : seq())) return false;
  O.down = true;
  const done = await inTurn(() => recordNow(document.getElementById(pending.form), pending.payload, pending.key, true));
  // Refused here, it would be refused there too: it leaves the queue (as the online path does
  // on a 400), unless the server has it already.
  if (done === "refused") await O.sync.withdraw(pending.key);
  return !!done;
}
