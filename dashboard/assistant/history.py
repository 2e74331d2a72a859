"""What the assistant's tools read, without Streamlit: the pages' own loads (`ui.analytics_input`,
`ui.triage`) done the CLI's way (`cli.digest`, `cli.gate`): the service through `api_client`,
finished executions' results through the history store, the team's marks from it.

One `Reading` serves one tool call: it opens the client and the store, remembers what it loaded
(a tool that needs the lookback twice reads it once) and closes both at the end, so a worker
syncing the same DuckDB file is never held off for longer than one answer.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pandas as pd
from cachetools import TTLCache

from dashboard.analytics import plans as plan_analytics
from dashboard.analytics.evidence import expected_failures
from dashboard.analytics.flaky import last_finished
from dashboard.analytics.group_rules import TeamRules, team_rules
from dashboard.analytics.marks import applying, marks_key
from dashboard.analytics.outages import outages
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.schemas import RESULT_HISTORY_COLUMNS
from dashboard.columns.shapes import empty, frame_digest
from dashboard.data import live, results_fanout
from dashboard.data.pairs import result_pairs
from dashboard.state.params import DateRange
from dashboard.state.query import preset_query

if TYPE_CHECKING:
    from api_client import ApiClient, ExecutionQuery
    from dashboard.data.connection import Connection
    from dashboard.data.fanout_answer import FanOut
    from dashboard.data.live import ExecutionsData
    from dashboard.data.store import HistoryStore

LOADS_TTL_S = 300.0
"""How long the service's lists (plans, executions) are reused between calls, as the pages keep
theirs (`data.cache_connection.DATA_TTL`): an assistant asks several tools in a row."""
_LOADS: TTLCache[tuple[str, Any], Any] = TTLCache(maxsize=32, ttl=LOADS_TTL_S)
_LOADS_LOCK = threading.Lock()

VIEWS_TTL_S = LOADS_TTL_S
"""How long a tool's view is reused for the same inputs, as the pages keep theirs
(`data.cache.built`, which lives as long as the data it was made of)."""
_VIEWS: TTLCache[str, Any] = TTLCache(maxsize=64, ttl=VIEWS_TTL_S)
_VIEWS_LOCK = threading.Lock()

EXECUTION_KEY_COLUMNS = (
    "execution_id",
    "plan_id",
    "plan",
    "start",
    "status",
    "finished",
    "end",
    "results",
    "verdicts",
    "passed",
    "failed",
)
"""What names an executions frame in a view's key: its ids and outcomes (a running execution
that finishes, or gains a result, is new data; a finished one's results never change)."""
NAME_KEY_COLUMNS = ("scenario_id", "name", "owner", "tags")
PLAN_KEY_COLUMNS = ("plan_id", "plan", "project_id", "scenario_ids", "enabled", "updated")

LOOKBACK = DateRange.LAST_90_DAYS
"""The pages' lookback (`ui.analytics_input.LOOKBACK`): each plan's last W runs are in it."""
STORE_WAIT_S = 10.0
logger = logging.getLogger(__name__)


def forget_loads() -> None:
    """Drop the reused lists and views (a test's service may get an earlier one's port)."""
    with _LOADS_LOCK:
        _LOADS.clear()
    with _VIEWS_LOCK:
        _VIEWS.clear()


_FRAME_KEYS: dict[tuple[int, tuple[str, ...]], tuple[weakref.ref[pd.DataFrame], str]] = {}
_FRAME_KEYS_LOCK = threading.RLock()  # a callback may run inside, at a collection


def frame_key(frame: pd.DataFrame, columns: Iterable[str]) -> str:
    """A short name of `frame`'s rows by `columns` (those it has), their order included; named
    once per frame object (the reused lists are the same object for `LOADS_TTL_S`, and never
    changed: hashing 100,000 executions again at every call costs about 0.1 s)."""
    wanted = tuple(columns)
    slot = (id(frame), wanted)
    with _FRAME_KEYS_LOCK:
        known = _FRAME_KEYS.get(slot)
        if known is not None and known[0]() is frame:
            return known[1]
    key = frame_digest(frame, wanted)

    def forget(_: object, slot: tuple[int, tuple[str, ...]] = slot) -> None:
        with _FRAME_KEYS_LOCK:
            _FRAME_KEYS.pop(slot, None)

    with _FRAME_KEYS_LOCK:
        _FRAME_KEYS[slot] = (weakref.ref(frame, forget), key)
    return key


