"""The watchers' polls: a screen sends back the version it shows (``If-None-Match``)
and hears 304, nothing rendered, while nothing changed; outsiders hear 404 whatever they send."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from referee import selectors, services
from referee.models import Deal, Member, Session
from scoring.models import SessionSummary

from .conftest import record

pytestmark = pytest.mark.django_db

END = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6]}
PLACE = {"type": "place", "player": 0}


def _live(deal: Deal) -> str:
    return f"/deals/{deal.pk}/live/"


def test_nothing_changed_is_a_304_in_one_statement_after_sign_in(
    page: Any, start: Any, club_setup: dict, django_assert_num_queries: Any
) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    record(deal, club_setup["users"]["scorer"], PLACE)
    watcher = page(club_setup["users"]["member"])
    first = watcher.get(_live(deal))
    assert first.status_code == 200
    assert first["ETag"] == f'W/"{first["X-Deal-Version"]}"'
    assert f'data-version="{first["X-Deal-Version"]}"' in first.content.decode()
    # The signed-in session and its user (Django's two), then the poll's one statement.
    with django_assert_num_queries(3):
        again = watcher.get(_live(deal), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == first["ETag"]
    assert again["X-Running-Deal"] == str(deal.pk)
    assert again["Cache-Control"] == "private, no-cache"
    # The screen's own data-version, sent as a strong tag, is the same version.
    strong = watcher.get(_live(deal), HTTP_IF_NONE_MATCH=f'"{first["X-Deal-Version"]}"')
    assert strong.status_code == 304


def test_a_change_answers_200_with_the_new_screen(page: Any, start: Any, club_setup: dict) -> None:
    scorer = club_setup["users"]["scorer"]
    deal = start("cheat", ["admin", "scorer", "member"])
    watcher = page(club_setup["users"]["member"])
    seen = watcher.get(_live(deal))["ETag"]
    assert watcher.get(_live(deal), HTTP_IF_NONE_MATCH=seen).status_code == 304
    record(deal, scorer, PLACE)
    changed = watcher.get(_live(deal), HTTP_IF_NONE_MATCH=seen)
    assert changed.status_code == 200
    assert "Ona placed a card and announced A." in changed.content.decode()
    assert changed["ETag"] != seen
    # Undo: the same row count, a lower seq; record again: the same seq, one row more.
    services.entry_undo(deal_id=deal.pk, user=scorer)
    undone = watcher.get(_live(deal), HTTP_IF_NONE_MATCH=changed["ETag"])
    assert undone.status_code == 200
    assert "Ona placed a card" not in undone.content.decode()
    record(deal, scorer, PLACE)
    again = watcher.get(_live(deal), HTTP_IF_NONE_MATCH=undone["ETag"])
    assert again.status_code == 200
    assert again["ETag"] not in (seen, changed["ETag"], undone["ETag"])
    # A correction keeps seq and adds a row.
    services.entry_correct(deal_id=deal.pk, seq=1, payload={"type": "place", "player": 0}, user=scorer)
    corrected = watcher.get(_live(deal), HTTP_IF_NONE_MATCH=again["ETag"])
    assert corrected.status_code == 200
    assert corrected["ETag"] != again["ETag"]


def test_the_screens_of_earlier_table_js_get_204_for_their_version(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    watcher = page(club_setup["users"]["member"])
    version = watcher.get(_live(deal))["X-Deal-Version"]
    assert watcher.get(f"{_live(deal)}?v={version}").status_code == 204
    record(deal, club_setup["users"]["scorer"], PLACE)
    assert watcher.get(f"{_live(deal)}?v={version}").status_code == 200


def test_another_clubs_deal_is_a_404_whether_or_not_it_changed(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    insider = page(club_setup["users"]["member"])
    tag = insider.get(_live(deal))["ETag"]
    outsider = page(club_setup["users"]["outsider"])
    answers = []
    for sent in (tag, 'W/"0.0.running.open"', "*", None):
        headers = {"HTTP_IF_NONE_MATCH": sent} if sent else {}
        response = outsider.get(_live(deal), **headers)
        answers.append((response.status_code, response.content, response.get("ETag"), response.get("X-Running-Deal")))
    record(deal, club_setup["users"]["scorer"], PLACE)
    response = outsider.get(_live(deal), HTTP_IF_NONE_MATCH=tag)
    answers.append((response.status_code, response.content, response.get("ETag"), response.get("X-Running-Deal")))
    assert {answer[0] for answer in answers} == {404}
    assert len(set(answers)) == 1  # the same answer, changed or not, tag or none
    # A member who left the club is an outsider too; a deal that does not exist looks the same.
    Member.objects.filter(user=club_setup["users"]["member"]).update(active=False)
    assert insider.get(_live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 404
    assert insider.get("/deals/9223372036854775807/live/").status_code == 404
    assert insider.get("/deals/9223372036854775808/live/").status_code == 404


def test_a_superuser_watches_any_club(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    root = get_user_model().objects.create_superuser("root", password="pass-word-123")
    watcher = page(root)
    tag = watcher.get(_live(deal))["ETag"]
    assert watcher.get(_live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 304


def test_a_finished_deals_watchers_are_told_the_next_deal(page: Any, start: Any, club_setup: dict) -> None:
    scorer = club_setup["users"]["scorer"]
    deal = start("velnias", ["admin", "scorer", "member"])
    watcher = page(club_setup["users"]["member"])
    record(deal, scorer, END)
    finished = watcher.get(_live(deal))
    assert finished.status_code == 200 and finished["X-Running-Deal"] == ""
    following = services.deal_start(session=deal.session, user=scorer)
    # The finished deal is as it was (304), and the answer names the deal the table moved to.
    moved = watcher.get(_live(deal), HTTP_IF_NONE_MATCH=finished["ETag"])
    assert moved.status_code == 304
    assert moved["X-Running-Deal"] == str(following.pk)


def test_closing_the_session_changes_a_finished_deals_screen(page: Any, start: Any, club_setup: dict) -> None:
    scorer = club_setup["users"]["scorer"]
    deal = start("velnias", ["admin", "scorer", "member"])
    record(deal, scorer, END)
    watcher = page(club_setup["users"]["member"])
    tag = watcher.get(_live(deal))["ETag"]
    services.session_close(session=deal.session, user=scorer)
    assert watcher.get(_live(deal), HTTP_IF_NONE_MATCH=tag).status_code == 200


def test_the_session_poll(page: Any, start: Any, club_setup: dict, django_assert_num_queries: Any) -> None:
    scorer = club_setup["users"]["scorer"]
    deal = start("velnias", ["admin", "scorer", "member"])
    url = f"/sessions/{deal.session_id}/live/"
    watcher = page(club_setup["users"]["member"])
    first = watcher.get(url)
    assert first.status_code == 200
    assert first["ETag"] == f'W/"{first["X-Version"]}"'
    with django_assert_num_queries(3):
        same = watcher.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert same.status_code == 304 and same.content == b""
    assert watcher.get(f"{url}?v={first['X-Version']}").status_code == 204
    record(deal, scorer, END)
    finished = watcher.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert finished.status_code == 200
    assert "Deal 1 is being played: 0 entries so far." in first.content.decode()
    assert "Deal 1 is being played" not in finished.content.decode()
    services.entry_undo(deal_id=deal.pk, user=scorer)
    record(deal, scorer, END)  # the same seqs' sum as before the undo, one entry row more
    redone = watcher.get(url, HTTP_IF_NONE_MATCH=finished["ETag"])
    assert redone.status_code == 200
    services.session_close(session=deal.session, user=scorer)
    closed = watcher.get(url, HTTP_IF_NONE_MATCH=redone["ETag"])
    assert closed.status_code == 200
    # Summary progress shows too.
    SessionSummary.objects.filter(session_id=deal.session_id).update(progress=50)
    assert watcher.get(url, HTTP_IF_NONE_MATCH=closed["ETag"]).status_code == 200
    outsider = page(club_setup["users"]["outsider"])
    assert outsider.get(url, HTTP_IF_NONE_MATCH=closed["ETag"]).status_code == 404
    assert outsider.get(url).status_code == 404
    assert page().get(url).status_code == 403


def test_the_poll_statements_name_the_models_tables_and_columns() -> None:
    def table(model: Any) -> str:
        return str(model._meta.db_table)

    def column(model: Any, name: str) -> str:
        return str(model._meta.get_field(name).column)

    for sql in (selectors.DEAL_POLL_SQL, selectors.SESSION_POLL_SQL):
        assert f"{table(Member)} m WHERE m.{column(Member, 'club')} = s.{column(Session, 'club')}" in sql
        assert f"m.{column(Member, 'user')} = %s AND m.{column(Member, 'active')}" in sql
    assert f"{table(Deal)} r WHERE r.{column(Deal, 'session')} = d.{column(Deal, 'session')}" in selectors.DEAL_POLL_SQL
    assert f"{table(Session)} s ON s.id = d.{column(Deal, 'session')}" in selectors.DEAL_POLL_SQL
    for name in ("seq", "status", "revision"):
        assert f"d.{column(Deal, name)}" in selectors.DEAL_POLL_SQL
    summary = table(SessionSummary)
    for name in ("state", "progress"):
        assert f"u.{column(SessionSummary, name)} FROM {summary} u WHERE u.{column(SessionSummary, 'session')}" in (
            selectors.SESSION_POLL_SQL)
    assert f"d.{column(Deal, 'finished_at')}" in selectors.SESSION_POLL_SQL


def test_the_poll_and_the_screen_agree_on_the_version(start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    record(deal, club_setup["users"]["scorer"], PLACE, {"type": "place", "player": 1})
    poll = selectors.deal_poll(club_setup["users"]["member"], deal.pk)
    loaded = Deal.objects.select_related("session").get(pk=deal.pk)
    assert poll is not None and poll.version == selectors.deal_version(loaded) == "2.2.running.open"
    assert poll.role == "member" and poll.running_deal == deal.pk
    session_poll = selectors.session_poll(club_setup["users"]["member"], deal.session_id)
    assert session_poll is not None and session_poll.version == selectors.session_version(deal.session_id)


def test_watchers_share_one_rendering_per_version_and_scorers_never(
    page: Any, start: Any, club_setup: dict, django_assert_num_queries: Any
) -> None:
    from django.core.cache import cache

    cache.clear()
    deal = start("cheat", ["admin", "scorer", "member"])
    record(deal, club_setup["users"]["scorer"], PLACE)
    watcher = page(club_setup["users"]["member"])
    first = watcher.get(_live(deal))
    second_phone = page(club_setup["users"]["member"])
    # Sign-in's two queries and the poll's statement: the screen comes from the shared rendering.
    with django_assert_num_queries(3):
        shared = second_phone.get(_live(deal))
    assert shared.status_code == 200 and shared.content == first.content
    assert shared["ETag"] == first["ETag"]
    # In another language, another rendering.
    lithuanian = page(club_setup["users"]["member"], language="lt").get(_live(deal))
    assert lithuanian.content != first.content
    # Each scorer's copy carries its own entry key: rendered for each, never shared.
    scorer = page(club_setup["users"]["scorer"])
    one, two = scorer.get(_live(deal)).content.decode(), scorer.get(_live(deal)).content.decode()
    assert 'name="idempotency_key"' in one and one != two
    assert 'name="idempotency_key"' not in first.content.decode()
    # A new entry: a new version, rendered anew.
    record(deal, club_setup["users"]["scorer"], {"type": "place", "player": 1})
    moved = second_phone.get(_live(deal), HTTP_IF_NONE_MATCH=first["ETag"])
    assert moved.status_code == 200 and "Jonas placed a card" in moved.content.decode()


def test_a_correction_carried_into_the_running_deal_changes_its_screen(
    page: Any, start: Any, club_setup: dict
) -> None:
    """Correcting which prize card was taken in a finished Mičiganas deal changes the chips the
    running next deal carries, though none of its entries changes: its screen and its
    watchers' poll show the new board (the version counted entry rows, and both kept the old one)."""
    scorer = club_setup["users"]["scorer"]
    first = start("michigan", ["admin", "scorer", "member"])
    record(first, scorer, {"type": "prize", "card": "AS", "player": 1},
           {"type": "out", "player": 0, "hand_counts": [0, 3, 4]})
    second = services.deal_start(session=first.session, user=scorer)
    watcher = page(club_setup["users"]["member"])
    seen = watcher.get(_live(second))
    # The ace's 4 chips were taken; the other three cards carried 4 each, and the antes add 4.
    assert re.findall(r'class="chips">(\d+)<', seen.content.decode()) == ["4", "8", "8", "8"]

    services.entry_correct(deal_id=first.pk, seq=1, payload={"type": "prize", "card": "KC", "player": 1},
                           user=scorer)

    changed = watcher.get(_live(second), HTTP_IF_NONE_MATCH=seen["ETag"])
    assert changed.status_code == 200
    assert re.findall(r'class="chips">(\d+)<', changed.content.decode()) == ["8", "4", "8", "8"]
    screen = page(scorer).get(f"/deals/{second.pk}/").content.decode()
    board = screen[screen.index('class="prize-board"'):screen.index("</section>")]
    assert re.findall(r'class="chips">(\d+)<', board) == ["8", "4", "8", "8"]
