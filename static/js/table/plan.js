/* The session's plan on the tablet (one job: its standing, asked of the device's engine and
   drawn). The server's deal screen says where the session stands (templates/referee/_plan.html)
   and carries what the engine needs to go on (the "plan-tablet" JSON: the plan, the finished
   deals before this deal folded, the choice to play on); the device's state of the deal keeps
   it, so a deal finished or started offline shows the standing the server would: the same
   pure module (referee/rules/plan.py) under Pyodide, the same sentences (the i18n JSON's
   offline_table.plan_phrases, per plural category). Once the plan is reached the finished
   panel offers closing first, and the next deal's start only after "Play on". */

import { andList, counted, nameOf, t } from "./offline-draw.js";

let engine = null;

/** The engine that answers (offline.js hands it over once it made it). */
export function usePlanEngine(next) { engine = next; }

/** The page's plan for the tablet ({plan, before, played_on_after}), or null without one. */
export function readPlan() {
  const script = document.getElementById("plan-tablet");
  if (!script) return null;
  try { return JSON.parse(script.textContent); } catch (error) { return null; }
}

function say(phrase) {
  const forms = (t().plan_phrases || {})[phrase.key];
  if (!forms) return "";
  const params = { ...phrase.numbers };
  if (phrase.seats && phrase.seats.length) params.names = andList(phrase.seats.map(nameOf));
  if (phrase.goal != null) params.goal = counted(t().plan_unit || {}, phrase.goal, { n: phrase.goal });
  return counted(forms, phrase.count, params);
}

function ask(state) {
  return engine.plan({
    game: state.snapshot.game, plan: state.plan.plan, before: state.plan.before,
    points: state.view.outcome ? state.view.outcome.points : null,
    running: state.view.finished ? null : state.number, played_on_after: state.plan.played_on_after ?? null,
  });
}

/** Draw the standing of `state` (the device's state of the deal) into `live`; resolves to it. */
export async function drawPlan(live, state) {
  if (!engine || !state.plan) return null;
  const answer = await ask(state);
  if (!answer || !answer.standing) return null;
  paint(live, answer.standing);
  return answer.standing;
}

function paint(live, standing) {
  const box = live.querySelector("[data-plan-status]");
  if (box) {
    box.querySelector("[data-plan-headline]").textContent = say(standing.headline);
    box.querySelector("[data-plan-text]").textContent = standing.phrases.map(say).join(" · ");
    const badge = box.querySelector("[data-plan-badge]");
    badge.hidden = !standing.reached;
    badge.textContent = standing.exceeded ? box.dataset.exceededWord : box.dataset.reachedWord;
    box.querySelector("[data-plan-note]").hidden = !standing.close_first;
    box.classList.toggle("is-reached", standing.reached && !standing.exceeded);
    box.classList.toggle("is-exceeded", standing.exceeded);
  }
  const panel = live.querySelector("[data-finished]");
  const block = panel && panel.querySelector("[data-plan-reached]");
  if (!block) return;
  block.hidden = !standing.close_first;
  const form = panel.querySelector("[data-next-deal]");
  if (form) form.hidden = standing.close_first;
  const small = panel.querySelector("[data-close-small]");
  if (small) small.hidden = standing.close_first;
}

/** The plan a deal started after `state`'s finished deal goes on from. */
export async function planAfter(state) {
  if (!engine || !state.plan) return state.plan || null;
  const answer = await ask(state);
  return answer && answer.after ? { ...state.plan, before: answer.after } : state.plan;
}

/** `state` with the scorer's choice to play on past the reached plan (made on the device). */
export function playedOn(state) {
  if (!state.plan) return state;
  const deals = (state.plan.before.deals || 0) + (state.view.finished ? 1 : 0);
  return { ...state, plan: { ...state.plan, played_on_after: deals } };
}
