"""Skill ratings: openskill's Plackett-Luce model over every finished deal's placements.

Each club keeps one rating stream per game and one across all games (``all``). The order of
a stream is the order in which its deals finished (``finished_at``, deal id), and a stream's
ratings are always those of rating its deals one by one in that order: ``recompute`` does
exactly that from the club's results.

The rating step runs after commit, off the tablet's request path. The entry that finishes
(or reopens) a deal only queues a ``RatingEvent`` per stream (``queue``): rating in the
entry's transaction would hold the stream's row lock until commit and make every table of
the club wait for the others. A worker then takes a stream's events in order under the
stream's lock (``settle``) and, for each:

* a finished deal that comes after the latest rated one is rated step by step from its
  placements (ties share a rank, which Plackett-Luce handles as a draw between them); the
  ratings it replaced are kept in a ``RatingUpdate`` row; the finished deals waiting in a
  row are rated in one pass, which reads and writes the stream's rows once (on a
  club night a worker's task takes the deals of many tables);
* a reopened deal that was the latest rated one is taken back exactly from that row; one
  that was never rated (it comes after the latest rated deal) needs nothing.

Anything else (a deal reopened under later ones, a correction of an older deal, a deal
that committed after a later one was already rated) cannot be done step by step: the
stream is marked ``stale`` and recomputed at once from the results. Either way the result is
the ratings of the club's current results in finishing order. Only the last
``KEEP_UPDATES`` steps of a stream are kept: taking back an older deal recomputes too.

While a stream has events waiting, or is stale, the leaderboard says the ratings are being
updated (``ratings_pending``). It ranks by the conservative ordinal ``mu - 3 sigma`` (25 - 3 x 25/3 = 0
for a newcomer), which rewards both skill and the evidence for it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import Max, Q
from openskill.models import PlackettLuce

from scoring import background
from scoring.models import OVERALL, DealResult, Rating, RatingEvent, RatingPoint, RatingStream, RatingUpdate
from scoring.ratings import store as rating_store

MODEL = PlackettLuce()
KEEP_UPDATES = 50


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def _stream(club_id: int, game: str) -> RatingStream:
    """The stream, locked; made first if the club has none yet (only then a second statement)."""
    streams = RatingStream.objects.select_for_update().filter(club_id=club_id, game=game)
    stream = rating_store.lock_stream(club_id, game) if rating_store.enabled() else streams.first()
    if stream is None:
        RatingStream.objects.bulk_create([RatingStream(club_id=club_id, game=game)], ignore_conflicts=True)
        stream = streams.get()
    return stream


def new_ratings(
    current: Mapping[int, tuple[float, float]], placements: Mapping[int, int]
) -> dict[int, tuple[float, float]]:
    """The ratings of the deal's players after a deal with these placements (member id -> place)."""
    members = sorted(placements)
    teams = [[MODEL.rating(*current[m]) if m in current else MODEL.rating()] for m in members]
    rated = MODEL.rate(teams, ranks=[placements[m] for m in members])
    return {m: (team[0].mu, team[0].sigma) for m, team in zip(members, rated)}


def queue(*, deal_id: int, club_id: int, game: str, finished_at: datetime, reopened: bool) -> None:
    """In the entry's transaction: the deal waits for the rating step of its game's stream and
    of the overall stream, which a worker takes once the transaction commits."""
    RatingEvent.objects.bulk_create(events(deal_id=deal_id, club_id=club_id, game=game, finished_at=finished_at,
                                           reopened=reopened))
    announce(club_id=club_id, game=game)


def events(*, deal_id: int, club_id: int, game: str, finished_at: datetime, reopened: bool) -> list[RatingEvent]:
    """The events ``queue`` stores (unsaved): for a caller that writes them with its own statement
    and then calls ``announce``."""
    return [RatingEvent(club_id=club_id, game=key, deal_id=deal_id, finished_at=finished_at, reopened=reopened)
            for key in streams(game)]


def streams(game: str) -> list[str]:
    """The rating streams a deal of this game belongs to: its game's and the overall one."""
    return [game, OVERALL]


def announce(*, club_id: int, game: str) -> None:
    """Once the transaction that stored a deal's events commits, a worker takes its streams."""
    background.after_commit(background.ratings_due, club_id=club_id, games=[game, OVERALL])


def request_settle_if_pending(club_id: int, games: Iterable[str]) -> None:
    """A read found these streams waiting: ask again, at most once a minute (a lost task must
    not leave them waiting)."""
    for game in games:
        if cache.add(f"ratings-settle:{club_id}:{game}", 1, timeout=60):
            background.after_commit(background.ratings_due, club_id=club_id, games=[game])


