"""The scoring tests assert the English source messages, whatever the Lithuanian catalogue adds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import translation


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    with translation.override("en"):
        yield


@pytest.fixture
def api(api: Any) -> Any:
    """The shared client factory, speaking English."""

    def client(user: Any = None) -> Any:
        c = api(user)
        c.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
        return c

    return client
