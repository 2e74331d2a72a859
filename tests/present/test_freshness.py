"""The store's freshness line: shown only when a worker recorded a sync, in plain words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dashboard.data.store.status import HistoryStatus
from dashboard.present import freshness
from dashboard.present.freshness import ago, history_freshness, history_notes

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def test_the_line_says_how_long_ago_and_by_whom() -> None:
    meta = {"last_sync": (NOW - timedelta(minutes=3)).isoformat(), "last_sync_by": "the worker"}
    assert history_freshness(meta, NOW) == "History synced 3 min ago by the worker."


def test_no_line_without_a_worker_or_a_readable_time() -> None:
    assert history_freshness({}, NOW) is None
    assert history_freshness({"last_sync": NOW.isoformat()}, NOW) is None
    assert history_freshness({"last_sync": "yesterday-ish", "last_sync_by": "w"}, NOW) is None


def test_a_name_cannot_hide_or_reorder_text() -> None:
    meta = {"last_sync": NOW.isoformat(), "last_sync_by": "evil\u202eexe.txt\nsecond line"}
    line = history_freshness(meta, NOW)
    assert line is not None
    assert "\u202e" not in line
    assert "\n" not in line


def test_ago_reads_naturally() -> None:
    assert ago(NOW - timedelta(seconds=20), NOW) == "just now"
    assert ago(NOW + timedelta(minutes=5), NOW) == "just now"  # a clock slightly ahead
    assert ago(NOW - timedelta(minutes=59), NOW) == "59 min ago"
    assert ago(NOW - timedelta(hours=5), NOW) == "5 h ago"
    assert ago(NOW - timedelta(days=3), NOW) == "3 days ago"


def test_notes_say_what_the_store_kept_when_the_service_answered_otherwise() -> None:
    assert history_notes({}, NOW) == []
    meta = {
        "empty_plans_at": (NOW - timedelta(minutes=3)).isoformat(),
        "changed_executions": "7",
        "changed_execution_ids": "12,15,20,21,22",
    }
    assert history_notes(meta, NOW) == [
        "The service answered no plans 3 min ago; the stored plans are kept.",
        "7 finished executions came back from the service changed (#12, #15, #20, #21, #22 "
        "and 2 more), shown as first stored: the service's data contradicts itself.",
    ]
    one = {"changed_executions": "1", "changed_execution_ids": "12"}
    assert history_notes(one, NOW) == [
        "1 finished execution came back from the service changed (#12), shown as first "
        "stored: the service's data contradicts itself."
    ]


def test_notes_ignore_what_they_cannot_read() -> None:
    meta = {
        "empty_plans_at": "soon",
        "changed_executions": "0",
        "changed_execution_ids": "12",
    }
    assert history_notes(meta, NOW) == []
    odd = {"changed_executions": "2", "changed_execution_ids": "12,<b>x</b>"}
    assert history_notes(odd, NOW) == [
        "2 finished executions came back from the service changed (#12 and 1 more), shown as "
        "first stored: the service's data contradicts itself."
    ]


def test_the_badge_says_connecting_until_the_check_answers_and_live_only_when_accepted() -> None:
    accepted = HistoryStatus("on")
    refused = HistoryStatus("withheld", reason="refused")
    assert freshness.connection_badge("qa.example:8443", None, form=False) == freshness.Badge(
        "Connecting: qa.example:8443", ":material/cloud_sync:", "gray"
    )
    assert freshness.connection_badge("qa.example", accepted, form=False).text == "Live: qa.example"
    assert freshness.connection_badge("qa.example", refused, form=False).text == (
        "Token refused: qa.example"
    )
    assert freshness.connection_badge("qa.example", refused, form=True).text == (
        "Not confirmed: qa.example"
    )
