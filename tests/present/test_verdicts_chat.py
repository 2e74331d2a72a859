"""One verdict per failed result, read alike by the standup (view and digest text), the alerts
and the gate (#37): on a hand-built world with every planted case, each face gives each failure
the label `analytics.triage.failure_verdicts` gives it, and what each face *says* follows from
that label (a known failure leaves the sections for its mark's line, an outage is one line named
with its dominant message, a mark expired since the standup is named, a just-fixed plan's
failures are recovering, not broken; the alert and the gate count the same labels).

The world (`tests/analytics/triage_frames.py`), three plans, executions daily at 08:00 on 10 to
19 Nov 2026, now 20 Nov 10:00, the standup's window from Wed 18 Nov 12:00:

- plan 1, the `WORLD` of triage_frames: its latest execution 10 (19 Nov) fails with one failure
  of each label (new, broken, flaky, environment-specific, unresolved), still failing since
  before; scenario 2 (broken) is marked known (SHOP-2); scenario 7's mark (SHOP-7) had its last
  day on 19 Nov, so it expired since the standup and its failure is unresolved again; its
  execution 11, the night of 19 Nov at 02:00, is the grid going down (13 of 14 failed with
  "UnreachableBrowser: grid down").
- plan 2 (executions 201 to 210): scenario 1 failed nine days and passed on the tenth: Fixed,
  its failures recovering.
- plan 3 (301 to 310): scenarios 1 and 2 passed nine days and failed on the tenth: Turned
  red, both new; scenario 2 is marked known (SHOP-32).
"""

from __future__ import annotations

from datetime import timedelta

import pandas as pd
import pytest

from dashboard.analytics import alerts as alert_rules
from dashboard.analytics.gate import GateRules, gate_verdict
from dashboard.analytics.triage import (
    BROKEN,
    ENVIRONMENT_SPECIFIC,
    FLAKY,
    KNOWN,
    NEW,
    OUTAGE,
    RECOVERING,
    UNRESOLVED,
    failure_verdicts,
    label_counts,
)
from dashboard.analytics.windows import custom_window
from dashboard.columns import marks as columns
from dashboard.present.standup_view import StandupView, standup_needs, standup_view
from tests.analytics import triage_frames as tf
from tests.present.test_standup_view import fanout

NOW = tf.NOW
WINDOW = custom_window(tf.ts("2026-11-18 12:00"), NOW)
OUTAGE_AT = "2026-11-19 02:00"
FIXED = {1: {"chrome": "FFFFFFFFFP", "safari": "FFFFFFFFFP"}}
TURNED_RED = {
    1: {"chrome": "PPPPPPPPPF", "safari": "PPPPPPPPPP"},
    2: {"chrome": "PPPPPPPPPF", "safari": "PPPPPPPPPP"},
    3: {"chrome": "PPPPPPPPPP", "safari": "PPPPPPPPPP"},
}
MARKS = tf.marks(
    tf.mark("shop-2", columns.SCENARIO, plan_id=1, scenario_id=2),
    tf.mark("shop-32", columns.SCENARIO, plan_id=3, scenario_id=2),
    tf.mark("shop-7", columns.SCENARIO, plan_id=1, scenario_id=7, expires_on=tf.ts("2026-11-19")),
)
LATEST = {1: 10, 2: 210, 3: 310}
"""Each plan's latest execution."""


def plan_rows(plan_id: int, scenarios: dict[int, dict[str, str]]) -> tuple[list, pd.DataFrame]:
    first = 1 if plan_id == 1 else plan_id * 100 + 1
    rows = tf.world_results(scenarios, plan_id=plan_id, first_id=first, outage=plan_id == 1)
    starts = {first + i: tf.day(i) for i in range(10)}
    if plan_id == 1:
        starts[tf.OUTAGE_ID] = OUTAGE_AT
    return rows, tf.summaries(rows, starts=starts, plan_id=plan_id)


def the_world() -> tuple[pd.DataFrame, pd.DataFrame]:
    parts = [plan_rows(1, tf.WORLD), plan_rows(2, FIXED), plan_rows(3, TURNED_RED)]
    results = tf.results([row for rows, _ in parts for row in rows])
    executions = pd.concat([frame for _, frame in parts], ignore_index=True)
    return results, executions.sort_values("start", ascending=False, ignore_index=True)


