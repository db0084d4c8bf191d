"""The watchers' 304 from the cache (nearly free), and still exact: every change a
poll must hear of (entries, undo, deal start and finish, closing, a member's access, signing
out) reaches the next poll, never a stale 304.

These tests commit for real (``transaction=True``): the cache learns of a change after its
commit, and a test wrapped in one transaction would never commit. The memory cache is shared by
the one test process, so the fast path is switched on (``POLL_FAST_304``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from referee import services
from referee.models import Member, Role
from web import poll_cache, presence

from .conftest import record

pytestmark = pytest.mark.django_db(transaction=True)

PLACE = {"type": "place", "player": 0}


@pytest.fixture(autouse=True)
def _fast(settings: Any) -> None:
    settings.POLL_FAST_304 = True
    cache.clear()


def live(deal: Any) -> str:
    """The poll address the scorer's screen uses (deal.html's data-live-url): it names the session."""
    return f"/deals/{deal.pk}/live/?s={deal.session_id}"


def watch(client: Client, deal: Any) -> Any:
    """The screen's first look (the exact way: it hands out the watch cookie)."""
    first = client.get(live(deal))
    assert first.status_code == 200 and poll_cache.COOKIE in first.cookies
    return first


def test_nothing_changed_is_a_304_without_any_query(
    page: Any, start: Any, club_setup: dict, django_assert_num_queries: Any
) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    record(deal, club_setup["users"]["scorer"], PLACE)
    watcher = page(club_setup["users"]["member"])
    first = watch(watcher, deal)
    cookie = first.cookies[poll_cache.COOKIE]
    assert cookie["httponly"] and cookie["path"] == "/deals/" and cookie["samesite"] == "Lax"
    with django_assert_num_queries(0):
        again = watcher.get(live(deal), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    assert again["X-Running-Deal"] == str(deal.pk) and again["Cache-Control"] == "private, no-cache"
    # Without a validator, or with another version: the exact way.
    assert watcher.get(live(deal), HTTP_IF_NONE_MATCH='W/"9.9.running.open"').status_code == 200


def test_a_scorers_304_from_the_cache_keeps_the_device_present(
    page: Any, start: Any, club_setup: dict, django_assert_num_queries: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    jonas, ona = page(club_setup["users"]["scorer"]), page(club_setup["users"]["admin"])
    clock = presence.time.time()
    monkeypatch.setattr(presence.time, "time", lambda: clock)
    watch(ona, deal)
    first = jonas.get(live(deal))
    tag = jonas.get(live(deal), HTTP_IF_NONE_MATCH=first["ETag"])["ETag"]  # now with its watch cookie
    ona_tag = ona.get(live(deal))["ETag"]
    for step in range(1, 6):  # half a minute of polls, all from the cache
        monkeypatch.setattr(presence.time, "time", lambda step=step: clock + step * presence.POLL_SECONDS)
        with django_assert_num_queries(0):
            assert jonas.get(live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 304
        with django_assert_num_queries(0):
            assert ona.get(live(deal), HTTP_IF_NONE_MATCH=ona_tag).status_code == 304
    # Ona's screen stops asking: Jonas's next poll after the expiry redraws without her.
    monkeypatch.setattr(presence.time, "time", lambda: clock + 5 * presence.POLL_SECONDS + presence.EXPIRY + 1)
    alone = jonas.get(live(deal), HTTP_IF_NONE_MATCH=tag)
    assert alone.status_code == 200 and "data-presence>" not in alone.content.decode()  # the banner, not its empty box


def test_every_change_reaches_the_next_poll(page: Any, start: Any, club_setup: dict) -> None:
    scorer = club_setup["users"]["scorer"]
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    watcher = page(club_setup["users"]["member"])
    tag = watch(watcher, deal)["ETag"]

    def changed() -> str:
        moved = watcher.get(live(deal), HTTP_IF_NONE_MATCH=tag)
        assert moved.status_code == 200, "a stale 304 after a change"
        assert watcher.get(live(deal), HTTP_IF_NONE_MATCH=moved["ETag"]).status_code == 304
        return str(moved["ETag"])

    assert watcher.get(live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 304
    record(deal, scorer, {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]})
    tag = changed()
    services.entry_undo(deal_id=deal.pk, user=scorer)
    tag = changed()
    record(deal, scorer, {"type": "end", "condition": "last_card", "player": 1, "hand_counts": [3, 2, 6, 1]})
    tag = changed()
    # The next deal starts: the finished deal's version stays, its running deal moves on.
    nxt = services.deal_start(session=deal.session, user=scorer)
    follow = watcher.get(live(deal), HTTP_IF_NONE_MATCH=tag)
    assert follow.status_code == 304 and follow["X-Running-Deal"] == str(nxt.pk)
    services.deal_discard(deal=nxt, user=scorer)
    assert watcher.get(live(deal), HTTP_IF_NONE_MATCH=tag)["X-Running-Deal"] == ""
    services.session_close(session=deal.session, user=scorer)
    tag = changed()
    services.session_reopen(session=deal.session, user=scorer)
    changed()


def test_a_member_who_loses_access_hears_404_at_once(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "Petras"])  # the watcher not seated: removable
    watcher = page(club_setup["users"]["member"])
    tag = watch(watcher, deal)["ETag"]
    assert watcher.get(live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 304
    member: Member = club_setup["members"]["member"]
    member.active = False
    member.save()
    assert watcher.get(live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 404
    member.active = True
    member.save()
    assert watcher.get(live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 304
    member.delete()
    assert watcher.get(live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 404


def test_a_new_role_is_heard_at_once(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    scorer = page(club_setup["users"]["scorer"])
    first = scorer.get(live(deal))
    tag = scorer.get(live(deal), HTTP_IF_NONE_MATCH=first["ETag"])["ETag"]
    member: Member = club_setup["members"]["scorer"]
    member.role = Role.MEMBER
    member.save()
    # Now a watcher: the exact way answers, and the screen it renders has no forms.
    again = scorer.get(live(deal), HTTP_IF_NONE_MATCH='W/"0.0.running.open~x"')
    assert again.status_code == 200 and 'name="idempotency_key"' not in again.content.decode()
    assert scorer.get(live(deal), HTTP_IF_NONE_MATCH=tag).status_code in (200, 304)


def test_signing_out_or_a_new_password_ends_the_fast_answer(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    user = club_setup["users"]["member"]
    phone, tablet = page(user), page(user)
    tag = watch(phone, deal)["ETag"]
    watch(tablet, deal)
    assert phone.get(live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 304
    # Signing out on the tablet: the phone's session still holds, its next answer is exact.
    tablet.post("/logout/")
    assert phone.get(live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 304
    user.set_password("another-pass-456")
    user.save()
    answer = phone.get(live(deal), HTTP_IF_NONE_MATCH=tag)
    assert answer.status_code == 302 and "/login/" in answer["Location"]


def test_a_watch_cookie_is_no_good_elsewhere_or_altered(
    page: Any, start: Any, club_setup: dict, django_assert_max_num_queries: Any
) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    watcher = page(club_setup["users"]["member"])
    first = watch(watcher, deal)
    stolen = first.cookies[poll_cache.COOKIE].value
    # Another signed-in session with the member's cookie: its signature names another session.
    other = page(club_setup["users"]["outsider"])
    other.cookies[poll_cache.COOKIE] = stolen
    assert other.get(live(deal), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 404
    # The role altered in the cookie: the signature fails, the exact way answers.
    parts = stolen.split(".")
    parts[2] = "admin"
    watcher.cookies[poll_cache.COOKIE] = ".".join(parts)
    with django_assert_max_num_queries(10) as exact:
        assert watcher.get(live(deal), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    assert len(exact.captured_queries) >= 3
    # A signed-out client with a watch cookie: sent to sign in.
    anonymous = Client()
    anonymous.cookies[poll_cache.COOKIE] = stolen
    assert anonymous.get(live(deal), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 302


def test_a_version_read_before_a_change_commits_is_never_served(start: Any, club_setup: dict) -> None:
    """The race of a poll and an entry: the poll reads the stamps, its statement sees the deal
    before the entry, the entry commits and renews the generation, then the poll stores what it
    saw. That stored version is under the old generation: no later poll takes it."""
    deal = start("cheat", ["admin", "scorer", "member"])
    club_id = club_setup["club"].pk
    user = club_setup["users"]["member"]
    seen = poll_cache.stamps(deal.pk, deal.session_id, user.pk, club_id)
    record(deal, club_setup["users"]["scorer"], PLACE)  # commits, renews the generation
    poll_cache.remember(deal.pk, seen, "0.0.running.open", deal.pk, club_id, deal.session_id)
    stored = cache.get(poll_cache.poll_key(deal.pk))
    assert stored[0] != cache.get(poll_cache.gen_key(deal.pk))


def test_the_fast_answer_needs_a_cache_every_process_shares(settings: Any) -> None:
    settings.POLL_FAST_304 = None
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert not poll_cache.enabled()
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:6379/5"}}
    assert poll_cache.enabled()


def test_a_poll_naming_no_session_or_another_goes_the_exact_way(
    page: Any, start: Any, club_setup: dict, django_assert_max_num_queries: Any
) -> None:
    """The fast way reads the session's generation by the session the address names; an
    address without one, or naming another session (a deal moved nowhere: a forged or stale
    address), is answered by the database, and still right."""
    deal = start("cheat", ["admin", "scorer", "member"])
    other = start("cheat", ["admin", "scorer", "member"])
    watcher = page(club_setup["users"]["member"])
    tag = watch(watcher, deal)["ETag"]
    assert other.session_id != deal.session_id
    for address in (f"/deals/{deal.pk}/live/", f"/deals/{deal.pk}/live/?s={other.session_id}",
                    f"/deals/{deal.pk}/live/?s=x", f"/deals/{deal.pk}/live/?s=" + "9" * 40):
        with django_assert_max_num_queries(20) as queries:
            answer = watcher.get(address, HTTP_IF_NONE_MATCH=tag)
        assert answer.status_code == 304 and len(queries) > 0, address
