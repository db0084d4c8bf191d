"""A club night: who came, its rounds, and each round's tables (each an ordinary session).

A round is drawn first (its seating stored with the facts and seed it was drawn from and the
cost of every term, so it can be replayed and explained), can be changed by the director
until it starts, and is then played: starting it opens one session per table. Nothing of a
round that started is ever redrawn; a round is finished when all its tables' sessions are
closed.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from referee.models import Club, Member, Session, game_name, known_game


class ByeScore(models.TextChoices):
    """What a round sat out counts in the evening's standings (the evening states it)."""

    HALF = "half", _("half a round (as an average table)")
    NONE = "none", _("nothing")


class EveningStatus(models.TextChoices):
    OPEN = "open", _("open")
    CLOSED = "closed", _("closed")


class Evening(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="evenings")
    game = models.CharField(max_length=10, validators=[known_game])
    name = models.CharField(max_length=80, blank=True, default="")
    day = models.DateField(default=timezone.localdate)
    #: Rounds planned; none: open-ended (the director stops when the night ends).
    rounds = models.PositiveSmallIntegerField(null=True, blank=True, validators=[MinValueValidator(1)])
    #: The club's preferred table size (the draw keeps within the game's range).
    table_size = models.PositiveSmallIntegerField(default=4)
    options = models.JSONField(default=dict, blank=True)
    stake = models.DecimalField(max_digits=10, decimal_places=2, default=Decimal("0"))
    coin = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    bye_score = models.CharField(max_length=4, choices=ByeScore.choices, default=ByeScore.HALF)
    status = models.CharField(max_length=6, choices=EveningStatus.choices, default=EveningStatus.OPEN)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-day", "-pk"]

    def get_game_display(self) -> str:
        return game_name(self.game)


class EveningPlayer(models.Model):
    """A member's presence: arrived, and (once they go) left; arriving again clears ``left_at``."""

    evening = models.ForeignKey(Evening, on_delete=models.CASCADE, related_name="players")
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    arrived_at = models.DateTimeField(default=timezone.now)
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["evening", "member"], name="one_presence_per_member")]


class KeptApart(models.Model):
    """Two members the draw never seats at one table (a couple, a parent and child)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+")
    first = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "first", "second"], name="one_kept_apart_per_pair"),
            models.CheckConstraint(condition=Q(first__lt=models.F("second")), name="kept_apart_in_order"),
        ]


class Round(models.Model):
    evening = models.ForeignKey(Evening, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    #: The draw's facts as drawn (players, meetings, positions, strengths, byes so far): a replay
    #: of ``evenings.draw.draw`` on them gives the stored seating.
    facts = models.JSONField(default=dict)
    #: The cost of every term of the seating as it stands (after the director's changes).
    costs = models.JSONField(default=dict)
    #: The cost of the seating the draw chose, before any change by the director.
    drawn_costs = models.JSONField(default=dict)
    byes = models.JSONField(default=list)
    #: Members the director placed: member id -> [table, seat] (0-based); a redraw keeps them.
    fixed = models.JSONField(default=dict)
    drawn_at = models.DateTimeField(default=timezone.now)
    #: One more at every change (draw, swap, start): a write that names the version it saw is
    #: refused when another screen changed the round first (a retried swap never swaps back).
    version = models.PositiveIntegerField(default=1)
    started_at = models.DateTimeField(null=True, blank=True)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["evening", "number"]
        constraints = [models.UniqueConstraint(fields=["evening", "number"], name="one_round_per_number")]


class RoundTable(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()
    #: Member ids in seat order (seat 1 first): the session's seats once the round starts.
    seats = models.JSONField(default=list)
    session = models.OneToOneField(
        Session, null=True, blank=True, on_delete=models.PROTECT, related_name="evening_table"
    )

    class Meta:
        ordering = ["round", "number"]
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="one_table_per_number")]
