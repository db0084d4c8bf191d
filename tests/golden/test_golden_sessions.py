"""Golden sessions: one whole session of every game through the REST API, every answer
compared with a recording (tests/golden/data/<game>.json; how to re-record: README.md).

Each session: a refused and an accepted create (house rules, stake), deals started by the
rotation, whole deals of legal entries (RULES.md's seed examples, then the playout helpers
of tests/rules with fixed seeds), refused entries (impossible cards, counts, malformed
shapes, a stale expected_seq, a retried idempotency key), an undo, a correction, every
read (deal, entries, session, deals, standings, ledger, settlement, their CSV, audit),
close, summary, reopen, close again, then the club's leaderboard, head-to-head and a
member's history.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.rules import playout_cheat, playout_elgeta, playout_michigan, playout_rukas, playout_velnias

from .golden import Golden, TableRandom

pytestmark = pytest.mark.django_db

Script = Callable[[Golden, dict[str, int]], None]


@pytest.fixture
def golden(club_setup: dict[str, Any], api: Any, django_capture_on_commit_callbacks: Any) -> Callable[[str], Golden]:
    def make(game: str) -> Golden:
        clients = {}
        for role in ("admin", "scorer", "member", "outsider"):
            client = api(club_setup["users"][role])
            client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
            clients[role] = client
        return Golden(game, clients, django_capture_on_commit_callbacks)

    return make


@pytest.fixture
def members(club_setup: dict[str, Any]) -> dict[str, int]:
    return {member.name: member.pk for member in club_setup["members"].values()}


# -- helpers shared by the scripts ----------------------------------------------------------------


def create(g: Golden, game: str, players: list[int], **extra: Any) -> dict[str, Any]:
    session = g.call("POST", "/api/sessions/", {"club": "vilnius", "game": game, "players": players, **extra},
                     note="create the session")
    g.expect(201)
    return session  # type: ignore[no-any-return]


def new_deal(g: Golden, session: int, note: str = "start the next deal (rotation)") -> dict[str, Any]:
    deal = g.call("POST", f"/api/sessions/{session}/deals/", {}, note=note)
    g.expect(201)
    return deal  # type: ignore[no-any-return]


def entry(g: Golden, deal: int, body: Any, status: int = 201, note: str = "") -> Any:
    answer = g.call("POST", f"/api/deals/{deal}/entries/", body, note=note)
    g.expect(status)
    return answer


def play(g: Golden, deal: int, entries: list[dict[str, Any]], note: str) -> None:
    for number, body in enumerate(entries, 1):
        entry(g, deal, body, note=f"{note}: entry {number} of {len(entries)}")


def reads(g: Golden, session: int, deal: int) -> None:
    """Every read of a session and one of its deals, JSON and CSV."""
    g.call("GET", f"/api/deals/{deal}/", note="the deal")
    g.call("GET", f"/api/deals/{deal}/entries/", note="the deal's active entries")
    g.call("GET", f"/api/deals/{deal}/entries/?all=1", note="the deal's entries, undone and replaced too")
    g.call("GET", f"/api/sessions/{session}/", note="the session")
    g.call("GET", f"/api/sessions/{session}/deals/", note="the deals list")
    for what in ("standings", "ledger", "settlement"):
        g.call("GET", f"/api/sessions/{session}/{what}/", note=what)
        g.expect(200)
        g.call("GET", f"/api/sessions/{session}/{what}/?format=csv", note=f"{what} as CSV")
        g.expect(200)
    g.call("GET", f"/api/sessions/{session}/audit/", note="audit")
    g.call("GET", f"/api/sessions/{session}/audit/", who="member", note="audit, read by a member")


def close_and_club(g: Golden, session: int, members: dict[str, int], game: str) -> None:
    """Close, summary, reopen, close again; then the club's figures."""
    g.call("GET", f"/api/sessions/{session}/summary/", note="no summary before the close")
    g.call("POST", f"/api/sessions/{session}/close/", note="close")
    g.expect(200)
    g.call("POST", f"/api/sessions/{session}/close/", note="close again: refused")
    g.call("GET", f"/api/sessions/{session}/summary/", note="the summary (built eagerly on commit)")
    g.call("GET", f"/api/sessions/{session}/summary/?format=csv", note="the summary as CSV")
    g.call("GET", f"/api/sessions/{session}/summary/?format=xml", note="an unknown format")
    g.call("POST", f"/api/sessions/{session}/deals/", {}, note="no deal in a closed session")
    g.call("POST", f"/api/sessions/{session}/reopen/", note="reopen")
    g.expect(200)
    g.call("GET", f"/api/sessions/{session}/summary/", note="the summary of a reopened session: outdated")
    g.call("GET", f"/api/sessions/{session}/standings/", note="standings while reopened")
    g.call("POST", f"/api/sessions/{session}/close/", note="close once more")
    g.expect(200)
    g.call("GET", f"/api/sessions/{session}/summary/", note="the summary, rebuilt")
    g.call("GET", f"/api/sessions/{session}/settlement/", note="settlement after the close")
    g.call("GET", f"/api/sessions/{session}/ledger/", note="ledger after the close")
    g.call("GET", f"/api/sessions/{session}/", note="the closed session")
    g.call("GET", "/api/sessions/?club=vilnius", note="the club's sessions")
    g.call("GET", f"/api/clubs/vilnius/leaderboard/?game={game}&min_deals=1", note="leaderboard of this game")
    g.call("GET", "/api/clubs/vilnius/leaderboard/", note="leaderboard, all games, default minimum")
    g.call("GET", f"/api/clubs/vilnius/leaderboard/?game={game}&min_deals=1&format=csv", note="leaderboard CSV")
    g.call("GET", "/api/clubs/vilnius/leaderboard/?period=fortnight", note="leaderboard: an unknown period")
    g.call("GET", f"/api/clubs/vilnius/head-to-head/?a={members['Ona']}&b={members['Jonas']}", note="head-to-head")
    g.call("GET", f"/api/clubs/vilnius/head-to-head/?a={members['Ona']}&b=x", note="head-to-head: b malformed")
    g.call("GET", f"/api/clubs/vilnius/members/{members['Ona']}/history/", note="Ona's history")
    g.call("GET", f"/api/clubs/vilnius/members/{members['Rūta']}/history/", note="Rūta's history")


