"""Views that viewers of the same data share (#39): each is made once per input through
`cache.built` (Streamlit's per-key lock: the first viewer computes, the others wait for it and
get the same object) instead of once per session.

A view's key names every input it reads, by name rather than by content where a name exists:
a load by its query and `loaded_at`, a frame by `columns.shapes.frame_digest`, marks by
`analytics.marks.marks_key`, the clock by the minute (the view is given that minute, so the key
holds what it reads), the view state's fields it reads as values. A key that missed an input
would show one viewer another's view; no key holds a token (`cache.built` adds the
connection's fingerprint). What is returned is shared: never mutated.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime

import pandas as pd

from api_client import ExecutionQuery
from dashboard.analytics.group_rules import TeamRules
from dashboard.analytics.marks import marks_key
from dashboard.analytics.windows import Window
from dashboard.columns.shapes import frame_digest
from dashboard.data import cache, live
from dashboard.data.cache_history import Ledger
from dashboard.data.connection import Connection
from dashboard.data.fanout_answer import FanOut
from dashboard.present.captions import scope_text
from dashboard.present.failures_view import FailuresView, PeriodRuns, failures_view
from dashboard.present.health_view import HealthView, health_view
from dashboard.present.standup_view import StandupNeeds, StandupView, standup_needs, standup_view
from dashboard.present.time_to_green_view import TimeToGreenView, time_to_green_view
from dashboard.state import links
from dashboard.ui import group_rules, standup_layout
from dashboard.ui.analytics_input import AnalyticsInput
from dashboard.ui.page import Page
from dashboard.ui.triage import Triage


def minute(now: datetime) -> datetime:
    """`now` to the minute: what a view keyed by the clock is given (a configured service's
    `now` is the wall clock at every run; the demo's is fixed)."""
    return now.replace(second=0, microsecond=0)


def whole_frame(frame: pd.DataFrame | None) -> str | None:
    """A frame named by all its columns (None when there is none): for frames a view reads
    many columns of and that come without a name of their load (plans, a few executions'
    results, a lookback's executions: about 20 ms for 100,000 executions)."""
    return None if frame is None else frame_digest(frame, tuple(frame.columns))


def names_key(names: Mapping[int, str]) -> str:
    """A map of ids to names (plans), named by its items in order."""
    return hashlib.sha256(repr(tuple(names.items())).encode()).hexdigest()


def standup(
    connection: Connection,
    query: ExecutionQuery,
    data: live.ExecutionsData,
    ledger: Ledger,
    *,
    window: Window,
    now: datetime,
    include_outages: bool,
    plans: pd.DataFrame | None,
    plan_names: Mapping[int, str],
    scope: str,
    names: pd.DataFrame | None = None,
) -> StandupView:
    """The standup's view (`present.standup_view`) of the executions `query` loaded (`data`):
    its two steps each made once per input and shared; between them the results and the
    verdicts are read through their own caches (saying here when they could not be read). The
    team's rules (`ui.group_rules.rules_of`) give the newly failing scenarios their categories:
    the view is keyed by them as Failures' is."""
    at = minute(now)
    inputs: tuple[object, ...] = (
        repr(query),
        data.loaded_at,
        marks_key(ledger.marks),
        repr(window),
        at,
        include_outages,
    )
    needs: StandupNeeds = cache.built(
        connection,
        "standup.needs",
        inputs,
        lambda: standup_needs(
            data.executions,
            ledger.marks,
            window=window,
            now=at,
            include_outages=include_outages,
        ),
    )
    results = standup_layout.results_of(connection, needs)
    verdicts = standup_layout.verdicts_of(connection, needs, results, ledger)
    read: tuple[object, ...] = (None, None)
    if results is not None:  # named as Failures' are (`RESULT_NAMES`): a whole digest cost more
        read = (frame_digest(results.results, RESULT_NAMES), repr(results.counts))
    rules = group_rules.rules_of(connection)
    return cache.built(
        connection,
        "standup.view",
        (
            *inputs,
            *read,
            None if verdicts is None else frame_digest(verdicts, VERDICT_NAMES),
            whole_frame(plans),
            names_key(plan_names),
            scope,
            whole_frame(names),
            (rules.key, rules.left_out),
        ),
        lambda: _standup_view(needs, results, verdicts, plans, plan_names, scope, names, rules),
    )


def _standup_view(
    needs: StandupNeeds,
    results: FanOut | None,
    verdicts: pd.DataFrame | None,
    plans: pd.DataFrame | None,
    plan_names: Mapping[int, str],
    scope: str,
    names: pd.DataFrame | None,
    rules: TeamRules,
) -> StandupView:
    return standup_view(
        needs,
        results,
        verdicts=verdicts,
        link_for=standup_layout.link_for,
        plan_names=plan_names,
        plans=plans,
        scenario_link=links.scenario_link,
        scope=scope,
        names=names,
        rules=rules,
    )


def time_to_green(
    connection: Connection,
    loaded: pd.DataFrame,
    triage: Triage,
    *,
    now: datetime,
    tz: str,
    project: str | None,
    plan: str | None,
) -> TimeToGreenView:
    """Time to green's view (`present.time_to_green_view`) of the lookback's executions
    (`loaded`, outages included) and the `triage`'s outages, made once per input and shared;
    it is given `now` to the minute."""
    at = minute(now)
    inputs = (
        whole_frame(loaded),  # a lookback handed over without its load: by its content
        whole_frame(triage.outages),
        triage.include,
        at,
        tz,
        project,
        plan,
    )
    return cache.built(
        connection,
        "time_to_green.view",
        inputs,
        lambda: time_to_green_view(
            triage.without_outages(loaded),
            now=at,
            tz=tz,
            project=project,
            plan=plan,
            results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
            compare_link=lambda p, before, after: links.compare_link(p, before, after),
            every=loaded,
            outages=triage.outages,
            included=triage.include,
        ),
    )


def health(
    connection: Connection,
    query: ExecutionQuery,
    data: live.ExecutionsData,
    triage: Triage,
    *,
    now: datetime,
    tz: str,
    project: str | None,
    plan_names: Mapping[int, str],
) -> HealthView:
    """Plan health's view (`present.health_view`) of the 30 days `query` loaded (`data`), its
    outages left out unless the `triage` includes them, made once per input and shared; it is
    given `now` to the minute."""
    at = minute(now)
    inputs = (
        repr(query),
        data.loaded_at,
        whole_frame(triage.outages),
        triage.include,
        at,
        tz,
        project,
        names_key(plan_names),
    )
    return cache.built(
        connection,
        "health.view",
        inputs,
        lambda: health_view(
            triage.without_outages(data.executions),
            now=at,
            tz=tz,
            project=project,
            plan_names=plan_names,
        ),
    )


RESULT_NAMES = ("result_id", "execution_id", "level")
"""What names a frame of results in a key, as the verdicts' own key does: a result's id, its
execution and its level (a finished result never changes; a running one changes its level)."""
VERDICT_NAMES = ("result_id", "execution_id", "label", "shown_state")
"""What names a frame of verdicts in a key: each failed result's label and state (its evidence
and mark follow from them and from the marks, which a key names on their own)."""


def failures(
    page: Page,
    loaded: AnalyticsInput,
    runs: PeriodRuns,
    results: pd.DataFrame,
    verdicts: pd.DataFrame,
    ledger: Ledger,
    *,
    names: pd.DataFrame | None,
    only_owner: str | None,
    tz: str,
) -> FailuresView:
    """Failures' view (`present.failures_view`) of the period's `runs` and the results read,
    in the page's view state and scope with the team's rules, made once per input and shared;
    it is given `now` to the minute."""
    connection, state, at = page.connection, page.state, minute(page.now)
    rules = group_rules.rules_of(connection)
    scope = scope_text(project=page.project_name, plan=page.plan_name)
    plan_names = page.plan_names
    inputs = (
        whole_frame(runs.executions),  # the lookback's, and a custom period's
        repr((runs.start, runs.end)),
        frame_digest(loaded.analysed, ("execution_id",)),
        frame_digest(loaded.results, RESULT_NAMES),
        frame_digest(results, RESULT_NAMES),
        # The verdicts are those of the inputs above (their own key names the same results,
        # executions, judged ids and marks, and the day): named by their rows, to be sure.
        frame_digest(verdicts, VERDICT_NAMES),
        marks_key(ledger.marks),
        whole_frame(names),
        (rules.key, rules.left_out),
        only_owner,
        state.include_outages,
        state.states,
        at,
        state.standup_at,
        scope,
        names_key(plan_names),
        tz,
    )
    return cache.built(
        connection,
        "failures.view",
        inputs,
        lambda: failures_view(
            loaded.executions,
            loaded.results,
            loaded.analysed,
            runs,
            results,
            verdicts=verdicts,
            marks=ledger.marks,
            names=names,
            rules=rules,
            only_owner=only_owner,
            include_outages=state.include_outages,
            only=state.states,
            now=at,
            standup_at=state.standup_at,
            scope=scope,
            plan_names=plan_names,
            scenario_link=links.scenario_link,
            results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
            tz=tz,
        ),
    )
