/* Apgaudinėjimas (Cheat) on the tablet, offline: the verdict's sentences (as
   referee/games/cheat.py's CheatPages.explain), an entry's line in the entry list (as its
   describe_entry), and the redraw of the game's part of the screen as
   templates/referee/games/cheat.html renders it: whose turn and the rank to announce, the
   cards in each hand, and the forms the deal allows now (a placement, letting a last card
   stand, a challenge). Which forms there are changes from entry to entry, so the part is
   drawn whole from the engine's view. The drawer's shape is described in ../offline-view.js. */

import { S, csrf, newKey } from "../shared.js";
import { LT_RANK, RANKS_EN, counted, fmt, h, showRank, t } from "../offline-draw.js";

// The suits as the pads and the canonical card text write them (referee/rules/cards.py).
const SUITS = [["S", "♠"], ["C", "♣"], ["D", "♦"], ["H", "♥"]];
const SUIT_SYMBOL = Object.fromEntries(SUITS);

/** A seat's name, "?" for no seat (referee.presenters.name_of). */
function who(seat) {
  const name = Number.isInteger(seat) ? (S.T.names || [])[seat] : undefined;
  return name ?? "?";
}
/** A canonical rank in the session's notation, the joker in words (presenters.show_rank). */
export function rankText(rank, notation, joker) {
  if (rank === "X") return joker;
  return notation === "lt" ? (LT_RANK[rank] || rank) : rank;
}
/** A canonical card ("QH", "10", "X") as the session writes it, suit as its symbol
    (presenters.show_card). */
export function cardText(text, notation, joker) {
  if (text == null) return "–";
  const value = String(text);
  const suit = value !== "X" ? SUIT_SYMBOL[value.slice(-1)] : undefined;
  return rankText(suit ? value.slice(0, -1) : value, notation, joker) + (suit || "");
}
const rank = (r) => rankText(r, S.screen.dataset.notation, t().joker);
const card = (c) => cardText(c, S.screen.dataset.notation, t().joker);

/** The hidden fields every entry form carries (templates/referee/_entry_fields.html). */
function entryFields(formId, type, seq) {
  const hidden = (name, value) => h("input", { type: "hidden", name, value: String(value) });
  return [hidden("csrfmiddlewaretoken", csrf()), hidden("form", formId), hidden("idempotency_key", newKey()),
    hidden("expected_seq", seq), hidden("f:type:str", type)];
}
function entryForm(id, action, seq, attrs, ...children) {
  return h("form", { method: "post", action, "data-entry": "", id: "form-" + id, ...attrs },
    ...entryFields(id, id, seq), ...children);
}
const errorLine = (key) => h("p", { className: "error", role: "alert", "data-error-for": key });

function turnCard(view, action, seq) {
  const T = t();
  const turnName = view.turn != null ? who(view.turn) : null;
  const pending = view.pending_last != null ? who(view.pending_last) : null;
  const section = h("section", { className: "panel turn-card", "aria-labelledby": "turn-h" },
    h("h2", { id: "turn-h", className: "visually-hidden" }, T.whose_turn));
  if (pending && !view.can_place) {
    section.append(h("div", { className: "who" }, turnName), h("div", { className: "announce" }, fmt(T.answers, { name: pending })));
  } else if (turnName) {
    section.append(h("div", { className: "who", "data-turn": "" }, turnName),
      h("div", { className: "announce" }, T.announces + " ", h("span", { className: "rank", "data-announce": "" }, rank(view.announce))));
  }
  if (view.can_place) {
    section.append(entryForm("place", action, seq, { className: "place-form" },
      h("input", { type: "hidden", name: "f:player:int", value: String(view.turn) }),
      errorLine("place"),
      h("button", { type: "submit", className: "primary huge" }, fmt(T.placed_button, { name: turnName, rank: rank(view.announce) }))));
  }
  if (pending && view.can_place) section.append(h("p", { className: "notice" }, fmt(T.pending_notice, { name: pending })));
  return section;
}

function counts(view) {
  const T = t();
  const outOrder = new Map(view.out.map((seat, index) => [seat, index + 1]));
  const rows = view.counts.map((count, seat) => {
    const turn = seat === view.turn && !view.finished;
    const out = outOrder.get(seat);
    const sub = seat === view.loser ? T.apgavikas : out ? fmt(T.out_n, { n: out })
      : seat === view.pending_last ? T.pending_sub : T.cards;
    return h("li", { className: (turn ? "is-turn" : "") + (out ? " is-out" : "") },
      h("span", { className: "name" }, who(seat)), h("span", { className: "value" }, String(count)),
      h("span", { className: "sub" }, sub));
  });
  return h("section", { "aria-labelledby": "counts-h" },
    h("h2", { id: "counts-h", className: "visually-hidden" }, T.cards_in_hand),
    h("ul", { className: "totals" },
      h("li", {}, h("span", { className: "name" }, T.pile), h("span", { className: "value", "data-pile": "" }, String(view.pile)),
        h("span", { className: "sub" }, T.cards)),
      ...rows));
}

