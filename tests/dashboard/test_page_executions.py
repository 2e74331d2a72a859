"""The Executions page, run with AppTest against a sandbox."""

from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from streamlit.testing.v1 import AppTest

from api_client import ApiClient, ExecutionQuery
from dashboard.state.params import DateRange
from sandbox import RunningSandbox
from tests.dashboard.apptest import (
    EXECUTIONS,
    assert_no_failure,
    captions,
    joined,
    metrics,
    notes,
    plain_notes,
    sources,
)
from tests.dashboard.conftest import AppFactory, Connect, Requests, user
from tests.today import TODAY

# A fixed week of the sandbox's fixed data (its clock stops at 20 Nov 2026, 18:00 UTC), so the
# tests mean the same thing whatever day they run.
# The last week of the sandbox's demo (it ends at TODAY, 18:00 UTC), as a link names it.
WEEK_START = datetime.combine(TODAY.date() - timedelta(days=7), time(), tzinfo=UTC)
WEEK_END = datetime.combine(TODAY.date() + timedelta(days=1), time(), tzinfo=UTC) - timedelta(
    milliseconds=1
)
WEEK = {"range": "custom", "from": WEEK_START.date().isoformat(), "to": TODAY.date().isoformat()}


def test_filters_come_from_the_url(app: AppFactory, connect: Connect, oracle: ApiClient) -> None:
    connect()
    # The demo plan whose flaky scenario fails with ERROR several times that week.
    plan = next(p for p in oracle.plans(active=False) if p.plan_name == "Web Shop regression")
    expected = oracle.all_executions(
        ExecutionQuery(plan_id=plan.id, date_from=WEEK_START, date_to=WEEK_END, status="ERROR")
    )
    assert expected, "the week should hold some of this plan's executions"
    at = app(EXECUTIONS, plan=str(plan.id), status="ERROR", **WEEK)

    at.run()

    assert_no_failure(at)
    assert metrics(at)["Executions"] == str(len(expected))
    assert sorted(at.dataframe[0].value["Id"]) == sorted(e.id for e in expected)
    assert at.selectbox(key="executions.plan").value == plan.id
    assert at.multiselect(key="executions.statuses").value == ["ERROR"]
    assert at.segmented_control(key="executions.date_range").value == DateRange.CUSTOM
    shown = captions(at)
    assert f"{len(expected)} executions of plan Web Shop regression, with status ERROR" in shown
    assert f"{WEEK_START:%-d %b}" in shown
    assert f"{TODAY:%-d %b}" in shown
    assert at.query_params == {"plan": str(plan.id), "status": "ERROR", **WEEK}
    # Per execution, runtime, pass rate: the closed "Per day" tab's chart is not sent.
    assert [chart.key for chart in at.get("plotly_chart")] == ["status.exec", "runtime", "rate"]


def test_changing_filters_updates_the_url(app: AppFactory, connect: Connect) -> None:
    connect()
    at = app(EXECUTIONS, **WEEK)
    at.run()

    at.multiselect(key="executions.statuses").select("FAILURE").run()
    assert at.query_params == {"status": "FAILURE", **WEEK}

    at.segmented_control(key="executions.date_range").set_value(DateRange.LAST_30_DAYS).run()
    assert at.query_params == {"status": "FAILURE", "range": "30d"}
    assert_no_failure(at)


def test_no_matching_executions_is_an_info_not_an_error(app: AppFactory, connect: Connect) -> None:
    connect()
    at = app(EXECUTIONS, range="custom", **{"from": "2020-01-01", "to": "2020-01-31"})

    at.run()

    assert_no_failure(at)
    assert "No executions match" in notes(at, "info")
    assert "0 executions, 1 Jan 2020" in notes(at, "info")
    assert not at.dataframe


def test_a_token_without_execution_view_gets_a_readable_message(
    app: AppFactory, connect: Connect, sandbox: RunningSandbox
) -> None:
    connect(who=user(sandbox, lacking="TEST_EXECUTION_VIEW"))
    at = app(EXECUTIONS, **WEEK)

    at.run()

    assert not at.exception
    error = joined(at.error)
    assert "TEST_EXECUTION_VIEW" in error
    assert "administrator" in error
    assert not at.dataframe


