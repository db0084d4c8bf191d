/* Mičiganas on the tablet, offline: the verdict's sentences (as referee/games/michigan.py's
   MichiganPages.explain), an entry's line in the entry list (its describe_entry), and the
   redraw of the game's part of the screen as templates/referee/games/michigan.html draws it:
   the prize cards and their chips, the sequence (live mode), the entry forms, the chips this
   deal and the chip movements. On the screen, online or not: the seat that went out holds 0
   cards. The drawer's shape is described in ../offline-view.js and ../room.js. */

import { counted, fmt, h, nameOf, showRank, signClass, signed, t } from "../offline-draw.js";
import { zeroSeat } from "../pad.js";

const SUIT_SYMBOLS = { S: "♠", C: "♣", D: "♦", H: "♥" };

/** Canonical card text ("QH", "10S") -> its rank and suit letter (as presenters.split_card). */
function splitCard(text) {
  const value = String(text);
  const suit = value.slice(-1);
  return value !== "X" && suit in SUIT_SYMBOLS ? { rank: value.slice(0, -1), suit } : { rank: value, suit: null };
}

/** A card as plain text in the session's notation: "D♥" (presenters.show_card). */
export function showCard(text) {
  if (text == null) return "–";
  const { rank, suit } = splitCard(text);
  return showRank(rank) + (suit ? SUIT_SYMBOLS[suit] : "");
}

/** A card face as the |card filter renders it (presenters.card_html). */
function cardNode(text) {
  if (text == null) return h("span", { className: "card card-none" }, "–");
  const { rank, suit } = splitCard(text);
  if (!suit) return h("span", { className: "card" }, showRank(rank));
  return h("span", { className: "card suit-" + suit.toLowerCase() }, showRank(rank),
    h("span", { className: "suit", "aria-hidden": "true" }, SUIT_SYMBOLS[suit]),
    h("span", { className: "visually-hidden" }, " " + ((t().suits || {})[suit] || suit)));
}

const chips = (n) => counted(t().chips, n, { count: n });
const cards = (n) => counted(t().cards, n, { count: n });
const who = (seat) => (Number.isInteger(seat) ? nameOf(seat) : "?");

/** explain()'s sentences for a card played in live mode (MichiganPages._explain_play). */
function playSentences(last, name, penalty) {
  const T = t();
  const card = showCard(last.card);
  const sentences = [last.flagged
    ? fmt(T.flagged, { name, card, flagged: showCard(last.flagged), chips: penalty })
    : fmt(T.plays, { name, card })];
  const said = (T.play || {})[last.play];
  if (said) sentences.push(fmt(said, { name, chips: penalty }));
  return sentences;
}

/** What screen() tells the partial of one prize card: its chips and who played it. */
function prizeWho(view, card) {
  const T = t();
  const played = view.prizes_played.find((p) => p.card === card);
  if (played) return played.taken ? fmt(T.took, { name: nameOf(played.player), n: played.chips }) : fmt(T.played_by, { name: nameOf(played.player) });
  const carried = (view.pot_before || {})[card] || 0;
  return carried ? fmt(T.carried_in, { n: carried }) : T.chips_word;
}

/** The prize cards: the prize form's cards (manual mode, running) or the board alone. */
function drawBoard(live, view) {
  const T = t();
  const section = live.querySelector('section[aria-labelledby="board-h"]');
  if (!section) return;
  const total = view.prizes.reduce((sum, card) => sum + (view.pot[card] || 0), 0);
  const muted = section.querySelector("#board-h .muted");
  if (muted) muted.textContent = "· " + counted(T.on_board, total, { n: total });
  const form = section.querySelector("form#form-prize");
  if (form && !view.finished) {
    form.querySelectorAll("[data-prize-input]").forEach((input) => {
      const card = input.dataset.prizeInput;
      const played = view.prizes_played.some((p) => p.card === card);
      input.disabled = played;
      if (played) input.checked = false;
      input.setAttribute("aria-label", fmt(T.prize_label, { card: showCard(card), chips: view.pot[card] }));
      const face = input.closest(".prize").querySelector(".face");
      face.querySelector(".chips").textContent = String(view.pot[card]);
      face.querySelector(".who").textContent = prizeWho(view, card);
    });
    return;
  }
  // The deal is over (or recorded card by card): the board without a form, as the partial draws it.
  const board = h("div", { className: "prize-board" }, ...view.prizes.map((card) =>
    h("div", { className: "prize" }, h("span", { className: "face" }, cardNode(card),
      h("span", { className: "chips" }, String(view.pot[card])), " ", h("span", { className: "who" }, prizeWho(view, card))))));
  (form || section.querySelector(".prize-board")).replaceWith(board);
}

/** Live mode: the sequence being played and the card that would continue it. */
function drawForecast(live, view) {
  const T = t();
  live.querySelector("p.forecast")?.remove();
  const sequence = view.sequence;
  if (!view.live || !sequence || view.finished) return;
  const line = h("p", { className: "panel forecast" }, T.sequence + ": ", cardNode(sequence.card), " ");
  if (sequence.next) line.append("→ " + T.next + " ", cardNode(sequence.next));
  else line.append("· " + fmt(T.starts_new, { name: nameOf(view.starter) }));
  live.querySelector('section[aria-labelledby="board-h"]')?.after(line);
}

/** The swap form the partial shows while a swap is still possible: the misplay form's shape
    (the same fields: who, and the entry's type) with the swap's words. */