def transport_refusals(g: Golden, deal: int, good: dict[str, Any], seq: int) -> None:
    """The transport fields and shapes every game shares: run before ``good`` is stored as seq+1."""
    entry(g, deal, [good], 400, note="a list, not an object")
    entry(g, deal, {"cards": []}, 400, note="no type")
    entry(g, deal, {"type": "shout"}, 400, note="an unknown type")
    entry(g, deal, {**good, "expected_seq": seq + 5}, 409, note="a stale expected_seq")
    entry(g, deal, {**good, "expected_seq": -1}, 400, note="a negative expected_seq")
    entry(g, deal, {**good, "idempotency_key": ""}, 400, note="an empty idempotency key")
    g.call("POST", f"/api/deals/{deal}/entries/", good, who="member", note="a member may not record")
    g.call("POST", f"/api/deals/{deal}/entries/", good, who="outsider", note="another club's deal is not found")
    entry(g, deal, {**good, "expected_seq": seq, "idempotency_key": f"golden-key-{seq}"}, 201,
          note="stored with a key")
    entry(g, deal, {**good, "expected_seq": seq, "idempotency_key": f"golden-key-{seq}"}, 200,
          note="the same key again: the stored entry, replayed")


# -- the five games -------------------------------------------------------------------------------


def elgeta(g: Golden, m: dict[str, int]) -> None:
    """Four players, suits S D H C (the seed's), all_aces off; the seed's first tricks, then playouts."""
    seats = [m["Ona"], m["Jonas"], m["Rūta"], m["Petras"]]
    g.call("POST", "/api/sessions/", {"club": "vilnius", "game": "elgeta", "players": seats,
                                      "options": {"suits": ["S", "D", "H", "H"]}}, note="refused: suits twice")
    g.call("POST", "/api/sessions/", {"club": "vilnius", "game": "elgeta", "players": seats,
                                      "options": {"colour": "red"}}, note="refused: unknown option")
    options = {"suits": ["S", "D", "H", "C"], "all_aces": False}
    session = create(g, "elgeta", seats, options=options, stake="1.00")["id"]
    # Deal 1 (dealer 3, Ona leads): the seed's QS 10D 4H AC, then whatever the piles hold.
    deal = new_deal(g, session, note="deal 1")
    rng = TableRandom(101, deal["dealer"], tops=[[(12, "S")], [(10, "D")], [(4, "H")], [(14, "C")]])
    _, entries = playout_elgeta.random_deal(rng, 4, options, finish_early=True)
    first = {"type": "trick", "rounds": [["QS", "10D", "4H", "AC"]]}
    transport_refusals(g, deal["id"], first, 0)
    entry(g, deal["id"], {"type": "trick", "rounds": [["QS", "10D", "4H", "KC"]]}, 400,
          note="Petras cannot turn a captured card yet")
    entry(g, deal["id"], {"type": "trick", "rounds": [["2C", "10S", "4D"]]}, 400, note="a card short")
    entry(g, deal["id"], {"type": "trick", "rounds": [["2C", "AS", "4D", "4H"]]}, 400, note="the 4H again")
    entry(g, deal["id"], {"type": "trick", "rounds": [["2C", "ZZ", "4D", "5H"]]}, 400, note="not a card")
    entry(g, deal["id"], {"type": "trick", "rounds": [["2C", "AS", "4D", "5H"], ["3C", "KS", "6D", "7H"]]}, 400,
          note="a tie-break round without a tie")
    entry(g, deal["id"], {"type": "trick", "rounds": "2C AS"}, 400, note="rounds is not a list")
    entry(g, deal["id"], {"type": "finish"}, 400, note="finish before the rest is determined")
    # Undo the seed trick, store the seed's tie of aces instead, then correct it back.
    g.call("POST", f"/api/deals/{deal['id']}/undo/", {"expected_seq": 0}, note="undo with a stale expected_seq")
    g.call("POST", f"/api/deals/{deal['id']}/undo/", {"expected_seq": 1}, note="undo the seed trick")
    g.expect(200)
    entry(g, deal["id"], {"type": "trick", "rounds": [["JS", "AD", "AH", "4C"], ["6S", "7D", "9H", "QC"]]},
          note="the seed's tie of aces")
    g.call("PUT", f"/api/deals/{deal['id']}/entries/1/", {"type": "trick", "rounds": [["QS", "10D", "4H", "KC"]]},
           note="a correction to an impossible trick: refused")
    g.call("PUT", f"/api/deals/{deal['id']}/entries/9/", first, note="a correction of a seq that does not exist")
    g.call("PUT", f"/api/deals/{deal['id']}/entries/1/", first, note="correct it back to the seed trick")
    g.expect(200)
    play(g, deal["id"], entries[1:], note="deal 1, playout seed 101")
    reads(g, session, deal["id"])
    g.call("POST", f"/api/deals/{deal['id']}/entries/", entries[-1], note="an entry after the deal ended")
    # Deals 2 and 3: playouts by the rotation's dealer; deal 2 starts with the seed's 9S 9D 5H QC.
    g.call("POST", f"/api/sessions/{session}/deals/", {"dealer": 4}, note="refused: no seat 4")
    deal = new_deal(g, session, note="deal 2")
    rng = TableRandom(7, deal["dealer"], tops=[[(9, "S")], [(9, "D")], [(5, "H")], [(12, "C")]])
    _, entries = playout_elgeta.random_deal(rng, 4, options, finish_early=True)
    g.call("POST", f"/api/sessions/{session}/deals/", {}, note="refused: deal 2 still running")
    play(g, deal["id"], entries, note="deal 2, playout seed 7")
    deal = new_deal(g, session, note="deal 3")
    _, entries = playout_elgeta.random_deal(TableRandom(23, deal["dealer"]), 4, options, finish_early=True)
    play(g, deal["id"], entries, note="deal 3, playout seed 23")
    reads(g, session, deal["id"])
    close_and_club(g, session, m, "elgeta")


