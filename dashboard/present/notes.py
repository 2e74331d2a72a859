"""Notes on what a page shows when the data is not all there or not all true: records left
out (a walk cut short, a record in an unexpected shape), an execution a link names that cannot
be found, and values the service's data contradicts itself with.

Plain text: a note may quote the service's counts and the page's own filters, and is shown
literally (`dashboard.ui.notices.show_notes`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime

import pandas as pd

from api_client import ExecutionQuery, Truncation, TruncationReason
from dashboard.analytics import contradictions
from dashboard.analytics.contradictions import Contradiction, Kind, SummaryDisagreement
from dashboard.analytics.executions import ExecutionHeader
from dashboard.data.live import FoundExecution
from dashboard.present.formatting import plural, utc_text


def describe_truncation(truncation: Truncation | None, noun: str = "execution") -> str | None:
    """Say that a walk over pages stopped before the end the service claimed, and why.

    Plain text (it quotes the service's counts, which are only numbers): "The service claims
    1,000,000,000 pages of executions (1,000,000,000,000 in all); showing the first 2 pages
    (a page held only executions already shown)."
    """
    if truncation is None:
        return None
    pages = truncation.pages_read
    why = _TRUNCATION_REASONS.get(truncation.reason, "")
    return (
        f"The service claims {truncation.claimed_pages:,} pages of {noun}s "
        f"({truncation.claimed_total:,} in all); showing the first "
        f"{pages:,} {'page' if pages == 1 else 'pages'}{f' ({why})' if why else ''}. "
        f"The counts on this page cover only those."
    )


_TRUNCATION_REASONS = {
    TruncationReason.PAGE_CAP: "more pages than the dashboard reads in one go",
    TruncationReason.EMPTY_PAGE: "a page before the claimed end was empty",
    TruncationReason.NOTHING_NEW: "a page held only records already shown",
}


def describe_skipped(reasons: Iterable[str], noun: str, nouns: str | None = None) -> str | None:
    """Say how many records were left out and why ("2 executions were skipped: ...").

    The reasons come from the client's `SkippedRecord.reason`, which names fields and what was
    wrong with them, never their values. The most frequent three are listed.
    """
    counts = Counter(" ".join(reason.split()) for reason in reasons)
    total = sum(counts.values())
    if not total:
        return None
    word = noun if total == 1 else (nouns or noun + "s")
    verb = "was" if total == 1 else "were"
    listed = [
        f"{reason} ({count})" if total > 1 else reason for reason, count in counts.most_common(3)
    ]
    more = len(counts) - len(listed)
    why = "; ".join(listed) + (f"; and {more} other reasons" if more > 0 else "")
    pronoun = "it" if total == 1 else "them"
    return (
        f"{total:,} {word} {verb} skipped because the service sent {pronoun} in an unexpected "
        f"shape: {why}. Everything else is shown."
    )


def execution_not_found(found: FoundExecution, listed: ExecutionQuery) -> str:
    """Why the execution a results link names cannot be shown, after it was looked for among
    the executions of `listed` (plain text: it quotes filters)."""
    execution_id = found.execution_id
    if found.unknown_to_service:
        return (
            f"The service has no execution {execution_id}: it may have been deleted, or the "
            f"link's execution id is wrong. Pick an execution in the executions table."
        )
    among = ", ".join(listed.describe(utc_text)) or "no filter"
    near = f", nor around {utc_text(found.started)}" if found.started is not None else ""
    return (
        f"Execution {execution_id} was not found among the executions of this link's filters "
        f"({among}){near}. It may have been deleted, or the link is wrong: pick an execution "
        f"in the executions table."
    )


_CONTRADICTION_WORDS = {
    Kind.NEGATIVE_RUNTIME: ("{has} a negative runtime", "shown as unknown"),
    Kind.FUTURE_START: ("{has} a start date in the future", "shown as the service sent it"),
    Kind.FUTURE_END: ("{has} an end date in the future", "shown as the service sent it"),
    Kind.END_BEFORE_START: ("{has} an end before {its} start", "shown as the service sent it"),
}
LISTED_IDS = 5
"""How many record ids a contradiction note names before "and N more"."""


def describe_contradictions(
    found: Iterable[Contradiction], noun: str, *, id_label: str = "#"
) -> list[str]:
    """One plain-text note per kind of impossible value, with how many records and which:
    "2 executions have a negative runtime (#12, #15), shown as unknown: the service's data
    contradicts itself." `id_label` prefixes each id ("#" for executions, "scenario ")."""
    notes = []
    for contradiction in found:
        count = len(contradiction.ids)
        if not count:
            continue
        what, shown = _CONTRADICTION_WORDS[contradiction.kind]
        has = "has" if count == 1 else "have"
        its = "its" if count == 1 else "their"
        listed = ", ".join(f"{id_label}{i}" for i in contradiction.ids[:LISTED_IDS])
        more = f" and {count - LISTED_IDS:,} more" if count > LISTED_IDS else ""
        notes.append(
            f"{plural(count, noun)} {what.format(has=has, its=its)} ({listed}{more}), "
            f"{shown}: the service's data contradicts itself."
        )
    return notes


def describe_summary_disagreement(disagreement: SummaryDisagreement | None) -> str | None:
    """The note for an execution whose results deny its summary (plain text)."""
    if disagreement is None:
        return None

    def counts(pairs: tuple[tuple[str, int], ...]) -> str:
        return ", ".join(f"{status} {n:,}" for status, n in pairs) or "none"

    return (
        "The service's summary of this execution disagrees with the results it returned: the "
        f"summary counts {plural(disagreement.claimed_total, 'result')} "
        f"({counts(disagreement.claimed)}), the service returned "
        f"{disagreement.returned_total:,} ({counts(disagreement.returned)}). The tiles above "
        "come from the summary; the table and charts below from the results."
    )


def header_contradiction_notes(header: ExecutionHeader, *, now: datetime) -> list[str]:
    """What is impossible about the execution a results page shows (its header's values)."""
    return describe_contradictions(
        contradictions.one_execution_contradictions(
            header.execution_id,
            start=header.start,
            end=header.end,
            runtime_s=header.runtime_s,
            now=now,
        ),
        "execution",
    )


def results_contradiction_notes(
    header: ExecutionHeader, results: pd.DataFrame, *, complete: bool, now: datetime
) -> list[str]:
    """What contradicts itself in an execution's results: a summary they deny (compared only
    when every result was loaded: `complete`), and impossible values, by scenario."""
    disagreement = (
        contradictions.summary_disagreement(header.summary, results) if complete else None
    )
    return [
        describe_summary_disagreement(disagreement) or "",
        *describe_contradictions(
            contradictions.result_contradictions(results, now=now), "scenario"
        ),
    ]
