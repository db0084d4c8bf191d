"""Clubs, members, sessions, deals and the append-only entry log.

A deal's truth is its log of entries; ``Deal.state`` is the engine snapshot after the last
active entry (so one more entry costs the same however long the deal is) and is always
rebuildable from the log. Undo and corrections never delete or rewrite an entry: the old
row is deactivated and a ``DealChange`` row says who changed what, when.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from referee.rules import GAMES

#: Every game the engine knows, by slug, with the name the club uses (forms and the API offer
#: these; ``referee.games.register`` adds a game's). Not frozen into the fields: a game added
#: to the registry is played with no migration.
GAME_CHOICES = [(slug, game.name_lt) for slug, game in GAMES.items()]


def known_game(slug: str) -> None:
    """A field's validator: the game is one of the registry's (``referee.rules.GAMES``)."""
    if slug not in GAMES:
        raise ValidationError(_("“%(slug)s” is not a game this referee knows."), params={"slug": slug})


def game_name(slug: str) -> str:
    """The name the club uses for a game (the registry's), or the slug of one it no longer has."""
    return dict(GAME_CHOICES).get(slug, slug)


class Club(models.Model):
    slug = models.SlugField(unique=True, max_length=50)
    name = models.CharField(max_length=100)
    public_leaderboard = models.BooleanField(
        default=False, help_text=_("Anyone, signed in or not, may see this club's leaderboard.")
    )
    currency = models.CharField(max_length=3, default="EUR")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    ADMIN = "admin", _("Administrator")
    SCORER = "scorer", _("Scorer")
    MEMBER = "member", _("Member")


ROLE_RANK = {Role.MEMBER: 1, Role.SCORER: 2, Role.ADMIN: 3}


class Member(models.Model):
    """A person at the club (a player), optionally linked to a user who signs in."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(max_length=60)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["club", "name"], name="member_name_unique_in_club"),
            models.UniqueConstraint(
                fields=["club", "user"], condition=Q(user__isnull=False), name="one_member_per_user_in_club"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class SessionStatus(models.TextChoices):
    OPEN = "open", _("Open")
    CLOSED = "closed", _("Closed")


class Session(models.Model):
    """One evening of one game at one table (LT UI: *vakaras*)."""

    # No index of its own: (club, created_at) below leads with it (one index less to write).
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="sessions", db_index=False)
    game = models.CharField(max_length=10, validators=[known_game])
    #: House-rule options passed to every deal (``notation`` included; defaults filled in).
    options = models.JSONField(default=dict, blank=True)
    #: Money per point (Velnias, Rūkas, Elgeta, Cheat) or per chip (Michigan).
    stake = models.DecimalField(max_digits=10, decimal_places=2, default=Decimal("0"),
                                validators=[MinValueValidator(Decimal("0"))])
    currency = models.CharField(max_length=3, default="EUR")
    #: Smallest coin for rounding the settlement (e.g. 0.05); null = exact cents.
    coin = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    status = models.CharField(max_length=10, choices=SessionStatus.choices, default=SessionStatus.OPEN)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    #: How long the players agreed to play (``referee.rules.plan``): ``{"deals": N}``,
    #: ``{"target": T}``, or null for open-ended. Never a reason to refuse a deal.
    plan = models.JSONField(null=True, blank=True, default=None)
    #: The finished deals when the scorer chose to play on past the reached plan (null: not
    #: chosen since the plan was last set); the screens offer closing first until then.
    played_on_after = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["club", "created_at"])]

    def __str__(self) -> str:
        return f"{self.get_game_display()} #{self.pk}"

    def get_game_display(self) -> str:
        return game_name(self.game)

    @property
    def notation(self) -> str:
        return str(self.options.get("notation", "en"))


class Seat(models.Model):
    """A member seated at a session; seats are numbered 0..n-1 clockwise."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="seats")

    class Meta:
        ordering = ["session", "number"]
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="seat_number_unique"),
            models.UniqueConstraint(fields=["session", "member"], name="member_seated_once"),
        ]


class DealStatus(models.TextChoices):
    RUNNING = "running", _("Running")
    FINISHED = "finished", _("Finished")


class Deal(models.Model):
    # No index of its own: deal_number_unique (session, number) leads with it.
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="deals", db_index=False)
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    #: Options this deal was started with (the session's, plus e.g. Michigan's carried pot).
    options = models.JSONField(default=dict)
    #: Engine snapshot after the last active entry: ``GAMES[game].to_dict(state)``.
    state = models.JSONField()
    #: Number of active entries; the next entry gets seq + 1.
    seq = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=DealStatus.choices, default=DealStatus.RUNNING)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: The id a tablet gave the deal when it started it offline; a retried start with the same id
    #: gets this deal back. NULL (not "") when absent, so the uniqueness applies only to real ids.
    client_id = models.CharField(max_length=80, null=True, blank=True)  # noqa: DJ001
    #: How many times the snapshot was written since the deal started: every entry, undo and
    #: correction, and a replay that a correction of an earlier deal carried into this one
    #: (which changes no entry of this deal). With the status, it names what the screen shows.
    revision = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["session", "number"]
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="deal_number_unique"),
            models.UniqueConstraint(
                fields=["session", "client_id"], condition=Q(client_id__isnull=False),
                name="deal_client_id_unique_per_session",
            ),
            models.UniqueConstraint(
                fields=["session"], condition=Q(status="running"), name="one_running_deal_per_session"
            ),
        ]

    def __str__(self) -> str:
        return f"Deal {self.number} of {self.session}"


