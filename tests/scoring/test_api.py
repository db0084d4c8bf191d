"""The scoring API: who may see what (401/403/404), CSV, bad queries, and the schema."""

from __future__ import annotations

import pytest

from tests.scoring.helpers import close, play, start, velnias_end

pytestmark = pytest.mark.django_db


@pytest.fixture
def evening(club_setup):
    session = start(club_setup, "velnias", ["admin", "scorer", "member"], stake="0.50")
    play(club_setup, session, [velnias_end("empty_hand", 0, [0, 4, 2])])
    play(club_setup, session, [velnias_end("empty_hand", 1, [3, 0, 2])])
    return session


SESSION_ENDPOINTS = ["standings", "ledger", "settlement"]


@pytest.mark.parametrize("endpoint", SESSION_ENDPOINTS)
def test_session_figures_need_a_signed_in_member(club_setup, api, evening, endpoint):
    url = f"/api/sessions/{evening.pk}/{endpoint}/"
    assert api().get(url).status_code == 401
    outsider = api(club_setup["users"]["outsider"]).get(url)
    assert (outsider.status_code, outsider.json()) == (404, {"error": "Not found.", "code": "not_found"})
    assert api(club_setup["users"]["member"]).get(url).status_code == 200
    missing = api(club_setup["users"]["member"]).get("/api/sessions/999999/standings/")
    assert (missing.status_code, missing.json()) == (404, {"error": "Not found.", "code": "not_found"})


