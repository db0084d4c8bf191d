/* drafts.js over queue.js's drafts (an in-memory IndexedDB): a half-entered Velnias ending
   survives a reload, values set by the pads are saved, hidden fields never are, a recorded
   entry's draft goes and does not come back, a draft typed against an older seq is kept but
   not put into the next form. The real page's markup (steppers, card slots, Elgeta's rounds)
   is tested in Chromium by tests/browser/test_table_modules.py. */
import { test } from "node:test";
import assert from "node:assert/strict";
// The browser's IndexedDB classes as globals: idb (the queue's plumbing) recognises requests by them.
import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";

import { openQueue, newClientDealId } from "../../../static/js/offline/queue.js";
import {
  draftStore, storageStore, attachDrafts, restoreDraft, clearDraft, readForm, writeForm, RESTORED_EVENT,
} from "../../../static/js/table/drafts.js";

/** A form as drafts.js reads it: elements with name, type, value, checked, readOnly, dataset. */
class FakeForm extends EventTarget {
  constructor(elements, doc = new EventTarget()) {
    super();
    this.ownerDocument = doc;
    this.isConnected = true;
    this.elements = elements.map((el) => ({ checked: false, readOnly: false, dataset: {}, value: "", ...el }));
    this.events = [];
    this.addEventListener(RESTORED_EVENT, (event) => this.events.push(event.detail));
  }
  contains(node) { return node === this || this.elements.includes(node); }
  field(name, i = 0) { return this.elements.filter((el) => el.name === name)[i]; }
  radio(name, value) { return this.elements.find((el) => el.name === name && el.value === value); }
  /** The scorer changes a field: its value, then the events a browser fires. */
  type(el, value) {
    el.value = value;
    this.dispatchEvent(new Event("input"));
    this.dispatchEvent(new Event("change"));
  }
  choose(name, value) {
    this.elements.filter((el) => el.name === name).forEach((el) => { el.checked = el.value === value; });
    this.dispatchEvent(new Event("change"));
  }
  /** A pad's button: the screen sets the value itself, no input event; the click reaches the document. */
  tap(el, value) {
    el.value = value;
    const click = new Event("click");
    Object.defineProperty(click, "target", { value: el });
    this.ownerDocument.dispatchEvent(click);
  }
}

function velniasForm({ seq = 0 } = {}) {
  return new FakeForm([
    { name: "csrfmiddlewaretoken", type: "hidden", value: "token-of-this-page" },
    { name: "idempotency_key", type: "hidden", value: "key-of-this-page" },
    { name: "expected_seq", type: "hidden", value: String(seq) },
    { name: "f:type:str", type: "hidden", value: "end" },
    ...["empty_hand", "last_card", "blocked"].map((value) => ({ name: "f:condition:str", type: "radio", value })),
    ...["0", "1", "2", "3"].map((value) => ({ name: "f:player:int", type: "radio", value })),
    ...[0, 1, 2, 3].map((seat) => ({ name: "f:hand_counts:ints", type: "number", value: "1", dataset: { countSeat: String(seat) } })),
    { name: "action", type: "submit", value: "record" },
  ]);
}

async function device(indexedDB = new IDBFactory()) {
  const queue = await openQueue({ indexedDB, name: "table" });
  return { queue, store: draftStore(queue), indexedDB };
}

const KEY = { deal: 41, form: "form-end" };

test("a half-entered Velnias ending survives a reload; hidden fields are the new page's", async () => {
  const first = await device();
  const form = velniasForm();
  assert.deepEqual(await restoreDraft(form, { store: first.store, key: KEY }), { restored: false, reason: "none", data: null });
  const draft = attachDrafts(form, { store: first.store, key: KEY });
  form.choose("f:condition:str", "empty_hand");
  form.choose("f:player:int", "2");
  form.type(form.field("f:hand_counts:ints", 0), "3");
  form.type(form.field("f:hand_counts:ints", 3), "7");
  await draft.flush();
  draft.detach();
  first.queue.close();

  // The reload: a new page (fresh hidden fields), a new queue over the same database.
  const again = await device(first.indexedDB);
  const fresh = velniasForm();
  fresh.field("idempotency_key").value = "key-of-the-new-page";
  const answer = await restoreDraft(fresh, { store: again.store, key: KEY });
  assert.equal(answer.restored, true);
  assert.deepEqual(answer.missing, []);
  assert.equal(fresh.radio("f:condition:str", "empty_hand").checked, true);
  assert.equal(fresh.radio("f:condition:str", "blocked").checked, false);
  assert.equal(fresh.radio("f:player:int", "2").checked, true);
  assert.deepEqual([0, 1, 2, 3].map((i) => fresh.field("f:hand_counts:ints", i).value), ["3", "1", "1", "7"]);
  assert.equal(fresh.field("idempotency_key").value, "key-of-the-new-page");
  assert.equal(fresh.field("csrfmiddlewaretoken").value, "token-of-this-page");
  assert.deepEqual(fresh.events, [{ key: KEY, names: ["f:condition:str", "f:player:int", "f:hand_counts:ints"], missing: [] }]);
  const stored = await again.queue.loadDraft(41, "form-end");
  assert.deepEqual(Object.keys(stored.fields), ["f:condition:str", "f:player:int", "f:hand_counts:ints"]);
});

