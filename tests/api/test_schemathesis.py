"""The API fuzzed from its own OpenAPI schema (schemathesis), in-process through the WSGI app.

Every operation in ``/api/schema/`` is called with schema-valid and schema-violating
requests (schemathesis' positive and negative modes), as a scorer (the admin for the
admin-only member and club settings operations) of a seeded club that
has a closed Velnias session and an open Rūkas session with a running deal. Path
parameters are steered, part of the time, to the ids and slugs that exist (own club and
another club), so the fuzzing reaches the services rather than stopping at 404.

Checks, for every response: never a 5xx; every 4xx body is the one documented error
format, a JSON object ``{"error": "<non-empty text>", ...}``.

The budget is fixed (``max_examples`` per operation, derandomized), so the run is
repeatable and bounded; raise ``SCHEMATHESIS_EXAMPLES`` locally for a longer hunt.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from config.wsgi import application

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "25"))

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
STEERING = itertools.count()


@pytest.fixture
def world(club_setup: dict[str, Any], api: Any) -> Iterator[dict[str, Any]]:
    """A scorer's token and the ids worth aiming at; requests share the test's transaction."""
    from rest_framework.authtoken.models import Token

    from referee import services

    users, members = club_setup["users"], club_setup["members"]
    scorer = users["scorer"]
    four = [members[name] for name in ("admin", "scorer", "member", "Petras")]
    velnias = services.session_start(club=club_setup["club"], game="velnias", players=four, user=scorer)
    deal = services.deal_start(session=velnias, user=scorer)
    services.entry_add(deal_id=deal.pk, user=scorer, payload={
        "type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 3, 5, 2]})
    services.session_close(session=velnias, user=scorer)
    rukas = services.session_start(club=club_setup["club"], game="rukas", players=four, user=scorer)
    running = services.deal_start(session=rukas, user=scorer)
    services.entry_add(deal_id=running.pk, user=scorer, payload={"type": "trick", "cards": ["2", "3", "4", "5"]})
    other_session = services.session_start(
        club=club_setup["other"], game="cheat", players=[members["outsider"], *_other_members(club_setup)],
        user=users["outsider"],
    )
    token, _ = Token.objects.get_or_create(user=scorer)
    admin_token, _ = Token.objects.get_or_create(user=users["admin"])
    # The Django test client detaches these too: closing "old" connections at the end of a
    # request would close the connection holding the test's transaction.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield {
            "token": token.key,
            "admin_token": admin_token.key,
            "pk": [velnias.pk, rukas.pk, running.pk, deal.pk, other_session.pk],
            "seq": [1, 2],
            "slug": ["vilnius", "kaunas"],
            "member": [m.pk for m in members.values()],
        }
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def _other_members(club_setup: dict[str, Any]) -> list[Any]:
    from referee.models import Member

    return [Member.objects.create(club=club_setup["other"], name="Vytas")]


def steer(case: Any, world: dict[str, Any]) -> None:
    """Two times in three, aim a generated id, slug or seq (path) or member (query) at
    something that exists: the own club's or the other club's."""

    def aim(params: dict[str, Any], name: str, pool_name: str) -> None:
        pool = world[pool_name]
        # A running count, not the value: the generator often repeats a value many times.
        pick = next(STEERING) % (len(pool) * 3 // 2 + 1)
        if pick < len(pool):
            params[name] = pool[pick]

    path = case.path_parameters or {}
    for name in list(path):
        if name == "id":
            aim(path, name, "member" if "/members/" in case.path else "pk")
        elif name in ("slug", "seq"):
            aim(path, name, name)
    query = case.query if isinstance(case.query, dict) else {}
    for name in ("a", "b"):
        if name in query:
            aim(query, name, "member")


def error_format(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx answer is {"error": "<text>", ...} in JSON, whatever was asked for."""
    if not 400 <= response.status_code < 500:
        return None
    try:
        body = json.loads(response.content)
    except ValueError as bad:
        raise AssertionError(
            f"{response.status_code} is not JSON ({response.headers.get('content-type')}): {response.content[:200]!r}"
        ) from bad
    assert isinstance(body, dict), f"{response.status_code} body is not an object: {body!r}"
    assert isinstance(body.get("error"), str) and body["error"].strip(), f"no error message: {body!r}"
    return True


@pytest.mark.django_db
@schema.parametrize()
@settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_from_its_own_schema(case: Any, world: dict[str, Any]) -> None:
    steer(case, world)
    # Members and the club's settings are the admins' alone: fuzz those as the admin.
    admin_only = case.method in ("PATCH", "POST") and case.path.startswith("/api/clubs/{slug}")
    token = world["admin_token" if admin_only else "token"]
    response = case.call(headers={"Authorization": f"Token {token}", "Accept-Language": "en"})
    case.validate_response(response, checks=[not_a_server_error, error_format])
