"""Refusals the service raises; the API and the pages turn them into one error format.

Every refusal carries a stable ``code`` beside its message (a person reads the message, a
client branches on the code): the class gives the default, a raise may name a finer one
(``illegal_entry``, ``stale_seq``, ``duplicate_key_conflict``, ``closed``, ...).
"""

from __future__ import annotations


class Refusal(Exception):
    """A request the service refuses; nothing was changed. ``status`` is the HTTP status."""

    status = 400
    code = "refused"

    def __init__(self, message: str, *, code: str | None = None, **extra: object) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.extra = extra


class NotAllowed(Refusal):
    status = 403
    code = "forbidden"


class NotFound(Refusal):
    status = 404
    code = "not_found"


class Conflict(Refusal):
    """A stale ``expected_seq`` (another tablet got there first) or a reused idempotency key."""

    status = 409
    code = "conflict"
