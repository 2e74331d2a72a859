"""Outages: executions that failed for a reason outside the tests (the grid was down), kept apart.

A finished execution is a *likely outage* when at least `OUTAGE_SHARE` (80 %) of its results
with a verdict failed, and it has at least `OUTAGE_MIN_RESULTS` (5) of them (a plan of two
scenarios failing both is two failures, not an outage). Its *dominant failure group* is the
message signature most of its failures share, when its results were read.

A viewer *confirms* an outage with an outage mark on the execution (which makes an outage of any
execution, whatever its share) or *dismisses* it with a "not an outage" mark (it then counts like
any other). By default outages are left out of flaky scores, environment figures and pass rates
(`without_outages`); every caption says so, and a control includes them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dashboard.analytics.failure_groups import normalise_messages
from dashboard.analytics.outcomes import FAIL, level_outcomes
from dashboard.columns import marks as mark_columns
from dashboard.columns.schemas import UTC_TIME
from dashboard.columns.shapes import require_columns, typed

OUTAGE_SHARE = 0.8
"""The share of an execution's verdicts that failed at or above which it is a likely outage."""
OUTAGE_MIN_RESULTS = 5
"""Results with a verdict an execution needs to be judged a likely outage."""

LIKELY, CONFIRMED = "likely", "confirmed"

OUTAGE_COLUMNS: dict[str, str] = {
    "execution_id": "int64",
    "plan_id": "Int64",
    "plan": "str",
    "start": UTC_TIME,
    "verdicts": "int64",
    "failed": "int64",
    "failed_share": "float64",  # failed / verdicts
    "state": "str",  # LIKELY (by its share) or CONFIRMED (an outage mark)
    "mark_id": "str",  # the outage mark, when confirmed
    "ticket": "str",  # its ticket
    "signature": "str",  # the dominant failure group; missing when its results were not read
    "signature_failures": "Int64",  # how many of its failures share it
}

_NEEDS = ("execution_id", "start", "plan_id", "finished", "verdicts", "failed")


def outages(
    executions: pd.DataFrame,
    marks: pd.DataFrame,
    results: pd.DataFrame | None = None,
    *,
    share: float = OUTAGE_SHARE,
    min_results: int = OUTAGE_MIN_RESULTS,
) -> pd.DataFrame:
    """The outages among `executions` (OUTAGE_COLUMNS, newest first): likely ones by their
    share of failures, less those a "not an outage" mark among `marks` (those that apply)
    dismisses, plus those an outage mark confirms. With `results`, each one's dominant failure
    group."""
    require_columns(executions, _NEEDS, "outages")
    if not 0 < share <= 1:
        raise ValueError(f"an outage share is in (0, 1], got {share}")
    if min_results < 1:
        raise ValueError(f"an outage needs at least 1 result, got {min_results}")
    on_executions = marks[marks["target"] == mark_columns.EXECUTION].drop_duplicates(
        "execution_id", keep="first"
    )
    kinds = on_executions.set_index(on_executions["execution_id"].astype("int64"))
    finished = executions["finished"].fillna(False).to_numpy(dtype=bool)
    verdicts = executions["verdicts"].fillna(0).to_numpy(dtype="int64")
    failed = executions["failed"].fillna(0).to_numpy(dtype="int64")
    with np.errstate(divide="ignore", invalid="ignore"):
        failed_share = np.where(verdicts > 0, failed / np.maximum(verdicts, 1), np.nan)
    likely = finished & (verdicts >= min_results) & (failed_share >= share - 1e-12)
    kind = executions["execution_id"].map(kinds["kind"]).to_numpy(dtype=object)
    confirmed = kind == mark_columns.OUTAGE
    dismissed = kind == mark_columns.NOT_AN_OUTAGE
    frame = executions.assign(_share=failed_share, _confirmed=confirmed)
    chosen = frame[(likely & ~dismissed) | confirmed]
    if chosen.empty:
        return typed(chosen, OUTAGE_COLUMNS)
    ids = chosen["execution_id"].astype("int64")
    out = pd.DataFrame(
        {
            "execution_id": ids,
            "plan_id": chosen["plan_id"],
            "plan": chosen["plan"] if "plan" in chosen.columns else pd.NA,
            "start": chosen["start"],
            "verdicts": chosen["verdicts"].fillna(0),
            "failed": chosen["failed"].fillna(0),
            "failed_share": chosen["_share"],
            "state": np.where(chosen["_confirmed"].to_numpy(dtype=bool), CONFIRMED, LIKELY),
            "mark_id": ids.map(kinds["mark_id"].where(kinds["kind"] == mark_columns.OUTAGE)),
            "ticket": ids.map(kinds["ticket"].where(kinds["kind"] == mark_columns.OUTAGE)),
        }
    )
    dominant = _dominant_groups(results, set(ids)) if results is not None else None
    if dominant is not None:
        out = out.join(dominant, on="execution_id")
    else:
        out = out.assign(signature=pd.NA, signature_failures=pd.NA)
    out = out.sort_values(["start", "execution_id"], ascending=False, kind="stable")
    return typed(out, OUTAGE_COLUMNS)


def _dominant_groups(results: pd.DataFrame, ids: set[int]) -> pd.DataFrame:
    """Per execution among `ids`: the message signature most of its failures share (ties: the
    first in order), and how many do."""
    require_columns(results, ("execution_id", "level", "message"), "outages")
    own = results[results["execution_id"].isin(ids)]
    failed = own[(level_outcomes(own["level"]) == FAIL).to_numpy()]
    if failed.empty:
        return pd.DataFrame(
            {"signature": pd.Series(dtype="str"), "signature_failures": pd.Series(dtype="Int64")}
        )
    counted = (
        failed.assign(signature=normalise_messages(failed["message"]).fillna(""))
        .groupby(["execution_id", "signature"], sort=True)
        .size()
        .rename("signature_failures")
        .reset_index()
        .sort_values(["execution_id", "signature_failures"], ascending=[True, False], kind="stable")
        .drop_duplicates("execution_id")
    )
    return counted.set_index("execution_id")[["signature", "signature_failures"]]


def with_signatures(found: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """`found` (`outages`) with each outage's dominant failure group read from `results`, where
    it holds the outage's failures; an outage whose failures it does not hold keeps what it
    had (its signature missing when its results were never read)."""
    if found.empty:
        return found
    dominant = _dominant_groups(results, {int(i) for i in found["execution_id"]})
    ids = found["execution_id"].astype("int64")
    named = ids.isin(dominant.index).to_numpy(dtype=bool)
    out = found.copy()
    out.loc[named, "signature"] = ids[named].map(dominant["signature"]).to_numpy()
    out.loc[named, "signature_failures"] = ids[named].map(dominant["signature_failures"]).to_numpy()
    return typed(out, OUTAGE_COLUMNS)


def without_outages(executions: pd.DataFrame, found: pd.DataFrame) -> pd.DataFrame:
    """`executions` without the outages `found` (`outages`)."""
    return executions[~executions["execution_id"].isin(found["execution_id"])]