class SharedStore:
    """The server's one history store, opened by the first reading that needs it and kept: the
    store lets go of its file when idle and its operations take turns (`HistoryStore`), where a
    store per answer wrote beside another in the same process (the start's warming beside a
    first question, two questions over HTTP), and two transactions of one DuckDB database
    writing the same row at once conflict. An open that fails is not kept: the next answer
    tries again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._store: HistoryStore | None = None

    def get(self, source: Source) -> HistoryStore:
        from dashboard.cli.common import open_store  # lazy: the CLI's helpers import Typer

        with self._lock:
            if self._store is None:
                self._store = open_store(
                    source.connection, source.secrets, source.env, wait=STORE_WAIT_S
                )
            return self._store

    def close(self) -> None:
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            store.close()


@dataclass(frozen=True)
class Source:
    """Where answers come from: the connection (service and company), the configuration the
    store is found by, and the dashboard's public address for `view_url` (None: no links)."""

    connection: Connection
    secrets: Mapping[str, Any] = field(repr=False)
    env: Mapping[str, str] = field(repr=False)
    dashboard_url: str | None = None
    shared: SharedStore = field(default_factory=SharedStore, repr=False, compare=False)

    @contextmanager
    def reading(self) -> Iterator[Reading]:
        """A reading for one answer: the client open for its length, the server's store."""
        # Lazy: the CLI's helpers import Typer; the server itself imports them only here.
        from dashboard.cli.common import client_for

        with ExitStack() as stack:
            client = stack.enter_context(client_for(self.connection))
            yield Reading(self.connection, client, self.shared.get(self))

    def warm(self) -> None:
        """Derive, once for the process, what the store knows this connection's reader by (a
        slow hash, a few tenths of a second: `store.readers`), so that the first question that
        reads stored results does not pay it; and, on a store this reader has never read
        results from (one filled by the worker's sync), prove it now (`Reading.prove_reader`:
        one result asked of the service, the hash derived and remembered), which the first such
        question would otherwise pay (about 0.2-0.3 s of CPU at 100,000 executions). The server
        does this as it starts, in the background; a store that cannot be read now, or a
        service that does not answer or refuses, is left to the questions to say."""
        from api_client import ApiError
        from dashboard.data.store.errors import StoreError

        try:
            with self.reading() as reading:
                if not reading.store.knows_reader(self.connection.fingerprint):
                    reading.prove_reader()
        except (ApiError, StoreError, OSError) as error:
            logger.info("the store was not warmed: %s", type(error).__name__)


@dataclass(frozen=True)
class Window:
    """The lookback's executions in scope (running ones too), each plan's last W finished ones
    among them (`analysed`), and their results: what `ui.analytics_input.load_window` gives."""

    executions: pd.DataFrame
    analysed: pd.DataFrame
    results: pd.DataFrame
    fan_out: FanOut | None


