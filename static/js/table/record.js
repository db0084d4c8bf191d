/* Recording online: the forms drive the JSON API (POST /api/deals/{id}/entries/) instead of
   posting the page. Every entry gets its idempotency key when it is created here and is kept
   in localStorage until the server has it, so a failed request, a reload or a dropped
   connection resends the very same entry (the server answers a repeated key with the stored
   entry, never twice). The screen says what is happening: saving, saved, retrying, offline.
   When the network stays down and the tablet's engine is ready, the offline path (offline.js)
   takes the entry over: it referees it on the device and queues it for the sync. */

import { S, dealUrl, fmt, newKey, post, seq, setSync } from "./shared.js";
import { payloadFrom, restoreForm } from "./form.js";
import { clearErrors, showError } from "./errors.js";
import { refresh, showVerdict } from "./live.js";
import { recorded } from "./draft-forms.js";

const storeKey = () => "kortos.pending." + S.dealId;

// The offline path, once it can referee on this device (offline.js sets it):
//   active() -> true when entries should go to the device's queue now,
//   record(form, payload) -> records one entry on the device,
//   takeOver(pending) -> a promise of true once a pending entry is queued there,
//   nextDeal(form) -> true when it started the next deal on the device,
//   undo(form, {afterChange, online}) -> true when it takes the undo (online(): the server's).
let offline = null;
export function useOfflinePath(path) { offline = path; }
// What follows an entry, undo or deal start the server confirmed (offline.js: the sync line's time).
let saved = () => {};
export function onSaved(hook) { saved = hook; }
// What undo's restore does after putting values back (screen.js: the Velnias preview).
let restored = () => {};
export function onRestore(hook) { restored = hook; }

export function loadPending() {
  try { return JSON.parse(localStorage.getItem(storeKey()) || "null"); } catch (e) { return null; }
}
function savePending(pending) {
  try { localStorage.setItem(storeKey(), JSON.stringify(pending)); } catch (e) { /* private mode: memory only */ }
}
export function clearPending(key) {
  const kept = loadPending();
  if (key !== undefined && (!kept || kept.key !== key)) return;
  try { localStorage.removeItem(storeKey()); } catch (e) { /* nothing kept */ }
}

export function submitEntry(form) {
  if (offline && offline.active()) { clearErrors(); offline.record(form, payloadFrom(form)); return; }
  if (S.sending) return;
  clearErrors();
  const pending = { form: form.id, payload: payloadFrom(form), key: newKey(), expected_seq: seq(), at: Date.now() };
  savePending(pending);
  send(pending, 1);
}

export function send(pending, attempt) {
  S.sending = true;
  S.localChanges += 1;
  if (attempt === 1) setSync("saving", S.T.saving);
  const body = { ...pending.payload, idempotency_key: pending.key, expected_seq: pending.expected_seq };
  post(S.screen.dataset.apiEntries, body).then((result) => {
    if (result.status === 200 || result.status === 201) {
      clearPending();
      recorded(Number(S.dealId), pending.form);
      S.sending = false;
      S.dirty = false;
      setSync("saved", S.T.saved);
      saved(pending.key);
      return refresh().then((swapped) => {
        // Stored, but the new screen did not come (the network went meanwhile): the tablet's
        // own referee draws what the server now holds.
        if (!swapped && offline && offline.learnStored) return offline.learnStored(pending.payload, pending.key).then(showVerdict);
        return showVerdict();
      });
    }
    if (result.status >= 500 || result.status === 429) {
      return retryLater(pending, attempt, fmt(S.T.server_error, { status: result.status }));
    }
    // Refused (400), not allowed (403/404) or stale (409): nothing was stored.
    clearPending();
    S.sending = false;
    setSync("error", "");
    const message = (result.data && result.data.error) || ("HTTP " + result.status);
    if (result.status === 409) {
      return refresh().then(() => { showError(pending.form, message); });
    }
    showError(pending.form, message);
    return undefined;
  }).catch(() => {
    // A second failure in a row is the network gone, not a hiccup: the device takes over.
    if (attempt >= 2 && offline) {
      return offline.takeOver(pending).then((taken) => {
        if (taken) { S.sending = false; return; }
        retryLater(pending, attempt, navigator.onLine === false ? S.T.offline : S.T.retrying);
      });
    }
    return retryLater(pending, attempt, navigator.onLine === false ? S.T.offline : S.T.retrying);
  });
}

function retryLater(pending, attempt, message) {
  setSync(navigator.onLine === false ? "offline" : "retrying", message);
  const delay = Math.min(15000, 1000 * Math.pow(2, attempt - 1));
  const timer = setTimeout(() => { window.removeEventListener("online", now); send(pending, attempt + 1); }, delay);
  function now() { clearTimeout(timer); window.removeEventListener("online", now); send(pending, attempt + 1); }
  window.addEventListener("online", now);
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
  if (offline && offline.active() && offline.nextDeal(form)) return;
  if (S.sending) return;
  clearErrors();
  S.sending = true;
  setSync("saving", S.T.starting);
  const dealer = form.querySelector('input[name="dealer"]:checked');
  post(S.screen.dataset.apiNext, dealer ? { dealer: parseInt(dealer.value, 10) } : {}).then((result) => {
    S.sending = false;
    if (result.status === 201 && result.data.id) {
      window.location.assign(dealUrl(result.data.id));
      return;
    }
    setSync("error", "");
    showError("form-next", (result.data && result.data.error) || ("HTTP " + result.status));
  }).catch(() => {
    S.sending = false;
    // The network failed: the device starts the deal itself when it can, else the page's
    // own form does the same without the API.
    if (offline && offline.nextDeal(form)) return;
    form.submit();
  });
}
