"""Lithuanian and English: the catalogue is complete and compiled, the engine's card-reading
refusals are in it, and the language switch changes the pages."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import polib
import pytest
from django.core.management import call_command
from django.utils import translation

from referee.card_messages import CARD_MESSAGES

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "locale" / "lt" / "LC_MESSAGES" / "django.po"


def card_error_templates() -> set[str]:
    tree = ast.parse((ROOT / "referee" / "rules" / "cards.py").read_text(encoding="utf-8"))
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "CardError"
        and node.args and isinstance(node.args[0], ast.Constant)
    }


def test_every_card_reading_refusal_is_listed_for_translation() -> None:
    assert card_error_templates() <= set(CARD_MESSAGES)


def test_the_lithuanian_catalogue_is_complete_and_compiled() -> None:
    po = polib.pofile(str(CATALOGUE))
    assert [e.msgid for e in po.untranslated_entries()] == []
    assert [e.msgid for e in po.fuzzy_entries()] == []
    assert set(CARD_MESSAGES) <= {e.msgid for e in po}
    call_command("compile_messages", "--check")  # the committed .mo matches the .po


def test_refusals_render_in_lithuanian_with_names() -> None:
    from referee.rules import GAMES, IllegalEntry

    rules = GAMES["rukas"]
    state = rules.apply(rules.new_deal(players=3, dealer=2, options={"notation": "lt"}),
                        {"type": "trick", "cards": ["9", "V", "3"]})
    with pytest.raises(IllegalEntry) as refused:
        rules.apply(state, {"type": "trick", "cards": ["V", "2", "4"]})  # Jonas took the trick with V
    with translation.override("lt"):
        text = refused.value.render(names=["Ona", "Jonas", "Rūta"], translate=translation.gettext, notation="lt")
    assert text == "Jonas šiame padalijime jau sužaidė V; dar turi: 2, 3, 4, 5, 6, 7, 8, 9, 10, D, K, T."


@pytest.mark.django_db
def test_the_language_switch(client: Any, club_setup: dict[str, Any]) -> None:
    client.force_login(club_setup["users"]["scorer"])
    assert "Pasirinkite klubą" in client.get("/").content.decode()  # Lithuanian by default
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    assert "Pick a club" in client.get("/").content.decode()