class Reading:
    """The loads of one answer, each made once."""

    def __init__(self, connection: Connection, client: ApiClient, store: HistoryStore) -> None:
        self.connection = connection
        self.client = client
        self.store = store
        self.now: datetime = connection.clock or datetime.now(UTC)
        self._memo: dict[Any, Any] = {}

    def _once(self, key: Any, make: Any) -> Any:
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    # -- plans and executions ------------------------------------------------------------------

    def _kept(self, key: Any, load: Any) -> Any:
        """`load()`, reused for `LOADS_TTL_S` by every call on the same service and company
        (the connection's fingerprint, never its token, names them)."""
        named = (self.connection.fingerprint, key)
        with _LOADS_LOCK:
            if named in _LOADS:
                return _LOADS[named]
        loaded = load()
        with _LOADS_LOCK:
            _LOADS[named] = loaded
        return loaded

    def plans(self) -> pd.DataFrame:
        """Every plan (inactive ones too), `PLAN_COLUMNS`."""
        return self._once(
            "plans",
            lambda: self._kept(
                "plans", lambda: live.load_plans(self.client, active_only=False).plans
            ),
        )

    def plan_names(self) -> dict[int, str]:
        return plan_analytics.plan_names(self.plans())

    def executions(self, query: ExecutionQuery) -> pd.DataFrame:
        return self.executions_data(query).executions

    def executions_data(self, query: ExecutionQuery) -> ExecutionsData:
        """`query`'s executions as loaded (with their status counts), reused as `executions`:
        what `live.find_execution` looks an execution up in."""
        loaded: ExecutionsData = self._once(
            ("executions", query),
            lambda: self._kept(
                ("executions", query), lambda: live.load_executions(self.client, query)
            ),
        )
        return loaded

    def executions_from(self, query: ExecutionQuery) -> pd.DataFrame:
        """`executions(query)`, cut from a wider list already kept (no request) when one holds
        it: a query of every status and anyone's from a time on (the standup's 31 days), while
        the lookback of the same or every project is kept. Both bounds are on the start and
        inclusive, to the millisecond, as the service filters."""
        wider = self._wider(query)
        if wider is None:
            return self.executions(query)

        def cut() -> pd.DataFrame:
            executions = wider.executions
            keep = executions["start"] >= pd.Timestamp(query.date_from).floor("ms")
            if query.project_id is not None:
                keep &= executions["project_id"] == query.project_id
            return executions[keep.fillna(False).astype(bool)].reset_index(drop=True)

        return self._once(("cut", query), lambda: self._kept(("cut", query), cut))

    def _wider(self, query: ExecutionQuery) -> ExecutionsData | None:
        """A kept list that holds every execution `query` asks for (see `executions_from`)."""
        if query.date_from is None or query.date_to is not None:
            return None
        if query.plan_id is not None or query.status is not None or query.email is not None:
            return None
        with _LOADS_LOCK:
            kept = [(key, _LOADS.get(key)) for key in list(_LOADS.keys())]
        for (fingerprint, key), loaded in kept:
            if fingerprint != self.connection.fingerprint or loaded is None:
                continue
            if not (isinstance(key, tuple) and key[0] == "executions"):
                continue
            held = key[1]
            if (
                held.date_from is not None
                and held.date_from <= query.date_from
                and held.date_to is None
                and held.plan_id is None
                and held.status is None
                and held.email is None
                and held.project_id in (None, query.project_id)
            ):
                wider: ExecutionsData = loaded
                return wider
        return None

    def lookback(
        self, *, project: int | None = None, plan: int | None = None, preset: DateRange = LOOKBACK
    ) -> pd.DataFrame:
        """The executions of a preset period (the lookback by default), as the pages ask."""
        return self.executions(preset_query(preset, now=self.now, project=project, plan=plan))

    # -- results -------------------------------------------------------------------------------

    def results(self, execution_ids: Iterable[int], executions: pd.DataFrame) -> FanOut:
        """The results of some executions (rows of `executions`) through the history store, as
        `cache.history_results` reads them (finished ones kept once whole)."""
        ids = tuple(dict.fromkeys(int(i) for i in execution_ids))

        def load() -> FanOut:
            pairs, finished = result_pairs(executions, self.plans(), ids)
            return results_fanout.fetch_results(
                self.client,
                pairs,
                finished=finished,
                store=self.store,
                reader=self.connection.fingerprint,
                expected=expected_failures(executions[executions["execution_id"].isin(ids)]),
            )

        return self._once(("results", ids), load)

    def window(
        self,
        window: int,
        *,
        project: int | None = None,
        plan: int | None = None,
        leave_out: frozenset[int] = frozenset(),
    ) -> Window:
        """`ui.analytics_input.load_window` without Streamlit."""
        executions = self.lookback(project=project, plan=plan)
        if leave_out:
            executions = executions[~executions["execution_id"].isin(leave_out)]
        scoped = executions if plan is None else executions[executions["plan_id"] == plan]
        positions = last_finished(scoped, window)
        chosen = scoped[scoped["execution_id"].isin(positions["execution_id"])]
        if chosen.empty:
            return Window(scoped, chosen, empty(RESULT_HISTORY_COLUMNS), None)
        fan_out = self.results(chosen["execution_id"], executions)
        return Window(scoped, chosen, fan_out.results, fan_out)

    def prove_reader(self) -> bool:
        """Have this connection's reader proved to the store (`results_fanout`: the store gives
        a reader stored results only once the service has answered it one results request) with
        the newest stored result's execution and scenario, fetched again: what the first
        question reading stored results does otherwise. False when the store holds no result to
        prove with (the first question then proves it, as before)."""
        pair = self._stored_pair()
        if pair is None:
            return False
        results_fanout.fetch_results(
            self.client,
            [pair],
            finished=(pair[0],),
            store=self.store,
            reader=self.connection.fingerprint,
            return_results=False,
        )
        return self.store.knows_reader(self.connection.fingerprint)

    def _stored_pair(self) -> tuple[int, int] | None:
        """The (execution, scenario) of the newest stored result, if the store holds one."""
        newest = self.store.info().newest_result
        if newest is None:
            return None
        found = self.store.results_in_window(date_from=newest)
        found = found.dropna(subset=["execution_id", "scenario_id"])
        if found.empty:
            return None
        return int(found["execution_id"].iloc[0]), int(found["scenario_id"].iloc[0])

    # -- marks and outages ---------------------------------------------------------------------

    def ledger_marks(self) -> pd.DataFrame:
        """Every mark of the company (the whole ledger, `MARK_COLUMNS`)."""
        return self._once("marks", lambda: self.store.marks(self.connection.company_id))

    def mark_log(self) -> pd.DataFrame:
        return self._once("log", lambda: self.store.mark_log(self.connection.company_id))

    # -- views, made once per input ------------------------------------------------------------

    def view(
        self,
        name: str,
        parameters: Mapping[str, Any],
        data: Iterable[pd.DataFrame],
        build: Callable[[], Any],
    ) -> Any:
        """`build()`, made once per input and reused for `VIEWS_TTL_S` by every call on the same
        service and company, as the pages' `cache.built`: the key names the tool (`name`), its
        `parameters`, the executions it reads (`data`: ids and outcomes, whose finished results
        never change), the plans, the scenarios' names, the company's marks (each one's id and
        revision) and the day (a mark applies by the day); never a token. What is returned is
        shared: never mutate it. A build that raises is not kept."""
        material = repr(
            (
                self.connection.fingerprint,
                name,
                sorted((str(k), repr(v)) for k, v in parameters.items()),
                [frame_key(frame, EXECUTION_KEY_COLUMNS) for frame in data],
                frame_key(self.plans(), PLAN_KEY_COLUMNS),
                frame_key(self.scenario_names(), NAME_KEY_COLUMNS),
                marks_key(self.ledger_marks()),
                self.now.date().isoformat(),
            )
        )
        key = hashlib.sha256(material.encode()).hexdigest()
        with _VIEWS_LOCK:
            if key in _VIEWS:
                return _VIEWS[key]
        made = build()
        with _VIEWS_LOCK:
            _VIEWS[key] = made
        return made

    def scenario_names(self) -> pd.DataFrame:
        """The company's scenario names (`SCENARIO_NAME_COLUMNS`), as the pages pass them to
        their views (`data.cache_names.names`); none when the store cannot give them (the
        pages then say "Scenario 402", never an error)."""
        from dashboard.data.store.errors import StoreError
        from dashboard.data.store.types import SCENARIO_NAME_COLUMNS

        def read() -> pd.DataFrame:
            try:
                return self.store.scenario_names(self.connection.company_id)
            except StoreError:
                return empty(SCENARIO_NAME_COLUMNS)

        return self._once("names", read)

    def group_rules(self) -> TeamRules:
        """The team's rules for failure groups in force, compiled as the pages compile them
        (`ui.group_rules.rules_of`: the store's RE2, a pattern this version cannot compile left
        out and counted); none when the store cannot give them (the groups are then the
        messages' own, as on the pages)."""
        from dashboard.data.store import group_rules as stored
        from dashboard.data.store.errors import StoreError
        from dashboard.data.store.types import GROUP_RULE_COLUMNS

        def read() -> TeamRules:
            try:
                frame = self.store.group_rules(self.connection.company_id)
            except StoreError:
                frame = empty(GROUP_RULE_COLUMNS)
            return team_rules(frame, stored.usable, stored.search_many)

        rules: TeamRules = self._once("group rules", read)
        return rules

    def marks(self) -> pd.DataFrame:
        """The marks that apply now."""
        ledger = self.ledger_marks()
        return applying(ledger, self.now) if not ledger.empty else empty(MARK_COLUMNS)

    def outages(self, executions: pd.DataFrame) -> pd.DataFrame:
        """The outages among `executions` (`analytics.outages`, as `ui.triage.triage_of`)."""
        return outages(executions, self.marks())

    def without_outages(self, executions: pd.DataFrame) -> pd.DataFrame:
        left_out = set(self.outages(executions)["execution_id"])
        return executions[~executions["execution_id"].isin(left_out)] if left_out else executions
