"""The plan health page's words: what its table was computed from and how it judges a plan."""

from __future__ import annotations

from datetime import date

from dashboard.analytics.basis import Basis
from dashboard.analytics.health import PlanHealth
from dashboard.present.captions import describe_basis


def health_caption(health: PlanHealth, *, today: date, scope: str, tz: str) -> str:
    """What the table was computed from, how a plan is judged, what the runtime trend
    compares, and what a row opens."""
    return (
        describe_basis(health.basis, today=today, scope=scope)
        + ". Failing plans first. Pass rates count the results with a verdict of finished "
        "executions; a plan is judged on its latest finished execution. Runtime trend: the "
        f"median runtime of the last {health.runtime_recent_days} days against that of the "
        f"{health.runtime_baseline_days} days before them, each from at least "
        f"{health.runtime_min_executions} finished executions (blank when fewer). Days are in "
        f"{tz}. Select a plan to open its executions."
    )


def no_plan_ran(basis: Basis, *, today: date, scope: str) -> str:
    return describe_basis(basis, today=today, scope=scope) + ": no plan ran."
