"""The failure verdicts' words (`present.triage`): one evidence line per label, with its numbers
and dates in the viewer's zone, names made visible, and a row that lacks a number never
crashing the line. Rows are written by hand as `analytics.triage` makes them; the last test
words the verdicts of the triage world end to end."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from dashboard.analytics import outages, triage
from dashboard.columns import marks as columns
from dashboard.present import triage as words
from dashboard.present.formatting import INVISIBLE_MARKER
from tests.analytics.frames import ts
from tests.analytics.triage_frames import NO_MARKS, NOW, world

SAFARI = "SAFARI 17 / macOS"


def line(label: str, tz: str = "UTC", **fields: Any) -> str:
    return words.evidence_line({"label": label, "execution_id": 1011, **fields}, tz=tz)


@pytest.mark.parametrize(
    ("reason", "fields", "expected"),
    [
        (triage.RUNNING, {}, "results incomplete: execution 1011 is still running"),
        (
            triage.SHORT,
            {"missing_failures": 2},
            "results incomplete: 2 failures counted by the service are not in its results",
        ),
        (
            triage.UNKNOWN_STATUS,
            {"level": "BLOCKED"},
            'results incomplete: its status "BLOCKED" is not one this dashboard knows',
        ),
        (
            triage.UNKNOWN_EXECUTION,
            {},
            "results incomplete: execution 1011 is not among the executions read",
        ),
        (
            triage.UNREADABLE_MARK,
            {"mark_id": "m-7", "mark_kind": "muted", "mark_target": "scenario"},
            'results incomplete: mark m-7 names it but cannot be applied (kind "muted", '
            'target "scenario")',
        ),
    ],
)
def test_incomplete_says_what_is_missing(
    reason: str, fields: dict[str, Any], expected: str
) -> None:
    assert line(triage.INCOMPLETE, incomplete=reason, **fields) == expected


def test_outage_names_its_night_share_and_message() -> None:
    fields = {
        "outage": outages.LIKELY,
        "outage_start": ts("2026-11-27 02:00"),
        "outage_share": 0.95,
        "outage_failed": 38,
        "outage_signature": "UnreachableBrowser: grid down",
        "outage_signature_failures": 38,
    }
    assert (
        line(triage.OUTAGE, **fields)
        == "in the likely outage of 27 Nov 02:00: 95 % of the run failed with one message"
    )
    confirmed = {
        **fields,
        "outage": outages.CONFIRMED,
        "outage_signature_failures": 30,
        "ticket": "https://jira.example.com/browse/OPS-9",
    }
    assert line(triage.OUTAGE, tz="Europe/Istanbul", **confirmed) == (
        "in the outage of 27 Nov 05:00: 95 % of the run failed, 30 of 38 with one message "
        "(confirmed, OPS-9)"
    )


def test_known_names_ticket_owner_and_last_day() -> None:
    fields = {
        "mark_kind": columns.KNOWN_ISSUE,
        "ticket": "https://jira.example.com/browse/SHOP-123",
        "owner": "ann",
        "until": ts("2026-11-30"),
    }
    assert line(triage.KNOWN, **fields) == "known: SHOP-123, owner ann, until 30 Nov"
    # A mark's last day is a UTC day, whatever the viewer's zone.
    assert line(triage.KNOWN, tz="America/New_York", **fields).endswith("until 30 Nov")
    accepted = {"mark_kind": columns.ACCEPTED, "ticket": None, "owner": None, "until": pd.NaT}
    assert line(triage.KNOWN, **accepted) == "accepted: no ticket"


def test_state_labels_carry_their_numbers() -> None:
    since = ts("2026-11-20 08:00")
    assert (
        line(
            triage.ENVIRONMENT_SPECIFIC,
            evidence_environment=SAFARI,
            failed_runs=6,
            runs=6,
            since=since,
            elsewhere_passed=18,
            elsewhere_runs=18,
        )
        == "fails only on SAFARI 17 / macOS: 6 of 6 runs since 20 Nov; passes elsewhere in "
        "18 of 18 runs"
    )
    assert (
        line(triage.FLAKY, flips=12, runs=20, since=since, evidence_environment=None)
        == "12 flips in 20 runs since 20 Nov"
    )
    assert (
        line(triage.FLAKY, flips=3, runs=6, since=since, evidence_environment=SAFARI)
        == "3 flips in 6 runs on SAFARI 17 / macOS since 20 Nov"
    )
    assert (
        line(triage.BROKEN, failed_runs=10, runs=10, since=since)
        == "failed 10 of its last 10 runs since 20 Nov"
    )
    assert (
        line(triage.UNRESOLVED, failed_runs=3, runs=12, since=since)
        == "failed 3 of its 12 runs since 20 Nov"
    )
    assert line(triage.UNRESOLVED) == "no run of its scenario in the window to judge it by"


def test_recovering_says_it_passes_now() -> None:
    fields = {"failed_runs": 9, "runs": 10, "passed_at": ts("2026-11-19 08:00")}
    assert (
        line(triage.RECOVERING, clean_runs=1, **fields)
        == "passes now: its last run passed on 19 Nov, after failing 9 of 10 runs"
    )
    assert (
        line(triage.RECOVERING, clean_runs=3, **fields)
        == "passes now: passed its last 3 runs, the latest on 19 Nov, after failing 9 of 10 runs"
    )


def test_new_says_where_it_first_failed() -> None:
    assert (
        line(triage.NEW, environment=SAFARI, earlier_runs=9, earlier_environment_runs=9)
        == "first failure on SAFARI 17 / macOS, after 9 runs there without one"
    )
    assert (
        line(
            triage.NEW,
            environment="CHROME 135 / Windows 11",
            earlier_runs=9,
            earlier_environment_runs=0,
        )
        == "its first run on CHROME 135 / Windows 11 failed; it ran 9 times before elsewhere"
    )


def test_names_are_made_visible() -> None:
    hidden = "SAFARI\u202e 17"
    text = line(triage.ENVIRONMENT_SPECIFIC, evidence_environment=hidden, failed_runs=1, runs=1)
    assert "\u202e" not in text
    assert INVISIBLE_MARKER in text
    owner = line(triage.KNOWN, owner="ann\nbob", ticket=None, until=None)
    assert owner == "known: no ticket, owner ann bob"


def test_labels_are_shown_with_a_symbol_and_in_their_order() -> None:
    assert set(words.LABEL_TEXT) == set(triage.PRECEDENCE)
    assert words.label_text(triage.BROKEN) == "\u2716 broken"
    assert words.label_text("odd\u200b") == f"odd{INVISIBLE_MARKER}"
    assert words.label_text(None) == "\u2013"
    assert words.precedence_text().startswith("results incomplete > outage > known > flaky")


def test_every_verdict_of_the_world_has_a_line() -> None:
    found_results, found_executions = world()
    verdicts = triage.failure_verdicts(found_results, found_executions, NO_MARKS, now=NOW)
    lines = words.evidence_lines(verdicts, tz="Europe/Istanbul")
    assert lines.index.equals(verdicts.index)
    assert lines.str.len().gt(10).all()
    by_label = dict(zip(verdicts["label"], lines, strict=True))
    assert by_label[triage.OUTAGE] == (
        "in the likely outage of 15 Nov 05:00: 93 % of the run failed with one message"
    )
    assert by_label[triage.RECOVERING] == (
        "passes now: its last run passed on 19 Nov, after failing 9 of 10 runs"
    )
