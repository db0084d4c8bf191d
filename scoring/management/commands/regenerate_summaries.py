"""``manage.py regenerate_summaries --club SLUG --since YYYY-MM-DD --until YYYY-MM-DD``

Builds again the summaries of the closed sessions of a club and/or of a date range (the
session's date, in the club's time zone), for instance after a change to how summaries
look. By default each is queued for the workers, as closing a session does; ``--now``
builds them in this process instead (no worker needed) and says what happened to each.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from referee.models import Club, Session, SessionStatus
from scoring.summaries.services import build_and_store, request_summary


def _date(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d").date()
    except ValueError as error:
        raise CommandError(f"{option} must be a date written YYYY-MM-DD, not “{value}”.") from error


def _midnight(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


class Command(BaseCommand):
    help = "Build again the summaries of a club's closed sessions and/or of a date range."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--club", help="the club's slug")
        parser.add_argument("--since", help="first session date, YYYY-MM-DD (inclusive)")
        parser.add_argument("--until", help="last session date, YYYY-MM-DD (inclusive)")
        parser.add_argument("--now", action="store_true", help="build in this process instead of queueing")

    def handle(self, *args: Any, **options: Any) -> None:
        slug, now = options.get("club"), options.get("now", False)
        since, until = _date(options.get("since"), "--since"), _date(options.get("until"), "--until")
        if slug is None and since is None and until is None:
            raise CommandError("Say which summaries: --club SLUG, --since YYYY-MM-DD and/or --until YYYY-MM-DD.")
        if since is not None and until is not None and since > until:
            raise CommandError(f"--since ({since.isoformat()}) is after --until ({until.isoformat()}).")
        sessions = Session.objects.filter(status=SessionStatus.CLOSED)
        if slug is not None:
            club = Club.objects.filter(slug=slug).first()
            if club is None:
                raise CommandError(f"There is no club “{slug}”.")
            sessions = sessions.filter(club=club)
        if since is not None:
            sessions = sessions.filter(created_at__gte=_midnight(since))
        if until is not None:
            sessions = sessions.filter(created_at__lt=_midnight(until + timedelta(days=1)))
        chosen = list(sessions.order_by("created_at", "pk"))
        if not chosen:
            self.stdout.write("No closed session matches.")
            return
        for session in chosen:
            with transaction.atomic():
                request_summary(session=session, force=True)
            if now:
                outcome = build_and_store(session_id=session.pk)
                self.stdout.write(f"Session {session.pk}: {outcome}.")
        if not now:
            ids = ", ".join(str(session.pk) for session in chosen)
            if len(chosen) == 1:
                self.stdout.write(f"Queued 1 summary: session {ids}.")
            else:
                self.stdout.write(f"Queued {len(chosen)} summaries: sessions {ids}.")
