"""How long things stay red: each plan's red stretches, its time to green, how many plans
turned red and back, and how old each failure group is.

A plan is judged on its judged executions (`plan_state.judged_executions`: finished, with a
verdict), oldest first. A *red stretch* is a run of failing judged executions in a row: it
starts (`red_from`) when the first of them started and ends (`red_to`) when the next judged
execution, a pass, started: the time to green. A stretch still red has no end; its length runs
to `now`. A stretch that starts with the oldest judged execution given is red "at least" since
then (`from_is_bound`): its true start is older than the history, so its length is not a time
to green and is left out of the medians.

Time to green over D days: the median length of the stretches that ended (turned green) in the
last D days. Its trend sets the newer half of the stretches that ended in the long period (90
days) against the older half (the newer half holds the odd one): the median of the newer over
the median of the older, minus 1. It needs `TREND_MIN_STRETCHES` (4) such stretches, two a
half: a median of one stretch is that stretch, and one slow fix is not a trend. It needs no
history older than the short period: a plan red eight times in four weeks has a trend.
Turned red / back to green in the last 7 days count stretches that started / ended then (a
stretch whose start is a bound did not start in the history, so it is not counted as turned
red).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd

from dashboard.analytics.basis import Basis, execution_basis
from dashboard.analytics.outcomes import FAIL
from dashboard.analytics.plan_state import judged_executions
from dashboard.columns.schemas import PLAN_AND_PROJECT, UTC_TIME
from dashboard.columns.shapes import as_utc, require_columns, typed

DURATION = "timedelta64[us]"
SHORT_DAYS = 30
LONG_DAYS = 90
WEEK_DAYS = 7
TREND_MIN_STRETCHES = 4
"""Stretches that ended in the long period a trend needs: two for each half it compares."""

STRETCH_COLUMNS: dict[str, str] = {
    **PLAN_AND_PROJECT,
    "first_red_execution_id": "int64",
    "red_from": UTC_TIME,  # when its first failing execution started
    "last_red_execution_id": "int64",
    "last_red_start": UTC_TIME,
    "executions": "int64",  # failing executions in the stretch
    "green_execution_id": "Int64",  # the passing execution that ended it; missing while red
    "red_to": UTC_TIME,  # when that execution started; missing while red
    "duration": DURATION,  # red_to - red_from, or now - red_from while red
    "open": "bool",  # still red
    "from_is_bound": "bool",  # starts with the oldest judged execution: red at least since
    "last_green_execution_id": "Int64",  # the passing execution before it (missing if bound)
    "last_green_start": UTC_TIME,
}

TIME_TO_GREEN_COLUMNS: dict[str, str] = {
    **PLAN_AND_PROJECT,
    "judged": "int64",  # judged executions of the plan in the history
    "ever_green": "bool",  # a judged execution of it passed
    "red_now": "bool",
    "red_since": UTC_TIME,  # the open stretch's start, when red now
    "red_for": DURATION,  # its length so far
    "red_for_is_bound": "boolean",  # it started before the history: at least this long
    "red_executions": "Int64",  # failing executions in it
    "stretches": "int64",  # red stretches in the history (open and bound included)
    "stretches_short": "int64",  # ended in the last `short_days`
    "median_short": DURATION,  # their median length (missing when none)
    "stretches_long": "int64",  # ended in the last `long_days`
    "median_long": DURATION,
    "median_newer": DURATION,  # the newer half of the stretches that ended in the long period
    "median_older": DURATION,  # the older half (both missing below `TREND_MIN_STRETCHES`)
    "trend": "float64",  # median_newer / median_older - 1 (-0.5: turns green twice as fast)
}


@dataclass(frozen=True)
class RedTurns:
    """Stretches that started (turned red) and ended (back to green) in the last `days`."""

    turned_red: int
    back_to_green: int
    days: int


@dataclass(frozen=True, eq=False)
class TimeToGreen:
    """stretches: `STRETCH_COLUMNS`, newest start first. plans: `TIME_TO_GREEN_COLUMNS`, one
    row per plan with a judged execution, red ones first (longest red first), then by name.
    turns: the last week's turns. basis: the executions given. trend_min_stretches: the
    stretches that ended in the long period a trend needs."""

    stretches: pd.DataFrame
    plans: pd.DataFrame
    turns: RedTurns
    basis: Basis
    now: pd.Timestamp
    short_days: int
    long_days: int
    trend_min_stretches: int = TREND_MIN_STRETCHES


def red_stretches(executions: pd.DataFrame, *, now: datetime | pd.Timestamp) -> pd.DataFrame:
    """Every red stretch of every plan in `executions` (module docstring), newest start first
    (`STRETCH_COLUMNS`)."""
    current = as_utc(now, "now")
    judged = judged_executions(executions).reset_index(drop=True)
    if judged.empty:
        return typed(judged, STRETCH_COLUMNS)
    for name in ("plan", "project_id", "project"):
        if name not in judged.columns:
            judged[name] = pd.NA
    plan = judged["plan_id"].to_numpy()
    failing = (judged["outcome"] == FAIL).to_numpy()
    same_plan_before = np.zeros(len(judged), dtype=bool)
    same_plan_before[1:] = plan[1:] == plan[:-1]
    failing_before = np.zeros(len(judged), dtype=bool)
    failing_before[1:] = failing[:-1]
    starts = failing & ~(same_plan_before & failing_before)
    stretch = np.cumsum(starts)
    position = np.arange(len(judged))
    ids = stretch[failing]
    first = pd.Series(position[failing]).groupby(ids).min().to_numpy()
    last = pd.Series(position[failing]).groupby(ids).max().to_numpy()
    head, tail = judged.iloc[first], judged.iloc[last]
    out = pd.DataFrame(
        {
            "plan_id": head["plan_id"].array,
            "plan": head["plan"].array,
            "project_id": head["project_id"].array,
            "project": head["project"].array,
            "first_red_execution_id": head["execution_id"].array,
            "red_from": head["start"].array,
            "last_red_execution_id": tail["execution_id"].array,
            "last_red_start": tail["start"].array,
            "executions": last - first + 1,
        }
    )
    # The judged execution after a stretch, of the same plan, passed: it ended the stretch.
    after = np.minimum(last + 1, len(judged) - 1)
    ended = (last + 1 < len(judged)) & (plan[after] == plan[last])
    out["green_execution_id"] = _where(ended, judged["execution_id"].array[after], "Int64")
    out["red_to"] = _where(ended, judged["start"].array[after], UTC_TIME)
    # The judged execution before it, of the same plan, passed: the last green one.
    before = np.maximum(first - 1, 0)
    known = (first > 0) & (plan[before] == plan[first])
    out["last_green_execution_id"] = _where(known, judged["execution_id"].array[before], "Int64")
    out["last_green_start"] = _where(known, judged["start"].array[before], UTC_TIME)
    out["from_is_bound"] = ~known
    out["open"] = out["red_to"].isna()
    end = out["red_to"].fillna(current)
    out["duration"] = end - out["red_from"]
    out = out.sort_values(["red_from", "plan_id"], ascending=[False, True], kind="stable")
    return typed(out, STRETCH_COLUMNS)


def _where(mask: np.ndarray, values: Any, dtype: str) -> pd.Series:
    """`values` (an array) where `mask`, missing elsewhere, as `dtype`."""
    column = pd.Series(values).astype(dtype)
    return column.where(pd.Series(mask))


def time_to_green(
    executions: pd.DataFrame,
    *,
    now: datetime | pd.Timestamp,
    short_days: int = SHORT_DAYS,
    long_days: int = LONG_DAYS,
    week_days: int = WEEK_DAYS,
) -> TimeToGreen:
    """Red stretches and time to green per plan over `executions` (module docstring). Needs
    execution_id, start, plan_id, finished, verdicts and failed; plan and project columns are
    carried when present."""
    require_columns(
        executions,
        ("execution_id", "start", "plan_id", "finished", "verdicts", "failed"),
        "time to green",
    )
    if not 0 < short_days < long_days:
        raise ValueError("time to green needs 0 < short_days < long_days")
    current = as_utc(now, "now")
    frame = executions[executions["plan_id"].notna() & (executions["start"] < current)]
    stretches = red_stretches(frame, now=current)
    judged = judged_executions(frame)
    plans = _per_plan(judged, stretches, current, short_days, long_days)
    week = current - pd.Timedelta(days=week_days)
    turned = stretches[(stretches["red_from"] >= week) & ~stretches["from_is_bound"]]
    back = stretches[stretches["red_to"] >= week]
    return TimeToGreen(
        stretches=stretches,
        plans=plans,
        turns=RedTurns(turned_red=len(turned), back_to_green=len(back), days=week_days),
        basis=execution_basis(frame),
        now=current,
        short_days=short_days,
        long_days=long_days,
    )


def _per_plan(
    judged: pd.DataFrame,
    stretches: pd.DataFrame,
    now: pd.Timestamp,
    short_days: int,
    long_days: int,
) -> pd.DataFrame:
    if judged.empty:
        return typed(judged, TIME_TO_GREEN_COLUMNS)
    for name in ("plan", "project_id", "project"):
        if name not in judged.columns:
            judged = judged.assign(**{name: pd.NA})
    latest = judged.drop_duplicates("plan_id", keep="last").set_index("plan_id")
    out = latest[["plan", "project_id", "project"]].copy()
    out["judged"] = judged.groupby("plan_id").size()
    out["ever_green"] = (judged["outcome"] != FAIL).groupby(judged["plan_id"]).any()

    open_ = stretches[stretches["open"]].set_index("plan_id")
    out["red_now"] = out.index.isin(open_.index)
    out["red_since"] = open_["red_from"]
    out["red_for"] = open_["duration"]
    out["red_for_is_bound"] = open_["from_is_bound"].astype("boolean")
    out["red_executions"] = open_["executions"].astype("Int64")
    out["stretches"] = stretches.groupby("plan_id").size()
    out["stretches"] = out["stretches"].fillna(0)

    closed = stretches[~stretches["open"] & ~stretches["from_is_bound"]]
    short_start = now - pd.Timedelta(days=short_days)
    long_start = now - pd.Timedelta(days=long_days)
    periods = {
        "short": closed[closed["red_to"] >= short_start],
        "long": closed[closed["red_to"] >= long_start],
    }
    for name, chosen in periods.items():
        lengths = chosen.groupby("plan_id")["duration"]
        out[f"stretches_{name}"] = lengths.size()
        out[f"stretches_{name}"] = out[f"stretches_{name}"].fillna(0)
        out[f"median_{name}"] = lengths.median()
    newer, older = _halves(periods["long"])
    out["median_newer"] = newer.groupby("plan_id")["duration"].median()
    out["median_older"] = older.groupby("plan_id")["duration"].median()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["trend"] = (
            out["median_newer"] / out["median_older"].where(out["median_older"] > pd.Timedelta(0))
            - 1
        )
    out = out.reset_index()
    out["_red_for"] = out["red_for"].dt.total_seconds().fillna(-1.0)
    out = out.sort_values(
        ["red_now", "_red_for", "plan", "plan_id"],
        ascending=[False, False, True, True],
        kind="stable",
        na_position="last",
    )
    return typed(out, TIME_TO_GREEN_COLUMNS)


def _halves(ended: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each plan's stretches of `ended` (closed, in the long period) in two halves by when
    they turned green, newer and older (the newer holds the odd one); plans with fewer than
    `TREND_MIN_STRETCHES` are left out of both."""
    ordered = ended.sort_values(["plan_id", "red_to"], kind="stable")
    count = ordered.groupby("plan_id")["red_to"].transform("size")
    rank = ordered.groupby("plan_id").cumcount()  # 0: the oldest
    enough = count >= TREND_MIN_STRETCHES
    newer = rank >= count // 2
    return ordered[enough & newer], ordered[enough & ~newer]


