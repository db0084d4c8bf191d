"""A club's complete history as one JSON document, and its restoration into another database.

What is written (the source of truth, and what cannot be recomputed cheaply):

* the club, its members, and the users linked to them or named as authors: username,
  names, e-mail, active flag, and the **password hash** (Django's salted hash, never the
  password), so members can sign in on the new server as before; ``--without-passwords``
  exports unusable passwords instead (they then set new ones). Staff and superuser flags
  and API tokens are never exported: site rights and credentials stay with the site;
* every session with its seats, deals (options, snapshot, seq), every entry, active or
  not, with author, time and idempotency key, and every undo and correction;
* the deals' results (points, places, money as recorded) and the Mičiganas chip ledger,
  and the session summaries as built;
* the club's other records (``web.club_records``): seat corrections, payments, the rating
  settings, seasons, club nights, who is kept apart, invitations (version 2 on; a version 1
  file restores without them);
* the club's audit chain (``referee.chain``): its head and every record. The import verifies
  the file's chain before writing anything (an edited file is refused, naming the first
  record that does not match) and the club's chain once written. A file exported before the
  chain existed has none: its history is sealed into a new chain on import
  (``referee.chain_seal``).

What is rebuilt on import: the leaderboard aggregates and the ratings
(``scoring.services.rebuild_club``), both pure functions of the results.

Primary keys are kept, so addresses (``/deals/123/``), the audit order and every figure
read back identical; the import therefore needs a database where those rows are free
(a new one, or one holding other clubs of the same site) and refuses, changing nothing,
when the club's address or any of its ids is taken. A user whose username already exists
is linked to, not overwritten.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from decimal import Decimal
from typing import Any, overload

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.color import no_style
from django.db import connection, models, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from referee.chain_seal import seal_club, verify_club
from referee.errors import Refusal
from referee.models import ChainHead, ChainRecord, Club, Deal, DealChange, Entry, Member, Seat, SeatChange, Session
from referee.rules import GAMES, IllegalEntry

from .chain_file import RECORD_FIELDS, chain_part, verify_file
from .club_records import export_records, import_records, record_ids

FORMAT = "kortos-club-export"
VERSION = 2
#: The versions this application restores: version 1 had no ``records``.
READS = (1, 2)


def _when(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


@overload
def _parse_when(text: str) -> datetime: ...
@overload
def _parse_when(text: None) -> None: ...
def _parse_when(text: str | None) -> datetime | None:
    if text is None:
        return None
    moment = parse_datetime(text)
    if moment is None:
        raise Refusal(_("The file has a date that cannot be read: “%(text)s”.") % {"text": text[:40]})
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment)


def _decimal(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


# -- export ------------------------------------------------------------------------------------


def export_club(club: Club, *, passwords: bool = True) -> dict[str, Any]:
    """The club's complete history (see the module docstring), JSON-safe."""
    from scoring.models import ChipMovement, DealResult, SessionSummary

    sessions = list(Session.objects.filter(club=club).order_by("pk"))
    deals = list(Deal.objects.filter(session__club=club).order_by("pk"))
    entries = list(Entry.objects.filter(deal__session__club=club).order_by("pk"))
    changes = list(DealChange.objects.filter(deal__session__club=club).order_by("pk"))
    members = list(Member.objects.filter(club=club).order_by("pk"))
    seats = list(Seat.objects.filter(session__club=club).order_by("pk"))
    results = list(DealResult.objects.filter(club=club).order_by("pk"))
    movements = list(ChipMovement.objects.filter(session__club=club).order_by("pk"))
    summaries = list(SessionSummary.objects.filter(session__club=club).order_by("pk"))

    user_ids = {m.user_id for m in members} | {s.created_by_id for s in sessions}
    user_ids |= {e.author_id for e in entries} | {c.author_id for c in changes}
    # The seat changes' authors too: the audit chain names them.
    user_ids |= set(SeatChange.objects.filter(session__club=club).values_list("author_id", flat=True))
    user_ids.discard(None)
    users = list(get_user_model().objects.filter(pk__in=user_ids).order_by("pk"))

    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "club": {"id": club.pk, "slug": club.slug, "name": club.name, "public_leaderboard": club.public_leaderboard,
                 "currency": club.currency, "created_at": _when(club.created_at)},
        "users": [
            {"id": u.pk, "username": u.get_username(), "first_name": u.first_name, "last_name": u.last_name,
             "email": u.email, "is_active": u.is_active, "date_joined": _when(u.date_joined),
             "password": u.password if passwords else None}
            for u in users
        ],
        "members": [
            {"id": m.pk, "name": m.name, "user": m.user_id, "role": m.role, "active": m.active,
             "created_at": _when(m.created_at)}
            for m in members
        ],
        "sessions": [
            {"id": s.pk, "game": s.game, "options": s.options, "stake": _decimal(s.stake), "currency": s.currency,
             "coin": _decimal(s.coin), "status": s.status, "created_by": s.created_by_id,
             "created_at": _when(s.created_at), "closed_at": _when(s.closed_at),
             "plan": s.plan, "played_on_after": s.played_on_after}
            for s in sessions
        ],
        "seats": [{"id": s.pk, "session": s.session_id, "number": s.number, "member": s.member_id} for s in seats],
        "deals": [
            {"id": d.pk, "session": d.session_id, "number": d.number, "dealer": d.dealer, "options": d.options,
             "state": d.state, "seq": d.seq, "status": d.status, "created_at": _when(d.created_at),
             "finished_at": _when(d.finished_at)}
            for d in deals
        ],
        "entries": [
            {"id": e.pk, "deal": e.deal_id, "seq": e.seq, "payload": e.payload, "result": e.result,
             "author": e.author_id, "created_at": _when(e.created_at), "idempotency_key": e.idempotency_key,
             "active": e.active}
            for e in entries
        ],
        "changes": [
            {"id": c.pk, "deal": c.deal_id, "kind": c.kind, "replaced": c.replaced_id,
             "replacement": c.replacement_id, "author": c.author_id, "created_at": _when(c.created_at)}
            for c in changes
        ],
        "results": [
            {"id": r.pk, "deal": r.deal_id, "session": r.session_id, "game": r.game, "member": r.member_id,
             "seat": r.seat, "points": r.points, "placement": r.placement, "won": r.won, "units": r.units,
             "money": _decimal(r.money), "finished_at": _when(r.finished_at)}
            for r in results
        ],
        "chip_movements": [
            {"id": m.pk, "session": m.session_id, "deal": m.deal_id, "order": m.order,
             "source_seat": m.source_seat, "source_prize": m.source_prize, "target_seat": m.target_seat,
             "target_prize": m.target_prize, "chips": m.chips, "reason": m.reason, "at": _when(m.at)}
            for m in movements
        ],
        "summaries": [
            {"id": s.pk, "session": s.session_id, "state": s.state, "progress": s.progress, "attempts": s.attempts,
             "error": s.error, "fingerprint": s.fingerprint, "data": s.data, "html": s.html, "csv": s.csv,
             "chart_svg": s.chart_svg, "requested_at": _when(s.requested_at), "started_at": _when(s.started_at),
             "finished_at": _when(s.finished_at), "updated_at": _when(s.updated_at)}
            for s in summaries
        ],
        "records": export_records(club),
        "chain": chain_part(club),
    }


