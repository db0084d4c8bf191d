/* games/cheat.js's pure parts: cards and ranks in the session's notation (as
   referee.presenters.show_card / show_rank), and which sentences a verdict says and an entry's
   line (as CheatPages.explain / describe_entry), with the English texts of
   CheatPages.offline_text. The browser test (tests/browser/test_offline_cheat.py) checks them
   word for word against the server in both languages. */
import { test } from "node:test";
import assert from "node:assert/strict";

import { S } from "../../../../static/js/table/shared.js";
import drawer, { cardText, rankText } from "../../../../static/js/table/games/cheat.js";

globalThis.document = { documentElement: { lang: "en" } };
S.screen = { dataset: { notation: "en" } };
S.T = {
  names: ["Ona", "Jonas", "Rūta"],
  offline_table: {
    stood_out: "Nobody challenged %(name)s's last card: %(name)s is out.",
    placed: "%(name)s placed a card and announced %(rank)s.",
    last_card: "That was %(name)s's last card: it stands unless someone challenges it.",
    truthful: "%(challenger)s challenged %(name)s, who told the truth (announced %(rank)s, revealed %(card)s): "
      + "%(taker)s takes %(cards)s.",
    lied: "%(name)s lied (announced %(rank)s, revealed %(card)s) and takes %(cards)s.",
    went_out: "That was %(name)s's last card: %(name)s is out.",
    starts_again: "%(name)s starts again, announcing %(rank)s.",
    loser: "%(name)s is left holding cards: the apgavikas, who loses the deal.",
    cards_word: { one: "%(count)s card", few: "%(count)s cards", other: "%(count)s cards" },
    place_entry: "%(name)s's card (announced %(rank)s)",
    place_entry_bare: "%(name)s's card",
    challenge_entry: "%(name)s's challenge (revealed %(card)s)",
    stands_entry: "letting the last card stand",
    joker: "joker",
  },
};

test("cards and ranks read as the session writes them", () => {
  assert.equal(rankText("Q", "lt", "džokeris"), "D");
  assert.equal(rankText("A", "lt", "džokeris"), "T");
  assert.equal(rankText("Q", "en", "joker"), "Q");
  assert.equal(rankText("X", "en", "joker"), "joker");
  assert.equal(cardText("QH", "lt", "džokeris"), "D♥");
  assert.equal(cardText("10S", "en", "joker"), "10♠");
  assert.equal(cardText("7", "en", "joker"), "7");
  assert.equal(cardText("X", "en", "joker"), "joker");
  assert.equal(cardText(null, "en", "joker"), "–");
});

const view = (over) => ({ counts: [5, 5, 5], turn: 1, ...over });

test("a placement: who placed what, a last card waiting, a last card that stood", () => {
  assert.deepEqual(drawer.sentences(view(), { type: "place", player: 0, announced: "A", went_out: [] }),
    ["Ona placed a card and announced A."]);
  assert.deepEqual(drawer.sentences(view({ counts: [0, 5, 5] }), { type: "place", player: 0, announced: "J", went_out: [] }),
    ["Ona placed a card and announced J.", "That was Ona's last card: it stands unless someone challenges it."]);
  assert.deepEqual(drawer.sentences(view({ counts: [0, 4, 5] }), { type: "place", player: 1, announced: "2", went_out: [0] }),
    ["Nobody challenged Ona's last card: Ona is out.", "Jonas placed a card and announced 2."]);
});

test("a challenge: the truth or a lie, the card counted, the end of the deal", () => {
  const truth = { type: "challenge", player: 0, announced: "3", challenger: 2, revealed: "3H", truthful: true,
    taker: 2, taken: 1, went_out: [], loser: null };
  assert.deepEqual(drawer.sentences(view({ turn: 2 }), truth), [
    "Rūta challenged Ona, who told the truth (announced 3, revealed 3♥): Rūta takes 1 card.",
    "Rūta starts again, announcing A.",
  ]);
  const lie = { ...truth, revealed: "X", truthful: false, taker: 0, taken: 4 };
  assert.deepEqual(drawer.sentences(view({ turn: 0 }), lie),
    ["Ona lied (announced 3, revealed joker) and takes 4 cards.", "Ona starts again, announcing A."]);
  const last = { ...truth, went_out: [0], loser: 2 };
  assert.deepEqual(drawer.sentences(view({ turn: null, counts: [0, 0, 7] }), last), [
    "Rūta challenged Ona, who told the truth (announced 3, revealed 3♥): Rūta takes 1 card.",
    "That was Ona's last card: Ona is out.",
    "Rūta is left holding cards: the apgavikas, who loses the deal.",
  ]);
  assert.deepEqual(drawer.sentences(view({ turn: null }), { type: "stands", player: 1, announced: "K", loser: 0 }),
    ["Nobody challenged Jonas's last card: Jonas is out.", "Ona is left holding cards: the apgavikas, who loses the deal."]);
});

test("an entry's line: the rank the engine concluded, the card as typed, no seat as ?", () => {
  assert.equal(drawer.describe({ type: "place", player: 1 }, { announced: "Q" }), "Jonas's card (announced Q)");
  assert.equal(drawer.describe({ type: "place", player: 1 }, null), "Jonas's card");
  assert.equal(drawer.describe({ type: "place", player: "x" }, null), "?'s card");
  assert.equal(drawer.describe({ type: "challenge", challenger: 2, revealed: "d♥" }, {}), "Rūta's challenge (revealed d♥)");
  assert.equal(drawer.describe({ type: "stands" }, {}), "letting the last card stand");
});

test("the warm-up entry is one the deal allows now", () => {
  assert.deepEqual(drawer.sample({ can_place: true, turn: 2 }), { type: "place", player: 2 });
  assert.deepEqual(drawer.sample({ can_place: false, can_stand: true }), { type: "stands" });
});
