/* Drawing a deal the server has not rendered: after an entry the tablet's engine accepted
   offline, or a deal started offline. The server's own rendering is the model: the same
   elements, the same sentences (the i18n JSON's offline_table carries the server screen's
   msgids in the reader's language), filled from the engine's view. One job: the DOM.

   Each game the offline path knows has a drawer below (keyed by the screen's data-game): the
   verdict's sentences (as the server's referee/games/<game>.py explain()), the entry's line in
   the list, and the redraw of its own part of the screen. A game without one keeps today's
   online recording (offline.js says so on the screen). */

import { S, fmt } from "./shared.js";
import { setupForms } from "./pad.js";

const RANKS_EN = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const LT_RANK = { J: "V", Q: "D", A: "T" };

function t() { return S.T.offline_table || {}; }
function names() { return S.T.names || []; }
function nameOf(seat) { return seat == null ? "" : (names()[seat] ?? "?"); }
function notation() { return S.screen.dataset.notation; }
function showRank(rank) { return notation() === "lt" ? (LT_RANK[rank] || rank) : rank; }
function counted(forms, n, params) {
  let category = "other";
  try { category = new Intl.PluralRules(document.documentElement.lang || "en").select(n); } catch (e) { /* other */ }
  return fmt(forms[category] ?? forms.other ?? forms.one, params);
}
function andList(items) {
  if (items.length < 2) return items.join("");
  return fmt(t().and_list, { rest: items.slice(0, -1).join(", "), last: items[items.length - 1] });
}
export function signed(n) { return n > 0 ? "+" + n : n < 0 ? "−" + -n : "0"; }
function signClass(n) { return n > 0 ? "pos" : n < 0 ? "neg" : "zero"; }
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "className") node.className = v; else node.setAttribute(k, v);
  }
  node.append(...children.filter((c) => c != null));
  return node;
}

// -- the games ------------------------------------------------------------------------------------

