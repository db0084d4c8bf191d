"""The API's token authentication (web/api/authentication.py): on PostgreSQL one literal
statement, elsewhere REST framework's own; the same answers and refusals on both paths, and a
deleted token or a deactivated user is refused at the very next request (nothing is cached)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from referee import entry_store
from web.api import authentication

pytestmark = pytest.mark.django_db

PATHS = ["native", "orm"] if connection.vendor in entry_store.SQL_VENDORS else ["native"]


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "orm":
        monkeypatch.setattr(entry_store, "SQL_VENDORS", frozenset())
    return "sql" if entry_store.uses_sql() else "orm"


def client_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}", HTTP_ACCEPT_LANGUAGE="en")
    return client


def test_the_statement_reads_the_models_columns():
    sql = authentication.token_user_sql()
    user = get_user_model()
    for model, alias in ((Token, "t"), (user, "u")):
        for field in model._meta.concrete_fields:
            assert f'{alias}."{field.column}"' in sql
    assert f'FROM "{Token._meta.db_table}" t JOIN "{user._meta.db_table}" u' in sql


def test_a_token_signs_its_user_in_with_one_statement(path, club_setup):
    user = club_setup["users"]["scorer"]
    token = Token.objects.create(user=user)
    answer = authentication.TokenAuthentication().authenticate_credentials(token.key)
    assert answer[0] == user and answer[0].username == user.username and answer[0].is_active
    assert answer[1].key == token.key and answer[1].created == token.created and answer[1].user_id == user.pk
    with CaptureQueriesContext(connection) as queries:
        response = client_with(token.key).get("/api/clubs/")
    assert response.status_code == 200
    token_reads = [q["sql"] for q in queries.captured_queries if Token._meta.db_table in q["sql"]]
    assert len(token_reads) == 1
    # PostgreSQL reads with the literal statement; any other path with REST framework's query.
    assert (f'FROM "{Token._meta.db_table}" t JOIN' in token_reads[0]) == (path == "sql")


def test_an_unknown_token_is_refused(path):
    response = client_with("0" * 40).get("/api/clubs/")
    assert response.status_code == 401
    assert "Invalid token." in response.content.decode()


def test_a_deleted_token_is_refused_at_the_next_request(path, club_setup):
    token = Token.objects.create(user=club_setup["users"]["scorer"])
    client = client_with(token.key)
    assert client.get("/api/clubs/").status_code == 200
    token.delete()
    response = client.get("/api/clubs/")
    assert response.status_code == 401
    assert "Invalid token." in response.content.decode()


def test_a_deactivated_user_is_refused_at_the_next_request(path, club_setup):
    user = club_setup["users"]["scorer"]
    token = Token.objects.create(user=user)
    client = client_with(token.key)
    assert client.get("/api/clubs/").status_code == 200
    user.is_active = False
    user.save(update_fields=["is_active"])
    response = client.get("/api/clubs/")
    assert response.status_code == 401
    assert "User inactive or deleted." in response.content.decode()