def settle(*, club_id: int, game: str) -> int:
    """Take the stream's waiting events in order and rate (or take back) their deals; recompute
    when that cannot be done step by step. Idempotent; returns the events taken."""
    # No savepoint of its own inside a caller's transaction (the task settles its streams in one).
    with transaction.atomic(savepoint=False):
        # The stream's lock orders the workers of one stream; entries never take it.
        stream = _stream(club_id, game)
        if rating_store.enabled() and not stream.stale:
            taken = _settle_plain_run(stream)
            if taken is not None:
                return taken
        events = list(RatingEvent.objects.filter(club_id=club_id, game=game).order_by("id"))
        if not events and not stream.stale:
            return 0
        if not stream.stale:
            # Finished deals in runs (a handful of statements for the whole run, however many
            # deals it holds: a club night finishes a deal a second); a reopened deal one by one.
            run: list[RatingEvent] = []
            for event in [*events, None]:
                if event is not None and not event.reopened:
                    run.append(event)
                    continue
                if run and not _rate_run(stream, run):
                    stream.stale = True
                    break
                run = []
                if event is not None and not _take_back(stream, event):
                    stream.stale = True
                    break
        if stream.stale:
            recompute(club_id=club_id, game=game)
        else:
            RatingEvent.objects.filter(pk__in=[event.pk for event in events]).delete()
        return len(events)


def _rate_run(stream: RatingStream, run: list[RatingEvent]) -> bool:
    """A run of finished deals' events, rated in finishing order, reading and writing the
    stream's rows once for the whole run. Deals that belong before the latest rated ones (they
    committed after a later deal was rated: tables finish deals at the same moment) take the
    later steps back from their kept ratings and rate them again after themselves. False
    (nothing written) when only a recompute can give the exact ratings: a deal rated already,
    or steps to take back that are no longer kept."""
    deal_ids = [event.deal_id for event in run]
    # The latest step and the run's deals rated already, in one read.
    steps_read = RatingUpdate.objects.filter(stream=stream).filter(Q(seq=stream.last_seq) | Q(deal_id__in=deal_ids))
    latest: RatingUpdate | None = None
    rated: set[int] = set()
    for step in steps_read.only("deal_id", "seq", "finished_at"):
        if step.seq == stream.last_seq:
            latest = step
        if step.deal_id in deal_ids:
            rated.add(step.deal_id)
    if stream.last_seq and (latest is None or latest.finished_at is None):
        return False  # where the stream stands is no longer known
    by_deal, finished = _placements(stream, deal_ids)
    if rated & set(by_deal) or len(set(deal_ids) & set(by_deal)) < len([d for d in deal_ids if d in by_deal]):
        return False  # a deal rated twice without being reopened in between
    order = sorted((finished[deal], deal) for deal in by_deal)
    if not order:
        return True  # every deal reopened since: their own events follow
    seq = stream.last_seq
    taken_back: list[RatingUpdate] = []
    if latest is not None and order[0] <= (latest.finished_at, latest.deal_id):
        taken_back = _steps_after(stream, order[0])
        if not taken_back:
            return False
        seq = taken_back[-1].seq - 1
        more, more_finished = _placements(stream, [step.deal_id for step in taken_back])
        by_deal.update(more)
        finished.update(more_finished)
        order = sorted((finished[deal], deal) for deal in by_deal)
    members = {m for placements in by_deal.values() for m in placements}
    members |= {int(m) for step in taken_back for m in step.before}
    current: dict[int, tuple[float, float, int] | None] = {
        row.member_id: (row.mu, row.sigma, row.deals) for row in Rating.objects.filter(
            club_id=stream.club_id, game=stream.game, member_id__in=sorted(members))}
    for step in taken_back:  # latest first, exactly as they were before each
        for member, values in step.before.items():
            current[int(member)] = (values[0], values[1], values[2]) if values is not None else None
    points: list[tuple[int, int, int, float, float]] = []
    steps = [RatingUpdate(stream=stream, deal_id=deal, seq=step, before=before, finished_at=at)
             for deal, step, at, before in _rate_in_order(order, by_deal, current, seq, points)]
    seq = steps[-1].seq
    kept = sorted(m for m in members if current.get(m) is not None)
    gone = sorted(m for m in members if m in current and current[m] is None)
    # One upsert for the members: new ratings, changed ones and ones taken back alike.
    Rating.objects.bulk_create(
        [Rating(club_id=stream.club_id, member_id=m, game=stream.game, mu=r[0], sigma=r[1], deals=r[2])
         for m in kept if (r := current[m]) is not None],
        update_conflicts=True, unique_fields=["club", "game", "member"], update_fields=["mu", "sigma", "deals"],
    )
    if gone:
        Rating.objects.filter(club_id=stream.club_id, game=stream.game, member_id__in=gone).delete()
    if taken_back:
        RatingUpdate.objects.filter(stream=stream, seq__gte=taken_back[-1].seq).delete()
    RatingPoint.objects.filter(stream=stream, seq__gt=steps[0].seq - 1).delete()  # steps taken back
    stream.last_seq = seq
    stream.save(update_fields=["last_seq", "updated_at"])
    RatingUpdate.objects.bulk_create(steps)
    _write_points(stream, points)
    RatingUpdate.objects.filter(stream=stream, seq__lte=stream.last_seq - KEEP_UPDATES).delete()
    return True


