/* The two versions of a deal, side by side, and the scorer's choice. One job: show sync.js's
   conflict in the club's words and hand the choice back.

     import { showConflict, conflictText, renderSetAside } from "/static/js/table/conflict.js";
     const text = conflictText(JSON.parse(document.getElementById("i18n").textContent));
     showConflict(document.body, sync.conflict, { text, onChoose: (choice) => sync.resolve(choice) });
     renderSetAside(asideBox, await queue.listAside(), { text });   // where set-aside entries are seen

   The conflict (sync.js) is {kind: "stale" | "verdict" | "refused", key, deal, message,
   mine: {records}, server: {status, error?, entries?, entry?, deal?}, resolutions, at}:
   - stale: another device recorded first (409); the server's side is the entries it has
     after the seq my first entry expected;
   - verdict: the server stored my first entry with another verdict than this tablet's;
   - refused: the server refused an entry this tablet had accepted (its message is said).
   Each entry is one line: what was entered (`describe(payload, result)`; by default the
   entry's fields in the club's words with the players' names) and the referee's own sentence
   about it in the reader's language (`explain(side, item)`: the screen renders the result as
   its game's drawer does, see conflict-verdicts.js). Where no such sentence can be had, the
   engine's own `text` is shown, marked as English (the rules write it in English). Never JSON.

   One dialog at a time (oneAtATime): a conflict that arrives while a dialog is open, or while
   the scorer's choice on it is still being carried out, waits until that dialog has closed.

   The dialog is a modal <dialog> (role dialog, focus moved into it, Escape does not dismiss
   it: a choice is needed), its buttons are big touch targets, and it fits a 390 px phone.
   "Discard mine" asks once more. Nothing is dropped: the records not kept stay in the queue's
   set-aside list, which the dialog names and renderSetAside lists. */

import { KEEP_SERVER, MINE_ON_TOP, USE_MINE, DISCARD_MINE } from "../offline/sync.js";

export const CHOICES = [KEEP_SERVER, MINE_ON_TOP, USE_MINE, DISCARD_MINE];
/** The choices that change what the server holds ask once more. */
const ASKED_TWICE = [USE_MINE, DISCARD_MINE];

/** The English sentences (keys as web/pages/offline_text.py), for a page without them. */
export const ENGLISH = {
  language: "en",
  conflict_title: "Two versions of this deal",
  conflict_title_deal: "Two versions of deal %(number)s",
  conflict_stale: "Another device recorded in this deal while this tablet's entries were waiting.",
  conflict_stale_own: "The server already holds entries this tablet sent before it heard back; the entries waiting here were recorded on the deal without them.",
  conflict_stale_mixed: "Another device recorded in this deal, and the server also holds entries this tablet sent before it heard back.",
  from_this_tablet: "from this tablet",
  conflict_verdict: "The server's referee decided differently from this tablet's.",
  conflict_refused: "The server refused an entry this tablet had accepted.",
  server_version: "On the server",
  my_version: "On this tablet, not sent yet",
  server_unknown: "The server's version could not be read just now.",
  server_says: "The server says: %(error)s",
  nothing_recorded: "Nothing recorded",
  deal_start: "Start of a new deal",
  keep_server: "Keep the server's",
  keep_server_help: "The server's version stays; your entries it does not have are not sent and stay listed under “Set aside on this device”.",
  mine_on_top: "Put mine after the server's",
  mine_on_top_help: "Your entries are sent after the server's, in order; the referee checks each again.",
  use_mine: "Use mine instead of the server's",
  use_mine_help: "The server's entries from #%(first)s on are undone (the audit log keeps them, with your name) and yours are stored in their place; the referee checks them again.",
  use_confirm: "Use this tablet's entries instead of the server's? The server's entries from #%(first)s on are undone; the audit log keeps them, with your name.",
  use_yes: "Yes, use mine",
  discard_mine: "Discard mine",
  discard_mine_help: "None of your entries stays in the deal (one the server already took is undone); they stay listed under “Set aside on this device”.",
  discard_confirm: "Discard this tablet's entries? They will not be sent. You can still read them under “Set aside on this device”.",
  discard_yes: "Yes, discard mine",
  discard_back: "Back",
  resolving: "Resolving…",
  resolve_failed: "Not resolved: %(error)s",
  set_aside_title: "Set aside on this device",
  set_aside_keep_server: "the server's version was kept",
  set_aside_discard_mine: "discarded",
};

