"""Refusals the service raises; the API and the pages turn them into one error format.

Every refusal carries a stable ``code`` beside its message (a person reads the message, a
client branches on the code): the class gives the default, a raise may name a finer one
(``illegal_entry``, ``stale_seq``, ``duplicate_key_conflict``, ``closed``, ...).
"""

from __future__ import annotations

#: Every code an error body may carry, with when: the one list the API's schema states, the API
#: answers and the pages map to their fields. tests/test_error_codes.py holds every code raised
#: anywhere to it.
CODES: dict[str, str] = {
    "invalid": "400: a field or the body breaks the operation's rules; `fields` says which.",
    "malformed_json": "400: the body is not JSON.",
    "refused": "400: the service refuses the request; nothing changed.",
    "illegal_entry": "400: the referee refuses the entry; nothing was stored.",
    "closed": "400: the session is closed; reopen it first.",
    "running_deal": "400: a deal of the session is still running; finish it first.",
    "invalid_plan": "400: the plan is not {\"deals\": N} or {\"target\": T} (whole numbers from 1) or null.",
    "plan_not_reached": "400: the session's plan is not reached (or it has none): there is nothing to play on past.",
    "not_authenticated": "401: no token or session, or a wrong one.",
    "forbidden": "403: the user's role in the club does not allow this.",
    "not_found": "404: no such object, or not one of the user's clubs.",
    "method_not_allowed": "405: the address does not take this method.",
    "not_acceptable": "406: no answer in the media type the Accept header asks for.",
    "conflict": "409: another device changed the deal first, or the summary is not ready.",
    "stale_seq": "409: expected_seq is not the deal's seq; the body gives the current `seq`.",
    "duplicate_key_conflict": "409: the idempotency_key was used for a different entry (or the client_id for "
    "a deal with another dealer).",
    "stale_deal_number": "409: expected_number is not the next deal's number; the body gives that `number`.",
    "last_admin": "400: the change would leave the club without an active admin.",
    "name_missing": "400: a name is required.",
    "name_taken": "400: the club already has a member of that name.",
    "role_unknown": "400: the role is not one of the club's roles.",
    "inactive_member": "400: the member is deactivated; reactivate them first.",
    "no_invitation": "400: the member has no invitation to withdraw.",
    "used_invitation": "400: the invitation has already been used.",
    "revoked_invitation": "400: the invitation was withdrawn by the club's admin.",
    "expired_invitation": "400: the invitation has expired.",
    "unknown_invitation": "404: no invitation has this code.",
    "already_linked": "409: the member already signs in with a user of their own.",
    "username_taken": "409: the username is taken.",
    "rounds_done": "400: every round the club night planned has been drawn.",
    "draw_impossible": "400: the players present cannot be seated (too few, or pairs that cannot be kept apart).",
    "round_started": "400: the round has started; only rounds not yet played change.",
    "round_playing": "400: the round before is still playing; close its tables' sessions first.",
    "stale_round": "409: expected_version is not the round's version; the body gives the current `version`.",
    "already_paid": "400: the transfer is already marked paid (or the payment already reversed).",
    "too_large": "413: the request body is over the size limit.",
    "unsupported_media_type": "415: the body's Content-Type is not one the operation reads.",
    "throttled": "429: too many requests; try again later (see Retry-After).",
    "server_error": "500: something broke on our side; nothing was stored.",
}


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
