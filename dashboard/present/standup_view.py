"""Everything the standup shows, computed once: the page lays it out, the chat digest
(`cli/digest.py`, the worker's daily digest, the page's "Copy for chat") formats the same object.

It is built in two steps, because the newly failing section needs the results of executions the
digest names first: `standup_needs` judges the plans on their executions (outages left out unless
included) and says whose results it needs; the face loads them however it loads (the page
through its cache, the command line through the history store and the service); `standup_view`
then makes the sections, the figures, the captions and the known and outage lines. Both are pure:
they take loaded frames and return data, no Streamlit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

import pandas as pd

from dashboard.analytics import standup as standup_analytics
from dashboard.analytics.group_rules import TeamRules, ruled_failures, rules_note
from dashboard.analytics.marks import applying
from dashboard.analytics.outages import outages, without_outages
from dashboard.analytics.standup import StandupDigest
from dashboard.analytics.standup_triage import StandupTriage, standup_triage, standup_verdicts
from dashboard.analytics.upgrades import newly_failing_upgrades
from dashboard.analytics.windows import Window
from dashboard.data.fanout_answer import FanOut
from dashboard.present import help_texts
from dashboard.present import known as known_words
from dashboard.present import standup as words
from dashboard.present.alerts import NO_NAMES, ScenarioNames, scenario_categories
from dashboard.present.digest import digest_markdown
from dashboard.present.failure_groups import CATEGORY as CATEGORY_COLUMN
from dashboard.present.formatting import percent, visible_text
from dashboard.present.key_columns import section_key, table_anchor
from dashboard.present.standup import (
    EXECUTION_EVIDENCE,
    NEWLY_FAILING,
    PLAN_EVIDENCE,
    SHOWN_PER_SECTION,
    LinkFor,
    Section,
)
from dashboard.present.what_changed import upgrade_line

__all__ = [
    "CATEGORY_COLUMN",
    "EXECUTION_EVIDENCE",
    "PLAN_EVIDENCE",
    "SHOWN_PER_SECTION",
    "ColumnLook",
    "Metric",
    "NewlyCategories",
    "SectionView",
    "StandupNeeds",
    "StandupView",
    "execution_places",
    "newly_failing_categories",
    "plan_names_of",
    "standup_needs",
    "standup_view",
]

ScenarioLink = Callable[[int, int], str]


# -- the columns' looks, as data (`ui.standup_layout` makes Streamlit's settings of them) --------


@dataclass(frozen=True)
class ColumnLook:
    """One column's look: a link shown as `text`, or a text cut at `width` (pixels, or
    "small"/"medium"/"large")."""

    kind: Literal["link", "text"]
    text: str = ""
    width: int | Literal["small", "medium", "large"] | None = None


LINK_COLUMNS: dict[str, ColumnLook] = {
    "Evidence": ColumnLook("link", "open"),
    "History": ColumnLook("link", "history"),
}
NORMAL_COLUMNS: dict[str, ColumnLook] = {
    **LINK_COLUMNS,
    # A message is cut with an ellipsis at a fixed width, so that the history link after it
    # stays in view (the whole message is in the results the evidence opens). A long plan name
    # is cut too: three sections side by side on a 1920 px screen hold four columns each only so.
    "Plan": ColumnLook("text", width=170),
    "Message": ColumnLook("text", width="medium"),
    CATEGORY_COLUMN: ColumnLook("text", width="small"),
}
PRESENTER_COLUMNS: dict[str, ColumnLook] = {
    **LINK_COLUMNS,
    # The free-text columns get a fixed width (a long plan name or message is cut with an
    # ellipsis), so they never push the columns after them off the table's right edge.
    "Plan": ColumnLook("text", width="medium"),
    "Message": ColumnLook("text", width="medium"),
    CATEGORY_COLUMN: ColumnLook("text", width="small"),
}


# -- step 1: the plans judged, and whose results the rest needs ---------------------------------


@dataclass(frozen=True, eq=False)
class StandupNeeds:
    """The standup before results: the `digest` of the executions (outages left out of it
    unless included), the window's `outages`, and what step 2 takes over. Ask the results of
    `results_needed` (none: nothing to load)."""

    executions: pd.DataFrame  # as loaded, outages included
    marks: pd.DataFrame  # the company's marks, all of them (those that apply are used)
    now: datetime
    digest: StandupDigest
    outages: pd.DataFrame  # OUTAGE_COLUMNS: those that started in the window
    include_outages: bool

    @property
    def window(self) -> Window:
        return self.digest.window

    @property
    def results_needed(self) -> tuple[int, ...]:
        """Whose results the rest reads, sorted: those of the newly failing pairs
        (`StandupDigest.results_needed`), the window's outages (their dominant failure message)
        and the fixed plans' two executions (their failures' verdicts: recovering, not broken)."""
        return tuple(sorted(set(self.digest.results_needed) | set(self.judged)))

    @property
    def judged(self) -> tuple[int, ...]:
        """The executions whose failures get a verdict, sorted: each newly failing pair's red
        one, each outage of the window, and each fixed plan's red execution before its green."""
        fixed = self.digest.fixed
        ids = {
            *(int(i) for i in self.digest.pairs["after_execution_id"]),
            *(int(i) for i in self.outages["execution_id"]),
            *(int(i) for i in fixed["previous_execution_id"].dropna()),
            *(int(i) for i in fixed["execution_id"].dropna()),
        }
        return tuple(sorted(ids))


