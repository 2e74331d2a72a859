"""The plan health page's words: what its table was computed from and how it judges a plan."""

from __future__ import annotations

from datetime import date

from dashboard.analytics.basis import Basis
from dashboard.present.captions import describe_basis


def health_caption(basis: Basis, *, today: date, scope: str, tz: str) -> str:
    """What the table was computed from, how a plan is judged, and what a row opens."""
    return (
        describe_basis(basis, today=today, scope=scope)
        + ". Pass rates count the results with a verdict of finished executions; a plan is "
        f"judged on its latest finished execution. Days are in {tz}. Select a plan to open its "
        "executions."
    )


def no_plan_ran(basis: Basis, *, today: date, scope: str) -> str:
    return describe_basis(basis, today=today, scope=scope) + ": no plan ran."
