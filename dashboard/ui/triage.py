"""What a page needs of the team's knowledge: the company's marks (those that apply now), the
outages among the executions it shows, the "Include outages" control, and what they did to its
figures, said in a caption.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from api_client import ApiError
from dashboard.analytics.marks import applying, marks_key
from dashboard.analytics.marks import known_per_execution as known_counts
from dashboard.analytics.outages import OUTAGE_COLUMNS, outages, with_signatures
from dashboard.analytics.states import StateRules
from dashboard.analytics.triage import failure_verdicts
from dashboard.columns.shapes import empty, frame_digest
from dashboard.data import cache, cache_history
from dashboard.data.cache_history import Ledger
from dashboard.data.connection import Connection
from dashboard.present import known as words
from dashboard.state.params import OUTAGES, ViewState
from dashboard.ui import notices, url_filters


@dataclass(frozen=True, eq=False)
class Triage:
    """ledger: the company's marks as read; marks: those that apply now; outages: the outages
    among the executions given (`analytics.outages`); include: whether figures count them."""

    ledger: Ledger
    marks: pd.DataFrame
    outages: pd.DataFrame
    include: bool

    @property
    def left_out(self) -> frozenset[int]:
        """The executions the page's figures leave out (none when outages are included)."""
        if self.include:
            return frozenset()
        return frozenset(int(e) for e in self.outages["execution_id"])

    def without_outages(self, executions: pd.DataFrame) -> pd.DataFrame:
        """`executions` less those the figures leave out."""
        if not self.left_out:
            return executions
        return executions[~executions["execution_id"].isin(self.left_out)]


def triage_of(
    connection: Connection,
    executions: pd.DataFrame | None,
    *,
    now: datetime,
    state: ViewState,
    results: pd.DataFrame | None = None,
) -> Triage:
    """The company's marks and the outages among `executions` (none when None)."""
    ledger = cache_history.ledger(connection)
    marks = applying(ledger.marks, now)
    found = outages(executions, marks, results) if executions is not None else empty(OUTAGE_COLUMNS)
    return Triage(ledger, marks, found, state.include_outages)


def named_outages(
    connection: Connection,
    found: pd.DataFrame,
    executions: pd.DataFrame,
    results: pd.DataFrame,
) -> pd.DataFrame:
    """`found` with each outage's dominant failure group (`outages.with_signatures`), as
    Failures and the standup name it: from `results` where they hold the outage, else from the
    outage's own results (the history store, else the service; few executions). When they
    cannot be read the outages are returned without it (said once)."""
    if found.empty:
        return found
    lacking = sorted(set(found["execution_id"].astype("int64")) - set(results["execution_id"]))
    read = results
    if lacking:
        try:
            extra = cache.history_results(connection, lacking, executions).results
        except ApiError as error:
            notices.show_error(error, part="the results that name each outage's failures")
        else:
            read = pd.concat([results, extra], ignore_index=True)
    return with_signatures(found, read)


def outages_toggle(widgets: url_filters.UrlFilters) -> None:
    """The "Include outages" control, bound to the URL."""
    widgets.toggle("Include outages", OUTAGES, help=words.OUTAGES_HELP)


def outages_caption(triage: Triage) -> None:
    """What the outage rule did to the page's figures (nothing when there were none)."""
    notices.caption(words.outages_caption(len(triage.outages), included=triage.include))


def known_per_execution(
    connection: Connection, executions: pd.DataFrame, marks: pd.DataFrame
) -> pd.Series:
    """Known failed results per execution (`marks.known_per_execution`) among `executions`: the
    results of those that finished and failed something are read (from the history store where
    it has them) only when a mark applies; none when they cannot be read (said once)."""
    if marks.empty:
        return pd.Series(dtype="int64")
    failed = executions[
        executions["finished"].fillna(False).astype(bool) & (executions["failed"].fillna(0) > 0)
    ]
    if failed.empty:
        return pd.Series(dtype="int64")

    def count() -> pd.Series:
        read = cache.history_results(connection, failed["execution_id"], executions)
        return known_counts(read.results, marks)

    # Counted once per input, not at every rerun (`cache.built`): the failed executions'
    # results come back from the fan-out's cache as a copy each time, and covering them with
    # 1,000 marks is the dearer part of a page that otherwise reads no results. Finished
    # executions' results do not change; the marks are named by id and revision.
    try:
        return cache.built(
            connection,
            "triage.known_per_execution",
            (
                hashlib.sha256(
                    failed["execution_id"].to_numpy(dtype="int64").tobytes()
                ).hexdigest(),
                marks_key(marks),
            ),
            count,
        )
    except ApiError as error:
        notices.show_error(error, part="the results that tell known failures apart")
        return pd.Series(dtype="int64")


def verdicts_of(
    connection: Connection,
    results: pd.DataFrame,
    executions: pd.DataFrame,
    ledger: Ledger,
    *,
    now: datetime,
    judged: Iterable[int] | None = None,
    rules: StateRules | None = None,
) -> pd.DataFrame:
    """The one verdict per failed result (`analytics.triage.failure_verdicts`) that every page
    reads: of the `judged` executions' failures (default: every execution with a result in
    `results`), over `results` (the judged executions' results and each plan's window, outages
    included: the triage leaves them out itself) and the company's whole ledger.

    Made once per input and shared by every viewer and page (`cache.built`): the key names the
    results and executions by their ids and outcomes, the judged ids, the marks by id and
    revision, the rules, and the day of `now` (a mark applies by the day)."""
    judged_ids = None if judged is None else sorted({int(i) for i in judged})
    day = pd.Timestamp(now).tz_convert("UTC").date().isoformat()
    inputs = (
        frame_digest(results, ("result_id", "execution_id", "level")),
        frame_digest(executions, ("execution_id", "finished", "failed", "verdicts")),
        None if judged_ids is None else hashlib.sha256(repr(judged_ids).encode()).hexdigest(),
        marks_key(ledger.marks),
        repr(rules or StateRules()),
        day,
    )
    return cache.built(
        connection,
        "triage.failure_verdicts",
        inputs,
        lambda: failure_verdicts(
            results, executions, ledger.marks, now=now, rules=rules, judged=judged_ids
        ),
    )
