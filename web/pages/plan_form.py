"""The plan's two form fields (how the length is agreed, and the number), read alike by the
session start form and the session page's plan form; the service checks the plan itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from referee.safe_input import read_int

#: The choices of ``plan_kind``: "" is open-ended.
PLAN_KINDS = ("", "deals", "target")


def plan_shown(data: Mapping[str, Any] | None, plan: Mapping[str, int] | None = None) -> dict[str, str]:
    """What the two fields show: as typed, else the stored plan's, else open-ended."""
    if data is not None:
        return {key: str(data.get(key) or "").strip() for key in ("plan_kind", "plan_count")}
    if plan:
        kind, count = next(iter(plan.items()))
        return {"plan_kind": kind, "plan_count": str(count)}
    return {"plan_kind": "", "plan_count": ""}


def read_plan_fields(data: Mapping[str, Any]) -> dict[str, int] | None:
    """The plan the two fields give (None: open-ended), or a ValidationError saying what to type."""
    shown = plan_shown(data)
    kind = shown["plan_kind"]
    if kind not in PLAN_KINDS:
        raise ValidationError(_("Choose how long the session runs: open-ended, a number of deals or a target."))
    if not kind:
        return None
    count = read_int(shown["plan_count"])
    if count is None or count < 1:
        if kind == "deals":
            raise ValidationError(_("Give the number of deals as a whole number from 1, e.g. 10."))
        raise ValidationError(_("Give the target as a whole number from 1, e.g. 50."))
    return {kind: count}
