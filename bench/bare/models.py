from django.db import models


class BareRow(models.Model):
    """One inserted row per request: the baseline's whole job."""

    payload = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
