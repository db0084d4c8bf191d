"""What the tablet's Web Worker runs around the rules engine, under Pyodide: one JSON request in,
one JSON answer out.

It is shipped in the engine archive beside ``referee/rules`` (``referee.offline_engine``
builds both) and imports nothing but the engine and the standard library, so the very same
file runs on the server's CPython in the tests. Requests cross the worker boundary as JSON
text rather than Pyodide proxies: nothing to free, and the answer is exactly what the
server would serialise.

A refusal is rendered as :func:`referee.services.refusal_from` renders it: seats as the
players' names, the template in the session's language (the catalogue built at set-up from
the ``.po`` file, since the tablet has no Django), cards in the session's notation, and the
club's words for the fields a message names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from referee.rules import GAMES, Game, IllegalEntry, Notation
from referee.rules.plan import Progress, advance, read_plan, standing
from referee.rules.seat_names import with_names

#: language -> {"messages": {English template: translation}, "words": {game: {key: word}}}
_catalogue: dict[str, Any] = {}


def load_catalogue(catalogue: Mapping[str, Any]) -> None:
    """Take the messages and words the set-up step wrote (``engine-<version>.json``'s ``catalogue``)."""
    _catalogue.clear()
    _catalogue.update(catalogue)


def handle(request_text: str) -> str:
    """Answer one request (JSON text) with JSON text; see :func:`answer`."""
    return json.dumps(answer(json.loads(request_text)), ensure_ascii=False)


def answer(request: Mapping[str, Any]) -> dict[str, Any]:
    """``op`` is one of new_deal, apply, outcome, view, from_dict (alias to_dict), replay.

``new_deal`` may name ``previous``, the finished deal's snapshot: what it hands on (the rules'
``carry_over``) is merged over ``options``, as the server's deal start does. ``replay`` starts
a deal (``players``, ``dealer``, ``options``) and applies ``entries`` in order, as the server
does after an undo or a correction; a refusal there also says ``at``, the index of the refused
entry.

    A refusal answers ``{"refusal": {"error": ..., "code": "illegal_entry"}}``, the body the
    API would send; a request the worker cannot read answers ``{"failure": ...}`` so that the
    screen falls back to asking the server.
    """
    op = request.get("op")
    game = GAMES.get(str(request.get("game") or (request.get("snapshot") or {}).get("game")))
    if game is None:
        return {"failure": f"unknown game {request.get('game')!r}"}
    if op == "plan":
        return _plan(game, request)
    context = request.get("context") or {}
    at = None
    try:
        if op == "replay":
            state = game.new_deal(
                players=int(request["players"]), dealer=int(request["dealer"]), options=request.get("options") or {}
            )
            for index, entry in enumerate(request["entries"]):
                at = index  # a refusal says which entry it refused
                state = game.apply(state, entry)
            return _applied(game, state, context.get("names"))
        if op == "new_deal":
            options = dict(request.get("options") or {})
            if request.get("previous"):
                # What the finished deal hands on (chips left on the table, say), merged over
                # the options as the server's deal start does (deal_starts._start).
                options.update(game.carry_over(game.from_dict(request["previous"])))
            state = game.new_deal(players=int(request["players"]), dealer=int(request["dealer"]), options=options)
            return {"snapshot": game.to_dict(state), "view": game.view(state)}
        state = game.from_dict(request["snapshot"])
        if op == "apply":
            return _applied(game, game.apply(state, request["entry"]), context.get("names"))
        if op == "outcome":
            outcome = game.outcome(state)
            return {"outcome": outcome.view() if outcome else None}
        if op == "view":
            return {"view": game.view(state)}
        if op in ("from_dict", "to_dict"):
            return {"snapshot": game.to_dict(state)}
    except IllegalEntry as error:
        refused: dict[str, Any] = {"refusal": {"error": render(error, game.slug, context), "code": "illegal_entry"}}
        return refused if at is None else {**refused, "at": at}
    except (KeyError, TypeError, ValueError) as error:
        return {"failure": f"{type(error).__name__}: {error}"}
    return {"failure": f"unknown op {op!r}"}


def _plan(game: Game[Any], request: Mapping[str, Any]) -> dict[str, Any]:
    """The session's standing against its plan as the server's deal screen says it
    (``scoring.plans.deal_plan``): ``plan``, ``before`` (the finished deals before this one,
    folded), ``points`` (this deal's outcome once finished, else it is ``running``) and
    ``played_on_after``. Answers the standing and ``after``, what the next deal starts from."""
    try:
        plan = read_plan(request.get("plan"))
        before = Progress.from_view(request.get("before") or {})
        points = request.get("points")
        done = advance(before, [int(p) for p in points], plan, game.unit) if points is not None else before
        if plan is None:
            return {"standing": None, "after": done.view()}
        running = request.get("running")
        played = request.get("played_on_after")
        found = standing(plan, done, running=None if running is None else int(running),
                         played_on_after=None if played is None else int(played))
    except (IllegalEntry, KeyError, TypeError, ValueError) as error:
        return {"failure": f"{type(error).__name__}: {error}"}
    return {"standing": found.view(), "after": done.view()}


def _applied(game: Game[Any], state: Any, names: Any = None) -> dict[str, Any]:
    """The new snapshot, the engine's view, the outcome, and ``result``: the referee's conclusion
    as the API answers it for the stored entry (``entry.result``: seats named)."""
    outcome = game.outcome(state)
    view = game.view(state)
    return {
        "snapshot": game.to_dict(state),
        "view": view,
        "outcome": outcome.view() if outcome else None,
        "result": with_names(view.get("last"), list(names or [])),
    }


def render(error: IllegalEntry, slug: str, context: Mapping[str, Any]) -> str:
    """The refusal as the server shows it in ``context["language"]`` with ``context["names"]``."""
    language = _catalogue.get(str(context.get("language", "en"))) or {}
    messages: Mapping[str, str] = language.get("messages", {})
    words: Mapping[str, str] = language.get("words", {}).get(slug, {})
    names = context.get("names")
    notation: Notation = "lt" if context.get("notation") == "lt" else "en"
    return error.render(
        names=list(names) if names is not None else None,
        translate=lambda template: messages.get(template, template),
        notation=notation,
        words=words,
    )
