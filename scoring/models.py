"""Results of finished deals, the chip ledger, and the aggregates behind the leaderboards.

Everything here except ``SessionSummary`` is written by ``scoring.results`` inside the
referee's transaction that finished (or reopened) a deal or closed (or reopened) a session,
so the tables always agree with the deals: see that module for the rules of money, the
ledger and the ratings.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from referee.models import Club, Deal, Member, Session, known_game


class DealResult(models.Model):
    """A seat's result in a finished deal, written with the entry that finished it."""

    # deal, club and member have no index of their own: one_result_per_seat_per_deal and the
    # indexes below lead with each, and a finishing entry writes a row per seat.
    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="results", db_index=False)
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="results")
    #: Copied from the session so the club's history can be summed without joins.
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="results", db_index=False)
    game = models.CharField(max_length=10, validators=[known_game])
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="results", db_index=False)
    seat = models.PositiveSmallIntegerField()
    #: In the game's unit: deals won (Elgeta), points, chips (Michigan), losses as -1 (Cheat).
    points = models.IntegerField()
    placement = models.PositiveSmallIntegerField()
    won = models.BooleanField(default=False)
    #: Stakes won (+) or paid (-) in this deal; money = units x the session's stake.
    units = models.IntegerField(default=0)
    money = models.DecimalField(max_digits=14, decimal_places=2, default=Decimal("0"))
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["deal", "seat"]
        constraints = [models.UniqueConstraint(fields=["deal", "seat"], name="one_result_per_seat_per_deal")]
        indexes = [
            models.Index(fields=["member", "finished_at"]),
            models.Index(fields=["club", "game", "finished_at"], name="result_club_game_time"),
            models.Index(fields=["club", "finished_at"], name="result_club_time"),
        ]


class Reason(models.TextChoices):
    ANTE = "ante", "ante"
    PRIZE = "prize", "prize"
    MISPLAY = "misplay", "misplay"
    PAYOUT = "payout", "payout"
    #: M3: the chips left on the prize cards shared out when the session closes.
    SPLIT = "split", "split"


class ChipMovement(models.Model):
    """One line of a Mičiganas session's chip ledger: chips from a seat or prize card to another.

    Written from the engine's movements when a deal finishes (``deal`` set) and by M3 when
    the session closes (``deal`` null, reason ``split``); removed when either is reopened.
    """

    # No index of its own: (session, deal, order) below leads with it.
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="chip_movements", db_index=False)
    deal = models.ForeignKey(Deal, null=True, blank=True, on_delete=models.CASCADE, related_name="chip_movements")
    #: Order within the deal (or within the close).
    order = models.PositiveIntegerField()
    source_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    source_prize = models.CharField(max_length=3, blank=True, default="")
    target_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    target_prize = models.CharField(max_length=3, blank=True, default="")
    chips = models.PositiveIntegerField()
    reason = models.CharField(max_length=8, choices=Reason.choices)
    #: When it was settled: the deal's finish, or the session's close (the aggregates' month).
    at = models.DateTimeField()

    class Meta:
        ordering = ["session", "deal__number", "order"]
        constraints = [
            models.CheckConstraint(
                condition=Q(source_seat__isnull=False, source_prize="")
                | (Q(source_seat__isnull=True) & ~Q(source_prize="")),
                name="movement_has_one_source",
            ),
            models.CheckConstraint(
                condition=Q(target_seat__isnull=False, target_prize="")
                | (Q(target_seat__isnull=True) & ~Q(target_prize="")),
                name="movement_has_one_target",
            ),
            models.CheckConstraint(condition=Q(chips__gt=0), name="movement_moves_chips"),
        ]
        indexes = [models.Index(fields=["session", "deal", "order"])]


class MemberAggregate(models.Model):
    """A member's totals in one game over some stretch of time: the leaderboard's sums.

    Updated in the same transaction as the results (and what a close settles) it adds up,
    and subtracted again when they are reopened (``scoring.results``), so a period is at
    most a few rows per member.
    """

    # No index of its own: each period's unique (club, game, ...) leads with it.
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+", db_index=False)
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=10, validators=[known_game])
    deals = models.IntegerField(default=0)
    wins = models.IntegerField(default=0)
    points = models.BigIntegerField(default=0)
    money = models.DecimalField(max_digits=16, decimal_places=2, default=Decimal("0"))

    class Meta:
        abstract = True


class MemberMonth(MemberAggregate):
    """The totals per calendar month (club time zone): whole months of a period read these."""

    month = models.DateField(help_text="The first day of the month.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "game", "month", "member"], name="one_aggregate_per_member_month"),
        ]
        indexes = [models.Index(fields=["club", "month"], name="member_month_club_month")]


