"""The golden recorder: drives the API, normalises each answer, then records or compares.

Every request is recorded as ``{"n", "note", "request", "body", "status", "content_type",
"response"}``. Normalisation (see :class:`Normaliser`) replaces what legitimately differs
between runs and databases (ids, timestamps, tokens, today's date) with placeholders; ids
become ``<kind#n>``, n being the order in which that id was first seen in this session,
so an answer that names the wrong object still differs.

``GOLDEN_RECORD=1`` rewrites ``data/<game>.json``; otherwise the recording is compared and
the first differing answer is reported as a diff.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

DATA = Path(__file__).parent / "data"
RECORD = os.environ.get("GOLDEN_RECORD") == "1"

#: Keys whose (integer) values are ids, and the kind of object they name.
ID_KEYS = {
    "session": "session", "session_id": "session", "deal_id": "deal", "member": "member",
    # players: a list of member ids (an int there, in a deal's state, is a count and stays)
    "member_id": "member", "players": "member", "entry_id": "entry", "user_id": "user", "club_id": "club",
}
#: ``id``/``pk`` inside a list or object held under these keys name this kind.
CONTAINER_KINDS = {
    "deals": "deal", "sessions": "session", "members": "member", "seats": "member", "deal": "deal",
    "session": "session",
}
#: Keys whose values are random or secret.
OPAQUE_KEYS = {"token", "task_id", "key", "csrf", "csrftoken", "secret"}

DATETIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
)
#: Ids inside text: URLs and file names.
PATH_IDS = [
    (re.compile(r"(/sessions/)(\d+)(?=/)"), "session"),
    (re.compile(r"(/deals/)(\d+)(?=/)"), "deal"),
    (re.compile(r"(/members/)(\d+)(?=/)"), "member"),
    (re.compile(r"(session-)(\d+)(?=-)"), "session"),
    (re.compile(r"([?&](?:a|b)=)(\d+)"), "member"),
]


class Normaliser:
    """Stable placeholders for ids (first-seen ordinal per kind), datetimes and today's date."""

    def __init__(self) -> None:
        self.ids: dict[str, dict[Any, int]] = {}
        now = timezone.now()
        days = {now.date(), timezone.localtime(now).date(), dt.date.today()}
        self.today = sorted(day.isoformat() for day in days)
        self.months = sorted({day[:7] for day in self.today})

    def id(self, kind: str, value: Any) -> Any:
        if value is None or isinstance(value, bool):
            return value
        seen = self.ids.setdefault(kind, {})
        if value not in seen:
            seen[value] = len(seen) + 1
        return f"<{kind}#{seen[value]}>"

    def text(self, value: str) -> str:
        value = DATETIME.sub("<datetime>", value)
        for day in self.today:
            value = value.replace(day, "<today>")
        for month in self.months:
            value = re.sub(rf"(?<!\d){month}(?![\d-])", "<this-month>", value)
        for pattern, kind in PATH_IDS:
            value = pattern.sub(lambda m, kind=kind: m.group(1) + self.id(kind, int(m.group(2))), value)
        return value

    def __call__(self, value: Any, kind: str | None = None, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self.field(k, v, kind) for k, v in value.items()}
        if isinstance(value, list):
            return [self(item, kind, key) for item in value]
        if isinstance(value, str):
            return self.text(value)
        return value

    def field(self, key: str, value: Any, kind: str | None) -> Any:
        if key in OPAQUE_KEYS and value is not None:
            return f"<{key}>"
        if key.endswith("_at") and isinstance(value, str):
            return "<datetime>"
        if key in ("id", "pk") and isinstance(value, int):
            return self.id(kind or "id", value)
        if key in ID_KEYS:
            if isinstance(value, int) and not isinstance(value, bool) and key != "players":  # a count in states
                return self.id(ID_KEYS[key], value)
            if isinstance(value, list) and all(isinstance(v, int) for v in value):
                return [self.id(ID_KEYS[key], v) for v in value]
        return self(value, CONTAINER_KINDS.get(key, kind), key)


