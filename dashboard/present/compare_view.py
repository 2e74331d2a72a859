"""Everything the Compare executions page draws for one pair of executions of a plan, built in
one go: the notes above the comparison, the KPI tiles, what changed between the two runs, the
buckets' chart, the failures to mark and the scenario-by-environment table.

The page keeps its controls, the loading (and what loading failed) and the mark form; this
turns the loaded frames, the pair, the marks and the viewer's zone into the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date

import pandas as pd

from dashboard.analytics import compare as compare_analytics
from dashboard.analytics import marks as mark_analytics
from dashboard.analytics import upgrades as upgrade_analytics
from dashboard.analytics import what_changed
from dashboard.analytics.known_figures import compare_with_known
from dashboard.analytics.outcomes import FAIL
from dashboard.present import analytics_charts
from dashboard.present import compare as words
from dashboard.present import executions as executions_words
from dashboard.present import table_view as columns
from dashboard.present import what_changed as changes_words
from dashboard.present.captions import scope_text
from dashboard.present.table_view import TableView
from dashboard.present.tables import with_names
from dashboard.present.view_parts import ChartView, Said, caption, note, plain

ScenarioLink = Callable[[int, int], str]

PICK_A_PLAN = "Pick a plan to compare two of its executions."
NOTHING_CHANGED = (
    "Nothing changed between the two executions: switch off Only changes to see every scenario."
)


@dataclass(frozen=True, eq=False)
class PairChoice:
    """What the pickers offer for a plan: its executions of the lookback and their ids, its
    default pair (None when it has fewer than two judged executions) and its outages (id ->
    "likely outage" or "outage"), which the default pair passes over."""

    plan: int
    executions: pd.DataFrame
    ids: frozenset[int]
    default: tuple[int, int] | None
    outages: dict[int, str]

    def options(self, tz: str) -> dict[int, str]:
        """The Before/After pickers' choices, newest first (`compare.execution_options`)."""
        return words.execution_options(self.executions, tz, self.outages)


def pair_choice(executions: pd.DataFrame, plan: int, outages: pd.DataFrame) -> PairChoice:
    """The pickers' choice among the plan's `executions` of the lookback, with `outages` (the
    outages found among them)."""
    labels = executions_words.outage_labels(outages)
    return PairChoice(
        plan=plan,
        executions=executions,
        ids=frozenset(int(i) for i in executions["execution_id"]),
        default=compare_analytics.default_pair(executions, plan, leave_out=labels),
        outages=labels,
    )


@dataclass(frozen=True, eq=False)
class CompareView:
    """notes: the compared outages (a warning), the outages the default pair passed over (an
    info note) and what the comparison was computed from; kpis: (label, value) of each tile;
    summary: the counts and runtimes in words; changes: what changed between the two runs, and
    changes_caption, where that comes from; chart: the buckets' counts (None when both sides
    are empty); known: the split of failures into unresolved, known and in an outage; to_mark:
    the after side's failed cells; nothing_changed: said when only changes are shown and none
    are; table: every cell (or only the changes); legend: the buckets' symbols."""

    notes: tuple[Said, ...]
    kpis: tuple[tuple[str, str], ...]
    summary: str
    changes: Said
    changes_caption: str
    chart: ChartView | None
    known: str
    to_mark: pd.DataFrame
    nothing_changed: Said | None
    table: TableView
    legend: str


def compare_view(
    choice: PairChoice,
    results: pd.DataFrame,
    marks: pd.DataFrame,
    *,
    plans: pd.DataFrame,
    plan_names: Mapping[int, str],
    plan_name: str | None,
    before: int,
    after: int,
    only_changes: bool,
    tz: str,
    today: date,
    scenario_link: ScenarioLink,
    names: pd.DataFrame | None = None,
) -> CompareView:
    """The comparison of execution `before` with `after` of the plan of `choice`, from its
    executions of the lookback, the two executions' `results` and the `marks` that apply now;
    each scenario named from the company's scenario `names` (None: none)."""
    plan, executions = choice.plan, choice.executions
    # An outage on either side is said first: its failures are not what changed in the tests.
    sides = compare_analytics.outage_sides(executions, marks, results, before, after)
    passed_over = None
    if (before, after) == choice.default:
        passed_over = words.passed_over_text(
            compare_analytics.passed_over(executions, plan, choice.outages, before)
        )
    comparison = compare_analytics.compare_executions(results, before, after, executions=executions)
    basis = words.basis_caption(
        comparison.basis, today=today, scope=scope_text(plan=plan_name), before=before, after=after
    )
    changed = what_changed.between(plan, before, after, executions, results, plans)
    upgrades = upgrade_analytics.upgrade_failures(comparison.cells)
    # The after side's failures a mark covers, or an outage holds, are told apart (the counts
    # above keep them all).
    cells = compare_analytics.with_outage_sides(
        compare_with_known(comparison.cells, mark_analytics.known_cells(results, marks)),
        sides["execution_id"],
    )
    to_mark = cells[cells["after_outcome"] == FAIL]
    shown = compare_analytics.only_changes(cells) if only_changes else cells
    return CompareView(
        notes=(
            note(*words.outage_lines(sides, plan_names, tz)),
            note(passed_over, severity="info"),
            caption(basis),
        ),
        kpis=(
            ("New failures", f"{comparison.count(compare_analytics.NEW_FAILURE):,}"),
            ("Fixed", f"{comparison.count(compare_analytics.FIXED):,}"),
            ("Still failing", f"{comparison.count(compare_analytics.STILL_FAILING):,}"),
            ("Runtime change", words.runtime_change(comparison)),
            ("After a browser upgrade", f"{len(upgrades):,}"),
        ),
        summary=words.summary_caption(comparison),
        changes=plain(
            *changes_words.pair_sentences(changed, before, after, tz),
            *[line + "." for line in [changes_words.upgrade_line(len(upgrades))] if line],
            *changes_words.upgrade_sentences(upgrades),
        ),
        changes_caption=changes_words.pair_caption(),
        chart=ChartView(
            analytics_charts.bucket_counts_chart(comparison.counts),
            key="compare.buckets",
            file_name=f"compare-{before}-{after}-changes.csv",
        )
        if any(n for _, n in comparison.counts)
        else None,
        known=words.known_caption(cells),
        to_mark=to_mark,
        nothing_changed=note(NOTHING_CHANGED, severity="info")
        if only_changes and shown.empty
        else None,
        table=TableView(
            with_names(words.compare_display(shown, plan, scenario_link), names, after="History"),
            key="compare.table",
            file_name=f"compare-{before}-{after}.csv",
            columns={
                "Scenario": columns.ident(),
                "History": columns.link("history"),
                "Message after": columns.wide_text(),
            },
        ),
        legend=words.legend(),
    )
