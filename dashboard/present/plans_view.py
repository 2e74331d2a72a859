"""Everything the Plans page draws from the company's plans and their last 30 days of
executions: the notes, the KPIs, the captions and the table (red plans first).

The plans come first (their KPIs are drawn before the executions are asked for); `with_states`
adds what the executions say, or the settings alone when they could not be loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pandas as pd

from dashboard.analytics import plan_state
from dashboard.analytics import plans as plan_analytics
from dashboard.data.live import ExecutionsData, PlansData
from dashboard.present import tables
from dashboard.present.kpis import Kpi
from dashboard.present.notes import describe_skipped, describe_truncation
from dashboard.present.plans import no_plans_text, plans_caption, states_caption


@dataclass(frozen=True, eq=False)
class PlansTable:
    """plans: the rows as listed (red first when the executions were read), which a selection
    opens; display: the table as shown; notes and captions: what is said above it."""

    plans: pd.DataFrame
    display: pd.DataFrame
    notes: tuple[str, ...]
    captions: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class PlansView:
    """notes: the plans the service sent that were skipped; empty_text: what to do when no plan
    matches (None: some do); kpis; plans: those the filters keep, in the service's order."""

    notes: tuple[str, ...]
    empty_text: str | None
    kpis: tuple[Kpi, ...]
    plans: pd.DataFrame
    caption: str

    def with_states(self, recent: ExecutionsData | None) -> PlansTable:
        """The table with where each plan stands by `recent` (the last 30 days' executions;
        None: they could not be loaded, and the table shows the plans' settings only)."""
        if recent is None:
            return PlansTable(self.plans, tables.plans_display(self.plans), (), (self.caption,))
        states = plan_state.plan_states(recent.executions)
        plans = plan_state.red_first(self.plans, states.set_index("plan_id")["latest_outcome"])
        return PlansTable(
            plans,
            tables.plans_display(plans, states),
            tuple(t for t in [describe_truncation(recent.truncation)] if t),
            (self.caption, states_caption(len(recent.executions))),
        )


def plans_view(
    data: PlansData,
    *,
    project_id: int | None,
    project: str | None,
    active_only: bool,
    today: date,
    tz: str,
) -> PlansView:
    """The plans of `data` in project `project_id` (named `project`; None: every project)."""
    plans = plan_analytics.filter_plans(data.plans, project_id=project_id)
    kpis = plan_analytics.plan_kpis(plans)
    return PlansView(
        notes=tuple(t for t in [describe_skipped((s.reason for s in data.skipped), "plan")] if t),
        empty_text=no_plans_text(active_only=active_only) if plans.empty else None,
        kpis=(
            Kpi("Plans", f"{kpis.plans:,}"),
            Kpi("Enabled", f"{kpis.enabled:,}"),
            Kpi("Scenarios", f"{kpis.scenarios:,}"),
            Kpi("With alerts", f"{kpis.with_alerts:,}"),
        ),
        plans=plans,
        caption=plans_caption(
            kpis.plans, active_only=active_only, project=project, today=today, tz=tz
        ),
    )
