/* Drawing a deal the server has not rendered: after an entry the tablet's engine accepted
   offline, or a deal started offline. The server's own rendering is the model: the same
   elements, the same sentences (the i18n JSON's offline_table carries the server screen's
   msgids in the reader's language), filled from the engine's view. One job: the DOM.

   Each game's own part is its drawer, static/js/table/games/<game>.js (a game's room on the
   tablet, as referee/games/<game>.py is on the server), loaded by the screen's data-game. A
   drawer is an object with
     sentences(view, last)  the verdict of the last entry, as the server's explain() says it;
     describe(payload, result)  an entry's line in the list of entries (result: the engine's
                            conclusion, view.last, as the server stores it with the entry);
     draw(live, view, state)  the redraw of the game's own part of the screen (state: the
                            device's state of the deal, its snapshot included);
     running(view)          this deal's running points per seat before it ends (or null);
     sample(view)           one legal entry, to warm the engine up with;
     preview(state, payload, apply)  optional: what the server's preview endpoint would answer
                            for a form's entry ({status, data}), while the server cannot be
                            asked; apply(entry) referees an entry on the device's engine.
   A game without a drawer keeps today's online recording (offline.js says so on the screen). */

import { S, fmt } from "./shared.js";
import { setupForms } from "./pad.js";
import { h, nameOf, signClass, signed, t } from "./offline-draw.js";
import { drawPlan } from "./plan.js";

/** The game's drawer, or null when the game has none (or it cannot be loaded). */
export async function loadDrawer(game) {
  if (!/^[a-z0-9_-]+$/.test(String(game || ""))) return null;
  try {
    return (await import(new URL(`./games/${game}.js`, import.meta.url).href)).default || null;
  } catch (error) {
    return null;
  }
}

// -- the parts every game shares ------------------------------------------------------------------

/** The session totals the screen showed before this deal counted: what is shown, less this
    deal's running points or its result. */
export function baseTotals(live, view, drawer) {
  const shown = Array.from(live.querySelectorAll("[data-session-totals] .value"), (v) =>
    parseFloat(v.textContent.replace("−", "-").replace(",", ".")) || 0);
  const running = view.outcome ? view.outcome.points
    : (live.querySelector("[data-session-totals][data-running]") && drawer.running(view)) || null;
  return shown.map((total, seat) => total - (running ? running[seat] || 0 : 0));
}

function totalsOf(state, drawer) {
  const add = state.view.outcome ? state.view.outcome.points : drawer.running(state.view);
  return state.base.map((total, seat) => total + (add ? add[seat] || 0 : 0));
}

function setConclusion(live, sentences) {
  let box = live.querySelector("[data-conclusion]");
  if (!sentences.length) { if (box) box.remove(); return; }
  const fresh = h("div", { className: "conclusion", "data-conclusion": "" }, ...sentences.map((s) => h("p", {}, s)));
  if (box) box.replaceWith(fresh);
  else live.querySelector('[data-error-for="undo"]').after(fresh);
}

function drawTotals(live, state, drawer) {
  const totals = totalsOf(state, drawer);
  live.querySelectorAll("[data-session-totals] li").forEach((li, seat) => {
    const value = li.querySelector(".value");
    value.textContent = signed(totals[seat]);
    value.className = "value " + signClass(totals[seat]);
    // The dealer's tag moves with a deal started here.
    const name = li.querySelector(".name");
    const tag = name.querySelector(".tag");
    if (seat !== state.view.dealer && tag) {
      // The server writes the name and the space before the tag as one text node: only the space goes.
      const before = tag.previousSibling;
      if (before && before.nodeType === Node.TEXT_NODE) before.textContent = before.textContent.replace(/\s+$/, "");
      tag.remove();
    }
    if (seat === state.view.dealer && !tag) name.append(" ", h("span", { className: "tag" }, t().dealer || ""));
  });
  return totals;
}

function drawEntries(live, state) {
  let box = live.querySelector('details[data-keep-open="entries"]');
  if (!state.entries.length) { if (box) box.remove(); return; }
  if (!box) {
    box = h("details", { className: "panel", "data-keep-open": "entries" }, h("summary", {}, t().recorded || ""),
      h("ol", { className: "list-plain" }));
    live.append(box);
  }
  const summary = box.querySelector("summary");
  summary.textContent = summary.textContent.replace(/\(\d+\)\s*$/, "").trimEnd() + " (" + state.seq + ")";
  box.querySelector("ol").replaceChildren(...state.entries.map((e) =>
    h("li", {}, h("span", { className: "muted" }, "#" + e.seq), " " + e.text + " ", h("span", { className: "tag" }, t().waiting_tag || "⏳"))));
}