def _rate_in_order(order: list[tuple[datetime, int]], by_deal: Mapping[int, Mapping[int, int]],
                   current: dict[int, tuple[float, float, int] | None], seq: int,
                   points: list[tuple[int, int, int, float, float]] | None = None,
                   ) -> list[tuple[int, int, datetime, dict[str, Any]]]:
    """Rate the deals of ``order`` ((finished_at, deal), in finishing order) one by one from the
    players' ``current`` ratings (member -> (mu, sigma, deals rated), None: none), which end as
    the new ones; the steps (deal, seq, finished_at, the ratings before it), numbered after ``seq``.
    ``points`` gathers the history: (seq, deal, member, mu, sigma) after each step."""
    steps: list[tuple[int, int, datetime, dict[str, Any]]] = []
    for at, deal in order:
        placements = by_deal[deal]
        before = {str(m): (list(current[m] or ()) or None) if m in current else None for m in placements}
        known = {m: (r[0], r[1]) for m in placements if (r := current.get(m)) is not None}
        seq += 1
        for member, (mu, sigma) in new_ratings(known, placements).items():
            had = current.get(member)
            current[member] = (mu, sigma, had[2] + 1 if had is not None else 1)
            if points is not None:
                points.append((seq, deal, member, mu, sigma))
        steps.append((deal, seq, at, before))
    return steps


def _write_points(stream: RatingStream, points: list[tuple[int, int, int, float, float]]) -> None:
    RatingPoint.objects.bulk_create(
        RatingPoint(stream=stream, seq=seq, deal_id=deal, member_id=member, mu=mu, sigma=sigma)
        for seq, deal, member, mu, sigma in points)


def _settle_plain_run(stream: RatingStream) -> int | None:
    """The everyday run (``rating_store.Run.plain``) rated in one pass with the prepared statements
    of ``rating_store``, exactly as ``_rate_run`` would; None, having written nothing, for any
    other: the ORM's way decides it."""
    run = rating_store.read_run(stream)
    if not run.events:
        return 0
    if not run.plain:
        return None
    current: dict[int, tuple[float, float, int] | None] = dict(run.current)
    order = sorted((run.finished[deal], deal) for deal in run.by_deal)
    points: list[tuple[int, int, int, float, float]] = []
    steps = _rate_in_order(order, run.by_deal, current, stream.last_seq, points)
    rated = {m: r for m, r in current.items() if r is not None}
    rating_store.write_run(stream, run, rated, steps, forget_to=steps[-1][1] - KEEP_UPDATES, points=points)
    return len(run.events)


def _placements(stream: RatingStream, deal_ids: list[int]) -> tuple[dict[int, dict[int, int]], dict[int, datetime]]:
    """The deals' placements (member -> place) in the stream, and when each finished."""
    results = DealResult.objects.filter(deal_id__in=deal_ids)
    if stream.game != OVERALL:
        results = results.filter(game=stream.game)
    by_deal: dict[int, dict[int, int]] = {}
    finished: dict[int, datetime] = {}
    for deal_id, member, placement, finished_at in results.values_list("deal_id", "member_id", "placement",
                                                                      "finished_at"):
        by_deal.setdefault(deal_id, {})[member] = placement
        finished[deal_id] = finished_at
    return by_deal, finished


def _steps_after(stream: RatingStream, first: tuple[datetime, int]) -> list[RatingUpdate]:
    """The kept steps that come after ``first`` in finishing order, latest first; [] when the
    kept steps do not reach back that far (or one of them does not know its place)."""
    after: list[RatingUpdate] = []
    for step in RatingUpdate.objects.filter(stream=stream).order_by("-seq")[:KEEP_UPDATES]:
        if step.finished_at is None:
            return []
        if (step.finished_at, step.deal_id) < first:
            return after
        after.append(step)
    # Every kept step comes after it: only if they reach back to the stream's first step.
    return after if after and after[-1].seq == 1 else []


def _latest(stream: RatingStream) -> RatingUpdate | None:
    return RatingUpdate.objects.filter(stream=stream, seq=stream.last_seq).first() if stream.last_seq else None


