"""The pages of states, time to green, failures and slower scenarios in a real browser, on the
demo: each shows its planted case, downloads its table as the CSV of exactly that table, its
links open the page they name (a grid's links are drawn on a canvas: only a browser follows
them), and its address opened in a new browser shows the same view."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from sandbox.data import planted
from tests.browser import screen
from tests.browser.harness import Secrets, StreamlitServer
from tests.browser.test_analytics_pages import csv_matches, download, grid_with, reopens

pytestmark = pytest.mark.browser


def follow(page: Page, grid: screen.Grid, column: str, links: list[str], row: int = 0) -> Page:
    """Click `column`'s link in `row` (`links`: the grid's link columns) and return the tab it
    opened, once its app has settled."""
    where = grid.link_positions(row, links)
    with page.context.expect_page() as opened:
        page.mouse.click(*where[column])
    tab = opened.value
    screen.wait_until_idle(tab, timeout=screen.FIRST_LOAD_TIMEOUT_MS)
    expect(screen.main(tab).get_by_role("heading", level=1)).to_be_visible()
    return tab


def test_states_page_shows_the_planted_states_downloads_and_links_to_history(
    page: Page,
    new_page: Callable[[], Page],
    dashboard: StreamlitServer,
    downloads: Path,
    secrets: Secrets,
) -> None:
    screen.open_app(page, f"{dashboard.url}/states?tz=UTC&states=flaky,environment-specific")
    expect(page.get_by_role("heading", name="Scenario states", level=1)).to_be_visible()
    states = grid_with(page, "State", "Why")
    states.expect_rows(2)
    assert states.column("Scenario") == [
        str(planted.FLAKY_SCENARIO),
        str(planted.ENVIRONMENT_SPECIFIC[0]),
    ]
    name, rows = download(page, "states.table", downloads)
    assert name == "scenario-states.csv"
    csv_matches(states, rows, ("Plan", "Scenario", "State", "Why"))

    history = follow(page, states, "History", ["History"])
    assert screen.path(history) == "/scenario"
    assert screen.query(history)["scenario"] == str(planted.FLAKY_SCENARIO)
    expect(screen.main(history).get_by_role("heading", level=1)).to_have_text(
        f"Scenario {planted.FLAKY_SCENARIO}"
    )
    screen.expect_no_failure_shown(history)

    # A proposed N is previewed, then applied into the address.
    number = screen.main(page).get_by_test_id("stNumberInput").filter(has_text="Broken over (N)")
    number.locator("input").fill("3")
    number.locator("input").press("Enter")
    # The run with the proposal is the one that enables Apply.
    expect(screen.main(page).get_by_role("button", name="Apply")).to_be_enabled()
    screen.wait_until_idle(page)
    expect(grid_with(page, "Scenarios").table).to_contain_text("with the new settings")
    assert "broken_runs" not in screen.query(page)
    screen.main(page).get_by_role("button", name="Apply").click()
    expect(page).to_have_url(re.compile(r"[?&]broken_runs=3(&|$)"))
    screen.wait_until_idle(page)
    # Applied, there is nothing left to preview: the counts under the settings in use only.
    applied = grid_with(page, "Scenarios")
    applied.expect_rows(1)
    assert applied.column("Scenarios") == ["now"]
    reopens(new_page, page, secrets)


def test_failures_page_lists_the_week_downloads_and_opens_results(
    page: Page,
    new_page: Callable[[], Page],
    dashboard: StreamlitServer,
    downloads: Path,
    secrets: Secrets,
) -> None:
    screen.open_app(page, f"{dashboard.url}/failures?tz=UTC&range=24h")
    expect(page.get_by_role("heading", name="Failures", level=1)).to_be_visible()
    failures = grid_with(page, "Failure group")
    assert set(failures.column("Scenario")) == {
        str(planted.TURNED_RED_SCENARIO),
        str(planted.ENVIRONMENT_SPECIFIC[0]),
    }
    name, rows = download(page, "failures.table", downloads)
    assert name == "failures.csv"
    csv_matches(failures, rows, ("Plan", "Scenario", "Environment", "State"))
    secrets.assert_absent("\n".join(",".join(r) for r in rows), "the failures CSV")

    results = follow(page, failures, "Results", ["Results", "History", "Node log", "Executor log"])
    assert screen.path(results) == "/results"
    expect(screen.main(results).get_by_role("heading", level=1)).to_contain_text("Execution #")
    screen.expect_no_failure_shown(results)
    reopens(new_page, page, secrets)


def test_slower_page_lists_the_slowing_scenario_and_downloads_it(
    page: Page,
    new_page: Callable[[], Page],
    dashboard: StreamlitServer,
    downloads: Path,
    secrets: Secrets,
) -> None:
    screen.open_app(page, f"{dashboard.url}/slower?tz=UTC")
    slower = grid_with(page, "Slower by")
    slower.expect_rows(1)
    assert slower.column("Scenario") == [str(planted.SLOWING_SCENARIO)]
    name, rows = download(page, "slower.table", downloads)
    assert name == "slower-scenarios.csv"
    csv_matches(slower, rows, ("Plan", "Scenario", "Evidence"))
    # A cell starting with "+" is written with a leading apostrophe: no spreadsheet formula.
    assert rows[1][rows[0].index("Slower by")] == "'" + slower.column("Slower by")[0]
    history = follow(page, slower, "History", ["History"])
    assert screen.query(history)["scenario"] == str(planted.SLOWING_SCENARIO)
    expect(screen.main(history).get_by_text(re.compile(r"^Runtime regression: "))).to_be_visible()
    reopens(new_page, page, secrets)


def test_time_to_green_page_shows_the_red_plans_downloads_and_compares(
    page: Page,
    new_page: Callable[[], Page],
    dashboard: StreamlitServer,
    downloads: Path,
    secrets: Secrets,
) -> None:
    plan = planted.STILL_FAILING_PLAN
    screen.open_app(page, f"{dashboard.url}/time-to-green?tz=UTC&plan={plan}")
    expect(page.get_by_role("heading", name="Time to green", level=1)).to_be_visible()
    plans = grid_with(page, "Now", "Trend")
    runs = planted.STILL_FAILING_RUNS
    assert plans.column("Now") == [f"\u2716 red for 4 d 21 h ({runs} executions)"]
    stretches = grid_with(page, "Red from", "How long")
    stretches.expect_rows(1)
    name, rows = download(page, "red.stretches", downloads)
    assert name == "red-stretches.csv"
    csv_matches(stretches, rows, ("Plan", "How long", "Executions"))
    name, rows = download(page, "red.plans", downloads)
    assert name == "time-to-green.csv"

    # Still red: its "Green run" cell is empty, so only two links are drawn in the row.
    compared = follow(page, stretches, "What changed", ["First red", "What changed"])
    assert screen.path(compared) == "/compare"
    assert screen.query(compared)["plan"] == str(plan)
    expect(screen.main(compared)).to_contain_text("What changed between them")
    expect(screen.main(compared)).to_contain_text("SAFARI 18 / macOS new")
    screen.expect_no_failure_shown(compared)
    reopens(new_page, page, secrets)
