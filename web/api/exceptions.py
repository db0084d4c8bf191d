"""The API's own exception beside DRF's, in a module of its own: the parser (loaded by DRF's
settings while ``rest_framework.views`` is still importing) and the error handler both need it."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from rest_framework import exceptions, status


class BodyTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = gettext_lazy("The request body is larger than this service takes.")
    default_code = "too_large"
