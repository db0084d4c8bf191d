/* Starting a deal on the device (one job: a finished deal's next deal, begun offline). Split
   out of offline.js: the new deal gets a client id the server accepts later, its
   start goes into the queue, and the screen becomes that fresh deal's page at once. */

import { S, appUser, newKey, setSync } from "./shared.js";
import { newClientDealId } from "../offline/queue.js";
import { wireDrafts } from "./draft-forms.js";
import { drawFreshDeal } from "./offline-view.js";
import { O, failed, nextDealer, saveDevice, stateNow } from "./offline-state.js";
import { planAfter } from "./plan.js";

/** The next deal, started on the device: a queued deal start with a client id (`client`: the
    one the online path already sent, when its answer or the new page never came; the server
    answers a start with a client id it knows with that same deal). */
export function nextDeal(form, client = newClientDealId()) {
  if (!O.ready || !O.drawer || O.busy) return false;
  (async () => {
    O.busy = true;
    try {
      const state = await stateNow();
      if (!state.view.finished) return;
      const chosen = form.querySelector('input[name="dealer"]:checked');
      const dealer = chosen ? parseInt(chosen.value, 10) : state.nextDealer;
      const answer = await O.engine.newDeal({
        game: state.snapshot.game, players: state.view.players, dealer, options: state.snapshot.options || {},
        previous: state.snapshot,
      });
      if (!answer.snapshot) throw new Error(answer.failure || "The engine could not start the deal.");
      await O.queue.enqueue({ kind: "deal_start", key: newKey(), session: Number(S.screen.dataset.session), deal: client, dealer, user: appUser() });
      const base = state.base.map((total, seat) => total + (state.view.outcome ? state.view.outcome.points[seat] : 0));
      const fresh = {
        deal: client, snapshot: answer.snapshot, view: { ...answer.view, outcome: null }, seq: 0,
        number: state.number + 1, base, entries: [], nextDealer: nextDealer(answer.view),
        origin: null, log: [], stored: null,
        // The plan goes on from the deals before this one, the finished one included.
        plan: await planAfter(state),
      };
      O.state = fresh;
      O.drawn = true;
      O.waitingHere = 1;
      saveDevice(fresh);
      history.replaceState(null, "", "#" + client);
      drawFreshDeal(fresh, O.drawer);
      wireDrafts(client);
      O.sync.kick();
    } catch (error) {
      setSync("error", failed(error));
    } finally {
      O.busy = false;
    }
  })();
  return true;
}