test("values the pads set without an input event are saved on the click", async () => {
  const { store, queue } = await device();
  const form = new FakeForm(["card-0", "card-1", "card-2"].map((id) => ({ name: "f:cards:strs", type: "text", id })));
  const draft = attachDrafts(form, { store, key: { deal: 7, form: "form-trick" } });
  form.tap(form.field("f:cards:strs", 0), "3");
  form.tap(form.field("f:cards:strs", 1), "9");
  await draft.flush();
  assert.deepEqual((await queue.loadDraft(7, "form-trick")).fields, { "f:cards:strs": { values: ["3", "9", ""] } });
  // A click elsewhere on the page is not this form's business.
  const elsewhere = new Event("click");
  Object.defineProperty(elsewhere, "target", { value: { name: "other" } });
  form.field("f:cards:strs", 2).value = "V";
  form.ownerDocument.dispatchEvent(elsewhere);
  await draft.flush();
  assert.deepEqual((await queue.loadDraft(7, "form-trick")).fields["f:cards:strs"].values, ["3", "9", ""]);
});

test("an untouched form saves nothing; recorded, the draft goes and the same values are not saved again", async () => {
  const { store, queue } = await device();
  const form = velniasForm();
  const draft = attachDrafts(form, { store, key: KEY });
  form.dispatchEvent(new Event("change"));  // nothing changed
  await draft.flush();
  assert.equal(await queue.loadDraft(41, "form-end"), null);

  form.choose("f:condition:str", "blocked");
  await clearDraft({ store, key: KEY });  // the entry is recorded as the form shows it
  assert.equal(await queue.loadDraft(41, "form-end"), null);
  form.dispatchEvent(new Event("change"));  // a late event: still the recorded values
  await draft.flush();
  assert.equal(await queue.loadDraft(41, "form-end"), null);
  // The screen set a value without an event (an undo put an entry back) and it was recorded
  // as it stood: a later event must not save the recorded values as a draft either.
  form.field("f:hand_counts:ints", 1).value = "6";
  await clearDraft({ store, key: KEY });
  form.dispatchEvent(new Event("input"));
  await draft.flush();
  assert.equal(await queue.loadDraft(41, "form-end"), null);
  form.choose("f:condition:str", "last_card");  // a new entry begins: a draft again
  await draft.flush();
  assert.equal((await queue.loadDraft(41, "form-end")).fields["f:condition:str"].radio, "last_card");
  await clearDraft(form, { store, key: KEY });  // the (form, options) spelling works too
  assert.equal(await queue.loadDraft(41, "form-end"), null);
});

test("a clear asked right after a save lands after it", async () => {
  const { store, queue } = await device();
  const form = velniasForm();
  attachDrafts(form, { store, key: KEY });
  form.choose("f:condition:str", "blocked");   // its write is in flight
  await clearDraft({ store, key: KEY });
  assert.equal(await queue.loadDraft(41, "form-end"), null);
});

test("a draft typed against an older seq is kept but not put into the next entry's form", async () => {
  const { store, queue } = await device();
  const form = new FakeForm([
    { name: "expected_seq", type: "hidden", value: "4" },
    ...[0, 1].map(() => ({ name: "f:cards:strs", type: "text" })),
  ]);
  const draft = attachDrafts(form, { store, key: { deal: 7, form: "form-trick" } });
  form.type(form.field("f:cards:strs", 0), "K");
  await draft.flush();
  assert.equal((await queue.loadDraft(7, "form-trick")).seq, 4);

  const moved = new FakeForm([
    { name: "expected_seq", type: "hidden", value: "5" },
    ...[0, 1].map(() => ({ name: "f:cards:strs", type: "text" })),
  ]);
  const answer = await restoreDraft(moved, { store, key: { deal: 7, form: "form-trick" } });
  assert.equal(answer.restored, false);
  assert.equal(answer.reason, "stale");
  assert.deepEqual(answer.data.fields["f:cards:strs"].values, ["K", ""]);
  assert.equal(moved.field("f:cards:strs", 0).value, "");
  assert.notEqual(await queue.loadDraft(7, "form-trick"), null, "kept: nothing entered is dropped");
  // The screen may put it back anyway (the seq it rendered is older than the queue's).
  assert.equal((await restoreDraft(moved, { store, key: { deal: 7, form: "form-trick" }, ignoreSeq: true })).restored, true);
  assert.equal(moved.field("f:cards:strs", 0).value, "K");
  // An explicit seq beats the form's field.
  const same = await restoreDraft(moved, { store, key: { deal: 7, form: "form-trick" }, seq: 4 });
  assert.equal(same.restored, true);
});

