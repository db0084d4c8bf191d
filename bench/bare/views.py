"""The baseline: a DRF view with the project's default authentication (token) and permission
(signed in), which stores the request body as one row and answers 201, nothing else."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .models import BareRow


class BareInsertView(APIView):
    def post(self, request: Request) -> Response:
        row = BareRow.objects.create(payload=request.data)
        return Response({"id": row.pk}, status=201)
