"""The season results of every session closed before seasons existed (what ``scoring.seasons.
ensure_results`` writes as a session closes): the mean place score of each member's deals."""

from collections import defaultdict

from django.db import migrations
from django.utils import timezone


def write_results(apps, schema_editor):
    Session = apps.get_model("referee", "Session")
    Seat = apps.get_model("referee", "Seat")
    DealResult = apps.get_model("scoring", "DealResult")
    SessionResult = apps.get_model("scoring", "SessionResult")
    done = set(SessionResult.objects.values_list("session_id", flat=True).distinct())
    closed = Session.objects.filter(status="closed").exclude(pk__in=done).order_by("pk")
    for start in range(0, closed.count(), 1000):
        batch = list(closed[start:start + 1000])
        players = defaultdict(int)
        for session_id in Seat.objects.filter(session__in=batch).values_list("session_id", flat=True):
            players[session_id] += 1
        scores = defaultdict(list)
        for session_id, member, placement in DealResult.objects.filter(session__in=batch).values_list(
                "session_id", "member_id", "placement"):
            n = players[session_id]
            scores[(session_id, member)].append((n - placement) / (n - 1) if n > 1 else 0.0)
        by_id = {s.pk: s for s in batch}
        SessionResult.objects.bulk_create([
            SessionResult(session_id=sid, club_id=by_id[sid].club_id, member_id=member, game=by_id[sid].game,
                          day=timezone.localdate(by_id[sid].closed_at or timezone.now()), deals=len(values),
                          score=sum(values) / len(values))
            for (sid, member), values in scores.items()], ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [("scoring", "0012_season_divisions"), ("referee", "0008_seat_change")]
    operations = [migrations.RunPython(write_results, migrations.RunPython.noop)]
