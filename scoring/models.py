"""Results of finished deals, one row per seat."""

from __future__ import annotations

from django.db import models

from referee.models import Deal, Member, Session


class DealResult(models.Model):
    """A seat's result in a finished deal, written with the entry that finished it."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="results")
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="results")
    member = models.ForeignKey(Member, on_delete=models.PROTECT, related_name="results")
    seat = models.PositiveSmallIntegerField()
    #: In the game's unit: deals won (Elgeta), points, chips (Michigan), losses as -1 (Cheat).
    points = models.IntegerField()
    placement = models.PositiveSmallIntegerField()
    won = models.BooleanField(default=False)
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["deal", "seat"]
        constraints = [models.UniqueConstraint(fields=["deal", "seat"], name="one_result_per_seat_per_deal")]
        indexes = [models.Index(fields=["member", "finished_at"])]


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