function drawFinished(live, state, totals) {
  live.querySelector("[data-finished]")?.remove();
  if (!state.view.finished) return;
  const template = document.getElementById("fresh-finished");
  if (!template) return;
  const panel = template.content.firstElementChild.cloneNode(true);
  panel.querySelector("#finished-h").textContent = fmt(t().deal_over, { n: state.number });
  const outcome = state.view.outcome;
  panel.querySelectorAll("tbody tr").forEach((row, seat) => {
    const cells = row.querySelectorAll("td");
    cells[0].textContent = signed(outcome.points[seat]);
    cells[0].className = "num value " + signClass(outcome.points[seat]);
    cells[1].textContent = String(outcome.placements[seat]);
    cells[2].textContent = signed(totals[seat]);
    cells[2].className = "num " + signClass(totals[seat]);
  });
  const next = state.nextDealer;
  panel.querySelectorAll('input[name="dealer"]').forEach((radio) => { radio.checked = Number(radio.value) === next; });
  const start = panel.querySelector('[data-next-deal] button[type="submit"]');
  if (start) start.textContent = fmt(t().start_deal, { n: state.number + 1 });
  live.querySelector("section[aria-labelledby=totals-h]").before(panel);
}

/** The undo button names what it takes back: the device's last entry (state.log, taken back
    on the device at once), else the stored entry the server's screen offered (state.stored:
    {label, payload}; undoing it is the server's, offline.js says so), else none. */
function drawUndo(live, state) {
  const log = state.log || [];
  const last = log[log.length - 1];
  const undo = last ? { label: last.text, payload: last.payload } : state.stored || null;
  let form = live.querySelector("#form-undo");
  if (!undo) { if (form) form.remove(); return; }
  if (!form) {
    const word = (S.T.offline_text && S.T.offline_text.undo) || "Undo";
    form = h("form", { method: "post", "data-undo": "", id: "form-undo" },
      h("button", { type: "submit", className: "undo" }, "↶ " + word + ": ", h("span", { className: "what" })));
    live.querySelector(".toolbar").prepend(form);
  }
  form.dataset.payload = JSON.stringify(undo.payload);
  form.querySelector(".what").textContent = undo.label;
}

/** The whole state-dependent screen from the device's state of the deal:
    {view, seq, number, base, entries, nextDealer, log, stored}; `sentences` the verdict to show.
    `live`: where to draw (a detached copy of the live part, for the warm-up). */
export function drawState(state, drawer, sentences, live = S.liveBox.querySelector("[data-live]")) {
  live.dataset.seq = String(state.seq);
  live.dataset.status = state.view.finished ? "finished" : "running";
  live.dataset.version = "device-" + state.deal + "-" + state.seq;
  drawUndo(live, state);
  setConclusion(live, sentences);
  drawer.draw(live, state.view, state);
  const totals = drawTotals(live, state, drawer);
  drawFinished(live, state, totals);
  drawEntries(live, state);
  live.querySelectorAll("form[data-entry]").forEach((form) => {
    form.querySelectorAll(".slot.is-active").forEach((s) => s.classList.remove("is-active"));
  });
  setupForms(live);
  // The plan's standing is the engine's answer: drawn when it comes (a moment later).
  drawPlan(live, state).catch(() => undefined);
}

/** A deal started on this device: the empty form of a fresh deal (rendered by the server in
    deal.html's <template id="fresh-deal">), then the state drawn into it. */
export function drawFreshDeal(state, drawer) {
  const live = S.liveBox.querySelector("[data-live]");
  const template = document.getElementById("fresh-deal");
  if (!template) return false;
  const plan = live.querySelector("[data-plan-status]");
  const keep = new Set([live.querySelector(".toolbar"), live.querySelector('[data-error-for="undo"]'),
    live.querySelector("section[aria-labelledby=totals-h]"), live.querySelector("#deal-snapshot"), plan]);
  Array.from(live.children).forEach((child) => { if (!keep.has(child)) child.remove(); });
  live.querySelector("section[aria-labelledby=totals-h]").before(template.content.cloneNode(true));
  live.querySelectorAll("form[data-entry]").forEach((form) => form.reset());
  drawState(state, drawer, []);
  drawHeading(state);
  return true;
}

/** The page's heading and dealer line say which deal this is. */
export function drawHeading(state) {
  const h1 = S.screen.querySelector(".deal-head h1");
  if (h1) {
    const game = h1.textContent.split(" · ")[0];
    h1.textContent = game + " · " + fmt(t().deal_n, { n: state.number });
  }
  const strong = S.screen.querySelectorAll(".deal-meta strong");
  if (strong.length >= 2) {
    strong[0].textContent = nameOf(state.view.dealer);
    strong[1].textContent = nameOf(state.view.first_player);
  }
  // The breadcrumb's last step names the deal too (base.html's nav, deal.html's crumbs).
  const crumb = document.querySelector('.crumbs a[aria-current="page"]');
  if (crumb && t().crumb_deal) crumb.textContent = fmt(t().crumb_deal, { n: state.number });
  document.title = document.title.replace(/\d+/, String(state.number));
}
