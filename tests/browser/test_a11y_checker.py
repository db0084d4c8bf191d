"""The accessibility check itself catches what it claims to: an unnamed control, a small
target, and faint text (so the checks in the other browser tests can fail)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import check_a11y

pytestmark = [pytest.mark.browser]


def test_the_checker_reports_each_kind_of_problem(browser: Any) -> None:
    page = browser.new_page()
    page.set_content(
        '<body style="background:#fff;color:#000">'
        '<button style="width:30px;height:30px"></button>'
        '<p style="color:#bbb">faint</p>'
        '<button style="min-width:48px;min-height:48px">fine</button></body>'
    )
    with pytest.raises(AssertionError, match="without an accessible name"):
        check_a11y(page)
    page.set_content('<body style="background:#fff;color:#000">'
                     '<button style="width:30px;height:30px">x</button></body>')
    with pytest.raises(AssertionError, match="touch targets under 44 px: \\['30x30"):
        check_a11y(page)
    page.set_content('<body style="background:#fff;color:#000"><p style="color:#bbb">faint</p></body>')
    with pytest.raises(AssertionError, match="contrast under 4.5:1: \\['1.92 P"):
        check_a11y(page)
    page.set_content('<body style="background:#fff;color:#000"><p>clear</p>'
                     '<button style="min-width:48px;min-height:48px">fine</button></body>')
    check_a11y(page)
    page.close()