# -- import ------------------------------------------------------------------------------------


@contextmanager
def _timestamps_as_given(*model_fields: tuple[type[models.Model], str]) -> Iterator[None]:
    """``auto_now``/``auto_now_add`` would stamp every restored row with the import's time;
    the history's own times are the point of a restore."""
    saved = []
    for model, name in model_fields:
        field = model._meta.get_field(name)
        saved.append((field, field.auto_now, field.auto_now_add))  # type: ignore[union-attr]
        field.auto_now = field.auto_now_add = False  # type: ignore[union-attr]
    try:
        yield
    finally:
        for field, auto_now, auto_now_add in saved:
            field.auto_now, field.auto_now_add = auto_now, auto_now_add  # type: ignore[union-attr]


def _require(data: Any, key: str) -> list[dict[str, Any]]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise Refusal(_("The file is not a club export: “%(key)s” is missing or not a list.") % {"key": key})
    return value


def _taken(model: type[models.Model], ids: Iterable[int]) -> list[int]:
    ids = list(ids)
    found: list[int] = []
    for start in range(0, len(ids), 500):
        found += list(model._default_manager.filter(pk__in=ids[start:start + 500]).values_list("pk", flat=True))
    return sorted(found)


def import_club(data: Any) -> Club:
    """Restore an export into this database (see the module docstring); all or nothing."""
    from scoring.models import ChipMovement, DealResult, SessionSummary
    from scoring.services import rebuild_club

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise Refusal(_("The file is not a club export of this application."))
    if data.get("version") not in READS:
        raise Refusal(_("The file is export version %(version)s; this application reads version %(expected)s.")
                      % {"version": data.get("version"), "expected": VERSION})
    club_data = data.get("club")
    if not isinstance(club_data, dict):
        raise Refusal(_("The file is not a club export: “club” is missing."))
    records = data.get("records", {}) if data["version"] >= 2 else {}
    if not isinstance(records, dict):
        raise Refusal(_("The file is not a club export: “%(key)s” is missing or not a list.") % {"key": "records"})
    records_ids = record_ids(records)
    parts = {key: _require(data, key) for key in
             ("users", "members", "sessions", "seats", "deals", "entries", "changes", "results", "chip_movements",
              "summaries")}
    games = {s["id"]: s["game"] for s in parts["sessions"]}
    for deal in parts["deals"]:
        game = games.get(deal["session"])
        if game is None or game not in GAMES:
            raise Refusal(_("Deal %(id)s belongs to no session of the file.") % {"id": deal["id"]})
        try:
            GAMES[game].from_dict(deal["state"])
        except (IllegalEntry, KeyError, TypeError, ValueError) as error:
            raise Refusal(_("Deal %(id)s has a snapshot the referee cannot read: %(error)s")
                          % {"id": deal["id"], "error": error}) from error

    if "chain" in data:
        verdict = verify_file(data)
        if not verdict.ok:
            raise Refusal(_("The file's audit chain does not hold, so it was edited after it was exported; nothing "
                            "was imported. %(problem)s") % {"problem": verdict.message})
    User = get_user_model()
    owned: list[tuple[type[models.Model], str]] = [
        (Club, "club"), (Member, "members"), (Session, "sessions"), (Seat, "seats"), (Deal, "deals"),
        (Entry, "entries"), (DealChange, "changes"), (DealResult, "results"), (ChipMovement, "chip_movements"),
        (SessionSummary, "summaries"),
    ]
    with transaction.atomic(), _timestamps_as_given(
        (Club, "created_at"), (Member, "created_at"), (Session, "created_at"), (Deal, "created_at"),
        (Entry, "created_at"), (DealChange, "created_at"), (SessionSummary, "updated_at"),
    ):
        if Club.objects.filter(slug=club_data["slug"]).exists():
            raise Refusal(_("A club with the address “%(slug)s” already exists here; nothing was imported.")
                          % {"slug": club_data["slug"]})
        wanted = [(model, [club_data["id"]] if key == "club" else [row["id"] for row in parts[key]])
                  for model, key in owned]
        for model, ids in [*wanted, *records_ids]:
            taken = _taken(model, ids)
            if taken:
                raise Refusal(
                    _("This database already holds %(what)s with the ids %(ids)s of the file; import into a new "
                      "database. Nothing was imported.") % {"what": model._meta.verbose_name_plural,
                                                             "ids": ", ".join(map(str, taken[:5]))}
                )

        users = _import_users(User, parts["users"])
        club = Club.objects.create(
            id=club_data["id"], slug=club_data["slug"], name=club_data["name"],
            public_leaderboard=bool(club_data["public_leaderboard"]), currency=club_data["currency"],
            created_at=_parse_when(club_data["created_at"]),
        )
        Member.objects.bulk_create(
            Member(id=m["id"], club=club, name=m["name"], user_id=users.get(m["user"]), role=m["role"],
                   active=m["active"], created_at=_parse_when(m["created_at"]))
            for m in parts["members"]
        )
        Session.objects.bulk_create(
            Session(id=s["id"], club=club, game=s["game"], options=s["options"], stake=Decimal(s["stake"]),
                    currency=s["currency"], coin=None if s["coin"] is None else Decimal(s["coin"]),
                    status=s["status"], created_by_id=users.get(s["created_by"]),
                    created_at=_parse_when(s["created_at"]), closed_at=_parse_when(s["closed_at"]),
                    # An export from before plans has none: open-ended, as those sessions were.
                    plan=s.get("plan"), played_on_after=s.get("played_on_after"))
            for s in parts["sessions"]
        )
        Seat.objects.bulk_create(
            Seat(id=s["id"], session_id=s["session"], number=s["number"], member_id=s["member"])
            for s in parts["seats"]
        )
        Deal.objects.bulk_create(
            Deal(id=d["id"], session_id=d["session"], number=d["number"], dealer=d["dealer"], options=d["options"],
                 state=d["state"], seq=d["seq"], status=d["status"], created_at=_parse_when(d["created_at"]),
                 finished_at=_parse_when(d["finished_at"]))
            for d in parts["deals"]
        )
        Entry.objects.bulk_create(
            (Entry(id=e["id"], deal_id=e["deal"], seq=e["seq"], payload=e["payload"], result=e["result"],
                   author_id=users.get(e["author"]), created_at=_parse_when(e["created_at"]),
                   idempotency_key=e["idempotency_key"], active=e["active"])
             for e in parts["entries"]),
            batch_size=1000,
        )
        DealChange.objects.bulk_create(
            DealChange(id=c["id"], deal_id=c["deal"], kind=c["kind"], replaced_id=c["replaced"],
                       replacement_id=c["replacement"], author_id=users.get(c["author"]),
                       created_at=_parse_when(c["created_at"]))
            for c in parts["changes"]
        )
        DealResult.objects.bulk_create(
            (DealResult(id=r["id"], deal_id=r["deal"], session_id=r["session"], club=club, game=r["game"],
                        member_id=r["member"], seat=r["seat"], points=r["points"], placement=r["placement"],
                        won=r["won"], units=r["units"], money=Decimal(r["money"]),
                        finished_at=_parse_when(r["finished_at"]))
             for r in parts["results"]),
            batch_size=1000,
        )
        ChipMovement.objects.bulk_create(
            (ChipMovement(id=m["id"], session_id=m["session"], deal_id=m["deal"], order=m["order"],
                          source_seat=m["source_seat"], source_prize=m["source_prize"],
                          target_seat=m["target_seat"], target_prize=m["target_prize"], chips=m["chips"],
                          reason=m["reason"], at=_parse_when(m["at"]))
             for m in parts["chip_movements"]),
            batch_size=1000,
        )
        # A build that was queued or running at export time has no task here: it may be retried.
        SessionSummary.objects.bulk_create(
            SessionSummary(id=s["id"], session_id=s["session"], state=s["state"], progress=s["progress"],
                           attempts=s["attempts"], error=s["error"], fingerprint=s["fingerprint"], data=s["data"],
                           html=s["html"], csv=s["csv"], chart_svg=s["chart_svg"], task_id="",
                           requested_at=_parse_when(s["requested_at"]), started_at=_parse_when(s["started_at"]),
                           finished_at=_parse_when(s["finished_at"]), updated_at=_parse_when(s["updated_at"]))
            for s in parts["summaries"]
        )
        import_records(records, users)
        _import_chain(club, data)
        _reset_sequences([User, Club, Member, Session, Seat, Deal, Entry, DealChange, DealResult, ChipMovement,
                          SessionSummary, ChainRecord, *(model for model, _ids in records_ids)])
        rebuild_club(club=club)
    return club


