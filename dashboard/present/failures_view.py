"""Everything the Failures page draws from one period: its failed results, each with its one
verdict (`analytics.triage`, read through `ui.triage.verdicts_of`) and its scenario's state,
what they were computed from, the figures above the table, and the table with its columns'
looks; and which executions of the period the page must read the results of first.

The rows are sorted by verdict, in `ORDER`, then newest first:

    unresolved, new, broken, environment-specific   need someone's action (`NEEDS_ACTION`)
    results incomplete                              cannot be judged yet; may hide any of them
    flaky, recovering                               no fix to start from this failure
    known                                           someone owns it (its owner and ticket beside)
    outage                                          the grid, not the tests (listed only when
                                                    "Include outages" is on)

Unresolved comes first: nothing explains it yet, so it is what a lead triages. New is next: a
scenario that just started failing is the cheapest to fix while its change is fresh. Broken and
environment-specific need action too, but their evidence already says where to look. Flaky is
left out of "needs action": its latest pass says the failure is not a regression to chase now
(the Flaky page ranks them). Within a verdict the newest execution comes first: a lead triages
the runs since yesterday, and the oldest failures of a period are mostly earlier runs of a cell
whose newest row already says since when it has been failing (its "Failing since"); it also
keeps the newest rows on screen when the table holds only the first `TABLE_ROW_LIMIT`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

import pandas as pd

from dashboard.analytics import failures as failures_analytics
from dashboard.analytics import group_rules, triage, windows
from dashboard.analytics import states as states_analytics
from dashboard.analytics.failure_groups import Grouping, with_groups
from dashboard.analytics.failures import Failures
from dashboard.analytics.group_rules import TeamRules
from dashboard.analytics.scenario_names import names_by_id
from dashboard.present import failures as failures_words
from dashboard.present import table_view as columns
from dashboard.present.known_view import TICKET_TEXT
from dashboard.present.table_view import TableView
from dashboard.present.tables import NAME_COLUMN, TABLE_ROW_LIMIT, owned_by, with_names
from dashboard.present.triage import evidence_lines

RULES = states_analytics.StateRules()
"""The rules each row's scenario state is judged by: the defaults."""
WINDOW = RULES.window
"""Each plan's last W finished executions, whose results the states need."""
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
NONE_OWNED = "No failed result of these executions is of a scenario you own."
"""Said by "only mine" when none of the failures listed is of a scenario the viewer owns."""

NEEDS_ACTION: tuple[str, ...] = (
    triage.UNRESOLVED,
    triage.NEW,
    triage.BROKEN,
    triage.ENVIRONMENT_SPECIFIC,
)
"""The verdicts that ask someone to act on the failure (the "Needs action" figure)."""
ORDER: tuple[str, ...] = (
    *NEEDS_ACTION,
    triage.INCOMPLETE,
    triage.FLAKY,
    triage.RECOVERING,
    triage.KNOWN,
    triage.OUTAGE,
)
"""The rows' order by verdict (the module docstring says why); a row without one comes last."""
assert set(ORDER) == set(triage.PRECEDENCE), "every verdict has its place in the list"


@dataclass(frozen=True, eq=False)
class PeriodRuns:
    """executions: every execution known to the page (the lookback's, and a custom period's);
    failing: those of the period with a failed result, the only ones whose results the list
    needs; [start, end): the period (end None: open)."""

    executions: pd.DataFrame
    failing: pd.DataFrame
    start: datetime
    end: datetime | None

    @property
    def judged(self) -> tuple[int, ...]:
        """The executions whose failures get a verdict: the period's failing ones."""
        return tuple(int(i) for i in self.failing["execution_id"])


def period_runs(
    lookback: pd.DataFrame,
    custom: pd.DataFrame | None,
    *,
    start: datetime | None,
    end: datetime | None,
) -> PeriodRuns:
    """The executions of the lookback, with a `custom` period's (its own load) when there is
    one, and those failing in the period from `start` (None: from the first) to `end` (its last
    millisecond included; None: open)."""
    begin = start or EPOCH
    finish = None if end is None else end + timedelta(milliseconds=1)
    executions = (
        lookback
        if custom is None
        else failures_analytics.together([lookback, custom], "execution_id")
    )
    failing = failures_analytics.failing_executions(executions, start=begin, end=finish)
    return PeriodRuns(executions, failing, begin, finish)


def triage_results(window_results: pd.DataFrame, failing_results: pd.DataFrame) -> pd.DataFrame:
    """What the verdicts are judged over (`ui.triage.verdicts_of`'s results): the period's
    failing executions' results and each plan's last W (outages included: the triage leaves
    them out itself), each result once."""
    return failures_analytics.together([window_results, failing_results], "result_id")


