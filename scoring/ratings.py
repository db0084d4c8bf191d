"""Skill ratings: openskill's Plackett-Luce model over every finished deal's placements.

Each club keeps one rating stream per game and one across all games (``all``). A deal that
finishes is rated at once, in the same transaction, from its placements (ties share a
rank, which Plackett-Luce handles as a draw between them); the ratings it replaced are
kept in a ``RatingUpdate`` row, so that undoing the *latest* rated deal of a stream
restores them exactly.

Undoing any other deal (or a correction that replays an older deal) cannot be unwound
step by step, because later deals were rated from the ratings it produced. The stream is
then marked ``stale`` and recomputed from the club's results in finishing order
(``finished_at``, deal id), by a Celery task asked for (``background.ratings_stale``) when
the transaction commits (in-process when no broker is configured). While a stream is
stale, new deals are not rated incrementally (the recompute includes them) and the leaderboard says the ratings
are being recomputed. Only the last ``KEEP_UPDATES`` steps of a stream are kept: undoing a
deal older than that is handled as above.

The leaderboard ranks by the conservative ordinal ``mu - 3 sigma`` (25 - 3 x 25/3 = 0 for
a newcomer), which rewards both skill and the evidence for it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from openskill.models import PlackettLuce

from referee.models import Deal

from . import background
from .models import OVERALL, DealResult, Rating, RatingStream, RatingUpdate

MODEL = PlackettLuce()
KEEP_UPDATES = 50


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def _stream(club_id: int, game: str) -> RatingStream:
    RatingStream.objects.bulk_create([RatingStream(club_id=club_id, game=game)], ignore_conflicts=True)
    return RatingStream.objects.select_for_update().get(club_id=club_id, game=game)


def new_ratings(
    current: Mapping[int, tuple[float, float]], placements: Mapping[int, int]
) -> dict[int, tuple[float, float]]:
    """The ratings of the deal's players after a deal with these placements (member id -> place)."""
    members = sorted(placements)
    teams = [[MODEL.rating(*current[m]) if m in current else MODEL.rating()] for m in members]
    rated = MODEL.rate(teams, ranks=[placements[m] for m in members])
    return {m: (team[0].mu, team[0].sigma) for m, team in zip(members, rated)}


def _streams(club_id: int, games: tuple[str, ...]) -> dict[str, RatingStream]:
    """The club's streams for these games, locked (in a fixed order, so two finishing deals
    of one club never deadlock), created when missing."""

    def locked() -> dict[str, RatingStream]:
        query = RatingStream.objects.select_for_update().filter(club_id=club_id, game__in=games).order_by("game")
        return {stream.game: stream for stream in query}

    streams = locked()
    if len(streams) < len(games):
        RatingStream.objects.bulk_create(
            [RatingStream(club_id=club_id, game=g) for g in games if g not in streams], ignore_conflicts=True
        )
        streams = locked()
    return streams


def rate_deal(*, deal: Deal, club_id: int, game: str, placements: Mapping[int, int]) -> None:
    """Rate a finished deal in its game's stream and in the overall stream.

    Both streams are handled in the same few statements: this runs inside the transaction of
    the entry that finished the deal, on the tablet's hot path.
    """
    streams = _streams(club_id, (game, OVERALL))
    # A stale stream skips the step: the pending recompute will include this deal.
    live = [key for key in (game, OVERALL) if not streams[key].stale]
    if not live:
        return
    rows: dict[str, dict[int, Rating]] = {key: {} for key in live}
    for row in Rating.objects.select_for_update().filter(
        club_id=club_id, game__in=live, member_id__in=list(placements)
    ).order_by("game", "member_id"):
        rows[row.game][row.member_id] = row
    changed: list[Rating] = []
    created: list[Rating] = []
    steps: list[RatingUpdate] = []
    now = timezone.now()
    for key in live:
        current = rows[key]
        before = {str(m): ([current[m].mu, current[m].sigma, current[m].deals] if m in current else None)
                  for m in placements}
        for member, (mu, sigma) in new_ratings({m: (r.mu, r.sigma) for m, r in current.items()}, placements).items():
            if member in current:
                row = current[member]
                row.mu, row.sigma, row.deals = mu, sigma, row.deals + 1
                changed.append(row)
            else:
                created.append(Rating(club_id=club_id, member_id=member, game=key, mu=mu, sigma=sigma, deals=1))
        stream = streams[key]
        stream.last_seq += 1
        stream.updated_at = now
        steps.append(RatingUpdate(stream=stream, deal=deal, seq=stream.last_seq, before=before))
    if changed:
        Rating.objects.bulk_update(changed, ["mu", "sigma", "deals"])
    if created:
        Rating.objects.bulk_create(created)
    RatingStream.objects.bulk_update([streams[key] for key in live], ["last_seq", "updated_at"])
    RatingUpdate.objects.bulk_create(steps)
    old = Q()
    for key in live:
        old |= Q(stream=streams[key], seq__lte=streams[key].last_seq - KEEP_UPDATES)
    RatingUpdate.objects.filter(old).delete()