def standup_needs(
    executions: pd.DataFrame,
    marks: pd.DataFrame,
    *,
    window: Window,
    now: datetime,
    include_outages: bool = False,
) -> StandupNeeds:
    """The plans of `executions` (from `history_start(window)` on) judged for `window`; outages
    (`analytics.outages`, by the `marks` that apply at `now`) are one line each, left out of the
    sections and the pass rate unless `include_outages`."""
    found = outages(executions, applying(marks, now))
    judged = executions if include_outages else without_outages(executions, found)
    digest = standup_analytics.standup_digest(judged, window)
    in_window = found[window.contains(found["start"]).fillna(False).to_numpy()]
    return StandupNeeds(executions, marks, now, digest, in_window, include_outages)


# -- step 2: everything shown ---------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """One figure above the sections, as `st.metric` takes it."""

    label: str
    value: str
    delta: str | None = None
    delta_color: Literal["normal", "off"] = "normal"
    delta_arrow: Literal["auto", "off"] = "auto"
    help: str | None = None


@dataclass(frozen=True, eq=False)
class SectionView:
    """One section as drawn: its rows (`section.shown` in view, `more` behind "and N more"),
    the note it shows instead when it has none, its columns in each mode, its caption."""

    section: Section
    key: str  # the container's key around its table (`present.key_columns`)
    columns: list[str]
    presenter_columns: list[str]
    caption: str | None = None  # whose results it was built on (newly failing only)

    @property
    def title(self) -> str:
        return self.section.title

    @property
    def note(self) -> tuple[str, Literal["warning", "info"]] | None:
        """What it shows instead of a table, and how: None when it has rows."""
        if not self.section.computed:
            return "The results could not be loaded.", "warning"
        if self.section.rows.empty:
            return self.section.empty_text, "info"
        return None

    @property
    def more(self) -> pd.DataFrame:
        """The rows after the first `SHOWN_PER_SECTION` (empty when there are none)."""
        return self.section.rows.iloc[SHOWN_PER_SECTION:]


@dataclass(frozen=True, eq=False)
class StandupView:
    """What the standup shows. `digest` is what is unresolved once marks are applied, `folded`
    what they and the outages folded away (`analytics.standup_triage`)."""

    digest: StandupDigest
    folded: StandupTriage
    plan_names: Mapping[int, str]
    window_caption: str
    metrics: tuple[Metric, Metric, Metric]
    sections: tuple[SectionView, ...]
    running_caption: str | None
    folded_title: str
    folded_lines: tuple[str, ...]
    folded_caption: str
    mark_choices: tuple[known_words.Choice, ...]  # "Mark as known…"
    outage_choices: tuple[known_words.Choice, ...]  # "Confirm or dismiss an outage…"
    items: pd.DataFrame  # every item in one table (the CSV)
    upgrade_line: str | None = None  # "2 new failures started with a browser upgrade"
    scenario_names: ScenarioNames = NO_NAMES  # the chat's "Login works (402, owner ...)"
    # The team's rules' categories of each newly failing (execution, scenario)'s failures: the
    # chat's "category: infrastructure" (`newly_failing_categories`).
    categories: Mapping[tuple[int, int], str] = field(default_factory=dict)

    @property
    def window(self) -> Window:
        return self.digest.window

    def chat(self, link_for: LinkFor, *, limit: int | None = None) -> str:
        """The standup as chat Markdown (`present.digest`), links by `link_for`; with `limit`,
        that many items a section, then "and N more"."""
        return digest_markdown(
            self.digest,
            link_for=link_for,
            limit=limit,
            triage=self.folded,
            plan_names=self.plan_names,
            upgrade_line=self.upgrade_line,
            names=self.scenario_names,
            categories=self.categories,
        )