const STYLESHEET = new URL("../../css/offline.css", import.meta.url).href;

function fmt(template, params = {}) {
  return String(template ?? "").replace(/%\((\w+)\)s/g, (_m, key) => (params[key] == null ? "" : String(params[key])));
}

/** The dialog's words from the page's i18n JSON (its offline_text, names and words). */
export function conflictText(i18n = {}) {
  const given = (i18n && i18n.offline_text) || {};
  return { ...ENGLISH, ...given, names: i18n.names || given.names || [], words: i18n.words || given.words || {} };
}

function isSeat(key, value) {
  return Number.isInteger(value) && (key === "player" || key === "seat" || key.endsWith("_seat"));
}

function valueText(key, value, { names = [], words = {} }) {
  if (value === null || value === undefined) return words.null || "–";
  if (isSeat(key, value)) return names[value] ?? String(value);
  if (key === "rounds" && Array.isArray(value)) {
    return value.map((round) => (Array.isArray(round) ? round.map((c) => (c == null ? "–" : String(c))).join(" ") : String(round))).join(" / ");
  }
  if (Array.isArray(value) && value.length === names.length && value.every(Number.isInteger)) {
    return value.map((n, seat) => `${names[seat]} ${n}`).join(", ");  // a count per seat
  }
  if (Array.isArray(value)) return value.map((c) => (c == null ? "–" : String(c))).join(" ");
  if (typeof value === "string") return words[value] || value;
  if (typeof value === "object") return Object.entries(value).map(([k, v]) => valueText(k, v, { names, words })).join(", ");
  return String(value);
}

/** What an entry recorded, in the club's words: "trick: 3 9 9 V 4", "end-of-deal: “emptied
    hand”, the player who called stop: Jonas, the cards left in each hand: Ona 3, Jonas 0". */
export function describeEntry(payload, text = {}) {
  if (!payload || typeof payload !== "object") return String(payload ?? "");
  const words = text.words || {};
  const kind = words[payload.type] || payload.type || "";
  const parts = Object.entries(payload).filter(([key]) => key !== "type").map(([key, value]) => {
    const said = valueText(key, value, text);
    // The cards speak for themselves; other fields are named ("the player who called stop: Jonas").
    return key === "cards" || key === "rounds" || !words[key] ? said : `${words[key]}: ${said}`;
  });
  return parts.length ? `${kind}: ${parts.join(", ")}` : String(kind);
}

function verdictText(result) {
  if (!result || typeof result !== "object") return "";
  return typeof result.text === "string" ? result.text : "";
}

/** Both versions as lines of text: {intro, message, server: {lines, unknown}, mine: {lines}}.
    A line is {number, what, verdict}, and `lang: "en"` when the verdict is the engine's English
    text on a page in another language (no sentence of the reader's could be had).
    `explain(side, item)` ("mine" with a queued record, "server" with a stored entry) answers
    the verdict in the reader's language, or null. */