def test_without_the_plan_list_the_executions_still_show(
    app: AppFactory, connect: Connect, sandbox: RunningSandbox
) -> None:
    connect(who=user(sandbox, lacking="PLAN_VIEW"))
    at = app(EXECUTIONS, **WEEK)

    at.run()

    assert not at.exception
    assert "PLAN_VIEW" in joined(at.error)
    assert "plan list" in joined(at.error)
    assert int(metrics(at)["Executions"]) > 0
    assert at.dataframe


def test_bad_values_in_a_shared_link_are_explained_and_the_page_works(
    app: AppFactory, connect: Connect
) -> None:
    connect()
    at = app(
        EXECUTIONS,
        project="-1",
        plan="12abc",
        status="<img src=x>",
        range="custom",
        **{"from": "2026-11-20", "to": "2026-11-01"},
    )

    at.run()

    assert_no_failure(at)
    warning = notes(at)
    for phrase in ("not a valid project id", "not a valid plan id", "not a status name"):
        assert phrase in warning
    assert "date range is reversed" in warning
    # Shown literally: in a plain-text element, never in markdown.
    assert "<img src=x>" in plain_notes(at)
    assert "<img" not in "".join(sources(at.markdown) + sources(at.warning))
    assert at.dataframe  # the default range is shown instead
    assert at.query_params == {}


@pytest.mark.parametrize(
    "dates",
    [{"to": "2001-01-01"}, {"from": "2040-06-01"}, {"from": "1970-01-01", "to": "9998-12-31"}],
)
def test_a_custom_range_far_from_today_keeps_the_page_working(
    app: AppFactory, connect: Connect, dates: dict[str, str]
) -> None:
    connect()
    at = app(EXECUTIONS, range="custom", **dates)

    at.run()

    assert_no_failure(at)
    assert at.segmented_control(key="executions.date_range").value == DateRange.CUSTOM
    assert at.query_params == {"range": "custom", **dates}


def test_only_mine_needs_the_viewers_own_email(
    app: AppFactory, connect: Connect, sandbox: RunningSandbox
) -> None:
    connect(email=None)
    no_email = app(EXECUTIONS, mine="true", **WEEK)
    no_email.run()
    assert "needs your e-mail address" in notes(no_email)
    assert no_email.toggle(key="executions.mine").value is False
    assert no_email.dataframe

    connect(email=user(sandbox, company_id=2).email)  # someone else's address
    other = app(EXECUTIONS, mine="true", **WEEK)
    other.run()
    assert not other.exception
    assert "Only my executions" in joined(other.error)

    connect()  # the viewer's own address
    own = app(EXECUTIONS, mine="true", **WEEK)
    own.run()
    assert_no_failure(own)
    assert "started by you" in captions(own)


def select_row(at: AppTest, key: str, row: int) -> None:
    at.session_state[key] = {"selection": {"rows": [row], "columns": [], "cells": []}}


def test_selecting_an_execution_opens_its_results(
    app: AppFactory, connect: Connect, service_requests: Requests
) -> None:
    connect()
    at = app(EXECUTIONS, status="FAILURE", **WEEK)
    at.run()
    chosen = at.dataframe[0].value.iloc[0]
    assert [r for r in service_requests() if "/executions/" in r]  # the log is listened to

    select_row(at, "executions.table", 0)
    at.run()

    assert_no_failure(at)
    assert [t.value for t in at.title] == [f"Execution #{chosen['Id']}"]
    started = chosen["Start"].strftime("%Y-%m-%dT%H:%M:%SZ")
    # The filters travel along unchanged (for "back"), with the execution and its start time.
    assert at.query_params == {
        "status": "FAILURE",
        **WEEK,
        "execution": str(chosen["Id"]),
        "started": started,
    }
    # The execution was found in the answer the executions page had loaded: it is not looked
    # up (a query of two minutes around its start). The one executions request is its plan's
    # 90 days, whose last W finished runs its failures' verdicts are judged on (#37).
    asked = [r for r in service_requests() if "/executions/" in r]
    assert len(asked) <= 1, asked
    for request in asked:
        query = parse_qs(urlsplit(request).query)
        assert "to" not in query, request  # open-ended: the lookback, not a lookup
        since = datetime.fromtimestamp(int(query["from"][0]) / 1000, tz=UTC)
        assert chosen["Start"] - since > timedelta(days=60), request