def kind_of(path: str) -> str | None:
    """What a top-level ``id`` names in the answer to ``path``."""
    if re.search(r"/deals/(\d+/)?$", path) or "/entries/" in path or path.endswith("/undo/"):
        return "deal"
    if "/members/" in path and "/history/" not in path:
        return "member"
    if re.search(r"/sessions/(\d+/)?(close/|reopen/)?$", path):
        return "session"
    return None


class Golden:
    """Records the API conversation of one game's session, then writes or compares it."""

    def __init__(self, game: str, clients: dict[str, Any], capture: Any) -> None:
        self.game = game
        self.clients = clients
        self.capture = capture
        self.norm = Normaliser()
        self.steps: list[dict[str, Any]] = []

    def call(self, method: str, path: str, body: Any = None, *, who: str = "scorer", note: str = "",
             kind: str | None = None) -> Any:
        """Send one request as ``who``, record it, return the raw answer (parsed JSON or text)."""
        client = self.clients[who]
        send = getattr(client, method.lower())
        with self.capture(execute=True):  # run what the request queued on commit, as production does
            response = send(path, body, format="json") if body is not None else send(path)
        content_type = response.get("Content-Type", "")
        if response.status_code == 204 or not response.content:
            raw: Any = None
            shown: Any = None
        elif "json" in content_type:
            raw = response.json()
            shown = self.norm(raw, kind or kind_of(path.split("?")[0]))
        else:
            raw = response.content.decode()
            shown = self.norm.text(raw).splitlines()
        self.steps.append({
            "n": len(self.steps) + 1,
            "note": note,
            "request": f"{method} {self.norm.text(path)}" + ("" if who == "scorer" else f" (as {who})"),
            "body": self.norm(body),
            "status": response.status_code,
            "content_type": content_type,
            "response": shown,
        })
        return raw

    def expect(self, status: int) -> None:
        """Fail early (while recording too) when the last request did not answer as the script assumes."""
        last = self.steps[-1]
        if last["status"] != status:
            pytest.fail(f"step {last['n']} {last['request']}: expected {status}, got {last['status']}:\n"
                        + json.dumps(last["response"], indent=2, ensure_ascii=False)[:3000])

    # -- record or compare ------------------------------------------------------------------------

    def finish(self) -> None:
        path = DATA / f"{self.game}.json"
        document = {"game": self.game, "steps": self.steps}
        if RECORD:
            DATA.mkdir(exist_ok=True)
            path.write_text(dump(document) + "\n", encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(f"no recording {path}; record it with GOLDEN_RECORD=1 (see tests/golden/README.md)")
        expected = json.loads(path.read_text(encoding="utf-8"))["steps"]
        actual = json.loads(dump(document))["steps"]  # the same JSON round trip as the file
        for want, got in zip(expected, actual):
            if want != got:
                diff = difflib.unified_diff(
                    dump(want).splitlines(), dump(got).splitlines(), "recorded", "now", lineterm="", n=4
                )
                pytest.fail(
                    f"{self.game}: answer {want['n']} differs: {want['request']} ({want['note']})\n"
                    + "\n".join(diff),
                    pytrace=False,
                )
        if len(expected) != len(actual):
            pytest.fail(f"{self.game}: {len(expected)} recorded requests, {len(actual)} now", pytrace=False)


def dump(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


class TableRandom(random.Random):
    """A seeded ``random.Random`` for the playout helpers that deals with a given dealer (their
    first ``randrange``) and puts given cards on top of the first piles it shuffles (so a
    deal starts with a seed example of RULES.md)."""

    def __init__(self, seed: int, dealer: int, tops: list[list[Any]] | None = None) -> None:
        super().__init__(seed)
        self.dealer: int | None = dealer
        self.tops = list(tops or [])

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        if self.dealer is not None:
            dealer, self.dealer = self.dealer, None
            return dealer
        return super().randrange(*args, **kwargs)

    def shuffle(self, x: Any) -> None:  # type: ignore[override]
        super().shuffle(x)
        if self.tops:
            top = self.tops.pop(0)
            assert all(card in x for card in top), (top, "not in the pile")
            x[:] = [*top, *(card for card in x if card not in top)]
