"""The API fuzzed from its own OpenAPI schema (schemathesis), in-process through the WSGI app.

Every operation in ``/api/schema/`` is called with schema-valid and schema-violating
requests (schemathesis' positive and negative modes), as a scorer (the admin for the
admin-only member and club settings operations) of a seeded club that
has a closed Velnias session and an open Rūkas session with a running deal. Path
parameters are steered, part of the time, to the ids and slugs that exist (own club and
another club), so the fuzzing reaches the services rather than stopping at 404.

Checks: every check schemathesis has (server errors, status codes, content types,
response schemas and headers, negative data rejected, authentication enforced, ...) plus
two of this API: every 4xx body is the one error format, a JSON object ``{"error":
"<non-empty text>", "code": ...}``; and schemathesis' positive-data check as this API reads
it (``refused_for_cause``: the referee may refuse a well-formed entry, but never as
malformed). Then the stateful phase: sequences of calls linked by the ids they answer.

The budget is fixed (``max_examples`` per operation, derandomized), so the run is
repeatable and bounded: ``SCHEMATHESIS_HOT_EXAMPLES`` for the hot operations (recording,
undo, corrections, deals, the token), ``SCHEMATHESIS_EXAMPLES`` for the others and
``SCHEMATHESIS_STATEFUL_EXAMPLES`` scenarios; .ci/run sets the CI budget.
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
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import positive_data_acceptance
from schemathesis.core.parameters import ParameterLocation

from config.wsgi import application

#: Examples per operation: the hot path (recording at the table and signing in) and the rest.
#: make test runs a short budget; .ci/run raises it (see the budget stated there).
HOT = r"^/api/(deals/|auth/token/|sessions/\{id\}/deals/)"
HOT_EXAMPLES = int(os.environ.get("SCHEMATHESIS_HOT_EXAMPLES", "50"))
EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "25"))

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
# Unknown query parameters are ignored, as by most HTTP APIs (a cache-busting "?_=1" must not
# fail): the negative phase does not count adding one as breaking the schema.
schema.config.generation.update(allow_extra_parameters=False)
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

    # A case made invalid in its path stays invalid: aiming it at a real row would make it valid.
    path = {} if case.meta is not None and case.meta.is_negative_at(ParameterLocation.PATH) else (
        case.path_parameters or {})
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


def refused_for_cause(ctx: Any, response: Any, case: Any) -> bool | None:
    """Schemathesis' own positive_data_acceptance, as this API reads it: a request the schema
    calls valid may still be refused (400) by the referee or the service (an illegal entry, a
    wrong password, a member of another club), but never as malformed: its code is then not
    ``invalid`` or ``malformed_json`` (which would mean the schema promised too much)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    body = json.loads(response.content)
    if "NUL character" in body["error"] or body["error"].startswith("The request body cannot be taken:"):
        return True  # limits the schema's description states and JSON Schema cannot (NUL, nesting)
    code = body.get("code")
    assert code not in ("invalid", "malformed_json"), (
        f"schema-valid request refused as {code}: {response.content[:300]!r}")
    return True


def _call(case: Any, world: dict[str, Any]) -> None:
    steer(case, world)
    # Members and the club's settings are the admins' alone: fuzz those as the admin.
    admin_only = case.method in ("PATCH", "POST") and case.path.startswith("/api/clubs/{slug}")
    token = world["admin_token" if admin_only else "token"]
    case.call_and_validate(headers={"Authorization": f"Token {token}", "Accept-Language": "en"},
                           additional_checks=[error_format, refused_for_cause],
                           excluded_checks=[positive_data_acceptance])


def _budget(examples: int) -> Any:
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


@pytest.mark.django_db
@schema.include(path_regex=HOT).parametrize()
@_budget(HOT_EXAMPLES)
def test_hot_operations_from_the_schema(case: Any, world: dict[str, Any]) -> None:
    _call(case, world)


@pytest.mark.django_db
@schema.exclude(path_regex=HOT).parametrize()
@_budget(EXAMPLES)
def test_other_operations_from_the_schema(case: Any, world: dict[str, Any]) -> None:
    _call(case, world)


STATEFUL_STEPS = int(os.environ.get("SCHEMATHESIS_STATEFUL_EXAMPLES", "10"))


@pytest.mark.django_db
def test_api_as_a_state_machine(world: dict[str, Any]) -> None:
    """Schemathesis' stateful phase: sequences of calls that feed one answer's ids into the next
    request (the links it infers from the schema), with the same checks as above."""
    base = schema.as_state_machine()

    class Workflow(base):  # type: ignore[misc,valid-type]
        """Every scenario starts from the same rows and the same steering: Hypothesis replays
        scenarios, and one that met other data the second time would be flaky."""

        def setup(self) -> None:
            global STEERING
            STEERING = itertools.count()
            self.savepoint = transaction.savepoint()

        def teardown(self) -> None:
            transaction.savepoint_rollback(self.savepoint)

        def before_call(self, case: Any) -> None:
            steer(case, world)

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            admin_only = case.method in ("PATCH", "POST") and case.path.startswith("/api/clubs/{slug}")
            token = world["admin_token" if admin_only else "token"]
            return {"headers": {"Authorization": f"Token {token}", "Accept-Language": "en"}}

        def validate_response(self, response: Any, case: Any, additional_checks: Any = None, **kwargs: Any) -> None:
            case.validate_response(
                response, additional_checks=[error_format, refused_for_cause],
                excluded_checks=[positive_data_acceptance], headers=kwargs.get("headers"),
                recorder=getattr(self, "recorder", None),
            )

    Workflow.run(settings=settings(
        max_examples=STATEFUL_STEPS, deadline=None, derandomize=True, database=None,
        suppress_health_check=list(HealthCheck), stateful_step_count=6,
        # The scenarios share one database (the test's transaction), so a scenario replayed to
        # shrink it meets other rows than the first time: report the failure as found instead.
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    ))
