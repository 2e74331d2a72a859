"""What changed when a plan turned red: its last green execution beside its first red one.

For each pair (the last green execution, the first red one) of a plan:

- who started each, and when (the executions' `user` and `start`);
- whether the plan's settings changed between them. The plans answer holds only the latest
  change (`updated`, `updated_by`), so: "changed" when that change falls after the green
  execution started and at or before the red one started; "unchanged" when it is older than the
  green one; "changed since" when it came after the red one started (whether it also changed
  between them is then not known); "unknown" when the plan says no time;
- the environments each ran on, per desktop OS and browser: the versions of each side. A browser
  whose versions differ moved ("FIREFOX 129; was 128"); one on the red side only is new, one on
  the green side only is gone. A phone (its device is its browser) and a desktop environment
  with no version are compared by name only: their versions are not known, never a change.

A scenario that passed on one version of a desktop browser in the green execution and fails on
another version of it in the red one is, since environments are keyed without their version
(#38), a new failure of `compare.compare_pairs` on that environment, with both versions beside
it: `upgrades.upgrade_failures` names them. `version_moves`, which paired a "missing before"
with a "missing after" when the version was part of the key, finds none any more and is kept
(empty) for its callers until they read `upgrades`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from dashboard.analytics.environment_names import ENVIRONMENT_COLUMNS, with_environments
from dashboard.columns.schemas import UTC_TIME
from dashboard.columns.shapes import require_columns, typed

CHANGED = "changed"
UNCHANGED = "unchanged"
CHANGED_SINCE = "changed since"
UNKNOWN = "unknown"

CHANGE_PAIR_COLUMNS: dict[str, str] = {
    "plan_id": "Int64",
    "green_execution_id": "int64",
    "red_execution_id": "int64",
}
"""Which two executions of a plan are set side by side: the last green, the first red."""

PAIR_CHANGE_COLUMNS: dict[str, str] = {
    **CHANGE_PAIR_COLUMNS,
    "green_start": UTC_TIME,
    "red_start": UTC_TIME,
    "green_user": "str",
    "red_user": "str",
    "settings": "str",  # CHANGED / UNCHANGED / CHANGED_SINCE / UNKNOWN
    "plan_updated": UTC_TIME,
    "plan_updated_by": "str",
}

ENVIRONMENT_CHANGE_COLUMNS: dict[str, str] = {
    **CHANGE_PAIR_COLUMNS,
    "os": "str",
    "browser": "str",  # the browser, or a phone's device
    "mobile": "bool",
    "green_versions": "object",  # tuple of the versions the green execution ran, ascending
    "red_versions": "object",
    "change": "str",  # "moved", "new", "gone" or "unknown version"
}
"""Environments that differ between the two executions (the same ones are left out)."""

MOVED, NEW, GONE, UNKNOWN_VERSION = "moved", "new", "gone", "unknown version"

VERSION_MOVE_COLUMNS: dict[str, str] = {
    "before_execution_id": "int64",
    "after_execution_id": "int64",
    "scenario_id": "Int64",
    "after_env_key": "str",  # where it fails now
    "before_env_key": "str",  # where it passed
    "before_environment": "str",
    "browser": "str",
    "version": "str",  # the new version
    "previous_version": "str",
}


@dataclass(frozen=True, eq=False)
class WhatChanged:
    """pairs: `PAIR_CHANGE_COLUMNS`, one row per pair given, in its order. environments:
    `ENVIRONMENT_CHANGE_COLUMNS`, what differs, by pair then OS and browser."""

    pairs: pd.DataFrame
    environments: pd.DataFrame


def what_changed(
    pairs: pd.DataFrame,
    executions: pd.DataFrame,
    results: pd.DataFrame,
    plans: pd.DataFrame | None = None,
) -> WhatChanged:
    """What changed between each pair's green and red executions (module docstring).
    `pairs`: `CHANGE_PAIR_COLUMNS`; `executions`: rows of both executions (execution_id,
    start, user); `results`: their results (others are ignored); `plans`: the plans answer
    (plan_id, updated, updated_by), when known."""
    require_columns(pairs, tuple(CHANGE_PAIR_COLUMNS), "what changed")
    require_columns(executions, ("execution_id", "start", "user"), "what changed")
    pairs = typed(pairs, CHANGE_PAIR_COLUMNS)
    runs = executions.drop_duplicates("execution_id").set_index("execution_id")
    out = pairs.copy()
    for side in ("green", "red"):
        ids = out[f"{side}_execution_id"]
        out[f"{side}_start"] = ids.map(runs["start"]).astype(UTC_TIME)
        out[f"{side}_user"] = ids.map(runs["user"]).astype("str")
    if plans is not None and not plans.empty:
        require_columns(plans, ("plan_id", "updated", "updated_by"), "what changed")
        known = plans.drop_duplicates("plan_id").set_index("plan_id")
        out["plan_updated"] = out["plan_id"].map(known["updated"]).astype(UTC_TIME)
        out["plan_updated_by"] = out["plan_id"].map(known["updated_by"]).astype("str")
    else:
        out["plan_updated"] = pd.Series(pd.NaT, index=out.index, dtype=UTC_TIME)
        out["plan_updated_by"] = pd.Series(pd.NA, index=out.index, dtype="str")
    out["settings"] = [
        _settings(updated, green, red)
        for updated, green, red in out[["plan_updated", "green_start", "red_start"]].itertuples(
            index=False
        )
    ]
    return WhatChanged(
        pairs=typed(out, PAIR_CHANGE_COLUMNS),
        environments=environment_changes(pairs, results),
    )


def between(
    plan_id: int | None,
    before: int,
    after: int,
    executions: pd.DataFrame,
    results: pd.DataFrame,
    plans: pd.DataFrame | None = None,
) -> WhatChanged:
    """`what_changed` of one pair: `before` as the green execution, `after` as the red one."""
    pair = pd.DataFrame(
        {"plan_id": [plan_id], "green_execution_id": [before], "red_execution_id": [after]}
    )
    return what_changed(pair, executions, results, plans)


def _settings(updated: pd.Timestamp, green: pd.Timestamp, red: pd.Timestamp) -> str:
    if pd.isna(updated) or pd.isna(red):
        return UNKNOWN
    if updated > red:
        return CHANGED_SINCE
    if pd.isna(green):
        return UNKNOWN  # a change before the red one, but when the green one ran is not known
    return CHANGED if updated > green else UNCHANGED


def _families(results: pd.DataFrame) -> pd.DataFrame:
    """One row per result: execution, its environment key and label, OS, browser (a phone's
    device), version (missing on a phone or when not given) and whether it is a phone."""
    require_columns(results, ("execution_id", *ENVIRONMENT_COLUMNS), "environments")
    named = with_environments(results[["execution_id", *ENVIRONMENT_COLUMNS]])
    mobile = named["mobile"].fillna(named["browser"].isna() & named["device"].notna())
    mobile = mobile.astype(bool)
    browser = named["browser"].where(~mobile & named["browser"].notna(), named["device"])
    version = named["browser_version"].where(~mobile)
    return pd.DataFrame(
        {
            "execution_id": named["execution_id"].astype("int64"),
            "env_key": named["env_key"].astype("str"),
            "environment": named["environment"].astype("str"),
            "os": named["os"].astype("str"),
            "browser": browser.astype("str"),
            "version": version.astype("str"),
            "mobile": mobile,
        }
    )


def environment_changes(pairs: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """What differs between the environments of each pair's two executions
    (`ENVIRONMENT_CHANGE_COLUMNS`)."""
    pairs = typed(pairs, CHANGE_PAIR_COLUMNS)
    wanted = pd.concat([pairs["green_execution_id"], pairs["red_execution_id"]]).unique()
    mine = results[results["execution_id"].isin(wanted)]
    if mine.empty or pairs.empty:
        return typed(pd.DataFrame(), ENVIRONMENT_CHANGE_COLUMNS)
    seen = _families(mine).drop_duplicates(["execution_id", "os", "browser", "mobile", "version"])
    keys = ["os", "browser", "mobile"]
    rows = []
    for pair in pairs.itertuples(index=False):
        sides = {}
        for side, execution in (("green", pair.green_execution_id), ("red", pair.red_execution_id)):
            own = seen[seen["execution_id"] == execution]
            sides[side] = {
                key: tuple(group["version"].tolist())
                for key, group in own.groupby(keys, dropna=False, sort=True)
            }
        for key in sorted(set(sides["green"]) | set(sides["red"]), key=str):
            before, after = sides["green"].get(key), sides["red"].get(key)
            change = _change(before, after)
            if change is None:
                continue
            os, browser, mobile = key
            rows.append(
                {
                    "plan_id": pair.plan_id,
                    "green_execution_id": pair.green_execution_id,
                    "red_execution_id": pair.red_execution_id,
                    "os": os,
                    "browser": browser,
                    "mobile": bool(mobile),
                    "green_versions": _versions(before),
                    "red_versions": _versions(after),
                    "change": change,
                }
            )
    return typed(pd.DataFrame(rows), ENVIRONMENT_CHANGE_COLUMNS)


def _versions(values: tuple[object, ...] | None) -> tuple[str, ...]:
    return tuple(sorted(str(v) for v in values or () if not pd.isna(v)))


def _change(before: tuple[object, ...] | None, after: tuple[object, ...] | None) -> str | None:
    if before is None:
        return NEW
    if after is None:
        return GONE
    if any(pd.isna(v) for v in (*before, *after)):
        return UNKNOWN_VERSION
    return None if _versions(before) == _versions(after) else MOVED


def version_moves(compared: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """Superseded (#38): with environments keyed without their version, a scenario that passed
    on one version of a browser and fails on the next is a new failure of `compared` on the
    same cell, not a "missing before" beside a "missing after"; `upgrades.upgrade_failures`
    names those. Always an empty `VERSION_MOVE_COLUMNS` frame, so a caller that adds its rows
    to the new failures counts each once."""
    del compared, results
    return typed(pd.DataFrame(), VERSION_MOVE_COLUMNS)
