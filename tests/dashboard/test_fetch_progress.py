"""What the results fan-out's bar says while a long window is fetched for the first time."""

from __future__ import annotations

from dashboard.data.cache import FETCH_RATE_AFTER, fetch_progress_text, throttled


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


def test_a_loading_bar_is_redrawn_at_most_every_quarter_second_but_always_first_and_last() -> None:
    now = [0.0]
    reported: list[tuple[int, int]] = []
    report = throttled(lambda done, total: reported.append((done, total)), clock=lambda: now[0])

    for done in range(1, 71):  # 70 pages, one every 20 ms
        report(done, 70)
        now[0] += 0.02

    # The first, then the first page a quarter second after the one before, then the last.
    assert [done for done, _ in reported] == [1, 14, 27, 40, 53, 66, 70]
    assert all(total == 70 for _, total in reported)
