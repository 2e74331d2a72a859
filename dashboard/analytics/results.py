"""Summaries of one execution's results: levels, and the outcome per OS and browser."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.verdicts import FAILING_STATUSES, PASSED_STATUSES, ordered_statuses
from dashboard.columns.shapes import typed_rows


def level_breakdown(results: pd.DataFrame) -> pd.DataFrame:
    """How many results have each level, in the fixed status order: columns level, count."""
    counts = results["level"].fillna("(none)").value_counts()
    order = ordered_statuses(counts.index)
    return pd.DataFrame(
        {"level": pd.Series(order, dtype="str"), "count": [int(counts[s]) for s in order]}
    ).astype({"count": "int64"})


OUTCOME_ORDER = ("all passed", "some failed", "all failed", "no verdict")


def environment_matrix(results: pd.DataFrame) -> pd.DataFrame:
    """Outcome per (OS, browser): columns os, browser, results, passed, failed, outcome."""
    schema = {
        "os": "str",
        "browser": "str",
        "results": "int64",
        "passed": "int64",
        "failed": "int64",
        "outcome": "str",
    }
    if results.empty:
        return typed_rows([], schema)
    level = results["level"].fillna("").str.upper()
    marked = pd.DataFrame(
        {
            "os": results["os"].fillna("(unknown OS)"),
            "browser": results["browser"].fillna("(unknown browser)"),
            "passed": level.isin(PASSED_STATUSES).astype("int64"),
            "failed": level.isin(FAILING_STATUSES).astype("int64"),
        }
    )
    matrix = marked.groupby(["os", "browser"], as_index=False).agg(
        results=("passed", "size"), passed=("passed", "sum"), failed=("failed", "sum")
    )
    matrix["outcome"] = [
        _outcome(int(r), int(p), int(f))
        for r, p, f in matrix[["results", "passed", "failed"]].itertuples(index=False)
    ]
    return matrix[list(schema)].astype(schema)


def _outcome(results: int, passed: int, failed: int) -> str:
    if failed and failed == results:
        return "all failed"
    if failed:
        return "some failed"
    if passed == results:
        return "all passed"
    return "no verdict"