function pads(view) {
  const T = t();
  const rankPad = h("div", { className: "pad js-only", "data-rank-pad": "", role: "group", "aria-label": T.ranks },
    ...RANKS_EN.map((r) => h("button", { type: "button", "data-rank": showRank(r) }, showRank(r))),
    view.jokers ? h("button", { type: "button", "data-rank": "X" }, T.joker) : null);
  const suitPad = h("div", { className: "pad suits js-only", "data-suit-pad": "", role: "group", "aria-label": T.suits },
    ...SUITS.map(([letter, symbol]) => h("button", {
      type: "button", "data-suit": symbol, "aria-label": (T.suit_names || {})[letter] || letter, className: "sym-" + letter.toLowerCase(),
    }, symbol)));
  return [rankPad, suitPad];
}

function challengeBox(view, action, seq, open) {
  const T = t();
  const form = entryForm("challenge", action, seq, { "data-slots": "", className: "stack" },
    h("fieldset", {},
      h("legend", {}, T.who_challenged),
      h("input", { type: "hidden", name: "f:challenger:int", value: "" }),
      h("div", { className: "tiles big-tiles", role: "radiogroup", "aria-label": T.who_challenged },
        ...view.challengers.map((seat) => h("label", { className: "tile" },
          h("input", { type: "radio", name: "f:challenger:int", value: String(seat) }), h("span", { className: "face" }, who(seat))))),
      h("p", { className: "field-error", "data-error-for-term": "challenger", role: "alert" })),
    h("div", { className: "slot", "data-slot": "" },
      h("label", { for: "revealed" }, T.which_card),
      h("input", { type: "text", id: "revealed", name: "f:revealed:str", value: "", autocomplete: "off",
        autocapitalize: "characters", spellcheck: "false", maxlength: "12", "data-card-input": "" }),
      h("p", { className: "field-error", "data-error-for-term": "revealed", role: "alert" })),
    ...pads(view),
    errorLine("challenge"),
    h("div", { className: "sticky-action" }, h("button", { type: "submit", className: "primary big" }, T.record_challenge)));
  const box = h("details", { className: "panel", id: "challenge", "data-keep-open": "challenge" },
    h("summary", {}, fmt(T.challenge_summary, { name: who(view.last_placer), rank: view.last_announced ? rank(view.last_announced) : "" })),
    form);
  box.open = !!open;
  return box;
}

export default {
  /** referee/games/cheat.py CheatPages.explain, sentence for sentence. */
  sentences(view, last) {
    const T = t();
    const name = who(last.player);
    const announced = rank(last.announced);
    const said = [];
    if (last.type === "place") {
      for (const seat of last.went_out || []) said.push(fmt(T.stood_out, { name: who(seat) }));
      said.push(fmt(T.placed, { name, rank: announced }));
      if (view.counts[last.player] === 0) said.push(fmt(T.last_card, { name }));
    } else if (last.type === "challenge") {
      const cards = counted(T.cards_word, last.taken, { count: last.taken });
      if (last.truthful) {
        said.push(fmt(T.truthful, { challenger: who(last.challenger), name, rank: announced, card: card(last.revealed),
          taker: who(last.taker), cards }));
      } else {
        said.push(fmt(T.lied, { name, rank: announced, card: card(last.revealed), cards }));
      }
      if ((last.went_out || []).length) said.push(fmt(T.went_out, { name }));
      if (view.turn != null) said.push(fmt(T.starts_again, { name: who(last.taker), rank: rank("A") }));
    } else {
      said.push(fmt(T.stood_out, { name }));
    }
    if (last.loser != null) said.push(fmt(T.loser, { name: who(last.loser) }));
    return said;
  },
  /** CheatPages.describe_entry: `result` is the engine's conclusion (the stored entry's result). */
  describe(payload, result) {
    const T = t();
    if (payload.type === "place") {
      const announced = result && result.announced;
      if (announced) return fmt(T.place_entry, { name: who(payload.player), rank: rank(announced) });
      return fmt(T.place_entry_bare, { name: who(payload.player) });
    }
    if (payload.type === "challenge") return fmt(T.challenge_entry, { name: who(payload.challenger), card: payload.revealed });
    return T.stands_entry;
  },
  /** The turn, the counts and the forms, drawn whole where the server's partial stands. */
  draw(live, view) {
    const old = Array.from(live.querySelectorAll(
      ':scope > section[aria-labelledby="turn-h"], :scope > section[aria-labelledby="counts-h"], :scope > .stack'));
    const action = live.querySelector("form[data-entry]")?.getAttribute("action") || location.pathname;
    const wasOpen = live.querySelector("details#challenge")?.open;
    const seq = live.dataset.seq;
    const part = [];
    if (!view.finished) part.push(turnCard(view, action, seq));
    part.push(counts(view));
    if (!view.finished) {
      part.push(h("div", { className: "stack" },
        view.can_stand ? entryForm("stands", action, seq, {}, errorLine("stands"),
          h("button", { type: "submit", className: "big" }, fmt(t().stands_button, { name: who(view.pending_last) }))) : null,
        view.can_challenge ? challengeBox(view, action, seq, wasOpen) : null));
    }
    if (old.length) old[0].before(...part);
    else live.querySelector("[data-finished], section[aria-labelledby=totals-h]").before(...part);
    old.forEach((element) => element.remove());
  },
  running() { return null; },
  /** A legal entry to warm the engine up with: the placement in turn, else letting the last card stand. */
  sample(view) {
    if (view.can_place) return { type: "place", player: view.turn };
    if (view.can_stand) return { type: "stands" };
    return { type: "challenge", challenger: view.challengers[0], revealed: showRank(view.last_announced || "A") };
  },
};
