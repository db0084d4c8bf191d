/* What the referee says before anything is recorded: a form's preview (data-preview: the
   payments an ending makes) while the scorer fills it in, and the rounds of a form asked about
   round by round (a tie-break round after a tie) as its cards come in. Which form wants which,
   and when it says enough, is its game drawer's answer (room.js). */

import { S, post } from "./shared.js";
import { payloadFrom } from "./form.js";
import { addRound } from "./pad.js";
import { previewReady, roundComplete } from "./room.js";
import { clearErrors, showError } from "./errors.js";

let previewTimer = null;
// False while the offline path records (offline.js): the server cannot be asked then, and
// `askDevice(payload)` (when the offline path gives one) answers as the server would, from the
// device's referee.
let mayAsk = () => true;
let askDevice = null;
export function previewGuard(guard, device = null) { mayAsk = guard; askDevice = device; }

/** A finished round goes to the referee, who says who takes or asks for a tie-break. */
export function askAboutRounds(form) {
  const box = form.querySelector("[data-preview-box]");
  const ask = !roundComplete(form) ? null
    : mayAsk() ? (payload) => post(S.screen.dataset.previewUrl, payload) : askDevice;
  if (!ask) { if (box) box.hidden = true; return; }
  ask(payloadFrom(form)).then((result) => {
    if (result.status === 200) {
      box.hidden = false;
      box.innerHTML = result.data.html;
      return;
    }
    const data = result.data || {};
    if (typeof data.next_round === "number") {
      box.hidden = true;
      addRound(form, data.next_round, data.prefill || [], data.empty || [], data.possible || [], data.error);
      if (roundComplete(form)) askAboutRounds(form);  // the referee knew every card of it
      return;
    }
    box.hidden = true;
    clearErrors();
    showError(form.id, data.error || ("HTTP " + result.status));
  }).catch(() => { /* the referee answers again when the trick is recorded */ });
}

export function schedulePreview(form) {
  clearTimeout(previewTimer);
  if (!mayAsk()) return;
  previewTimer = setTimeout(() => runPreview(form), 200);
}

function runPreview(form) {
  const box = form.querySelector("[data-preview-box]");
  if (!box) return;
  const payload = payloadFrom(form);
  if (!previewReady(payload)) {
    box.hidden = true;
    return;
  }
  post(S.screen.dataset.previewUrl, payload).then((result) => {
    clearErrors();
    if (result.status === 200) { box.hidden = false; box.innerHTML = result.data.html; return; }
    box.hidden = true;
    showError(form.id, (result.data && result.data.error) || ("HTTP " + result.status));
  }).catch(() => { box.hidden = true; });
}
