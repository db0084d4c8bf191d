"""The product's URLs plus the bare endpoint the benchmark compares the entry endpoint with."""

from django.urls import include, path

from bench.bare.views import BareInsertView

urlpatterns = [
    path("bench/bare/", BareInsertView.as_view(), name="bench-bare"),
    path("", include("config.urls")),
]
