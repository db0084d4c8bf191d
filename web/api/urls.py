from django.urls import path

from web.api import engine, evenings, tablet_version, views

urlpatterns = [
    path("auth/token/", views.TokenView.as_view(), name="api-token"),
    path("engine/", engine.EngineVersionView.as_view(), name="api-engine"),
    path("clubs/", views.ClubListView.as_view(), name="api-clubs"),
    path("clubs/<slug:slug>/", views.ClubDetailView.as_view(), name="api-club"),
    path("clubs/<slug:slug>/members/", views.MemberListView.as_view(), name="api-members"),
    path("clubs/<slug:slug>/members/<int:pk>/", views.MemberDetailView.as_view(), name="api-member"),
    path("clubs/<slug:slug>/evenings/", evenings.EveningListView.as_view(), name="api-evenings"),
    path("evenings/<int:pk>/", evenings.EveningDetailView.as_view(), name="api-evening"),
    path("evenings/<int:pk>/arrivals/", evenings.EveningArriveView.as_view(), name="api-evening-arrive"),
    path("evenings/<int:pk>/departures/", evenings.EveningLeaveView.as_view(), name="api-evening-leave"),
    path("evenings/<int:pk>/rounds/", evenings.EveningDrawView.as_view(), name="api-evening-draw"),
    path("evenings/<int:pk>/close/", evenings.EveningCloseView.as_view(), name="api-evening-close"),
    path("evenings/<int:pk>/standings/", evenings.EveningStandingsView.as_view(), name="api-evening-standings"),
    path("rounds/<int:pk>/swap/", evenings.RoundSwapView.as_view(), name="api-round-swap"),
    path("rounds/<int:pk>/start/", evenings.RoundStartView.as_view(), name="api-round-start"),
    path("sessions/", views.SessionListView.as_view(), name="api-sessions"),
    path("sessions/<int:pk>/", views.SessionDetailView.as_view(), name="api-session"),
    path("sessions/<int:pk>/deals/", views.SessionDealsView.as_view(), name="api-session-deals"),
    path("sessions/<int:pk>/close/", views.SessionCloseView.as_view(), name="api-session-close"),
    path("sessions/<int:pk>/reopen/", views.SessionReopenView.as_view(), name="api-session-reopen"),
    path("sessions/<int:pk>/seats/", views.SessionSeatView.as_view(), name="api-session-seats"),
    path("sessions/<int:pk>/audit/", views.SessionAuditView.as_view(), name="api-session-audit"),
    path("deals/<int:pk>/", views.DealDetailView.as_view(), name="api-deal"),
    path("deals/<int:pk>/entries/", engine.versioned(views.DealEntriesView.as_view()), name="api-deal-entries"),
    path("deals/<int:pk>/entries/<int:seq>/", views.EntryCorrectView.as_view(), name="api-entry-correct"),
    path("deals/<int:pk>/undo/", views.DealUndoView.as_view(), name="api-deal-undo"),
    path("deals/<int:pk>/tablet-version/", tablet_version.TabletVersionView.as_view(), name="api-deal-tablet-version"),
]