export function conflictSides(conflict, text = ENGLISH, { describe, explain = () => null } = {}) {
  const t = { ...ENGLISH, ...text };
  const say = describe || ((payload) => describeEntry(payload, t));
  const english = !t.language || String(t.language).startsWith("en");
  const line = (number, what, side, item, result) => {
    const mark = side === "server" && item && item.own ? { from: t.from_this_tablet } : {};
    const own = explain(side, item);
    if (typeof own === "string" && own) return { number, what, verdict: own, ...mark };
    const verdict = verdictText(result);
    return verdict && !english ? { number, what, verdict, lang: "en", ...mark } : { number, what, verdict, ...mark };
  };
  const records = (conflict.mine && conflict.mine.records) || [];
  const server = conflict.server || {};
  const mine = records.map((record) => (record.kind === "deal_start"
    ? { number: null, what: t.deal_start, verdict: "" }
    : line(record.expected_seq + 1, say(record.payload, record.verdict), "mine", record, record.verdict)));
  let lines = [];
  let unknown = false;
  if (conflict.kind === "verdict" && server.entry) {
    const e = server.entry;
    lines = [line(e.seq, say(e.payload, e.result), "server", e, e.result)];
  } else if (conflict.kind === "stale") {
    if (!Array.isArray(server.entries)) unknown = true;
    else {
      lines = staleEntries(conflict).map((e) => line(e.seq, say(e.payload, e.result), "server", e, e.result));
    }
  } else if (conflict.kind === "verdict") {
    unknown = true;
  }
  const theirs = conflict.kind === "stale" ? staleEntries(conflict) : [];
  const own = theirs.filter((e) => e.own).length;
  const staleIntro = own === 0 ? t.conflict_stale : (own === theirs.length ? t.conflict_stale_own : t.conflict_stale_mixed);
  const intro = { stale: staleIntro, verdict: t.conflict_verdict, refused: t.conflict_refused }[conflict.kind] || t.conflict_refused;
  // The server's own refusal, in its words. Not for a stale deal: the intro says what happened,
  // and the server's "reload and try again" would contradict the buttons.
  const error = conflict.kind === "refused" ? (server.error || conflict.message || "") : "";
  const number = (conflict.where && conflict.where.number) || (server.deal && server.deal.number) || null;
  const title = number ? fmt(t.conflict_title_deal, { number }) : t.conflict_title;
  const where = conflict.where ? [conflict.where.game, (conflict.where.players || []).join(", ")].filter(Boolean).join(" · ") : "";
  const first = (records.find((r) => r.kind === "entry") || { expected_seq: 0 }).expected_seq + 1;
  return { title, where, first, intro, message: error ? fmt(t.server_says, { error }) : "", server: { lines, unknown }, mine: { lines: mine } };
}

/** The server's entries a stale conflict shows: the active ones after the seq my first entry expected. */
export function staleEntries(conflict) {
  const entries = conflict.server && conflict.server.entries;
  if (!Array.isArray(entries)) return [];
  const first = ((conflict.mine && conflict.mine.records) || []).find((r) => r.kind === "entry");
  const since = first ? first.expected_seq : 0;
  return entries.filter((e) => e.active !== false && e.seq > since);
}

function ensureStylesheet(doc) {
  if (doc.querySelector('link[data-offline-css]')) return;
  const link = doc.createElement("link");
  link.rel = "stylesheet";
  link.href = STYLESHEET;
  link.setAttribute("data-offline-css", "");
  doc.head.appendChild(link);
}

function el(doc, tag, attrs = {}, ...children) {
  const node = doc.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name === "className") node.className = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function entryList(doc, lines, empty) {
  if (!lines.length) return el(doc, "p", { className: "muted" }, empty);
  return el(doc, "ol", { className: "conflict-entries" }, ...lines.map((line) => el(doc, "li", {},
    line.number ? el(doc, "span", { className: "conflict-seq" }, `#${line.number}`) : null,
    line.number ? " " : null,
    el(doc, "span", { className: "conflict-what" }, line.what),
    line.from ? " " : null,
    line.from ? el(doc, "span", { className: "tag conflict-own" }, line.from) : null,
    line.verdict ? " " : null,
    line.verdict ? el(doc, "span", { className: "conflict-verdict", lang: line.lang }, line.verdict) : null)));
}

let dialogs = 0;

/** Show the conflict; `onChoose(choice)` (may return a promise) does it. Returns {element,
    close, chosen}: `chosen` resolves with the choice once onChoose has succeeded. */
