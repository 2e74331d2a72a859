"""The trend and run pages read the one verdict per failed result (`analytics.triage`): Scenario
history's label now, Execution results' outage line and labels, Plan health's "Now" and Time to
green's outage stretches, each on `triage_frames`' hand-built world with known answers."""

from __future__ import annotations

import pandas as pd
import pytest

from dashboard.analytics import triage
from dashboard.present import scenario_view
from tests.analytics.triage_frames import (
    CHROME_LABEL,
    NO_MARKS,
    NOW,
    SAFARI_LABEL,
    WORLD,
    mark,
    marks,
    world,
)

PASSES_BUT_IN_THE_OUTAGE = {8: {"chrome": "PPPPPPPPPP", "safari": "PPPPPPPPPP"}}


def judged(
    scenarios: dict[int, dict[str, str]] = WORLD, the_marks: pd.DataFrame = NO_MARKS
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(verdicts, results, executions) of a world, outage night included."""
    found, executions = world(scenarios)
    return triage.failure_verdicts(found, executions, the_marks, now=NOW), found, executions


# -- Scenario history: its label now, with its evidence -------------------------------------


@pytest.mark.parametrize(
    ("scenario", "label", "evidence"),
    [
        (1, triage.NEW, f"first failure on {CHROME_LABEL}, after 9 runs there without one"),
        (2, triage.BROKEN, "failed 10 of its last 10 runs since 10 Nov"),
        (3, triage.FLAKY, f"9 flips in 10 runs on {CHROME_LABEL} since 10 Nov"),
        (4, triage.ENVIRONMENT_SPECIFIC, f"fails only on {SAFARI_LABEL}: 10 of 10 runs"),
        (5, triage.RECOVERING, "passes now: its last run passed on 19 Nov"),
        (6, triage.ENVIRONMENT_SPECIFIC, f"fails only on {CHROME_LABEL}: 10 of 10 runs"),
        (7, triage.UNRESOLVED, "failed 3 of its 10 runs since 10 Nov"),
    ],
)
def test_the_scenario_says_the_verdict_of_its_latest_failure(
    scenario: int, label: str, evidence: str
) -> None:
    verdicts, results, _ = judged()

    now = scenario_view.current_label(verdicts, results, plan=1, scenario=scenario, tz="UTC")

    assert now.label == label
    assert now.text is not None
    assert now.text.startswith("Now: ")
    assert evidence in now.text


def test_a_just_fixed_scenario_is_recovering_not_broken() -> None:
    """Scenario 5 failed 9 of its last 10 runs and passed the 10th: `states` says broken."""
    verdicts, results, _ = judged()

    now = scenario_view.current_label(verdicts, results, plan=1, scenario=5, tz="UTC")

    assert now.label == triage.RECOVERING
    assert now.text is not None
    assert "broken" not in now.text


def test_a_scenario_that_failed_only_in_the_outage_is_passing_and_says_the_outage() -> None:
    verdicts, results, _ = judged({**WORLD, **PASSES_BUT_IN_THE_OUTAGE})

    now = scenario_view.current_label(verdicts, results, plan=1, scenario=8, tz="UTC")

    assert now.label == "passing"
    assert now.text == (
        "Now: \u2714 passing \u2014 no failure in its 10 runs of the window but in an outage "
        "(in the likely outage of 15 Nov 02:00: 94 % of the run failed with one message)"
    )


def test_a_known_failure_says_its_mark() -> None:
    known = marks(mark("shop-123", "scenario", plan_id=1, scenario_id=2))
    verdicts, results, _ = judged(the_marks=known)

    now = scenario_view.current_label(verdicts, results, plan=1, scenario=2, tz="UTC")

    assert now.label == triage.KNOWN
    assert now.text is not None
    assert "known: SHOP-123, owner ann" in now.text


def test_a_scenario_without_a_run_says_nothing() -> None:
    verdicts, results, _ = judged()

    now = scenario_view.current_label(verdicts, results, plan=1, scenario=99, tz="UTC")

    assert now.text is None
