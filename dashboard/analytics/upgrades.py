"""New failures that started with a browser upgrade.

An environment's identity has no version (`environment_names`), so a scenario that passed on
CHROME 130 / Windows 10 and fails on CHROME 131 / Windows 10 in the next execution is a *new
failure* on CHROME / Windows 10 (`compare.compare_pairs`). It *started with a browser upgrade*
when its desktop browser's version differs between the two sides, both known: the evidence a
lead reads first ("2 new failures started with a browser upgrade"). A phone (its browser is its
device) or a version the service did not give is never an upgrade.

The same rule serves Compare (the pair a lead picked), the standup (each plan's latest judged
execution and the one before) and what changed between a plan's last green and first red
execution: give it the cells of `compare.compare_pairs` of those pairs.
"""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.compare import NEW_FAILURE
from dashboard.columns.shapes import require_columns, typed

UPGRADE_COLUMNS: dict[str, str] = {
    "plan_id": "Int64",
    "before_execution_id": "int64",
    "after_execution_id": "int64",
    "scenario_id": "Int64",
    "env_key": "str",
    "environment": "str",  # the identity: "CHROME / Windows 10"
    "browser": "str",
    "before_version": "str",  # the version it passed on
    "after_version": "str",  # the version it fails on
    "after_result_id": "Int64",
}
"""A new failure that started with a browser upgrade, by pair, scenario and environment."""

_NEEDED = ("bucket", "before_version", "after_version")


def upgraded(cells: pd.DataFrame) -> pd.Series:
    """Whether each compared cell (`compare.COMPARE_COLUMNS`) is a new failure whose desktop
    browser's version moved between the two sides (a bool Series on the cells' index)."""
    require_columns(cells, _NEEDED, "browser upgrades")
    before = cells["before_version"].astype("str")
    after = cells["after_version"].astype("str")
    moved = before.notna() & after.notna() & (before != after)
    return ((cells["bucket"] == NEW_FAILURE) & moved).fillna(False).astype(bool)


def upgrade_failures(cells: pd.DataFrame) -> pd.DataFrame:
    """The new failures of `cells` that started with a browser upgrade (`UPGRADE_COLUMNS`, by
    pair, scenario and environment)."""
    chosen = cells[upgraded(cells).to_numpy()]
    chosen = chosen.sort_values(
        ["before_execution_id", "after_execution_id", "scenario_id", "environment"], kind="stable"
    )
    return typed(chosen.reset_index(drop=True), UPGRADE_COLUMNS)


def upgrade_count(cells: pd.DataFrame) -> int:
    """How many new failures of `cells` started with a browser upgrade."""
    return int(upgraded(cells).sum())


def newly_failing_upgrades(newly: pd.DataFrame | None) -> int:
    """How many of the standup's newly failing scenarios (`standup_scenarios.
    NEWLY_FAILING_COLUMNS`, whose versions are filled only where they moved) started with a
    browser upgrade; 0 when not computed (None)."""
    if newly is None or newly.empty:
        return 0
    require_columns(newly, ("version", "previous_version"), "browser upgrades")
    version, previous = newly["version"].astype("str"), newly["previous_version"].astype("str")
    return int((version.notna() & previous.notna() & (version != previous)).fillna(False).sum())
