/* What the sync says, on the screen (one job: the sync's news handed over to the scorer). Split
   out of offline.js: the status line, a conflict's dialog (one at a time), what was
   set aside, and the server's own screen back once this deal's entries are all on the server. */

import { S, dealUrl, setSync } from "./shared.js";
import { isClientDealId } from "../offline/queue.js";
import { refresh } from "./live.js";
import { renderStatus } from "./status.js";
import { isReachable } from "./connection.js";
import { conflictText, oneAtATime, renderSetAside, showConflict } from "./conflict.js";
import { conflictVerdicts } from "./conflict-verdicts.js";
import { O, countHere, dropDevice, failed, note, saveDevice, shownDeal } from "./offline-state.js";

/** The sync said something: the status line, a conflict, and the server's screen back once
    this deal's entries are all there. */
export async function onChange(status) {
  // An entry recorded online on this screen is on its way: record.js says its news.
  if (status.online) return undefined;
  if (status.state === "idle" || status.state === "sending") O.down = false;
  if (status.state === "offline" || status.state === "retrying") O.down = status.state === "offline" || O.down;
  said = status;
  sayStatus(status);
  if (status.state === "conflict" && status.conflict) return showTheConflict(status.conflict);
  await showSetAside();
  if (status.state === "sending") {
    O.sent = true;
    S.localChanges += 1;  // a poll that started before this is stale news, not another device
  }
  O.waitingHere = await countHere();
  if (O.waitingHere || status.state !== "idle") return undefined;
  // Everything of this deal is on the server: show the server's own screen of it.
  const deal = O.state ? O.state.deal : shownDeal();
  if (isClientDealId(deal)) {
    const server = await O.queue.serverDealId(deal);
    if (server !== null) {
      // The server's page of the deal is fetched first (so the service worker keeps it), and
      // only then is the device's drawing let go: a reload or a lost network in between still
      // finds this deal, not the one before it. Unreachable now: the next change tries again.
      try {
        if (!(await fetch(dealUrl(server), { credentials: "same-origin" })).ok) return undefined;
      } catch (error) {
        return undefined;
      }
      dropDevice(deal);
      note(S.T.offline_table.moving);
      window.location.assign(dealUrl(server));
    }
    return undefined;
  }
  if (O.drawn || O.sent) {
    O.sent = false;
    const swapped = await refresh();
    if (swapped) {
      O.drawn = false;
      O.state = null;
      dropDevice(deal);
    } else if (O.drawn && O.state && !O.state.known) {
      // Everything is on the server, but its screen did not come (the network went again): the
      // device's drawing is now what the server holds, and a reload must draw it too.
      O.state = { ...O.state, known: true };
      saveDevice(O.state);
    }
  }
  return undefined;
}

// The sync's last status, said again when the connection changes and as time passes.
let said = null;

/** What the sync line says: the sync's status, with the connection as the last real answer
    had it (the server not answering is "offline" whatever the sync was doing). Quiet on a
    screen that never had anything to say (a fresh page, all saved): "All saved" there would
    be noise. */
export function sayStatus(status = said) {
  // The online path owns the line while its entry is on the way (saving, retrying).
  if (!status || S.sending) return;
  const shown = { ...status };
  if (isReachable() === false && shown.state === "idle") shown.state = "offline";
  const quiet = shown.state === "idle" && !shown.waiting && !O.sent && !O.drawn && S.syncLine.dataset.line === undefined;
  if (quiet) return;
  renderStatus(S.syncLine, shown, S.T.offline_text || {});
  if (shown.state === "idle" && !shown.waiting) S.syncLine.dataset.state = "saved";
}

/** The sync line again with the queue's figures now (after an online save, a new answer). */
export async function sayAgain() {
  if (!said || !O.queue) return;
  const [waiting, lastSyncedAt] = await Promise.all([O.queue.count(), O.queue.lastSyncedAt()]);
  said = { ...said, waiting, lastSyncedAt };
  sayStatus(said);
}

/** What the scorer set aside in a conflict stays readable on the screen (never dropped). */
async function showSetAside() {
  const records = await O.queue.listAside();
  let box = document.getElementById("set-aside");
  if (!records.length) { if (box) box.replaceChildren(); return; }
  if (!box) {
    box = document.createElement("div");
    box.id = "set-aside";
    (document.querySelector("[data-offline-note]") || S.syncLine).after(box);
  }
  renderSetAside(box, records, { text: conflictText(S.T) });
}

function showTheConflict(conflict) {
  O.desk ??= oneAtATime({ open: openConflict, current: () => O.sync.conflict });
  O.desk.offer(conflict).catch((error) => setSync("error", failed(error)));
}

async function openConflict(conflict) {
  let box = document.getElementById("conflict");
  if (!box) {
    box = document.createElement("div");
    box.id = "conflict";
    S.syncLine.after(box);
  }
  // The verdicts in the session's language (the engine's own text is English); the engine
  // only once it is loaded: a conflict is never held up by its loading.
  const { explain } = await conflictVerdicts(conflict, {
    drawer: O.drawer, engine: O.ready ? O.engine : null, session: S.screen.dataset.session,
  });
  return showConflict(box, conflict, {
    text: conflictText(S.T),
    explain,
    // The dialog stays (its buttons off, "Resolving…") until all of this is done; a conflict
    // the sync meets meanwhile waits for it to close.
    onChoose: async (choice) => {
      await O.sync.resolve(choice);
      // The server's version (with mine on top, if chosen) is what the screen shows next.
      const deal = O.state ? O.state.deal : shownDeal();
      if (!isClientDealId(deal)) {
        dropDevice(deal);
        O.state = null;
        O.drawn = false;
        await refresh();
      }
    },
  });
}
