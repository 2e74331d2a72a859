"""The standup's newly failing scenarios say their verdict (`analytics.triage`, the label every
page gives the failure), and the chat digest says the standup's browser-upgrade line, from the
same view (#37, #38)."""

from __future__ import annotations

from datetime import datetime

import pandas as pd

from dashboard.analytics.triage import NEW, failure_verdicts
from dashboard.analytics.windows import standup_window
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import typed_rows
from dashboard.present.standup import newly_verdicts
from dashboard.present.standup_view import StandupView, standup_needs, standup_view
from dashboard.present.triage import label_text
from tests.analytics.frames import (
    UPGRADE_AFTER,
    UPGRADE_BEFORE,
    execution,
    executions,
    ts,
    upgrade_night,
)
from tests.present.test_digest import read_results
from tests.present.test_standup_view import by_title, fanout, view_of

PLAN = 1
NOW = ts("2026-11-24 10:00")  # Tuesday: the standup window opens Mon 23 Nov 09:30


def upgrade_view() -> StandupView:
    """Chrome went 130 -> 131 the night scenarios 1 and 2 started failing on it; scenario 3
    failed on Firefox 128 (`frames.upgrade_night`): 3 new failures, 2 with the upgrade."""
    results = upgrade_night()
    runs = executions(
        [
            execution(UPGRADE_BEFORE, PLAN, "2026-11-23 02:00", results=10),
            execution(UPGRADE_AFTER, PLAN, "2026-11-24 02:00", "fail", results=10, failed=3),
        ]
    )
    needs = standup_needs(
        runs,
        typed_rows([], MARK_COLUMNS),
        window=standup_window(NOW, tz="UTC"),
        now=datetime.fromisoformat("2026-11-24T10:00:00+00:00"),
    )
    return standup_view(needs, fanout(results, 2), link_for=lambda k, i: None, plan_names={})


def test_each_newly_failing_scenario_says_the_verdict_of_its_failure() -> None:
    needs, view = view_of(results=fanout(read_results()))

    newly = by_title(view)["Newly failing scenarios"]
    # Scenario 7 of Checkout passed in execution 1 and fails in 2 on both its environments:
    # the first failure of a scenario that ran before, on each environment: new.
    assert newly["Verdict"].tolist() == [label_text(NEW)] * 2
    # The label the one verdict gives each of those failures, read the same way.
    verdicts = failure_verdicts(
        read_results(), needs.executions, needs.marks, now=needs.now, judged=needs.judged
    )
    own = verdicts[(verdicts["execution_id"] == 2) & (verdicts["scenario_id"] == 7)]
    assert sorted(own["label"]) == [NEW, NEW]
    assert "Verdict" in view.sections[3].columns
    # The CSV of every item carries it too.
    items = view.items[view.items["Section"] == "Newly failing scenarios"]
    assert all("Verdict: \u2731 new" in d for d in items["Details"])


def test_without_results_the_section_has_no_verdict_column() -> None:
    _, view = view_of(results=None)

    assert "Verdict" not in by_title(view)["Newly failing scenarios"].columns


def test_the_chat_digest_says_the_standup_s_upgrade_line() -> None:
    view = upgrade_view()

    said = "2 new failures started with a browser upgrade"
    assert view.upgrade_line == said
    newly = next(s for s in view.sections if s.title == "Newly failing scenarios")
    assert newly.caption is not None
    assert newly.caption.startswith(f"{said}.")
    assert len(newly.section.rows) == 3
    chat = view.chat(lambda kind, ident: None)
    section = chat.split("**Newly failing scenarios**", 1)[1].split("**Slower**", 1)[0]
    assert f"_{said}._" in section


def test_no_upgrade_no_line_in_the_chat() -> None:
    _, view = view_of(results=fanout(read_results()))

    assert view.upgrade_line is None
    assert "browser upgrade" not in view.chat(lambda kind, ident: None)


def test_the_verdict_column_reads_a_dash_where_no_failure_was_judged() -> None:
    _, view = view_of(results=fanout(read_results()))
    newly = view.digest.newly_failing
    assert newly is not None

    empty = pd.DataFrame(
        {
            c: pd.Series(dtype=t)
            for c, t in (
                ("result_id", "Int64"),
                ("execution_id", "int64"),
                ("scenario_id", "Int64"),
                ("environment", "str"),
                ("label", "str"),
            )
        }
    )
    assert newly_verdicts(newly, empty) == ["\u2013"] * len(newly)
