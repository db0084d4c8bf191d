"""The session start form (web.pages.start_form): players in seat order, the chosen game's
house rules only, and every refusal beside its field with nothing created."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.http import QueryDict
from django.utils import translation

from referee.models import Session
from web.pages.start_form import SessionStartForm

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english() -> Any:
    """The form's messages in English (outside a request the site's language is Lithuanian)."""
    with translation.override("en"):
        yield


def posted(fields: dict[str, Any]) -> QueryDict:
    data = QueryDict(mutable=True)
    for key, value in fields.items():
        data.setlist(key, value if isinstance(value, list) else [value])
    return data


def start_form(club_setup: dict[str, Any], seats: dict[str, str], **fields: Any) -> SessionStartForm:
    members = club_setup["members"]
    data: dict[str, Any] = {"game": "velnias", "notation": "en", "stake": "0", "coin": ""}
    for key, seat in seats.items():
        data[f"play_{members[key].pk}"] = "1"
        data[f"seat_{members[key].pk}"] = seat
    data.update(fields)
    active = sorted((m for k, m in members.items() if k != "outsider"), key=lambda m: m.name)
    return SessionStartForm(posted(data), members=active)


def test_players_sit_by_their_seat_numbers_then_in_list_order(club_setup: dict) -> None:
    """Numbered seats first, by number; unnumbered (or unreadable, like "²") after, by name."""
    form = start_form(club_setup, {"Petras": "2", "member": "", "scorer": "1", "Asta": "²", "Tomas": "x"})
    assert form.is_valid(), form.errors
    assert [m.name for m in form.cleaned_data["players"]] == ["Jonas", "Petras", "Asta", "Rūta", "Tomas"]


def test_another_clubs_member_cannot_be_seated(club_setup: dict) -> None:
    form = start_form(club_setup, {"admin": "1", "scorer": "2", "member": "3"},
                      **{f"play_{club_setup['members']['outsider'].pk}": "1"})
    assert form.is_valid(), form.errors
    assert [m.name for m in form.cleaned_data["players"]] == ["Ona", "Jonas", "Rūta"]


def test_only_the_chosen_games_house_rules_are_read(club_setup: dict) -> None:
    """A leftover bad value of another game's rule never blocks the start."""
    form = start_form(club_setup, {"admin": "1", "scorer": "2", "member": "3"}, game="cheat",
                      opt_cheat_jokers="2", opt_michigan_ante="many")
    assert form.is_valid(), form.errors
    assert form.session_arguments()["options"] == {"jokers": 2, "notation": "en"}


def test_house_rules_read_as_the_engines_options(club_setup: dict) -> None:
    form = start_form(
        club_setup, {"admin": "1", "scorer": "2", "member": "3", "Petras": "4"}, game="elgeta",
        opt_elgeta_suits="s, c d h", opt_elgeta_all_aces=["0", "1"], opt_elgeta_strict_order="0",
        stake=" 0,25 ", coin="0.05",
    )
    assert form.is_valid(), form.errors
    arguments = form.session_arguments()
    assert arguments["options"] == {"suits": ["S", "C", "D", "H"], "all_aces": True, "strict_order": False,
                                    "notation": "en"}
    assert (arguments["stake"], arguments["coin"]) == (Decimal("0.25"), Decimal("0.05"))


def test_an_empty_suits_field_leaves_the_engines_default(club_setup: dict) -> None:
    form = start_form(club_setup, {"admin": "1", "scorer": "2"}, game="elgeta", opt_elgeta_suits=" ")
    assert form.is_valid(), form.errors
    assert "suits" not in form.session_arguments()["options"]


def test_each_refusal_is_keyed_by_its_field(club_setup: dict) -> None:
    form = start_form(club_setup, {"admin": "1"}, game="michigan", notation="fr", stake="NaN", coin="0",
                      opt_michigan_ante="x", opt_michigan_dealer_ante="-1", opt_michigan_misplay_penalty="1",
                      opt_michigan_prize_A="H", opt_michigan_prize_K="S", opt_michigan_prize_Q="C",
                      opt_michigan_prize_J="D")
    assert not form.is_valid()
    assert form.messages() == {
        "notation": "Choose how cards are written.",
        "stake": "Give an amount of 0 or more, e.g. 0.10.",
        "coin": "Give the smallest coin as an amount above 0, e.g. 0.05, or leave it empty.",
        "opt_michigan_ante": "Give a whole number of chips, 0 or more.",
        "opt_michigan_dealer_ante": "Give a whole number of chips, 0 or more.",
        "players": "Mičiganas is played by 3 to 8 players; 1 chosen.",
    }
    # What was read stays on the form: the tick, and the valid house rules.
    assert form.seats() == {club_setup["members"]["admin"].pk: 1}
    assert form.option_values() == {"michigan": {"prizes": ["AH", "KS", "QC", "JD"], "misplay_penalty": 1,
                                                 "live": False}}


def test_an_unknown_game_is_refused_and_no_house_rule_is_read(club_setup: dict) -> None:
    form = start_form(club_setup, {"admin": "1"}, game="poker", opt_poker_x="1")
    assert not form.is_valid()
    assert form.messages() == {"game": "Choose a game."}
    assert form.option_values() == {}


def test_a_refused_player_count_keeps_the_ticks_on_the_page(page: Any, club_setup: dict) -> None:
    members = club_setup["members"]
    response = page(club_setup["users"]["scorer"]).post("/clubs/vilnius/sessions/new/", {
        "game": "velnias", "notation": "en", "stake": "0", "coin": "",
        f"play_{members['admin'].pk}": "1", f"seat_{members['admin'].pk}": "1",
    })
    html = response.content.decode()
    assert response.status_code == 400
    assert "Pašėlęs Velnias is played by 3 to 8 players; 1 chosen." in html
    assert f'data-seat-check="{members["admin"].pk}" checked>' in html
    assert Session.objects.count() == 0


def test_what_the_referee_refuses_is_shown_for_the_whole_form(page: Any, club_setup: dict) -> None:
    members = club_setup["members"]
    fields = {"game": "elgeta", "notation": "en", "stake": "0", "coin": "", "opt_elgeta_suits": "S C X"}
    for key, seat in {"admin": "1", "scorer": "2", "member": "3"}.items():
        fields[f"play_{members[key].pk}"] = "1"
        fields[f"seat_{members[key].pk}"] = seat
    response = page(club_setup["users"]["scorer"]).post("/clubs/vilnius/sessions/new/", fields)
    html = response.content.decode()
    assert response.status_code == 400
    assert 'id="form-error">' in html
    assert Session.objects.count() == 0
