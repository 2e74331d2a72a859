"""Everything the Known failures page draws, worded: the marks the filter keeps as a table, the
first of them one by one (their details, their log, whether they can be closed and how), and
the likely outages to confirm or dismiss. The marking controls themselves are the page's
(`ui.marking`): this says what they are given."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from dashboard.analytics import marks as mark_analytics
from dashboard.analytics.flaky import DEFAULT_WINDOW
from dashboard.analytics.scenario_names import names_by_id
from dashboard.present import known as words
from dashboard.present import table_view as columns
from dashboard.present.known import Choice, MarkFilter
from dashboard.present.table_view import TableView

EVIDENCE_WINDOW = DEFAULT_WINDOW
"""Evidence ("looks fixed") is read in each plan's last W finished executions, as on Flaky."""
DETAILED = 30
"""Marks listed one by one (with their log and actions) under the table, which holds all."""
TICKET_TEXT = r"https?://[^/]+/(?:[^?#]*/)?([^/?#]+)"
"""A ticket link shows its last path part ("SHOP-123")."""


@dataclass(frozen=True, eq=False)
class MarkDetail:
    """One mark listed under the table: its heading (plain text), its lines, its log; when
    still open, what its close button says and writes in the log."""

    mark_id: str
    mark: dict[str, object]
    heading: str
    lines: tuple[str, ...]
    log: TableView
    open: bool
    close_label: str
    close_reason: str | None


@dataclass(frozen=True, eq=False)
class KnownView:
    """table: the marks the filter keeps; details: the first `DETAILED` of them; outages: the
    likely outages no mark confirmed yet, as lines and as the form's choices."""

    filter_caption: str
    evidence_caption: str
    table: TableView
    details: tuple[MarkDetail, ...]
    more_caption: str | None
    outages_caption: str
    outage_choices: list[Choice]
    outage_lines: tuple[str, ...]


def known_view(
    marks: pd.DataFrame,
    log: pd.DataFrame,
    results: pd.DataFrame,
    outages: pd.DataFrame,
    *,
    now: datetime,
    tz: str,
    mark_filter: MarkFilter,
    plan_names: Mapping[int, str],
    names: pd.DataFrame | None = None,
) -> KnownView:
    """The page from the company's `marks` and their `log` (the ledger), the `results` of each
    plan's last `EVIDENCE_WINDOW` finished executions, and the `outages` among them. `names`:
    the company's scenario names (`SCENARIO_NAME_COLUMNS`; None: none): a scenario's mark
    reads "Login works (31) of Checkout" where it read "scenario 31 of Checkout"."""
    named = {} if names is None or names.empty else names_by_id(names)
    states = mark_analytics.mark_states(marks, now)
    evidence = mark_analytics.mark_evidence(marks, results, now)
    keep = words.filter_rows(states, evidence, mark_filter).to_numpy()
    chosen = marks[keep]
    proof = evidence.set_index("mark_id")
    state_of = words.state_by_mark(states)
    details = []
    for position, mark in enumerate(chosen.head(DETAILED).to_dict("records")):
        mark_id = str(mark["mark_id"])
        found = proof.loc[mark_id].to_dict() if mark_id in proof.index else None
        fixed = bool(found and found["looks_fixed"])
        details.append(
            MarkDetail(
                mark_id=mark_id,
                mark=mark,
                heading=words.mark_heading(mark, str(state_of[mark_id]), plan_names, named),
                lines=tuple(words.mark_lines(mark, found, tz)),
                log=TableView(
                    words.log_display(log[log["mark_id"] == mark_id]),
                    key=f"known.log.{position}",
                    file_name=f"mark-{mark_id}-log.csv",
                    tz=tz,
                    columns={"When": columns.moment(tz)},
                ),
                open=state_of[mark_id] != mark_analytics.CLOSED,
                close_label="Close: looks fixed" if fixed else "Close",
                close_reason=words.looks_fixed_reason(found, tz) if fixed and found else None,
            )
        )
    pending = words.pending_outages(outages)
    return KnownView(
        filter_caption=words.filter_words(mark_filter, len(chosen), len(marks)),
        evidence_caption=words.evidence_caption(EVIDENCE_WINDOW),
        table=TableView(
            words.marks_display(chosen, states[keep], evidence, plan_names, tz, named),
            key="known.table",
            file_name="known-failures.csv",
            tz=tz,
            columns={
                "Ticket": columns.link(TICKET_TEXT),
                "Made": columns.moment(tz),
                "Closed": columns.moment(tz),
                "Target": columns.text("large"),
            },
        ),
        details=tuple(details),
        more_caption=(
            words.more_marks_caption(len(chosen), DETAILED) if len(chosen) > DETAILED else None
        ),
        outages_caption=words.pending_outages_caption(len(pending)),
        outage_choices=words.execution_choices(pending, plan_names, tz),
        outage_lines=tuple(
            words.outage_line(row, plan_names, tz) for row in pending.to_dict("records")
        ),
    )
