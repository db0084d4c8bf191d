"""Settings, all from environment variables.

Embedded defaults (nothing set): SQLite under ./var and Celery tasks run in-process right
after the transaction commits, so ``make run`` needs nothing but Python. Production sets
``DATABASE_URL`` (PostgreSQL through psycopg 3), ``CELERY_BROKER_URL`` (Redis),
``SECRET_KEY`` and ``ALLOWED_HOSTS``; ``DEBUG`` is off unless asked for.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


DEBUG = env_bool("DEBUG")
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and not env_bool("ALLOW_INSECURE_KEY"):
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"  # noqa: S105

ALLOWED_HOSTS = [h.strip() for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    # The floors, each importing only from the ones above it in this list's order reversed:
    # the referee (and its pure rules), club nights, scoring, and the web on top (pages, API,
    # exports).
    "referee",
    "evenings",
    "scoring",
    "web",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Outside WhiteNoise, so that the static files carry the policy too: a worker's script
    # (the offline engine's) runs under the policy of its own response, not the page's.
    "web.content_policy.ContentPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # After the locale (its refusals speak the client's language), before anything reads input.
    "web.middleware.RefuseUnreadableInput",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Two tablets writing at once wait for each other instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].update({"timeout": 20, "transaction_mode": "IMMEDIATE"})
    DATABASES["default"]["CONN_MAX_AGE"] = 0
elif os.environ.get("SERVER_SIDE_BINDING", "1") == "1":
    # PostgreSQL plans a statement it is sent with its values bound in at every execution;
    # bound on the server, psycopg prepares it after five executions on a connection and it is
    # planned once: about half the backend CPU of an ORM read, and on the hot path's deal lock
    # what db.prepared's cursor already gives (bench/bench_binding.py; docs/measurements.md).
    # SERVER_SIDE_BINDING=0 turns it off (a pooler without prepared statements).
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].update({"server_side_binding": True, "prepare_threshold": 5})
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "lt"
LANGUAGES = [("lt", _("Lithuanian")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Vilnius")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
#: What the site serves from node_modules (`npm ci` installs it, package-lock.json pins it with
#: its integrity hash; never a CDN): the folder under STATIC_URL -> the package's own files.
#: The tablet's scripts import these as modules; the service worker keeps them (app_shell).
VENDOR_STATIC = {
    f"vendor/{package}": BASE_DIR / "node_modules" / package / "build"
    for package in ("idb", "workbox-core", "workbox-strategies")
}
#: Of those, the modules the pages load (the rest of a package's folder is never asked for).
VENDOR_MODULES = ["vendor/idb/index.js"]
#: And the scripts the service worker loads (Workbox's classic builds, in dependency order).
WORKBOX_SCRIPTS = [
    "vendor/workbox-core/workbox-core.prod.js",
    "vendor/workbox-strategies/workbox-strategies.prod.js",
]
STATICFILES_DIRS = [BASE_DIR / "static", *VENDOR_STATIC.items()]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "staticfiles"))
# WhiteNoise serves from the app directories (finders) until collectstatic fills this; it
# only has to exist.
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
MEDIA_URL = "/media/"
# Serve static files straight from the app directories (no collectstatic needed to run).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": os.environ["CACHE_URL"]}
        if os.environ.get("CACHE_URL")
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "web.api.authentication.TokenAuthentication",  # REST framework's, one literal statement on PostgreSQL
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "web.api.errors.exception_handler",
    # JSON within the size limit, nesting, NUL and infinities checked (web/api/parsers.py).
    "DEFAULT_PARSER_CLASSES": [
        "web.api.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_THROTTLE_RATES": {"login": os.environ.get("LOGIN_RATE", "10/min")},
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Kortų teisėjas API",
    "DESCRIPTION": (
        "Referee and scorekeeper for the club's card games, played with real cards. "
        'Every error is {"error": "<message a person understands>", "code": "<stable code>"} (plus "fields" '
        "for form errors); clients branch on `code`, listed in the Error schema. Request bodies are JSON "
        "objects of at most 2.5 MB, nested at most 32 levels, with no NUL character (\\u0000) in any text and "
        "no query parameter holding one; anything else is refused (400, or 413 when too large)."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # The API documents JSON bodies only (forms are still read, for the browsable API's sake).
    "PARSER_WHITELIST": ["web.api.parsers.SafeJSONParser"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "web.api.schema.document_errors",
    ],
    # Sessions and deals both have a "status"; name their enums instead of a hash suffix.
    "ENUM_NAME_OVERRIDES": {
        "SessionStatusEnum": "referee.models.SessionStatus",
        "DealStatusEnum": "referee.models.DealStatus",
    },
}

# Celery: with no broker configured, tasks run eagerly in-process (after commit), which
# needs no server; with CELERY_BROKER_URL (Redis) a real worker runs them.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task leaves the message to be redelivered
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
# Session summaries (scoring.tasks): a failed build is retried SUMMARY_MAX_RETRIES times,
# waiting SUMMARY_RETRY_BACKOFF seconds, then doubling; then it shows as failed, with a way to
# try again. SUMMARY_QUEUE sends them to a queue of their own (workers then need -Q with it).
SUMMARY_MAX_RETRIES = int(os.environ.get("SUMMARY_MAX_RETRIES", "3"))
SUMMARY_RETRY_BACKOFF = float(os.environ.get("SUMMARY_RETRY_BACKOFF", "2"))
SUMMARY_QUEUE = os.environ.get("SUMMARY_QUEUE", "")

# Backups (web.backups): each club's export, gzipped, written to BACKUP_DIR by the task
# web.backup_clubs, which Celery beat sends on BACKUP_SCHEDULE (a crontab line: minute hour
# day-of-month month day-of-week, in UTC; empty: no schedule, e.g. when the host's cron runs
# manage.py backup_clubs instead). The newest BACKUP_KEEP files of each club are kept.
BACKUP_DIR = Path(os.environ.get("BACKUP_DIR", VAR_DIR / "backups"))
BACKUP_KEEP = int(os.environ.get("BACKUP_KEEP", "14"))
BACKUP_SCHEDULE = os.environ.get("BACKUP_SCHEDULE", "30 3 * * *").strip()
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {}
if BACKUP_SCHEDULE:
    if len(BACKUP_SCHEDULE.split()) != 5:
        raise ImproperlyConfigured(
            f"BACKUP_SCHEDULE is “{BACKUP_SCHEDULE}”: it takes a crontab line of five fields, minute hour "
            "day-of-month month day-of-week, e.g. “30 3 * * *” (03:30 UTC daily), or nothing for no schedule."
        )
    minute, hour, day_of_month, month_of_year, day_of_week = BACKUP_SCHEDULE.split()
    CELERY_BEAT_SCHEDULE["backup-clubs"] = {
        "task": "web.backup_clubs",
        "schedule": crontab(minute=minute, hour=hour, day_of_month=day_of_month, month_of_year=month_of_year,
                            day_of_week=day_of_week),
    }

# Security settings that matter once DEBUG is off (manage.py check --deploy stays clean).
SECURE_BEHIND_TLS = env_bool("SECURE_BEHIND_TLS", default=not DEBUG)
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the pages' JavaScript reads it to send X-CSRFToken
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if SECURE_BEHIND_TLS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# Content-Security-Policy (django-csp; docs/content-policy.md): our own files only, no inline
# script or style anywhere, no plugins, no framing. WebAssembly compiles only in the offline
# engine's worker and Pyodide's files (web.content_policy adds 'wasm-unsafe-eval' there).
CSP_REPORT_PATH = "/csp-report/"
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "worker-src": ["'self'"],
        "manifest-src": ["'self'"],
        "frame-src": ["'none'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
        # report-uri, not report-to: Chromium ignores report-uri once report-to is there, and
        # sends the Reporting API's reports in batches, late (none within 15 s in the browser
        # tests); report-uri is sent at once by every browser. The endpoint reads both forms.
        "report-uri": [CSP_REPORT_PATH],
    },
}
#: Violation reports taken per client address a minute (web.content_policy.report).
CSP_REPORT_RATE = int(os.environ.get("CSP_REPORT_RATE", "30"))
#: Powerful features no page here uses, refused to the pages and to anything they might embed.
PERMISSIONS_POLICY = (
    "accelerometer=(), autoplay=(), camera=(), display-capture=(), encrypted-media=(), fullscreen=(), "
    "geolocation=(), gyroscope=(), hid=(), magnetometer=(), microphone=(), midi=(), payment=(), "
    "picture-in-picture=(), publickey-credentials-get=(), screen-wake-lock=(), serial=(), usb=(), "
    "xr-spatial-tracking=()"
)
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
