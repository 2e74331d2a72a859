"""Everything the Flaky scenarios page draws from one window, built in one go.

The page asks `cache.built` for this once per input (the window's executions, its results'
counts, W, the threshold, the marks that apply, the plans' names, the time zone), so the same
view opened again (a shared link, a rerun that changed nothing) redraws from what is made
instead of scoring some 36,000 results of a 200-run window again. `flaky_page` words what the
page draws around it (captions, notes, the tables with their columns' looks, the marking form's
choices) from the view and what the page loaded; the page lays it out.

Outages are handled as the failure verdicts handle them (`analytics.triage`): the scores are
always over each plan's last W finished executions *without* the outages; "Include outages"
decides only whether their failures are shown in the failure groups (labelled outage). Each
flaky row and each group carries the verdicts of its failures, so a scenario listed here whose
failure is not judged flaky says why (known, with its mark; an outage).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date

import pandas as pd

from dashboard.analytics import flaky as flaky_analytics
from dashboard.analytics import group_rules, known_figures
from dashboard.analytics import marks as mark_analytics
from dashboard.analytics.failure_groups import FailureGroups, Grouping, with_known
from dashboard.analytics.flaky import Flakiness
from dashboard.analytics.group_rules import TeamRules
from dashboard.analytics.scenario_names import names_by_id
from dashboard.analytics.states import StateRules
from dashboard.analytics.triage import OUTAGE, PRECEDENCE, TRIAGE_COLUMNS
from dashboard.columns.shapes import empty
from dashboard.data.fanout_answer import FanOutCounts
from dashboard.present import analytics_charts
from dashboard.present import failure_groups as groups_view
from dashboard.present import flaky as flaky_words
from dashboard.present import known as known_words
from dashboard.present import states as states_words
from dashboard.present import table_view as columns
from dashboard.present.captions import describe_window
from dashboard.present.chart_data import Chart
from dashboard.present.failure_groups import ResultsLink
from dashboard.present.formatting import escape_markdown, visible_text
from dashboard.present.known import Choice
from dashboard.present.table_view import TableView
from dashboard.present.tables import with_names
from dashboard.present.triage import label_text, precedence_text

GROUPINGS = groups_view.GROUPINGS
"""Per scenario or across scenarios: the page's choice of grouping."""
VERDICT_COLUMNS = ("Verdict", "Verdict evidence")
"""The flaky table's verdict of each row's latest failure and its evidence line, after the
columns a laptop keeps in view (`present.key_columns`)."""


def left_out(outages: pd.DataFrame) -> frozenset[int]:
    """The executions the scores leave out, whatever the page shows: the outages (as the
    verdicts do)."""
    return frozenset(int(e) for e in outages["execution_id"])


def rules(window: int, threshold: float) -> StateRules:
    """The verdicts' rules for the page's W and threshold (K as the flaky rule's)."""
    return StateRules(window=window, threshold=threshold, min_runs=flaky_analytics.MIN_RUNS)


def judged(analysed: pd.DataFrame) -> list[int]:
    """The executions whose failures the page judges: those of the window it shows."""
    return [int(e) for e in analysed["execution_id"]]


def verdict_results(*loads: pd.DataFrame) -> pd.DataFrame:
    """The results the verdicts read: those of the scores' window and of the groups' (with
    the outages when included), each once."""
    frames = [frame for frame in loads if not frame.empty]
    if len(frames) <= 1:
        return frames[0] if frames else loads[0]
    return pd.concat(frames, ignore_index=True).drop_duplicates("result_id")


@dataclass(frozen=True, eq=False)
class FlakyView:
    """flakiness: the scores; display: the flaky table; chart: the timeline (None when no
    scenario is flaky); grouped: the window's failure groups; groups: those with their known
    failures (None when none failed); group_tables: the failed results of each group listed,
    in order. Shared between reruns and viewers: never mutate it."""

    flakiness: Flakiness
    display: pd.DataFrame
    chart: Chart | None
    grouped: FailureGroups
    groups: pd.DataFrame | None
    group_tables: tuple[pd.DataFrame, ...]
    verdicts: pd.DataFrame


