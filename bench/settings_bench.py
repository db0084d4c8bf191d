"""Settings for the API benchmark only: the product's settings plus the bare comparison app.

``bench/bench_api.py`` runs gunicorn with these, against its own PostgreSQL database. DEBUG
stays off (as in production, so no query log grows), and the throwaway key and plain HTTP
are allowed because the server listens on the loopback only.
"""

import os

os.environ.setdefault("ALLOW_INSECURE_KEY", "1")
os.environ.setdefault("SECURE_BEHIND_TLS", "0")

from config.settings import *  # noqa: E402,F403
from config.settings import INSTALLED_APPS  # noqa: E402

DEBUG = False
INSTALLED_APPS = [*INSTALLED_APPS, "bench.bare"]
ROOT_URLCONF = "bench.urls"