def _take_back(stream: RatingStream, event: RatingEvent) -> bool:
    """A reopened deal's event: the latest rated deal is taken back exactly; False when only a
    recompute can give the exact ratings."""
    latest = _latest(stream)
    if stream.last_seq and (latest is None or latest.finished_at is None):
        return False  # where the stream stands is no longer known
    after_latest = latest is None or (event.finished_at, event.deal_id) > (latest.finished_at, latest.deal_id)
    rated = RatingUpdate.objects.filter(stream=stream, deal_id=event.deal_id).first()
    if rated is None:
        return after_latest  # never rated: nothing to take back
    if latest is None or rated.pk != latest.pk:
        return False
    _restore(stream.club_id, stream.game, rated.before)
    RatingPoint.objects.filter(stream=stream, seq=rated.seq).delete()
    rated.delete()
    stream.last_seq = RatingUpdate.objects.filter(stream=stream).aggregate(m=Max("seq"))["m"] or 0
    stream.save(update_fields=["last_seq", "updated_at"])
    # With no step left to stand on, the next deal could not be placed after the rated ones.
    return stream.last_seq > 0 or rated.seq == 1


def _restore(club_id: int, game: str, before: Mapping[str, Any]) -> None:
    for member_text, values in before.items():
        member = int(member_text)
        if values is None:
            Rating.objects.filter(club_id=club_id, game=game, member_id=member).delete()
        else:
            mu, sigma, deals = values
            Rating.objects.filter(club_id=club_id, game=game, member_id=member).update(mu=mu, sigma=sigma, deals=deals)


def recompute(*, club_id: int, game: str) -> int:
    """Rebuild one stream's ratings from the club's results in finishing order; returns deals rated.

    Takes the stream's waiting events too: they are read before the results, so every deal
    they name is rated (or left out) as its results now stand."""
    with transaction.atomic():
        stream = _stream(club_id, game)
        events = list(RatingEvent.objects.filter(club_id=club_id, game=game).values_list("pk", flat=True))
        results = DealResult.objects.filter(club_id=club_id)
        if game != OVERALL:
            results = results.filter(game=game)
        rows = results.order_by("finished_at", "deal_id", "seat").values_list(
            "deal_id", "member_id", "placement", "finished_at"
        )
        current: dict[int, tuple[float, float]] = {}
        counts: dict[int, int] = {}
        # Only the last steps can be undone exactly; keep just those (a club may have rated millions).
        updates: deque[tuple[int, datetime, dict[str, Any]]] = deque(maxlen=KEEP_UPDATES)
        rated = 0
        deal_id: int | None = None
        finished_at: datetime | None = None
        placements: dict[int, int] = {}

        RatingPoint.objects.filter(stream=stream).delete()
        points: list[RatingPoint] = []

        def rate() -> None:
            nonlocal rated
            before = {str(m): ([*current[m], counts[m]] if m in current else None) for m in placements}
            after = new_ratings(current, placements)
            current.update(after)
            for m in placements:
                counts[m] = counts.get(m, 0) + 1
            assert deal_id is not None and finished_at is not None
            updates.append((deal_id, finished_at, before))
            rated += 1
            points.extend(RatingPoint(stream=stream, seq=rated, deal_id=deal_id, member_id=m, mu=mu, sigma=sigma)
                          for m, (mu, sigma) in after.items())
            if len(points) >= 5000:  # a club's whole history: written in batches, not held
                RatingPoint.objects.bulk_create(points)
                points.clear()

        for row_deal, member, placement, row_finished_at in rows.iterator(chunk_size=5000):
            if row_deal != deal_id and placements:
                rate()
                placements = {}
            deal_id, finished_at = row_deal, row_finished_at
            placements[member] = placement
        if placements:
            rate()
        RatingPoint.objects.bulk_create(points)
        Rating.objects.filter(club_id=club_id, game=game).delete()
        Rating.objects.bulk_create(
            Rating(club_id=club_id, member_id=m, game=game, mu=mu, sigma=sigma, deals=counts[m])
            for m, (mu, sigma) in current.items()
        )
        RatingUpdate.objects.filter(stream=stream).delete()
        RatingUpdate.objects.bulk_create(
            RatingUpdate(stream=stream, deal_id=d, seq=seq, before=before, finished_at=at)
            for seq, (d, at, before) in enumerate(updates, start=rated - len(updates) + 1)
        )
        RatingEvent.objects.filter(pk__in=events).delete()
        stream.last_seq = rated
        stream.stale = False
        stream.save(update_fields=["last_seq", "stale", "updated_at"])
        return rated


def strengths(*, club_id: int, game: str) -> dict[int, float]:
    """Each rated member's conservative rating (the ordinal) in a game: what the club night's draw
    spreads over the tables. Members never rated are missing (the draw counts them as 0)."""
    return {member_id: ordinal(mu, sigma) for member_id, mu, sigma in
            Rating.objects.filter(club_id=club_id, game=game).values_list("member_id", "mu", "sigma")}
