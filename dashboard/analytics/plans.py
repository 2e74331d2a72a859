"""The plan list as the pages use it: filtered, named, counted. Pure pandas."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


def filter_plans(plans: pd.DataFrame, *, project_id: int | None) -> pd.DataFrame:
    if project_id is None:
        return plans
    return plans[plans["project_id"] == project_id].reset_index(drop=True)


def project_names(plans: pd.DataFrame) -> dict[int, str]:
    """Project id -> name, sorted by name; a project without a name is shown by its id."""
    pairs = plans[["project_id", "project"]].dropna(subset=["project_id"]).drop_duplicates()
    named = {
        int(pid): (name if isinstance(name, str) and name else f"Project {int(pid)}")
        for pid, name in pairs.itertuples(index=False)
    }
    return dict(sorted(named.items(), key=lambda item: (item[1].lower(), item[0])))


def plan_names(plans: pd.DataFrame, *, project_id: int | None = None) -> dict[int, str]:
    """Plan id -> name, sorted by name, limited to one project when given."""
    subset = filter_plans(plans, project_id=project_id)
    named = {
        int(pid): (name if isinstance(name, str) and name else f"Plan {int(pid)}")
        for pid, name in subset[["plan_id", "plan"]].itertuples(index=False)
    }
    return dict(sorted(named.items(), key=lambda item: (item[1].lower(), item[0])))


def plan_projects(plans: pd.DataFrame) -> dict[int, int | None]:
    """Plan id -> its project id."""
    return {
        int(pid): (None if pd.isna(project) else int(project))
        for pid, project in plans[["plan_id", "project_id"]].itertuples(index=False)
    }


def plan_scenarios(plans: pd.DataFrame, plan_id: int) -> tuple[int, ...] | None:
    """The scenario ids of one plan, or None when the plan is not in the frame."""
    match = plans.loc[plans["plan_id"] == plan_id, "scenario_ids"]
    return None if match.empty else tuple(match.iloc[0])


@dataclass(frozen=True)
class PlanKpis:
    plans: int
    enabled: int
    scenarios: int
    with_alerts: int


def plan_kpis(plans: pd.DataFrame) -> PlanKpis:
    return PlanKpis(
        plans=len(plans),
        enabled=int(plans["enabled"].fillna(False).sum()),
        scenarios=int(plans["scenarios"].sum()),
        with_alerts=int((plans["alerts"] > 0).sum()),
    )