export function showConflict(container, conflict, { text = ENGLISH, onChoose, describe, explain } = {}) {
  if (!conflict || !Array.isArray(conflict.resolutions)) throw new Error("showConflict needs sync.js's conflict.");
  if (typeof onChoose !== "function") throw new Error("showConflict needs onChoose(choice).");
  const t = { ...ENGLISH, ...text };
  const doc = container.ownerDocument;
  ensureStylesheet(doc);
  const sides = conflictSides(conflict, t, { describe, explain });
  dialogs += 1;
  const id = `conflict-${dialogs}`;
  const previous = doc.activeElement;

  const title = el(doc, "h2", { id: `${id}-title`, tabindex: "-1" }, sides.title);
  const where = sides.where ? el(doc, "p", { className: "conflict-where muted" }, sides.where) : null;
  const intro = el(doc, "p", { id: `${id}-intro` }, sides.intro);
  const message = sides.message ? el(doc, "p", { className: "conflict-message" }, sides.message) : null;
  const serverSide = el(doc, "section", { className: "conflict-side conflict-server", "aria-labelledby": `${id}-server` },
    el(doc, "h3", { id: `${id}-server` }, t.server_version),
    sides.server.unknown ? el(doc, "p", { className: "muted" }, t.server_unknown) : entryList(doc, sides.server.lines, t.nothing_recorded));
  const mineSide = el(doc, "section", { className: "conflict-side conflict-mine", "aria-labelledby": `${id}-mine` },
    el(doc, "h3", { id: `${id}-mine` }, t.my_version), entryList(doc, sides.mine.lines, t.nothing_recorded));
  const labels = { [KEEP_SERVER]: [t.keep_server, t.keep_server_help], [MINE_ON_TOP]: [t.mine_on_top, t.mine_on_top_help],
    [USE_MINE]: [t.use_mine, fmt(t.use_mine_help, { first: sides.first })],
    [DISCARD_MINE]: [t.discard_mine, t.discard_mine_help] };
  const offered = CHOICES.filter((choice) => conflict.resolutions.includes(choice));
  // The likely intent is the big button: mine after the server's when another device simply
  // got there first; the server's when what it holds is this tablet's own.
  const ownOnly = sides.intro === t.conflict_stale_own;
  const primary = offered.includes(MINE_ON_TOP) && !ownOnly ? MINE_ON_TOP : KEEP_SERVER;
  const buttons = offered.map((choice) => {
    const help = el(doc, "span", { className: "help", id: `${id}-${choice}-help` }, labels[choice][1]);
    const button = el(doc, "button", { type: "button", className: choice === primary ? "big primary" : "big",
      "data-choice": choice, "aria-describedby": `${id}-${choice}-help` }, labels[choice][0]);
    return { choice, button, box: el(doc, "div", { className: "conflict-choice" }, button, help) };
  });
  const choices = el(doc, "div", { className: "conflict-choices" }, ...buttons.map((b) => b.box));
  const question = el(doc, "p", { id: `${id}-confirm`, tabindex: "-1" }, t.discard_confirm);
  const yes = el(doc, "button", { type: "button", className: "big danger", "data-confirm": "" }, t.discard_yes);
  let asked = null;
  const back = el(doc, "button", { type: "button", className: "big", "data-back": "" }, t.discard_back);
  const confirm = el(doc, "div", { className: "conflict-confirm", hidden: true }, question, el(doc, "div", { className: "row" }, yes, back));
  const status = el(doc, "p", { className: "conflict-status", role: "status" });
  const failure = el(doc, "p", { className: "error", role: "alert" });
  const dialog = el(doc, "dialog", { className: "conflict", "aria-labelledby": `${id}-title`, "aria-describedby": `${id}-intro`,
    "data-conflict-kind": conflict.kind },
  title, where, intro, message, el(doc, "div", { className: "conflict-sides" }, serverSide, mineSide), choices, confirm, status, failure);

  let settle;
  const chosen = new Promise((resolve) => { settle = resolve; });
  let busy = false;

  function setBusy(on) {
    busy = on;
    dialog.querySelectorAll("button").forEach((b) => { b.disabled = on; });
    status.textContent = on ? t.resolving : "";
  }

  async function choose(choice) {
    if (busy) return;
    failure.textContent = "";
    setBusy(true);
    try {
      await onChoose(choice);
    } catch (error) {
      setBusy(false);
      failure.textContent = fmt(t.resolve_failed, { error: (error && error.message) || String(error) });
      return;
    }
    close();
    settle(choice);
  }

  /** Asks once more before `choice` (null: back to the choices). */
  function askAgain(choice) {
    const back = asked;
    asked = choice;
    if (choice === USE_MINE) {
      question.textContent = fmt(t.use_confirm, { first: sides.first });
      yes.textContent = t.use_yes;
    } else if (choice) {
      question.textContent = t.discard_confirm;
      yes.textContent = t.discard_yes;
    }
    confirm.hidden = !choice;
    choices.hidden = !!choice;
    (choice ? question : buttons.find((b) => b.choice === back).button).focus();
  }

  buttons.forEach(({ choice, button }) => button.addEventListener("click", () => {
    if (ASKED_TWICE.includes(choice)) askAgain(choice);
    else choose(choice);
  }));
  yes.addEventListener("click", () => choose(asked));
  back.addEventListener("click", () => askAgain(null));
  // A choice is needed: Escape does not make the conflict go away unanswered.
  dialog.addEventListener("cancel", (event) => event.preventDefault());

  container.appendChild(dialog);
  if (typeof dialog.showModal === "function") {
    dialog.showModal();  // modal: the page behind is inert until the scorer chooses
  } else {  // a browser without <dialog>: the same roles by hand
    dialog.setAttribute("role", "dialog");
    dialog.setAttribute("aria-modal", "true");
    dialog.setAttribute("open", "");
  }
  title.focus();

  function close() {
    if (typeof dialog.close === "function" && dialog.open) dialog.close();
    dialog.remove();
    if (previous && previous.isConnected && typeof previous.focus === "function") previous.focus();
  }

  return { element: dialog, close, chosen };
}

