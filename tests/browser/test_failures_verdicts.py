"""The Failures page's verdicts in a real browser, on the demo (issue #37): each failed result
reads its one verdict and evidence in the grid (drawn on a canvas: only a browser shows it), the
figures above it split the rows by verdict, and its CSV carries the verdict, the evidence, the
mark's owner and ticket, as the grid shows them."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from sandbox.data import planted
from tests.browser import screen
from tests.browser.harness import Secrets, StreamlitServer
from tests.browser.test_analytics_pages import csv_matches, download, grid_with

pytestmark = pytest.mark.browser

NEEDS_ACTION = {
    "\u2716 unresolved",
    "\u2731 new",
    "\u2716 broken",
    "\u25d0 environment-specific",
}
"""The verdicts the "Needs action" figure counts, as the grid shows them."""
KNOWN = "\u25c6 known"


def test_failures_show_each_verdict_the_figures_split_and_the_csv_carries_them(
    page: Page, dashboard: StreamlitServer, downloads: Path, secrets: Secrets
) -> None:
    screen.open_app(page, f"{dashboard.url}/failures?tz=UTC")
    expect(page.get_by_role("heading", name="Failures", level=1)).to_be_visible()
    failures = grid_with(page, "Verdict", "Evidence")
    figures = screen.metrics(page)
    assert list(figures)[:5] == [
        "Needs action",
        "New since standup",
        "Known",
        "In a likely outage",
        "Failed results",
    ]
    screen.caption_matching(page, r"^Of [\d,]+ failed results: [\d,]+ need action \(")
    expect(screen.main(page).get_by_text("Include outages", exact=True)).to_be_visible()

    name, rows = download(page, "failures.table", downloads)

    assert name == "failures.csv"
    header, body = rows[0], rows[1:]
    assert header[:8] == [
        "Verdict",
        "Plan",
        "Scenario",
        "Environment",
        "Evidence",
        "State",
        "Owner",
        "Ticket",
    ]
    # The grid's rows in view are the file's first, cell for cell.
    csv_matches(failures, rows, ("Verdict", "Plan", "Scenario", "Environment", "Evidence", "State"))
    verdicts = [row[header.index("Verdict")] for row in body]
    assert all(row[header.index("Evidence")] for row in body), "a row without its evidence"
    # The figures count the rows listed, by verdict; those that need action come first.
    needing = sum(verdict in NEEDS_ACTION for verdict in verdicts)
    assert figures["Failed results"] == f"{len(body):,}"
    assert figures["Needs action"] == f"{needing:,}"
    assert figures["Known"] == f"{verdicts.count(KNOWN):,}"
    assert needing > 0
    assert all(verdict in NEEDS_ACTION for verdict in verdicts[:needing])
    # The just-fixed scenario's failures read recovering, never broken.
    scenario = header.index("Scenario")
    fixed = {row[0] for row in body if row[scenario] == str(planted.FIXED_SCENARIO)}
    assert fixed == {"\u2197 recovering"}
    secrets.assert_absent("\n".join(",".join(r) for r in rows), "the failures CSV")
    screen.expect_no_failure_shown(page)
