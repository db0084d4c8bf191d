"""The content policy in real Chromium (docs/content-policy.md).

- It is enforced and reported: a script put into the page (as an injection would) does not
  run, the page sees the violation and the report reaches ``/csp-report/``. Every other
  browser test fails on a report (tests/browser/conftest.py's ``policy_reports``), and
  test_every_page.py on a violation the page sees.
- The offline engine starts and referees under it: its worker alone may compile WebAssembly.
- The service worker registers and serves a kept screen offline under it (the kept copy keeps
  the policy's header).
- Markup stored in every name a person types (club, members, club night, season) is shown as
  text on every page: nothing of it runs, and the policy has nothing to refuse.
- The admin and the API docs (Swagger UI) run under it too.
"""

from __future__ import annotations

from typing import Any

import pytest

from evenings.models import Evening
from referee import services
from referee.models import Club, Member
from scoring.models import Season

from .content_policy import violations
from .offline_steps import open_ready
from .test_every_page import club_pages  # noqa: F401  (the fixture: every page of a club)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Runs in the page: a script element put in as an injection would put it, and what came of it.
INJECT = """async () => {
  const script = document.createElement("script");
  script.textContent = "window.__injected = 1";
  document.body.append(script);
  const image = document.createElement("div");
  image.innerHTML = '<img src="/static/img/favicon.svg" onload="window.__injected = 2">';
  document.body.append(image);
  await new Promise((done) => setTimeout(done, 300));
  return window.__injected || null;
}"""


@pytest.mark.policy_violations
def test_an_injected_script_does_not_run_and_is_reported(open_page: Any, club_setup: dict[str, Any],
                                                         policy_reports: Any) -> None:
    page = open_page(club_setup["users"]["admin"])
    page.goto("/clubs/vilnius/")
    assert page.evaluate(INJECT) is None
    seen = violations(page)
    assert [line.split(" ")[0] for line in seen] == ["script-src-elem", "script-src-attr"], seen
    reports = policy_reports.wait_for(page, 2)
    assert sorted(report["effective-directive"] for report in reports) == ["script-src-attr", "script-src-elem"]
    assert all(report["document-uri"].endswith("/clubs/vilnius/") and report["blocked-uri"] == "inline"
               for report in reports), reports


def test_the_offline_engine_referees_under_the_policy(open_page: Any, club_setup: dict[str, Any],
                                                      built_engine: dict[str, Any], live_server: Any) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="rukas", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]],
                                     options={"notation": "lt"})
    deal = services.deal_start(session=session, user=scorer, dealer=4)
    page = open_page(scorer)
    response = page.goto(f"/deals/{deal.pk}/")
    page.wait_for_selector("#deal[data-offline=ready]", state="attached", timeout=60_000)
    # The page may not compile WebAssembly; the engine's worker may.
    policy = response.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "wasm-unsafe-eval" not in policy, policy
    worker = page.evaluate("""async () => (await fetch("/static/js/offline/engine-worker.js"))
                                .headers.get("content-security-policy")""")
    assert "script-src 'self' 'wasm-unsafe-eval';" in worker, worker
    verdict = page.evaluate("""async (snapshot) => {
      const { createEngine } = await import("/static/js/offline/engine.js");
      const engine = createEngine({ context: { names: ["Ona", "Jonas", "Rūta", "Petras", "Asta"],
                                               language: "en", notation: "lt" } });
      await engine.ready();
      const answer = await engine.apply(snapshot, { type: "trick", cards: ["3", "9", "9", "V", "4"] });
      engine.terminate();
      return answer;
    }""", dict(deal.state))
    assert verdict["result"]["text"].startswith("Petras takes the trick with the jack"), verdict
    assert violations(page) == [] and page.js_errors == []


