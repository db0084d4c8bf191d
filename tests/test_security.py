"""Security settings and the guards around signing in and posting forms.

* ``manage.py check --deploy`` is clean with production settings (DEBUG unset, a long
  random SECRET_KEY, real ALLOWED_HOSTS), and the responses carry the secure cookie and
  header settings;
* every form of the pages refuses a POST without the CSRF token, and so does the API for a
  session-authenticated (browser) client; token clients need no CSRF token;
* sign-in attempts are rate-limited on the page, the admin's sign-in and the API token.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "pass-word-123"  # noqa: S105 (the conftest's test password)


def production_env(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("DEBUG", "ALLOW_INSECURE_KEY", "SECURE_BEHIND_TLS", "DJANGO_SETTINGS_MODULE",
                          "DJANGO_ALLOW_ASYNC_UNSAFE")}  # set by the browser tests for Playwright
    env.update({
        "SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "kortos.example.lt",
        "CSRF_TRUSTED_ORIGINS": "https://kortos.example.lt",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'deploy.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    })
    return env


@pytest.mark.slow
def test_check_deploy_is_clean_with_production_settings(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=production_env(tmp_path), capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_production_settings_refuse_to_start_without_a_secret_key(tmp_path: Path) -> None:
    env = production_env(tmp_path)
    del env["SECRET_KEY"]
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off." in result.stderr


PROBE = """
import django, json
django.setup()
from django.test import Client
client = Client(HTTP_HOST="kortos.example.lt")
plain = client.get("/login/")
secure = client.get("/login/", secure=True)
cookie = secure.cookies["csrftoken"]
from django.conf import settings
print(json.dumps({
    "plain_status": plain.status_code, "plain_location": plain.get("Location"),
    "status": secure.status_code,
    "hsts": secure.get("Strict-Transport-Security"), "frame": secure.get("X-Frame-Options"),
    "nosniff": secure.get("X-Content-Type-Options"), "referrer": secure.get("Referrer-Policy"),
    "csp": sorted(part.strip() for part in secure.get("Content-Security-Policy", "").split(";")),
    "camera": "camera=()" in secure.get("Permissions-Policy", ""),
    "opener": secure.get("Cross-Origin-Opener-Policy"),
    "csrf_cookie_secure": bool(cookie["secure"]), "csrf_cookie_samesite": cookie["samesite"],
    "session_cookie_secure": settings.SESSION_COOKIE_SECURE,
    "session_cookie_httponly": settings.SESSION_COOKIE_HTTPONLY,
    "debug": settings.DEBUG,
}))
"""


@pytest.mark.slow
def test_secure_cookies_and_headers_when_not_in_debug(tmp_path: Path) -> None:
    """Plain HTTP is redirected to HTTPS; over HTTPS: HSTS, no framing, no sniffing, secure cookies,
    the strict content policy, no camera (and the like) and a window of its own."""
    import json

    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=production_env(tmp_path), capture_output=True, text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen == {
        "plain_status": 301, "plain_location": "https://kortos.example.lt/login/",
        "status": 200,
        "hsts": "max-age=31536000; includeSubDomains; preload", "frame": "DENY",
        "nosniff": "nosniff", "referrer": "same-origin",
        "csp": ["base-uri 'none'", "connect-src 'self'", "default-src 'self'", "font-src 'self'",
                "form-action 'self'", "frame-ancestors 'none'", "frame-src 'none'", "img-src 'self'",
                "manifest-src 'self'", "object-src 'none'", "report-uri /csp-report/", "script-src 'self'",
                "style-src 'self'", "worker-src 'self'"],
        "camera": True, "opener": "same-origin",
        "csrf_cookie_secure": True, "csrf_cookie_samesite": "Lax",
        "session_cookie_secure": True, "session_cookie_httponly": True,
        "debug": False,
    }


# -- CSRF ------------------------------------------------------------------------------------------


def _token_from(html: str) -> str:
    match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert match, "the page has no CSRF token"
    return match.group(1)


@pytest.fixture
def recording(club_setup: dict[str, Any]) -> dict[str, Any]:
    """A Rūkas session with a running deal, recorded by the club's scorer."""
    from referee import services

    members, scorer = club_setup["members"], club_setup["users"]["scorer"]
    players = [members[name] for name in ("admin", "scorer", "member", "Petras")]
    session = services.session_start(club=club_setup["club"], game="rukas", players=players, user=scorer)
    deal = services.deal_start(session=session, user=scorer)
    return {**club_setup, "session": session, "deal": deal}