RESULTS, EXECUTIONS = the_world()


def labels_of(frame: pd.DataFrame) -> dict[int, str]:
    """Each failed result's label, by result id."""
    rows = frame.dropna(subset=["result_id"])
    return {int(r): str(label) for r, label in zip(rows["result_id"], rows["label"], strict=True)}


def reference(judged: list[int]) -> pd.DataFrame:
    return failure_verdicts(RESULTS, EXECUTIONS, MARKS, now=NOW, judged=judged)


def the_standup() -> StandupView:
    needs = standup_needs(EXECUTIONS, MARKS, window=WINDOW, now=NOW.to_pydatetime())
    return standup_view(
        needs,
        fanout(RESULTS, executions_read=len(needs.results_needed)),
        link_for=lambda kind, ident: f"https://qa.example/{kind}/{ident}",
        plan_names={1: "Plan 1", 2: "Plan 2", 3: "Plan 3"},
    )


def test_the_planted_failures_have_the_labels_the_world_was_built_for() -> None:
    found = reference([10, tf.OUTAGE_ID, 209, 310])
    by_id = labels_of(found)
    rid = tf.result_id
    assert by_id[rid(10, 1, "chrome")] == NEW
    assert by_id[rid(10, 2, "chrome")] == by_id[rid(10, 2, "safari")] == KNOWN
    assert by_id[rid(10, 3, "chrome")] == FLAKY
    assert by_id[rid(10, 4, "safari")] == by_id[rid(10, 6, "chrome")] == ENVIRONMENT_SPECIFIC
    assert by_id[rid(10, 7, "chrome")] == UNRESOLVED  # its mark expired yesterday
    outage = found[found["execution_id"] == tf.OUTAGE_ID]
    assert set(outage["label"]) == {OUTAGE}
    assert len(outage) == 13
    assert set(found.loc[found["execution_id"] == 209, "label"]) == {RECOVERING}
    assert by_id[rid(310, 1, "chrome")] == NEW
    assert by_id[rid(310, 2, "chrome")] == KNOWN
    # Without the mark, scenario 2 of plan 1 is broken: what the mark hides is a real state.
    bare = failure_verdicts(RESULTS, EXECUTIONS, tf.NO_MARKS, now=NOW, judged=[10])
    assert labels_of(bare)[rid(10, 2, "chrome")] == BROKEN


def test_the_standup_reads_the_same_labels_and_says_what_follows_from_them() -> None:
    view = the_standup()
    folded = view.folded
    mine = labels_of(folded.verdicts)
    judged = sorted({int(e) for e in folded.verdicts["execution_id"]})
    assert judged == [10, tf.OUTAGE_ID, 209, 310]  # 210, plan 2's green, has no failure
    assert mine == labels_of(reference(judged))

    # Fixed and the verdict agree: plan 2 is Fixed, its last failures recovering, not broken.
    assert view.digest.fixed["plan_id"].tolist() == [2]
    fixed_labels = folded.verdicts.loc[folded.verdicts["execution_id"] == 209, "label"]
    assert set(fixed_labels) == {RECOVERING}
    # Plan 1 is still failing (its unresolved failures); plan 3 turned red.
    assert view.digest.still_failing["plan_id"].tolist() == [1]
    assert view.digest.turned_red["plan_id"].tolist() == [3]
    newly = view.digest.newly_failing
    assert newly is not None
    cells = sorted(
        (int(p), int(c)) for p, c in zip(newly["plan_id"], newly["scenario_id"], strict=True)
    )
    # Passed in the execution before, failed in the latest: plan 1's new and flaky scenarios 1
    # and 3, plan 3's scenario 1 (its scenario 2 is known: SHOP-32's line).
    assert cells == [(1, 1), (1, 3), (3, 1)]
    known = folded.known.set_index("mark_id")
    assert known.loc["shop-32", "scenarios"] == 1
    assert known.loc["shop-32", "failures"] == 1
    assert known.loc["shop-2", "failures"] == 2  # plan 1's pair is not newly failing, still read
    # The outage is one line, named with the message most of its failures share.
    outage = folded.outages.set_index("execution_id")
    assert list(outage.index) == [tf.OUTAGE_ID]
    verdict_signature = folded.verdicts.loc[
        folded.verdicts["execution_id"] == tf.OUTAGE_ID, "outage_signature"
    ].iloc[0]
    assert outage.loc[tf.OUTAGE_ID, "signature"] == verdict_signature
    assert "grid down" in verdict_signature
    # The mark that expired since the standup is named.
    assert folded.expired["mark_id"].tolist() == ["shop-7"]


