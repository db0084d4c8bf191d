/* Elgeta on the tablet, offline: the verdict's sentences (as referee/games/elgeta.py's
   ElgetaPages.explain), a trick's line in the entry list (describe_entry), and the redraw of the
   forecast, the trick form with the cards the referee already knows (trick_rows) and the piles,
   as templates/referee/games/elgeta.html draws them. While the server cannot be asked, the
   referee's preview of a trick (who would take it, or the tie-break round it asks for, filled in
   as refusal_hint fills it) comes from the device's engine. On the screen, online or not: the
   trick form is asked about round by round. The drawer's shape is described in
   ../offline-view.js and ../room.js. */

import { RANKS_EN, counted, fmt, h, nameOf, notation, showRank, signClass, signed, t } from "../offline-draw.js";
import { askAboutRounds } from "../preview.js";

/** The trick form's last round has every card (or its "no card" mark): the referee can say
    who takes it, or ask for a tie-break round. */
function lastRoundComplete(form) {
  const rows = form.querySelectorAll("[data-round]");
  const last = rows[rows.length - 1];
  return Array.from(last.querySelectorAll("[data-card-input]")).every((input) =>
    input.value.trim() !== "" || input.hasAttribute("data-empty-ok"));
}

const SUIT_SYMBOLS = { S: "♠", C: "♣", D: "♦", H: "♥" };
const SYMBOL_SUITS = { "♠": "S", "♣": "C", "♦": "D", "♥": "H" };

// -- cards: canonical text ("QH", "10S") as the session writes it, and typed text read back ----------

/** Canonical card text -> [rank, suit letter or null] (presenters.split_card). */
function splitCard(text) {
  return text && text !== "X" && SUIT_SYMBOLS[text.slice(-1)] ? [text.slice(0, -1), text.slice(-1)] : [text, null];
}
/** A canonical card as the session writes it, suit as its symbol (presenters.show_card). */
export function showCard(text) {
  if (text == null) return "–";
  const [rank, suit] = splitCard(text);
  return showRank(rank) + (suit ? SUIT_SYMBOLS[suit] : "");
}
function rankIndex(text) { return RANKS_EN.indexOf(splitCard(text)[0]); }

const RANK_INPUT = {
  en: { T: "10", J: "J", Q: "Q", K: "K", A: "A" },
  lt: { V: "J", D: "Q", K: "K", T: "A" },
};
const LT_SUIT_WORDS = { vynai: "S", kryziai: "C", bugnai: "D", sirdys: "H", vyn: "S", kry: "C", bug: "D", sir: "H" };
const fold = (text) => text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();

/** The canonical card a typed text names in the session's notation (referee/rules/cards.py's
    parse_card, for the forms it accepts), or null when it names none. Only the tie-break
    round's pad hint uses it (which cards a seat has already turned in this trick): the
    referee itself always reads the cards on the device's engine. */
export function readCard(text, writing = notation()) {
  const raw = String(text ?? "").trim().split(/\s+/).join(" ");
  let body = raw, suit = null;
  if (SYMBOL_SUITS[raw.charAt(0)]) { body = raw.slice(1).trim(); suit = SYMBOL_SUITS[raw.charAt(0)]; }
  else if (SYMBOL_SUITS[raw.slice(-1)]) { body = raw.slice(0, -1).trim(); suit = SYMBOL_SUITS[raw.slice(-1)]; }
  else if (writing === "lt") {
    const parts = body.split(" ");
    if (parts.length === 2) {
      const found = [[parts[0], parts[1]], [parts[1], parts[0]]].find(([, word]) => LT_SUIT_WORDS[fold(word)]);
      if (found) { body = found[0]; suit = LT_SUIT_WORDS[fold(found[1])]; }
    } else {
      for (let cut = 1; cut < Math.min(3, body.length) && !suit; cut += 1) {
        if (LT_SUIT_WORDS[fold(body.slice(cut))]) { suit = LT_SUIT_WORDS[fold(body.slice(cut))]; body = body.slice(0, cut); }
      }
    }
  } else if (body.length >= 2 && "SCDH".includes(body.slice(-1).toUpperCase())) {
    suit = body.slice(-1).toUpperCase();
    body = body.slice(0, -1);
  }
  const upper = body.toUpperCase();
  const rank = /^([2-9]|10)$/.test(upper) ? upper : (RANK_INPUT[writing === "lt" ? "lt" : "en"][upper] || null);
  return rank && suit ? rank + suit : null;
}

// -- the cards the referee already knows (referee/games/elgeta.py, the same steps) ----------------

