"""Statuses are data, not errors: whatever statuses the service sends (stopped, unexecuted, none
at all, names nobody knows, formula-shaped ones), every analytic and every table built on it
copes, and an execution with nothing that passed or failed has "no verdict".

Executions go the way the service's do: a JSON record, the client's model, the executions
frame; results are results-history rows with the same statuses as levels.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api_client import Execution, TestPlan
from dashboard.analytics import (
    compare,
    contradictions,
    environments,
    executions,
    failure_groups,
    flaky,
    health,
    history,
    plan_state,
    results,
    standup,
    windows,
)
from dashboard.analytics.verdicts import VERDICT_STATUSES
from dashboard.data.frames import executions_frame, plans_frame, status_counts_frame
from dashboard.present import digest as digest_text
from dashboard.present import standup as standup_view
from dashboard.present import tables
from tests.analytics.frames import result
from tests.analytics.frames import results as results_frame
from tests.client import samples

NOW = datetime(2025, 4, 10, 12, 0, tzinfo=UTC)
PLANS = (1, 2)
FORMULA = "=cmd|' /C calc'!A0"
NO_VERDICT_NOW = {tables.NO_VERDICT_LABEL, tables.NO_FINISHED_LABEL}

# Each example runs every analytic (about half a second): a few dozen examples a test.
# Statuses the dashboard has no verdict for: known non-verdicts, spellings, blanks, formulas,
# mentions, links and anything else.
ODD = st.one_of(
    st.sampled_from(
        [
            "STOPPED",
            "Stopped",
            "UNEXECUTED",
            "unexecuted",
            "",
            "  ",
            FORMULA,
            "+SUM(A1:A9)",
            "-1",
            "@here",
            "NaN",
            "None",
            "null",
            "FAIL\u200dURE",
            "https://evil.example/s",
            "<b>x</b>",
            "évalué",
            "🚀",
        ]
    ),
    st.text(max_size=12).filter(lambda s: s.strip().upper() not in VERDICT_STATUSES),
)
ANY = st.one_of(ODD, st.sampled_from(["SUCCESS", "FAILURE", "ERROR", "WARNING", "WAITING"]))


@st.composite
def histories(draw: st.DrawFn, statuses: st.SearchStrategy[str]) -> list[dict[str, Any]]:
    """Service records of 1-6 executions of two plans over the last days."""
    records = []
    for index in range(draw(st.integers(1, 6))):
        summary = draw(st.dictionaries(statuses, st.integers(-1, 3), max_size=4))
        start = NOW - timedelta(hours=draw(st.integers(1, 24 * 20)))
        finished = draw(st.booleans()) or index == 0
        records.append(
            samples.execution(
                500 + index,
                plan_id=draw(st.sampled_from(PLANS)),
                plan_name=draw(st.sampled_from(["Checkout", FORMULA, ""])),
                result_summary=summary or draw(st.sampled_from([summary, None])),
                start_date=start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                end_date=(start + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
                if finished
                else None,
                runtime=300_000 if finished else None,
            )
        )
    return records


def results_of(records: list[dict[str, Any]], levels: list[str]) -> pd.DataFrame:
    """Two scenarios a run, the drawn levels in turn, each execution's own plan and start."""
    rows = []
    for number, record in enumerate(records):
        for scenario in (21, 22):
            rows.append(
                result(
                    record["id"],
                    scenario,
                    levels[(number * 2 + scenario) % len(levels)],
                    plan_id=record["plan_id"],
                    start=pd.Timestamp(record["start_date"]),
                    message=f"{FORMULA} at https://evil.example/{number}",
                )
            )
    return results_frame(rows)


def has_verdict(summary: dict[str, int] | None) -> bool:
    return any(n > 0 and s.strip().upper() in VERDICT_STATUSES for s, n in (summary or {}).items())


def run_everything(records: list[dict[str, Any]], levels: list[str]) -> pd.DataFrame:
    """Every analytic over the history, and the tables, sections and chat digest built on them;
    returns the plans table as shown."""
    models = [Execution.model_validate(record) for record in records]
    frame, counts = executions_frame(models), status_counts_frame(models)
    found = results_of(records, levels)
    now = pd.Timestamp(NOW)

    states = plan_state.plan_states(frame)
    plans = plans_frame(
        [
            TestPlan.model_validate(samples.with_changes(samples.TEST_PLAN, id=plan))
            for plan in PLANS
        ]
    )
    shown = tables.plans_display(plans, states)
    shown_health = tables.health_display(health.plan_health(frame, now=now).plans, now=now)
    assert len(shown_health) == frame["plan_id"].nunique()
    tables.executions_display(frame, counts)
    executions.execution_kpis(frame)
    executions.pass_rate_per_day(frame)
    executions.status_counts_per_day(counts)
    executions.latest_executions(frame, counts, 3)
    for status in {*counts["status"], FORMULA}:
        executions.with_statuses(frame, counts, [status])
    contradictions.execution_contradictions(frame, now=NOW)

    window = windows.standup_window(now, at=time(9, 30))
    digest = standup.standup_digest(frame, window)
    needed = found[found["execution_id"].isin(digest.results_needed)]
    digest = standup.with_newly_failing(digest, needed)
    standup_view.sections(digest, lambda kind, ident: None)
    digest_text.digest_markdown(digest)

    flaky.flaky_scenarios(frame, found)
    environments.environment_report(frame, found)
    failure_groups.failure_groups(frame, found)
    results.level_breakdown(found)
    results.environment_matrix(found)
    for plan in PLANS:
        history.scenario_history(frame, found, plan, 21)
        pair = compare.default_pair(frame, plan)
        if pair is not None:
            compare.compare_executions(found, *pair, executions=frame)
    return shown


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=histories(ODD), levels=st.lists(ODD, min_size=1, max_size=3))
def test_executions_without_a_known_verdict_say_no_verdict(
    records: list[dict[str, Any]], levels: list[str]
) -> None:
    shown = run_everything(records, levels)

    now = dict(zip(shown["Id"], shown["Now"], strict=True))
    for plan in PLANS:
        assert now[plan].removesuffix(" (one running)") in NO_VERDICT_NOW, now[plan]
    for record in records:
        if record["end_date"] is not None:  # a finished execution without a verdict
            assert now[record["plan_id"]].startswith(tables.NO_VERDICT_LABEL)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=histories(ANY), levels=st.lists(ANY, min_size=1, max_size=3))
def test_any_mix_of_statuses_is_data(records: list[dict[str, Any]], levels: list[str]) -> None:
    shown = run_everything(records, levels)

    now = dict(zip(shown["Id"], shown["Now"], strict=True))
    for plan in PLANS:
        mine = [r for r in records if r["plan_id"] == plan]
        if not any(has_verdict(r["result_summary"]) for r in mine):
            assert now[plan].removesuffix(" (one running)") in NO_VERDICT_NOW, now[plan]


def test_the_stopped_execution_of_the_red_team_has_no_verdict() -> None:
    """The only execution in scope stopped: `{"STOPPED": 1}` (it crashed Plans, Standup and
    Plan health)."""
    record = samples.execution(
        900,
        plan_id=1,
        result_summary={"STOPPED": 1},
        start_date="2025-04-10T08:00:00Z",
        end_date="2025-04-10T08:05:00Z",
    )

    shown = run_everything([record], ["STOPPED"])

    assert shown.set_index("Id").loc[1, "Now"] == "\u2013 no verdict"
    assert shown.set_index("Id").loc[2, "Now"] == "\u2013 no finished run"
