"""Refusals the service raises; the API and the pages turn them into one error format."""

from __future__ import annotations


class Refusal(Exception):
    """A request the service refuses; nothing was changed. ``status`` is the HTTP status."""

    status = 400

    def __init__(self, message: str, **extra: object) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra


class NotAllowed(Refusal):
    status = 403


class NotFound(Refusal):
    status = 404


class Conflict(Refusal):
    """A stale ``expected_seq`` (another tablet got there first) or a reused idempotency key."""

    status = 409
