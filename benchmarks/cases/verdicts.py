"""The triage verdict's cost (issue #37): one verdict per failed result at 100,000 executions,
beside the Failures page's own computing in the same run.

The Failures page (`app_pages/failures.py`) reads the 90 days of executions, the results of
each plan's last W (20) finished ones and of the period's failing executions, then computes
the one verdict per failed result of the period (`analytics.triage.failure_verdicts`, which
`ui.triage.verdicts_of` caches per input) and its view (`present.failures_view.failures_view`:
the rows, figures, captions and table). This case gives both exactly those frames, built in
this process from the sandbox's own derivation (`benchmarks.data`, no HTTP), for the page's
default period (7 days) and for 30 days, with the company's ledger empty, and times:

- the verdicts of the period's failed results (`failure_verdicts`), against
- the view given those verdicts (`failures_view`): the page's computing without the verdict;
- the page's computing before the verdicts: the view and the window's states it then computed
  itself (outages found and left out, `scenario_states`, `latest_pass_first`; the view now
  reads them from the verdicts, `shown_state`), #37's "today's";
- both together, the page's computing now: its ratio to the page before the verdicts is #37's
  target (at most 1.2x), its ratio to the view alone what the verdict adds.

Each runs once untimed first (the failure signatures, which `normalise_message` keeps per
distinct message, are warm on a page's second visit). Reading the data is not timed: the
page's cache and the history store hold it.

Part of the suite (`python -m benchmarks`); run it alone with
`python -m benchmarks --only verdicts --json FILE` (FILE keeps the suite's results
file as it is).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pandas as pd

from api_client import Execution
from benchmarks import data
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Target, timed
from dashboard.analytics import states as state_rules
from dashboard.analytics.flaky import last_finished
from dashboard.analytics.marks import applying
from dashboard.analytics.outages import outages, without_outages
from dashboard.analytics.triage import failure_verdicts
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.data import frames
from dashboard.data.store.records import results_frame
from dashboard.present import failures_view
from dashboard.state import links
from sandbox.store import DemoStore

NAME = "verdicts"
TITLE = "11. The triage verdict beside the Failures page"
PERIODS = (7, 30)  # days: the page's default period, and its 30 d preset
AT_MOST_1_2X = Target(Bound.RATIO_AT_MOST, 1.2, "<= 1.2x the page before the verdicts (#37)")


def run(run: Run) -> CaseResult:
    result = CaseResult(NAME, TITLE)
    demo = run.demo(run.size.page_executions)
    executions = _executions(demo)
    now = run.now
    window = executions[
        executions["execution_id"].isin(
            last_finished(executions, failures_view.WINDOW)["execution_id"]
        )
    ]
    window_results = _results(demo, window["execution_id"].tolist())
    plan_names = {int(p): f"plan {p}" for p in executions["plan_id"].dropna().unique()}
    ledger = empty(MARK_COLUMNS)
    notes = []
    for days in PERIODS:
        runs = failures_view.period_runs(
            executions, None, start=now - timedelta(days=days), end=None
        )
        failing_results = _results(demo, list(runs.judged))
        history = failures_view.triage_results(window_results, failing_results)

        def verdicts(
            history: pd.DataFrame = history, runs: failures_view.PeriodRuns = runs
        ) -> pd.DataFrame:
            return failure_verdicts(
                history, runs.executions, ledger, now=pd.Timestamp(now), judged=runs.judged
            )

        def view(
            given: pd.DataFrame,
            runs: failures_view.PeriodRuns = runs,
            failing_results: pd.DataFrame = failing_results,
        ) -> Any:
            return failures_view.failures_view(
                executions,
                window_results,
                window,
                runs,
                failing_results,
                verdicts=given,
                include_outages=False,
                only=(),
                now=now,
                scope="every plan",
                plan_names=plan_names,
                scenario_link=links.scenario_link,
                results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
                tz="UTC",
            )

        def own_states() -> Any:
            """The window's states as the view computed them itself before the verdicts."""
            found = outages(executions, applying(ledger, now), window_results)
            kept = window_results[~window_results["execution_id"].isin(found["execution_id"])]
            return state_rules.latest_pass_first(
                state_rules.scenario_states(without_outages(executions, found), kept)
            )

        judged = verdicts()  # the first visit, untimed
        view(judged)
        own_states()
        alone = result.figure(f"{days} d: the page's view, given the verdicts", "s")
        before = result.figure(
            f"{days} d: the page before the verdicts (the view and its own window states)", "s"
        )
        costs = result.figure(f"{days} d: the verdicts (failure_verdicts)", "s", peer=alone.name)
        both = result.figure(
            f"{days} d: verdicts and view, the page's computing now",
            "s",
            peer=before.name,
            target=AT_MOST_1_2X,
        )
        for _ in range(run.repeats()):
            seconds, judged = timed(verdicts)
            costs.runs.append(seconds)
            shown = timed(view, judged)[0]
            alone.runs.append(shown)
            both.runs.append(seconds + shown)
            before.runs.append(shown + timed(own_states)[0])
        notes.append(
            f"{days} d: {len(runs.judged):,} failing executions, {len(judged):,} failed results "
            f"judged over {len(history):,} results"
        )
    result.notes.append(
        f"{len(executions):,} executions of company 1 (of a {run.size.page_executions:,}-"
        f"execution demo), {len(window):,} in each plan's last {failures_view.WINDOW} finished "
        f"({len(window_results):,} results); " + "; ".join(notes) + ". No marks."
    )
    return result


def _executions(demo: DemoStore) -> pd.DataFrame:
    """Company 1's executions of the last 90 days as the page's frame (`EXECUTION_COLUMNS`)."""
    models = [
        Execution.model_validate(record.model_dump(mode="json"))
        for record in data.execution_records(demo, data.LEAD_COMPANY)
    ]
    executions = frames.executions_frame(models)
    since = executions["start"].max() - pd.Timedelta(days=90)
    return executions[executions["start"] >= since].reset_index(drop=True)


def _results(demo: DemoStore, execution_ids: Sequence[int]) -> pd.DataFrame:
    """The results of `execution_ids` (`RESULT_HISTORY_COLUMNS`), each filed under its pair."""
    records: list[Any] = []
    owners: list[tuple[int, int]] = []
    for execution_id in dict.fromkeys(int(i) for i in execution_ids):
        kept = demo.execution(execution_id)
        if kept is None:
            continue
        own = demo.execution_results(kept, data.LOG_ROOT)
        records += own
        owners += [(execution_id, r.scenario_id) for r in own]
    parsed = data.parse_results(data.as_json(records))
    return results_frame(
        parsed, execution_ids=[e for e, _ in owners], scenario_ids=[s for _, s in owners]
    )
