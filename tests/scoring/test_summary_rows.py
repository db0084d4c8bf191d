"""The summary's deal-by-deal rows, written in Python (``summary.deal_rows``) for speed, are the
bytes the template's loop wrote, in either language, with any name and any figure."""

from __future__ import annotations

from typing import Any

import pytest
from django.template import engines
from django.utils import translation

from scoring.summaries import summary

#: The loop as a template would write it: points signed as every page writes them, each cell
#: labelled with its column for the phone's cards.
TEMPLATE_LOOP = (
    "{% load table %}{% for deal in deals %}<tr><td data-label=\"{{ labels.deal }}\">{{ deal.number }}</td>"
    "<td data-label=\"{{ labels.dealer }}\">{{ deal.dealer_name }}</td>"
    "{% for name, points, total in deal.cells %}<td class=\"num\" data-label=\"{{ name }}\">{{ points|points }} "
    "<small>({{ total|points }})</small></td>"
    "{% endfor %}<td data-label=\"{{ labels.won_by }}\">{{ deal.winner_names|default:\"–\" }}</td></tr>\n{% endfor %}"
)
LABELS = {"deal": "Deal", "dealer": "Dealer", "won_by": "Won by"}


def template_rows(deals: list[dict[str, Any]], names: list[str]) -> str:
    context = {"deals": [
        {**deal, "dealer_name": names[deal["dealer"]],
         "winner_names": ", ".join(names[seat] for seat in deal["winners"]),
         "cells": list(zip(names, deal["values"], deal["running"]))}
        for deal in deals
    ], "labels": LABELS}
    return engines["django"].from_string(TEMPLATE_LOOP).render(context)


NAMES = ["Ona", "<b>Jonas</b> & \"J\" 'o'", "Rūta", "=1+2"]
DEALS = [
    {"number": 1, "dealer": 1, "values": [3, -3, 0, 0], "running": [3, -3, 0, 0], "winners": [0]},
    {"number": 2, "dealer": 0, "values": [-12, 40, -1000, 972], "running": [-9, 37, -1000, 972],
     "winners": [1, 3]},
    {"number": 3, "dealer": 3, "values": [0, 0, 0, 0], "running": [-9, 37, -1000, 972], "winners": []},
]


@pytest.mark.parametrize("language", ["lt", "en"])
def test_the_rows_are_the_templates_bytes(language: str) -> None:
    with translation.override(language):
        assert str(summary.deal_rows(DEALS, NAMES, LABELS)) == template_rows(DEALS, NAMES)


def test_no_deal_no_row() -> None:
    assert str(summary.deal_rows([], NAMES, LABELS)) == "" == template_rows([], NAMES)


def test_a_deals_points_are_signed_as_the_session_table_signs_them() -> None:
    """The summary wrote "2 (2)" where the session's table wrote "+2 (+2)"."""
    row = str(summary.deal_rows(DEALS[:1], NAMES, LABELS))
    assert ">+3 <small>(+3)</small>" in row and ">\u22123 <small>(\u22123)</small>" in row
    assert ">0 <small>(0)</small>" in row