test("a count the screen locked at 0 keeps what the scorer had typed; a locked field is not overwritten", () => {
  const form = velniasForm();
  const count = form.field("f:hand_counts:ints", 2);
  Object.assign(count, { value: "0", readOnly: true, dataset: { typed: "5", countSeat: "2" } });
  assert.deepEqual(readForm(form).fields["f:hand_counts:ints"].values, ["1", "1", "5", "1"]);
  const fresh = velniasForm();
  fresh.field("f:hand_counts:ints", 1).readOnly = true;
  fresh.field("f:hand_counts:ints", 1).value = "0";
  writeForm(fresh, { fields: { "f:hand_counts:ints": { values: ["4", "6", "5", "2"] } } });
  assert.deepEqual([0, 1, 2, 3].map((i) => fresh.field("f:hand_counts:ints", i).value), ["4", "0", "5", "2"]);
});

test("a field the new page lacks is reported missing and kept; a tie-break round is grown", async () => {
  const { store, queue } = await device();
  await queue.saveDraft(9, "form-trick", {
    version: 1, seq: null, fields: {
      "f:rounds:round:0": { values: ["AS", "AH", "3C"] },
      "f:rounds:round:1": { values: ["KD", "", "–"] },
      "f:player:int": { radio: "6" },
      "f:gone:str": { values: ["x"] },
    },
  });
  const form = new FakeForm([0, 1, 2].map(() => ({ name: "f:rounds:round:0", type: "text" })).concat(
    ["0", "1", "2"].map((value) => ({ name: "f:player:int", type: "radio", value }))));
  const grown = [];
  const grow = (name, values, target) => {
    grown.push([name, values]);
    if (name !== "f:rounds:round:1") return false;
    target.elements.push(...values.map(() => ({ name, type: "text", value: "", readOnly: false, dataset: {} })));
    return true;
  };
  const answer = await restoreDraft(form, { store, key: { deal: 9, form: "form-trick" }, grow });
  assert.deepEqual(grown, [["f:rounds:round:1", ["KD", "", "–"]], ["f:gone:str", ["x"]]]);
  assert.deepEqual(answer.missing, ["f:player:int", "f:gone:str"]);
  assert.deepEqual(form.elements.filter((el) => el.name.startsWith("f:rounds")).map((el) => el.value),
    ["AS", "AH", "3C", "KD", "", "–"]);
  assert.ok(form.elements.filter((el) => el.name === "f:player:int").every((el) => !el.checked));
  assert.notEqual(await queue.loadDraft(9, "form-trick"), null);
});

test("a deal started offline: its draft follows the deal to the server's id", async () => {
  const { store, queue } = await device();
  const client = newClientDealId();
  await queue.enqueue({ kind: "deal_start", deal: client, session: 3 });
  const form = velniasForm();
  const draft = attachDrafts(form, { store, key: { deal: client, form: "form-end" } });
  form.choose("f:condition:str", "last_card");
  await draft.flush();
  await queue.dealAccepted(client, 77);
  const fresh = velniasForm();
  assert.equal((await restoreDraft(fresh, { store, key: { deal: 77, form: "form-end" } })).restored, true);
  assert.equal(fresh.radio("f:condition:str", "last_card").checked, true);
});

test("without IndexedDB a draft lives in localStorage", async () => {
  const items = new Map();
  const storage = {
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => items.set(k, String(v)),
    removeItem: (k) => items.delete(k),
  };
  const store = storageStore(storage);
  const form = velniasForm();
  const draft = attachDrafts(form, { store, key: KEY });
  form.choose("f:player:int", "1");
  await draft.flush();
  assert.deepEqual([...items.keys()], ['kortos-draft:[41,"form-end"]']);
  const fresh = velniasForm();
  assert.equal((await restoreDraft(fresh, { store, key: KEY })).restored, true);
  assert.equal(fresh.radio("f:player:int", "1").checked, true);
  await clearDraft({ store, key: KEY });
  assert.equal(items.size, 0);
});

test("a failed write is reported, and later writes still go", async () => {
  const errors = [];
  let fail = true;
  const written = [];
  const store = {
    get: async () => null,
    put: async (key, data) => { if (fail) { fail = false; throw new Error("QuotaExceededError"); } written.push(data); },
    delete: async () => {},
  };
  const form = velniasForm();
  const draft = attachDrafts(form, { store, key: KEY, onError: (e) => errors.push(e.message) });
  form.choose("f:player:int", "0");
  form.choose("f:player:int", "3");
  await draft.flush();
  assert.deepEqual(errors, ["QuotaExceededError"]);
  assert.equal(written.at(-1).fields["f:player:int"].radio, "3");
});

test("a bad key is told at once", () => {
  const form = velniasForm();
  assert.throws(() => attachDrafts(form, { store: {}, key: { deal: 0, form: "x" } }), /names its deal/);
  assert.throws(() => attachDrafts(form, { store: {}, key: { deal: 3 } }), /names its form/);
  assert.throws(() => attachDrafts(form, { store: {}, key: null }), /\{deal, form\}/);
});
