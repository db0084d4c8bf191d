/* Recording online: the forms drive the JSON API (POST /api/deals/{id}/entries/) instead of
   posting the page. Every entry gets its idempotency key when it is created here and goes into
   the device's queue (offline/queue.js, the one outbox) before anything is sent; the sync
   (offline/sync.js, the one retry loop) sends it, so a failed request, a reload or a dropped
   connection resends the very same entry (the server answers a repeated key with the stored
   entry, never twice). An entry recorded online carries no verdict of the device: the sync
   hands its news back here (`screenHooks`), and this screen says what is happening (saving,
   saved, retrying, offline) and puts a refusal beside its form. When the network fails twice
   in a row and the tablet's engine is ready, the offline path (offline.js) takes the entry
   over: it referees it on the device and adds the verdict to the queued record. */

import { S, dealUrl, fmt, newKey, post, seq, setSync } from "./shared.js";
import { newClientDealId } from "../offline/queue.js";
import { payloadFrom, restoreForm } from "./form.js";
import { clearErrors, showError } from "./errors.js";
import { refresh, showVerdict } from "./live.js";
import { recorded } from "./draft-forms.js";

// The offline path, once it can referee on this device (offline.js sets it):
//   active() -> true when entries should go to the device's queue now,
//   record(form, payload) -> records one entry on the device,
//   takeOver(record) -> a promise of true once a queued online entry is refereed there,
//   nextDeal(form, client) -> true when it started the next deal on the device (with that client id),
//   learnStored(payload, key) -> draws an entry the server stored when its new screen did not come,
//   undo(form, {afterChange, online}) -> true when it takes the undo (online(): the server's).
let offline = null;
export function useOfflinePath(path) { offline = path; }
// What follows an entry, undo or deal start the server confirmed (offline.js: the sync line's time).
let saved = () => {};
export function onSaved(hook) { saved = hook; }
// What undo's restore does after putting values back (screen.js: a form's preview).
let restored = () => {};
export function onRestore(hook) { restored = hook; }

// The outbox: offline.js hands over enqueue(entry) once the device's queue and its sync run,
// or null when this browser keeps no queue (then an entry is sent once, and kept in its form).
let outboxReady;
const outbox = new Promise((resolve) => { outboxReady = resolve; });
export function useOutbox(box) { outboxReady(box); }

// The keys of entries recorded on this page (one kept from before a reload is "resent").
const mine = new Set();

export function submitEntry(form) {
  if (offline && offline.active()) { clearErrors(); offline.record(form, payloadFrom(form)); return; }
  if (S.sending) return;
  clearErrors();
  const entry = { form: form.id, payload: payloadFrom(form), key: newKey(), expected_seq: seq() };
  mine.add(entry.key);
  S.sending = true;
  S.localChanges += 1;
  setSync("saving", S.T.saving);
  outbox.then((box) => (box ? box.enqueue(entry) : Promise.reject(new Error("no queue"))))
    .catch(() => sendOnce(entry));
}

/** What the sync tells this screen of the entries recorded online (sync.js's `screen`). */
export const screenHooks = {
  mine: (record) => record.deal === Number(S.dealId),
  sending(record, attempt) {
    S.sending = true;
    S.localChanges += 1;
    if (attempt === 1 && !mine.has(record.key)) {
      S.syncLine.dataset.state = "retrying";
      delete S.syncLine.dataset.line;
      S.syncLine.textContent = S.T.resending;
    } else if (attempt === 1) {
      setSync("saving", S.T.saving);
    }
  },
  stored(record) { stored(record); },
  refused(record, status, data) { refused(record, status, data); },
  retrying(record, { status, offline: down }) {
    if (!S.sending) return;  // taken over by the device meanwhile: its line is the sync's
    const message = status ? fmt(S.T.server_error, { status }) : (down ? S.T.offline : S.T.retrying);
    setSync(down ? "offline" : "retrying", message);
  },
  takeOver(record) {
    if (!offline) return Promise.resolve(false);
    return offline.takeOver(record).then((taken) => {
      if (taken) S.sending = false;
      return taken;
    });
  },
};