def velnias(g: Golden, m: dict[str, int]) -> None:
    """Five players at 0.50 a point rounded to 0.10; the seed's blocked example, then playouts."""
    seats = [m["Ona"], m["Jonas"], m["Rūta"], m["Petras"], m["Asta"]]
    g.call("POST", "/api/sessions/", {"club": "vilnius", "game": "velnias", "players": seats[:2]},
           note="refused: two players")
    g.call("POST", "/api/sessions/", {"club": "vilnius", "game": "velnias", "players": [*seats[:4], 999999]},
           note="refused: not a member")
    session = create(g, "velnias", seats, stake="0.50", coin="0.10")["id"]
    deal = new_deal(g, session, note="deal 1")
    blocked = {"type": "end", "condition": "blocked", "player": None, "hand_counts": [1, 1, 3, 2, 3]}
    entry(g, deal["id"], {**blocked, "hand_counts": [1, 1, 3, 2, 8]}, 400, note="a count beyond the hand of 7")
    entry(g, deal["id"], {**blocked, "hand_counts": [1, 1, 3, 2]}, 400, note="a count short")
    entry(g, deal["id"], {**blocked, "hand_counts": "1 1 3 2 3"}, 400, note="counts as text")
    entry(g, deal["id"], {**blocked, "condition": "tired"}, 400, note="an unknown condition")
    entry(g, deal["id"], {**blocked, "condition": "empty_hand", "player": 0}, 400,
          note="empty_hand with the caller holding a card")
    entry(g, deal["id"], {**blocked, "player": 7}, 400, note="blocked names nobody")
    transport_refusals(g, deal["id"], blocked, 0)
    g.call("POST", f"/api/deals/{deal['id']}/undo/", {}, note="undo the end")
    g.expect(200)
    last_card = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1, 4]}
    entry(g, deal["id"], last_card, note="a last_card end instead")
    g.call("PUT", f"/api/deals/{deal['id']}/entries/1/", blocked, note="correct it back to the seed's blocked")
    g.expect(200)
    reads(g, session, deal["id"])
    for number, seed in ((2, 5), (3, 11), (4, 12), (5, 40)):
        deal = new_deal(g, session, note=f"deal {number}")
        _, entries = playout_velnias.random_deal(TableRandom(seed, deal["dealer"]), 5)
        play(g, deal["id"], entries, note=f"deal {number}, playout seed {seed}")
    deal = new_deal(g, session, note="deal 6: the seed's last_card, adapted to five")
    entry(g, deal["id"], last_card, note="last_card: A 3, B 2, C 6, D 1, E 4")
    reads(g, session, deal["id"])
    close_and_club(g, session, m, "velnias")


