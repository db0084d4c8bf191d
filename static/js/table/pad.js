/* The card pad and the slots it fills, the rounds a referee asks for, the count steppers, and
   a seat's count locked at 0 (what a game's drawer does with it is the drawer's: room.js).
   Nothing here talks to the server. */

import { S, fmt } from "./shared.js";
import { roundComplete, syncForm } from "./room.js";

const SUITS = "♠♣♦♥";
// Called after a tap on the pad changed a card of a form asked about round by round (the
// drawer says which: room.js); screen.js has preview.js ask the referee.
let cardsChanged = () => {};
export function onCardsChanged(hook) { cardsChanged = hook; }

// -- card pads and slots ----------------------------------------------------------------------
export function splitCard(value) {
  let text = String(value || "").trim();
  let suit = "";
  if (text && SUITS.indexOf(text.charAt(text.length - 1)) >= 0) { suit = text.charAt(text.length - 1); text = text.slice(0, -1); }
  else if (text && SUITS.indexOf(text.charAt(0)) >= 0) { suit = text.charAt(0); text = text.slice(1); }
  return { rank: text.trim(), suit };
}
function slotsOf(form) { return Array.from(form.querySelectorAll("[data-card-input]")); }
export function activeInput(form) {
  const slot = form.querySelector(".slot.is-active [data-card-input]");
  return slot || slotsOf(form).find((i) => !i.value && !i.disabled && !i.readOnly) || slotsOf(form)[0];
}
export function markActive(form, input) {
  form.querySelectorAll(".slot.is-active").forEach((s) => s.classList.remove("is-active"));
  if (!input) return;
  const slot = input.closest(".slot");
  if (slot) slot.classList.add("is-active");
  updatePad(form, input);
}
function updatePad(form, input) {
  const slot = input && input.closest(".slot");
  const played = slot && slot.dataset.played ? slot.dataset.played.split(" ") : [];
  const allowed = slot && slot.dataset.allowed ? slot.dataset.allowed.split(" ") : null;
  form.querySelectorAll("[data-rank-pad] [data-rank]").forEach((button) => {
    const rank = button.dataset.rank;
    const blocked = played.indexOf(rank) >= 0 || (allowed !== null && allowed.indexOf(rank) < 0 && rank !== "X");
    button.setAttribute("aria-disabled", blocked ? "true" : "false");
  });
}
function needsSuit(input) { return input.hasAttribute("data-needs-suit"); }
function isRank(form, text) {
  const typed = String(text || "").trim().toUpperCase();
  if (!typed) return false;
  return Array.from(form.querySelectorAll("[data-rank-pad] [data-rank]")).some((button) =>
    button.dataset.rank.toUpperCase() === typed || button.textContent.trim().toUpperCase() === typed);
}
/** A typed rank is a whole card where suits do not count: the next empty slot takes the
    typing, and after the last one the Record button (Enter records). */
export function typedCard(form, input) {
  if (needsSuit(input) || slotsOf(form).length < 2 || !isRank(form, input.value)) return;
  const inputs = slotsOf(form).filter((i) => !i.disabled && !i.readOnly);
  const start = inputs.indexOf(input);
  for (let step = 1; step < inputs.length; step++) {
    const next = inputs[(start + step) % inputs.length];
    if (!next.value) { markActive(form, next); next.focus(); return; }
  }
  const record = document.querySelector('button[form="' + form.id + '"].primary') || form.querySelector("button[type=submit].primary");
  if (record) { markActive(form, null); record.focus(); }
}
function advance(form, input) {
  const inputs = slotsOf(form).filter((i) => !i.disabled && !i.readOnly);
  const start = inputs.indexOf(input);
  for (let step = 1; step <= inputs.length; step++) {
    const next = inputs[(start + step) % inputs.length];
    if (!next.value) { markActive(form, next); return; }
  }
  markActive(form, null);
  const msg = form.querySelector("[data-pad-msg]");
  if (msg && inputs.length > 1) msg.textContent = S.T.all_filled;
}
export function padClick(button) {
  const form = button.closest("form");
  const input = activeInput(form);
  if (!input) return;
  const msg = form.querySelector("[data-pad-msg]");
  if (msg) msg.textContent = "";
  const slot = input.closest(".slot");
  if (button.hasAttribute("data-clear")) {
    input.value = "";
    markActive(form, input);
    return;
  }
  if (button.getAttribute("aria-disabled") === "true") {
    if (msg) {
      const name = slot ? slot.dataset.playerName : "";
      const reason = slot && slot.dataset.reason;
      msg.textContent = reason ? fmt(S.T.not_allowed, { rank: button.textContent, name, reason })
        : fmt(S.T.already_played, { name, rank: button.textContent });
    }
    return;
  }
  const card = splitCard(input.value);
  if (button.dataset.rank != null) {
    card.rank = button.dataset.rank;
    // Only one card of that rank can come from this pile: the rank alone says which.
    const possible = slot && slot.dataset.possible ? slot.dataset.possible.split(" ") : [];
    const matching = possible.filter((text) => splitCard(text).rank === card.rank);
    if (matching.length === 1) card.suit = splitCard(matching[0]).suit;
  }
  if (button.dataset.suit != null) card.suit = button.dataset.suit;
  input.value = card.rank === "X" ? "X" : card.rank + card.suit;
  input.removeAttribute("aria-invalid");
  S.dirty = true;
  const complete = card.rank && (!needsSuit(input) || card.suit || card.rank === "X");
  if (complete && slotsOf(form).length > 1) advance(form, input);
  else markActive(form, input);
  if (roundComplete(form) !== null) cardsChanged(form);
}