/** One conflict dialog at a time. `open(conflict)` shows one (it may be async) and answers
    showConflict's {chosen}; `current()` is the sync's conflict now. A conflict offered while a
    dialog is open or being prepared, or while the scorer's choice is still carried out (the
    sync resolved and the screen is being redrawn), is not opened on top: once the open one has
    closed, the sync's conflict at that moment (if any) is shown. The sync stops at a conflict,
    so "the latest" is the only one that can still be waiting; nothing is shown twice. */
export function oneAtATime({ open, current }) {
  let busy = false;
  async function offer(conflict) {
    if (busy || !conflict) return false;
    busy = true;
    let handle;
    try {
      handle = await open(conflict);
      await handle.chosen;
    } finally {
      busy = false;
    }
    const next = current();
    if (next) await offer(next);
    return true;
  }
  return { offer, get busy() { return busy; } };
}

/** The records set aside on this device (queue.listAside()), where the scorer can read them:
    a <details> list with why and when each was set aside; empty: nothing shown. */
export function renderSetAside(container, records, { text = ENGLISH, describe } = {}) {
  const t = { ...ENGLISH, ...text };
  const doc = container.ownerDocument;
  const say = describe || ((payload) => describeEntry(payload, t));
  const reasons = { [KEEP_SERVER]: t.set_aside_keep_server, [DISCARD_MINE]: t.set_aside_discard_mine,
    [USE_MINE]: t.set_aside_keep_server };
  const time = new Intl.DateTimeFormat(t.language || "en", { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  container.replaceChildren();
  container.hidden = records.length === 0;
  if (!records.length) return;
  const items = records.map((record) => el(doc, "li", { "data-key": record.key },
    record.kind === "deal_start" ? t.deal_start : `#${record.expected_seq + 1} ${say(record.payload, record.verdict)}`,
    el(doc, "span", { className: "muted" }, ` · ${reasons[record.reason] || record.reason || ""}`
      + (Number.isFinite(record.aside_at) ? `, ${time.format(record.aside_at)}` : ""))));
  container.append(el(doc, "details", { className: "set-aside panel" },
    el(doc, "summary", {}, `${t.set_aside_title} (${records.length})`), el(doc, "ol", { className: "list-plain" }, ...items)));
}
