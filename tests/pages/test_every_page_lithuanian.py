"""Every page of tests/browser/test_every_page.py, rendered in Lithuanian, holds no English
sentence: its visible text (and the labels a screen reader speaks) without the members' names,
the card codes and the figures has none of the English words a stray untranslated string would
bring along."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client

from tests.browser.test_every_page import club_pages  # noqa: F401  (the fixture: the same pages)

pytestmark = pytest.mark.django_db

#: Words that never occur in Lithuanian: any of them on a Lithuanian page is an untranslated string.
_ENGLISH_WORDS = """
the and of to is are was by for with from you your our this that these those it its has have
not no yes or if when while then than who whom what which where how all any each every
session sessions deal deals dealer points point chips chip money stake player players seat seats
game games round rounds table tables club night nights member members rating ratings won win wins
place places total totals score scorer record recorded undo open closed close start started
finished running settlement pays paid owes debt debts balance leaderboard season seasons
rules house ante penalty trick tricks card cards hand hands show hide save cancel back next
sign out in on at up down out over under after before only more less
"""
ENGLISH = frozenset(_ENGLISH_WORDS.split())

#: Text that a screen reader speaks although it is not a text node.
SPOKEN_ATTRIBUTES = ("aria-label", "title", "placeholder", "alt")
SKIPPED_ELEMENTS = {"script", "style", "template", "noscript", "svg", "code", "pre"}


class _Text(HTMLParser):
    """The page's words a reader meets: text nodes outside scripts and templates, and labels."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skipping: list[str] = []
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED_ELEMENTS:
            self.skipping.append(tag)
        if self.skipping:
            return
        for name, value in attrs:
            if name in SPOKEN_ATTRIBUTES and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def english_words(html: str, names: set[str]) -> list[str]:
    parser = _Text()
    parser.feed(html)
    found = []
    for part in parser.parts:
        for word in re.findall(r"[A-Za-zĄČĘĖĮŠŲŪŽąčęėįšųūž']+", part):
            if word in names:
                continue
            if word.lower() in ENGLISH:
                found.append(f"{word!r} in {' '.join(part.split())[:120]!r}")
    return found


def test_the_english_stop_list_finds_an_untranslated_sentence() -> None:
    page = "<main><h1>Lyderių lentelė</h1><p>Ona pays Jonas 2,00 EUR</p><script>var the = 1;</script></main>"
    assert english_words(page, {"Ona", "Jonas"}) == ["'pays' in 'Ona pays Jonas 2,00 EUR'"]


def test_every_page_in_lithuanian_speaks_lithuanian(club_pages: list[tuple[str, str]],  # noqa: F811
                                                    club_setup: dict[str, Any]) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="lt")
    client.force_login(club_setup["users"]["admin"])
    names = {word for member in club_setup["members"].values() for word in member.name.split()}
    names |= {"Vilniaus", "klubas", "Penktadienis", "Žiema", "admin", "scorer", "member"}
    failures = []
    for name, path in [("login", "/login/"), *club_pages]:
        response = client.get(path, follow=True)
        assert response.status_code == 200, path
        found = english_words(response.content.decode(), names)
        if found:
            failures.append(f"{name} {path}: " + "; ".join(sorted(set(found))[:12]))
    assert failures == [], "\n".join(failures)
