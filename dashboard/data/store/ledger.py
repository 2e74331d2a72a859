"""The known-failure ledger in the history store: a company's marks and their change log.

Unlike the history beside it, the ledger is not a copy of what the service holds: it is what a
team knows, written here only. So `clear` keeps it, and every change goes through
`store.marks`' checks and into the append-only log (who, when, what changed) in the same
transaction as the change itself. A mark is closed, never deleted.

Several processes write at once (dashboard processes and scripts on one PostgreSQL schema, or
in turn on one DuckDB file): a new mark has an id of its own, and a change lands only on the
revision it was made from (`store.sql_marks`), read again and retried when another process
changed the mark meanwhile, so no mark and no log entry is lost or written over.

Every call names the company: a store holds one company's history, and a mark another company
made is not found here, whatever its id.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

import pandas as pd

from dashboard.analytics.verdicts import FAILING_STATUSES
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS, MARK_LOG_COLUMNS
from dashboard.columns.schemas import ENVIRONMENT
from dashboard.columns.shapes import empty
from dashboard.data.store import sql_marks
from dashboard.data.store.engine import StoreEngine
from dashboard.data.store.lease import StoreLease
from dashboard.data.store.marks import (
    MarkChange,
    MarkDraft,
    MarkNotFound,
    MarkRefused,
    MarkTarget,
    author_problem,
    change_problems,
    cleaned,
    draft_problems,
    draft_row,
    is_mark_id,
    new_mark_id,
    utc_day,
)
from dashboard.data.store.stored_marks import MarksRead, read_rows

ATTEMPTS = 20
"""How often a change is read again and retried while other processes keep changing the mark
(each retry follows a change that landed: this bounds a pathological race, never a normal one)."""


@dataclass(frozen=True, eq=False)
class StoredTarget:
    """What the store holds of a mark's target, for checking that a script names a real one:
    whether its plan, its scenario (in that plan) and its execution are stored, the
    environments its scenario ran on (the result columns that name one; for a failure group of
    one environment, those the stored failures of its plan, or of every plan, ran on), and the
    messages of the stored failures (of its plan, or of every plan)."""

    plan: bool
    scenario: bool
    execution: bool
    environments: pd.DataFrame
    messages: tuple[str, ...]


@dataclass(frozen=True)
class ImportReport:
    """What an import did: marks added, and marks skipped because the ledger holds them."""

    added: int
    skipped: int


class LedgerStore(StoreLease):
    """The ledger's reads and writes (see the module); `HistoryStore` has them."""

    # -- reading ---------------------------------------------------------------------------------

    def marks(self, company_id: int) -> pd.DataFrame:
        """Every well-formed mark of the company, open and closed, oldest first (MARK_COLUMNS):
        a malformed one is never among them (`read_marks` says which were left out)."""
        return self.read_marks(company_id).marks

    def read_marks(self, company_id: int) -> MarksRead:
        """The company's marks, each row checked on its own (`store.stored_marks`): one that
        cannot be read as a mark is kept apart, never applied, and takes no other down."""
        with self._lease() as db:
            rows = db.rows(sql_marks.MARKS_OF_COMPANY_AS_STORED, {"company_id": company_id})
        return read_rows(rows)

    def mark_log(self, company_id: int) -> pd.DataFrame:
        """Every change of the company's marks, by mark and revision (MARK_LOG_COLUMNS)."""
        with self._lease() as db:
            return db.frame(sql_marks.LOG_OF_COMPANY, MARK_LOG_COLUMNS, {"company_id": company_id})

    def mark_counts(self) -> tuple[int, int]:
        """(marks, open marks) the store holds."""
        with self._lease() as db:
            rows = db.rows(sql_marks.COUNT_MARKS)
        return (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)

    def stored_target(self, target: MarkTarget) -> StoredTarget:
        """What the store holds of `target` (`StoredTarget`); only what the target names is
        looked up."""
        plan, scenario = target.plan_id, target.scenario_id
        with self._lease() as db:
            has_plan = plan is not None and bool(
                db.scalar(sql_marks.PLAN_STORED, {"plan_id": plan})
            )
            pair = {"plan_id": plan, "scenario_id": scenario}
            has_scenario = (
                plan is not None
                and scenario is not None
                and bool(db.scalar(sql_marks.SCENARIO_STORED, pair))
            )
            environments = (
                db.frame(sql_marks.ENVIRONMENTS_OF_SCENARIO, ENVIRONMENT, pair)
                if has_scenario and target.target == columns.SCENARIO_ENVIRONMENT
                else empty(ENVIRONMENT)
            )
            if target.target == columns.FAILURE_GROUP and target.environment is not None:
                environments = db.frame(
                    _failed_environments(plan is not None),
                    ENVIRONMENT,
                    {"plan_id": plan} if plan is not None else None,
                )
            has_execution = target.execution_id is not None and bool(
                db.scalar(sql_marks.EXECUTION_STORED, {"execution_id": target.execution_id})
            )
            messages: tuple[str, ...] = ()
            if target.target == columns.FAILURE_GROUP:
                statement = sql_marks.failed_messages(FAILING_STATUSES, of_plan=plan is not None)
                rows = db.rows(statement, {"plan_id": plan} if plan is not None else None)
                messages = tuple("" if m is None else str(m) for (m,) in rows)
        return StoredTarget(has_plan, has_scenario, has_execution, environments, messages)

    # -- writing ---------------------------------------------------------------------------------

    def add_mark(
        self, company_id: int, draft: MarkDraft, *, by: str, now: datetime | None = None
    ) -> str:
        """Write a new mark of the company and its "created" log entry; returns its id.
        `MarkRefused` names every problem of the draft (nothing is written)."""
        at = _now(now)
        problems = draft_problems(draft, by=by, today=at.date())
        if problems:
            raise MarkRefused(problems)
        mark_id = new_mark_id(uuid.uuid4().hex)
        row = {
            **draft_row(draft),
            "mark_id": mark_id,
            "company_id": company_id,
            "created_by": by.strip(),
            "created_at": at,
            "updated_at": at,
            "closed_by": None,
            "closed_at": None,
            "revision": 1,
        }
        with self._write() as db:
            db.execute(sql_marks.INSERT_MARK, row)
            _log(db, mark_id, 1, at, by, columns.CREATED, describe(row))
        return mark_id

    def change_mark(
        self,
        company_id: int,
        mark_id: str,
        change: MarkChange,
        *,
        by: str,
        now: datetime | None = None,
    ) -> int:
        """Give an open mark of the company new values (`MarkChange`) and log what changed;
        returns its new revision (its old one when nothing changed: no entry is logged)."""
        at = _now(now)
        for _ in range(ATTEMPTS):
            with self._write() as db:
                current = self._open_mark(db, company_id, mark_id)
                was = _day(current["expires_on"])
                problems = change_problems(
                    change, target=current["target"], by=by, today=at.date(), expiry_was=was
                )
                if problems:
                    raise MarkRefused(problems)
                new = {
                    "kind": change.kind,
                    "ticket": cleaned(change.ticket),
                    "note": cleaned(change.note),
                    "owner": cleaned(change.owner),
                    "expires_on": utc_day(change.expires_on),
                }
                what = _differences(current, new)
                if not what:
                    return int(current["revision"])
                landed = db.rows(
                    sql_marks.CHANGE_MARK,
                    {
                        **new,
                        "at": at,
                        "company_id": company_id,
                        "mark_id": mark_id,
                        "revision": int(current["revision"]),
                    },
                )
                if landed:
                    revision = int(landed[0][0])
                    _log(db, mark_id, revision, at, by, columns.CHANGED, what)
                    return revision
        raise _still_changing(mark_id)

    def close_mark(
        self,
        company_id: int,
        mark_id: str,
        *,
        by: str,
        reason: str | None = None,
        now: datetime | None = None,
    ) -> int:
        """Close an open mark of the company (it is kept, and stops applying); returns its new
        revision. `reason` ("looks fixed: ...") goes into the log entry."""
        at = _now(now)
        problem = author_problem(by)
        if problem:
            raise MarkRefused([problem])
        for _ in range(ATTEMPTS):
            with self._write() as db:
                current = self._open_mark(db, company_id, mark_id)
                landed = db.rows(
                    sql_marks.CLOSE_MARK,
                    {
                        "by": by.strip(),
                        "at": at,
                        "company_id": company_id,
                        "mark_id": mark_id,
                        "revision": int(current["revision"]),
                    },
                )
                if landed:
                    revision = int(landed[0][0])
                    what = "closed" + (f": {reason}" if reason else "")
                    _log(db, mark_id, revision, at, by, columns.CLOSED, what)
                    return revision
        raise _still_changing(mark_id)

    def import_marks(
        self,
        company_id: int,
        records: Sequence[Mapping[str, Any]],
        log: Sequence[Mapping[str, Any]] = (),
        *,
        by: str,
        now: datetime | None = None,
    ) -> ImportReport:
        """Add the marks of `records` (MARK_COLUMNS names, Python values) with their `log`
        entries, in one transaction; `MarkRefused` names every row that cannot be imported (and
        nothing is).

        A record with a mark id restores a mark as it was (an export of this or another store):
        it is skipped when the ledger holds that id already; its log entries come with it, and
        one "imported" entry is added. A record without an id is a new mark (from a tracker),
        checked as `add_mark` checks one.
        """
        at = _now(now)
        problems: list[str] = []
        author = author_problem(by)
        if author:
            raise MarkRefused([author])
        rows: list[dict[str, Any]] = []
        for number, record in enumerate(records, start=1):
            row, row_problems = _imported_row(record, company_id, by, at)
            problems.extend(f"Row {number}: {p}" for p in row_problems)
            if row is not None:
                rows.append(row)
        ids = [r["mark_id"] for r in rows]
        if len(set(ids)) != len(ids):
            problems.append("The same mark id is given more than once.")
        if problems:
            raise MarkRefused(problems)
        entries = _log_by_mark(log)
        added = skipped = 0
        with self._write() as db:
            held = {
                str(i)
                for (i,) in db.rows(sql_marks.MARK_IDS_OF_COMPANY, {"company_id": company_id})
            }
            for row in rows:
                if row["mark_id"] in held:
                    skipped += 1
                    continue
                if db.rows(sql_marks.OTHER_COMPANYS_MARK, {"mark_id": row["mark_id"]}):
                    raise MarkRefused(
                        [f"Mark {row['mark_id']} is another company's: nothing was imported."]
                    )
                kept = sorted(entries.get(row["mark_id"], []), key=lambda e: e["revision"])
                revision = (kept[-1]["revision"] if kept else 0) + 1
                db.execute(sql_marks.INSERT_MARK, {**row, "revision": revision})
                for entry in kept:
                    _log(
                        db,
                        row["mark_id"],
                        entry["revision"],
                        entry["at"],
                        entry["actor"],
                        entry["action"],
                        entry["what"],
                    )
                what = "imported" + ("" if kept else f": {describe(row)}")
                _log(db, row["mark_id"], revision, at, by, columns.IMPORTED, what)
                added += 1
        return ImportReport(added=added, skipped=skipped)

    def _open_mark(self, db: StoreEngine, company_id: int, mark_id: str) -> dict[str, Any]:
        """The company's mark `mark_id` as stored; `MarkNotFound` or `MarkRefused` (closed)."""
        current = _one(db, company_id, mark_id)
        if current["closed_at"] is not None and not pd.isna(current["closed_at"]):
            when = pd.Timestamp(current["closed_at"])
            raise MarkRefused(
                [f"Mark {mark_id} was closed by {current['closed_by']} on {when:%d %b %Y}."]
            )
        return current


