"""Case 5, memory: the dashboard process's peak resident set after case 4's views (90 days at
100,000 executions, Standup and Plan health), and the bytes per row of the frames it holds.

The peak is `VmHWM` of the `streamlit` process, read from /proc after the last view. No page
loads 50,000 stored results at once (the fan-out loads only the few executions the Standup needs),
so their share is added from the measured size of a 50,000-row results frame; the note says so.
When case 4 did not run in this invocation, its views are run here first.
"""

from __future__ import annotations

from benchmarks import data
from benchmarks.cases import pages
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Target
from dashboard.data import frames
from dashboard.data.store import records

NAME = "memory"
TITLE = "5. Memory"
MB = 1e6
UNDER_600 = Target(Bound.VALUE_AT_MOST, 600, "< 600 MB")
UNDER_450 = Target(Bound.VALUE_AT_MOST, 450, "< 450 MB (#27)")


def run(run: Run) -> CaseResult:
    size = run.size
    result = CaseResult(NAME, TITLE)

    demo = run.demo(size.parse_records)
    body, executions = data.executions_json(demo, size.parse_records)
    frame = frames.executions_frame(data.parse_executions(body))
    per_execution = float(frame.memory_usage(deep=True).sum()) / len(frame)
    result.figure("executions frame, bytes per row", "bytes").runs.append(per_execution)

    body, results = data.results_json(demo, size.memory_results)
    held = records.results_frame(data.parse_results(body))
    results_bytes = float(held.memory_usage(deep=True).sum())
    result.figure("results frame, bytes per row", "bytes").runs.append(results_bytes / len(held))
    result.figure(f"results frame of {results:,} rows", "MB").runs.append(results_bytes / MB)

    if not run.browser_views_tried:
        views = pages.run(run)
        if views.status != "ok":
            result.notes += views.notes
    if run.dashboard_memory:
        peak = result.figure("dashboard peak RSS (VmHWM)", "MB", target=UNDER_450)
        resident = result.figure("dashboard RSS after the views (VmRSS)", "MB")
        for memory in run.dashboard_memory:
            peak.runs.append(memory.peak / MB)
            resident.runs.append(memory.resident / MB)
        result.figure(
            f"estimate: peak + {results:,} stored results", "MB", target=UNDER_600, computed=True
        ).runs.append(peak.median + results_bytes / MB)
    else:
        result.notes.append("the dashboard's memory was not measured: case 4 could not run")
    result.notes += [
        f"Bytes per row are pandas' deep `memory_usage` of the frames the pages use: "
        f"`executions_frame` of {executions:,} executions, `results_frame` of {results:,} "
        "results.",
        "The peak is per fresh server of case 4, after all its views (one figure per run).",
        f"No page holds {results:,} stored results yet, so the estimate adds the measured size "
        "of a results frame that long to the peak; pandas copies on the way (concat, sort) can "
        "briefly double it.",
    ]
    return result
