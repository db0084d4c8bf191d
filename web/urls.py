"""Pages (server-rendered): sign in, clubs, sessions, the recording screens (scoring's boards: web/urls_scoring.py)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from web import content_policy
from web.pages import (
    app_shell,
    club,
    corrections,
    deal_start,
    evenings,
    invitation,
    members,
    recording,
    session,
    session_start,
)
from web.pages import audit as audit_views
from web.pages import chain as chain_views
from web.pages.login import RateLimitedLoginView

urlpatterns = [
    path("login/", RateLimitedLoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", club.home, name="home"),
    path("healthz", club.healthz, name="healthz"),
    path("csp-report/", content_policy.csp_report, name="csp-report"),
    path("sw.js", app_shell.service_worker, name="service-worker"),
    path("manifest.webmanifest", app_shell.web_manifest, name="web-manifest"),
    path("offline/", app_shell.offline_page, name="offline"),
    path("clubs/<slug:slug>/", club.club_page, name="club"),
    path("clubs/<slug:slug>/members/", members.members_page, name="club-members"),
    path("clubs/<slug:slug>/chain/", chain_views.chain_page, name="club-chain"),
    path("clubs/<slug:slug>/members/<int:pk>/manage/", members.member_page, name="club-member"),
    path("clubs/<slug:slug>/members/<int:pk>/manage/active/", members.member_active, name="club-member-active"),
    path("clubs/<slug:slug>/members/<int:pk>/manage/invitation/", members.member_invite, name="club-member-invite"),
    path("invitation/", invitation.invitation_code, name="invitation-code"),
    path("invitation/<str:code>/", invitation.invitation_page, name="invitation"),
    path("clubs/<slug:slug>/sessions/new/", session_start.session_new, name="session-new"),
    path("clubs/<slug:slug>/evenings/new/", evenings.evening_new, name="evening-new"),
    path("evenings/<int:pk>/", evenings.evening_page, name="evening"),
    path("evenings/<int:pk>/wall/", evenings.evening_wall, name="evening-wall"),
    path("evenings/<int:pk>/tables/<int:number>/", evenings.evening_table, name="evening-table"),
    path("evenings/<int:pk>/arrive/", evenings.evening_arrive, name="evening-arrive"),
    path("evenings/<int:pk>/leave/", evenings.evening_leave, name="evening-leave"),
    path("evenings/<int:pk>/draw/", evenings.evening_draw, name="evening-draw"),
    path("evenings/<int:pk>/swap/", evenings.evening_swap, name="evening-swap"),
    path("evenings/<int:pk>/start/", evenings.evening_start, name="evening-start"),
    path("evenings/<int:pk>/close/", evenings.evening_close, name="evening-close"),
    path("sessions/<int:pk>/", session.session_page, name="session"),
    path("sessions/<int:pk>/live/", session.session_live, name="session-live"),
    path("sessions/<int:pk>/audit/", audit_views.audit_page, name="session-audit"),
    path("sessions/<int:pk>/deals/new/", deal_start.deal_new, name="deal-new"),
    path("sessions/<int:pk>/close/", session.session_close, name="session-close"),
    path("sessions/<int:pk>/reopen/", session.session_reopen, name="session-reopen"),
    path("sessions/<int:pk>/seats/", session.session_seat, name="session-seat"),
    path("sessions/<int:pk>/plan/", session.session_plan, name="session-plan"),
    path("sessions/<int:pk>/play-on/", session.session_play_on, name="session-play-on"),
    path("deals/<int:pk>/", recording.deal_page, name="deal"),
    path("deals/<int:pk>/live/", recording.deal_live, name="deal-live"),
    path("deals/<int:pk>/preview/", recording.deal_preview, name="deal-preview"),
    path("deals/<int:pk>/entries/<int:seq>/correct/", corrections.entry_correct_page, name="entry-correct"),
]
