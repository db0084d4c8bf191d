/* The recording screen, wired: the one module deal.html loads. Each job is a module of its
   own (form.js the entry a form holds, pad.js the card pad and steppers, preview.js what the
   referee says before recording, errors.js refusals beside their cause, live.js the server's
   rendering and the poll, record.js recording online, offline.js the device's own referee and
   queue); this one only listens to the page and hands each event to its module. Listeners are
   delegated to the live box, so they survive every swap. */

import { S, init } from "./shared.js";
import { clearErrors } from "./errors.js";
import { padClick, setupForms, step, syncStepper, typedCard, markActive, onCardsChanged } from "./pad.js";
import { roundComplete, syncForm, useRoom } from "./room.js";
import { loadDrawer } from "./offline-view.js";
import { askAboutRounds, schedulePreview } from "./preview.js";
import { onSwap, poll } from "./live.js";
import { nextDeal, onRestore, submitEntry, undo, useOutbox } from "./record.js";
import { startOffline } from "./offline.js";
import { RESTORED_EVENT } from "./drafts.js";

const screen = document.getElementById("deal");
if (screen) start(screen);

function setup() {
  setupForms(S.liveBox);
  S.liveBox.querySelectorAll("form[data-entry]").forEach((form) => {
    if (S.canRecord && roundComplete(form)) askAboutRounds(form);
  });
}

function start(screen) {
  init(screen);
  onSwap(setup);
  onCardsChanged(askAboutRounds);
  onRestore((form) => { if (form.hasAttribute("data-preview")) schedulePreview(form); });
  const { liveBox } = S;

  liveBox.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.hasAttribute("data-entry")) { event.preventDefault(); submitEntry(form); }
    else if (form.hasAttribute("data-undo")) { event.preventDefault(); undo(form); }
    else if (form.hasAttribute("data-next-deal")) { event.preventDefault(); nextDeal(form); }
  });
  liveBox.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.closest("[data-rank-pad], [data-suit-pad]")) { event.preventDefault(); padClick(button); }
    else if (button.hasAttribute("data-step")) { event.preventDefault(); step(button); }
  });
  liveBox.addEventListener("focusin", (event) => {
    const input = event.target.closest("[data-card-input]");
    if (input) markActive(input.closest("form"), input);
  });
  liveBox.addEventListener("change", (event) => {
    const form = event.target.closest("form");
    if (!form) return;
    if (event.target.matches("[data-card-input]") && roundComplete(form) !== null) askAboutRounds(form);
    if (form.hasAttribute("data-entry")) S.dirty = true;
    // The scorer is answering the refusal: it goes until the referee says something again.
    if (form.hasAttribute("data-entry") && form.querySelector(".field-error:not(:empty), .error:not(:empty)")) clearErrors();
    if (event.target.matches(".stepper input")) syncStepper(event.target);
    if (form.hasAttribute("data-entry")) syncForm(form);
    if (form.hasAttribute("data-preview")) schedulePreview(form);
  });
  // A draft put back after a reload: what follows from its values is derived again.
  liveBox.addEventListener(RESTORED_EVENT, (event) => {
    const form = event.target;
    setupForms(S.liveBox);
    if (form.hasAttribute("data-preview")) schedulePreview(form);
  });
  liveBox.addEventListener("input", (event) => {
    const form = event.target.closest("form[data-entry]");
    if (form) S.dirty = true;
    if (form && event.target.matches("[data-card-input]")) typedCard(form, event.target);
  });

  setup();
  // The game's own part (its drawer, loaded by the screen's data-game) joins as soon as it
  // has come: what follows from the forms' values is derived again, and a preview the
  // scorer's first taps wanted is asked for.
  loadDrawer(screen.dataset.game).then((drawer) => {
    if (!drawer) return;
    useRoom(drawer);
    setup();
    S.liveBox.querySelectorAll("form[data-preview]").forEach(schedulePreview);
  });
  // The device's queue and its sync start in the background (an entry recorded meanwhile
  // waits for the queue, not for the engine, which loads in its worker); an entry kept from
  // before a reload waits in the queue and the sync sends it.
  // Failed before its queue was handed over: an entry is then sent once, as without storage.
  startOffline().catch(() => { useOutbox(null); });
  setInterval(poll, S.canRecord ? 3000 : 2000);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) poll(); });
  // Back to this screen from the browser's history: it may show an older state, so ask at once.
  window.addEventListener("pageshow", (event) => { if (event.persisted) poll(); });
}
