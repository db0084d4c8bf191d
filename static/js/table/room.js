/* The game's own part of the recording screen's behaviour. Every game's logic lives in its
   drawer, static/js/table/games/<slug>.js, loaded by the screen's data-game (offline-view.js's
   loadDrawer); the shared modules ask it a few questions through this module and never name a
   game. Until the drawer has come (or for a game without one) the answers are the neutral
   ones: nothing follows from a form's values, no form is asked about round by round, no
   preview is wanted. A drawer may answer, each optional:
     syncForm(form)        bring what follows from an entry form's values in line (a count
                           locked at 0 by the seat chosen, a fieldset a choice disables); called
                           whenever the form is shown, changed or filled in again;
     roundComplete(form)   null when the form's cards are not asked about round by round, else
                           whether its last round is filled in (preview.js then asks the referee);
     previewReady(payload) whether a form's entry says enough for the referee's preview. */

let drawer = null;

/** The screen's game drawer from now on (screen.js, once it has loaded). */
export function useRoom(loaded) { drawer = loaded || null; }

export function syncForm(form) {
  if (drawer && typeof drawer.syncForm === "function") drawer.syncForm(form);
}

export function roundComplete(form) {
  if (!drawer || typeof drawer.roundComplete !== "function") return null;
  const answer = drawer.roundComplete(form);
  return answer === null || answer === undefined ? null : Boolean(answer);
}

export function previewReady(payload) {
  return Boolean(drawer && typeof drawer.previewReady === "function" && drawer.previewReady(payload));
}