def rukas(g: Golden, m: dict[str, int]) -> None:
    """Five players, Lithuanian notation, R2 carry; the seed's tricks a) to e) open deals 1 to 5."""
    seats = [m["Ona"], m["Jonas"], m["Rūta"], m["Petras"], m["Asta"]]
    g.call("POST", "/api/sessions/", {"club": "vilnius", "game": "rukas", "players": seats,
                                      "options": {"void_trick": "sometimes"}}, note="refused: unknown R2")
    options = {"notation": "lt", "void_trick": "carry"}
    session = create(g, "rukas", seats, options=options, stake="0.20")["id"]
    seeds = [[3, 9, 9, 11, 4], [5, 13, 12, 6, 11], [7, 9, 14, 5, 14], [13, 7, 6, 13, 13], [2, 14, 7, 7, 4]]
    texts = ["3 9 9 V 4", "5 K D 6 V", "7 9 T 5 T", "K 7 6 K K", "2 T 7 7 4"]
    for number, (ranks, text) in enumerate(zip(seeds, texts), 1):
        deal = new_deal(g, session, note=f"deal {number}")
        leader = (deal["dealer"] + 1) % 5
        tops = [[(ranks[(seat - leader) % 5], playout_rukas.SUITS[seat % 4])] for seat in range(5)]
        _, entries = playout_rukas.random_deal(TableRandom(300 + number, deal["dealer"], tops), 5, options)
        seed_trick = {"type": "trick", "cards": text.split()}
        if number == 1:
            transport_refusals(g, deal["id"], seed_trick, 0)
            entry(g, deal["id"], {"type": "trick", "cards": ["Q", "2", "3", "4", "5"]}, 400,
                  note="Q is no rank in Lithuanian notation")
            entry(g, deal["id"], {"type": "trick", "cards": ["D", "2", "3", "4"]}, 400, note="a card short")
            entry(g, deal["id"], {"type": "trick", "cards": ["D", "2", "3", "4", "5", "6"]}, 400,
                  note="a card too many")
            entry(g, deal["id"], {"type": "trick", "cards": "3 9 9 V 4"}, 400, note="cards as one text")
            entry(g, deal["id"], entries[1], note="the playout's second trick")
            entry(g, deal["id"], {"type": "trick", "cards": entries[1]["cards"]}, 400,
                  note="the same ranks again: each player has played them already")
            g.call("POST", f"/api/deals/{deal['id']}/undo/", {"expected_seq": 2}, note="undo trick 2")
            g.expect(200)
            g.call("PUT", f"/api/deals/{deal['id']}/entries/1/", {"type": "trick", "cards": ["5", "K", "D", "6", "V"]},
                   note="correct trick 1 to the seed's b)")
            g.expect(200)
            g.call("PUT", f"/api/deals/{deal['id']}/entries/1/", seed_trick, note="and back to a)")
            g.expect(200)
            play(g, deal["id"], entries[1:], note="deal 1, playout seed 301")
            reads(g, session, deal["id"])
        else:
            entry(g, deal["id"], seed_trick, note=f"the seed's trick {text}")
            play(g, deal["id"], entries[1:], note=f"deal {number}, playout seed {300 + number}")
    reads(g, session, deal["id"])
    close_and_club(g, session, m, "rukas")