GROUP_AGE_COLUMNS: dict[str, str] = {
    "signature": "str",
    "age": DURATION,  # now - first_seen
    "since_last": DURATION,  # now - last_seen
    "first_seen_is_bound": "bool",  # first seen in its plan's oldest execution given
}


def failure_group_ages(
    groups: pd.DataFrame, executions: pd.DataFrame, *, now: datetime | pd.Timestamp
) -> pd.DataFrame:
    """How old each failure group (`failure_groups.GROUP_COLUMNS`) is, and how long since it
    was last seen (`GROUP_AGE_COLUMNS`, in the groups' order). A group first seen in the oldest
    execution of its plan in `executions` may be older than the history: its age is a bound."""
    require_columns(groups, ("signature", "first_seen", "last_seen", "execution_ids"), "ages")
    require_columns(executions, ("execution_id", "start", "plan_id"), "ages")
    current = as_utc(now, "now")
    runs = executions[executions["plan_id"].notna()].drop_duplicates("execution_id")
    oldest = runs.groupby("plan_id")["start"].min()
    # Every group's executions at once (a window has tens of thousands of groups per
    # scenario): each group's first known execution, against its plan's oldest.
    lengths = [len(ids) for ids in groups["execution_ids"]]
    pairs = pd.DataFrame(
        {
            "group": np.repeat(np.arange(len(groups)), lengths),
            "execution_id": np.fromiter(
                (int(i) for ids in groups["execution_ids"] for i in ids), "int64", sum(lengths)
            ),
        }
    ).merge(runs[["execution_id", "plan_id", "start"]], on="execution_id", how="inner")
    pairs = pairs[pairs["start"].notna()]
    first = pairs.sort_values(["group", "start"], kind="stable").drop_duplicates("group")
    found: dict[int, bool] = {}
    if not first.empty:
        at_oldest = first["start"] <= first["plan_id"].map(oldest)
        found = dict(zip(first["group"].tolist(), at_oldest.tolist(), strict=True))
    bound = [bool(found.get(position, True)) for position in range(len(groups))]
    return typed(
        pd.DataFrame(
            {
                "signature": groups["signature"],
                "age": current - groups["first_seen"],
                "since_last": current - groups["last_seen"],
                "first_seen_is_bound": bound,
            }
        ),
        GROUP_AGE_COLUMNS,
    )
