/* A refusal goes next to the control that caused it: the player's input it names, the
   question whose word it uses, or the form's own line; and it goes as soon as the scorer
   answers it. The same for the server's refusals and the tablet engine's. */

import { S, setSync } from "./shared.js";

export function clearErrors() {
  S.liveBox.querySelectorAll("[data-error-for], [data-error-for-player], [data-error-for-term]").forEach((slot) => {
    slot.textContent = "";
  });
  S.liveBox.querySelectorAll("[aria-invalid]").forEach((el) => el.removeAttribute("aria-invalid"));
}

export function showError(formId, message) {
  const key = String(formId || "").replace(/^form-/, "");
  const form = document.getElementById("form-" + key);
  let target = null;
  if (form) {
    // A refusal that names exactly one player goes next to that player's input.
    let matches = [];
    form.querySelectorAll("[data-error-for-player]").forEach((slot) => {
      const name = slot.dataset.errorForPlayer;
      if (name && message.indexOf(name) >= 0) matches.push(slot);
    });
    // "Ona" inside "Onutė": keep only the longest names found.
    matches = matches.filter((slot) => !matches.some((other) =>
      other !== slot && other.dataset.errorForPlayer.indexOf(slot.dataset.errorForPlayer) >= 0));
    if (matches.length === 1) target = matches[0];
    if (!target) target = termSlot(form, message);
    if (!target) target = form.querySelector('[data-error-for="' + key + '"]');
  }
  if (!target) target = S.liveBox.querySelector('[data-error-for="' + key + '"]') || S.liveBox.querySelector('[data-error-for="undo"]');
  if (!target) { setSync("error", message); return; }
  target.textContent = message;
  const row = target.closest("[data-player-name], .slot, form");
  const input = row && row.querySelector("input:not([type=hidden]):not([type=radio])");
  if (input && target.hasAttribute("data-error-for-player")) input.setAttribute("aria-invalid", "true");
  // One refusal at a time: the preview's own copy of it goes.
  if (form) form.querySelectorAll("[data-preview-box]").forEach((box) => { box.hidden = true; });
  target.scrollIntoView({ block: "nearest" });
}

// The control a refusal is about: the first slot claiming a field whose word (the same word the
// server put in the message, T.words) appears in it.
function termSlot(form, message) {
  const text = message.toLowerCase();
  const words = S.T.words || {};
  const named = Object.keys(words).filter((k) => words[k] && text.indexOf(words[k].toLowerCase()) >= 0);
  if (!named.length) return null;
  return Array.prototype.find.call(form.querySelectorAll("[data-error-for-term]"), (slot) =>
    slot.dataset.errorForTerm.split(" ").some((k) => named.indexOf(k) >= 0)) || null;
}