function stored(entry) {
  recorded(Number(S.dealId), entry.form);
  S.sending = false;
  S.dirty = false;
  setSync("saved", S.T.saved);
  saved(entry.key);
  return refresh().then((swapped) => {
    // Stored, but the new screen did not come (the network went meanwhile): the tablet's
    // own referee draws what the server now holds.
    if (!swapped && offline && offline.learnStored) return offline.learnStored(entry.payload, entry.key).then(showVerdict);
    return showVerdict();
  });
}

// Refused (400), not allowed (403/404) or stale (409): nothing was stored.
function refused(entry, status, data) {
  S.sending = false;
  setSync("error", "");
  const message = (data && data.error) || ("HTTP " + status);
  if (status === 409) return refresh().then(() => { showError(entry.form, message); });
  showError(entry.form, message);
  return undefined;
}

/** Without a device queue (storage refused): one request; unsent, the values stay in the form. */
function sendOnce(entry) {
  const body = { ...entry.payload, idempotency_key: entry.key, expected_seq: entry.expected_seq };
  post(S.screen.dataset.apiEntries, body).then((result) => {
    if (result.status === 200 || result.status === 201) return stored(entry);
    if (result.status < 500 && result.status !== 429) return refused(entry, result.status, result.data);
    throw new Error("HTTP " + result.status);
  }).catch(() => {
    S.sending = false;
    restoreForm(entry.payload, { afterChange: restored });
    setSync("error", "");
    showError(entry.form, S.T.unsent);
  });
}

export function undo(form) {
  if (offline && offline.active() && offline.undo(form, { afterChange: restored, online: () => undoOnline(form) })) return;
  undoOnline(form);
}

function undoOnline(form) {
  if (S.sending) return;
  clearErrors();
  S.sending = true;
  S.localChanges += 1;
  setSync("saving", S.T.undoing);
  let undone = null;
  try { undone = JSON.parse(form.dataset.payload || "null"); } catch (e) { undone = null; }
  post(S.screen.dataset.apiUndo, { expected_seq: seq() }).then((result) => {
    S.sending = false;
    if (result.status === 200) {
      setSync("saved", S.T.undone);
      saved();
      return refresh().then(() => { restoreForm(undone, { afterChange: restored }); });
    }
    setSync("error", "");
    const message = (result.data && result.data.error) || ("HTTP " + result.status);
    if (result.status === 409) return refresh().then(() => { showError("form-undo", message); });
    showError("form-undo", message);
    return undefined;
  }).catch(() => {
    S.sending = false;
    setSync("error", S.T.retrying);
    showError("form-undo", S.T.offline);
  });
}

export function nextDeal(form) {
  // The deal's client id is made here, once: whichever way the start reaches the server (this
  // request, or the device's queue when the network goes meanwhile) it starts one deal.
  const client = newClientDealId();
  if (offline && offline.active() && offline.nextDeal(form, client)) return;
  if (S.sending) return;
  clearErrors();
  S.sending = true;
  setSync("saving", S.T.starting);
  const dealer = form.querySelector('input[name="dealer"]:checked');
  const body = { client_id: client, ...(dealer ? { dealer: parseInt(dealer.value, 10) } : {}) };
  // Started here without the network (its answer lost, or the new page not reachable): the
  // device starts the same deal itself, else the page's own form does without the API.
  const onDevice = () => {
    S.sending = false;
    if (offline && offline.nextDeal(form, client)) return;
    form.submit();
  };
  post(S.screen.dataset.apiNext, body).then((result) => {
    if ((result.status === 201 || result.status === 200) && result.data.id) {
      // The new page is fetched (and so kept by the service worker) before it is opened: a
      // network gone in between leaves the tablet the deal it knows, not an error page.
      const address = dealUrl(result.data.id);
      return fetch(address, { credentials: "same-origin" }).then((page) => {
        if (!page.ok) throw new Error("HTTP " + page.status);
        S.sending = false;
        window.location.assign(address);
      }).catch(onDevice);
    }
    S.sending = false;
    setSync("error", "");
    showError("form-next", (result.data && result.data.error) || ("HTTP " + result.status));
    return undefined;
  }).catch(onDevice);
}