class MemberDay(MemberAggregate):
    """The totals per calendar day: only the partial months at the edges of a custom period read them."""

    day = models.DateField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "game", "day", "member"], name="one_aggregate_per_member_day"),
        ]
        indexes = [models.Index(fields=["club", "day"], name="member_day_club_day")]


class MemberTotal(MemberAggregate):
    """The totals over all time: the all-time leaderboard reads one row per member and game."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["club", "game", "member"], name="one_aggregate_per_member_game"),
        ]


#: The aggregate tables and the column that buckets their time (None: all time).
AGGREGATES: tuple[tuple[type[MemberAggregate], str | None], ...] = (
    (MemberMonth, "month"), (MemberDay, "day"), (MemberTotal, None),
)

OVERALL = "all"


class RatingStream(models.Model):
    """The order in which a club's deals of one game (or of every game, ``all``) were rated.

    ``stale`` means a deal other than the latest rated one was reopened: the ratings are
    being recomputed from the results (see ``scoring.ratings``).
    """

    # No index of its own: one_rating_stream_per_game (club, game) leads with it.
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+", db_index=False)
    game = models.CharField(max_length=10)
    last_seq = models.PositiveIntegerField(default=0)
    stale = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["club", "game"], name="one_rating_stream_per_game")]


class Rating(models.Model):
    """A member's skill rating (openskill Plackett-Luce) in one game or overall (``all``)."""

    # No index of its own: one_rating_per_member_game (club, game, member) leads with it.
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+", db_index=False)
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=10)
    mu = models.FloatField()
    sigma = models.FloatField()
    deals = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["club", "game", "member"], name="one_rating_per_member_game")]


class RatingUpdate(models.Model):
    """One deal's rating step: the ratings before it, so undoing the latest deal restores them exactly."""

    # No index of its own: both unique constraints lead with it.
    stream = models.ForeignKey(RatingStream, on_delete=models.CASCADE, related_name="updates", db_index=False)
    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveIntegerField()
    #: The deal's place in the stream's order, (finished_at, deal): a deal that commits later
    #: but belongs before the latest rated one cannot be rated step by step. Null in steps
    #: stored before this was kept (their stream is recomputed the next time it has work).
    finished_at = models.DateTimeField(null=True, blank=True)
    #: member id (text) -> [mu, sigma, deals] before this deal; null = had no rating yet.
    before = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stream", "deal"], name="one_rating_update_per_deal"),
            models.UniqueConstraint(fields=["stream", "seq"], name="rating_seq_unique"),
        ]


class RatingPoint(models.Model):
    """A member's rating right after one rated deal: the rating history, a point per member per
    deal for the whole history (not only the kept steps), in the stream's order (``seq``).
    Written with every rating step, removed when a step is taken back, rewritten by a recompute,
    so it is always the history of rating the club's current results in finishing order."""

    stream = models.ForeignKey(RatingStream, on_delete=models.CASCADE, related_name="+", db_index=False)
    seq = models.PositiveIntegerField()
    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="+", db_index=False)
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="+", db_index=False)
    mu = models.FloatField()
    sigma = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["stream", "seq", "member"], name="one_point_per_step_member")]
        # A member's chart reads their points in order: (stream, member, seq).
        indexes = [models.Index(fields=["stream", "member", "seq"], name="rating_point_member")]


class RatingEvent(models.Model):
    """A deal that finished (or was reopened) and waits for its stream's rating step.

    Written in the entry's transaction, without touching the stream (so no table waits for
    another's rating step); taken, in order, by the worker that rates the stream after commit
    (``ratings.settle``). While a stream has events, its ratings are being updated.
    """

    # No index of its own: rating_event_stream (club, game, id) leads with it.
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+", db_index=False)
    #: The stream: a game, or ``all``.
    game = models.CharField(max_length=10)
    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="+")
    #: When the deal finished (for a reopened deal: when the results it lost had finished).
    finished_at = models.DateTimeField()
    reopened = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=["club", "game", "id"], name="rating_event_stream")]


class SummaryState(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class SessionSummary(models.Model):
    """The evening's story, built in the background after a session closes.

    ``fingerprint`` identifies the session data the summary was built from, so a re-run on
    unchanged data gives the same stored result and a correction makes it stale.
    """

    session = models.OneToOneField(Session, on_delete=models.CASCADE, related_name="summary")
    state = models.CharField(max_length=10, choices=SummaryState.choices, default=SummaryState.PENDING)
    progress = models.PositiveSmallIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    fingerprint = models.CharField(max_length=64, blank=True, default="")
    data = models.JSONField(null=True, blank=True)
    html = models.TextField(blank=True, default="")
    csv = models.TextField(blank=True, default="")
    chart_svg = models.TextField(blank=True, default="")
    task_id = models.CharField(max_length=64, blank=True, default="")
    requested_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)


