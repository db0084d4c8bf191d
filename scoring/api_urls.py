"""Scoring endpoints under /api/ (standings, ledger, settlement, leaderboard, summary)."""

from django.urls import path

urlpatterns: list = []
