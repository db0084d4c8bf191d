"""Watching the content policy from the browser tests: the ``securitypolicyviolation`` events a
page sees (:data:`WATCH`, put into every page before its own scripts) and the reports that
reach ``/csp-report/`` (:class:`ReportLog`, reading the ``web.csp`` log of the live server,
which runs in the test's process). A worker's violations (the offline engine's, the service
worker's) fire no event in the page: they show only as reports.
"""

from __future__ import annotations

import logging
from typing import Any

#: Runs before the page's own scripts: every violation the page sees, as one readable line.
WATCH = """(() => {
  const seen = [];
  Object.defineProperty(window, "__policyViolations", { value: seen });
  document.addEventListener("securitypolicyviolation", (event) => {
    seen.push(`${event.effectiveDirective} blocked ${event.blockedURI || "inline"} at ` +
              `${event.sourceFile}:${event.lineNumber} ${event.sample}`);
  });
})();"""


def violations(page: Any) -> list[str]:
    """The violations the current document saw (none when the watch is not in it)."""
    return list(page.evaluate("window.__policyViolations || []"))


class ReportLog(logging.Handler):
    """The reports the endpoint logged while attached (``with ReportLog() as reports``)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.reports: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.reports.append(getattr(record, "report", {"message": record.getMessage()}))

    def __enter__(self) -> ReportLog:
        logging.getLogger("web.csp").addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger("web.csp").removeHandler(self)

    def wait_for(self, page: Any, count: int, timeout_ms: int = 5000) -> list[dict[str, Any]]:
        """The reports once ``count`` arrived (or the timeout passed): browsers send them a
        moment after the violation."""
        for _ in range(timeout_ms // 100):
            if len(self.reports) >= count:
                break
            page.wait_for_timeout(100)
        return self.reports