@dataclass(frozen=True, eq=False)
class FailuresView:
    """found: the period's failed results (every state); rows: those listed, each with its
    verdict, in the table's order; caption: what they were computed from; figures: the
    figures above the table (label -> value) of the rows listed, and their help; split: the
    rows listed by verdict in words; outages_caption: what "Include outages" did; none_note:
    said when none is listed; shown_caption: said when the table shows only the first rows;
    table: the failures listed."""

    found: Failures
    rows: pd.DataFrame
    caption: str
    figures: dict[str, str]
    figure_help: dict[str, str]
    split: str
    outages_caption: str | None
    none_note: str | None
    shown_caption: str | None
    table: TableView


def failures_view(
    lookback: pd.DataFrame,
    window_results: pd.DataFrame,
    analysed: pd.DataFrame,
    runs: PeriodRuns,
    failing_results: pd.DataFrame,
    *,
    verdicts: pd.DataFrame,
    include_outages: bool,
    only: tuple[str, ...],
    now: datetime,
    scope: str,
    plan_names: Mapping[int, str],
    scenario_link: failures_words.ScenarioLink,
    results_link: failures_words.ResultsLink,
    tz: str,
    standup_at: time | None = None,
    marks: pd.DataFrame | None = None,
    names: pd.DataFrame | None = None,
    only_owner: str | None = None,
    rules: TeamRules | None = None,
    grouping: Grouping = Grouping.SCENARIO,
) -> FailuresView:
    """The failures of `runs`' period from the results of its failing executions
    (`failing_results`) and of each plan's last W finished executions (`analysed`, their
    `window_results`; W is `WINDOW`), whose states name each row's scenario as the States page
    judges them (the outages left out, a passing latest run first: `latest_pass_first`), read
    from the verdicts (`shown_state`), which were judged beside them; `lookback`: the
    executions they were judged over (the verdicts' own).

    `verdicts`: `analytics.triage`'s frame of the period's failing executions (`runs.judged`)
    over `triage_results`; `marks`: the company's marks, all of them, as the verdicts were given
    them (None: none; the verdicts applied them). `include_outages`: list the rows in a likely
    outage (else they are counted in `outages_caption` only). `only`: the states listed (none:
    every one). "New since standup" counts from the standup's window
    (`analytics.windows.standup_window` at `now` in `tz`, at `standup_at`). `names`: the
    company's scenario names (`SCENARIO_NAME_COLUMNS`; None: none), shown beside each scenario
    with its owner; `only_owner`: list only the scenarios this address owns ("only mine"; None:
    every one). `rules`: the team's rules for failure groups (each row's group named by its
    merge rule, its category beside); `grouping`: how the "Failure groups" figure counts them
    (per scenario by default)."""
    del lookback, marks  # what the states were judged over: the verdicts carry them now
    found = failures_analytics.failures(
        runs.executions,
        triage_results(window_results, failing_results),
        start=runs.start,
        end=runs.end,
        read=[*analysed["execution_id"], *runs.failing["execution_id"]],
        states=_states_of(verdicts),
    )
    judged = _with_groups(_with_verdicts(found.rows, verdicts, runs, tz=tz), rules, names)
    chosen = failures_analytics.of_states(judged, only)
    in_outage = (chosen["label"] == triage.OUTAGE).to_numpy(dtype=bool)
    outages = int(in_outage.sum())
    rows = _sorted(chosen if include_outages else chosen[~in_outage])
    if only_owner is not None:
        rows = rows[owned_by(rows["scenario_id"], names, only_owner)].reset_index(drop=True)
    standup = windows.standup_window(
        now, tz=tz, at=standup_at or windows.DEFAULT_STANDUP_TIME
    ).start
    new_since = int(((rows["label"] == triage.NEW) & (rows["execution_start"] >= standup)).sum())
    display = with_names(
        failures_words.failures_display(
            rows,
            plan_names=plan_names,
            scenario_link=scenario_link,
            results_link=results_link,
            tz=tz,
        ),
        names,
        after="State",
        owners=True,
    )
    return FailuresView(
        found=found,
        rows=rows,
        caption=failures_words.basis_caption(
            found.basis, today=now.date(), scope=scope, window=RULES.window
        ),
        figures=failures_words.summary(
            rows,
            needs_action=NEEDS_ACTION,
            new_since=new_since,
            outages_left_out=None if include_outages else outages,
            grouping=grouping,
        ),
        figure_help=failures_words.figure_help(
            NEEDS_ACTION, standup_start=standup.to_pydatetime(), tz=tz, grouping=grouping
        ),
        split=failures_words.split_text(rows, NEEDS_ACTION, ORDER),
        outages_caption=failures_words.outages_text(outages, included=include_outages),
        none_note=None
        if not rows.empty
        else (failures_words.none_text(only) if only_owner is None else NONE_OWNED),
        shown_caption=failures_words.shown_text(min(len(display), TABLE_ROW_LIMIT), len(display)),
        table=TableView(
            display,
            key="failures.table",
            file_name="failures.csv",
            tz=tz,
            max_rows=TABLE_ROW_LIMIT,
            columns={
                "Evidence": columns.text("medium"),
                "Ticket": columns.link(TICKET_TEXT),
                "Started": columns.moment(tz),
                "Scenario": columns.ident(),
                **({NAME_COLUMN: columns.text("medium")} if NAME_COLUMN in display else {}),
                "Failure group": columns.text("medium"),
                "Category": columns.text("small"),
                "Message": columns.wide_text(),
                "Results": columns.link("results"),
                "History": columns.link("history"),
                "Node log": columns.link("node log"),
                "Executor log": columns.link("executor log"),
            },
        ),
    )