def test_standings_json_and_csv(club_setup, api, evening):
    client = api(club_setup["users"]["member"])
    body = client.get(f"/api/sessions/{evening.pk}/standings/").json()
    assert [t["total"] for t in body["totals"]] == [3, 1, -4]
    response = client.get(f"/api/sessions/{evening.pk}/standings/?format=csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="session-{evening.pk}-standings.csv"'
    assert response.content.decode() == (
        "deal,Ona,Jonas,Rūta\n"
        "1,6,-4,-2\n"
        "2,-3,5,-2\n"
        "total (points),3,1,-4\n"
        "place,1,2,3\n"
        "\"money (EUR, decimal point)\",1.50,0.50,-2.00\n"
    )
    accept = client.get(f"/api/sessions/{evening.pk}/standings/", HTTP_ACCEPT="text/csv")
    assert accept.content == response.content


def test_ledger_and_settlement_csv(club_setup, api, evening):
    client = api(club_setup["users"]["member"])
    ledger = client.get(f"/api/sessions/{evening.pk}/ledger/?format=csv").content.decode()
    assert ledger == (
        "deal,from,to,stakes,reason,final\n"
        "1,Jonas,Ona,4,deal,yes\n"
        "1,Rūta,Ona,2,deal,yes\n"
        "2,Ona,Jonas,3,deal,yes\n"
        "2,Rūta,Jonas,2,deal,yes\n"
    )
    check = client.get(f"/api/sessions/{evening.pk}/ledger/?format=csv&table=check").content.decode()
    assert check == "players_net,on_prize_cards,total,ok\n0,0,0,yes\n"
    settlement = client.get(f"/api/sessions/{evening.pk}/settlement/").json()
    assert [(t["from_name"], t["to_name"], t["amount"]) for t in settlement["transfers"]] == [
        ("Rūta", "Ona", "1.50"), ("Rūta", "Jonas", "0.50"),
    ]
    text = client.get(f"/api/sessions/{evening.pk}/settlement/?format=csv").content.decode()
    assert text.splitlines()[0] == '"amount (EUR, decimal point)"'.join(["from,to,", ",explanation"])
    # The explanation writes its figures as the file does: a decimal point and a plain "-".
    assert text.splitlines()[1].startswith('Rūta,Ona,1.50,"Rūta is down 2.00 EUR: deal 1 -1.00, deal 2 -1.00. ')


def test_private_leaderboard_is_hidden_from_non_members(club_setup, api, evening):
    url = "/api/clubs/vilnius/leaderboard/?min_deals=1"
    for client in (api(), api(club_setup["users"]["outsider"])):
        response = client.get(url)
        assert (response.status_code, response.json()) == (404, {"error": "Not found.", "code": "not_found"})
    body = api(club_setup["users"]["member"]).get(url).json()
    assert [(r["name"], r["deals"], r["money"]) for r in sorted(body["ranked"], key=lambda r: r["name"])] == [
        ("Jonas", 2, "0.50"), ("Ona", 2, "1.50"), ("Rūta", 2, "-2.00"),
    ]


def test_public_leaderboard_is_open_without_money(club_setup, api, evening):
    club = club_setup["club"]
    club.public_leaderboard = True
    club.save()
    body = api().get("/api/clubs/vilnius/leaderboard/?game=velnias&min_deals=1").json()
    assert sorted((r["name"], r["points"], r["money"]) for r in body["ranked"]) == [
        ("Jonas", 1, None), ("Ona", 3, None), ("Rūta", -4, None),
    ]
    csv_text = api().get("/api/clubs/vilnius/leaderboard/?min_deals=1&format=csv").content.decode()
    assert csv_text.splitlines()[0] == ('rank,name,deals,wins,"win rate (0 to 1, decimal point)",points,'
                                        '"money (EUR, decimal point)",rating (decimal point)')
    # Names are public; money and head-to-head are not.
    assert "1.50" not in csv_text
    outsider = api(club_setup["users"]["outsider"])
    a, b = club_setup["members"]["admin"].pk, club_setup["members"]["scorer"].pk
    response = outsider.get(f"/api/clubs/vilnius/head-to-head/?a={a}&b={b}")
    assert (response.status_code, response.json()) == (
        403, {"error": "Head-to-head and member history are only for the club's members.", "code": "forbidden"})
    response = outsider.get(f"/api/clubs/vilnius/members/{a}/history/")
    assert response.status_code == 403
    assert api().get(f"/api/clubs/vilnius/members/{a}/history/").status_code == 401


def test_another_clubs_board_never_shows_this_clubs_players(club_setup, api, evening):
    outsider = api(club_setup["users"]["outsider"])
    body = outsider.get("/api/clubs/kaunas/leaderboard/?min_deals=0").json()
    assert body["ranked"] == [] and body["unranked"] == []
    ona = club_setup["members"]["admin"].pk
    darius = club_setup["members"]["outsider"].pk
    response = outsider.get(f"/api/clubs/kaunas/head-to-head/?a={darius}&b={ona}")
    assert (response.status_code, response.json()) == (
        404, {"error": f"No member {ona} in this club.", "code": "not_found"})
    response = outsider.get(f"/api/clubs/kaunas/members/{ona}/history/")
    assert (response.status_code, response.json()) == (
        404, {"error": f"No member {ona} in this club.", "code": "not_found"})


@pytest.mark.parametrize(("query", "message"), [
    ("period=week", 'period: "week" is not a valid choice.'),
    ("game=poker", 'game: "poker" is not a valid choice.'),
    ("min_deals=-1", "min_deals: Ensure this value is greater than or equal to 0."),
    ("period=custom&start=2026-13-01&end=2026-12-31",
     "start: Date has wrong format. Use one of these formats instead: YYYY-MM-DD."),
    ("period=custom&start=2026-01-01", "A custom period needs both start and end dates (YYYY-MM-DD)."),
    ("period=custom&start=2026-02-01&end=2026-01-01", "The period's start (2026-02-01) is after its end (2026-01-01)."),
])
def test_bad_leaderboard_query(club_setup, api, query, message):
    response = api(club_setup["users"]["member"]).get(f"/api/clubs/vilnius/leaderboard/?{query}")
    assert response.status_code == 400
    assert response.json()["error"] == message


def test_unknown_club_is_not_found(club_setup, api):
    response = api(club_setup["users"]["member"]).get("/api/clubs/nowhere/leaderboard/")
    assert (response.status_code, response.json()) == (404, {"error": "Not found.", "code": "not_found"})


def test_head_to_head_and_history_for_members(club_setup, api, evening):
    client = api(club_setup["users"]["member"])
    a, b = club_setup["members"]["admin"].pk, club_setup["members"]["scorer"].pk
    body = client.get(f"/api/clubs/vilnius/head-to-head/?a={a}&b={b}").json()
    # Deal 1: Jonas paid Ona 4; deal 2: Ona paid Jonas 3. Net 1 point x 0.50 to Ona.
    assert (body["deals_together"], body["a_placed_higher"], body["b_placed_higher"], body["net_money"]) == (
        2, 1, 1, "0.50")
    response = client.get(f"/api/clubs/vilnius/head-to-head/?a={a}&b=x")
    assert (response.status_code, response.json()["error"]) == (400, "b: Give a member id (a whole number).")
    history = client.get(f"/api/clubs/vilnius/members/{a}/history/").json()
    assert history["games"]["velnias"]["points"] == 3


def test_michigan_ledger_api_shows_the_check(club_setup, api):
    session = start(club_setup, "michigan", ["admin", "scorer", "member"], stake="0.10")
    play(club_setup, session, [{"type": "out", "player": 0, "hand_counts": [0, 3, 3]}])
    client = api(club_setup["users"]["member"])
    body = client.get(f"/api/sessions/{session.pk}/ledger/").json()
    assert body["zero_sum_check"] == {"players_net": -16, "on_prize_cards": 16, "total": 0, "ok": True}
    close(club_setup, session)
    body = client.get(f"/api/sessions/{session.pk}/ledger/").json()
    assert body["zero_sum_check"] == {"players_net": 0, "on_prize_cards": 0, "total": 0, "ok": True}


def test_schema_documents_the_scoring_endpoints(api, club_setup):
    response = api(club_setup["users"]["member"]).get("/api/schema/?format=json")
    paths = response.json()["paths"]
    for path in ("/api/sessions/{id}/standings/", "/api/sessions/{id}/ledger/", "/api/sessions/{id}/settlement/",
                 "/api/clubs/{slug}/leaderboard/", "/api/clubs/{slug}/head-to-head/",
                 "/api/clubs/{slug}/members/{id}/history/"):
        assert path in paths, path
    content = paths["/api/clubs/{slug}/leaderboard/"]["get"]["responses"]["200"]["content"]
    assert set(content) == {"application/json", "text/csv"}
