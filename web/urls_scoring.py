"""Scoring's pages: the club's leaderboard and a member's history (the API's are in api_urls)."""

from django.urls import path

from web.pages import debts, seasons
from web.pages import leaderboard as pages

urlpatterns = [
    path("clubs/<slug:slug>/leaderboard/", pages.leaderboard_page, name="leaderboard"),
    path("clubs/<slug:slug>/leaderboard/settings/", pages.rating_settings, name="rating-settings"),
    path("clubs/<slug:slug>/members/<int:member_id>/", pages.member_page, name="member"),
    path("clubs/<slug:slug>/debts/", debts.debts_page, name="debts"),
    path("clubs/<slug:slug>/seasons/", seasons.seasons_page, name="seasons"),
    path("seasons/<int:pk>/", seasons.season_page, name="season"),
    path("seasons/<int:pk>/close/", seasons.season_close, name="season-close"),
    path("seasons/<int:pk>/division/", seasons.season_division, name="season-division"),
    path("clubs/<slug:slug>/debts/pay/", debts.payment_mark, name="payment-mark"),
    path("clubs/<slug:slug>/debts/payments/<int:pk>/reverse/", debts.payment_reverse, name="payment-reverse"),
]