_VERDICT_FIELDS = ("label", "evidence", "owner", "ticket")


def _with_groups(
    rows: pd.DataFrame, rules: TeamRules | None, names: pd.DataFrame | None
) -> pd.DataFrame:
    """The rows with their failure group after the team's `rules` (`failure_groups.
    with_groups`: `group`, `group_label`, `category`, `merge_rule`); `names` are read by rules
    on a scenario's name. A row no rule reaches (a verdict without a failed result) keeps its
    signature."""
    ruled = None
    if rules is not None and rules.rules:
        failed = rows[rows["result_id"].notna()].astype({"result_id": "int64"})
        named = names_by_id(names) if names is not None and not names.empty else None
        ruled = group_rules.ruled_failures(rules, failed, names=named)
    return with_groups(rows, ruled)


def _states_of(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Each judged scenario's state as its verdicts were judged beside it (`triage`'s
    `shown_state`: the window's states without the outages, a passing latest run first): the
    states are computed once, with the verdicts, not again here (it was most of the page's
    cost with them: benchmarks/RESULTS.md, case 11)."""
    rows = verdicts[
        verdicts["plan_id"].notna()
        & verdicts["scenario_id"].notna()
        & verdicts["shown_state"].notna()
    ]
    return pd.DataFrame(
        {
            "plan_id": rows["plan_id"].astype("Int64"),
            "scenario_id": rows["scenario_id"].astype("Int64"),
            "state": rows["shown_state"].astype("str"),
        }
    ).drop_duplicates(["plan_id", "scenario_id"])


def _with_verdicts(
    found: pd.DataFrame, verdicts: pd.DataFrame, runs: PeriodRuns, *, tz: str
) -> pd.DataFrame:
    """The period's failed results (`FAILURE_COLUMNS`) with their verdicts' `label`, `evidence`
    line, `owner` and `ticket`; and a row for each verdict that names no failed result listed
    (a result of an unknown status, an execution lacking the failures its summary counts), so
    that what cannot be judged is said, not dropped. A failed result without a verdict (an
    execution not judged) keeps an empty one."""
    judged = verdicts.assign(evidence=evidence_lines(verdicts, tz=tz))
    of_result = judged[judged["result_id"].notna()].drop_duplicates("result_id")
    fields = of_result.set_index(of_result["result_id"].astype("int64"))[list(_VERDICT_FIELDS)]
    rows = found.join(fields, on="result_id")
    others = judged[~judged["result_id"].isin(found["result_id"])]
    if others.empty:
        return rows.reset_index(drop=True)
    starts = runs.executions.drop_duplicates("execution_id").set_index("execution_id")
    plans = starts["plan"] if "plan" in starts.columns else pd.Series(dtype="str")
    extra = pd.DataFrame(
        {
            "execution_id": others["execution_id"].astype("int64").to_numpy(),
            "execution_start": others["start"].to_numpy(),
            "plan_id": others["plan_id"].to_numpy(),
            "plan": others["execution_id"].map(plans).to_numpy(),
            "scenario_id": others["scenario_id"].to_numpy(),
            "environment": others["environment"].to_numpy(),
            "result_id": others["result_id"].to_numpy(),
            "level": others["level"].to_numpy(),
            "signature": "",
            "failing_since_is_bound": False,
            "failures_in_a_row": 0,
            "state": others["shown_state"].to_numpy(),
            **{name: others[name].to_numpy() for name in _VERDICT_FIELDS},
        }
    )
    frames = [frame for frame in (rows, extra) if len(frame)]
    return pd.concat(frames, ignore_index=True).astype(_ID_TYPES)


_ID_TYPES = {
    "execution_id": "int64",
    "plan_id": "Int64",
    "scenario_id": "Int64",
    "result_id": "Int64",
}


def _sorted(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows by verdict in `ORDER` (none last), then newest execution first."""
    rank = {label: place for place, label in enumerate(ORDER)}
    place = rows["label"].map(lambda label: rank.get(label, len(ORDER)))
    return (
        rows.assign(_rank=place.astype("int64"))
        .sort_values(
            ["_rank", "execution_start", "execution_id", "plan_id", "scenario_id", "result_id"],
            ascending=[True, False, False, True, True, True],
            kind="stable",
            na_position="last",
        )
        .drop(columns="_rank")
        .reset_index(drop=True)
    )
