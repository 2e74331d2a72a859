"""What the results fan-out's bar says while a long window is fetched for the first time."""

from __future__ import annotations

from dashboard.data.cache import FETCH_RATE_AFTER, fetch_progress_text


def test_it_says_how_much_must_be_fetched_from_the_start() -> None:
    text = fetch_progress_text(2_000, 0, 12_400, elapsed=0.0, kept=True)

    assert text.startswith("Fetching the results of 2,000 executions: 0 of 12,400 requests")
    assert "kept in the history store: fetched only once" in text
    assert "left" not in text  # nothing to tell the rate by yet


def test_it_says_about_how_long_is_left_once_the_rate_is_known() -> None:
    assert "about 30 s left" in fetch_progress_text(10, 100, 400, elapsed=10.0, kept=True)
    assert "about 2 min left" in fetch_progress_text(10, 100, 1_300, elapsed=10.0, kept=True)
    assert "left" not in fetch_progress_text(10, 400, 400, elapsed=10.0, kept=True)


def test_a_short_fetch_or_one_not_kept_does_not_promise_the_store() -> None:
    short = fetch_progress_text(1, 0, FETCH_RATE_AFTER - 1, elapsed=0.0, kept=True)
    unkept = fetch_progress_text(1, 0, 5_000, elapsed=0.0, kept=False)

    assert short == f"Fetching the results of 1 execution: 0 of {FETCH_RATE_AFTER - 1} requests"
    assert "history store" not in unkept