class Entry(models.Model):
    """One thing the table recorded, exactly as entered. Append-only."""

    # No index of its own: (deal, active, seq) and the unique constraints lead with it; every
    # entry the hot path stores writes one index less.
    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="entries", db_index=False)
    seq = models.PositiveIntegerField()
    payload = models.JSONField()
    #: What the referee concluded (the engine's ``view["last"]`` after this entry).
    result = models.JSONField(null=True, blank=True)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    # NULL (not "") when absent, so the per-deal uniqueness applies only to real keys.
    idempotency_key = models.CharField(max_length=80, null=True, blank=True)  # noqa: DJ001
    #: False once undone or replaced by a correction (the row itself is kept).
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["deal", "seq", "id"]
        constraints = [
            models.UniqueConstraint(fields=["deal", "seq"], condition=Q(active=True), name="active_seq_unique"),
            models.UniqueConstraint(
                fields=["deal", "idempotency_key"], condition=Q(idempotency_key__isnull=False),
                name="idempotency_key_unique_per_deal",
            ),
        ]
        indexes = [models.Index(fields=["deal", "active", "seq"])]
        verbose_name_plural = "entries"


class ChangeKind(models.TextChoices):
    UNDO = "undo", _("Undo")
    CORRECTION = "correction", _("Correction")
    #: The scorer chose a tablet's version of the deal over the server's (a conflict's "use mine").
    TABLET_VERSION = "tablet", _("Replaced by a tablet's version")


class DealChange(models.Model):
    """The history of every undo or correction: who, when, and what it replaced."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="changes")
    kind = models.CharField(max_length=12, choices=ChangeKind.choices)
    replaced = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    replacement = models.ForeignKey(Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]


class Invitation(models.Model):
    """A one-time way for a member to get a sign-in: the admin hands over a link or a code, the
    new user opens it and chooses a username and password.

    Only a hash of the code is kept (like a password), so a copy of the database cannot be used
    to take over a member; the code is shown to the admin once, when it is made."""

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="invitations")
    #: SHA-256 of the code, hex: the code is long and random, so a plain hash cannot be guessed back.
    code_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Invitation for {self.member}"


class SeatChange(models.Model):
    """A seat's member corrected after entries were recorded (the wrong member on seat 3): the
    entries stand, the seat's member changes, and this row says who changed it, when, from whom
    to whom. Never deleted; a mistaken correction is corrected again."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="seat_changes")
    seat = models.PositiveSmallIntegerField()
    was = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    now = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="+")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]


class PlanChange(models.Model):
    """A session's plan set or changed, or the choice to play on past it: who, when, from what
    to what (the audit page lists them). Never deleted."""

    class Kind(models.TextChoices):
        SET = "set", _("Plan changed")
        PLAY_ON = "play_on", _("Played on past the plan")

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="plan_changes")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    was = models.JSONField(null=True, blank=True)
    now = models.JSONField(null=True, blank=True)
    #: Finished deals at the time of the change.
    deals = models.PositiveIntegerField(default=0)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

class ChainHead(models.Model):
    """Where a club's audit chain ends: its last record's number and hash. Appending a record
    takes this row's lock, so two tables of one club number their records one after the other
    with no gap; the row is written in the same statement as the record (``referee.chain``)."""

    club = models.OneToOneField(Club, on_delete=models.CASCADE, primary_key=True, related_name="chain_head")
    seq = models.PositiveBigIntegerField(default=0)
    #: The hash before the last record's (what the last record links to).
    prev_hash = models.CharField(max_length=64, default="")
    hash = models.CharField(max_length=64)


class ChainRecord(models.Model):
    """One link of a club's audit chain: an entry, undo, correction, seat change, opening,
    close or reopen, in the order the club's record was written. ``content`` is the canonical
    JSON of what the record says (``referee.chain``) and ``hash`` is SHA-256 over the previous
    record's hash and that content, so an edit of any earlier row, or of the chain, shows
    (``referee.chain_verify``). Never updated, never deleted."""

    # No index of its own: chain_seq_unique_per_club (club, seq) leads with it.
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="chain", db_index=False)
    seq = models.PositiveBigIntegerField()
    #: What the record is about: "entry", "undo", "correction", "tablet", "seat", "open",
    #: "close", "reopen" (``referee.chain.KINDS``).
    kind = models.CharField(max_length=12)
    #: The id of the row recorded (an entry, a deal change, a seat change or a session).
    ref = models.BigIntegerField()
    content = models.TextField()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["club", "seq"]
        constraints = [models.UniqueConstraint(fields=["club", "seq"], name="chain_seq_unique_per_club")]
