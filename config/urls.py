from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI's own stylesheet draws its icons from data: URLs; its script is a file of its own.
    path("api/docs/", csp_update({"img-src": ["data:"]})(SpectacularSwaggerSplitView.as_view(url_name="schema")),
         name="api-docs"),
    path("api/", include("web.api.urls")),
    path("api/", include("web.api.scoring_urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("web.pages.summary")),
    path("", include("web.urls_scoring")),
    path("", include("web.urls")),
]

# The API answers unknown addresses, unreadable requests and crashes in its one error format.
handler400 = "web.api.errors.bad_request"
handler404 = "web.api.errors.not_found"
handler500 = "web.api.errors.server_error"