def test_the_service_worker_serves_a_kept_screen_offline_under_the_policy(
        open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="rukas", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]],
                                     options={"notation": "lt"})
    deal = services.deal_start(session=session, user=scorer, dealer=4)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")
    worker = page.evaluate("""async () => (await fetch("/sw.js")).headers.get("content-security-policy")""")
    assert "script-src 'self';" in worker and "wasm-unsafe-eval" not in worker
    page.context.set_offline(True)
    response = page.reload()
    page.wait_for_selector("#deal[data-offline=ready]", state="attached", timeout=60_000)
    assert response is not None and response.from_service_worker
    policy = response.headers.get("content-security-policy", "")
    assert "script-src 'self';" in policy and "object-src 'none'" in policy, policy
    assert page.locator("[data-kept-note]").is_visible()
    assert violations(page) == [] and page.js_errors == []


#: Markup in each name a person types; each says which field it came from if it ever ran.
HOSTILE = {
    "club": '<script>window.__xss="club"</script>',
    "admin": '<img src=x onerror=window.__xss="member">',
    "scorer": '"><svg onload=window.__xss="member2">',
    "member": "'><img src=x onerror=window.__xss='member3'>",
    "evening": '</title><script>window.__xss="evening"</script>',
    "season": '<iframe src="javascript:window.parent.__xss=1">',
}


@pytest.fixture
def hostile_names(club_setup: dict[str, Any]) -> None:
    """The club and its members named with markup, before their sessions are played."""
    Club.objects.filter(pk=club_setup["club"].pk).update(name=HOSTILE["club"])
    for role in ("admin", "scorer", "member"):
        Member.objects.filter(pk=club_setup["members"][role].pk).update(name=HOSTILE[role])


def test_markup_stored_in_names_never_runs(browser: Any, live_server: Any, hostile_names: None,
                                           club_pages: list[tuple[str, str]],  # noqa: F811
                                           club_setup: dict[str, Any]) -> None:
    Evening.objects.filter(club=club_setup["club"]).update(name=HOSTILE["evening"])
    Season.objects.filter(club=club_setup["club"]).update(name=HOSTILE["season"])
    from tests.conftest import sign_in

    from .content_policy import WATCH

    context = browser.new_context(base_url=live_server.url, locale="en")
    context.add_init_script(WATCH)
    context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    failures, shown = [], set()
    member = club_setup["members"]["member"].pk
    more = [("members", "/clubs/vilnius/members/"), ("member-manage", f"/clubs/vilnius/members/{member}/manage/")]
    for _name, path in [*club_pages, *more]:
        if path == "/":
            sign_in(page, "admin")
        else:
            page.goto(path)
        page.wait_for_timeout(100)  # an onerror fires once the image has failed to load
        ran = page.evaluate("window.__xss || null")
        seen = violations(page)
        if ran is not None or seen:
            failures.append(f"{path}: ran {ran!r}, violations {seen}")
        text = page.locator("body").inner_text()
        shown |= {field for field, markup in HOSTILE.items() if markup in text}
    context.close()
    assert failures == [] and dialogs == [], failures
    # The markup was on the pages, as text: the test looked where it had to.
    assert shown == set(HOSTILE), shown


def test_the_admin_and_the_api_docs_run_under_the_policy(browser: Any, live_server: Any, make_user: Any) -> None:
    from .content_policy import WATCH

    make_user("chief", is_staff=True, is_superuser=True)
    context = browser.new_context(base_url=live_server.url, locale="en")
    context.add_init_script(WATCH)
    page = context.new_page()
    page.goto("/admin/login/")
    page.fill("#id_username", "chief")
    page.fill("#id_password", "pass-word-123")
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")
    seen = {"/admin/": violations(page)}
    for path in ("/admin/referee/member/", "/admin/referee/member/add/", "/api/docs/"):
        page.goto(path)
        page.wait_for_load_state("networkidle")
        seen[path] = violations(page)
    assert page.locator(".swagger-ui .info").count() == 1, "Swagger UI drew the API"
    context.close()
    assert all(found == [] for found in seen.values()), seen
