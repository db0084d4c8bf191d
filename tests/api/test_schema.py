"""The OpenAPI schema at ``/api/schema/`` and the interactive docs at ``/api/docs/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

#: The endpoints the API offers, with their methods, as the schema names them.
REQUIRED = {
    "/api/clubs/": {"get", "post"},
    "/api/clubs/{slug}/members/": {"get", "post"},
    "/api/sessions/": {"get", "post"},
    "/api/sessions/{id}/deals/": {"post"},
    "/api/deals/{id}/": {"get"},
    "/api/deals/{id}/entries/": {"post"},
    "/api/deals/{id}/undo/": {"post"},
    "/api/sessions/{id}/close/": {"post"},
}


def test_schema_is_served_and_lists_every_endpoint(client_for: Any) -> None:
    response = client_for().get("/api/schema/?format=json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.oai.openapi+json")
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "Kortų teisėjas API"
    for path, methods in REQUIRED.items():
        assert path in schema["paths"], path
        assert methods <= set(schema["paths"][path]), path


def test_schema_documents_the_error_format_and_the_conflict(client_for: Any) -> None:
    schema = client_for().get("/api/schema/?format=json").json()
    entries = schema["paths"]["/api/deals/{id}/entries/"]["post"]
    assert {"200", "201", "400", "401", "403", "404", "409"} <= set(entries["responses"])
    conflict = entries["responses"]["409"]["content"]["application/json"]["schema"]
    assert conflict == {"$ref": "#/components/schemas/Error"}
    assert set(schema["components"]["schemas"]["Error"]["required"]) == {"error", "code"}
    body = schema["components"]["schemas"]["EntryRequestRequest"]["properties"]
    assert {"type", "idempotency_key", "expected_seq"} <= set(body)


def test_schema_generates_without_warnings_and_validates(tmp_path: Path) -> None:
    """drf-spectacular's own check: any warning (an unresolvable serializer, a name collision)
    fails, and the result is validated against the OpenAPI 3 specification."""
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    assert "/api/deals/{id}/entries/" in out.read_text(encoding="utf-8")


def test_interactive_docs_are_served_locally(client_for: Any) -> None:
    response = client_for().get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    # Everything is served by the app itself (no CDN): the sidecar's static files, and the
    # start-up script as a file of its own (the content policy runs no inline script).
    assert "cdn." not in html and "unpkg" not in html
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "<script>" not in html and '<script src="/api/docs/?script=">' in html
    script = client_for().get("/api/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert "/api/schema/" in script.content.decode()