def _import_chain(club: Club, data: dict[str, Any]) -> None:
    """The chain as the file has it, verified once written with the rows (seat changes
    included, restored among the club's records before it); a file without a chain: its
    history sealed into a new one."""
    part = data.get("chain")
    if part is None:
        seal_club(club.pk)
        return
    ChainRecord.objects.bulk_create(
        (ChainRecord(club=club, **{name: record[name] for name in RECORD_FIELDS}) for record in part["records"]),
        batch_size=1000,
    )
    if part["head"] is not None:
        ChainHead.objects.create(club=club, seq=part["head"]["seq"], hash=part["head"]["hash"],
                                 prev_hash=part["records"][-1]["prev_hash"] if part["records"] else "")
    verdict = verify_club(club.pk)
    if not verdict.ok:
        # The file held; the rows as this database keeps them do not (a time or a number it
        # keeps otherwise): nothing is imported.
        raise Refusal(_("The restored club's audit chain does not hold; nothing was imported. %(problem)s")
                      % {"problem": verdict.message})


def _import_users(User: Any, rows: list[dict[str, Any]]) -> dict[int, int]:
    """Old user id -> id here: an existing username is linked to; others are created, with
    their old id when it is free."""
    mapping: dict[int, int] = {}
    existing = dict(User.objects.filter(username__in=[u["username"] for u in rows]).values_list("username", "pk"))
    free = set(rows_ids := [u["id"] for u in rows]) - set(_taken(User, rows_ids))
    for row in rows:
        if row["username"] in existing:
            mapping[row["id"]] = existing[row["username"]]
            continue
        user = User(
            username=row["username"], first_name=row["first_name"], last_name=row["last_name"], email=row["email"],
            is_active=row["is_active"], date_joined=_parse_when(row["date_joined"]),
            password=row["password"] or make_password(None),
        )
        if row["id"] in free:
            user.pk = row["id"]
        user.save()
        mapping[row["id"]] = user.pk
    return mapping


def _reset_sequences(model_list: list[type[models.Model]]) -> None:
    """Rows were inserted with their ids: move PostgreSQL's id sequences past them (SQLite
    does this by itself)."""
    statements = connection.ops.sequence_reset_sql(no_style(), model_list)
    if statements:
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
