"""Club nights' reads: the evenings a user may see, and one evening with its rounds, tables and
the players present, in as few queries as the screens need."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet

from referee.models import Member

from .models import Evening, EveningPlayer, Round, RoundTable


def evenings_for(user: Any) -> QuerySet[Evening]:
    evenings = Evening.objects.select_related("club")
    if user.is_superuser:
        return evenings
    return evenings.filter(club__members__user=user, club__members__active=True).distinct()


def with_rounds(evenings: QuerySet[Evening]) -> QuerySet[Evening]:
    tables = RoundTable.objects.select_related("session").order_by("number")
    return evenings.prefetch_related(
        Prefetch("round_set", queryset=Round.objects.order_by("number").prefetch_related(Prefetch("tables", tables))),
        Prefetch("players", queryset=EveningPlayer.objects.select_related("member").order_by("member__name")),
    )


def club_evenings(club_id: int, *, limit: int) -> list[Evening]:
    return list(Evening.objects.filter(club_id=club_id).order_by("-day", "-pk")[:limit])


def names(evening: Evening) -> dict[int, str]:
    """Every club member's name by id (a seat's member may have left the evening since)."""
    return dict(Member.objects.filter(club_id=evening.club_id).values_list("pk", "name"))


def table_of(session_id: int) -> RoundTable | None:
    """The club night's table a session is (its round and evening), or None for a lone session."""
    return RoundTable.objects.select_related("round__evening").filter(session_id=session_id).first()


def later_table(table: RoundTable) -> RoundTable | None:
    """The table this table's tablet plays at now, when a later round of its night has started
    (same table number): what a tablet back from a round offline is shown first."""
    return (RoundTable.objects.select_related("round").filter(
        round__evening_id=table.round.evening_id, round__number__gt=table.round.number,
        round__started_at__isnull=False, number=table.number).order_by("-round__number").first())