def unrate_deal(*, deal: Deal, club_id: int, game: str) -> None:
    """Take a reopened deal out of the ratings: exactly if it was the latest, else by a recompute."""
    for key in (game, OVERALL):
        stream = _stream(club_id, key)
        update = RatingUpdate.objects.filter(stream=stream, deal=deal).first()
        if stream.stale:
            if update is not None:
                update.delete()
            continue
        if update is not None and update.seq == stream.last_seq:
            _restore(club_id, key, update.before)
            update.delete()
            stream.last_seq = RatingUpdate.objects.filter(stream=stream).aggregate(m=Max("seq"))["m"] or 0
            stream.save(update_fields=["last_seq", "updated_at"])
            continue
        if update is not None:
            update.delete()
        stream.stale = True
        stream.save(update_fields=["stale", "updated_at"])
        background.after_commit(background.ratings_stale, club_id=club_id, game=key)


def _restore(club_id: int, game: str, before: Mapping[str, Any]) -> None:
    for member_text, values in before.items():
        member = int(member_text)
        if values is None:
            Rating.objects.filter(club_id=club_id, game=game, member_id=member).delete()
        else:
            mu, sigma, deals = values
            Rating.objects.filter(club_id=club_id, game=game, member_id=member).update(mu=mu, sigma=sigma, deals=deals)


def request_recompute_if_stale(club_id: int, games: Iterable[str]) -> None:
    """A read found these streams stale: ask again, at most once a minute (a lost task must not leave them stale)."""
    for game in games:
        if cache.add(f"ratings-recompute:{club_id}:{game}", 1, timeout=60):
            background.after_commit(background.ratings_stale, club_id=club_id, game=game)


def recompute(*, club_id: int, game: str) -> int:
    """Rebuild one stream's ratings from the club's results in finishing order; returns deals rated."""
    with transaction.atomic():
        stream = _stream(club_id, game)
        results = DealResult.objects.filter(club_id=club_id)
        if game != OVERALL:
            results = results.filter(game=game)
        rows = results.order_by("finished_at", "deal_id", "seat").values_list("deal_id", "member_id", "placement")
        current: dict[int, tuple[float, float]] = {}
        counts: dict[int, int] = {}
        # Only the last steps can be undone exactly; keep just those (a club may have rated millions).
        updates: deque[tuple[int, dict[str, Any]]] = deque(maxlen=KEEP_UPDATES)
        rated = 0
        deal_id: int | None = None
        placements: dict[int, int] = {}

        def rate() -> None:
            nonlocal rated
            before = {str(m): ([*current[m], counts[m]] if m in current else None) for m in placements}
            current.update(new_ratings(current, placements))
            for m in placements:
                counts[m] = counts.get(m, 0) + 1
            assert deal_id is not None
            updates.append((deal_id, before))
            rated += 1

        for row_deal, member, placement in rows.iterator(chunk_size=5000):
            if row_deal != deal_id and placements:
                rate()
                placements = {}
            deal_id = row_deal
            placements[member] = placement
        if placements:
            rate()
        Rating.objects.filter(club_id=club_id, game=game).delete()
        Rating.objects.bulk_create(
            Rating(club_id=club_id, member_id=m, game=game, mu=mu, sigma=sigma, deals=counts[m])
            for m, (mu, sigma) in current.items()
        )
        RatingUpdate.objects.filter(stream=stream).delete()
        RatingUpdate.objects.bulk_create(
            RatingUpdate(stream=stream, deal_id=d, seq=seq, before=before)
            for seq, (d, before) in enumerate(updates, start=rated - len(updates) + 1)
        )
        stream.last_seq = rated
        stream.stale = False
        stream.save(update_fields=["last_seq", "stale", "updated_at"])
        return rated
