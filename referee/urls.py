"""Pages (server-rendered). The recording screens and club pages are added in views.py."""

from django.contrib.auth import views as auth_views
from django.urls import path

from . import views
from .login import RateLimitedLoginView

urlpatterns = [
    path("login/", RateLimitedLoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
]