def flaky_view(
    analysed: pd.DataFrame,
    results: pd.DataFrame,
    marks: pd.DataFrame,
    *,
    window: int,
    threshold: float,
    plan_names: Mapping[int, str],
    tz: str,
    scenario_link: flaky_words.ScenarioLink,
    results_link: ResultsLink,
    verdicts: pd.DataFrame | None = None,
    grouped_window: tuple[pd.DataFrame, pd.DataFrame] | None = None,
    rules: TeamRules | None = None,
    grouping: Grouping = Grouping.SCENARIO,
    names: Mapping[int, str] | None = None,
) -> FlakyView:
    """The page's figures and tables for each plan's last `window` finished executions
    (`analysed`, outages left out) and their `results`, `marks` (those that apply) split into
    known failures, with `verdicts` (the one verdict per failed result, `ui.triage.verdicts_of`)
    beside each row and group. The failure groups are of `grouped_window` (its executions and
    results: the window with the outages, when the page includes them), else the same window:
    per scenario unless `grouping` says across, after the team's `rules` (`names`: scenario
    names by id, for rules on them)."""
    judged = verdicts is not None
    verdicts = empty(TRIAGE_COLUMNS) if verdicts is None else verdicts
    cells = mark_analytics.known_cells(results, marks)
    flakiness = flaky_analytics.flaky_scenarios(
        analysed, results, window=window, threshold=threshold
    )
    display = flaky_words.flaky_display(
        flakiness, plan_names, scenario_link, known_figures.known_runs(cells)
    )
    display = _with_verdicts(display, flakiness, verdicts, tz, judged=judged)
    if grouped_window is not None:
        analysed, results = grouped_window
    chart = None
    if not display.empty:
        rows = flaky_words.flaky_rows(flakiness)
        labels = analytics_charts.labels_for(rows, plan_names)
        chart = analytics_charts.flaky_timeline_chart(rows, flakiness.positions, labels, tz)
    grouped = group_rules.grouped(analysed, results, rules, grouping=grouping, names=names)
    if grouped.groups.empty:
        return FlakyView(flakiness, display, chart, grouped, None, (), verdicts)
    covered = mark_analytics.covered_failures(results, marks)
    covered = covered.assign(result_id=results.loc[covered.index, "result_id"].to_numpy())
    groups = with_known(grouped.groups, covered)
    label_of = dict(zip(verdicts["result_id"].tolist(), verdicts["label"].tolist(), strict=True))
    groups = groups.assign(verdicts=[_tally(label_of, ids) for ids in groups["result_ids"]])
    starts = dict(zip(analysed["execution_id"], analysed["start"], strict=True))
    tables = tuple(
        _labelled(
            groups_view.group_results_display(
                results,
                group["result_ids"],
                plan_names=dict(plan_names),
                scenario_link=scenario_link,
                results_link=results_link,
                execution_starts=starts,
            ),
            results,
            group["result_ids"],
            verdicts,
        )
        for _, group in grouped.groups.head(groups_view.GROUPS_SHOWN).iterrows()
    )
    return FlakyView(flakiness, display, chart, grouped, groups, tables, verdicts)


def _with_verdicts(
    display: pd.DataFrame, flakiness: Flakiness, verdicts: pd.DataFrame, tz: str, *, judged: bool
) -> pd.DataFrame:
    """The flaky table with the verdict of each row's latest failure and its evidence line
    (`VERDICT_COLUMNS`, before the timeline): of the scenario on the row's environment, or, for
    a scenario flaky on one of its environments, on that one; a dash where none failed (or,
    not `judged`, where no verdicts were given)."""
    rows = flaky_words.flaky_rows(flakiness)
    at = list(display.columns).index("Timeline")
    if rows.empty:
        for offset, column in enumerate(VERDICT_COLUMNS):
            display.insert(at + offset, column, pd.Series(dtype="object"))
        return display
    # An outage's failure is no row's latest: the scores never count it (it is in the groups).
    verdicts = verdicts[verdicts["label"] != OUTAGE]
    by_scenario = states_words.latest_verdicts(verdicts, tz=tz)
    by_env = states_words.latest_verdicts(
        verdicts, ("plan_id", "scenario_id", "environment"), tz=tz
    )
    found: list[tuple[str, str]] = []
    for row in rows.to_dict("records"):
        scenario = (int(row["plan_id"]), int(row["scenario_id"]))
        environment = row["environment"]
        if environment is None or pd.isna(environment):
            environment = row["worst_environment"] if row["reason"] == "environment" else None
        table, key = (
            (by_scenario, scenario)
            if environment is None or pd.isna(environment)
            else (by_env, (*scenario, str(environment)))
        )
        if key in table.index:
            found.append((table.at[key, "label_text"], table.at[key, "evidence"]))
        else:
            found.append(("\u2013", "no failure in the window" if judged else "\u2013"))
    display = display.copy()
    display.insert(at, VERDICT_COLUMNS[0], [label for label, _ in found])
    display.insert(at + 1, VERDICT_COLUMNS[1], [line for _, line in found])
    return display


def _tally(label_of: Mapping[object, object], result_ids: object) -> str:
    """ "5 flaky, 2 known" of the failed results `result_ids` (`label_of`: each judged result's
    label), in the precedence's order: asked once per group, and a window has thousands."""
    labels = Counter(label_of[i] for i in result_ids if i in label_of)  # type: ignore[attr-defined]
    parts = [f"{labels[label]:,} {label}" for label in PRECEDENCE if labels[label]]
    return ", ".join(parts) if parts else "\u2013"


