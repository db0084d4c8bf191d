"""The schema tells the truth about errors: a postprocessing hook of drf-spectacular adds
every error status an operation can answer, each in the one error format (``Error``).

Views document their own successes and the errors particular to them (the 409 of a stale
``expected_seq``); the errors every operation shares are added here, in one place, so a new
view cannot forget them: a body or query the API refuses (400), no or a wrong token (401),
a role that does not allow it (403), an unknown object (404), an ``Accept`` it cannot answer
(406); operations that read a body also answer 413 (over the size limit) and 415 (not JSON);
the token endpoint answers 429 when a client asks too often.
"""

from __future__ import annotations

from typing import Any

ERROR = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
SHARED = {
    "400": "Refused: the body or a parameter breaks the operation's rules, or the service refuses it; "
           "nothing changed.",
    "401": "No token or session, or a wrong one.",
    "403": "The user's role in the club does not allow this.",
    "404": "Not found, or not one of the user's clubs.",
    "406": "The Accept header asks for a media type this operation does not answer in.",
}
WITH_BODY = {
    "413": "The request body is over the size limit.",
    "415": "The body's Content-Type is not application/json.",
}
THROTTLED = {"429": "Too many token requests from this client; try again after Retry-After seconds."}
TOKEN_PATH = "/api/auth/token/"


def document_errors(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    for path, operations in result.get("paths", {}).items():
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            wanted = dict(SHARED)
            if "requestBody" in operation:
                wanted.update(WITH_BODY)
            if path == TOKEN_PATH:
                wanted.update(THROTTLED)
            responses = operation["responses"]
            for status, description in wanted.items():
                responses.setdefault(status, {"description": description, "content": ERROR})
    return result
