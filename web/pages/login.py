"""Sign-in with a rate limit: repeated wrong passwords from one address are slowed down.

Counts failures per client address and per username in the cache (Redis in production via
CACHE_URL, so all web processes share the count) for a window; past the limit the form is
refused with a plain message, without checking the password at all.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

LIMIT = getattr(settings, "LOGIN_FAILURE_LIMIT", 5)
WINDOW = getattr(settings, "LOGIN_FAILURE_WINDOW", 300)


def client_address(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR", "unknown"))


def _keys(request: HttpRequest) -> list[str]:
    username = str(request.POST.get("username", "")).strip().lower()
    return [f"login-fail:ip:{client_address(request)}", f"login-fail:user:{username}"]


def too_many_failures(request: HttpRequest) -> bool:
    return any(cache.get(key, 0) >= LIMIT for key in _keys(request))


def record_failure(request: HttpRequest) -> None:
    for key in _keys(request):
        if not cache.add(key, 1, WINDOW):
            try:
                cache.incr(key)
            except ValueError:
                cache.set(key, 1, WINDOW)


class RateLimitedLoginView(auth_views.LoginView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if too_many_failures(request):
            form = self.get_form()
            form.errors.clear()
            form.add_error(None, _("Too many failed sign-ins. Wait a few minutes and try again."))
            return self.render_to_response(self.get_context_data(form=form, locked_out=True), status=429)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: Any) -> HttpResponse:
        record_failure(self.request)
        return super().form_invalid(form)


def rate_limit_admin_login(site: Any) -> None:
    """The admin's own sign-in form counts against the same limit: otherwise it would be a
    way round it for anyone guessing passwords."""
    original = site.login

    def login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method == "POST" and too_many_failures(request):
            return HttpResponse(_("Too many failed sign-ins. Wait a few minutes and try again."), status=429,
                                content_type="text/plain; charset=utf-8")
        response = original(request, extra_context)
        # The admin re-renders the form (200) on a wrong password and redirects on success.
        if request.method == "POST" and response.status_code == 200:
            record_failure(request)
        return response

    site.login = login
