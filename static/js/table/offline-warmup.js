/* The engine's warm-up (one job: the first real tap offline pays for nothing that can be done
   before it). Split out of offline.js: once the engine is ready, the screen's state
   is read and one legal entry goes through the engine and the drawing, their answers dropped. */

import { current } from "./shared.js";
import { drawState } from "./offline-view.js";
import { O, advanced, stateNow } from "./offline-state.js";

/** The screen's state read, and one legal entry through the engine (its answer dropped), so
    that the first real tap does not pay for Python's first run of the code. */
export async function warmUp() {
  const warm = O.drawn ? O.state : await stateNow().catch(() => null);
  if (!warm || warm.view.finished) return;
  const sample = O.drawer.sample(warm.view);
  const answer = await O.engine.apply(warm.snapshot, sample).catch(() => null);
  // And the drawing of its verdict, into a copy of the screen nobody sees: the first
  // real verdict then finds the drawing code compiled and its sentences' plural rules made.
  if (answer && answer.snapshot) {
    try {
      const trial = advanced(warm, answer, sample, "warm-up");
      drawState(trial, O.drawer, trial.view.last ? O.drawer.sentences(trial.view, trial.view.last) : [], current().cloneNode(true));
    } catch (error) { /* a warm-up only */ }
  }
}
