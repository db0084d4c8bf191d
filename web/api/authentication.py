"""The API's token authentication: REST framework's, with the token and its user read by one
literal statement on PostgreSQL.

Every API request starts here (a table's tablet sends its token with each entry). A profile of
the gunicorn workers under many tables put a third of their CPU in
``TokenAuthentication.authenticate_credentials``, most of it the ORM compiling the
token-and-user join (``select_related``) anew for every request (docs/measurements.md). The
statement below is that join, written out; the answer is the same rows, read at every request
as before (no cache: a deleted token or a deactivated user is refused at once). Other databases
(SQLite) take REST framework's own path. tests/api/test_token_statement.py holds the
statement's columns to the models and both paths to the same answers.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from db import prepared
from referee import entry_store


def token_user_sql() -> str:
    """The token's columns, then its user's, in the models' field order."""
    user = get_user_model()
    return (
        f"SELECT {entry_store.columns(Token, 't')}, {entry_store.columns(user, 'u')}"  # noqa: S608 - names from the models
        f' FROM "{Token._meta.db_table}" t JOIN "{user._meta.db_table}" u'
        f' ON u."{user._meta.pk.column}" = t."{Token._meta.get_field("user").column}"'
        f' WHERE t."{Token._meta.pk.column}" = %s'
    )


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>``, as REST framework's (same refusals, same answer)."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        if not entry_store.uses_sql() or self.get_model() is not Token:
            return super().authenticate_credentials(key)
        with prepared.cursor() as cursor:
            cursor.execute(_sql(), [key])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        (token, user), _rest = entry_store.split_row(row, Token, get_user_model())
        token.user = user
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return (token.user, token)


@cache
def _sql() -> str:
    # Built on first use, once the models are loaded (the user model is a setting).
    return token_user_sql()