class SessionNet(models.Model):
    """A closed session's settlement per member, as the settlement rounds it to the coin: what
    the club's running balances add up. Written when first needed after the close and removed
    when the session is reopened (a correction, a seat corrected), so it is always the
    settlement of the session as closed."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="+")
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+", db_index=False)
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    amount = models.DecimalField(max_digits=14, decimal_places=2)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "member"], name="one_net_per_member")]
        indexes = [models.Index(fields=["club", "member"], name="net_club_member")]


class Payment(models.Model):
    """Money handed over: a settlement transfer marked paid (``session`` set), or a payment
    toward a running balance. Never deleted or changed: a mark made by mistake is reversed by
    another row (``reversal_of``) of the opposite amount."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+")
    session = models.ForeignKey(Session, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    payer = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    payee = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    amount = models.DecimalField(max_digits=14, decimal_places=2)
    marked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    marked_at = models.DateTimeField(auto_now_add=True)
    reversal_of = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="reversal")

    class Meta:
        ordering = ["marked_at", "id"]


class SessionResult(models.Model):
    """A member's result in one closed session, as a season counts it: the mean place score of
    their deals there ((n - place) / (n - 1) at a table of n; 1 first, 0 last, whatever the
    table's size). Written when first needed after the close, removed when it is reopened."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="+")
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+", db_index=False)
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    game = models.CharField(max_length=10)
    day = models.DateField()
    deals = models.PositiveIntegerField()
    score = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "member"], name="one_result_per_session_member")]
        # A season reads a club's results of a span of days (and one game): (club, day); on
        # PostgreSQL each member's best and latest ones (scoring.seasons.BEST_AND_LATEST_SQL).
        indexes = [models.Index(fields=["club", "day"], name="session_result_club_day"),
                   models.Index(fields=["club", "member", "-score"], name="session_result_best"),
                   models.Index(fields=["club", "member", "-day"], name="session_result_latest")]


class Season(models.Model):
    """A league over a span of days: its rules are data the club sets (see ``scoring.seasons``).
    A closed season is frozen: its table as closed is kept (``frozen``), and corrections made
    after the close are shown beside it, never applied to it."""

    class Unit(models.TextChoices):
        SESSION = "session", _("a session")
        EVENING = "evening", _("a club night")

    class BelowMinimum(models.TextChoices):
        UNRANKED = "unranked", _("not ranked")
        ZEROS = "zeros", _("padded with zeros")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=80)
    #: One game, or blank for every game (the place score is the same unit in each).
    game = models.CharField(max_length=10, blank=True, default="")
    start = models.DateField()
    end = models.DateField()
    unit = models.CharField(max_length=8, choices=Unit.choices, default=Unit.SESSION)
    #: Count each member's best N results (null: all of them).
    best_of = models.PositiveSmallIntegerField(null=True, blank=True)
    min_results = models.PositiveSmallIntegerField(default=0)
    below_minimum = models.CharField(max_length=8, choices=BelowMinimum.choices, default=BelowMinimum.UNRANKED)
    #: The tie-break chain after the season's score, in order (``scoring.seasons.TIE_BREAKS``).
    tie_breaks = models.JSONField(default=list)
    #: Divisions (1: none). At the season's end the best ``movers`` of each division but the first
    #: go up one, the last ``movers`` of each but the last go down one.
    divisions = models.PositiveSmallIntegerField(default=1)
    movers = models.PositiveSmallIntegerField(default=2)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+")
    frozen = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-start", "-pk"]


class RatingSettings(models.Model):
    """A club's choices about its ratings. ``idle_sigma_per_week``: how much a member's
    uncertainty grows for every whole week they do not play (0: it does not), so the
    leaderboard's cautious rank lowers for members who stopped playing, with the reason shown."""

    club = models.OneToOneField(Club, on_delete=models.CASCADE, related_name="+")
    idle_sigma_per_week = models.FloatField(default=0.0)


class SeasonDivision(models.Model):
    """The division a member plays the season in (unset: the last division), and, once the
    season is closed, the one the standings send them to next; an admin may override that,
    with a reason, and the row keeps who did and when (the audit)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="placements")
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    division = models.PositiveSmallIntegerField()
    next_division = models.PositiveSmallIntegerField(null=True, blank=True)
    override_reason = models.CharField(max_length=200, blank=True, default="")
    override_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    override_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["season", "member"], name="one_division_per_member")]
