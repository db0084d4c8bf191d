"""Scoring endpoints under /api/ (standings, ledger, settlement, leaderboard, summary)."""

from django.urls import path

from web.api import rating_history, seasons
from web.api import scoring as api
from web.api import summary as summary_api

urlpatterns: list = [
    path("sessions/<int:pk>/standings/", api.StandingsView.as_view(), name="api-session-standings"),
    path("sessions/<int:pk>/ledger/", api.LedgerView.as_view(), name="api-session-ledger"),
    path("sessions/<int:pk>/settlement/", api.SettlementView.as_view(), name="api-session-settlement"),
    path("clubs/<slug:slug>/leaderboard/", api.LeaderboardView.as_view(), name="api-club-leaderboard"),
    path("clubs/<slug:slug>/head-to-head/", api.HeadToHeadView.as_view(), name="api-club-head-to-head"),
    path("clubs/<slug:slug>/members/<int:pk>/history/", api.MemberHistoryView.as_view(), name="api-member-history"),
    path("clubs/<slug:slug>/members/<int:pk>/rating-history/", rating_history.RatingHistoryView.as_view(),
         name="api-member-rating-history"),
    path("clubs/<slug:slug>/seasons/", seasons.SeasonListView.as_view(), name="api-seasons"),
    path("seasons/<int:pk>/", seasons.SeasonTableView.as_view(), name="api-season"),
    path("seasons/<int:pk>/close/", seasons.SeasonCloseView.as_view(), name="api-season-close"),
    # The summary's state, figures and CSV, and trying again (web/api/summary.py).
    path("sessions/<int:pk>/summary/", summary_api.SessionSummaryView.as_view(), name="api-session-summary"),
    path("sessions/<int:pk>/summary/retry/", summary_api.SessionSummaryRetryView.as_view(),
         name="api-session-summary-retry"),
]