def standup_view(
    needs: StandupNeeds,
    results: FanOut | None,
    *,
    link_for: LinkFor,
    plan_names: Mapping[int, str],
    plans: pd.DataFrame | None = None,
    scenario_link: ScenarioLink | None = None,
    scope: str = "",
    verdicts: pd.DataFrame | None = None,
    names: pd.DataFrame | None = None,
    rules: TeamRules | None = None,
) -> StandupView:
    """The standup of `needs` once the results of `needs.results_needed` are read (`results`;
    None when none were needed, or they could not be read: the newly failing section then says
    it was not computed, and nothing is folded by marks). `link_for` makes each item's evidence
    link, `scenario_link` a newly failing scenario's history; `plans` (the plans answer, when
    known) tells what changed between a plan's green and red run; `scope` ("of project Web")
    words the window's caption. `verdicts`: the one verdict per failed result of
    `needs.judged` over `results` (a page's cached `ui.triage.verdicts_of`); made here from
    them when not given. `names`: the company's scenario names (`SCENARIO_NAME_COLUMNS`; None:
    none), beside each newly failing scenario's id and in the chat. `rules`: the team's rules
    for failure groups (`ui.group_rules.rules_of`; None: none): the category they give a newly
    failing scenario's failures, in its row (a `Category` column, when one has any) and in the
    chat, worded as the alerts word it (`present.alerts.scenario_categories`)."""
    digest, changes, read = needs.digest, None, None
    said = NO_NAMES if names is None or names.empty else ScenarioNames.of(names)
    if results is not None and needs.results_needed:
        read = results.results
        if digest.results_needed:
            digest = standup_analytics.with_newly_failing(digest, read)
            changes = standup_analytics.turned_red_changes(digest, needs.executions, read, plans)
    if read is not None and verdicts is None:
        verdicts = standup_verdicts(
            read, needs.executions, needs.marks, needs.now, judged=needs.judged
        )
    digest, folded = standup_triage(
        digest,
        None if read is None else verdicts,
        needs.marks,
        needs.now,
        outages=needs.outages,
        outages_left_out=not needs.include_outages,
    )
    window = digest.window
    every = words.sections(
        digest,
        link_for,
        scenario_link=scenario_link,
        changes=changes,
        verdicts=None if read is None else verdicts,
        names=names,
    )
    categories = newly_failing_categories(digest.newly_failing, read, rules, said)
    every = [_with_categories(s, digest.newly_failing, categories) for s in every]
    fetched = None if read is None or results is None else words.fetched_caption(results.counts)
    if fetched is not None and (left_out := rules_note(rules)):  # as the groups' pages say it
        fetched = f"{fetched} {left_out}"
    upgraded = upgrade_line(newly_failing_upgrades(digest.newly_failing))  # #38
    if upgraded:
        fetched = " ".join(part for part in (f"{upgraded}.", fetched) if part)
    return StandupView(
        digest=digest,
        folded=folded,
        plan_names=plan_names,
        window_caption=words.window_caption(
            window, digest.basis, today=needs.now.date(), scope=scope
        ),
        metrics=_metrics(digest),
        sections=tuple(_section_view(s, fetched) for s in every),
        running_caption=words.running_caption(digest),
        folded_title=words.folded_title(folded),
        folded_lines=tuple(words.folded_lines(folded, plan_names, window.tz, said.names)),
        folded_caption=words.folded_caption(folded),
        mark_choices=tuple(words.standup_choices(digest, read, plan_names, said.names)),
        outage_choices=tuple(
            known_words.execution_choices(
                known_words.pending_outages(folded.outages), plan_names, window.tz
            )
        ),
        items=words.items_csv_frame(
            every, folded=folded, plan_names=plan_names, tz=window.tz, scenario_names=said.names
        ),
        upgrade_line=upgraded,
        scenario_names=said,
        categories=categories.by_item,
    )