def michigan(g: Golden, m: dict[str, int]) -> None:
    """Four players, other prizes, dealer ante 3, misplay penalty 2, a chip worth 0.05; playouts."""
    seats = [m["Ona"], m["Jonas"], m["Rūta"], m["Petras"]]
    g.call("POST", "/api/sessions/", {"club": "vilnius", "game": "michigan", "players": seats,
                                      "options": {"prizes": ["AS", "KS", "QD", "JH"]}},
           note="refused: two prizes of one suit")
    options = {"prizes": ["AH", "KS", "QC", "JD"], "dealer_ante": 3, "misplay_penalty": 2}
    session = create(g, "michigan", seats, options=options, stake="0.05")["id"]
    deal = new_deal(g, session, note="deal 1")
    sim = playout_michigan.simulate(TableRandom(401, deal["dealer"]), 4, options)
    entries = sim.manual_entries
    out = entries[-1]
    transport_refusals(g, deal["id"], entries[0], 0)
    entry(g, deal["id"], {"type": "prize", "card": "2C", "player": 0}, 400, note="the 2C is no prize")
    entry(g, deal["id"], {"type": "prize", "card": "AH", "player": 4}, 400, note="no seat 4")
    entry(g, deal["id"], {"type": "misplay"}, 400, note="a misplay without a player")
    big = [14 if seat != out["player"] else 0 for seat in range(4)]
    entry(g, deal["id"], {**out, "hand_counts": big}, 400, note="counts beyond the hands")
    entry(g, deal["id"], {**out, "hand_counts": [0, 0, 0, 0]}, 400, note="everybody out")
    play(g, deal["id"], entries[1:2], note="deal 1, playout seed 401")
    g.call("POST", f"/api/deals/{deal['id']}/undo/", {}, note="undo")
    g.expect(200)
    play(g, deal["id"], entries[1:-1], note="deal 1, playout seed 401")
    first = {"type": "misplay", "player": 1}
    g.call("PUT", f"/api/deals/{deal['id']}/entries/1/", first, note="correct entry 1 to a misplay by Jonas")
    g.expect(200)
    g.call("PUT", f"/api/deals/{deal['id']}/entries/1/", entries[0], note="and back")
    g.expect(200)
    entry(g, deal["id"], out, note="the out")
    reads(g, session, deal["id"])
    for number, seed in ((2, 402), (3, 403), (4, 404)):
        deal = new_deal(g, session, note=f"deal {number}: the pot carried")
        sim = playout_michigan.simulate(TableRandom(seed, deal["dealer"]), 4, options)
        play(g, deal["id"], sim.manual_entries, note=f"deal {number}, playout seed {seed}")
    reads(g, session, deal["id"])
    close_and_club(g, session, m, "michigan")