def _labelled(
    shown: pd.DataFrame, results: pd.DataFrame, result_ids: object, verdicts: pd.DataFrame
) -> pd.DataFrame:
    """A group's results table with each failed result's verdict after its level (its rows in
    `group_results_display`'s order: newest first)."""
    wanted = {int(i) for i in result_ids}  # type: ignore[attr-defined]
    rows = results[results["result_id"].isin(wanted)]
    ordered = rows.sort_values(["start", "result_id"], ascending=False)["result_id"]
    label_of = dict(zip(verdicts["result_id"], verdicts["label"], strict=True))
    shown = shown.copy()
    shown.insert(
        list(shown.columns).index("Level") + 1,
        "Verdict",
        [label_text(label_of.get(int(i))) for i in ordered],
    )
    return shown


def rule(window: int, threshold: float) -> str:
    """The rule, as the page explains it (markdown), with the runs it needs."""
    return flaky_words.rule_text(window, threshold, flaky_analytics.MIN_RUNS)


def view_inputs(
    analysed: pd.DataFrame,
    counts: FanOutCounts | None,
    marks: pd.DataFrame,
    *,
    window: int,
    threshold: float,
    plan_names: Mapping[int, str],
    tz: str,
    verdicts: pd.DataFrame | None = None,
    grouped: pd.DataFrame | None = None,
    rules: TeamRules | None = None,
    grouping: Grouping = Grouping.SCENARIO,
    names: Mapping[int, str] | None = None,
) -> tuple[object, ...]:
    """What names a `flaky_view` in a cache key: the window's executions and its results'
    counts, W, the threshold, the marks that apply (each one's id and revision), names, zone,
    the verdicts (each row's result and label and evidence), the groups' executions, the
    team's rules in force, the grouping and the scenario names (when rules read them)."""
    return (
        hashlib.sha256(analysed["execution_id"].to_numpy().tobytes()).hexdigest(),
        counts,
        window,
        threshold,
        mark_analytics.marks_key(marks),
        tuple(plan_names.items()),
        tz,
        None if verdicts is None else _digest(verdicts),
        None
        if grouped is None
        else hashlib.sha256(grouped["execution_id"].to_numpy().tobytes()).hexdigest(),
        None if rules is None else rules.key,
        grouping.value,
        None
        if rules is None or not any(r.scenario for r in rules.rules)
        else tuple(sorted((names or {}).items())),
    )


def _digest(frame: pd.DataFrame) -> str:
    """A short name of every row and column of `frame`."""
    hashed = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return hashlib.sha256(hashed.tobytes()).hexdigest()


@dataclass(frozen=True, eq=False)
class FlakyPage:
    """Everything the page draws, worded. Flaky: `window_caption`, then the timeline `chart`
    with its `legend` or (without one) the `none_flaky` note, the `table`, `not_enough_runs`
    and `known_runs`. Failure groups: `groups_caption`, then (without groups) the
    `no_failures` note, where the page ends, or `known_caption`, the marking form's
    `mark_choices`, the `groups_table`, each listed group as (its expander's label,
    markdown-escaped; its results) and `more_groups`.
    `view`: the figures and tables they were worded from."""

    view: FlakyView
    window_caption: str
    chart: Chart | None
    legend: str
    none_flaky: str
    table: TableView
    not_enough_runs: str | None
    known_runs: str
    groups_caption: str
    no_failures: str
    known_caption: str | None
    mark_choices: list[Choice]
    groups_table: TableView | None
    group_sections: tuple[tuple[str, TableView], ...]
    more_groups: str | None


Memo = Callable[[tuple[object, ...], Callable[[], FlakyView]], FlakyView]
"""(the inputs that name a view, how to make it) -> the view: made once per inputs and kept
(the page's `cache.built`), or simply made."""


def _made(_: tuple[object, ...], build: Callable[[], FlakyView]) -> FlakyView:
    return build()


