"""The scenario analytics pages' URL parameters: W, the threshold, the scenario, the compared
executions and "only changes" travel in a link, defaults stay out, bad values are named; the
links between pages; a page's plan, scenario and executions checked against the service's."""

from __future__ import annotations

import pytest

from dashboard.state import links, params, plan_choice, routes
from dashboard.state import url as url_state
from dashboard.state.params import ViewState

ANALYTICS = (
    *routes.FLAKY.params,
    *routes.ENVIRONMENTS.params,
    *routes.COMPARE.params,
    *routes.SCENARIO.params,
)


@pytest.mark.parametrize(
    "state",
    [
        ViewState(),
        ViewState(plan=2, scenario=4, window=30, tz="Europe/Istanbul"),
        ViewState(window=5, threshold=0.35),
        ViewState(threshold=1.0),
        ViewState(plan=1, before=287, after=295, only_changes=False),
    ],
)
def test_analytics_state_survives_a_round_trip(state: ViewState) -> None:
    params = url_state.to_query_params(state, ANALYTICS)
    assert url_state.parse(params) == url_state.ParsedState(state, [])


def test_defaults_stay_out_of_the_link() -> None:
    state = ViewState(window=params.WINDOW.default, threshold=0.2, only_changes=True)
    assert url_state.to_query_params(state, ANALYTICS) == {}
    assert url_state.to_query_params(ViewState(threshold=0.25), ANALYTICS) == {"threshold": "0.25"}


@pytest.mark.parametrize(
    ("params", "problem", "field", "value"),
    [
        ({"window": "4"}, "not a whole number of executions from 5 to 200, so 20", "window", 20),
        ({"window": "twenty"}, '"window" value "twenty"', "window", 20),
        ({"window": "1000000"}, "from 5 to 200", "window", 20),
        ({"threshold": "0"}, "not a share from 0.01 to 1 (such as 0.2)", "threshold", 0.2),
        ({"threshold": "1.5"}, '"threshold" value "1.5"', "threshold", 0.2),
        ({"threshold": "-0.3"}, '"threshold" value "-0.3"', "threshold", 0.2),
        ({"threshold": "nan"}, '"threshold" value "nan"', "threshold", 0.2),
        ({"scenario": "x"}, "not a valid scenario id", "scenario", None),
        ({"before": "-1"}, "not a valid execution id", "before", None),
        ({"changes": "maybe"}, '"only changes" is on', "only_changes", True),
    ],
)
def test_bad_values_are_named_and_the_default_used(
    params: dict[str, str], problem: str, field: str, value: object
) -> None:
    parsed = url_state.parse(params, ANALYTICS)
    assert len(parsed.problems) == 1
    assert problem in parsed.problems[0]
    assert getattr(parsed.state, field) == value


def test_a_threshold_may_be_written_as_a_percentage() -> None:
    assert url_state.parse({"threshold": "35%"}).state.threshold == 0.35
    assert url_state.parse({"threshold": ".5"}).state.threshold == 0.5


def test_links_to_the_analytics_pages() -> None:
    assert links.scenario_link(2, 4) == "scenario?plan=2&scenario=4"
    assert links.scenario_link(2, 4, window=30) == "scenario?plan=2&scenario=4&window=30"
    assert links.compare_link(1) == "compare?plan=1"
    assert links.compare_link(1, 5, 9) == "compare?plan=1&before=5&after=9"
    assert links.environments_link(3) == "environments?plan=3"


def test_a_plan_the_company_lacks_is_dropped_with_the_ids_that_depend_on_it() -> None:
    checked = plan_choice.check_plan(
        ViewState(plan=9, scenario=4, before=1, after=2), {1: "Smoke"}, page="comparison"
    )
    assert checked.state == ViewState()
    assert checked.problems == [
        "Plan 9 is not one of this company's plans (or not one you can see), so no comparison "
        "is shown. Pick a plan."
    ]
    kept = plan_choice.check_plan(ViewState(plan=1), {1: "Smoke"}, page="comparison")
    assert (kept.state, kept.problems) == (ViewState(plan=1), [])


def test_a_scenario_the_plan_lacks_is_dropped() -> None:
    state, problems = plan_choice.check_scenario(ViewState(plan=1, scenario=7), (1, 2))
    assert state == ViewState(plan=1)
    assert problems == [
        "Scenario 7 is not one of plan 1's scenarios, so none is shown. Pick one of its scenarios."
    ]


def test_a_scenario_the_plan_dropped_is_kept_when_it_ran_in_the_window() -> None:
    state = ViewState(plan=1, scenario=7)
    kept, problems = plan_choice.check_scenario(state, (1, 2), ran={7}, looked_in="x")
    assert (kept, problems) == (state, [])
    assert plan_choice.retired_note(kept, (1, 2), "Smoke") == (
        "Scenario 7 is no longer in plan Smoke; showing its past runs."
    )
    assert plan_choice.retired_note(ViewState(plan=1, scenario=2), (1, 2), "Smoke") is None
    dropped, problems = plan_choice.check_scenario(state, (1, 2), ran={2}, looked_in="its last 5")
    assert dropped == ViewState(plan=1)
    assert problems == [
        "Scenario 7 is not one of plan 1's scenarios and did not run in its last 5, so none is "
        "shown. Pick one of its scenarios."
    ]


def test_the_compared_executions_must_be_the_plans() -> None:
    state = ViewState(plan=1, before=50, after=9)
    pair = plan_choice.check_pair(state, {7, 8, 9}, (7, 8), plan_name="Smoke", lookback="x")
    assert (pair.before, pair.after) == (7, 9)
    assert pair.problems == [
        "Execution 50 is not an execution of plan Smoke in the x, so the before side is the "
        "plan's default."
    ]
    none = plan_choice.check_pair(ViewState(plan=1), set(), None, plan_name="Smoke", lookback="x")
    assert (none.before, none.after, none.problems) == (None, None, [])
    same = plan_choice.check_pair(
        ViewState(plan=1, before=8, after=8), {8}, None, plan_name="Smoke", lookback="x"
    )
    assert same.problems == ["Execution 8 is on both sides: pick two different executions."]