def _failed_environments(of_plan: bool) -> str:
    """The distinct environments (ENVIRONMENT's columns) of the stored failed results, of one
    plan (`:plan_id`) or all."""
    # Nothing of a caller's in it: the levels are the verdict rule's fixed upper-case words
    # (`sql_marks.levels` refuses any other), the plan a bound parameter.
    levels = sql_marks.levels(FAILING_STATUSES)
    where = " AND plan_id = :plan_id" if of_plan else ""
    select = "SELECT DISTINCT os, browser, browser_version, device, mobile FROM results"
    return f"{select} WHERE UPPER(TRIM(level)) IN ({levels}){where}"


def _now(now: datetime | None) -> datetime:
    at = now or datetime.now(UTC)
    if at.tzinfo is None:
        raise ValueError("a mark's time must be timezone-aware")
    return at.astimezone(UTC)


def _one(db: StoreEngine, company_id: int, mark_id: str) -> dict[str, Any]:
    if not is_mark_id(str(mark_id)):
        raise MarkNotFound([f"{str(mark_id)[:40]!r} is not a mark id (twelve hex digits)."])
    found = db.frame(
        sql_marks.MARK_OF_COMPANY, MARK_COLUMNS, {"company_id": company_id, "mark_id": mark_id}
    )
    if found.empty:
        raise MarkNotFound([f"There is no mark {mark_id} in company {company_id}'s ledger."])
    return {k: (None if _missing(v) else v) for k, v in found.iloc[0].to_dict().items()}


