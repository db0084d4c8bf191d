/* The entry a form holds, read from its field names (the server's payload_from_form reads the
   same names), and the way back: an entry's values put into the form it came from (undo, a
   refused offline entry, a draft). */

import { S } from "./shared.js";
import { activeInput, addRound, markActive, syncStepper } from "./pad.js";
import { syncForm } from "./room.js";

function intOrText(value) {
  const text = String(value).trim();
  if (text === "") return null;
  return /^-?\d+$/.test(text) ? parseInt(text, 10) : text;
}

/** The entry's payload: "f:<field>:<kind>[:<round>]" names say where each value goes. */
export function payloadFrom(form) {
  const payload = {};
  const rounds = {};
  const byName = {};
  const order = [];
  new FormData(form).forEach((value, name) => {
    if (!(name in byName)) { byName[name] = []; order.push(name); }
    byName[name].push(String(value));
  });
  order.forEach((name) => {
    if (name.indexOf("f:") !== 0) return;
    const parts = name.split(":");
    const field = parts[1], kind = parts[2], values = byName[name];
    const lastValue = values[values.length - 1];
    if (kind === "str") payload[field] = lastValue.trim();
    else if (kind === "int") payload[field] = intOrText(lastValue);
    else if (kind === "ints") payload[field] = values.map(intOrText);
    else if (kind === "strs") payload[field] = values.map((v) => v.trim());
    else if (kind === "round" && /^\d+$/.test(parts[3] || "")) {
      (rounds[field] = rounds[field] || {})[parseInt(parts[3], 10)] = values.map((v) => v.trim() || null);
    }
  });
  Object.keys(rounds).forEach((field) => {
    payload[field] = Object.keys(rounds[field]).map(Number).sort((a, b) => a - b).map((i) => rounds[field][i]);
  });
  return payload;
}

/** The entry form of the live part for an entry type ("trick", "end", ...). */
export function formFor(type) {
  return Array.from(S.liveBox.querySelectorAll("form[data-entry]")).find((f) => {
    const kind = f.querySelector('input[name="f:type:str"]');
    return kind && kind.value === type;
  }) || null;
}

/** Put an entry's values back in the form it came from, to fix and resend. */
export function restoreForm(payload, { afterChange = () => {} } = {}) {
  if (!payload || typeof payload !== "object" || !payload.type) return null;
  const form = formFor(payload.type);
  if (!form) return null;
  const details = form.closest("details");
  if (details) details.open = true;
  Object.keys(payload).forEach((field) => {
    if (field === "type") return;
    const value = payload[field];
    const prefix = 'input[name^="f:' + field + ':"]';
    const radios = form.querySelectorAll(prefix + "[type=radio]");
    if (radios.length) {
      radios.forEach((r) => { r.checked = value != null && r.value === String(value); });
      return;
    }
    if (field === "rounds" && Array.isArray(value)) { restoreRounds(form, value); return; }
    const values = Array.isArray(value) ? value : [value];
    const inputs = Array.from(form.querySelectorAll(prefix)).filter((i) => i.type !== "hidden");
    inputs.forEach((input, i) => {
      if (i < values.length && !input.readOnly) input.value = values[i] == null ? "" : String(values[i]);
    });
  });
  S.dirty = true;
  form.querySelectorAll(".stepper input").forEach(syncStepper);
  syncForm(form);
  if (form.hasAttribute("data-slots")) markActive(form, activeInput(form));
  afterChange(form);
  return form;
}

function restoreRounds(form, rounds) {
  rounds.forEach((cards, index) => {
    if (!Array.isArray(cards)) return;
    const row = form.querySelector('[data-round="' + index + '"]');
    if (!row) {
      addRound(form, index, cards, cards.map((c) => c == null), [], null);
      return;
    }
    row.querySelectorAll("[data-card-input]").forEach((input, i) => {
      if (i < cards.length && !input.readOnly) input.value = cards[i] == null ? "" : String(cards[i]);
    });
  });
}