const rukas = {
  /** referee/games/rukas.py RukasPages.explain, sentence for sentence. */
  sentences(view, last) {
    const T = t();
    const rankOf = {};
    last.reveal_order.forEach((seat, i) => { rankOf[seat] = last.cards[i]; });
    const rank = (seat) => showRank(rankOf[seat]);
    const reason = last.reason || {};
    const reasons = [];
    if (reason.beaten) reasons.push(fmt(T.seven_beat_ace, { by: nameOf(reason.beaten.by), ace: nameOf(reason.beaten.ace) }));
    for (const group of reason.cancelled || []) {
      reasons.push(fmt(T.cancel, { rank: showRank(group.rank), names: group.seats.map(nameOf).join(", ") }));
    }
    const taker = last.taker;
    if (taker == null) {
      reasons.push(T.none_left);
      const sentences = [fmt(T.nobody_sentence, { reasons: reasons.join("; ") })];
      if (view.options.void_trick === "void") sentences.push(fmt(T.void_again, { name: nameOf(view.leader) }));
      else if (view.finished) sentences.push(T.lost_points);
      else sentences.push(fmt(T.waits, { count: view.pending }));
      return sentences;
    }
    const chain = reason.chain || [];
    if (reason.basis === "ace") reasons.push(T.ace_stands);
    else if (reason.basis === "seven_beat_ace" && chain.length) reasons.push(T.seven_would);
    else if (chain.length) reasons.push(fmt(T.highest, { rank: rank(chain[0]) }));
    for (let i = 0; i + 1 < chain.length; i++) {
      reasons.push(fmt(T.one_lower, { lower: rank(chain[i + 1]), name: nameOf(chain[i + 1]), higher: rank(chain[i]) }));
    }
    const low = Math.max(0, RANKS_EN.indexOf(rankOf[taker]));
    if (reason.basis !== "ace" && low > 0) reasons.push(fmt(T.none_below, { below: showRank(RANKS_EN[low - 1]), rank: rank(taker) }));
    const sentences = [fmt(T.takes_sentence, { name: nameOf(taker), rank: rank(taker), reasons: reasons.join("; ") })];
    if (last.carried) sentences.push(counted(T.carried, last.carried, { name: nameOf(taker), count: last.carried }));
    return sentences;
  },
  describe(payload) { return fmt(t().trick_entry, { cards: (payload.cards || []).map((c) => String(c).trim()).join(" ") }); },
  /** The last trick's cards, the next trick's form in reveal order, the tricks so far. */
  draw(live, view) {
    const T = t();
    const last = view.last;
    let reveal = live.querySelector('section[aria-labelledby="last-trick-h"]');
    const tricksBox = live.querySelector('section[aria-labelledby="deal-tricks-h"]');
    if (last) {
      const fresh = h("section", { className: "panel", "aria-labelledby": "last-trick-h" },
        h("h2", { id: "last-trick-h" }, fmt(T.trick_n, { n: view.tricks_played }) + ": ",
          h("span", { className: "taker" }, last.taker == null ? T.nobody_takes : fmt(T.takes, { name: nameOf(last.taker) }))),
        h("ol", { className: "reveal", "aria-label": (reveal && reveal.querySelector("ol")?.getAttribute("aria-label")) || "" },
          ...last.reveal_order.map((seat, i) => h("li", { className: "st-" + last.status[i] },
            h("span", { className: "rank" }, showRank(last.cards[i])), h("span", {}, nameOf(seat)),
            h("span", { className: "state" }, (T.status || {})[last.status[i]] || last.status[i])))));
      if (!fresh.querySelector("ol").getAttribute("aria-label")) fresh.querySelector("ol").removeAttribute("aria-label");
      if (reveal) reveal.replaceWith(fresh);
      else if (tricksBox) tricksBox.before(fresh);
      reveal = fresh;
    } else if (reveal) {
      reveal.remove();
    }
    const form = live.querySelector("form#form-trick");
    if (form && view.finished) {
      live.querySelectorAll('.sticky-action:has(button[form="form-trick"])').forEach((bar) => bar.remove());
      form.remove();
    } else if (form) {
      const order = Array.from({ length: view.players }, (_x, step) => (view.leader + step) % view.players);
      const box = form.querySelector(".slots");
      const slots = Array.from(form.querySelectorAll(".slot"));
      order.forEach((seat, position) => {
        const slot = slots.find((s) => s.querySelector("[data-card-input]")?.id === "card-" + seat);
        if (!slot) return;
        slot.dataset.played = (view.played[seat] || []).map(showRank).join(" ");
        const pos = slot.querySelector(".pos");
        if (pos) pos.textContent = position + 1 + ".";
        box.append(slot);
      });
      const heading = form.querySelector("h2");
      if (heading) {
        heading.textContent = fmt(T.trick_of_13, { n: view.tricks_played + 1 }) + " · " +
          fmt(T.reveals_first, { name: nameOf(view.leader) });
      }
    }
    if (tricksBox) {
      tricksBox.querySelectorAll(".totals li").forEach((li, seat) => {
        const turn = seat === view.leader && !view.finished;
        li.classList.toggle("is-turn", turn);
        const value = li.querySelector(".value");
        if (value) value.textContent = String(view.tricks[seat]);
        li.querySelector(".sub")?.remove();
        if (turn) li.append(h("span", { className: "sub" }, T.reveals_first_short));
      });
      let notice = tricksBox.querySelector(".notice");
      if (view.pending) {
        if (!notice) { notice = h("p", { className: "notice" }); tricksBox.append(notice); }
        notice.textContent = counted(T.pending, view.pending, { n: view.pending });
      } else if (notice) notice.remove();
    }
  },
  running(view) { return view.tricks; },
  /** A legal trick (each seat's first rank not played yet), to warm the engine up with. */
  sample(view) {
    const order = Array.from({ length: view.players }, (_x, step) => (view.leader + step) % view.players);
    return { type: "trick", cards: order.map((seat) => showRank(RANKS_EN.find((r) => !(view.played[seat] || []).includes(r)))) };
  },
};

