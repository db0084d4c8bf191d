"""The accessibility check itself catches what it claims to (so the checks in the other
browser tests can fail): axe-core's serious and critical findings (an unnamed button, faint
text) and the club's own touch-target size."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import check_a11y

pytestmark = [pytest.mark.browser]


def test_the_checker_reports_each_kind_of_problem(browser: Any) -> None:
    page = browser.new_page()
    head = '<!doctype html><html lang="en"><head><title>t</title></head><body style="background:#fff;color:#000"><main>'
    page.set_content(head + '<button style="min-width:48px;min-height:48px"></button></main></body></html>')
    with pytest.raises(AssertionError, match=r"button-name \(critical\): Buttons must have discernible text"):
        check_a11y(page)
    page.set_content(head + '<p style="color:#bbb">faint</p></main></body></html>')
    with pytest.raises(AssertionError, match=r"color-contrast \(serious\): Elements must meet minimum color "
                                             r"contrast ratio thresholds: p .*contrast of 1\.91"):
        check_a11y(page)
    page.set_content(head + '<button style="width:30px;height:30px">x</button></main></body></html>')
    with pytest.raises(AssertionError, match="touch targets under 44 px: \\['30x30"):
        check_a11y(page)
    page.set_content(head + '<p>clear</p><button style="min-width:48px;min-height:48px">fine</button>'
                     '</main></body></html>')
    check_a11y(page)
    page.close()