def test_the_digest_text_says_the_same_as_the_view() -> None:
    view = the_standup()
    text = view.chat(lambda kind, ident: f"https://qa.example/{kind}/{ident}")
    outage_line = next(line for line in text.splitlines() if "likely outage" in line)
    assert "execution 11" in outage_line
    assert "13 of 14 results failed" in outage_line
    assert "most with" in outage_line
    assert "grid down" in outage_line
    known = text.split("**Known**")[1].split("\n\n")[0]
    assert "Plan 1: 1 scenario known" in known
    assert "SHOP-2" in known
    assert "Plan 3: 1 scenario known" in known
    assert "SHOP-32" in known
    expired = text.split("**Marks expired (their failures count again)**")[1]
    assert expired.splitlines()[1].startswith("- SHOP-7")
    assert "its last day was Thu 19 Nov; its failures count again" in expired
    assert "_Nothing fixed_" not in text


def test_the_alerts_count_the_same_labels() -> None:
    changes = alert_rules.plan_changes(
        EXECUTIONS, NOW, horizon=timedelta(days=2), results=RESULTS, marks=MARKS
    )
    by_plan = {c.plan_id: c for c in changes}
    assert {p: c.kind for p, c in by_plan.items()} == {2: alert_rules.GREEN, 3: alert_rules.RED}
    counts = label_counts(reference([LATEST[3]]))
    assert dict(by_plan[3].split) == {k: n for k, n in counts.items() if n}
    assert dict(by_plan[3].split) == {KNOWN: 1, NEW: 1}


@pytest.mark.parametrize("execution_id", [LATEST[1], tf.OUTAGE_ID, LATEST[3]])
def test_the_gate_gives_each_failure_the_same_label(execution_id: int) -> None:
    own = RESULTS[RESULTS["execution_id"] == execution_id]
    row = EXECUTIONS[EXECUTIONS["execution_id"] == execution_id].iloc[0]
    verdict = gate_verdict(
        passed=int(row["passed"]),
        verdicts=int(row["verdicts"]),
        results=own,
        marks=MARKS,
        now=NOW,
        rules=GateRules(),
        executions=EXECUTIONS,
        history=RESULTS,
    )
    assert verdict.verdicts is not None
    assert labels_of(verdict.verdicts) == labels_of(reference([execution_id]))
    # Only what a mark covers is let through: every known failure, and in the outage the
    # failures SHOP-2 covers (their label stays outage: an outage comes first).
    frame = verdict.verdicts
    held = frame[~frame["let_through"]]
    assert KNOWN not in set(held["label"])
    through = frame[frame["let_through"]]
    assert set(through["label"]) <= {KNOWN, OUTAGE}
    assert sorted(through["scenario_id"].unique().tolist()) in ([], [2])
    assert verdict.split.known == len(through)
    assert not verdict.passed


def test_the_digest_says_each_newly_failing_scenarios_verdict() -> None:
    text = the_standup().chat(lambda kind, ident: f"https://qa.example/{kind}/{ident}")
    newly = text.split("**Newly failing scenarios**\n")[1].split("\n\n")[0].splitlines()
    by_scenario = {
        (line.split("](")[0].lstrip("- ["), line.split("scenario ")[1].split(" ")[0]): line
        for line in newly
    }
    assert by_scenario[("Plan 1", "1")].endswith(f": {NEW}")
    assert by_scenario[("Plan 1", "3")].endswith(f": {FLAKY}")  # newly failing, and it flips
    assert by_scenario[("Plan 3", "1")].endswith(f": {NEW}")
