"""The store's freshness line: shown only when a worker recorded a sync, in plain words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dashboard.present.freshness import ago, history_freshness

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