function swapForm(misplay) {
  const T = t().swap || {};
  const form = misplay.cloneNode(true);
  form.id = "form-exchange";
  form.querySelector('input[name="form"]').value = "exchange";
  form.querySelector('input[name="f:type:str"]').value = "exchange";
  form.querySelector("h3").textContent = T.title;
  form.querySelector('[role="radiogroup"]').setAttribute("aria-label", T.who);
  form.querySelectorAll('input[type="radio"]').forEach((radio) => { radio.checked = false; radio.defaultChecked = false; });
  const error = form.querySelector("[data-error-for]");
  error.dataset.errorFor = "exchange";
  error.textContent = "";
  form.querySelector('button[type="submit"]').textContent = T.record;
  misplay.after(form);
  return form;
}

/** The entry forms: gone once the deal is over; the card form's turn and next card (live),
    the cards-left bounds (a swap changes a hand), the swap form while a swap is possible. */
function drawForms(live, view) {
  const grid = live.querySelector(".actions-grid");
  if (!grid) return;
  if (view.finished) { grid.remove(); return; }
  const play = grid.querySelector("form#form-play");
  if (play) {
    play.querySelectorAll('input[type="radio"][name="f:player:int"]').forEach((radio) => {
      const turn = view.turn != null && Number(radio.value) === view.turn;
      radio.checked = turn;
      radio.defaultChecked = turn;
    });
    const input = play.querySelector("[data-card-input]");
    const next = view.sequence && view.sequence.next ? showCard(view.sequence.next) : "";
    if (input) { input.defaultValue = next; input.value = next; }
  }
  grid.querySelectorAll("form#form-out [data-count-seat]").forEach((input) => {
    input.dataset.max = String(view.hand_sizes[Number(input.dataset.countSeat)]);
  });
  let swap = grid.querySelector("form#form-exchange");
  if (!view.can_exchange) { swap?.remove(); return; }
  const misplay = grid.querySelector("form#form-misplay");
  if (!swap && misplay) swap = swapForm(misplay);
  if (swap) swap.querySelector(".help").textContent = fmt((t().swap || {}).help, { n: view.extra_hand_size });
}

/** Chips this deal per seat, and the deal's latest chip movements. */
function drawChips(live, view) {
  const T = t();
  const section = live.querySelector('section[aria-labelledby="net-h"]');
  if (!section) return;
  section.querySelectorAll(".totals li").forEach((li, seat) => {
    const out = view.misplayed.includes(seat);
    li.classList.toggle("is-out", out);
    if (!li.classList.length) li.removeAttribute("class");
    const value = li.querySelector(".value");
    value.textContent = signed(view.net[seat]);
    value.className = "value " + signClass(view.net[seat]);
    const left = view.cards_left ? view.cards_left[seat] : null;
    li.querySelector(".sub").textContent = out ? T.no_prizes
      : left != null ? counted(T.cards_left, left, { n: left })
        : counted(T.cards_dealt, view.hand_sizes[seat], { n: view.hand_sizes[seat] });
  });
  const details = section.querySelector('details[data-keep-open="movements"]');
  if (!details) return;
  const every = view.movements || [];
  const shown = every.slice(-(T.movements_shown || every.length || 1));
  const summary = details.querySelector("summary");
  summary.textContent = summary.textContent.replace(/\(\d+\)\s*$/, "").trimEnd() + " (" + every.length + ")";
  details.querySelector("p.help")?.remove();
  if (every.length > shown.length) summary.after(h("p", { className: "help" }, fmt(T.latest, { n: shown.length, total: every.length })));
  const end = (value) => (typeof value === "number" ? nameOf(value) : showCard(value));
  details.querySelector("tbody").replaceChildren(...shown.map((move) => h("tr", {},
    h("td", {}, end(move.from)), h("td", {}, end(move.to)), h("td", { className: "num" }, String(move.chips)),
    h("td", {}, (T.reasons || {})[move.reason] || move.reason))));
}

export default {
  /** The out form: the seat chosen as gone out has no cards left. */
  syncForm(form) {
    if (!form.hasAttribute("data-out")) return;
    const out = form.querySelector("[data-out-seat]:checked");
    zeroSeat(form, out ? out.value : null, true);
  },
  /** referee/games/michigan.py MichiganPages.explain, sentence for sentence. */
  sentences(view, last) {
    const T = t();
    const name = who(last.player);
    const penalty = chips(last.penalty_each || 0);
    const sentences = [];
    if (last.type === "exchange") sentences.push(fmt(T.swapped, { name, cards: cards(view.hand_sizes[last.player]) }));
    else if (last.type === "misplay") sentences.push(fmt(T.misplayed, { name, chips: penalty }));
    else if (last.type === "play") sentences.push(...playSentences(last, name, penalty));
    const prize = last.prize;
    if (prize) {
      const said = prize.taken ? T.prize_taken : T.prize_stays;
      sentences.push(fmt(said, { name, chips: chips(prize.chips), card: showCard(prize.card) }));
    }
    if (last.out) {
      const left = (view.cards_left || []).reduce((sum, n) => sum + n, 0);
      sentences.push(fmt(T.went_out, { name, chips: chips(left) }));
    }
    return sentences;
  },
  /** MichiganPages.describe_entry: the card as it was typed. */
  describe(payload) {
    const kind = ["exchange", "prize", "misplay", "out"].includes(payload.type) ? payload.type : "play";
    return fmt((t().entry || {})[kind], { name: who(payload.player), card: payload.card });
  },
  draw(live, view) {
    drawBoard(live, view);
    drawForecast(live, view);
    drawForms(live, view);
    drawChips(live, view);
  },
  // Chips count once the deal is over (the server keeps no running count either).
  running() { return null; },
  /** A misplay is legal at any moment of a running deal, manual or live. */
  sample() { return { type: "misplay", player: 0 }; },
};