def _forms(recording: dict[str, Any]) -> list[tuple[str, str, dict[str, str]]]:
    """(page with the form, address it posts to, a form body)."""
    session, deal, club = recording["session"], recording["deal"], recording["club"]
    return [
        (f"/clubs/{club.slug}/sessions/new/", f"/clubs/{club.slug}/sessions/new/", {
            "game": "velnias", "notation": "en", "stake": "0", "coin": "",
        }),
        (f"/deals/{deal.pk}/", f"/deals/{deal.pk}/", {
            "action": "entry", "f:type:str": "trick", "f:cards:strs": ["2", "3", "4", "5"], "expected_seq": "0",
            "idempotency_key": "csrf-probe",
        }),
        (f"/deals/{deal.pk}/", f"/deals/{deal.pk}/", {"action": "undo"}),
        (f"/deals/{deal.pk}/", f"/deals/{deal.pk}/preview/", {"type": "trick"}),
        (f"/sessions/{session.pk}/", f"/sessions/{session.pk}/close/", {}),
        (f"/sessions/{session.pk}/deals/new/", f"/sessions/{session.pk}/deals/new/", {"dealer": "0"}),
        ("/", "/i18n/setlang/", {"language": "en", "next": "/"}),
        ("/", "/logout/", {}),
    ]


@pytest.mark.django_db
def test_every_form_of_the_pages_is_refused_without_its_csrf_token(recording: dict[str, Any]) -> None:
    from referee.models import Deal, Entry, Session

    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(recording["users"]["scorer"])
    before = (Session.objects.count(), Deal.objects.count(), Entry.objects.count())
    for _page, address, body in _forms(recording):
        response = client.post(address, body)
        assert response.status_code == 403, address
        assert b"CSRF" in response.content, address
    assert (Session.objects.count(), Deal.objects.count(), Entry.objects.count()) == before
    # Still signed in: the logout form was refused too.
    assert client.get("/").status_code == 200


@pytest.mark.django_db
def test_the_login_form_is_refused_without_its_csrf_token(club_setup: dict[str, Any]) -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post("/login/", {"username": "scorer", "password": PASSWORD})
    assert response.status_code == 403
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_forms_with_their_csrf_token_go_through(recording: dict[str, Any]) -> None:
    """The refusals above are the CSRF check's: the same posts with the page's token succeed."""
    from referee.models import Entry

    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    page = client.get("/login/")
    response = client.post("/login/", {"username": "scorer", "password": PASSWORD,
                                       "csrfmiddlewaretoken": _token_from(page.content.decode())})
    assert response.status_code == 302
    deal = recording["deal"]
    page = client.get(f"/deals/{deal.pk}/")
    assert page.status_code == 200
    response = client.post(f"/deals/{deal.pk}/", {
        "action": "entry", "f:type:str": "trick", "f:cards:strs": ["2", "3", "4", "5"], "expected_seq": "0",
        "idempotency_key": "csrf-probe", "csrfmiddlewaretoken": _token_from(page.content.decode()),
    })
    assert response.status_code == 302, response.content.decode()[:500]
    assert list(Entry.objects.filter(deal=deal).values_list("seq", "payload")) == [
        (1, {"type": "trick", "cards": ["2", "3", "4", "5"]})
    ]


