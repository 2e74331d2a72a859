"""Journeys 2 and 3: choose a plan, then narrow its executions by date range and status."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from dashboard.present.colors import status_label
from tests.browser import screen
from tests.browser.conftest import DemoPlan
from tests.browser.harness import Secrets, StreamlitServer

pytestmark = pytest.mark.browser

# Results per execution, runtime, pass rate per day; results per day only when its tab is open
# (a closed tab's chart is neither built nor sent).
CHARTS_ON_EXECUTIONS = 3


def test_choosing_a_plan_shows_only_its_executions(
    page: Page, dashboard: StreamlitServer, demo_plan: DemoPlan, secrets: Secrets
) -> None:
    screen.open_app(page, dashboard.url + "/")
    plans = screen.Grid.only(page)
    row = plans.column("Plan").index(demo_plan.name)

    plans.select_row(row)

    expect(page).to_have_url(re.compile(r"/executions\?"))
    screen.wait_until_idle(page)
    expect(page.get_by_role("heading", name="Executions", level=1)).to_be_visible()
    assert screen.query(page).get("plan") == str(demo_plan.id)
    expect(screen.selectbox(page, "Plan")).to_have_value(demo_plan.name)
    expect(screen.metric(page, "Executions")).to_have_text(str(demo_plan.executions_7d))

    grid = screen.Grid.only(page)
    grid.expect_rows(demo_plan.executions_7d)
    assert set(grid.column("Plan")) == {demo_plan.name}
    screen.caption_matching(page, rf"^{demo_plan.executions_7d} executions of plan ")
    screen.expect_charts(page, CHARTS_ON_EXECUTIONS)
    screen.expect_no_failure_shown(page)
    secrets.assert_absent(page.content(), "the executions page")
    secrets.assert_absent(page.url, "the executions page's URL")


def test_date_range_and_status_change_table_kpis_charts_and_url(
    page: Page, dashboard: StreamlitServer, demo_plan: DemoPlan
) -> None:
    screen.open_app(page, f"{dashboard.url}/executions?plan={demo_plan.id}")
    expect(screen.metric(page, "Executions")).to_have_text(str(demo_plan.executions_7d))
    screen.expect_charts(page, CHARTS_ON_EXECUTIONS)
    kpis, charts, url = screen.metrics(page), screen.chart_signature(page), page.url
    screen.Grid.only(page).expect_rows(demo_plan.executions_7d)

    # Wider: the last 30 days.
    expect(screen.segment(page, "Started in the last", "7 d")).to_be_checked()
    screen.segment(page, "Started in the last", "30 d").click()
    expect(page).to_have_url(re.compile(r"[?&]range=30d(&|$)"))
    screen.wait_until_idle(page)
    expect(screen.metric(page, "Executions")).to_have_text(str(demo_plan.executions_30d))
    expect(screen.segment(page, "Started in the last", "30 d")).to_be_checked()
    screen.Grid.only(page).expect_rows(demo_plan.executions_30d)
    charts = screen.expect_charts_changed(page, charts)
    month_kpis = screen.metrics(page)
    assert month_kpis != kpis
    assert screen.query(page) == {"plan": str(demo_plan.id), "range": "30d"}
    assert page.url != url

    # Narrower: one status.
    screen.pick(page, "Status", status_label(demo_plan.status))
    expect(page).to_have_url(re.compile(rf"[?&]status={demo_plan.status}(&|$)"))
    screen.wait_until_idle(page)
    expect(screen.metric(page, "Executions")).to_have_text(str(demo_plan.executions_30d_status))
    screen.Grid.only(page).expect_rows(demo_plan.executions_30d_status)
    screen.expect_charts_changed(page, charts)
    assert screen.metrics(page) != month_kpis
    assert screen.query(page) == {
        "plan": str(demo_plan.id),
        "range": "30d",
        "status": demo_plan.status,
    }
    assert screen.picked(page, "Status") == [status_label(demo_plan.status)]
    screen.caption_matching(page, rf"with status {demo_plan.status}")
    screen.expect_no_failure_shown(page)


def test_custom_dates_travel_in_the_link_and_back_restores_the_preset(
    new_page: Callable[[], Page], dashboard: StreamlitServer, demo_plan: DemoPlan
) -> None:
    page = new_page()
    screen.open_app(page, f"{dashboard.url}/executions?plan={demo_plan.id}")
    screen.expect_table_settled(page)
    preset_view = screen.view(page)

    screen.segment(page, "Started in the last", "Custom").click()
    expect(page).to_have_url(re.compile(r"[?&]range=custom(&|$)"))
    screen.wait_until_idle(page)
    params = screen.query(page)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", params.get("from", "")), params
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", params.get("to", "")), params
    custom_view = screen.view(page)
    assert set(custom_view["dates"]) == {"From (UTC)", "To (UTC)"}

    shared = new_page()
    screen.open_app(shared, page.url)
    assert screen.view(shared) == custom_view
    screen.expect_no_failure_shown(shared)

    page.go_back()
    expect(page).not_to_have_url(re.compile(r"range="))
    screen.wait_until_idle(page)
    expect(screen.segment(page, "Started in the last", "7 d")).to_be_checked()
    assert screen.view(page) == preset_view
    screen.expect_no_failure_shown(page)


def test_the_per_day_tab_travels_in_the_link(
    new_page: Callable[[], Page], dashboard: StreamlitServer, demo_plan: DemoPlan
) -> None:
    page = new_page()
    screen.open_app(page, f"{dashboard.url}/executions?plan={demo_plan.id}")
    screen.expect_charts(page, CHARTS_ON_EXECUTIONS)
    charts = screen.chart_signature(page)

    screen.main(page).get_by_role("tab", name="Per day").click()
    expect(page).to_have_url(re.compile(r"[?&]chart=day(&|$)"))
    screen.wait_until_idle(page)
    screen.expect_charts_changed(page, charts)
    screen.expect_charts(page, CHARTS_ON_EXECUTIONS)  # the per-execution chart left with its tab
    day_chart = screen.main(page).get_by_role("tabpanel").get_by_test_id("stPlotlyChart")
    expect(day_chart.locator(".js-plotly-plot svg.main-svg").first).to_be_attached()
    day_view = screen.view(page)
    assert day_view["tabs"] == ["Per day"]
    assert screen.query(page) == {"plan": str(demo_plan.id), "chart": "day"}

    shared = new_page()
    screen.open_app(shared, page.url)
    assert screen.view(shared) == day_view
    screen.expect_no_failure_shown(shared)

    screen.main(page).get_by_role("tab", name="Per execution").click()
    expect(page).not_to_have_url(re.compile(r"chart="))
    screen.wait_until_idle(page)
    assert screen.view(page)["tabs"] == ["Per execution"]
    screen.expect_no_failure_shown(page)