/** The seats still in, from the trick's leader round the table (_play_order). */
export function playOrder(view) {
  const seatsIn = new Set(view.in);
  return Array.from({ length: view.players }, (_x, step) => (view.leader + step) % view.players)
    .filter((seat) => seatsIn.has(seat));
}

/** Each seat's next cards in order where the referee knows them (strict order, own pile down to
    one card), else null (sequences). */
export function sequences(snapshot, order) {
  const strict = (snapshot.options || {}).strict_order ?? true;
  return new Map(order.map((seat) => {
    const pile = snapshot.piles[seat];
    return [seat, !strict || pile.initial.length > 1 ? null : [...pile.initial, ...pile.captured]];
  }));
}

/** Round `index` of a trick: per seat in play order, the card the referee expects (or null)
    and whether the seat has nothing left to add (round_cards). */
export function roundCards(known, counts, order, index) {
  return order.map((seat) => {
    const sequence = known.get(seat);
    const empty = counts[seat] <= index;
    const card = sequence && index < sequence.length ? sequence[index] : null;
    return { seat, card: empty ? null : card, empty };
  });
}

/** The next trick's rounds as far as the referee knows them: all of them when every card is
    known (a tie goes on while the highest rank appears twice), else the first (determined_trick). */
export function determinedTrick(known, counts, order) {
  const rounds = [];
  for (let index = 0; index < 14; index += 1) {
    const cells = roundCards(known, counts, order, index);
    rounds.push(cells);
    if (cells.some((cell) => cell.card === null && !cell.empty)) break;
    const ranks = cells.filter((cell) => cell.card !== null).map((cell) => rankIndex(cell.card));
    if (!ranks.length || ranks.filter((rank) => rank === Math.max(...ranks)).length === 1) break;
  }
  return rounds;
}

/** What the referee adds when it asks for tie-break round `number` (1-based): each seat's card
    when known, else the cards it may still turn (refusal_hint). */
export function tieBreakHint(state, number, payload) {
  const { view, snapshot } = state;
  const order = playOrder(view);
  const cells = roundCards(sequences(snapshot, order), view.counts, order, number - 1);
  const turned = new Map(order.map((seat) => [seat, new Set()]));
  for (const cards of payload.rounds || []) {
    order.forEach((seat, position) => {
      const text = Array.isArray(cards) ? cards[position] : undefined;
      const card = typeof text === "string" ? readCard(text) : null;
      if (card) turned.get(seat).add(card);
    });
  }
  return {
    next_round: number - 1,
    prefill: cells.map((cell) => (cell.card ? showCard(cell.card) : "")),
    empty: cells.map((cell) => cell.empty),
    possible: cells.map((cell) => (cell.card !== null ? []
      : snapshot.piles[cell.seat].initial.filter((card) => !turned.get(cell.seat).has(card))).map(showCard).join(" ")),
  };
}

// -- words -----------------------------------------------------------------------------------------

/** The forecast in words, and whether the deal may be finished from it (_forecast). */
export function forecastText(forecast) {
  const T = t();
  if (!forecast) return [null, false];
  const count = forecast.tricks;
  if (forecast.cycle) return [counted(T.forecast_cycle, forecast.cycle.length, { length: forecast.cycle.length }), true];
  if ((forecast.ending === "last_player" || forecast.ending === "all_aces") && forecast.winner != null) {
    return [counted(T.forecast_wins, count, { name: nameOf(forecast.winner), count }), true];
  }
  if (forecast.ending === "no_cards") return [counted(T.forecast_draw, count, { count }), true];
  return [counted(T.forecast_open, count, { count }), false];
}

function trickSentences(last) {
  const T = t();
  const taker = last.taker;
  const taken = Number(last.cards || 0);
  const cards = counted(T.cards_word, taken, { count: taken });
  const ties = last.ties || [];
  const sentences = [];
  if (taker == null) sentences.push(T.no_taker);
  else if (ties.length) sentences.push(counted(T.takes_after, ties.length, { name: nameOf(taker), cards, count: ties.length }));
  else {
    const order = last.order || [];
    const rounds = last.rounds && last.rounds.length ? last.rounds : [[]];
    const final = rounds[rounds.length - 1];
    const at = order.indexOf(taker);
    const card = at >= 0 && at < final.length ? final[at] : null;
    sentences.push(fmt(T.takes_with, { name: nameOf(taker), cards, card: showCard(card) }));
  }
  for (const seat of last.out || []) sentences.push(fmt(T.beggar, { name: nameOf(seat) }));
  return sentences;
}

// -- the screen's parts ----------------------------------------------------------------------------

/** The trick form's rounds as the server's trick_rows gives them to elgeta.html: per round its
    index and per seat in play order its name, the value filled in (a card the referee knows),
    whether it has nothing to add, and for the first round the cards it may turn (possible, in
    the session's notation) and their ranks (allowed). */
