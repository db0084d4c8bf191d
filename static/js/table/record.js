/* Recording online: the forms drive the JSON API (POST /api/deals/{id}/entries/) instead of
   posting the page. Every entry gets its idempotency key when it is created here and is kept
   in localStorage until the server has it, so a failed request, a reload or a dropped
   connection resends the very same entry (the server answers a repeated key with the stored
   entry, never twice). The screen says what is happening: saving, saved, retrying, offline.
   When the network stays down and the tablet's engine is ready, the offline path (offline.js)
   takes the entry over: it referees it on the device and queues it for the sync. */

import { S, dealUrl, fmt, newKey, post, seq, setSync } from "./shared.js";
import { newClientDealId } from "../offline/queue.js";
import { payloadFrom, restoreForm } from "./form.js";
import { clearErrors, showError } from "./errors.js";
import { refresh, showVerdict } from "./live.js";
import { recorded } from "./draft-forms.js";

const storeKey = () => "kortos.pending." + S.dealId;

// The offline path, once it can referee on this device (offline.js sets it):
//   active() -> true when entries should go to the device's queue now,
//   record(form, payload) -> records one entry on the device,
//   takeOver(pending) -> a promise of true once a pending entry is queued there,
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