@pytest.mark.django_db
def test_session_authenticated_api_posts_need_the_csrf_token(recording: dict[str, Any]) -> None:
    from referee.models import Entry

    deal = recording["deal"]
    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(recording["users"]["scorer"])
    entry = {"type": "trick", "cards": ["2", "3", "4", "5"], "idempotency_key": "k1"}
    refused = client.post(f"/api/deals/{deal.pk}/entries/", entry, format="json")
    assert refused.status_code == 403
    assert refused.json() == {"error": "CSRF Failed: CSRF cookie not set.", "code": "forbidden"}
    assert not Entry.objects.filter(deal=deal).exists()
    # The pages' JavaScript sends the cookie's token as X-CSRFToken.
    client.get(f"/deals/{deal.pk}/")
    token = client.cookies["csrftoken"].value
    accepted = client.post(f"/api/deals/{deal.pk}/entries/", entry, format="json", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 201
    assert Entry.objects.filter(deal=deal).count() == 1


@pytest.mark.django_db
def test_token_clients_need_no_csrf_token(recording: dict[str, Any], api: Any) -> None:
    client = api(recording["users"]["scorer"])
    client.enforce_csrf_checks = True
    response = client.post(f"/api/deals/{recording['deal'].pk}/entries/",
                           {"type": "trick", "cards": ["2", "3", "4", "5"]}, format="json")
    assert response.status_code == 201


# -- rate limits on signing in ---------------------------------------------------------------------


@pytest.fixture
def fresh_cache() -> Any:
    cache.clear()
    yield
    cache.clear()


def _sign_in(client: Client, username: str, password: str, address: str = "10.0.0.1") -> Any:
    return client.post("/login/", {"username": username, "password": password}, REMOTE_ADDR=address)


@pytest.mark.django_db
def test_the_sign_in_page_locks_out_after_five_wrong_passwords(club_setup: dict[str, Any], fresh_cache: Any) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    for _ in range(5):
        response = _sign_in(client, "scorer", "wrong")
        assert response.status_code == 200
        assert "Wrong username or password." in response.content.decode()
    locked = _sign_in(client, "scorer", PASSWORD)
    assert locked.status_code == 429
    assert "Too many failed sign-ins. Wait a few minutes and try again." in locked.content.decode()
    assert "_auth_user_id" not in client.session
    # The same username from another address is locked too (per username) ...
    assert _sign_in(Client(), "scorer", PASSWORD, address="10.0.0.2").status_code == 429
    # ... and another username from the locked address (per address) ...
    assert _sign_in(Client(), "member", PASSWORD, address="10.0.0.1").status_code == 429
    # ... while others sign in as usual.
    assert _sign_in(Client(), "member", PASSWORD, address="10.0.0.3").status_code == 302


@pytest.mark.django_db
def test_the_lockout_ends_with_its_window(club_setup: dict[str, Any], fresh_cache: Any) -> None:
    client = Client()
    for _ in range(5):
        _sign_in(client, "scorer", "wrong")
    assert _sign_in(client, "scorer", PASSWORD).status_code == 429
    cache.clear()  # the window (LOGIN_FAILURE_WINDOW) has passed
    assert _sign_in(client, "scorer", PASSWORD).status_code == 302


@pytest.mark.django_db
def test_the_admin_sign_in_counts_against_the_same_limit(make_user: Any, fresh_cache: Any) -> None:
    make_user("boss", is_staff=True, is_superuser=True)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    for _ in range(5):
        response = client.post("/admin/login/", {"username": "boss", "password": "wrong"}, REMOTE_ADDR="10.0.0.9")
        assert response.status_code == 200
    locked = client.post("/admin/login/", {"username": "boss", "password": PASSWORD}, REMOTE_ADDR="10.0.0.9")
    assert locked.status_code == 429
    assert locked.content.decode() == "Too many failed sign-ins. Wait a few minutes and try again."
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_the_api_token_endpoint_is_throttled(club_setup: dict[str, Any], fresh_cache: Any,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from rest_framework.throttling import ScopedRateThrottle

    # The test settings relax the rate so other tests may sign in freely; production is 10/min.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"login": "3/min"})
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    for _ in range(3):
        response = client.post("/api/auth/token/", {"username": "scorer", "password": "wrong"}, format="json")
        assert (response.status_code, response.json()) == (
            400, {"error": "Wrong username or password.", "code": "refused"})
    throttled = client.post("/api/auth/token/", {"username": "scorer", "password": PASSWORD}, format="json")
    assert throttled.status_code == 429
    assert throttled.json()["error"].startswith("Request was throttled.")
    assert "token" not in throttled.json()


def test_the_production_token_rate_is_ten_a_minute(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.conf import settings; "
                               "print(settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['login'])"],
        cwd=ROOT, env=production_env(tmp_path), capture_output=True, text=True, timeout=120,
    )
    assert result.stdout.strip() == "10/min", result.stderr
