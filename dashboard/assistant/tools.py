"""The assistant's read-only tools, one per daily question. Each answers from the same pure view
its page draws (`present/*_view.py`), fed by the same loads (`assistant.history`), so its
numbers are the page's; `answers.answer` shapes it for the assistant.

Every tool takes `detail` ("summary": the figures and the first rows; "full": pages of up to
200 rows) and `cursor` (the `next_cursor` of an earlier answer to the same question).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pandas as pd
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

from dashboard.analytics import group_rules
from dashboard.assistant import answers
from dashboard.assistant.answers import coverage
from dashboard.assistant.history import Reading, Source
from dashboard.present.table_view import TableView
from dashboard.state import links
from dashboard.state.params import DateRange, ViewState

MAX_DAYS = 90
"""The longest period a tool answers over: the pages' lookback."""
PERIODS = {
    "last_24_hours": DateRange.LAST_24_HOURS,
    "last_7_days": DateRange.LAST_7_DAYS,
    "last_30_days": DateRange.LAST_30_DAYS,
    "last_90_days": DateRange.LAST_90_DAYS,
}
DEFAULT_WINDOW = 10


@dataclass(frozen=True)
class Asked:
    """One call: its tool, the arguments that define the question, the page of rows."""

    tool: str
    question: dict[str, Any]
    page: answers.Page


def asked(tool: str, detail: str, cursor: str | None, **question: Any) -> Asked:
    return Asked(tool, question, answers.page_of(tool, question, detail, cursor))


def _rows(table: TableView | pd.DataFrame | None) -> pd.DataFrame | None:
    if table is None:
        return None
    return table.display if isinstance(table, TableView) else table


def _texts(*said: Any) -> list[str]:
    """The lines of view parts (`Said`, strings, None), in order."""
    lines: list[str] = []
    for part in said:
        if part is None:
            continue
        if isinstance(part, str):
            lines.append(part)
        else:
            lines.extend(getattr(part, "texts", ()))
    return lines


def check_window(window: int) -> int:
    if not 5 <= window <= 200:
        raise ToolError("window must be between 5 and 200 executions per plan.")
    return window


def check_period(
    period: str | None, since: date | None, until: date | None, *, default: str = "last_24_hours"
) -> ViewState:
    """The view state of a period: a preset name, or days `since`..`until` (inclusive)."""
    if since is None and until is None:
        name = period or default
        if name not in PERIODS:
            raise ToolError(f"period must be one of {', '.join(PERIODS)} (or give since/until).")
        return ViewState(date_range=PERIODS[name])
    if period is not None:
        raise ToolError("Give either period or since/until, not both.")
    today = datetime.now(UTC).date()
    start = since or (until or today) - timedelta(days=6)
    end = until or today
    if end < start:
        raise ToolError("until is before since: give the earlier day as since.")
    if (end - start).days + 1 > MAX_DAYS:
        raise ToolError(f"The period is longer than {MAX_DAYS} days, the history answered here.")
    return ViewState(date_range=DateRange.CUSTOM, date_from=start, date_to=end)