def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _day(value: Any) -> date | None:
    return None if value is None else pd.Timestamp(value).date()


def _log(
    db: StoreEngine, mark_id: str, revision: int, at: Any, actor: str, action: str, what: str
) -> None:
    db.execute(
        sql_marks.INSERT_LOG,
        {
            "mark_id": mark_id,
            "revision": int(revision),
            "at": at,
            "actor": str(actor).strip(),
            "action": action,
            "what": what,
        },
    )


def _still_changing(mark_id: str) -> MarkRefused:
    return MarkRefused(
        [f"Mark {mark_id} kept changing under other writers; nothing was changed. Try again."]
    )


_LABELS = {"ticket": "ticket", "owner": "owner", "kind": "kind", "expires_on": "expiry"}


def _shown(name: str, value: Any) -> str:
    if value is None or _missing(value):
        return "(none)"
    if name == "expires_on":
        return f"{pd.Timestamp(value):%Y-%m-%d}"
    if name == "kind":
        return str(value).replace("_", " ")
    return str(value)


def _differences(current: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """What a change changes, in words; "" when nothing."""
    parts = []
    for name, value in new.items():
        before = current.get(name)
        same = (
            _day(before) == _day(value)
            if name == "expires_on"
            else (before or None) == (value or None)
        )
        if same:
            continue
        if name == "note":
            parts.append(
                "note changed" if before and value else f"note {'added' if value else 'removed'}"
            )
        else:
            parts.append(f"{_LABELS[name]}: {_shown(name, before)} -> {_shown(name, value)}")
    return "; ".join(parts)


def describe_target(row: Mapping[str, Any]) -> str:
    """A mark's target in words, for its log: "scenario 31 of plan 7 on SAFARI 17 / macOS"."""
    target = row.get("target")
    plan = row.get("plan_id")
    if target == columns.FAILURE_GROUP:
        scope = f" of plan {int(plan)}" if plan is not None and not _missing(plan) else ""
        environment = _text(row.get("environment"))
        scope += f" on {environment}" if environment else ""
        return (
            f'failure group "{row.get("signature") or "(no message)"}"{scope or " of every plan"}'
        )
    if target == columns.EXECUTION:
        return f"execution {row.get('execution_id')}"
    where = f" on {row.get('environment')}" if target == columns.SCENARIO_ENVIRONMENT else ""
    return f"scenario {row.get('scenario_id')} of plan {plan}{where}"


def describe(row: Mapping[str, Any]) -> str:
    """A new mark in words, for its "created" log entry."""
    parts = [f"{_shown('kind', row.get('kind'))}: {describe_target(row)}"]
    for name in ("ticket", "owner", "expires_on"):
        if row.get(name) is not None:
            parts.append(f"{_LABELS[name]} {_shown(name, row.get(name))}")
    if row.get("note"):
        parts.append("with a note")
    return "; ".join(parts)


def _log_by_mark(log: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for entry in log:
        out.setdefault(str(entry["mark_id"]), []).append(dict(entry))
    return out


def _imported_row(
    record: Mapping[str, Any], company_id: int, by: str, at: datetime
) -> tuple[dict[str, Any] | None, list[str]]:
    """A record to import as the row to insert (without its revision), or its problems."""
    given_company = record.get("company_id")
    if (
        given_company is not None
        and not _missing(given_company)
        and int(given_company) != company_id
    ):
        return None, [
            f"it is a mark of company {int(given_company)}; this ledger is company {company_id}'s."
        ]
    mark_id = cleaned(_text(record.get("mark_id")))
    if mark_id is not None and not is_mark_id(mark_id):
        return None, [f"{mark_id[:40]!r} is not a mark id (twelve hex digits)."]
    try:
        return _checked_row(record, mark_id, company_id, by, at)
    except (TypeError, ValueError) as error:
        return None, [f"a value cannot be read ({error})."]


def _checked_row(
    record: Mapping[str, Any], mark_id: str | None, company_id: int, by: str, at: datetime
) -> tuple[dict[str, Any] | None, list[str]]:
    target = MarkTarget(
        target=str(_text(record.get("target")) or ""),
        signature=_text(record.get("signature")),
        plan_id=_int(record.get("plan_id")),
        scenario_id=_int(record.get("scenario_id")),
        environment=_text(record.get("environment")),
        execution_id=_int(record.get("execution_id")),
    )
    expires = record.get("expires_on")
    draft = MarkDraft(
        target=target,
        kind=str(_text(record.get("kind")) or ""),
        ticket=_text(record.get("ticket")),
        note=_text(record.get("note")),
        owner=_text(record.get("owner")),
        expires_on=None if expires is None or _missing(expires) else pd.Timestamp(expires).date(),
    )
    created_by = cleaned(_text(record.get("created_by"))) or by
    # A restored mark keeps its expiry even once it has passed; a new one is checked as any.
    today = date.min if mark_id is not None else at.date()
    problems = draft_problems(draft, by=created_by, today=today)
    if problems:
        return None, problems
    created_at = _time(record.get("created_at")) or at
    closed_at = _time(record.get("closed_at"))
    return {
        **draft_row(draft),
        "mark_id": mark_id or new_mark_id(uuid.uuid4().hex),
        "company_id": company_id,
        "created_by": created_by,
        "created_at": created_at,
        "updated_at": _time(record.get("updated_at")) or created_at,
        "closed_by": (cleaned(_text(record.get("closed_by"))) or by) if closed_at else None,
        "closed_at": closed_at,
    }, []


def _text(value: Any) -> str | None:
    if value is None or _missing(value):
        return None
    return str(value)


def _int(value: Any) -> int | None:
    if value is None or _missing(value) or value == "":
        return None
    return int(value)


def _time(value: Any) -> datetime | None:
    if value is None or _missing(value) or value == "":
        return None
    stamp = pd.Timestamp(value)
    stamp = stamp.tz_localize(UTC) if stamp.tzinfo is None else stamp.tz_convert(UTC)
    return stamp.to_pydatetime()