# -- the team's categories of the newly failing scenarios' failures (#38) ------------------------


@dataclass(frozen=True)
class NewlyCategories:
    """The categories the team's rules give the newly failing scenarios' failures: of each
    failed result (a row of the section, one environment), and of each item of the chat (an
    execution's scenario, its environments together: most failures first, as the alerts say
    them). Empty: no rule gives any."""

    by_result: Mapping[int, str] = field(default_factory=dict)
    by_item: Mapping[tuple[int, int], str] = field(default_factory=dict)  # (execution, scenario)


def newly_failing_categories(
    newly: pd.DataFrame | None,
    results: pd.DataFrame | None,
    rules: TeamRules | None,
    names: ScenarioNames = NO_NAMES,
) -> NewlyCategories:
    """The team's `rules` (`group_rules.ruled_failures`, the one rule engine) applied to the
    failed results of the `newly` failing rows (`NEWLY_FAILING_COLUMNS`) as `results` hold them;
    `names` are read by a rule on a scenario's name. Nothing without rules, rows or results."""
    if newly is None or newly.empty or results is None or rules is None or not rules.rules:
        return NewlyCategories()
    wanted = {int(r) for r in newly["result_id"].dropna()}
    own = results[results["result_id"].isin(wanted)]
    ruled = ruled_failures(rules, own, names=names.names) if len(own) else None
    if ruled is None or ruled.empty:
        return NewlyCategories()
    given = ruled[ruled["category"].notna()]
    by_result = {int(r): str(c) for r, c in zip(given["result_id"], given["category"], strict=True)}
    by_item = {
        (int(execution), scenario): category
        for execution in newly["execution_id"].dropna().unique()
        for scenario, category in scenario_categories(own, ruled, int(execution)).items()
    }
    return NewlyCategories(by_result, by_item)


def _with_categories(
    section: Section, newly: pd.DataFrame | None, categories: NewlyCategories
) -> Section:
    """The newly failing section with each row's category (`CATEGORY_COLUMN`, after the
    scenario's name as the owners' and names' columns come after the history link), when the
    team's rules give one to any; every other section, and this one without, as it was."""
    if section.title != NEWLY_FAILING or newly is None or not categories.by_result:
        return section
    cells = [
        "" if pd.isna(r) else visible_text(categories.by_result.get(int(r), ""))
        for r in newly["result_id"]
    ]
    rows = section.rows.copy()
    rows.insert(len(rows.columns), CATEGORY_COLUMN, cells)
    return dataclasses.replace(section, rows=rows)


def _metrics(digest: StandupDigest) -> tuple[Metric, Metric, Metric]:
    change = words.rate_change(digest.pass_rate_delta)
    return (
        Metric("Executions", f"{digest.current.executions:,}"),
        Metric(
            "Pass rate",
            percent(digest.current.pass_rate),
            delta=change.text,
            delta_color=change.delta_color,
            delta_arrow=change.delta_arrow,
            help=help_texts.RATE_SINCE_STANDUP,
        ),
        Metric("Previous window", f"{digest.previous.executions:,} executions"),
    )


def _section_view(section: Section, fetched: str | None) -> SectionView:
    return SectionView(
        section,
        key=table_anchor(section_key(section.title)),
        columns=words.column_order(section),
        presenter_columns=words.column_order(section, present=True),
        caption=fetched if section.title == NEWLY_FAILING else None,
    )


# -- what a face needs of the executions to link and name ----------------------------------------


def execution_places(executions: pd.DataFrame) -> dict[int, tuple[int | None, datetime | None]]:
    """Each execution's plan and start (a results link carrying them opens at once)."""
    return {
        int(e): (None if pd.isna(p) else int(p), None if pd.isna(s) else s.to_pydatetime())
        for e, p, s in zip(
            executions["execution_id"], executions["plan_id"], executions["start"], strict=True
        )
    }


def plan_names_of(executions: pd.DataFrame) -> dict[int, str]:
    """The plans' names as the executions give them (when the plans answer is not at hand)."""
    return {
        int(p): str(n)
        for p, n in zip(executions["plan_id"], executions["plan"], strict=True)
        if not pd.isna(p) and isinstance(n, str)
    }
