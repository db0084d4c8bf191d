/* The screen's entry forms keep their drafts (drafts.js, over the device's queue): what was
   typed or tapped but not recorded comes back after a reload, online or not. One job: attach
   drafts to the forms the live part shows now (after every swap or offline redraw), and drop a
   form's draft once its entry is recorded. */

import { S, seq } from "./shared.js";
import { attachDrafts, clearDraft, draftStore, restoreDraft } from "./drafts.js";

let store = null;
let handles = [];

export function useDraftStore(queue) { store = draftStore(queue); }

/** Restore, then save on every change, each entry form of the deal `deal` (the server's id or
    a client id). A draft typed against another entry count of the deal is kept, not restored. */
export async function wireDrafts(deal) {
  if (!store) return;
  handles.forEach((handle) => handle.detach());
  handles = [];
  const at = seq();
  for (const form of S.liveBox.querySelectorAll("form[data-entry][id]")) {
    const key = { deal, form: form.id };
    try {
      await restoreDraft(form, { store, key, seq: at });
      handles.push(attachDrafts(form, { store, key, seq: at }));
    } catch (error) { /* a draft that cannot be kept must not stop the recording */ }
  }
}

/** The entry of this form is recorded (on the server, or in the device's queue). */
export function recorded(deal, formId) {
  if (!store || !formId) return Promise.resolve();
  return clearDraft({ store, key: { deal, form: formId } }).catch(() => {});
}
