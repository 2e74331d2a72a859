"""The plan health page's words: what its table was computed from and how it judges a plan."""

from __future__ import annotations

from datetime import date

from dashboard.analytics import triage
from dashboard.analytics.basis import Basis
from dashboard.analytics.health import PlanHealth
from dashboard.present.captions import describe_basis


def health_caption(health: PlanHealth, *, today: date, scope: str, tz: str) -> str:
    """What the table was computed from, how a plan is judged, what the runtime trend
    compares, and what a row opens."""
    return (
        describe_basis(health.basis, today=today, scope=scope)
        + ". Failing plans first. Pass rates count the results with a verdict of finished "
        f"executions; a plan is judged on its latest finished execution. {NOW_RULE} "
        "Runtime trend: the "
        f"median runtime of the last {health.runtime_recent_days} days against that of the "
        f"{health.runtime_baseline_days} days before them, each from at least "
        f"{health.runtime_min_executions} finished executions (blank when fewer). Days are in "
        f"{tz}. Select a plan to open its executions."
    )


def no_plan_ran(basis: Basis, *, today: date, scope: str) -> str:
    return describe_basis(basis, today=today, scope=scope) + ": no plan ran."


NOW_RULE = (
    'A plan whose latest finished execution failed only in known failures reads "failing, all '
    'known" in "Now"; one failed in an outage says so.'
)
OUTAGE_AFTER = " \u00b7 then \u26a1 red only in an outage (left out)"
"""After where a plan stands, when its latest finished run is an outage the figures leave out."""

_FAILING_AS = {
    triage.KNOWN: "\u25c6 failing, all known",
    triage.OUTAGE: "\u26a1 failing, in an outage",
}


def failing_as(label: str, shown: str) -> str:
    """A failing plan's "Now" (`shown`, "\u2716 failing" and what follows it) when every failure
    of its latest finished execution has one `label` (known, outage)."""
    return _FAILING_AS[label] + shown.removeprefix("\u2716 failing")
