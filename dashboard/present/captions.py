"""What an analytic was computed from, in words: every chart and table says it."""

from __future__ import annotations

from datetime import date

from dashboard.analytics.basis import Basis
from dashboard.present.formatting import format_span, plural


def describe_basis(basis: Basis, *, today: date, scope: str = "") -> str:
    """ "From 42 executions of project Web, 15 Nov - 22 Nov; 3 still running" and, when the
    analytic read results, "results of 212 of 230 executions"."""
    text = "From " + plural(basis.executions, "execution")
    if scope:
        text += f" {scope}"
    first = basis.start if basis.start is not None else basis.first
    last = basis.end if basis.end is not None else basis.last
    if first is not None and last is not None:
        text += ", " + format_span(first, last, today=today)
    if basis.with_results is not None:
        text += f"; results of {basis.with_results:,} of {plural(basis.executions, 'execution')}"
    if basis.running:
        text += f"; {basis.running:,} still running (not a verdict)"
    return text
