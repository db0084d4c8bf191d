"""One format per kind of figure on every page, and the house rules shown once a session runs.

- the member page shows a chip game's chips under "Chips", never summed under "Points";
- the leaderboard says its money is the exact sum, not what the coin-rounded settlements paid;
- the audit writes a loss with a real minus sign ("−10"), as every points column does;
- the session page and the deal screen list the game's house rules (from the game's module)
  and the session's (stake, coin, who deals), each with its value.
"""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Any

import pytest
from django.utils import translation

from referee.numbers import chips_text, money_text, plain_figures, points_text

from .conftest import record

pytestmark = pytest.mark.django_db

VELNIAS_END = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}
MICHIGAN_OUT = {"type": "out", "player": 0, "hand_counts": [0, 3, 5, 2]}
FOUR = ["admin", "scorer", "member", "Petras"]


def text_of(response: Any) -> str:
    assert response.status_code == 200
    body = re.sub(r"<(script|style|template)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_one_function_per_kind_of_figure() -> None:
    with translation.override("lt"):
        assert money_text(Decimal("-1.9"), signed=True) == "\u22121,90"
    translation.activate("en")
    assert [points_text(v) for v in (2, -3, 0, Decimal("1.50"))] == ["+2", "\u22123", "0", "+1.50"]
    assert [chips_text(5), chips_text(-2), chips_text(4, signed=False)] == ["+5", "\u22122", "4"]
    assert money_text(Decimal("1.92"), coin=Decimal("0.05"), currency="EUR") == "1.90\u00a0EUR"
    assert money_text("-0.001") == "0.00"
    with plain_figures():
        assert (money_text(Decimal("-1.9")), points_text(-3)) == ("-1.90", "-3")


def test_the_member_page_shows_chips_under_chips(page: Any, start: Any, club_setup: dict[str, Any]) -> None:
    scorer = club_setup["users"]["scorer"]
    record(start("michigan", FOUR), scorer, MICHIGAN_OUT)
    record(start("velnias", FOUR), scorer, VELNIAS_END)
    ona = club_setup["members"]["admin"]
    body = page(club_setup["users"]["member"]).get(f"/clubs/vilnius/members/{ona.pk}/").content.decode()
    games = body[body.index('id="games-h"'):body.index('id="rating-h"')]
    # Ona is up 6 chips in Mičiganas (10 taken, 4 anted) and 27 points in Velnias: each under its unit.
    assert re.search(r'data-label="Chips">\+6<', games)
    assert re.search(r'data-label="Points">\+27<', games)
    assert not re.search(r'data-label="Points">\+6<', games)
    assert ">Chips</th>" in games


def test_the_leaderboard_says_its_money_is_exact_not_coin_rounded(page: Any, start: Any,
                                                                  club_setup: dict[str, Any]) -> None:
    deal = start("velnias", FOUR)
    deal.session.stake, deal.session.coin = Decimal("0.03"), Decimal("0.05")
    deal.session.save()
    record(deal, club_setup["users"]["scorer"], VELNIAS_END)
    text = text_of(page(club_setup["users"]["member"]).get("/clubs/vilnius/leaderboard/?game=velnias&min_deals=1"))
    assert "EUR*" in text
    assert ("* Money: the exact sum of every deal's result. A settlement rounds each session's total to the "
            "smallest coin, so what was paid can differ from this by less than one coin per session.") in text


def test_the_audit_writes_a_loss_with_a_real_minus_sign(page: Any, start: Any, club_setup: dict[str, Any]) -> None:
    deal = start("velnias", FOUR)
    record(deal, club_setup["users"]["scorer"], VELNIAS_END)
    for language, words in (("en", "Points: Ona +27, Jonas \u22129, Rūta \u221210, Petras \u22128."),
                            ("lt", "Taškai: Ona +27, Jonas \u22129, Rūta \u221210, Petras \u22128.")):
        text = text_of(page(club_setup["users"]["member"], language).get(f"/sessions/{deal.session_id}/audit/"))
        assert words in text
        assert not re.search(r"(?<![\w-])-\d", text.replace("hand_counts", "")), text


@pytest.mark.parametrize("language", ["en", "lt"])
def test_the_house_rules_are_on_the_session_page_and_the_deal_screen(page: Any, start: Any, language: str,
                                                                     club_setup: dict[str, Any]) -> None:
    deal = start("rukas", FOUR, void_trick="carry")
    session = deal.session
    session.stake = Decimal("0.10")
    session.save()
    client = page(club_setup["users"]["scorer"], language)
    expected = {
        "en": ["House rules", "R1 a 7 that beat an ace the 7 takes",
               "R2 a trick nobody takes carried to the next taker",
               "Who deals the dealer moves one seat clockwise each deal", "Stake 0.10 EUR per point",
               "Smallest coin none: exact cents"],
        "lt": ["Namų taisyklės", "Statymas 0,10 EUR už tašką", "Kas dalija"],
    }[language]
    for address in (f"/sessions/{session.pk}/", f"/deals/{deal.pk}/"):
        text = text_of(client.get(address)).replace("\u00a0", " ")
        rules = text[text.index(expected[0]):]
        for words in expected:
            assert words in rules, (address, words)


def test_cheat_says_the_loser_deals(page: Any, start: Any, club_setup: dict[str, Any]) -> None:
    deal = start("cheat", FOUR[:3])
    text = text_of(page(club_setup["users"]["scorer"]).get(f"/deals/{deal.pk}/"))
    assert "Who deals the loser of a deal (the cheat) deals the next" in text
    assert "C1 jokers 0" in text


def test_the_audit_speaks_lithuanian_for_entries_whose_words_need_the_deal(page: Any, start: Any,
                                                                          club_setup: dict[str, Any]) -> None:
    """A Cheat card placed and a Rūkas trick nobody takes: the audit reads only the stored
    conclusion, and still says them in the club's words, not the engine's English."""
    scorer = club_setup["users"]["scorer"]
    cheat = start("cheat", FOUR[:3])
    record(cheat, scorer, {"type": "place", "player": 0})
    rukas = start("rukas", FOUR)
    record(rukas, scorer, {"type": "trick", "cards": ["5", "5", "9", "9"]})
    for deal in (cheat, rukas):
        text = text_of(page(club_setup["users"]["member"], "lt").get(f"/sessions/{deal.session_id}/audit/"))
        for english in (" placed a card", " takes the trick", "Nobody takes", " the "):
            assert english not in text, (deal.session.game, english, text)
