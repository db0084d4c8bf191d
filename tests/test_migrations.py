"""The models and the migrations agree: a change of a model comes with its migration."""

from __future__ import annotations

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_the_models_need_no_new_migration() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