export function trickRows(view, snapshot) {
  const order = playOrder(view);
  return determinedTrick(sequences(snapshot, order), view.counts, order).map((cells, index) => ({
    index,
    slots: cells.map((cell) => {
      const possible = (view.expected[cell.seat] || {}).possible || [];
      return {
        seat: cell.seat, name: nameOf(cell.seat), value: cell.card ? showCard(cell.card) : "", empty: cell.empty,
        possible: index === 0 ? possible.map(showCard).join(" ") : "",
        allowed: index === 0 && possible.length
          ? [...new Set(possible.map((card) => showRank(splitCard(card)[0])))].sort().join(" ") : "",
      };
    }),
  }));
}

function slotNode(slot, index) {
  const id = `r${index}-${slot.seat}`;
  const attrs = { className: "slot", "data-slot": "", "data-player-name": slot.name, "data-possible": slot.possible };
  if (slot.allowed) Object.assign(attrs, { "data-allowed": slot.allowed, "data-reason": t().not_in_pile });
  const input = { type: "text", id, name: `f:rounds:round:${index}`, value: slot.value,
    autocomplete: "off", autocapitalize: "characters", spellcheck: "false", maxlength: "12",
    "data-card-input": "", "data-needs-suit": "" };
  if (slot.empty) Object.assign(input, { readonly: "", placeholder: "–", "data-empty-ok": "", "aria-describedby": id + "-none" });
  return h("div", attrs, h("label", { for: id }, slot.name), h("input", input),
    slot.empty ? h("span", { className: "small muted", id: id + "-none" }, t().no_card) : null);
}

function roundRows(view, snapshot) {
  const T = t();
  return trickRows(view, snapshot).map((row) =>
    h("fieldset", { className: "round-row", "data-round": String(row.index) },
      h("legend", {}, row.index === 0 ? T.round_first : fmt(T.round_tie, { n: row.index + 1 })),
      h("div", { className: "slots" }, ...row.slots.map((slot) => slotNode(slot, row.index)))));
}

/** The forecast panel, with the finish form when the deal may be finished from it. */
function drawForecast(live, view, seq) {
  const T = t();
  const old = live.querySelector('section[aria-labelledby="forecast-h"]');
  const trick = live.querySelector("form#form-trick");
  const [text, canFinish] = forecastText(view.forecast);
  if (!text || view.finished || !trick) { if (old) old.remove(); return; }
  const section = h("section", { className: "panel", "aria-labelledby": "forecast-h" },
    h("h2", { id: "forecast-h" }, T.forecast), h("p", { className: "forecast", "data-forecast": "" }, text));
  if (canFinish) {
    // The trick form's own hidden fields (the CSRF token, a key, the deal's seq), for a finish.
    const fields = Array.from(trick.querySelectorAll("input[type=hidden]"), (input) => input.cloneNode());
    fields.forEach((input) => {
      if (input.name === "form") input.value = "finish";
      if (input.name === "f:type:str") input.value = "finish";
      if (input.name === "expected_seq") input.value = String(seq);
    });
    section.append(h("form", { method: "post", action: trick.getAttribute("action") || "", "data-entry": "", id: "form-finish" },
      ...fields, h("p", { className: "error", role: "alert", "data-error-for": "finish" }),
      h("button", { type: "submit", className: "big" }, T.finish_button)));
  }
  if (old) old.replaceWith(section);
  else trick.before(section);
}

function drawPiles(live, view) {
  const T = t();
  const box = live.querySelector('section[aria-labelledby="piles-h"]');
  if (!box) return;
  box.querySelector("#piles-h").textContent = counted(T.piles_after, view.tricks, { n: view.tricks });
  const seatsIn = new Set(view.in);
  box.querySelectorAll(".totals li").forEach((li, seat) => {
    const out = !seatsIn.has(seat);
    const leads = seat === view.leader && !view.finished;
    li.className = [leads ? "is-turn" : "", out ? "is-out" : ""].filter(Boolean).join(" ");
    li.querySelector(".value").textContent = String(view.counts[seat]);
    li.querySelector(".sub").textContent = out ? T.pile_out : leads ? T.pile_leads : T.pile_cards;
  });
}

