"""Correcting an earlier entry from the pages: the preview says what changes downstream and
stores nothing; the saved correction equals its preview; refusals change nothing."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee import services
from referee.models import DealChange, Entry
from scoring import selectors as scoring
from scoring.models import DealResult

from .conftest import record

pytestmark = pytest.mark.django_db

SEED_END = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}
SECOND_END = {"type": "end", "condition": "empty_hand", "player": 1, "hand_counts": [2, 0, 1, 4]}


def form(condition: str, player: int | None, counts: list[int], **extra: str) -> dict[str, Any]:
    return {"f:condition:str": condition, "f:player:int": "" if player is None else str(player),
            "f:hand_counts:ints": [str(c) for c in counts], **extra}


def totals_after(html: str) -> list[str]:
    return re.findall(r"data-total-after>([^<]+)<", html)


def two_velnias_deals(start: Any, club_setup: dict[str, Any]) -> tuple[Any, Any]:
    scorer = club_setup["users"]["scorer"]
    first = start("velnias", ["admin", "scorer", "member", "Petras"])
    record(first, scorer, SEED_END)
    second = services.deal_start(session=first.session, user=scorer)
    record(second, scorer, SECOND_END)
    return first, second


def test_the_preview_shows_the_change_and_the_saved_correction_equals_it(
    page: Any, start: Any, club_setup: dict[str, Any],
) -> None:
    first, _second = two_velnias_deals(start, club_setup)
    client = page(club_setup["users"]["scorer"])
    url = f"/deals/{first.pk}/entries/1/correct/"
    shown = client.get(url).content.decode()
    assert "the end of the deal: last face-down card, Ona" in shown
    assert "How the deal ended" in shown and "The player who called stop" in shown  # the club's words
    results_before = list(DealResult.objects.order_by("deal_id", "seat").values_list("points", flat=True))
    standings_before = [row["total"] for row in scoring.standings(first.session)["totals"]]

    # Petras held 3 cards, not 1: the preview shows deal 1 and the totals after, and stores nothing.
    preview = client.post(url, form("last_card", 0, [3, 2, 6, 3], action="preview"))
    assert preview.status_code == 200
    html = preview.content.decode()
    assert "If you save this correction" in html
    previewed = totals_after(html)
    assert len(previewed) == 4
    assert list(DealResult.objects.order_by("deal_id", "seat").values_list("points", flat=True)) == results_before
    assert [row["total"] for row in scoring.standings(first.session)["totals"]] == standings_before
    assert Entry.objects.get(deal=first, seq=1, active=True).payload == SEED_END
    assert not DealChange.objects.exists()

    # Saved: the standings are what the preview said.
    key = re.search(r'name="previewed" value="([^"]+)"', html)
    assert key is not None
    saved = client.post(url, {**form("last_card", 0, [3, 2, 6, 3], action="save"),
                              "previewed": key.group(1).replace("&quot;", '"')})
    assert saved.status_code == 302 and saved["Location"] == f"/sessions/{first.session_id}/"
    after = scoring.standings(first.session)["totals"]
    shown_after = [f"{row['total']:+d}".replace("-", "−") if row["total"] else "0" for row in after]
    assert shown_after == previewed
    assert [row["total"] for row in after] != standings_before
    assert Entry.objects.get(deal=first, seq=1, active=True).payload["hand_counts"] == [3, 2, 6, 3]


def test_a_form_changed_after_its_preview_is_previewed_again_not_saved(
    page: Any, start: Any, club_setup: dict[str, Any],
) -> None:
    first, _second = two_velnias_deals(start, club_setup)
    client = page(club_setup["users"]["scorer"])
    url = f"/deals/{first.pk}/entries/1/correct/"
    html = client.post(url, form("last_card", 0, [3, 2, 6, 3], action="preview")).content.decode()
    key = re.search(r'name="previewed" value="([^"]+)"', html)
    assert key is not None
    again = client.post(url, {**form("last_card", 0, [3, 2, 6, 4], action="save"),
                              "previewed": key.group(1).replace("&quot;", '"')})
    assert again.status_code == 200 and "If you save this correction" in again.content.decode()
    assert Entry.objects.get(deal=first, seq=1, active=True).payload == SEED_END


def test_a_refused_correction_says_why_in_words_and_changes_nothing(
    page: Any, start: Any, club_setup: dict[str, Any],
) -> None:
    first, _second = two_velnias_deals(start, club_setup)
    client = page(club_setup["users"]["scorer"])
    refused = client.post(f"/deals/{first.pk}/entries/1/correct/", form("last_card", 0, [3, 2, 9, 1], action="save"))
    assert refused.status_code == 400
    html = refused.content.decode()
    assert ("This correction is refused: Rūta holds 9 cards, but a hand in a 4-player deal has only 8."
            in html)
    assert 'value="9"' in html  # the value typed stays as typed
    assert Entry.objects.get(deal=first, seq=1, active=True).payload == SEED_END
    assert not DealChange.objects.exists()


def test_members_cannot_correct(page: Any, start: Any, club_setup: dict[str, Any]) -> None:
    first, _second = two_velnias_deals(start, club_setup)
    member = page(club_setup["users"]["member"])
    url = f"/deals/{first.pk}/entries/1/correct/"
    assert 'id="form-correct"' not in member.get(url).content.decode()
    member.post(url, form("last_card", 0, [3, 2, 6, 3], action="save"))
    assert Entry.objects.get(deal=first, seq=1, active=True).payload == SEED_END
    assert page(club_setup["users"]["scorer"]).get(f"/deals/{first.pk}/entries/9/correct/").status_code == 404
