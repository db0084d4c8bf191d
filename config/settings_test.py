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
# The live server's static files come through WhiteNoise (tests/conftest.py's live_server), and
# the offline engine is built while the tests run: look for new files at each request.
WHITENOISE_AUTOREFRESH = True
REST_FRAMEWORK = {**REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"login": "1000/min"}}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A test database in a file, not Django's shared in-memory one: the browser tests' live
    # server answers from several threads, and on the shared in-memory database they share one
    # connection, so a reload meeting the page's poll fails with "database table is locked" (a
    # 500). With a file each thread has its own connection and waits for the other's write
    # (settings.py's timeout). Memory-backed where the machine has /dev/shm; one per process.
    import tempfile

    _folder = "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
    DATABASES["default"]["TEST"] = {"NAME": os.path.join(_folder, f"kortos-test-{os.getpid()}.sqlite3")}  # noqa: F405
