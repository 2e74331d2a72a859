"""What an analytic was computed from, in words: every chart and table says it."""

from __future__ import annotations

from datetime import date

import pandas as pd

from dashboard.analytics.basis import Basis
from dashboard.data.fanout_answer import FanOutCounts
from dashboard.present.formatting import format_span, plural


def describe_basis(
    basis: Basis, *, today: date, scope: str = "", fetched: FanOutCounts | None = None
) -> str:
    """ "From 42 executions of project Web, 15 Nov - 22 Nov; 3 still running" and, when the
    analytic read results, "results of 212 of 230 executions". With `fetched` (the fan-out's
    counts of the results read), the results part is the fan-out's own (`describe_results`)."""
    text = "From " + plural(basis.executions, "execution")
    if scope:
        text += f" {scope}"
    first = basis.start if basis.start is not None else basis.first
    last = basis.end if basis.end is not None else basis.last
    if first is not None and last is not None:
        text += ", " + format_span(first, last, today=today)
    if fetched is not None:
        return text + "; " + describe_results(fetched)
    if basis.with_results is not None:
        text += f"; results of {basis.with_results:,} of {plural(basis.executions, 'execution')}"
    if basis.running:
        text += f"; {basis.running:,} still running (not a verdict)"
    return text


def scope_text(*, project: object = None, plan: object = None) -> str:
    """What an analytic covers, to follow its count: "of plan Checkout", "of project Web", or
    nothing for every project. A plan is named before its project."""
    if plan is not None:
        return f"of plan {plan}"
    if project is not None:
        return f"of project {project}"
    return ""


def describe_window(
    basis: Basis,
    executions: pd.DataFrame,
    *,
    today: date,
    scope: str,
    window: int,
    each_plan: bool = False,
) -> str:
    """`describe_basis` of an analytic over the window W: "From 20 executions of plan Checkout,
    1 Nov - 22 Nov (its last 20 finished executions); 1 execution still running is not
    counted". `executions`: those of the lookback, whose running ones the window leaves out."""
    whose = "each plan's" if each_plan else "its"
    text = describe_basis(basis, today=today, scope=scope)
    text += f" ({whose} last {window} finished executions)"
    running = int((~executions["finished"].fillna(False).astype(bool)).sum())
    if running:
        verb = "is" if running == 1 else "are"
        text += f"; {plural(running, 'execution')} still running {verb} not counted"
    return text


def describe_results(counts: FanOutCounts) -> str:
    """ "results of 212 of 230 executions; 18 still running": whose results an analytic had,
    from the fan-out's counts. An execution counts once every one of its scenarios' results
    is in hand; a running one's are fetched afresh and are no verdict yet."""
    text = f"results of {counts.executions_complete:,} of {plural(counts.executions, 'execution')}"
    if counts.executions_running:
        text += f"; {counts.executions_running:,} still running"
    if counts.executions_incomplete:
        text += (
            f"; {counts.executions_incomplete:,} incomplete (a request failed: they are asked "
            "for again next time)"
        )
    return text


def describe_results_source(counts: FanOutCounts | None, *, finished: bool) -> str:
    """Where one execution's results came from, in a sentence (empty when not known)."""
    if counts is None:
        return ""
    if not finished:
        return "The execution is still running: its results are fetched afresh, never stored."
    if counts.pairs and counts.from_store == counts.pairs:
        return "Read from the history store: no request to the service."
    if counts.fetched and counts.stored == counts.fetched:
        return (
            f"Fetched from the service ({plural(counts.fetched, 'request')}) and kept in the "
            "history store, so they are not asked for again."
        )
    if counts.fetched:
        return f"Fetched from the service ({plural(counts.fetched, 'request')})."
    return ""
