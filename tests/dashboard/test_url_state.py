"""The view state in the URL: round trips, defaults kept out, bad values dropped with a reason."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, time, timedelta
from urllib.parse import parse_qsl, urlencode

import pytest

from dashboard.analytics.failure_groups import Grouping
from dashboard.state import choices, links, routes
from dashboard.state import query as query_state
from dashboard.state import url as url_state
from dashboard.state.params import DateRange, StatusChart, ViewState

EVERY_PARAM = routes.RESULTS.params + routes.PLANS.params


@pytest.mark.parametrize(
    "state",
    [
        ViewState(),
        ViewState(
            project=2, plan=3, statuses=("FAILURE",), mine=True, execution=9_007_199_254_740_993
        ),
        ViewState(execution=5, execution_start=datetime(2026, 11, 20, 9, 15, 7, tzinfo=UTC)),
        ViewState(active_only=False, date_range=DateRange.LAST_90_DAYS),
        ViewState(
            date_range=DateRange.CUSTOM, date_from=date(2026, 11, 1), date_to=date(2026, 11, 22)
        ),
        ViewState(date_range=DateRange.CUSTOM, date_from=date(2026, 11, 1)),
        ViewState(status_chart=StatusChart.DAY),
    ],
)
def test_state_survives_a_round_trip_through_the_url(state: ViewState) -> None:
    params = url_state.to_query_params(state, EVERY_PARAM)

    assert all(isinstance(value, str) for value in params.values())
    assert url_state.parse(params) == url_state.ParsedState(state, [])


def test_defaults_stay_out_of_the_url() -> None:
    assert url_state.to_query_params(ViewState(), EVERY_PARAM) == {}


def test_a_page_writes_only_its_own_parameters() -> None:
    state = ViewState(project=2, plan=3, execution=4, active_only=False)

    assert url_state.to_query_params(state, routes.PLANS.params) == {
        "project": "2",
        "active": "false",
    }
    assert url_state.to_query_params(state, routes.EXECUTIONS.params) == {
        "project": "2",
        "plan": "3",
    }
    with pytest.raises(ValueError, match="unknown"):
        url_state.to_query_params(state, ["token"])


def test_parse_reads_only_the_names_it_is_given() -> None:
    parsed = url_state.parse({"plan": "abc", "active": "false"}, routes.PLANS.params)
    assert parsed == url_state.ParsedState(ViewState(active_only=False), [])


@pytest.mark.parametrize(
    ("params", "expected", "problem"),
    [
        ({"plan": "abc"}, ViewState(), '"plan" value "abc" is not a valid plan id'),
        ({"execution": "-3"}, ViewState(), "not a valid execution id"),
        ({"project": "0"}, ViewState(), "not a valid project id"),
        ({"project": "99999999999999999999"}, ViewState(), "not a valid project id"),
        ({"plan": "1e3"}, ViewState(), "not a valid plan id"),
        ({"active": "maybe"}, ViewState(), '"active plans only" is on'),
        ({"mine": "please"}, ViewState(), '"only my executions" is off'),
        ({"status": "<b>x</b>"}, ViewState(), "not a status name"),
        ({"range": "fortnight"}, ViewState(), "is not one of 24h, 7d, 30d, 90d, custom"),
        ({"range": "custom"}, ViewState(), "needs a start or an end date"),
        ({"range": "custom", "from": "22/11/2026"}, ViewState(), "not a date like"),
        ({"from": "2026-02-30"}, ViewState(), "not a date like"),
        ({"to": "0001-01-01"}, ViewState(), "is not between 1970-01-01 and 9998-12-31"),
        (
            {"range": "custom", "from": "2026-11-22", "to": "2026-11-01"},
            ViewState(),
            "The date range is reversed",
        ),
        ({"started": "yesterday"}, ViewState(), '"started" value "yesterday" is not a UTC time'),
        ({"started": "2026-11-20T09:15:00"}, ViewState(), "is not a UTC time"),  # no zone
        ({"started": "2026-11-31T09:15:00Z"}, ViewState(), "is not a UTC time"),
        ({"started": "0001-01-01T00:00:00+01:00"}, ViewState(), "is not a UTC time"),
        ({"chart": "pie"}, ViewState(), '"chart" value "pie" is not one of execution, day'),
    ],
)
def test_bad_values_are_dropped_with_a_readable_problem(
    params: dict[str, str], expected: ViewState, problem: str
) -> None:
    parsed = url_state.parse(params)

    assert parsed.state == expected
    assert len(parsed.problems) == 1
    assert problem in parsed.problems[0]


def test_good_values_beside_bad_ones_are_kept() -> None:
    parsed = url_state.parse({"plan": "x", "project": "2", "status": "error", "range": "30d"})

    assert parsed.state == ViewState(
        project=2, statuses=("ERROR",), date_range=DateRange.LAST_30_DAYS
    )
    assert len(parsed.problems) == 1


def test_the_open_chart_tab_is_an_executions_parameter_and_kept_by_results_links() -> None:
    day = ViewState(status_chart=StatusChart.DAY)

    assert url_state.to_query_params(day, routes.EXECUTIONS.params) == {"chart": "day"}
    # "Back to executions" from a results link restores the tab too.
    assert url_state.to_query_params(day, routes.RESULTS.params) == {"chart": "day"}
    assert url_state.to_query_params(day, routes.PLANS.params) == {}
    assert url_state.parse({"chart": "DAY"}).state == day
    assert url_state.parse({"chart": "execution"}) == url_state.ParsedState(ViewState(), [])


def test_long_bad_values_are_shortened_in_the_problem() -> None:
    parsed = url_state.parse({"plan": "x" * 500})
    assert len(parsed.problems[0]) < 200


def test_dates_without_a_range_mean_a_custom_range() -> None:
    parsed = url_state.parse({"from": "2026-11-01"})
    assert parsed.state == ViewState(date_range=DateRange.CUSTOM, date_from=date(2026, 11, 1))


def test_repeated_parameters_use_the_last_value() -> None:
    assert url_state.parse({"plan": ["1", "2"]}).state.plan == 2


def test_preset_window_counts_back_from_now_on_a_stable_grid() -> None:
    now = datetime(2026, 11, 20, 18, 3, 41, tzinfo=UTC)

    window = query_state.period(ViewState(date_range=DateRange.LAST_24_HOURS), now)

    assert window.start == datetime(2026, 11, 19, 18, 0, tzinfo=UTC)
    assert window.end is None
    later = query_state.period(ViewState(date_range=DateRange.LAST_24_HOURS), now.replace(minute=4))
    assert later == window  # reruns within the grid ask the cache for the same window


def test_custom_window_covers_whole_utc_days() -> None:
    state = ViewState(
        date_range=DateRange.CUSTOM, date_from=date(2026, 11, 1), date_to=date(2026, 11, 22)
    )

    window = query_state.period(state, datetime(2026, 12, 1, tzinfo=UTC))

    assert window.start == datetime(2026, 11, 1, tzinfo=UTC)
    assert window.end == datetime(2026, 11, 23, tzinfo=UTC) - timedelta(milliseconds=1)


def test_custom_days_are_the_viewers_calendar_days() -> None:
    """Issue 15: "1 Nov - 22 Nov" in Istanbul (UTC+3) is 31 Oct 21:00 to 22 Nov 20:59:59.999 UTC;
    the zone in the link counts when the page names none."""
    state = ViewState(
        date_range=DateRange.CUSTOM, date_from=date(2026, 11, 1), date_to=date(2026, 11, 22)
    )
    now = datetime(2026, 12, 1, tzinfo=UTC)

    window = query_state.period(state, now, tz="Europe/Istanbul")

    assert window.start == datetime(2026, 10, 31, 21, 0, tzinfo=UTC)
    assert window.end == datetime(2026, 11, 22, 21, 0, tzinfo=UTC) - timedelta(milliseconds=1)
    linked = dataclasses.replace(state, tz="Asia/Tokyo")
    assert query_state.period(linked, now).start == datetime(2026, 10, 31, 15, tzinfo=UTC)
    # A day of a clock change is whole too: 25 Oct 2026 in Berlin has 25 hours.
    berlin = dataclasses.replace(state, date_from=date(2026, 10, 25), date_to=date(2026, 10, 25))
    one_day = query_state.period(berlin, now, tz="Europe/Berlin")
    assert one_day.start is not None
    assert one_day.end is not None
    assert one_day.end - one_day.start == timedelta(hours=25, milliseconds=-1)


def test_reconcile_drops_ids_the_service_does_not_know() -> None:
    known_projects = {1: "App", 2: "Web"}
    plan_projects: dict[int, int | None] = {10: 1, 20: 2}

    unknown = choices.reconcile(
        ViewState(project=9, plan=99), known_projects=known_projects, plan_projects=plan_projects
    )
    mismatched = choices.reconcile(
        ViewState(project=1, plan=20), known_projects=known_projects, plan_projects=plan_projects
    )
    fine = choices.reconcile(
        ViewState(project=2, plan=20), known_projects=known_projects, plan_projects=plan_projects
    )

    assert unknown.state == ViewState()
    assert [p.split(" is ")[0] for p in unknown.problems] == ["Project 9", "Plan 99"]
    assert mismatched.state == ViewState(project=1)
    assert "is not in project 1" in mismatched.problems[0]
    assert fine == url_state.ParsedState(ViewState(project=2, plan=20), [])


def test_a_start_time_with_an_offset_is_read_as_utc() -> None:
    parsed = url_state.parse({"started": "2026-11-20T10:15:00+01:00"})

    assert parsed.state.execution_start == datetime(2026, 11, 20, 9, 15, tzinfo=UTC)
    assert url_state.to_query_params(parsed.state, ["started"]) == {
        "started": "2026-11-20T09:15:00Z"
    }


def test_the_start_time_belongs_to_the_results_page_only() -> None:
    state = ViewState(execution=5, execution_start=datetime(2026, 11, 20, tzinfo=UTC))

    assert "started" in url_state.to_query_params(state, routes.RESULTS.params)
    assert url_state.to_query_params(state, routes.EXECUTIONS.params) == {}


def test_several_statuses_travel_as_one_comma_separated_parameter() -> None:
    parsed = url_state.parse({"status": "failure, ERROR,,FAILURE"})

    assert parsed.state.statuses == ("FAILURE", "ERROR")
    assert parsed.problems == []
    assert url_state.to_query_params(parsed.state, ["status"]) == {"status": "FAILURE,ERROR"}


def test_a_bad_status_in_a_list_is_dropped_and_the_others_kept() -> None:
    parsed = url_state.parse({"status": "FAILURE,<b>x</b>"})

    assert parsed.state.statuses == ("FAILURE",)
    (problem,) = parsed.problems
    assert '"<b>x</b>" is not a status name, so the other statuses are shown' in problem


def test_a_time_zone_a_standup_time_and_presenter_mode_travel_in_the_link() -> None:
    parsed = url_state.parse({"tz": "Europe/Istanbul", "at": "9:15", "present": "1"})

    assert parsed.problems == []
    assert parsed.state.tz == "Europe/Istanbul"
    assert parsed.state.standup_at == time(9, 15)
    assert parsed.state.present is True
    assert url_state.to_query_params(parsed.state, routes.STANDUP.params) == {
        "tz": "Europe/Istanbul",
        "at": "09:15",
        "present": "1",
    }


def test_an_unknown_zone_or_time_is_dropped_with_a_problem() -> None:
    parsed = url_state.parse({"tz": "Mars/Olympus", "at": "25:00"})

    assert parsed.state.tz is None
    assert parsed.state.standup_at is None
    assert len(parsed.problems) == 2
    assert "is not a time zone like Europe/Istanbul" in parsed.problems[0]
    assert "is not a time of day like 09:30" in parsed.problems[1]


@pytest.mark.parametrize(
    ("route", "state"),
    [
        (
            routes.RESULTS,
            ViewState(
                plan=3,
                execution=9_007_199_254_740_993,
                execution_start=datetime(2026, 11, 20, 9, 15, 7, tzinfo=UTC),
                statuses=("FAILURE", "ERROR"),
                tz="America/Argentina/Buenos_Aires",
            ),
        ),
        (
            routes.STANDUP,
            ViewState(
                date_range=DateRange.CUSTOM,
                date_from=date(2026, 11, 1),
                tz="Etc/GMT+5",
                standup_at=time(8, 45),
                present=True,
            ),
        ),
        (routes.STATES, ViewState(plan=4, states=("flaky", "broken"), threshold=0.35)),
        (routes.SCENARIO, ViewState(plan=4, scenario=17, window=30)),
        (routes.KNOWN, ViewState()),
    ],
)
def test_a_link_reads_as_the_standard_encoding_of_its_parameters(
    route: routes.Route, state: ViewState
) -> None:
    """Links are written without urlencode (a table makes one per row); a shared link's text
    is the same as before: every value urlencode would quote is quoted alike."""
    params = url_state.to_query_params(state, route.params)
    written = links._link(route, state)

    assert written == route.url_path + (f"?{urlencode(params)}" if params else "")
    assert url_state.parse(dict(parse_qsl(written.partition("?")[2])), route.params).state == state


def test_rows_given_by_name_or_as_a_list_write_what_the_route_s_tuple_writes() -> None:
    state = ViewState(project=2, plan=3, execution=4, statuses=("FAILURE",))
    by_route = url_state.to_query_params(state, routes.RESULTS.params)

    assert url_state.to_query_params(state, list(routes.RESULTS.params)) == by_route
    assert url_state.to_query_params(state, [row.name for row in routes.RESULTS.params]) == (
        by_route
    )
    assert list(by_route) == ["project", "plan", "status", "execution"]  # the table's order


@pytest.mark.parametrize("route", [routes.FLAKY, routes.TIME_TO_GREEN])
def test_failure_groups_across_scenarios_stay_in_the_link_of_the_pages_that_group(
    route: routes.Route,
) -> None:
    across = ViewState(grouping=Grouping.ACROSS)

    assert url_state.to_query_params(across, route.params) == {"groups": "across"}
    assert url_state.parse({"groups": "across"}, route.params).state == across
    assert url_state.to_query_params(ViewState(), route.params) == {}  # per scenario: no key