export default {
  /** The trick form is asked about round by round (room.js): a tie-break round follows a tie. */
  roundComplete(form) { return form.hasAttribute("data-elgeta") ? lastRoundComplete(form) : null; },
  /** referee/games/elgeta.py ElgetaPages.explain, sentence for sentence. */
  sentences(view, last) {
    const T = t();
    const sentences = last.kind === "finish" ? [T.finished_from_forecast] : trickSentences(last);
    const outcome = view.outcome;
    if (outcome && last.ending) {
      const winners = (outcome.winners || []).map(nameOf).join(", ");
      const firsts = outcome.placements.flatMap((place, seat) => (place === 1 ? [nameOf(seat)] : [])).join(", ");
      const endings = T.ending || {};
      if (last.ending === "last_player" || last.ending === "all_aces") sentences.push(fmt(endings[last.ending], { name: winners }));
      else if (last.ending === "no_cards") sentences.push(fmt(endings.no_cards, { names: firsts }));
      else sentences.push(fmt(endings.cycle, { names: firsts }));
    }
    return sentences;
  },
  /** describe_entry: the rounds as typed (already in the session's notation). */
  describe(payload) {
    if (payload.type === "finish") return t().finish_entry;
    const text = (payload.rounds || []).map((round) =>
      (Array.isArray(round) ? round : [round]).map((card) => (card == null ? "–" : String(card))).join(" ")).join(" / ");
    return fmt(t().trick_entry, { cards: text });
  },
  /** The forecast, the next trick's form (its known cards filled in), the piles. */
  draw(live, view, state) {
    const T = t();
    const form = live.querySelector("form#form-trick");
    drawForecast(live, view, state ? state.seq : 0);
    if (form && view.finished) {
      live.querySelectorAll('.sticky-action:has(button[form="form-trick"])').forEach((bar) => bar.remove());
      form.remove();
    } else if (form && state) {
      form.querySelector("h2").textContent = fmt(T.trick_n, { n: view.tricks + 1 }) + " · " + fmt(T.leads_name, { name: nameOf(view.leader) });
      form.querySelector("[data-rounds]").replaceChildren(...roundRows(view, state.snapshot));
      const seq = form.querySelector('input[name="expected_seq"]');
      if (seq) seq.value = String(state.seq);
      const box = form.querySelector("[data-preview-box]");
      if (box) { box.hidden = true; box.replaceChildren(); }
      const msg = form.querySelector("[data-pad-msg]");
      if (msg) msg.textContent = "";
    }
    drawPiles(live, view);
    // A trick the referee knows whole: its preview comes at once, as on the server's screen.
    if (form && form.isConnected && !view.finished && lastRoundComplete(form)) askAboutRounds(form);
  },
  running() { return null; },
  /** A legal first round (each seat a card it may turn, ranks apart where it can), to warm up with. */
  sample(view) {
    const used = new Set();
    const round = playOrder(view).map((seat) => {
      const expected = view.expected[seat] || {};
      const cards = expected.exact ? [expected.exact] : expected.possible || [];
      const card = cards.find((c) => !used.has(splitCard(c)[0])) || cards[0];
      used.add(splitCard(card)[0]);
      return showCard(card);
    });
    return { type: "trick", rounds: [round] };
  },
  /** The referee's preview of a form's trick, as the server's preview answers it: who would take
      it ({status: 200, data: {html}}), or the refusal, with the tie-break round it asks for
      filled in ({status: 400, data: {error, next_round, prefill, empty, possible}}). `apply`
      referees an entry on the device's engine. */
  async preview(state, payload, apply) {
    const T = t();
    const answer = await apply(payload);
    if (answer.refusal) {
      const data = { error: answer.refusal.error };
      const rounds = Array.isArray(payload.rounds) ? payload.rounds : [];
      const final = rounds[rounds.length - 1];
      if (Array.isArray(final)) {
        // The engine refuses a trick whose last round ties only after it read every round; then
        // one more round (of no cards) is read too and refused otherwise. A refusal that stays
        // the same was about the rounds typed; one that changes asked for round n+1.
        const probe = await apply({ ...payload, rounds: [...rounds, final.map(() => null)] });
        if (!(probe.refusal && probe.refusal.error === answer.refusal.error)) {
          Object.assign(data, tieBreakHint(state, rounds.length + 1, payload));
        }
      }
      return { status: 400, data };
    }
    if (!answer.view) throw new Error(answer.failure || "The engine gave no answer.");
    const view = { ...answer.view, outcome: answer.outcome ?? answer.view.outcome ?? null };
    const box = h("div", {}, h("h3", {}, T.if_you_confirm),
      ...(view.last ? this.sentences(view, view.last) : []).map((sentence) => h("p", {}, sentence)));
    if (view.outcome) {
      box.append(h("ul", { className: "totals", "data-preview-points": "" }, ...view.outcome.points.map((points, seat) =>
        h("li", {}, h("span", { className: "name" }, nameOf(seat)), h("span", { className: "value " + signClass(points) }, signed(points))))));
    }
    return { status: 200, data: { html: box.innerHTML } };
  },
};
