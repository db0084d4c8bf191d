/* Drafts: a half-entered entry form survives a reload, online or offline. One job: keep what
   the scorer typed or tapped in a form (every input, the radios, the steppers' counts, the
   card slots, the tie-break rounds a referee asked for) until the entry is recorded.

     import { draftStore, attachDrafts, restoreDraft, clearDraft } from "/static/js/table/drafts.js";
     const store = draftStore(queue);                 // queue.js's drafts, per deal and form
     const key = { deal: dealId, form: form.id };     // dealId: the server's id or a client id
     await restoreDraft(form, { store, key });        // first put back what was there...
     const draft = attachDrafts(form, { store, key }); // ...then save on every change
     // the entry is recorded (sent, or in the queue): the draft goes
     await clearDraft({ store, key });

   The draft is saved on every `input` and `change` in the form and after every click inside
   it (the rank and suit pads and the steppers' buttons set values without an input event; a
   listener on the document hears the click after the screen's own handler has set them).
   Hidden fields (the CSRF token, the form's idempotency key, expected_seq, the entry type) are
   never saved: a restored form gets fresh ones from the page.

   A draft remembers the deal's seq it was typed against (the form's expected_seq, or the
   `seq` option). When the deal has moved on since (another device recorded, or the entry was
   recorded after all), restoreDraft does not put it back into the next trick's form: it
   answers {restored: false, reason: "stale", data} and keeps it, so the screen may say so.

   After a restore the form gets one bubbling "kortos:draft-restored" event (detail: {key,
   names, missing}); the screen re-derives what follows from the values (the steppers'
   limits, the caller's locked count, the preview). A tie-break round the form does not show
   yet is added by `grow(name, values, form)` (default: a copy of round 1's row, numbered). */

const VERSION = 1;
const SKIPPED_TYPES = new Set(["hidden", "submit", "button", "reset", "image", "file", "password"]);
const ROUND_NAME = /^f:rounds:round:(\d+)$/;
export const RESTORED_EVENT = "kortos:draft-restored";

// Attached forms by key, so that clearDraft (called by whoever recorded the entry) also tells
// the form's saver that what it shows now is recorded, not a draft to save again.
const attached = new Map();

function keyOf(key) {
  const value = typeof key === "function" ? key() : key;
  if (!value || typeof value !== "object") throw new Error("A draft's key is {deal, form}.");
  const { deal, form } = value;
  if (!((Number.isInteger(deal) && deal > 0) || (typeof deal === "string" && deal.length > 0))) {
    throw new Error("A draft's key names its deal: the server's id or the tablet's client id.");
  }
  if (typeof form !== "string" || form.length === 0) throw new Error("A draft's key names its form (its id).");
  return { deal, form };
}

function keyText({ deal, form }) {
  return JSON.stringify([deal, form]);
}

/** A draft store over queue.js's drafts (IndexedDB: survives reloads and a closed tab). */
export function draftStore(queue) {
  return {
    get: (key) => queue.loadDraft(key.deal, key.form),
    put: (key, data) => queue.saveDraft(key.deal, key.form, data),
    delete: (key) => queue.clearDraft(key.deal, key.form),
  };
}

/** A draft store over localStorage, for a browser where the queue cannot open (no IndexedDB):
    a draft still survives a reload there. */
export function storageStore(storage = globalThis.localStorage, prefix = "kortos-draft:") {
  return {
    async get(key) {
      const text = storage.getItem(prefix + keyText(key));
      return text === null ? null : JSON.parse(text);
    },
    async put(key, data) { storage.setItem(prefix + keyText(key), JSON.stringify(data)); },
    async delete(key) { storage.removeItem(prefix + keyText(key)); },
  };
}

function fields(form) {
  return Array.from(form.elements || []).filter((el) => el.name && !SKIPPED_TYPES.has(el.type)
    && el.name !== "csrfmiddlewaretoken");
}

