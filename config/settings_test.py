"""Test settings: the real settings with a throwaway key and fast password hashing.

``DATABASE_URL`` still decides the database (SQLite locally, PostgreSQL in CI). Celery
runs tasks eagerly unless a test starts a real worker (see tests/conftest.py).
"""

import os

os.environ.setdefault("ALLOW_INSECURE_KEY", "1")
os.environ.setdefault("SECURE_BEHIND_TLS", "0")

from .settings import *  # noqa: E402,F403
from .settings import CELERY_BROKER_URL, REST_FRAMEWORK  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
#: The broker the worker tests use (CI: Redis); empty means those tests skip locally.
TEST_CELERY_BROKER_URL = CELERY_BROKER_URL
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"login": "1000/min"}}
