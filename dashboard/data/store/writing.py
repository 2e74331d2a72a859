"""Writing the history store: what a sync fetched, each step one transaction.

`HistoryWriter` is the half of `HistoryStore` that writes: plans (replaced, unless the service
answers none), finished executions (stored once, then kept as first stored: one that comes back
changed is noted, `store.changes`), results of fetched pairs (upserts by id), the readers that
proved they may read results (`store.readers`), the store's facts, and clearing it all.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime

import pandas as pd

from dashboard.analytics.verdicts import RUNNING_STATUSES
from dashboard.columns.schemas import (
    EXECUTION_HISTORY_COLUMNS,
    EXECUTION_STATUS_COLUMNS,
    RESULT_HISTORY_COLUMNS,
)
from dashboard.columns.shapes import typed
from dashboard.data.store import readers, sql
from dashboard.data.store.changes import changed_parts
from dashboard.data.store.engine import StoreEngine, with_staged
from dashboard.data.store.frames import as_table, ids_frame, unique, upsert
from dashboard.data.store.lease import StoreLease
from dashboard.data.store.records import (
    EXECUTION_RESULT_ID_COLUMNS,
    PLAN_HISTORY_COLUMNS,
    PLAN_SCENARIO_COLUMNS,
    ExecutionFrames,
    PlanFrames,
)
from dashboard.data.store.types import (
    CHANGED_EXECUTION_IDS,
    CHANGED_EXECUTIONS,
    EMPTY_PLANS_AT,
    FETCHED_PAIR_COLUMNS,
    LISTED_CHANGED_IDS,
    RESULT_IDS_COLUMNS,
)

_LOG = logging.getLogger(__name__)

_NOTICED = (EMPTY_PLANS_AT, CHANGED_EXECUTIONS, CHANGED_EXECUTION_IDS)
"""What the store noticed of the service: forgotten with everything else by `clear`."""


class HistoryWriter(StoreLease):
    """The writes of a history store (see the module); `HistoryStore` adds the reads."""

    def replace_plans(self, plans: PlanFrames) -> int:
        """Replace every stored plan and plan scenario list with `plans`; returns how many plans
        the store holds. An empty answer replaces nothing: a company's plans do not vanish at
        once, and without them the sync could not tell an execution's scenarios. The stored
        plans are kept, the log says so, and `meta()` notes when (`EMPTY_PLANS_AT`) for the
        sidebar to say, until an answer with plans replaces them."""
        frame = unique(typed(plans.plans, PLAN_HISTORY_COLUMNS), ["plan_id"])
        scenarios = unique(typed(plans.scenarios, PLAN_SCENARIO_COLUMNS), ["plan_id", "ordinal"])
        staged_plans = as_table(frame, "plans")
        staged_scenarios = as_table(scenarios, "plan_scenarios")
        with self._write() as db:
            held = int(db.scalar(sql.COUNT_PLANS) or 0)
            if frame.empty and held:
                _set_meta(db, {EMPTY_PLANS_AT: datetime.now(UTC)})
            else:
                db.execute(sql.DELETE_PLANS)
                db.execute(sql.DELETE_PLAN_SCENARIOS)
                upsert(db, "plans", staged_plans)
                upsert(db, "plan_scenarios", staged_scenarios)
                _set_meta(db, {EMPTY_PLANS_AT: None})
                held = len(frame)
        if frame.empty and held:
            _LOG.warning(
                "history store %s: the service answered no plans; the %d stored plans are kept",
                self.location,
                held,
            )
        return held

    def add_executions(self, executions: ExecutionFrames) -> int:
        """Store the finished executions among `executions` with their status counts and result
        ids; running ones are left out. Returns how many finished executions were given.

        A finished execution never changes, so one already stored is kept as first stored. One
        that comes back different (`store.changes`) is the service contradicting itself: it is
        logged and noted (`changed_executions`, counted in `info()` and `meta()`), never
        written over."""
        offered = _finished(executions)
        if offered.executions.empty:
            return 0
        with self._write() as db:
            with db.staged(ids_frame(offered.executions["execution_id"])) as name:
                stored = ExecutionFrames(
                    db.frame(
                        with_staged(sql.EXECUTIONS_OF_STAGED, name), EXECUTION_HISTORY_COLUMNS
                    ),
                    db.frame(
                        with_staged(sql.STATUSES_OF_STAGED_EXECUTIONS, name),
                        EXECUTION_STATUS_COLUMNS,
                    ),
                    _with_ordinals(
                        db.frame(
                            with_staged(sql.RESULT_IDS_OF_STAGED_EXECUTIONS, name),
                            RESULT_IDS_COLUMNS,
                        )
                    ),
                )
            known = stored.executions["execution_id"]
            for table, frame in (
                ("executions", offered.executions),
                ("execution_statuses", offered.statuses),
                ("execution_result_ids", offered.result_ids),
            ):
                upsert(db, table, as_table(frame.loc[~frame["execution_id"].isin(known)], table))
            changed = changed_parts(stored, offered)
            if changed:
                _note_changed(db, changed)
        for execution_id, parts in changed.items():
            _LOG.warning(
                "history store %s: finished execution %d came back from the service changed "
                "(%s); the version stored first is kept",
                self.location,
                execution_id,
                ", ".join(parts),
            )
        return len(offered.executions)

    def add_results(self, results: pd.DataFrame, pairs: pd.DataFrame) -> int:
        """Store the results of fetched pairs and mark the pairs fetched, in one transaction.

        `results` has RESULT_HISTORY_COLUMNS; `pairs` has `execution_id`, `scenario_id` and
        `result_count` (0 remembers "no results"). Only pairs of finished executions belong
        here (the fan-out decides). Returns how many pairs were marked.
        """
        frame = unique(typed(results, RESULT_HISTORY_COLUMNS), ["result_id"])
        marked = pairs.assign(fetched_at=pd.Timestamp.now(tz=UTC)).astype({"result_count": "int64"})
        marked = unique(typed(marked, FETCHED_PAIR_COLUMNS), ["execution_id", "scenario_id"])
        if marked.empty and frame.empty:
            return 0
        staged_results = as_table(frame, "results")
        staged_pairs = as_table(marked, "fetched_pairs")
        with self._write() as db:
            upsert(db, "results", staged_results)
            upsert(db, "fetched_pairs", staged_pairs)
        return len(marked)

    def record(self, **values: str | int | datetime | None) -> None:
        """Note facts about the store (last sync, its window) in its `store_meta` table."""
        with self._write() as db:
            _set_meta(db, values)

    def add_reader(self, reader: str) -> None:
        """Remember that `reader` has just read results from the service (`knows_reader`). The
        hash is derived before the database is taken (it takes a tenth of a second)."""
        with self._lease() as db:
            salt = dict(db.rows(sql.GET_META)).get(readers.SALT) or readers.new_salt()
        key = readers.entry(salt, reader)
        with self._write() as db:
            db.execute(sql.ADD_META, {"key": readers.SALT, "value": salt})
            kept = dict(db.rows(sql.GET_META))[readers.SALT]
            if kept != salt:  # another process made the store's salt meanwhile
                key = readers.entry(kept, reader)
            _set_meta(db, {key: "1"})

    def clear(self) -> int:
        """Empty the store (its schema and identity stay); returns how many results it held."""
        with self._write() as db:
            held = int(db.scalar(sql.COUNT_RESULTS) or 0)
            for table in sql.DATA_TABLES:
                db.execute(sql.clear_table(table))
            _set_meta(db, dict.fromkeys(("last_sync", *_NOTICED)))
        return held


def _finished(executions: ExecutionFrames) -> ExecutionFrames:
    """The finished executions among `executions` (an end, no running status), one row per
    execution, per (execution, status) and per (execution, ordinal)."""
    frame = unique(typed(executions.executions, EXECUTION_HISTORY_COLUMNS), ["execution_id"])
    statuses = typed(executions.statuses, EXECUTION_STATUS_COLUMNS)
    result_ids = typed(executions.result_ids, EXECUTION_RESULT_ID_COLUMNS)
    running = statuses.loc[
        (statuses["count"] > 0)
        & statuses["status"].fillna("").str.strip().str.upper().isin(RUNNING_STATUSES),
        "execution_id",
    ]
    finished = frame.loc[frame["end"].notna() & ~frame["execution_id"].isin(running)]
    keep = finished["execution_id"]
    return ExecutionFrames(
        finished.reset_index(drop=True),
        unique(statuses.loc[statuses["execution_id"].isin(keep)], ["execution_id", "status"]),
        unique(result_ids.loc[result_ids["execution_id"].isin(keep)], ["execution_id", "ordinal"]),
    )


def _with_ordinals(result_ids: pd.DataFrame) -> pd.DataFrame:
    """Stored result ids (in their order) with each one's place in its execution's list."""
    ordinals = result_ids.groupby("execution_id", sort=False).cumcount()
    return typed(result_ids.assign(ordinal=ordinals), EXECUTION_RESULT_ID_COLUMNS)


def _note_changed(db: StoreEngine, changed: dict[int, tuple[str, ...]]) -> None:
    """Note changed executions (the first notice of each stays) and their count in the meta."""
    noted = pd.DataFrame(
        {
            "execution_id": list(changed),
            "noticed_at": pd.Timestamp.now(tz=UTC),
            "what": [", ".join(parts) for parts in changed.values()],
        }
    )
    with db.staged(as_table(noted, "changed_executions")) as name:
        db.execute(with_staged(sql.insert_new_from_staged("changed_executions"), name))
    ids = [str(execution_id) for (execution_id,) in db.rows(sql.CHANGED_EXECUTIONS)]
    _set_meta(
        db,
        {
            CHANGED_EXECUTIONS: len(ids),
            CHANGED_EXECUTION_IDS: ",".join(ids[:LISTED_CHANGED_IDS]),
        },
    )


def _set_meta(db: StoreEngine, values: Mapping[str, str | int | datetime | None]) -> None:
    for key, value in values.items():
        text = value.isoformat() if isinstance(value, datetime) else value
        db.execute(sql.SET_META, {"key": key, "value": None if text is None else str(text)})
