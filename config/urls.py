from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include("referee.api.urls")),
    path("api/", include("scoring.api_urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("scoring.summary_views")),
    path("", include("scoring.urls")),
    path("", include("referee.urls")),
]

# The API answers unknown addresses, unreadable requests and crashes in its one error format.
handler400 = "referee.api.errors.bad_request"
handler404 = "referee.api.errors.not_found"
handler500 = "referee.api.errors.server_error"
