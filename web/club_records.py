"""The rest of a club's record in its export: what people wrote besides play itself.

``web.club_export`` writes the play (sessions, deals, entries, results, ledger, summaries)
field by field. These are the club's other rows: seat corrections, debts marked paid, the
rating settings, seasons and their divisions, the club nights with their rounds and tables,
who is kept apart, pending invitations. Without them a restored club would read different
figures (balances without the payments, a season with no table, a club night gone), so a
backup that restores must carry them.

They travel as Django's serialisation of each row (``model``, ``pk``, ``fields``), ids kept,
timestamps as stored (a raw save does not stamp ``auto_now_add``), and user references
mapped like the play's authors. What is a pure function of other rows (the session nets and
season results, written when first needed) is left out and recomputed on demand.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any
from uuid import UUID

from django.contrib.auth import get_user_model
from django.core import serializers
from django.db import models
from django.utils.translation import gettext as _

from evenings.models import Evening, EveningPlayer, KeptApart, Round, RoundTable
from referee.errors import Refusal
from referee.models import Club, Invitation, PlanChange, SeatChange
from scoring.models import Payment, RatingSettings, Season, SeasonDivision

#: In the order they are restored (a row after the rows it refers to), each with how its
#: club's rows are found.
RECORDS: list[tuple[type[models.Model], Callable[[Club], Any]]] = [
    (SeatChange, lambda club: SeatChange.objects.filter(session__club=club)),
    (PlanChange, lambda club: PlanChange.objects.filter(session__club=club)),
    (Payment, lambda club: Payment.objects.filter(club=club)),
    (RatingSettings, lambda club: RatingSettings.objects.filter(club=club)),
    (Season, lambda club: Season.objects.filter(club=club)),
    (SeasonDivision, lambda club: SeasonDivision.objects.filter(season__club=club)),
    (KeptApart, lambda club: KeptApart.objects.filter(club=club)),
    (Evening, lambda club: Evening.objects.filter(club=club)),
    (EveningPlayer, lambda club: EveningPlayer.objects.filter(evening__club=club)),
    (Round, lambda club: Round.objects.filter(evening__club=club)),
    (RoundTable, lambda club: RoundTable.objects.filter(round__evening__club=club)),
    (Invitation, lambda club: Invitation.objects.filter(member__club=club)),
]


def label(model: type[models.Model]) -> str:
    return model._meta.label_lower


def _json_value(value: Any) -> str:
    # Not DjangoJSONEncoder: it cuts times to the millisecond, and a restored payment would
    # then read a different time (and sort differently among marks of the same millisecond).
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (Decimal, UUID)):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def export_records(club: Club) -> dict[str, list[dict[str, Any]]]:
    """Every record row of the club, by model label, in id order; JSON-safe."""
    return {label(model): json.loads(json.dumps(serializers.serialize("python", rows(club).order_by("pk")),
                                                default=_json_value))
            for model, rows in RECORDS}


def record_ids(data: dict[str, Any]) -> list[tuple[type[models.Model], list[int]]]:
    """The ids the file's records would take, per model (for the import's "ids are free" check)."""
    out = []
    for model, _rows in RECORDS:
        rows = data.get(label(model), [])
        if not isinstance(rows, list) or not all(isinstance(row, dict) and "pk" in row for row in rows):
            raise Refusal(_("The file is not a club export: “%(key)s” is missing or not a list.")
                          % {"key": f"records.{label(model)}"})
        out.append((model, [row["pk"] for row in rows]))
    return out


def import_records(data: dict[str, Any], users: dict[int, int]) -> None:
    """Store the file's records with their ids; users are mapped as ``users`` says (a username
    already here is linked to, so its id may differ from the file's)."""
    User = get_user_model()
    for model, _rows in RECORDS:
        rows = data.get(label(model), [])
        by_user = [f.name for f in model._meta.concrete_fields if f.is_relation and f.related_model is User]
        for row in rows:
            fields = row.get("fields", {})
            for name in by_user:
                if fields.get(name) is not None:
                    fields[name] = users.get(fields[name])
        for stored in serializers.deserialize("python", rows):
            stored.save()
