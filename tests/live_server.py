"""A real web process for the fault tests: gunicorn on loopback against its own database.

:class:`Database` makes a fresh database the test owns (a SQLite file, or with PostgreSQL a
new database on the same server, dropped afterwards); :class:`LiveServer` migrates it,
seeds it, and starts, kills (SIGKILL, no goodbye) and restarts gunicorn with production
settings; :func:`running_server` is the three together, for a test's fixture. :func:`call` is
a tiny JSON client over ``http.client``.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Database:
    """A database of its own: ``url`` for DATABASE_URL; ``drop()`` removes it."""

    def __init__(self, tmp_path: Path, postgres: dict[str, Any] | None) -> None:
        self.postgres = postgres
        if postgres is None:
            self.url = f"sqlite:///{tmp_path / 'live.sqlite3'}"
            return
        self.name = f"kortos_live_{uuid.uuid4().hex[:10]}"
        self._admin("CREATE DATABASE {}")
        user = postgres.get("USER") or "postgres"
        password = f":{postgres['PASSWORD']}" if postgres.get("PASSWORD") else ""
        host, port = postgres.get("HOST") or "127.0.0.1", postgres.get("PORT") or 5432
        self.url = f"postgres://{user}{password}@{host}:{port}/{self.name}"

    def _admin(self, statement: str) -> None:
        import psycopg
        from psycopg import sql

        assert self.postgres is not None
        params = {"dbname": "postgres", "user": self.postgres.get("USER") or "postgres",
                  "host": self.postgres.get("HOST") or "127.0.0.1", "port": self.postgres.get("PORT") or 5432}
        if self.postgres.get("PASSWORD"):
            params["password"] = self.postgres["PASSWORD"]
        with psycopg.connect(**params, autocommit=True) as admin:
            admin.execute(sql.SQL(statement).format(sql.Identifier(self.name)))

    def drop(self) -> None:
        if self.postgres is not None:
            self._admin("DROP DATABASE IF EXISTS {} WITH (FORCE)")


def production_env(database_url: str, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("DEBUG", "ALLOW_INSECURE_KEY", "CELERY_BROKER_URL", "CACHE_URL")}
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_BEHIND_TLS": "0",
        "DATABASE_URL": database_url,
        "PYTHONUNBUFFERED": "1",
    })
    env.update(extra)
    return env


def run_python(env: dict[str, str], code: str, timeout: float = 300) -> str:
    """Run Django code in a fresh process against the live database; returns its stdout."""
    script = "import django\ndjango.setup()\n" + code
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(f"subprocess failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


SEED = """
import json
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from referee.models import Club, Member, Role
User = get_user_model()
club = Club.objects.create(slug="vilnius", name="Vilniaus klubas")
scorer = User.objects.create_user("scorer", password="pass-word-123")
members = [Member.objects.create(club=club, name="Jonas", user=scorer, role=Role.SCORER)]
for name in ("Ona", "Rūta", "Petras", "Asta", "Tomas", "Eglė", "Marius"):
    members.append(Member.objects.create(club=club, name=name))
print(json.dumps({"token": Token.objects.create(user=scorer).key, "members": [m.pk for m in members]}))
"""


class LiveServer:
    """gunicorn serving the project on 127.0.0.1 with production settings."""

    def __init__(self, env: dict[str, str], workers: int = 2, threads: int = 1, log: Path | None = None) -> None:
        self.env = env
        self.workers = workers
        self.threads = threads
        self.port = free_port()
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def migrate_and_seed(self) -> dict[str, Any]:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=self.env,
                       check=True, timeout=600)
        return dict(json.loads(run_python(self.env, SEED).strip().splitlines()[-1]))

    def start(self, timeout: float = 60) -> None:
        output = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{self.port}",
             "--workers", str(self.workers), "--threads", str(self.threads), "--timeout", "60",
             "--graceful-timeout", "5", "--backlog", "512"],
            cwd=ROOT, env=self.env, stdout=output, stderr=output, start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"gunicorn exited with {self.process.returncode}")
            try:
                status, _body = call(self.port, "GET", "/healthz")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError("gunicorn did not answer /healthz in time")

    def log_tail(self, lines: int = 60) -> str:
        if self.log is None or not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def kill(self) -> None:
        """SIGKILL to the whole process group: master and workers die mid-whatever."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.process = None

    def stop(self) -> None:
        if self.process is None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)
        self.process = None


@contextmanager
def running_server(tmp_path: Path, postgres: dict[str, Any] | None, *, workers: int = 2,
                   threads: int = 1) -> Iterator[tuple[LiveServer, dict[str, Any]]]:
    """A database of its own, migrated and seeded, and gunicorn serving it; yields the server
    and the seed (the scorer's token and the members' ids). Stopped and dropped afterwards,
    whatever the test did to it (a test may have killed it)."""
    database = Database(tmp_path, postgres)
    live = LiveServer(production_env(database.url), workers=workers, threads=threads, log=tmp_path / "gunicorn.log")
    try:
        seeded = live.migrate_and_seed()
        live.start()
        yield live, seeded
    finally:
        live.stop()
        database.drop()


def call(port: int, method: str, path: str, body: Any = None, token: str | None = None,
         timeout: float = 30) -> tuple[int, Any]:
    """One JSON request; returns (status, parsed body or text)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Accept-Language": "en", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
    finally:
        connection.close()
    kind = response.getheader("Content-Type") or ""
    return response.status, (json.loads(raw) if raw and "json" in kind else raw.decode("utf-8", "replace"))
