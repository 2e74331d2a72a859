"""Scenario states on a hand-built history: each state once, with the numbers behind it, the
order of the rules, the settings (W, threshold, K, N) moving scenarios between states, and the
cases that must be "not enough data" rather than a number."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from dashboard.analytics import states
from dashboard.analytics.outcomes import result_cells
from dashboard.analytics.states import StateRules, scenario_states, state_counts
from tests.analytics.frames import CHROME, DESKTOP, FIREFOX, execution, executions, result, results

LEVEL = {"P": "SUCCESS", "F": "FAILURE", "W": "WARNING", "N": "WAITING"}
EXECUTIONS = 20


def history() -> pd.DataFrame:
    rows = [execution(i, 1, f"2025-03-{i:02d} 10:00") for i in range(1, EXECUTIONS + 1)]
    rows.append(execution(21, 1, "2025-03-21 10:00", "running"))
    return executions(rows)


def runs(scenario: int, env: dict[str, Any], pattern: str) -> list[dict[str, Any]]:
    """One result per character of `pattern` ("." = none), in the newest executions."""
    first = EXECUTIONS - len(pattern) + 1
    return [
        result(first + i, scenario, LEVEL[ch], env) for i, ch in enumerate(pattern) if ch != "."
    ]


FLAKY = "PFPPFPPPFPPFPPPFPPPP"  # 10 flips in 20 runs: 0.53
BROKEN = "P" * 9 + "F" * 11  # the last 10 all failed
SPECIFIC_SAFARI = "F" * 20
RECOVERING = "P" * 10 + "F" * 7 + "PPP"  # 3 clean runs since the failures
FAILING = "P" * 19 + "F"  # a new failure
PASSING = "P" * 20
FIXED_LONG_AGO = "F" * 5 + "P" * 15  # 15 clean runs: passing again
FEW = "PFP"  # 3 runs: not enough data
ONE = "F"  # one run
NO_VERDICT = "WWNN"  # no run at all


def planted() -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    rows += runs(1, CHROME, FLAKY)
    rows += runs(2, CHROME, BROKEN) + runs(2, DESKTOP, BROKEN)
    rows += runs(3, DESKTOP, SPECIFIC_SAFARI) + runs(3, CHROME, PASSING) + runs(3, FIREFOX, PASSING)
    rows += runs(4, CHROME, RECOVERING)
    rows += runs(5, CHROME, FAILING)
    rows += runs(6, CHROME, PASSING)
    rows += runs(7, CHROME, FIXED_LONG_AGO)
    rows += runs(8, CHROME, FEW)
    rows += runs(9, CHROME, ONE)
    rows += runs(10, CHROME, NO_VERDICT)
    rows += [result(21, 6, "FAILURE", CHROME)]  # the running execution is no run
    return results(rows)


def by_scenario(found: states.ScenarioStates) -> pd.DataFrame:
    return found.scenarios.set_index("scenario_id")


def test_each_scenario_gets_its_state() -> None:
    found = by_scenario(scenario_states(history(), planted()))

    assert found["state"].to_dict() == {
        1: states.FLAKY,
        2: states.BROKEN,
        3: states.ENVIRONMENT_SPECIFIC,
        4: states.RECOVERING,
        5: states.FAILING,
        6: states.PASSING,
        7: states.PASSING,
        8: states.NOT_ENOUGH_DATA,
        9: states.NOT_ENOUGH_DATA,
        10: states.NOT_ENOUGH_DATA,
    }


def test_each_state_carries_its_evidence() -> None:
    found = by_scenario(scenario_states(history(), planted()))

    flaky = found.loc[1]
    assert (flaky["flips"], flaky["runs"], flaky["flaky_reason"]) == (10, 20, "scenario")
    assert flaky["score"] == pytest.approx(10 / 19)
    broken = found.loc[2]
    assert (broken["last_runs"], broken["last_fails"], broken["trailing_fails"]) == (10, 10, 11)
    specific = found.loc[3]
    assert specific["specific_environments"] == ("SAFARI / macOS",)
    assert (specific["specific_failed"], specific["specific_runs"]) == (20, 20)
    assert (specific["elsewhere_passed"], specific["elsewhere_runs"]) == (40, 40)
    recovering = found.loc[4]
    assert (recovering["clean_runs"], recovering["fails"]) == (3, 7)
    failing = found.loc[5]
    assert (failing["trailing_fails"], failing["clean_runs"], failing["runs"]) == (1, 0, 20)
    assert (found.loc[6, "clean_runs"], found.loc[7, "clean_runs"]) == (20, 15)
    assert (found.loc[8, "runs"], found.loc[9, "runs"], found.loc[10, "runs"]) == (3, 1, 0)
    # Numbers a state cannot carry stay missing: no score below two runs.
    assert pd.isna(found.loc[9, "score"])
    assert pd.isna(found.loc[10, "score"])


def test_rows_come_in_state_order_then_plan_and_scenario() -> None:
    found = scenario_states(history(), planted()).scenarios
    order = {state: i for i, state in enumerate(states.STATES)}
    keys = [
        (order[s], p, c)
        for s, p, c in found[["state", "plan_id", "scenario_id"]].itertuples(index=False)
    ]
    assert keys == sorted(keys)


def test_counts_name_every_state() -> None:
    counts = scenario_states(history(), planted()).counts()

    assert list(counts) == list(states.STATES)
    assert counts == {
        states.FLAKY: 1,
        states.BROKEN: 1,
        states.ENVIRONMENT_SPECIFIC: 1,
        states.RECOVERING: 1,
        states.FAILING: 1,
        states.NOT_ENOUGH_DATA: 3,
        states.PASSING: 2,
    }
    assert sum(state_counts(scenario_states(history(), results([])).scenarios).values()) == 0


def test_a_flaky_environment_is_named_with_its_own_numbers() -> None:
    rows = runs(1, CHROME, "P" * 20) + runs(1, FIREFOX, "." * 14 + "PFPFFP")
    # Across environments it flips 4 times in 19 chances (0.21): under a threshold of 0.3 only
    # Firefox (4 in 5) is flaky, and the evidence is Firefox's.
    found = by_scenario(scenario_states(history(), results(rows), StateRules(threshold=0.3)))

    row = found.loc[1]
    assert (row["state"], row["flaky_reason"]) == (states.FLAKY, "environment")
    assert row["flaky_environment"] == "FIREFOX / Linux"
    assert (row["environment_flips"], row["environment_runs"]) == (4, 6)
    assert row["environment_score"] == pytest.approx(4 / 5)


def test_the_rules_are_tried_in_order() -> None:
    # Failing on Safari in all 20 runs makes the scenario fail in every execution: broken by
    # the numbers, but environment-specific comes first.
    found = by_scenario(scenario_states(history(), planted()))
    assert found.loc[3, "last_fails"] == 10
    assert found.loc[3, "state"] == states.ENVIRONMENT_SPECIFIC
    # A scenario with too few runs is never flaky, whatever its flips.
    few = results(runs(1, CHROME, "PFPF"))
    assert by_scenario(scenario_states(history(), few)).loc[1, "state"] == states.NOT_ENOUGH_DATA


def test_k_moves_scenarios_between_not_enough_data_recovering_and_passing() -> None:
    loose = by_scenario(scenario_states(history(), planted(), StateRules(min_runs=3)))
    assert loose.loc[8, "state"] != states.NOT_ENOUGH_DATA  # 3 runs are enough now
    assert loose.loc[4, "state"] == states.PASSING  # 3 clean runs are enough now

    strict = by_scenario(scenario_states(history(), planted(), StateRules(min_runs=16)))
    assert strict.loc[7, "state"] == states.RECOVERING  # 15 clean runs are too few
    assert all(strict.loc[[8, 9, 10], "state"] == states.NOT_ENOUGH_DATA)


def test_n_and_the_window_move_the_broken_line() -> None:
    # The last 10 runs all failed; the last 15 hold 11 failures of 15 (73 %).
    wide = by_scenario(scenario_states(history(), planted(), StateRules(broken_runs=15)))
    assert (wide.loc[2, "last_runs"], wide.loc[2, "last_fails"]) == (15, 11)
    assert wide.loc[2, "state"] == states.FAILING

    # A window of 5 keeps the last 5 executions only: the flaky scenario's last 5 ("FPPPP")
    # recover; the broken one fails in all 5.
    narrow = by_scenario(scenario_states(history(), planted(), StateRules(window=5)))
    assert narrow.loc[1, "state"] == states.RECOVERING
    assert narrow.loc[2, "state"] == states.BROKEN
    assert narrow.loc[6, "runs"] == 5


def test_the_threshold_moves_the_flaky_line() -> None:
    strict = by_scenario(scenario_states(history(), planted(), StateRules(threshold=0.6)))
    # 10 flips in 19 chances is 0.53: below 0.6 it is judged by the other rules (its last
    # failure is 4 clean runs back).
    assert strict.loc[1, "state"] == states.RECOVERING


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 2 runs"):
        StateRules(min_runs=1)
    with pytest.raises(ValueError, match="N >= 1"):
        StateRules(broken_runs=0)


def test_an_empty_history_has_no_states() -> None:
    found = scenario_states(history(), results([]))
    assert found.scenarios.empty
    assert list(found.scenarios.columns) == list(states.STATE_COLUMNS)


def test_a_passing_latest_run_outranks_broken_as_in_the_verdicts() -> None:
    # Failed 9 of its last 10 runs and passed the 10th: rule 4 says broken; the verdicts'
    # precedence (`latest_pass_first`) says recovering. Scenario 2 still fails: broken.
    fixed = results(
        runs(1, CHROME, "F" * 9 + "P")
        + runs(1, DESKTOP, "F" * 9 + "P")
        + runs(2, CHROME, "F" * 10)
        # Passes on CHROME in the latest run, but SAFARI, where it failed, did not run there.
        + runs(3, CHROME, "P" * 10)
        + runs(3, DESKTOP, "F" * 9 + ".")
    )
    found = scenario_states(history(), fixed)
    assert by_scenario(found)["state"].to_dict() == {
        1: states.BROKEN,
        2: states.BROKEN,
        3: states.ENVIRONMENT_SPECIFIC,
    }
    judged = states.latest_pass_first(found)
    assert by_scenario(judged)["state"].to_dict() == {
        1: states.RECOVERING,
        2: states.BROKEN,
        3: states.ENVIRONMENT_SPECIFIC,
    }
    assert list(judged.scenarios["scenario_id"]) == [2, 3, 1]  # in state order
    # K clean runs since: passing, never broken (broken here at half of the last 10).
    long_fixed = scenario_states(
        history(), results(runs(1, CHROME, "F" * 10 + "P" * 5)), StateRules(broken_share=0.5)
    )
    assert by_scenario(long_fixed).loc[1, "state"] == states.BROKEN
    assert by_scenario(states.latest_pass_first(long_fixed)).loc[1, "state"] == states.PASSING


@pytest.mark.parametrize("window", [20, 6])
@pytest.mark.parametrize("details", [True, False])
def test_cells_given_by_the_caller_give_the_same_states(window: int, details: bool) -> None:
    """A caller that has the cells of the whole history (more executions than the window, a
    running one among them; with or without their details) gets the states it would get
    without them: only the window's cells are read."""
    rules = StateRules(window=window)
    planted_results = planted()
    given = result_cells(planted_results, details=details)
    found = scenario_states(history(), planted_results, rules, cells=given)
    own = scenario_states(history(), planted_results, rules)
    pd.testing.assert_frame_equal(found.scenarios, own.scenarios)
    pd.testing.assert_frame_equal(found.flakiness.environments, own.flakiness.environments)
    pd.testing.assert_frame_equal(found.flakiness.cells, own.flakiness.cells)
    # The window's cells, every one of its executions' (20 or 6), and the states they give.
    assert found.flakiness.cells["execution_id"].nunique() == window
    assert by_scenario(found).loc[3, "state"] == "environment-specific"
    assert by_scenario(found).loc[6, "runs"] == window