function named(form, name) {
  return fields(form).filter((el) => el.name === name);
}

function formSeq(form, seq) {
  const given = typeof seq === "function" ? seq() : seq;
  if (Number.isInteger(given)) return given;
  const input = Array.from(form.elements || []).find((el) => el.name === "expected_seq");
  const value = input ? parseInt(input.value, 10) : NaN;
  return Number.isInteger(value) ? value : null;
}

/** What the form holds now: {version, seq, fields: {name: {radio} | {checked} | {values}}}. */
export function readForm(form, { seq } = {}) {
  const data = {};
  for (const el of fields(form)) {
    if (el.type === "radio") {
      const entry = (data[el.name] ??= { radio: null });
      if (el.checked) entry.radio = el.value;
    } else if (el.type === "checkbox") {
      (data[el.name] ??= { checked: [] }).checked.push(Boolean(el.checked));
    } else {
      // A value the screen locked (the caller's count shown as 0) keeps what the scorer had
      // typed in data-typed: that is what they entered.
      const typed = el.readOnly && el.dataset && el.dataset.typed !== undefined ? el.dataset.typed : el.value;
      (data[el.name] ??= { values: [] }).values.push(typed == null ? "" : String(typed));
    }
  }
  return { version: VERSION, seq: formSeq(form, seq), fields: data };
}

/** A tie-break round the form does not show yet: a copy of round 1's row, numbered. */
export function growRound(name, values, form) {
  const match = ROUND_NAME.exec(name);
  const rows = form.querySelector && form.querySelector("[data-rounds]");
  const first = rows && rows.querySelector('[data-round="0"]');
  if (!match || !first) return false;
  const index = Number(match[1]);
  for (let missing = rows.querySelectorAll("[data-round]").length; missing <= index; missing += 1) {
    if (rows.querySelector(`[data-round="${missing}"]`)) continue;
    const row = first.cloneNode(true);
    row.dataset.round = String(missing);
    const legend = row.querySelector("legend");
    if (legend) legend.textContent = roundLegend(form, missing);
    row.querySelectorAll("[data-card-input]").forEach((input, position) => {
      const id = `r${missing}-${position}-draft`;
      const label = row.querySelector(`label[for="${input.id}"]`);
      if (label) label.setAttribute("for", id);
      input.id = id;
      input.name = `f:rounds:round:${missing}`;
      input.value = "";
      input.readOnly = false;
      input.removeAttribute("placeholder");
      input.removeAttribute("data-empty-ok");
      input.removeAttribute("aria-describedby");
    });
    row.querySelectorAll(".slot .muted").forEach((note) => note.remove());
    rows.appendChild(row);
  }
  return true;
}

function roundLegend(form, index) {
  // As the referee counts them ("Round 2: tie-break"), from the page's sentences.
  try {
    const i18n = JSON.parse(form.ownerDocument.getElementById("i18n").textContent);
    if (i18n.tie_round) return i18n.tie_round.replace("%(n)s", String(index + 1));
  } catch (error) { /* no sentences on this page: English */ }
  return `Round ${index + 1}: tie-break`;
}

/** Put `data` (from readForm) into the form; returns {names, missing}: the fields put back,
    and those the form has no place for (kept in the draft, never dropped). */
export function writeForm(form, data, { grow = growRound } = {}) {
  const names = [];
  const missing = [];
  for (const [name, saved] of Object.entries((data && data.fields) || {})) {
    let els = named(form, name);
    if (saved.values && els.length < saved.values.length && grow && grow(name, saved.values, form)) {
      els = named(form, name);
    }
    if (els.length === 0) { missing.push(name); continue; }
    if ("radio" in saved) {
      const choice = els.find((el) => el.value === saved.radio);
      if (saved.radio !== null && !choice) { missing.push(name); continue; }
      els.forEach((el) => { el.checked = el === choice; });
    } else if (saved.checked) {
      els.forEach((el, i) => { if (i < saved.checked.length) el.checked = saved.checked[i]; });
    } else {
      // A field the page locked (a slot with no card to add) keeps the page's value.
      els.forEach((el, i) => { if (i < saved.values.length && !el.readOnly) el.value = saved.values[i]; });
      if (els.length < saved.values.length) missing.push(name);
    }
    names.push(name);
  }
  return { names, missing };
}