def flaky_page(
    analysed: pd.DataFrame,
    results: pd.DataFrame,
    executions: pd.DataFrame,
    marks: pd.DataFrame,
    *,
    counts: FanOutCounts | None,
    window: int,
    threshold: float,
    today: date,
    scope: str,
    plan: int | None,
    plan_names: Mapping[int, str],
    tz: str,
    scenario_link: flaky_words.ScenarioLink,
    results_link: ResultsLink,
    memo: Memo = _made,
    verdicts: pd.DataFrame | None = None,
    grouped_window: tuple[pd.DataFrame, pd.DataFrame] | None = None,
    outages: tuple[int, bool] = (0, False),
    names: pd.DataFrame | None = None,
    rules: TeamRules | None = None,
    grouping: Grouping = Grouping.SCENARIO,
) -> FlakyPage:
    """The page: `flaky_view` of the window (`analysed`, its `results` and their `counts`, the
    `marks` that apply, the `verdicts`, the groups' `grouped_window`, the team's group `rules`
    and the `grouping`), through `memo`, and the words around it. `executions` are the
    lookback's (their running ones are said to be left out), `plan` the one the page shows
    (None: every plan); `names`: the company's scenario names (None: none), beside each flaky
    scenario."""
    named = names_by_id(names) if names is not None and not names.empty else None
    inputs = view_inputs(
        analysed,
        counts,
        marks,
        window=window,
        threshold=threshold,
        plan_names=plan_names,
        tz=tz,
        verdicts=verdicts,
        grouped=None if grouped_window is None else grouped_window[0],
        rules=rules,
        grouping=grouping,
        names=named,
    )
    view = memo(
        inputs,
        lambda: flaky_view(
            analysed,
            results,
            marks,
            window=window,
            threshold=threshold,
            plan_names=plan_names,
            tz=tz,
            scenario_link=scenario_link,
            results_link=results_link,
            verdicts=verdicts,
            grouped_window=grouped_window,
            rules=rules,
            grouping=grouping,
            names=named,
        ),
    )
    table = TableView(
        with_names(view.display, names, after="History"),
        key="flaky.table",
        file_name="flaky-scenarios.csv",
        columns={
            "Scenario": columns.ident(),
            "Score": columns.number("%.2f", width="small"),
            "History": columns.link("history"),
        },
    )
    groups, grouped = view.groups, view.grouped
    listed = grouped.groups.head(groups_view.GROUPS_SHOWN).iterrows()
    return FlakyPage(
        view=view,
        window_caption=describe_window(
            view.flakiness.basis,
            executions,
            today=today,
            scope=scope,
            window=window,
            each_plan=True,
        )
        + _sentence(flaky_words.outages_text(outages[0], included=outages[1])),
        chart=view.chart,
        legend=flaky_words.timeline_legend(),
        none_flaky=flaky_words.none_flaky_text(threshold),
        table=table,
        not_enough_runs=flaky_words.not_enough_runs_text(view.flakiness, flaky_analytics.MIN_RUNS),
        known_runs=f"{known_words.KNOWN_RUNS_CAPTION} "
        f"{flaky_words.verdicts_caption(precedence_text())}",
        groups_caption=flaky_words.groups_caption(
            grouped.basis, today=today, scope=scope, grouping=grouping
        )
        + "".join(f" {n}" for n in [group_rules.rules_note(rules)] if n),
        no_failures="No result failed in these executions.",
        known_caption=None
        if groups is None
        else known_words.known_caption(int(groups["known"].sum()), int(groups["failures"].sum())),
        mark_choices=[]
        if groups is None
        else known_words.group_choices(
            _signatures(groups["signatures"]), plan_id=plan, plan_names=plan_names
        ),
        groups_table=None
        if groups is None
        else TableView(
            _groups_display(groups),
            key="groups.table",
            file_name="failure-groups.csv",
            columns={"First seen": columns.moment(tz), "Last seen": columns.moment(tz)},
        ),
        group_sections=tuple(
            # The message is the service's: shown literally, never as markdown.
            (
                escape_markdown(visible_text(groups_view.headline(group, tz))),
                TableView(
                    shown,
                    key=f"groups.{position}",
                    file_name=f"failure-group-{position + 1}.csv",
                    columns={
                        "Started": columns.moment(tz),
                        "Scenario": columns.ident(),
                        "Execution": columns.ident(),
                        "Results": columns.link("results"),
                        "History": columns.link("history"),
                        "Node log": columns.link("node log"),
                    },
                ),
            )
            for position, ((_, group), shown) in enumerate(
                zip(listed, view.group_tables, strict=True)
            )
        ),
        more_groups=flaky_words.more_groups_caption(len(grouped.groups), groups_view.GROUPS_SHOWN),
    )


def _sentence(text: str | None) -> str:
    return f". {text}" if text else ""


def _signatures(per_group: pd.Series) -> list[str]:
    """The signatures of the groups, each once, in the groups' order: a mark still names a
    signature (in a plan or every plan), whatever the grouping; a merged group offers each of
    its own."""
    return list(dict.fromkeys(str(s) for signatures in per_group for s in signatures))


def _groups_display(groups: pd.DataFrame) -> pd.DataFrame:
    """The groups table (`failure_groups.groups_display`) with each group's failures per
    verdict ("5 flaky, 2 known") after its known split."""
    shown = groups_view.groups_display(groups)
    after = "Mark" if "Mark" in shown.columns else "Last seen"
    shown.insert(list(shown.columns).index(after) + 1, "Verdicts", groups["verdicts"].to_numpy())
    return shown
