"""Flip counting, scores, ties, windows and the cases that must not be called flaky."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from dashboard.analytics.flaky import flaky_scenarios, last_finished
from tests.analytics.frames import (
    CHROME,
    DESKTOP,
    FIREFOX,
    IPHONE,
    execution,
    executions,
    result,
    results,
)

EDGE = {"os": "Windows 10", "browser": "EDGE", "browser_version": "120", "device": "edge"}
LEVEL = {"P": "SUCCESS", "F": "FAILURE", "W": "WARNING", "N": "WAITING", "E": "ERROR"}
FIRST = 3  # executions 1 and 2 are older than the window of 20; 3..22 are in it


def history() -> pd.DataFrame:
    rows = [execution(i, 1, f"2025-03-{i:02d} 10:00") for i in range(1, 23)]
    rows.append(execution(23, 1, "2025-03-23 10:00", "running"))
    return executions(rows)


def runs(scenario: int, env: dict[str, Any], pattern: str, first: int = FIRST) -> list[dict]:
    """One result per character of `pattern` ("." = no result), in executions from `first`."""
    return [
        result(first + i, scenario, LEVEL[ch], env, mobile=env is IPHONE)
        for i, ch in enumerate(pattern)
        if ch != "."
    ]


FLAKY = "PFPPFPPPFPPFPPPFPPPP"  # 10 flips in 20 runs


def planted() -> pd.DataFrame:
    rows: list[dict] = []
    rows += runs(11, CHROME, FLAKY) + runs(11, DESKTOP, "P" * 20)  # flaky on Chrome only
    rows += runs(9, CHROME, FLAKY)  # its twin: ties are ordered by scenario id
    rows += runs(2, DESKTOP, "F" * 20) + runs(2, CHROME, "P" * 20)  # environment-specific
    rows += runs(3, CHROME, "FF", first=1)  # broken long ago, outside the window
    rows += runs(3, CHROME, "P" * 10 + "F" * 10) + runs(3, DESKTOP, "P" * 10 + "F" * 10)
    rows += runs(4, CHROME, "F" * 8 + "P" * 12)  # fixed
    rows += runs(5, CHROME, "PWFN" + "P" * 16)  # warnings and waiting are not runs
    rows += runs(6, CHROME, "." * 16 + "PFPF")  # not enough runs
    rows += runs(7, DESKTOP, "F." * 10) + runs(7, CHROME, "P" * 20)  # Safari in half the runs
    envs = [CHROME, DESKTOP, FIREFOX, IPHONE, EDGE]  # rotating environments, alternating
    for i in range(20):
        rows += runs(8, envs[i % 5], "P" if i % 2 == 0 else "F", first=FIRST + i)
    rows += [result(23, 11, "FAILURE", CHROME)]  # the running execution does not count
    return results(rows)


def test_the_window_is_each_plans_last_finished_executions() -> None:
    positions = last_finished(history(), 20)
    assert positions["execution_id"].tolist() == list(range(3, 23))
    assert positions["position"].tolist() == list(range(20))
    short = last_finished(history(), 5)
    assert short["execution_id"].tolist() == [18, 19, 20, 21, 22]


def test_flips_runs_and_scores_per_environment() -> None:
    flaky = flaky_scenarios(history(), planted())
    env = flaky.environments.set_index(["scenario_id", "environment"])
    chrome = env.loc[(11, "CHROME / Windows 11")]
    assert (chrome["flips"], chrome["runs"]) == (10, 20)
    assert (chrome["passes"], chrome["fails"]) == (15, 5)
    assert chrome["score"] == pytest.approx(10 / 19)
    assert chrome["sequence"] == FLAKY
    assert bool(chrome["flagged"])
    warn = env.loc[(5, "CHROME / Windows 11")]
    assert (warn["runs"], warn["flips"]) == (18, 2)
    assert warn["sequence"] == "PWFN" + "P" * 16
    assert not bool(warn["flagged"])
    few = env.loc[(6, "CHROME / Windows 11")]
    assert (few["runs"], few["flips"], few["score"]) == (4, 3, 1.0)
    assert not bool(few["enough_runs"])
    assert not bool(few["flagged"])
    assert few["sequence"] == "." * 16 + "PFPF"


def test_exactly_the_flaky_scenarios_are_flagged() -> None:
    flaky = flaky_scenarios(history(), planted())
    flagged = flaky.flagged_scenarios()
    assert flagged["scenario_id"].tolist() == [8, 9, 11]  # most flaky first, ties by id
    reasons = dict(zip(flagged["scenario_id"], flagged["reason"], strict=True))
    assert reasons == {9: "environment", 11: "environment", 8: "scenario"}
    eleven = flagged.set_index("scenario_id").loc[11]
    assert eleven["worst_environment"] == "CHROME / Windows 11"
    assert (eleven["environments"], eleven["flaky_environments"]) == (2, 1)
    assert flaky.flagged_environments()["scenario_id"].tolist() == [9, 11]


def test_environment_specific_broken_and_fixed_are_not_flaky() -> None:
    scen = flaky_scenarios(history(), planted()).scenarios.set_index("scenario_id")
    for steady in (2, 3, 4):
        assert not bool(scen.loc[steady, "flagged"])
    assert scen.loc[2, "flips"] == 0  # a failure anywhere is the scenario's failure
    assert scen.loc[3, "flips"] == 1  # broke once, the older failures are outside the window
    assert scen.loc[4, "flips"] == 1
    # Safari tested in half the executions and always failing there: the scenario's own
    # sequence flips, but a consistently failing environment explains it.
    seven = scen.loc[7]
    assert seven["flips"] == 19
    assert seven["consistently_failing_environments"] == 1
    assert not bool(seven["flagged"])


def test_a_smaller_window_and_a_stricter_threshold() -> None:
    short = flaky_scenarios(history(), planted(), window=5)
    chrome = short.environments.set_index(["scenario_id", "env_key"]).xs(11, level=0).iloc[0]
    assert chrome["sequence"] == FLAKY[-5:]
    assert (chrome["runs"], chrome["flips"]) == (5, 1)
    strict = flaky_scenarios(history(), planted(), threshold=0.9)
    assert strict.flagged_scenarios()["scenario_id"].tolist() == [8]


def test_the_basis_says_what_was_read() -> None:
    flaky = flaky_scenarios(history(), planted())
    assert flaky.basis.executions == 20
    assert flaky.basis.with_results == 20
    assert flaky.basis.running == 0
    assert flaky.positions["execution_id"].iloc[-1] == 22


def test_no_results_and_bad_parameters() -> None:
    empty = flaky_scenarios(history(), results([]))
    assert empty.scenarios.empty
    assert empty.environments.empty
    assert empty.basis.with_results == 0
    with pytest.raises(ValueError, match="threshold"):
        flaky_scenarios(history(), planted(), threshold=0)
    with pytest.raises(ValueError, match="at least 2"):
        flaky_scenarios(history(), planted(), window=1)
    with pytest.raises(ValueError, match="finished"):
        flaky_scenarios(history().drop(columns="finished"), planted())


def test_one_flip_is_never_flaky_even_when_few_runs_put_its_score_at_the_threshold() -> None:
    rows = runs(12, CHROME, "." * 14 + "PPFFFF") + runs(13, CHROME, "." * 14 + "PFPPPP")
    flaky = flaky_scenarios(history(), results(rows))
    env = flaky.environments.set_index("scenario_id")
    broke = env.loc[12]
    assert (broke["flips"], broke["runs"], broke["score"]) == (1, 6, pytest.approx(0.2))
    assert not bool(broke["flagged"])
    twice = env.loc[13]  # two flips in six runs (0.4) is flaky
    assert bool(twice["flagged"])
    assert set(flaky.flagged_scenarios()["scenario_id"]) == {13}