/** Put the saved draft back into the form. {restored: true, names, missing, data} or
    {restored: false, reason: "none" | "stale", data}. */
export async function restoreDraft(form, { store, key, seq, grow, ignoreSeq = false } = {}) {
  const where = keyOf(key);
  const data = await store.get(where);
  if (!data || data.version !== VERSION || !data.fields) return { restored: false, reason: "none", data: null };
  const now = formSeq(form, seq);
  if (!ignoreSeq && data.seq !== null && now !== null && data.seq !== now) {
    return { restored: false, reason: "stale", data };
  }
  const { names, missing } = writeForm(form, data, { grow });
  const handle = attached.get(keyText(where));
  if (handle && handle.form === form) handle.rebase();
  const CustomEventClass = (form.ownerDocument && form.ownerDocument.defaultView
    && form.ownerDocument.defaultView.CustomEvent) || globalThis.CustomEvent;
  form.dispatchEvent(new CustomEventClass(RESTORED_EVENT, { bubbles: true, detail: { key: where, names, missing } }));
  return { restored: true, names, missing, data };
}

/** The entry was recorded: its draft goes. Takes {store, key}, or (form, {store, key}). */
export async function clearDraft(first, second) {
  const { store, key } = first && first.store ? first : second || {};
  const where = keyOf(key);
  const handle = attached.get(keyText(where));
  if (handle) {
    handle.rebase();
    await handle.flush();
  }
  await store.delete(where);
}

/** Save the form's draft on every change; returns {save, flush, detach}. Call after
    restoreDraft: what the form shows when attached is not saved until something changes. */
export function attachDrafts(form, { store, key, seq, onError = () => {} } = {}) {
  keyOf(key);  // a bad key is told now, not at the first keystroke
  const doc = form.ownerDocument;
  let last = JSON.stringify(readForm(form, { seq }).fields);
  let writing = Promise.resolve();
  let current = null;

  function save() {
    if (form.isConnected === false) { handle.detach(); return writing; }
    const data = readForm(form, { seq });
    const text = JSON.stringify(data.fields);
    if (text === last) return writing;
    last = text;
    // Issued at once, not after the previous write: both stores keep their writes in the
    // order they were asked for (IndexedDB transactions over one store run in order), so a
    // clearDraft asked after this save also lands after it.
    let put;
    try { put = Promise.resolve(store.put(keyOf(key), data)); } catch (error) { put = Promise.reject(error); }
    writing = Promise.all([writing, put.catch((error) => onError(error))]).then(() => undefined);
    return writing;
  }
  const onEdit = () => { save(); };
  const onClick = (event) => {
    if (event.target && (event.target === form || (form.contains && form.contains(event.target)))) save();
  };
  form.addEventListener("input", onEdit);
  form.addEventListener("change", onEdit);
  if (doc) doc.addEventListener("click", onClick);

  const handle = {
    form,
    save,
    /** Resolves once every save so far is written. */
    flush: () => writing,
    /** What the form shows now is not a draft (just recorded, or just restored). */
    rebase() { last = JSON.stringify(readForm(form, { seq }).fields); },
    detach() {
      form.removeEventListener("input", onEdit);
      form.removeEventListener("change", onEdit);
      if (doc) doc.removeEventListener("click", onClick);
      if (current !== null && attached.get(current) === handle) attached.delete(current);
    },
  };
  current = keyText(keyOf(key));
  const before = attached.get(current);
  if (before && before !== handle) before.detach();
  attached.set(current, handle);
  return handle;
}