def cheat(g: Golden, m: dict[str, int]) -> None:
    """Three players with two jokers (C1); the loser deals; playouts."""
    seats = [m["Ona"], m["Jonas"], m["Rūta"]]
    g.call("POST", "/api/sessions/", {"club": "vilnius", "game": "cheat", "players": seats,
                                      "options": {"jokers": 3}}, note="refused: three jokers")
    options = {"jokers": 2}
    session = create(g, "cheat", seats, options=options, stake="2")["id"]
    deal = new_deal(g, session, note="deal 1")
    _, entries = playout_cheat.random_deal(TableRandom(CHEAT_SEEDS[0], deal["dealer"]), 3, options)
    transport_refusals(g, deal["id"], entries[0], 0)
    entry(g, deal["id"], {"type": "place", "player": 2}, 400, note="not Rūta's turn")
    entry(g, deal["id"], {"type": "challenge", "challenger": 1, "revealed": "ZZ"}, 400, note="not a card")
    entry(g, deal["id"], {"type": "challenge", "challenger": 0, "revealed": "A"}, 400, note="own card")
    entry(g, deal["id"], {"type": "stands"}, 400, note="no last card pending")
    entry(g, deal["id"], {"type": "place"}, 400, note="place without a player")
    play(g, deal["id"], entries[1:4], note="deal 1, playout")
    g.call("POST", f"/api/deals/{deal['id']}/undo/", {"expected_seq": 4}, note="undo")
    g.expect(200)
    g.call("PUT", f"/api/deals/{deal['id']}/entries/3/", {"type": "challenge", "challenger": 0, "revealed": "X"},
           note="correct entry 3 to a challenge that reveals a joker")
    g.expect(200)
    g.call("PUT", f"/api/deals/{deal['id']}/entries/3/", entries[2], note="and back")
    g.expect(200)
    play(g, deal["id"], entries[3:], note=f"deal 1, playout seed {CHEAT_SEEDS[0]}")
    reads(g, session, deal["id"])
    for number, seed in enumerate(CHEAT_SEEDS[1:], 2):
        deal = new_deal(g, session, note=f"deal {number}: the loser deals")
        _, entries = playout_cheat.random_deal(TableRandom(seed, deal["dealer"]), 3, options)
        play(g, deal["id"], entries, note=f"deal {number}, playout seed {seed}")
    reads(g, session, deal["id"])
    close_and_club(g, session, m, "cheat")


#: Seeds whose Cheat playouts are short enough to keep the module fast.
CHEAT_SEEDS = [2, 5, 6]

SCRIPTS: dict[str, Script] = {
    "elgeta": elgeta, "velnias": velnias, "rukas": rukas, "michigan": michigan, "cheat": cheat,
}


@pytest.mark.parametrize("game", list(SCRIPTS))
def test_golden_session(game: str, golden: Callable[[str], Golden], members: dict[str, int]) -> None:
    g = golden(game)
    SCRIPTS[game](g, members)
    g.finish()
