"""The recording screens without JavaScript (the forms post to the page), their permissions,
the preview, the watchers' poll, and the query count of a long deal."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.http import QueryDict

from referee.models import Deal, Entry
from scoring.models import DealResult
from web.pages.entry_form import payload_from_form

from .conftest import record

pytestmark = pytest.mark.django_db

SEED_END = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}


def velnias_form(key: str = "page-key-1", seq: int = 0) -> dict[str, Any]:
    """The Velnias form as a browser posts it: the empty caller field first, then the chosen one."""
    return {
        "form": "end", "idempotency_key": key, "expected_seq": str(seq), "f:type:str": "end",
        "f:condition:str": "last_card", "f:player:int": ["", "0"], "f:hand_counts:ints": ["3", "2", "6", "1"],
    }


def error_slot(html: str, form: str) -> str:
    match = re.search(rf'data-error-for="{form}">([^<]*)<', html)
    assert match is not None, f"no error slot for {form}"
    return match.group(1)


def test_the_form_names_build_the_entry_as_table_js_does() -> None:
    data = QueryDict(mutable=True)
    data.setlist("f:type:str", ["trick"])
    data.setlist("f:player:int", ["", "2"])
    data.setlist("f:challenger:int", [""])
    data.setlist("f:hand_counts:ints", ["3", "0", "x"])
    data.setlist("f:cards:strs", [" 9 ", "V", ""])
    data.setlist("f:rounds:round:1", ["6♠", ""])
    data.setlist("f:rounds:round:0", ["A♦", "A♥"])
    data.setlist("csrfmiddlewaretoken", ["t"])
    assert payload_from_form(data) == {
        "type": "trick", "player": 2, "challenger": None, "hand_counts": [3, 0, "x"], "cards": ["9", "V", ""],
        "rounds": [["A♦", "A♥"], ["6♠", None]],
    }


def test_without_javascript_the_seed_example_is_recorded_once(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    client = page(club_setup["users"]["scorer"])
    response = client.post(f"/deals/{deal.pk}/", velnias_form())
    assert response.status_code == 302 and response["Location"] == f"/deals/{deal.pk}/"
    again = client.post(f"/deals/{deal.pk}/", velnias_form())  # a double tap on the button
    assert again.status_code == 302
    assert [e.payload for e in Entry.objects.filter(deal=deal)] == [SEED_END]
    assert [r.points for r in DealResult.objects.filter(deal=deal).order_by("seat")] == [27, -9, -10, -8]
    html = client.get(f"/deals/{deal.pk}/").content.decode()
    assert "Deal 1 is over" in html
    assert "Ona turned the last face-down card, could not place it and called stop." in html


def test_a_refusal_is_shown_next_to_its_form_and_stores_nothing(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("rukas", ["admin", "scorer", "member"], notation="lt")
    form = {"form": "trick", "idempotency_key": "k", "expected_seq": "0", "f:type:str": "trick",
            "f:cards:strs": ["9", "Q", "3"]}
    response = page(club_setup["users"]["scorer"]).post(f"/deals/{deal.pk}/", form)
    assert response.status_code == 400
    assert error_slot(response.content.decode(), "trick") == (
        "&#x27;Q&#x27; is an English rank letter, but this session writes cards in Lithuanian notation: "
        "use V (valetas), D (dama), K (karalius), T (tūzas)."
    )
    lithuanian = page(club_setup["users"]["scorer"], "lt").post(f"/deals/{deal.pk}/", form)
    assert error_slot(lithuanian.content.decode(), "trick") == (
        "„Q“ – angliška rango raidė, bet šioje partijoje kortos rašomos lietuviškai: "
        "V (valetas), D (dama), K (karalius), T (tūzas)."
    )
    assert Entry.objects.filter(deal=deal).count() == 0


def test_a_stale_screen_is_refused_with_the_current_entry_number(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    record(deal, club_setup["users"]["scorer"], {"type": "place", "player": 0})
    form = {"form": "place", "idempotency_key": "k2", "expected_seq": "0", "f:type:str": "place",
            "f:player:int": "1"}
    response = page(club_setup["users"]["scorer"]).post(f"/deals/{deal.pk}/", form)
    assert response.status_code == 409
    assert error_slot(response.content.decode(), "place") == (
        "Another device recorded first: this deal is now at entry 1. Reload and try again."
    )
    assert Deal.objects.get(pk=deal.pk).seq == 1


def test_undo_without_javascript_says_what_it_undoes(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    record(deal, club_setup["users"]["scorer"], {"type": "place", "player": 0}, {"type": "place", "player": 1})
    client = page(club_setup["users"]["scorer"])
    html = client.get(f"/deals/{deal.pk}/").content.decode()
    assert "Undo: <span class=\"what\">Jonas&#x27;s card (announced 2)</span>" in html
    response = client.post(f"/deals/{deal.pk}/", {"action": "undo", "form": "undo", "expected_seq": "2"})
    assert response.status_code == 302
    assert [e.payload["player"] for e in Entry.objects.filter(deal=deal, active=True)] == [0]
    nothing = start("velnias", ["admin", "scorer", "member"])
    refused = client.post(f"/deals/{nothing.pk}/", {"action": "undo", "form": "undo", "expected_seq": "0"})
    assert refused.status_code == 400
    assert error_slot(refused.content.decode(), "undo") == "There is nothing to undo in this deal."


def test_members_watch_without_recording_controls_and_cannot_record(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    client = page(club_setup["users"]["member"])
    html = client.get(f"/deals/{deal.pk}/").content.decode()
    assert "data-entry" not in html and "data-undo" not in html
    assert "Watching: updates arrive by themselves" in html
    response = client.post(f"/deals/{deal.pk}/", velnias_form())
    assert response.status_code == 403
    assert error_slot(response.content.decode(), "end") == (
        "Only the club&#x27;s scorers and admins can record or change play."
    )
    preview = client.post(f"/deals/{deal.pk}/preview/", SEED_END, content_type="application/json")
    assert preview.status_code == 403
    assert preview.json() == {"error": "Only the club's scorers and admins can record or change play."}
    assert Entry.objects.count() == 0


def test_outsiders_see_nothing_and_strangers_are_sent_to_sign_in(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member"])
    outsider = page(club_setup["users"]["outsider"])
    for url in (f"/deals/{deal.pk}/", f"/deals/{deal.pk}/live/", f"/sessions/{deal.session_id}/",
                f"/sessions/{deal.session_id}/live/", f"/sessions/{deal.session_id}/deals/new/"):
        assert outsider.get(url).status_code == 404, url
    assert outsider.post(f"/deals/{deal.pk}/preview/", SEED_END, content_type="application/json").status_code == 404
    stranger = page()
    response = stranger.get(f"/deals/{deal.pk}/")
    assert response.status_code == 302 and response["Location"] == f"/login/?next=/deals/{deal.pk}/"


def test_the_preview_shows_the_points_and_stores_nothing(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    client = page(club_setup["users"]["scorer"])
    response = client.post(f"/deals/{deal.pk}/preview/", SEED_END, content_type="application/json")
    assert response.status_code == 200
    assert response.json()["points"] == [27, -9, -10, -8]
    assert "Ona turned the last face-down card" in response.json()["html"]
    refused = client.post(f"/deals/{deal.pk}/preview/", {**SEED_END, "hand_counts": [3, 2, 9, 1]},
                          content_type="application/json")
    assert refused.status_code == 400
    assert refused.json() == {"error": "Rūta holds 9 cards, but a hand in a 4-player deal has only 8."}
    assert Entry.objects.count() == 0 and Deal.objects.get(pk=deal.pk).seq == 0


def test_the_referee_asks_for_an_elgeta_tie_break_round_with_what_it_knows(
    page: Any, start: Any, club_setup: dict
) -> None:
    deal = start("elgeta", ["admin", "scorer", "member", "Petras"], suits=["S", "D", "H", "C"])
    response = page(club_setup["users"]["scorer"]).post(
        f"/deals/{deal.pk}/preview/", {"type": "trick", "rounds": [["J♠", "A♦", "A♥", "4♣"]]},
        content_type="application/json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == (
        "Round 1 is a tie (AD, AH), so every player still in adds one more card: round 2 is missing."
    )
    assert body["next_round"] == 1
    assert body["prefill"] == ["", "", "", ""]  # own piles: the order is nobody's knowledge
    assert body["empty"] == [False, False, False, False]
    # What each may still turn: their own suit, less the card turned in round 1.
    assert body["possible"][0].split() == [c + "♠" for c in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "Q", "K",
                                                              "A")]


def test_watchers_poll_cheaply_and_get_the_screen_when_it_changed(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    watcher = page(club_setup["users"]["member"])
    first = watcher.get(f"/deals/{deal.pk}/live/")
    assert first.status_code == 200 and first["X-Running-Deal"] == str(deal.pk)
    version = first["X-Deal-Version"]
    assert watcher.get(f"/deals/{deal.pk}/live/?v={version}").status_code == 204
    record(deal, club_setup["users"]["scorer"], {"type": "place", "player": 0})
    changed = watcher.get(f"/deals/{deal.pk}/live/?v={version}")
    assert changed.status_code == 200
    assert "Ona placed a card and announced A." in changed.content.decode()
    # Undo and record again: the same entry number, a different version.
    from referee import services

    services.entry_undo(deal_id=deal.pk, user=club_setup["users"]["scorer"])
    record(deal, club_setup["users"]["scorer"], {"type": "place", "player": 0})
    assert watcher.get(f"/deals/{deal.pk}/live/?v={changed['X-Deal-Version']}").status_code == 200


def test_a_long_deal_costs_the_same_queries_as_a_short_one(
    page: Any, start: Any, club_setup: dict, django_assert_num_queries: Any
) -> None:
    short = start("cheat", ["admin", "scorer", "member"])
    long = start("cheat", ["Petras", "Asta", "Tomas"])
    record(short, club_setup["users"]["scorer"], {"type": "place", "player": 0})
    turn = 0
    for _ in range(45):  # 17 cards each: everyone still holds cards
        record(long, club_setup["users"]["scorer"], {"type": "place", "player": turn})
        turn = (turn + 1) % 3
    client = page(club_setup["users"]["scorer"])
    client.get(f"/deals/{short.pk}/")
    with django_assert_num_queries(6):
        assert client.get(f"/deals/{short.pk}/").status_code == 200
    with django_assert_num_queries(6):
        assert client.get(f"/deals/{long.pk}/").status_code == 200


def test_michigan_live_mode_records_card_by_card(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("michigan", ["admin", "scorer", "member"], live=True)
    client = page(club_setup["users"]["scorer"])
    html = client.get(f"/deals/{deal.pk}/").content.decode()
    assert "A card is played" in html and "Someone went out" not in html
    form = {"form": "play", "idempotency_key": "live-1", "expected_seq": "0", "f:type:str": "play",
            "f:player:int": ["", "0"], "f:card:str": "5♥"}
    assert client.post(f"/deals/{deal.pk}/", form).status_code == 302
    html = client.get(f"/deals/{deal.pk}/").content.decode()
    assert "Ona plays 5♥." in html and "It starts the first sequence." in html
    # The referee now expects the 6♥ next: the card field offers it.
    assert 'value="6♥"' in html


def test_without_javascript_a_tie_break_round_is_added_on_request(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("elgeta", ["admin", "scorer", "member", "Petras"], suits=["S", "D", "H", "C"])
    client = page(club_setup["users"]["scorer"])
    form = {"form": "trick", "action": "more_rounds", "idempotency_key": "k", "expected_seq": "0",
            "f:type:str": "trick", "f:rounds:round:0": ["J♠", "A♦", "A♥", "4♣"]}
    html = client.post(f"/deals/{deal.pk}/", form).content.decode()
    assert 'name="f:rounds:round:0" value="A♦"' in html  # what was typed stays
    assert html.count('name="f:rounds:round:1" value=""') == 4
    assert "Round 2: tie-break" in html
    form.update({"action": "entry", "f:rounds:round:1": ["6♠", "7♦", "9♥", "Q♣"]})
    assert client.post(f"/deals/{deal.pk}/", form).status_code == 302
    assert Entry.objects.get(deal=deal).payload["rounds"] == [["J♠", "A♦", "A♥", "4♣"], ["6♠", "7♦", "9♥", "Q♣"]]


def test_without_javascript_a_refused_count_comes_back_as_typed(page: Any, start: Any, club_setup: dict) -> None:
    """12 cards in an 8-card hand is refused with the referee's message, and the form shows 12
    again (not the hand size, not a default): what is recorded is only ever what was typed."""
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    client = page(club_setup["users"]["scorer"])
    form = velnias_form()
    form["f:hand_counts:ints"] = ["3", "2", "12", "1"]
    response = client.post(f"/deals/{deal.pk}/", form)
    assert response.status_code == 400
    html = response.content.decode()
    assert error_slot(html, "end") == "Rūta holds 12 cards, but a hand in a 4-player deal has only 8."
    values = re.findall(r'id="count-(\d)" name="f:hand_counts:ints" value="([^"]*)"', html)
    assert values == [("0", "3"), ("1", "2"), ("2", "12"), ("3", "1")]
    assert ' max="8"' not in html  # no browser limit stands between the typed value and the referee
    assert Entry.objects.filter(deal=deal).count() == 0


def test_a_fresh_count_field_starts_at_one(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    html = page(club_setup["users"]["scorer"]).get(f"/deals/{deal.pk}/").content.decode()
    html = html.split('<template id="fresh-deal">')[0]  # the screen's form, not the offline path's copy
    values = re.findall(r'id="count-(\d)" name="f:hand_counts:ints" value="([^"]*)"', html)
    assert values == [("0", "1"), ("1", "1"), ("2", "1"), ("3", "1")]
