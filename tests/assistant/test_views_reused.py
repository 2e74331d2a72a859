"""A tool's view is made once per input, as the pages' (`cache.built`): a second assistant
question over the same history is answered without computing the view again, and a change the
view depends on (a mark made) is computed afresh."""

from __future__ import annotations

from typing import Any

import pytest

from dashboard.assistant.history import forget_loads
from dashboard.data.connection import resolve
from dashboard.data.store import open_for
from dashboard.data.store.marks import MarkDraft, MarkTarget
from dashboard.present import failures_view
from tests.assistant.conftest import LATEST, History, ask_here, rows
from tests.cli.plan_service import PLAN_ID

LAST_WEEK = ("failures", {"period": "last_7_days", "detail": "full"})


@pytest.fixture
def views_made(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the Failures page's view was computed (one entry a time)."""
    made: list[int] = []
    real = failures_view.failures_view

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(failures_view, "failures_view", counted)
    return made


def _verdicts(answer: Any) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    for row in rows(answer):
        found.setdefault(int(row["Scenario"]), set()).add(str(row["Verdict"]))
    return found


def test_a_second_identical_question_is_not_computed_again_and_a_new_mark_is(
    history: History, views_made: list[int]
) -> None:
    first, second = ask_here(history.env, [LAST_WEEK, LAST_WEEK])
    assert len(views_made) == 1
    assert rows(second) == rows(first)
    assert not any(verdict.endswith("known") for verdict in _verdicts(first)[52])

    # Another question (another period) is its own view.
    ask_here(history.env, [("failures", {"period": "last_30_days"})])
    assert len(views_made) == 2

    connection = resolve(session=None, secrets={}, env=history.env).connection
    assert connection is not None
    with open_for(connection, secrets={}, env=history.env) as store:
        store.add_mark(
            connection.company_id,
            MarkDraft(MarkTarget("scenario", plan_id=PLAN_ID, scenario_id=52), "known_issue"),
            by="ann",
        )
    (after,) = ask_here(history.env, [LAST_WEEK])
    assert len(views_made) == 3
    assert {verdict.split()[-1] for verdict in _verdicts(after)[52]} == {"known"}
    assert _verdicts(after)[53] == _verdicts(first)[53]

    ask_here(history.env, [LAST_WEEK])
    assert len(views_made) == 3


def test_a_scenarios_name_is_answered_as_its_page_shows_it_and_a_new_name_is_seen(
    history: History, views_made: list[int]
) -> None:
    (before,) = ask_here(history.env, [LAST_WEEK])
    connection = resolve(session=None, secrets={}, env=history.env).connection
    assert connection is not None
    with open_for(connection, secrets={}, env=history.env) as store:
        store.set_scenario_name(connection.company_id, 52, name="Checkout pays by card", by="ann")
    (after,) = ask_here(history.env, [LAST_WEEK])
    assert len(views_made) == 2  # the names are part of the view's input
    named = {row["Scenario"]: row.get("Name") for row in rows(after)}
    assert named[52] == "Checkout pays by card"
    assert named[53] != "Checkout pays by card"
    assert len(rows(after)) == len(rows(before))


def test_an_execution_newer_than_the_reused_list_is_still_found(history: History) -> None:
    (listed,) = ask_here(history.env, [("execution_results", {"execution": LATEST})])
    assert not listed.is_error
    newer = history.service.add("SUCCESS", "SUCCESS", "FAILURE", "SUCCESS")
    (answer,) = ask_here(history.env, [("execution_results", {"execution": newer})])
    (failed,) = rows(answer)  # the reused 90 days did not list it: looked up afresh
    assert failed["Scenario"] == 53


def test_the_standup_is_cut_from_the_kept_90_days_without_a_request_and_reads_the_same(
    history: History,
) -> None:
    (alone,) = ask_here(history.env, [("standup", {"detail": "full"})])
    forget_loads()
    ask_here(history.env, [("red_plans", {})])  # keeps the 90 days, as most tools do
    polls = history.service.polls
    (cut,) = ask_here(history.env, [("standup", {"detail": "full"})])
    assert history.service.polls == polls  # its 31 days were not asked for again
    assert rows(cut) == rows(alone)
    assert [(r["Section"], r["Plan"]) for r in rows(cut)] == [("Still failing", "Checkout")]
    assert (cut.structured_content or {})["figures"] == (alone.structured_content or {})["figures"]
