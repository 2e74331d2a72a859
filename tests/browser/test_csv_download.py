"""Journey 6: the executions table's CSV download holds exactly the rows and columns shown."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from api_client import ApiClient, ExecutionQuery
from sandbox import SandboxSettings
from tests.browser import screen
from tests.browser.conftest import DemoPlan
from tests.browser.harness import Secrets, StreamlitServer
from tests.browser.test_analytics_pages import download, grid_with

pytestmark = pytest.mark.browser

# Columns whose text is the same in the grid and in the file (times and rates are formatted;
# durations are words in the grid and seconds in the file).
PLAIN_COLUMNS = ("Id", "Plan", "Project", "User")
# The file's header names a time column's zone and a duration's unit: "Start (UTC)",
# "Duration (s)"; without them it is the grid's header.
_UNIT = re.compile(r" \((?:s|UTC|[A-Za-z_]+(?:/[A-Za-z0-9_+-]+)+)\)$")


def test_executions_csv_matches_the_table(
    page: Page,
    dashboard: StreamlitServer,
    demo_plan: DemoPlan,
    oracle: ApiClient,
    demo_settings: SandboxSettings,
    downloads: Path,
    secrets: Secrets,
) -> None:
    screen.open_app(page, f"{dashboard.url}/executions?plan={demo_plan.id}&range=30d")
    grid = screen.expect_table_settled(page)
    expect(screen.metric(page, "Executions")).to_have_text(str(demo_plan.executions_30d))
    shown_rows = grid.row_count()
    headers = grid.headers()
    if "Pass rate" not in headers:  # the grid is wider than the screen: read the rest too
        grid.scroll_to("Pass rate")
        headers += [h for h in grid.headers() if h not in headers]
        grid.scroller.evaluate("el => { el.scrollLeft = 0; }")
        expect(grid.table.locator("thead")).to_contain_text("Id")
    shown = {column: grid.column(column) for column in PLAIN_COLUMNS}

    name, text = screen.download_table(page, downloads)

    assert name == "executions.csv"
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    assert [_UNIT.sub("", label) for label in header] == headers
    assert "Duration (s)" in header
    assert any(label.startswith("Start (") for label in header)
    assert len(body) == shown_rows == demo_plan.executions_30d
    by_column = {column: [row[header.index(column)] for row in body] for column in header}
    for column, cells in shown.items():
        assert by_column[column][: len(cells)] == cells, column
    expected_ids = {
        str(e.id)
        for e in oracle.all_executions(
            ExecutionQuery(plan_id=demo_plan.id, date_from=demo_settings.now - timedelta(days=30))
        )
    }
    assert set(by_column["Id"]) == expected_ids
    runtimes = {
        str(e.id): e.runtime
        for e in oracle.all_executions(
            ExecutionQuery(plan_id=demo_plan.id, date_from=demo_settings.now - timedelta(days=30))
        )
    }
    for execution_id, seconds in zip(by_column["Id"], by_column["Duration (s)"], strict=True):
        runtime = runtimes[execution_id]
        assert seconds == ("" if runtime is None else str(runtime / 1000)), execution_id
    assert len(by_column["Id"]) == len(expected_ids), "an execution appears twice"
    secrets.assert_absent(text, "the executions CSV")
    screen.expect_no_failure_shown(page)


def test_the_failures_csv_links_are_absolute_to_the_page_s_address(
    page: Page, dashboard: StreamlitServer, downloads: Path
) -> None:
    """A spreadsheet has no page to resolve "results?execution=5" against (#39)."""
    screen.open_app(page, f"{dashboard.url}/failures?tz=UTC&range=24h")
    grid_with(page, "Failure group")

    _, rows = download(page, "failures.table", downloads)

    header, body = rows[0], rows[1:]
    assert body
    for row in body:
        results, history = row[header.index("Results")], row[header.index("History")]
        assert results.startswith(f"{dashboard.url}/results?"), results
        assert history.startswith(f"{dashboard.url}/scenario?"), history