// -- rounds: one more round of cards the referee asked for (a tie-break) ---------------------------
export function addRound(form, index, prefill, empty, possible, reason) {
  const rows = form.querySelector("[data-rounds]");
  if (rows.querySelector('[data-round="' + index + '"]')) return;
  const row = rows.querySelector('[data-round="0"]').cloneNode(true);
  row.dataset.round = String(index);
  row.querySelector("legend").textContent = fmt(S.T.tie_round, { n: index + 1 });  // as the referee counts
  row.querySelectorAll(".slot").forEach((slot, position) => {
    slot.classList.remove("is-active");
    slot.removeAttribute("data-allowed");
    if (possible[position]) slot.dataset.possible = possible[position];
    else slot.removeAttribute("data-possible");
    const input = slot.querySelector("[data-card-input]");
    const label = slot.querySelector("label");
    const id = "r" + index + "-" + position + "-" + input.id.split("-").pop();
    input.id = id;
    label.setAttribute("for", id);
    input.name = "f:rounds:round:" + index;
    input.value = prefill[position] || "";
    input.removeAttribute("aria-invalid");
    const note = slot.querySelector(".muted");
    if (note) note.remove();
    if (empty[position]) {
      input.readOnly = true;
      input.placeholder = "–";
      input.setAttribute("data-empty-ok", "");
      const span = document.createElement("span");
      span.className = "small muted";
      span.textContent = S.T.no_card;
      slot.appendChild(span);
    } else {
      input.readOnly = false;
      input.placeholder = "";
      input.removeAttribute("data-empty-ok");
    }
  });
  rows.appendChild(row);
  const msg = form.querySelector("[data-pad-msg]");
  if (msg && reason) msg.textContent = reason;
  const first = Array.from(row.querySelectorAll("[data-card-input]")).find((i) => !i.value && !i.readOnly);
  markActive(form, first || null);
}

// -- steppers ----------------------------------------------------------------------------------
// A stepper's buttons stay within the hand, but a value the scorer typed is never rewritten:
// an impossible count goes to the referee as typed and is refused beside its field.
function stepperBounds(input) {
  return { min: parseInt(input.dataset.min || "0", 10), max: parseInt(input.dataset.max || "99", 10) };
}
export function syncStepper(input) {
  const bounds = stepperBounds(input);
  const value = parseInt(input.value, 10);
  const row = input.closest(".stepper");
  if (row) {
    const down = row.querySelector('[data-step="-1"]');
    const up = row.querySelector('[data-step="1"]');
    if (down) down.disabled = input.readOnly || (!isNaN(value) && value <= bounds.min);
    if (up) up.disabled = input.readOnly || (!isNaN(value) && value >= bounds.max);
  }
}
export function step(button) {
  const input = document.getElementById(button.getAttribute("aria-controls"));
  if (!input || input.readOnly) return;
  const bounds = stepperBounds(input);
  let value = parseInt(input.value, 10);
  if (isNaN(value)) value = bounds.min;
  else value += parseInt(button.dataset.step, 10);
  // A tap moves towards the possible range, even from a typed value outside it.
  input.value = String(Math.max(bounds.min, Math.min(bounds.max, value)));
  syncStepper(input);
  S.dirty = true;
  input.dispatchEvent(new Event("change", { bubbles: true }));
}

// -- a seat's count locked at 0 --------------------------------------------------------------------
// The seat that went out (or emptied its hand) holds 0 cards: its field shows 0 and is locked.
// Only a 0 put there this way is lifted when that seat changes; a value typed is kept as typed.
// `seat`: the seat chosen in the form (null: none); `zero`: whether that seat holds 0.
export function zeroSeat(form, seat, zero) {
  form.querySelectorAll("[data-count-seat]").forEach((input) => {
    const mine = seat !== null && input.dataset.countSeat === String(seat);
    if (mine && zero) {
      if (!input.hasAttribute("data-auto-zero")) input.dataset.typed = input.value;
      input.dataset.min = "0";
      input.value = "0";
      input.readOnly = true;
      input.setAttribute("data-auto-zero", "");
    } else {
      input.dataset.min = "1";
      input.readOnly = false;
      if (input.hasAttribute("data-auto-zero")) {
        input.value = input.dataset.typed || "1";
        input.removeAttribute("data-auto-zero");
        delete input.dataset.typed;
      }
    }
    syncStepper(input);
  });
}

/** Bring every form of the live part to its starting look (after each swap or redraw). */
export function setupForms(root) {
  root.querySelectorAll("form[data-slots]").forEach((form) => markActive(form, activeInput(form)));
  root.querySelectorAll(".stepper input").forEach(syncStepper);
  root.querySelectorAll("form[data-entry]").forEach(syncForm);
}