def test_skipped_executions_are_counted(
    app: AppFactory, connect: Connect, faulty_sandbox: RunningSandbox
) -> None:
    connect(faulty_sandbox)
    at = app(EXECUTIONS, **WEEK)

    at.run()

    assert not at.exception
    assert "skipped because the service sent" in notes(at)
    assert at.dataframe


@pytest.fixture
def week_page(opened: dict[str, AppTest], app: AppFactory, connect: Connect) -> AppTest:
    """The page over the week, as the full-authority user opens it: run once, never changed."""
    if "week" not in opened:
        connect()
        at = app(EXECUTIONS, **WEEK)
        at.run()
        opened["week"] = at
    return opened["week"]


def test_the_status_filter_offers_every_execution_status_with_its_symbol(
    week_page: AppTest,
) -> None:
    assert week_page.multiselect(key="executions.statuses").options == [
        "\u2714 SUCCESS",
        "\u2716 FAILURE",
        "\u26a0 ERROR",
        "\u25b2 WARNING",
        "\u23f3 WAITING",
        "\u25b6 PROCESSING",
        "\u25a0 STOPPED",
    ]


def test_several_statuses_at_once_narrow_what_was_loaded_without_a_request(
    app: AppFactory, connect: Connect, oracle: ApiClient, service_requests: Requests
) -> None:
    """FAILURE and ERROR chosen together: an ERROR execution may hold FAILURE results, so
    both are needed to see every failed one, and the rule is the service's own (the sandbox's
    filter agrees, execution by execution)."""
    connect()
    failed = {
        e.id
        for status in ("FAILURE", "ERROR")
        for e in oracle.all_executions(
            ExecutionQuery(date_from=WEEK_START, date_to=WEEK_END, status=status)
        )
    }
    at = app(EXECUTIONS, **WEEK)
    at.run()
    assert [r for r in service_requests() if "/executions/" in r]  # the log is listened to

    at.multiselect(key="executions.statuses").select("FAILURE").select("ERROR").run()

    assert_no_failure(at)
    assert set(at.dataframe[0].value["Id"]) == failed
    assert at.query_params == {"status": "FAILURE,ERROR", **WEEK}
    assert "with status FAILURE or ERROR" in captions(at)
    assert not [r for r in service_requests() if "/executions/" in r]  # narrowed locally


def test_a_links_unusual_status_is_kept_and_matches_nothing(
    app: AppFactory, connect: Connect
) -> None:
    connect()
    at = app(EXECUTIONS, status="PROCESSING", **WEEK)

    at.run()

    assert not at.exception
    assert not at.error
    statuses = at.multiselect(key="executions.statuses")
    assert statuses.value == ["PROCESSING"]  # the link's own value, shown as it asks
    assert "No executions match" in notes(at, "info")
    assert "with status PROCESSING" in notes(at, "info")
    assert at.query_params == {"status": "PROCESSING", **WEEK}


def _charts(at: AppTest) -> dict[str, dict[str, Any]]:
    return {chart.key: json.loads(chart.proto.spec) for chart in at.get("plotly_chart")}


def test_up_to_the_bar_limit_each_execution_is_a_bar(week_page: AppTest) -> None:
    """The status chart's first tab is named by what it draws. Which bars it draws, per
    execution or per plan above the limit, and what their captions say, is the view's
    (tests/present/test_executions_view_values.py)."""
    assert_no_failure(week_page)
    assert 0 < int(metrics(week_page)["Executions"]) <= 200
    assert [tab.label for tab in week_page.tabs][:2] == ["Per execution", "Per day"]
    assert set(_charts(week_page)) == {"status.exec", "runtime", "rate"}