class Tools:
    """The tools over one `Source`."""

    def __init__(self, source: Source, *, tz: str = "UTC") -> None:
        self.source = source
        self.tz = tz

    # -- plumbing ------------------------------------------------------------------------------

    def url(self, link: str) -> str | None:
        """`link` made absolute with the dashboard's address; None without one."""
        base = self.source.dashboard_url
        return links.absolute(link, base) if base else None

    def _absolute(self, rows: pd.DataFrame) -> pd.DataFrame:
        """`rows` with the dashboard's own links (relative, "scenario?plan=5&scenario=52")
        made absolute with its address, so the person reading the answer can open them."""
        base = self.source.dashboard_url
        if rows.empty or not base:
            return rows
        pages = _page_link()
        changed = {}
        for name in rows.columns:
            column = rows[name]
            if column.dtype != object and not pd.api.types.is_string_dtype(column):
                continue
            texts = column.astype(object)
            is_link = texts.map(lambda v: isinstance(v, str) and bool(pages.match(v)))
            if is_link.any():
                changed[name] = texts.where(
                    ~is_link, texts.map(lambda v: links.absolute(str(v), base))
                )
        return rows.assign(**changed) if changed else rows

    @contextmanager
    def reading(self) -> Iterator[Reading]:
        """A reading, with the service's and the store's errors said as a sentence (a tool
        error), never a traceback; the sentence never holds a token or a store password."""
        from api_client import ApiError
        from dashboard.cli.common import CliError, service_problem, store_problem
        from dashboard.data.store.errors import StoreError

        try:
            with self.source.reading() as reading:
                yield reading
        except ToolError:
            raise
        except ApiError as error:
            raise ToolError(service_problem(error, self.source.connection)) from None
        except StoreError as error:
            raise ToolError(f"The history store cannot be read: {store_problem(error)}") from None
        except CliError as error:
            raise ToolError(str(error)) from None

    def _plan_name(self, reading: Reading, plan: int | None) -> str | None:
        if plan is None:
            return None
        names = reading.plan_names()
        if plan not in names:
            raise ToolError(f"There is no plan {plan}: list plans with red_plans or plan_health.")
        return names[plan]

    def _made(
        self,
        reading: Reading,
        call: Asked,
        data: list[pd.DataFrame],
        build: Callable[[], dict[str, Any]],
        **more: Any,
    ) -> dict[str, Any]:
        """What `build` makes of the call's loads (the `_answer`'s parts but the page of rows),
        made once per input (`Reading.view`: the question, the zone and dashboard address, the
        executions `data` read and any `more` it depends on, the plans, the marks, the day), so
        that a second question over the same history does not compute the view again."""
        parameters = {
            **call.question,
            **more,
            "tz": self.tz,
            "dashboard_url": self.source.dashboard_url,
        }
        made: dict[str, Any] = reading.view(call.tool, parameters, data, build)
        return made

    def _time_to_green(self, reading: Reading, lookback: pd.DataFrame) -> Any:
        """The Time to green page's view of `lookback` without its outages, made once per input
        and shared by the three tools that read it (red plans, time to green, failure groups):
        an assistant asking one of them usually asks another next."""
        from dashboard.present.time_to_green_view import time_to_green_view

        def build() -> Any:
            return time_to_green_view(
                reading.without_outages(lookback),
                now=reading.now,
                tz=self.tz,
                project=None,
                plan=None,
                results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
                compare_link=lambda p, before, after: links.compare_link(p, before, after),
            )

        return reading.view("time_to_green_view", {"tz": self.tz}, [lookback], build)

    def _answer(
        self,
        call: Asked,
        *,
        headline: str,
        coverage_line: str,
        figures: dict[str, Any] | None = None,
        rows: TableView | pd.DataFrame | None = None,
        extra: dict[str, Any] | None = None,
        link: str | None = None,
        notes: list[str] | None = None,
    ) -> CallToolResult:
        return answers.answer(
            tool=call.tool,
            question=call.question,
            page=call.page,
            headline=headline,
            coverage_line=coverage_line,
            figures=figures,
            rows=_rows(rows),
            extra=extra,
            view_url=self.url(link) if link else None,
            notes=notes or [],
            shape=self._absolute,
        )

    # -- 1. red plans, since when (Time to green's plans) ---------------------------------------

    def red_plans(
        self, project: int | None, red_only: bool, detail: str, cursor: str | None
    ) -> CallToolResult:
        call = asked("red_plans", detail, cursor, project=project, red_only=red_only)
        with self.reading() as reading:
            lookback = reading.lookback(project=project)

            def build() -> dict[str, Any]:
                view = self._time_to_green(reading, lookback)
                rows = view.plans.display
                red_now = view.found.plans["red_now"].astype(bool).to_numpy()
                if red_only and len(red_now) == len(rows):
                    rows = rows[red_now]
                red = int(red_now.sum())
                return {
                    "headline": f"{red:,} of {len(red_now):,} plans are red now.",
                    "coverage_line": coverage(view.found.basis),
                    "figures": dict(view.kpis),
                    "rows": rows,
                    "link": links.time_to_green_link(project_id=project),
                }

            made = self._made(reading, call, [lookback], build)
        return self._answer(call, **made)

    # -- 2. failures of a period (Failures) ----------------------------------------------------

    def failures(
        self,
        period: str | None,
        since: date | None,
        until: date | None,
        plan: int | None,
        states: list[str],
        include_outages: bool,
        detail: str,
        cursor: str | None,
    ) -> CallToolResult:
        from dashboard.analytics.triage import failure_verdicts
        from dashboard.present import failures_view
        from dashboard.present.states_view import STATE_CHOICES
        from dashboard.state.query import execution_query
        from dashboard.state.query import period as period_of

        state = check_period(period, since, until)
        unknown = sorted(set(states) - set(STATE_CHOICES))
        if unknown:
            raise ToolError(f"states must be among {', '.join(STATE_CHOICES)}.")
        call = asked(
            "failures",
            detail,
            cursor,
            period=period,
            since=since,
            until=until,
            plan=plan,
            states=sorted(states),
            include_outages=include_outages,
        )
        state = state.with_changes(plan=plan, states=tuple(states), include_outages=include_outages)
        with self.reading() as reading:
            self._plan_name(reading, plan)
            lookback = reading.lookback(plan=plan)
            custom = None
            if state.date_range is DateRange.CUSTOM:
                query = execution_query(state, now=reading.now, email=None, tz=self.tz)
                custom = reading.executions(query)
            span = period_of(state, reading.now, tz=self.tz)
            runs = failures_view.period_runs(lookback, custom, start=span.start, end=span.end)

            def build() -> dict[str, Any]:
                window = reading.window(failures_view.WINDOW, plan=plan)
                failing = (
                    reading.results(runs.failing["execution_id"], runs.executions).results
                    if not runs.failing.empty
                    else window.results.iloc[0:0]
                )
                history = failures_view.triage_results(window.results, failing)
                verdicts = failure_verdicts(
                    history,
                    runs.executions,
                    reading.ledger_marks(),
                    now=reading.now,
                    judged=sorted(int(i) for i in runs.judged),
                )
                view = failures_view.failures_view(
                    window.executions,
                    window.results,
                    window.analysed,
                    runs,
                    failing,
                    verdicts=verdicts,
                    marks=reading.ledger_marks(),
                    names=reading.scenario_names(),
                    include_outages=include_outages,
                    only=tuple(states),
                    now=reading.now,
                    scope="",
                    plan_names=reading.plan_names(),
                    scenario_link=links.scenario_link,
                    results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
                    tz=self.tz,
                )
                return {
                    "headline": f"{len(view.rows):,} failed results listed in the period.",
                    "coverage_line": coverage(view.found.basis),
                    "figures": view.figures,
                    "rows": view.table,
                    "link": _failures_link(state),
                    "notes": _texts(view.split, view.outages_caption, view.none_note),
                }

            # The period's failing executions name it (a rolling "last 24 hours" moves with
            # the clock, its runs only when one starts or ends).
            made = self._made(reading, call, [runs.executions, runs.failing], build)
        return self._answer(call, **made)

    # -- 3. one execution's results (Results) --------------------------------------------------

    def execution_results(
        self, execution: int, failed_only: bool, detail: str, cursor: str | None
    ) -> CallToolResult:
        from dashboard.analytics.triage import failure_verdicts
        from dashboard.data import live
        from dashboard.present import results_view as views

        call = asked(
            "execution_results", detail, cursor, execution=execution, failed_only=failed_only
        )
        with self.reading() as reading:
            query = _lookback_query(reading)
            # In the lookback other tools reuse (no request), else in a fresh one (an
            # execution that started since it was listed).
            found = live.find_execution(
                execution, listed=query, started=None, load=reading.executions_data
            )
            if found.header is None:
                found = live.find_execution(
                    execution,
                    listed=query,
                    started=None,
                    load=lambda q: live.load_executions(reading.client, q),
                )
            if found.header is None:
                raise ToolError(
                    f"There is no execution {execution} in the last {MAX_DAYS} days of history."
                )
            header = found.header
            top = views.header_view(header, tz=self.tz, now=reading.now)
            scenarios = views.scenarios_of(reading.plans(), header)
            if not scenarios:
                raise ToolError(f"Execution {execution}'s plan lists no scenario.")

            def build() -> dict[str, Any]:
                from dashboard.analytics.evidence import Expected
                from dashboard.data import results_fanout

                pairs = [(execution, s) for s in scenarios]
                fan_out = results_fanout.fetch_results(
                    reading.client,
                    pairs,
                    finished=(execution,) if top.finished else (),
                    store=reading.store,
                    reader=reading.connection.fingerprint,
                    expected={execution: Expected(failed=int(header.failed))}
                    if header.summary and top.finished
                    else None,
                )
                data = live.results_of_fan_out(fan_out, scenarios=len(pairs))
                plan_id = header.plan_id
                marks = reading.marks()
                # Its failures' verdicts as the page judges them: on its plan's window (the
                # page's default W) unless it is an outage.
                window = (
                    reading.window(ViewState().window, plan=plan_id)
                    if plan_id is not None
                    and views.wants_window(header, marks, finished=top.finished)
                    else None
                )
                judged_from = views.verdict_input(
                    header, data.results, finished=top.finished, window=window
                )
                verdicts = failure_verdicts(
                    *judged_from, reading.ledger_marks(), now=reading.now, judged=[execution]
                )
                view = views.results_view(
                    data,
                    header,
                    marks,
                    finished=top.finished,
                    tz=self.tz,
                    now=reading.now,
                    source=reading.connection.source,
                    scenario_link=lambda s: links.scenario_link(plan_id or 0, s),
                    verdicts=verdicts,
                    names=reading.scenario_names(),
                )
                if view.shown is None:
                    raise ToolError(f"Execution {execution} has no results yet.")
                rows = view.shown.table.display
                failed = view.shown.failed
                if failed_only and "Level" in rows.columns and "level" in failed.columns:
                    rows = rows[rows["Level"].isin(set(failed["level"]))]  # the failed ones
                return {
                    "headline": (
                        f"Execution {execution}: {len(failed):,} failed of "
                        f"{len(view.shown.table.display):,} results."
                    ),
                    "coverage_line": f"computed from execution {execution}'s results",
                    "figures": {kpi.label: kpi.value for kpi in top.kpis},
                    "rows": rows,
                    "extra": {
                        "execution": {"id": execution, "plan_id": plan_id, "finished": top.finished}
                    },
                    "link": links.results_link(execution, plan_id=plan_id, started=header.start),
                }

            # A running execution is read afresh every time, as its page does.
            made = (
                self._made(reading, call, [], build, header=repr(header), scenarios=scenarios)
                if top.finished
                else build()
            )
        return self._answer(call, **made)

    # -- 4. one scenario's history and state (Scenario history) -------------------------------

    def scenario_history(
        self, plan: int, scenario: int, window: int, detail: str, cursor: str | None
    ) -> CallToolResult:
        from dashboard.analytics.triage import failure_verdicts
        from dashboard.present import scenario_view

        check_window(window)
        call = asked(
            "scenario_history", detail, cursor, plan=plan, scenario=scenario, window=window
        )
        with self.reading() as reading:
            plan_name = self._plan_name(reading, plan)

            def build() -> dict[str, Any]:
                loaded = reading.window(window, plan=plan)
                verdicts = failure_verdicts(
                    loaded.results, loaded.executions, reading.ledger_marks(), now=reading.now
                )
                view = scenario_view.scenario_view(
                    loaded.executions,
                    loaded.analysed,
                    loaded.results,
                    reading.marks(),
                    plan=plan,
                    scenario=scenario,
                    plan_name=plan_name,
                    window=window,
                    tz=self.tz,
                    today=reading.now.date(),
                    results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
                    verdicts=verdicts,
                )
                if view.empty:
                    raise ToolError(
                        f"Scenario {scenario} has no result in plan {plan}'s last {window} "
                        "executions."
                    )
                return {
                    "headline": (
                        f"Scenario {scenario} of plan {plan}: {len(view.table.display):,} runs."
                    ),
                    "coverage_line": coverage(executions=loaded.analysed),
                    "rows": view.table,
                    "extra": {
                        "state": _texts(view.current),
                        "regressions": answers.records(view.regressions.display),
                    },
                    "link": links.scenario_link(plan, scenario, window=window),
                    "notes": _texts(view.basis, view.outcomes_caption, view.regression),
                }

            made = self._made(reading, call, [reading.lookback(plan=plan)], build)
        return self._answer(call, **made)

    # -- 5. compare two executions (Compare) ---------------------------------------------------

    def compare_executions(
        self,
        plan: int,
        before: int | None,
        after: int | None,
        only_changes: bool,
        detail: str,
        cursor: str | None,
    ) -> CallToolResult:
        from dashboard.present import compare_view

        call = asked(
            "compare_executions",
            detail,
            cursor,
            plan=plan,
            before=before,
            after=after,
            only_changes=only_changes,
        )
        with self.reading() as reading:
            plan_name = self._plan_name(reading, plan)
            executions = reading.lookback(plan=plan)
            choice = compare_view.pair_choice(executions, plan, reading.outages(executions))
            if (before is None) != (after is None):
                raise ToolError("Give both before and after, or neither (the latest two).")
            if before is None or after is None:
                if choice.default is None:
                    raise ToolError(
                        f"Plan {plan} has fewer than two finished executions in the last "
                        f"{MAX_DAYS} days."
                    )
                before, after = choice.default
            for side in (before, after):
                if side not in choice.ids:
                    raise ToolError(
                        f"Execution {side} is not a finished execution of plan {plan} in the "
                        f"last {MAX_DAYS} days."
                    )
            pair = (before, after)

            def build() -> dict[str, Any]:
                before, after = pair
                fan_out = reading.results([before, after], choice.executions)
                view = compare_view.compare_view(
                    choice,
                    fan_out.results,
                    reading.marks(),
                    plans=reading.plans(),
                    plan_names=reading.plan_names(),
                    plan_name=plan_name,
                    before=before,
                    after=after,
                    only_changes=only_changes,
                    tz=self.tz,
                    today=reading.now.date(),
                    scenario_link=links.scenario_link,
                )
                return {
                    "headline": f"Execution {before} against {after} of plan {plan}.",
                    "coverage_line": f"computed from executions {before} and {after}",
                    "figures": dict(view.kpis),
                    "rows": view.table,
                    "extra": {"changes": _texts(view.changes)},
                    "link": links.compare_link(plan, before, after),
                    "notes": _texts(*view.notes, view.summary, view.known, view.nothing_changed),
                }

            made = self._made(reading, call, [executions], build, pair=pair)
        return self._answer(call, **made)

    # -- 6. environment-specific failures (Environments) ---------------------------------------

    def environment_failures(
        self, plan: int, window: int, detail: str, cursor: str | None
    ) -> CallToolResult:
        from dashboard.present import environments_view

        check_window(window)
        call = asked("environment_failures", detail, cursor, plan=plan, window=window)
        with self.reading() as reading:
            plan_name = self._plan_name(reading, plan)
            lookback = reading.lookback(plan=plan)

            def build() -> dict[str, Any]:
                left_out = frozenset(int(e) for e in reading.outages(lookback)["execution_id"])
                loaded = reading.window(window, plan=plan, leave_out=left_out)
                view = environments_view.environments_view(
                    loaded.executions,
                    loaded.analysed,
                    loaded.results,
                    reading.marks(),
                    plan=plan,
                    plan_name=plan_name,
                    window=window,
                    tz=self.tz,
                    today=reading.now.date(),
                    scenario_link=lambda p, s: links.scenario_link(p, s, window=window),
                    names=reading.scenario_names(),
                )
                specific = view.specific_table.display
                return {
                    "headline": (
                        f"{len(specific):,} environment-specific failures in plan {plan}'s last "
                        f"{window} executions."
                    ),
                    "coverage_line": coverage(executions=loaded.analysed),
                    "rows": view.specific_table,
                    "extra": {"new_version_failures": answers.records(view.versions_table.display)},
                    "link": links.environments_link(plan),
                    "notes": _texts(view.specific, view.versions),
                }

            made = self._made(reading, call, [lookback], build)
        return self._answer(call, **made)

    # -- 7. slower scenarios (Slower) ----------------------------------------------------------

    def slower_scenarios(
        self, plan: int | None, window: int, detail: str, cursor: str | None
    ) -> CallToolResult:
        from dashboard.present.slower_view import slower_view

        check_window(window)
        call = asked("slower_scenarios", detail, cursor, plan=plan, window=window)
        with self.reading() as reading:
            self._plan_name(reading, plan)

            def build() -> dict[str, Any]:
                loaded = reading.window(window, plan=plan)
                view = slower_view(
                    loaded.executions,
                    loaded.results,
                    window=window,
                    today=reading.now.date(),
                    scope="",
                    plan_names=reading.plan_names(),
                    scenario_link=lambda p, s: links.scenario_link(p, s, window=window),
                    tz=self.tz,
                    names=reading.scenario_names(),
                )
                return {
                    "headline": f"{len(view.table.display):,} scenarios got slower.",
                    "coverage_line": coverage(executions=loaded.analysed),
                    "rows": view.table,
                    "extra": {"rule": view.rule},
                    "link": links.slower_link(plan),
                    "notes": _texts(view.none_note),
                }

            made = self._made(reading, call, [reading.lookback(plan=plan)], build)
        return self._answer(call, **made)

    # -- 8. plan health (Plan health) ----------------------------------------------------------

    def plan_health(self, project: int | None, detail: str, cursor: str | None) -> CallToolResult:
        from dashboard.analytics.marks import known_per_execution
        from dashboard.present import health_view as views
        from dashboard.state.query import preset_query

        call = asked("plan_health", detail, cursor, project=project)
        with self.reading() as reading:
            loaded = reading.executions(
                preset_query(DateRange.LAST_30_DAYS, now=reading.now, project=project)
            )

            def build() -> dict[str, Any]:
                executions = reading.without_outages(loaded)
                view = views.health_view(
                    executions,
                    now=reading.now,
                    tz=self.tz,
                    project=None,
                    plan_names=reading.plan_names(),
                )
                marks = reading.marks()
                known = pd.Series(dtype="int64")
                failed = executions[
                    executions["finished"].fillna(False).astype(bool)
                    & (executions["failed"].fillna(0) > 0)
                ]
                if not marks.empty and not failed.empty:
                    read = reading.results(failed["execution_id"], executions)
                    known = known_per_execution(read.results, marks)
                shown = view.with_known(known)
                return {
                    "headline": f"{len(view.health.plans):,} plans ran in the last 30 days.",
                    "coverage_line": coverage(view.health.basis),
                    "rows": shown.table,
                    "extra": {
                        "red_turns": view.red_turns,
                        "red_stretches": _records(view.red_table),
                    },
                    "link": links._link(_routes().HEALTH, ViewState(project=project)),
                    "notes": _texts(view.no_plan_ran, shown.caption),
                }

            made = self._made(reading, call, [loaded], build)
        return self._answer(call, **made)

    # -- 9. time to green, failure groups' ages (Time to green) --------------------------------

    def time_to_green(
        self, project: int | None, plan: int | None, detail: str, cursor: str | None
    ) -> CallToolResult:
        call = asked("time_to_green", detail, cursor, project=project, plan=plan)
        with self.reading() as reading:
            self._plan_name(reading, plan)
            lookback = reading.lookback(project=project, plan=plan)

            def build() -> dict[str, Any]:
                view = self._time_to_green(reading, lookback)
                return {
                    "headline": (
                        f"{len(view.stretches.display):,} red stretches in the last 90 days."
                    ),
                    "coverage_line": coverage(view.found.basis),
                    "figures": dict(view.kpis),
                    "rows": view.stretches,
                    "extra": {"plans": _records(view.plans)},
                    "link": links.time_to_green_link(plan, project_id=project),
                    "notes": _texts(view.no_plan),
                }

            made = self._made(reading, call, [lookback], build)
        return self._answer(call, **made)

    def failure_groups(
        self, project: int | None, plan: int | None, detail: str, cursor: str | None
    ) -> CallToolResult:
        call = asked("failure_groups", detail, cursor, project=project, plan=plan)
        with self.reading() as reading:
            self._plan_name(reading, plan)
            lookback = reading.lookback(project=project, plan=plan)

            def build() -> dict[str, Any]:
                executions = reading.without_outages(lookback)
                view = self._time_to_green(reading, lookback)
                failing = view.failing
                results = (
                    reading.results(failing["execution_id"], executions).results
                    if not failing.empty
                    else None
                )
                if results is None:
                    from dashboard.columns.schemas import RESULT_HISTORY_COLUMNS
                    from dashboard.columns.shapes import empty

                    results = empty(RESULT_HISTORY_COLUMNS)
                # As the Time to green and Flaky pages: the team's rules (merged groups,
                # categories) applied, the scenarios' names for rules on them.
                ages = view.failure_ages(results, rules, names=reading.scenario_names())
                return {
                    "headline": (
                        f"{len(ages.table.display):,} failure groups in the last 90 days."
                    ),
                    "coverage_line": coverage(executions=executions),
                    "rows": ages.table,
                    "link": links.time_to_green_link(plan, project_id=project),
                    "notes": _texts(ages.none_failed, group_rules.rules_note(rules)),
                }

            rules = reading.group_rules()
            made = self._made(reading, call, [lookback], build, rules=(rules.key, rules.left_out))
        return self._answer(call, **made)

    # -- 10. known failures (Known failures) ---------------------------------------------------

    def known_failures(self, show: str, detail: str, cursor: str | None) -> CallToolResult:
        from dashboard.present.known import MarkFilter
        from dashboard.present.known_view import EVIDENCE_WINDOW, known_view

        choices = {f.value: f for f in MarkFilter}
        if show not in choices:
            raise ToolError(f"show must be one of {', '.join(choices)}.")
        call = asked("known_failures", detail, cursor, show=show)
        with self.reading() as reading:

            def build() -> dict[str, Any]:
                loaded = reading.window(EVIDENCE_WINDOW)
                view = known_view(
                    reading.ledger_marks(),
                    reading.mark_log(),
                    loaded.results,
                    reading.outages(loaded.executions),
                    now=reading.now,
                    tz=self.tz,
                    mark_filter=choices[show],
                    plan_names=reading.plan_names(),
                )
                return {
                    "headline": f"{len(view.table.display):,} marks listed ({show}).",
                    "coverage_line": coverage(executions=loaded.analysed),
                    "rows": view.table,
                    "extra": {"outages": list(view.outage_lines)},
                    "link": links.known_link(),
                    "notes": _texts(view.filter_caption, view.evidence_caption, view.more_caption),
                }

            made = self._made(reading, call, [reading.lookback()], build)
        return self._answer(call, **made)

    # -- 11. flaky scenarios (Flaky) -----------------------------------------------------------

    def flaky_scenarios(
        self,
        project: int | None,
        plan: int | None,
        window: int,
        threshold: float,
        include_outages: bool,
        detail: str,
        cursor: str | None,
    ) -> CallToolResult:
        from dashboard.analytics.triage import failure_verdicts
        from dashboard.present import flaky_view

        check_window(window)
        if not 0.01 <= threshold <= 1.0:
            raise ToolError("threshold must be between 0.01 and 1.")
        call = asked(
            "flaky_scenarios",
            detail,
            cursor,
            project=project,
            plan=plan,
            window=window,
            threshold=threshold,
            include_outages=include_outages,
        )
        with self.reading() as reading:
            self._plan_name(reading, plan)
            # As the page: outages never count in the scores; included, they are grouped.
            lookback = reading.lookback(project=project, plan=plan)

            def build() -> dict[str, Any]:
                outages = flaky_view.left_out(reading.outages(lookback))
                loaded = reading.window(window, project=project, plan=plan, leave_out=outages)
                grouped = (
                    reading.window(window, project=project, plan=plan)
                    if include_outages and outages
                    else loaded
                )
                verdicts = failure_verdicts(
                    flaky_view.verdict_results(loaded.results, grouped.results),
                    lookback,
                    reading.ledger_marks(),
                    now=reading.now,
                    judged=flaky_view.judged(grouped.analysed),
                    rules=flaky_view.rules(window, threshold),
                )
                shown = flaky_view.flaky_page(
                    loaded.analysed,
                    loaded.results,
                    loaded.executions,
                    reading.marks(),
                    counts=loaded.fan_out.counts if loaded.fan_out is not None else None,
                    window=window,
                    threshold=threshold,
                    today=reading.now.date(),
                    scope="",
                    plan=plan,
                    plan_names=reading.plan_names(),
                    tz=self.tz,
                    scenario_link=lambda p, s: links.scenario_link(p, s, window=window),
                    results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
                    verdicts=verdicts,
                    grouped_window=None
                    if grouped is loaded
                    else (grouped.analysed, grouped.results),
                    outages=(len(outages), include_outages),
                    names=reading.scenario_names(),
                )
                return {
                    "headline": f"{len(shown.table.display):,} flaky scenarios.",
                    "coverage_line": coverage(executions=loaded.analysed),
                    "rows": shown.table,
                    "extra": {"rule": flaky_view.rule(window, threshold)},
                    "link": links._link(
                        _routes().FLAKY,
                        ViewState(project=project, plan=plan, window=window, threshold=threshold),
                    ),
                    "notes": _texts(shown.window_caption, shown.not_enough_runs, shown.known_runs),
                }

            made = self._made(reading, call, [lookback], build)
        return self._answer(call, **made)

    # -- 12. the standup since a time (Standup) ------------------------------------------------

    def standup(
        self, project: int | None, since: datetime | None, detail: str, cursor: str | None
    ) -> CallToolResult:
        from dashboard.data.pairs import result_pairs
        from dashboard.present.standup_view import (
            PLAN_EVIDENCE,
            execution_places,
            plan_names_of,
            standup_needs,
            standup_view,
        )
        from dashboard.state.query import standup_query, standup_window

        call = asked("standup", detail, cursor, project=project, since=since)
        state = ViewState(project=project, tz=self.tz)
        with self.reading() as reading:
            window = standup_window(state, reading.now, tz=self.tz)
            if since is not None:
                since = since if since.tzinfo else since.replace(tzinfo=UTC)
                if since >= reading.now:
                    raise ToolError("since is not in the past.")
                if reading.now - since > timedelta(days=MAX_DAYS):
                    raise ToolError(f"since is more than {MAX_DAYS} days ago.")
                window = replace(window, start=pd.Timestamp(since), kind="custom")
            # Cut from the 90 days other tools keep, when kept (no request for 31 days again).
            data_executions = reading.executions_from(standup_query(state, window))

            def build() -> dict[str, Any]:
                needs = standup_needs(
                    data_executions, reading.marks(), window=window, now=reading.now
                )
                fanout, every_plan = None, None
                if needs.results_needed:
                    every_plan = reading.plans()
                    pairs, finished = result_pairs(
                        data_executions, every_plan, needs.results_needed
                    )
                    from dashboard.data import results_fanout

                    fanout = results_fanout.fetch_results(
                        reading.client,
                        pairs,
                        finished=finished,
                        store=reading.store,
                        reader=reading.connection.fingerprint,
                    )

                def place(ident: int) -> tuple[int | None, datetime | None]:
                    # Looked up per linked item (a few), not named for every execution of the
                    # 31 days (0.1-0.2 s at 100,000).
                    hit = data_executions[data_executions["execution_id"] == ident]
                    return execution_places(hit.tail(1)).get(ident, (None, None))

                def link_for(kind: str, ident: int) -> str | None:
                    if kind == PLAN_EVIDENCE:
                        link = links.executions_link(ident)
                    else:
                        plan_id, started = place(int(ident))
                        link = links.results_link(ident, plan_id=plan_id, started=started)
                    return self.url(link) or link

                view = standup_view(
                    needs,
                    fanout,
                    link_for=link_for,
                    plan_names=plan_names_of(data_executions),
                    plans=every_plan,
                    scenario_link=links.scenario_link,
                    names=reading.scenario_names(),
                    rules=rules,  # the page's categories of newly failing scenarios
                )
                sections = {
                    section.title: {
                        "items": len(section.section.rows),
                        "note": section.note[0] if section.note else None,
                    }
                    for section in view.sections
                }
                return {
                    "coverage_line": coverage(executions=data_executions),
                    "figures": {metric.label: metric.value for metric in view.metrics},
                    "rows": view.items,
                    "extra": {"sections": sections, "folded": list(view.folded_lines)},
                    "link": links.standup_link(state),
                    "notes": _texts(view.window_caption, view.running_caption, view.folded_caption),
                }

            # The window runs to now: named by its start, its executions by their outcomes.
            rules = reading.group_rules()
            made = self._made(
                reading,
                call,
                [data_executions],
                build,
                start=window.start,
                rules=(rules.key, rules.left_out),
            )
        return self._answer(
            call,
            headline=f"The standup from {window.start:%d %b %H:%M} to {window.end:%d %b %H:%M} "
            f"({window.tz}).",
            **made,
        )

    # -- 14. the quality gate's verdict for an execution (the gate) ------------------------------

    def gate_verdict(
        self,
        plan: int,
        execution: int | None,
        max_unresolved: int,
        min_pass_rate: float | None,
        detail: str,
        cursor: str | None,
    ) -> CallToolResult:
        """`python -m dashboard gate`'s verdict, without waiting (a running execution has
        none), as values: the verdict's figures, and the failures it did not let through as
        rows (`assistant.gate`). The gate opens the store itself, as the gate does (it must
        read every mark), so no reading is open around it."""
        from dashboard.analytics.gate import GateRules
        from dashboard.assistant import gate

        if max_unresolved < 0:
            raise ToolError("max_unresolved must be 0 or more.")
        if min_pass_rate is not None and not 0 <= min_pass_rate <= 100:
            raise ToolError("min_pass_rate is a percentage, from 0 to 100.")
        call = asked(
            "gate_verdict",
            detail,
            cursor,
            plan=plan,
            execution=execution,
            max_unresolved=max_unresolved,
            min_pass_rate=min_pass_rate,
        )
        rules = GateRules(
            max_unresolved=max_unresolved,
            min_pass_rate=None if min_pass_rate is None else min_pass_rate / 100,
        )
        judged = gate.judge(self.source, plan, execution, rules)
        verdict = judged.verdict
        figures = gate.fields(judged)
        execution_id = judged.execution_id
        held = gate.held(verdict)
        scenarios = held["Scenario"]
        held = held.assign(
            History=[links.scenario_link(plan, int(s)) if pd.notna(s) else None for s in scenarios]
        )
        return self._answer(
            call,
            headline=f"Execution {execution_id} of plan {plan}: "
            f"{'pass' if verdict.passed else 'fail'} by the quality gate, "
            f"{figures['unresolved']:,} unresolved, {figures['known']:,} known.",
            coverage_line=f"computed from execution {execution_id}'s results and the team's marks",
            figures=figures,
            rows=held,
            extra={
                "execution": {"id": execution_id, "plan_id": plan},
                "reasons": list(verdict.reasons),
                "unresolved_by_verdict": verdict.unresolved_labels,
                "marks_applied": answers.records(verdict.applied),
                "marks_not_used": dict(verdict.ignored),
            },
            link=links.results_link(execution_id, plan_id=plan, started=judged.start),
        )


@functools.cache
def _page_link() -> re.Pattern[str]:
    """A relative link to one of the dashboard's pages ("scenario?plan=5&scenario=52")."""
    routes = _routes()
    paths = sorted(
        {r.url_path for r in vars(routes).values() if isinstance(r, routes.Route) and r.url_path},
        key=len,
        reverse=True,
    )
    return re.compile(rf"^(?:{'|'.join(re.escape(p) for p in paths)})(?:\?\S*)?$")


def _records(table: TableView | None) -> list[dict[str, Any]]:
    return answers.records(table.display) if table is not None else []


def _routes() -> Any:
    from dashboard.state import routes

    return routes


def _lookback_query(reading: Reading) -> Any:
    from dashboard.state.query import preset_query

    return preset_query(DateRange.LAST_90_DAYS, now=reading.now)


def _failures_link(state: ViewState) -> str:
    return links._link(_routes().FAILURES, state)


ToolFunction = Callable[..., CallToolResult]