const velnias = {
  sentences(_view, last) { return [fmt(t().headline[last.condition], { name: nameOf(last.player) })]; },
  describe(payload) {
    const T = t();
    const condition = (T.conditions || {})[payload.condition] || String(payload.condition);
    if (payload.player == null) return fmt(T.end_entry, { condition });
    return fmt(T.end_entry_who, { condition, name: nameOf(payload.player) });
  },
  /** The deal's end: the form goes, who pays whom comes. */
  draw(live, view) {
    const form = live.querySelector("form#form-end");
    if (!view.finished || !view.last) return;
    const T = t();
    const rows = (view.last.payments || []).map((p) => {
      const payer = nameOf(p.from), payee = nameOf(p.to);
      const why = T.why || {};
      const reason = p.why === "cards_left" ? fmt(why.cards_left, { name: payer })
        : p.why === "last_card" ? why.last_card
          : p.why === "fewer_cards" ? fmt(why.fewer_cards, { name: payee }) : fmt(why.more_cards, { name: payer });
      return h("li", {}, h("strong", {}, payer), " → ", h("strong", {}, payee), ": " + p.points + " ",
        h("span", { className: "muted" }, "(" + reason + ")"));
    });
    const section = h("section", { className: "panel", "aria-labelledby": "payments-h" },
      h("h2", { id: "payments-h" }, T.who_pays), h("ul", { className: "list-plain" }, ...rows));
    const old = live.querySelector('section[aria-labelledby="payments-h"]');
    if (old) old.replaceWith(section);
    else if (form) form.before(section);
    else live.querySelector("[data-finished], section[aria-labelledby=totals-h]")?.before(section);
    live.querySelectorAll('.sticky-action:has(button[form="form-end"])').forEach((bar) => bar.remove());
    if (form) form.remove();
  },
  running() { return null; },
  sample(view) { return { type: "end", condition: "blocked", player: null, hand_counts: Array(view.players).fill(1) }; },
};

export const GAMES = { rukas, velnias };
export function drawerFor(game) { return GAMES[game] || null; }

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
    if (seat !== state.view.dealer && tag) { tag.previousSibling?.remove(); tag.remove(); }
    if (seat === state.view.dealer && !tag) name.append(" ", h("span", { className: "tag" }, t().dealer || ""));
  });
  return totals;
}

function drawEntries(live, state) {
  let box = live.querySelector('details[data-keep-open="entries"]');
  if (!state.entries.length) { if (box) box.remove(); return; }
  if (!box) {
    box = h("details", { className: "panel", "data-keep-open": "entries" }, h("summary"), h("ol", { className: "list-plain" }));
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
  const start = panel.querySelector('button[type="submit"]');
  if (start) start.textContent = fmt(t().start_deal, { n: state.number + 1 });
  live.querySelector("section[aria-labelledby=totals-h]").before(panel);
}

/** The whole state-dependent screen from the device's state of the deal:
    {view, seq, number, base, entries, nextDealer}; `sentences` the verdict to show. */
export function drawState(state, drawer, sentences) {
  const live = S.liveBox.querySelector("[data-live]");
  live.dataset.seq = String(state.seq);
  live.dataset.status = state.view.finished ? "finished" : "running";
  live.dataset.version = "device-" + state.deal + "-" + state.seq;
  // Undo and corrections talk to the server about stored entries: not while entries wait here.
  live.querySelector("#form-undo")?.remove();
  setConclusion(live, sentences);
  drawer.draw(live, state.view);
  const totals = drawTotals(live, state, drawer);
  drawFinished(live, state, totals);
  drawEntries(live, state);
  live.querySelectorAll("form[data-entry]").forEach((form) => {
    form.querySelectorAll(".slot.is-active").forEach((s) => s.classList.remove("is-active"));
  });
  setupForms(live);
}

/** A deal started on this device: the empty form of a fresh deal (rendered by the server in
    deal.html's <template id="fresh-deal">), then the state drawn into it. */
export function drawFreshDeal(state, drawer) {
  const live = S.liveBox.querySelector("[data-live]");
  const template = document.getElementById("fresh-deal");
  if (!template) return false;
  const keep = new Set([live.querySelector(".toolbar"), live.querySelector('[data-error-for="undo"]'),
    live.querySelector("section[aria-labelledby=totals-h]"), live.querySelector("#deal-snapshot")]);
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
  document.title = document.title.replace(/\d+/, String(state.number));
}