def test_the_per_day_tab_is_in_the_link_and_only_its_chart_is_sent(
    app: AppFactory, connect: Connect
) -> None:
    connect()
    at = app(EXECUTIONS, chart="day", **WEEK)

    at.run()

    assert_no_failure(at)
    # Its chart counts every execution (tests/present/test_executions_view_values.py).
    assert set(_charts(at)) == {"status.day", "runtime", "rate"}
    assert at.query_params == {"chart": "day", **WEEK}

    # A link without it opens the first tab (AppTest cannot click a tab: the browser test
    # `test_the_per_day_tab_travels_in_the_link` does).
    del at.query_params["chart"]
    at.run()

    assert_no_failure(at)
    assert set(_charts(at)) == {"status.exec", "runtime", "rate"}
    assert at.query_params == WEEK


def test_a_links_unknown_chart_tab_is_dropped_with_a_note(
    app: AppFactory, connect: Connect
) -> None:
    connect()
    at = app(EXECUTIONS, chart="pie", **WEEK)

    at.run()

    assert_no_failure(at)
    assert '"chart" value "pie" is not one of execution, day' in notes(at)
    assert set(_charts(at)) == {"status.exec", "runtime", "rate"}
    assert at.query_params == WEEK


@pytest.mark.parametrize("page", [EXECUTIONS, None])
def test_a_selection_that_no_longer_names_a_row_is_ignored(
    app: AppFactory, connect: Connect, page: str | None
) -> None:
    connect()
    at = app(page, **(WEEK if page else {}))
    at.run()
    title = [t.value for t in at.title]

    select_row(at, "executions.table" if page else "plans.table", 10_000)
    at.run()

    assert_no_failure(at)
    assert [t.value for t in at.title] == title
    assert at.dataframe


def test_a_plan_or_project_of_a_loaded_window_is_cut_from_it_without_a_request(
    app: AppFactory, connect: Connect, oracle: ApiClient, service_requests: Requests
) -> None:
    """Changing the plan (or project) narrows the window already loaded, as the
    service's own filter would (compared execution by execution)."""
    connect()
    plan = next(
        p
        for p in oracle.plans(active=False)
        if oracle.all_executions(
            ExecutionQuery(plan_id=p.id, date_from=WEEK_START, date_to=WEEK_END)
        )
    )
    expected = {
        e.id
        for e in oracle.all_executions(
            ExecutionQuery(plan_id=plan.id, date_from=WEEK_START, date_to=WEEK_END)
        )
    }
    by_project = {
        e.id
        for e in oracle.all_executions(
            ExecutionQuery(project_id=plan.project_id, date_from=WEEK_START, date_to=WEEK_END)
        )
    }
    at = app(EXECUTIONS, **WEEK)
    at.run()
    assert [r for r in service_requests() if "/executions/" in r]  # the log is listened to

    at.selectbox(key="executions.project").select(plan.project_id).run()
    assert set(at.dataframe[0].value["Id"]) == by_project
    at.selectbox(key="executions.plan").select(plan.id).run()

    assert_no_failure(at)
    assert set(at.dataframe[0].value["Id"]) == expected
    assert at.query_params == {"project": str(plan.project_id), "plan": str(plan.id), **WEEK}
    assert not [r for r in service_requests() if "/executions/" in r]  # cut locally


def test_a_rerun_that_changed_nothing_rebuilds_no_figure_or_table(
    app: AppFactory, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KPIs, figures, the display table and its CSV are made once per input."""
    from dashboard.present import executions_view as view_module

    made: list[int] = []
    real = view_module.executions_view

    def counting(executions: Any, status_counts: Any, **options: Any) -> Any:
        made.append(len(executions))
        return real(executions, status_counts, **options)

    monkeypatch.setattr(view_module, "executions_view", counting)
    connect()
    at = app(EXECUTIONS, **WEEK)
    at.run()
    at.run()  # the same view again
    assert len(made) == 1
    at.multiselect(key="executions.statuses").select("FAILURE").run()  # another input

    assert_no_failure(at)
    assert len(made) == 2
