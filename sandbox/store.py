"""Read access to the demo database, answering in response records.

One SQLite connection is shared by the server's worker threads, so every use of it holds a
lock; the small, never-changing tables (users, environments, names) are read once up front.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sandbox.data.demo_logs import LogSubject
from sandbox.data.generator import build_database
from sandbox.data.outcomes import (
    RESULT_ID_FACTOR,
    Behaviour,
    DerivedResult,
    EnvironmentTraits,
    Outcome,
    Timeline,
    derive_outcome,
)
from sandbox.data.result_details import (
    LOG_FILES,
    ResultDetails,
    log_folder,
    result_details,
    result_id_of_session,
    result_key,
)
from sandbox.schemas import (
    AlertRecord,
    EnvironmentRecord,
    ExecutionRecord,
    PlanRecord,
    ResultRecord,
    UserInfoRecord,
)
from sandbox.settings import SandboxSettings

# How many filters' counts of matches are kept (`DemoStore._count`).
COUNTS_KEPT = 256


@dataclass(frozen=True)
class ExecutionCriteria:
    """Filters of the list operation; None means "not filtered on"."""

    company_id: int
    project_id: int | None = None
    plan_id: int | None = None
    user_id: int | None = None
    status: str | None = None
    start_from_ms: int | None = None
    start_to_ms: int | None = None


@dataclass(frozen=True)
class StoredExecution:
    """What is needed to find an execution's results again."""

    id: int
    company_id: int
    project_id: int
    plan_id: int
    user_id: int
    start_ms: int
    environment_ids: tuple[int, ...]


class DemoStore:
    def __init__(self, connection: sqlite3.Connection, settings: SandboxSettings) -> None:
        self._connection = connection
        self._connection.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        self._counts: dict[ExecutionCriteria, int] = {}
        self._seed = settings.seed
        self._timeline = Timeline.ending_at(settings.now, settings.days)
        with self._lock:
            self._companies = {row[0] for row in connection.execute("SELECT id FROM companies")}
            self._project_names = dict(connection.execute("SELECT id, name FROM projects"))
            self._plan_names = dict(connection.execute("SELECT id, plan_name FROM plans"))
            self._users = {
                row["id"]: _user_info(row) for row in connection.execute("SELECT * FROM users")
            }
            environment_rows = connection.execute("SELECT * FROM environments").fetchall()
            self._setup_delays: dict[int, tuple[int, int]] = {
                row["plan_id"]: (row["from_ms"], row["extra_s"])
                for row in connection.execute("SELECT * FROM setup_delays")
            }
            self._failure_messages: dict[int, str] = dict(
                connection.execute("SELECT id, failure_message FROM scenarios")
            )
        self._environments = {row["id"]: _environment(row) for row in environment_rows}
        self._screen_resolutions = {row["id"]: row["screen_resolution"] for row in environment_rows}
        self._traits = {
            row["id"]: EnvironmentTraits(row["id"], row["operating_system"], row["browser_type"])
            for row in environment_rows
        }

    @classmethod
    def open(cls, settings: SandboxSettings) -> DemoStore:
        """Builds the demo data into `settings.db_path` (replacing what was there) and opens it."""
        # Worker threads share the connection; the store's lock serialises its use.
        connection = sqlite3.connect(settings.db_path, check_same_thread=False)
        connection.execute("PRAGMA synchronous = OFF")  # throwaway data: speed over durability
        build_database(connection, settings)
        return cls(connection, settings)

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def company_exists(self, company_id: int) -> bool:
        return company_id in self._companies

    def execution(self, execution_id: int) -> StoredExecution | None:
        with self._lock:
            row = self._connection.execute(
                "SELECT id, company_id, project_id, plan_id, user_id, start_ms, environment_ids"
                " FROM executions WHERE id = ?",
                (execution_id,),
            ).fetchone()
        if row is None:
            return None
        return StoredExecution(
            id=row["id"],
            company_id=row["company_id"],
            project_id=row["project_id"],
            plan_id=row["plan_id"],
            user_id=row["user_id"],
            start_ms=row["start_ms"],
            environment_ids=tuple(json.loads(row["environment_ids"])),
        )

    def example_result_ids(self, company_id: int) -> dict[str, int] | None:
        """`executionId` and `scenarioId` of a real result: the company's newest execution."""
        with self._lock:
            row = self._connection.execute(
                "SELECT e.id, ps.scenario_id FROM executions e"
                " JOIN plan_scenarios ps ON ps.plan_id = e.plan_id AND ps.position = 0"
                " WHERE e.company_id = ? ORDER BY e.start_ms DESC, e.id DESC LIMIT 1",
                (company_id,),
            ).fetchone()
        return None if row is None else {"executionId": row[0], "scenarioId": row[1]}

    def scenario_company(self, scenario_id: int) -> int | None:
        with self._lock:
            row = self._connection.execute(
                "SELECT company_id FROM scenarios WHERE id = ?", (scenario_id,)
            ).fetchone()
        return None if row is None else int(row[0])

    def outcome(self, execution: StoredExecution) -> Outcome:
        """All results of an execution, derived exactly as when its summary was stored."""
        with self._lock:
            scenario_rows = self._connection.execute(
                "SELECT s.* FROM plan_scenarios ps JOIN scenarios s ON s.id = ps.scenario_id"
                " WHERE ps.plan_id = ? ORDER BY ps.position",
                (execution.plan_id,),
            ).fetchall()
        delay_from_ms, extra_setup_s = self._setup_delays.get(execution.plan_id, (0, 0))
        return derive_outcome(
            seed=self._seed,
            timeline=self._timeline,
            execution_id=execution.id,
            start_ms=execution.start_ms,
            scenarios=[(row["id"], _behaviour(row)) for row in scenario_rows],
            environments=[self._traits[env_id] for env_id in execution.environment_ids],
            extra_setup_s=extra_setup_s if execution.start_ms >= delay_from_ms else 0,
        )

    def results(
        self, execution: StoredExecution, scenario_id: int, log_root: str
    ) -> list[ResultRecord]:
        """The results of one scenario in an execution (none if the plan lacks the scenario).

        `log_root` is where the caller reached this sandbox's logs; log paths start with it."""
        return self.execution_results(execution, log_root, scenario_id)

    def execution_results(
        self, execution: StoredExecution, log_root: str, scenario_id: int | None = None
    ) -> list[ResultRecord]:
        """Every result of an execution (or of one of its scenarios), derived once."""
        outcome = self.outcome(execution)
        with self._lock:
            plan = self._connection.execute(
                "SELECT screen_shot_type, video_enabled, performance_data_enabled"
                " FROM plans WHERE id = ?",
                (execution.plan_id,),
            ).fetchone()
        return [
            self._result_record(execution, plan, result, log_root)
            for result in outcome.results
            if scenario_id is None or result.scenario_id == scenario_id
        ]

    def log_subject(
        self, company_id: int, date_path: str, session_id: str, file_name: str, log_root: str
    ) -> LogSubject | None:
        """The result whose log is at `{log_root}/{company_id}/{date_path}/{session_id}/{file}`,
        or None unless that is exactly one of its two log paths."""
        result_id = result_id_of_session(self._seed, session_id)
        if result_id is None or file_name not in LOG_FILES:
            return None
        execution = self.execution(result_id // RESULT_ID_FACTOR)
        if execution is None or execution.company_id != company_id:
            return None
        results = self.outcome(execution).results
        index = result_id % RESULT_ID_FACTOR
        if index >= len(results):
            return None
        result = results[index]
        details = self._details(company_id, result, log_root)
        asked = f"{log_root}/{company_id}/{date_path}/{session_id}"
        if asked != log_folder(log_root, company_id, result.start_ms, details.session_id):
            return None
        environment = self._environments[result.environment_id]
        with self._lock:
            (scenario_name,) = self._connection.execute(
                "SELECT name FROM scenarios WHERE id = ?", (result.scenario_id,)
            ).fetchone()
        return LogSubject(
            seed=self._seed,
            result=result,
            details=details,
            company_id=company_id,
            execution_id=execution.id,
            plan_id=execution.plan_id,
            plan_name=self._plan_names[execution.plan_id],
            scenario_name=scenario_name,
            environment_name=environment.name,
            operating_system=environment.operating_system,
            browser_type=environment.browser_type,
            browser_version=environment.environment_version,
            screen_resolution=self._screen_resolutions[environment.id],
            mobile=environment.mobile,
        )

    def find_executions(
        self, criteria: ExecutionCriteria, offset: int, limit: int
    ) -> tuple[int, list[ExecutionRecord]]:
        """The number of matches and one page of them: newest first, ties by higher id first."""
        where, parameters = _where(criteria)
        with self._lock:
            total = self._count(criteria, where, parameters)
            rows = self._connection.execute(
                f"SELECT * FROM executions WHERE {where}"  # noqa: S608
                " ORDER BY start_ms DESC, id DESC LIMIT ? OFFSET ?",
                [*parameters, limit, offset],
            ).fetchall()
        return total, [self._execution_record(row) for row in rows]

    def find_executions_json(
        self, criteria: ExecutionCriteria, offset: int, limit: int
    ) -> tuple[int, bytes]:
        """`find_executions` with the page's records as one JSON array, worded by SQLite
        (`EXECUTION_JSON`): what the list operation serves. A walk of the 90 days at 100,000
        executions asks for 70,000 records; building and serialising a model of each was
        three quarters of the sandbox's work, and this is a quarter of that. The models stay
        the definition: tests/sandbox/test_execution_json.py checks every record of the demo
        data, byte for byte, against `find_executions`' models serialised."""
        where, parameters = _where(criteria)
        with self._lock:
            total = self._count(criteria, where, parameters)
            # The page's ids first (from the index), so only its own rows are worded.
            items = self._connection.execute(
                f"SELECT {EXECUTION_JSON} FROM ("  # noqa: S608
                f"SELECT id FROM executions WHERE {where}"
                " ORDER BY start_ms DESC, id DESC LIMIT ? OFFSET ?"
                ") AS page JOIN executions AS e ON e.id = page.id"
                " JOIN users AS u ON u.id = e.user_id"
                " JOIN projects AS pr ON pr.id = e.project_id"
                " JOIN plans AS pl ON pl.id = e.plan_id"
                " ORDER BY e.start_ms DESC, e.id DESC",
                [*parameters, limit, offset],
            ).fetchall()
        return total, ("[" + ",".join(item for (item,) in items) + "]").encode()

    def _count(self, criteria: ExecutionCriteria, where: str, parameters: list[object]) -> int:
        """The number of executions matching; the caller holds the lock. The demo data never
        changes once built, so each filter is counted once: a walk asks with every page."""
        total = self._counts.get(criteria)
        if total is None:
            (total,) = self._connection.execute(
                f"SELECT COUNT(*) FROM executions WHERE {where}",  # noqa: S608
                parameters,
            ).fetchone()
            self._counts[criteria] = total
            while len(self._counts) > COUNTS_KEPT:  # bounded, for clients that vary windows
                del self._counts[next(iter(self._counts))]  # the oldest
        return int(total)

    def plans(self, company_id: int, project_id: int | None, active_only: bool) -> list[PlanRecord]:
        """A company's plans by id; "active" means enabled, in an enabled project."""
        conditions = ["p.company_id = ?"]
        parameters: list[object] = [company_id]
        if project_id is not None:
            conditions.append("p.project_id = ?")
            parameters.append(project_id)
        if active_only:
            conditions.append("p.enabled = 1 AND pr.enabled = 1")
        where = " AND ".join(conditions)  # fixed fragments only, as in `_where`
        with self._lock:
            plan_rows = self._connection.execute(
                "SELECT p.*, pr.name AS project_name, pr.enabled AS project_enabled"  # noqa: S608
                f" FROM plans p JOIN projects pr ON pr.id = p.project_id WHERE {where}"
                " ORDER BY p.id",
                parameters,
            ).fetchall()
            scenario_rows = self._connection.execute(
                "SELECT ps.plan_id, ps.scenario_id FROM plan_scenarios ps"
                " JOIN plans p ON p.id = ps.plan_id WHERE p.company_id = ?"
                " ORDER BY ps.plan_id, ps.position",
                (company_id,),
            ).fetchall()
            alert_rows = self._connection.execute(
                "SELECT a.* FROM alerts a JOIN plans p ON p.id = a.plan_id"
                " WHERE p.company_id = ? ORDER BY a.plan_id, a.position",
                (company_id,),
            ).fetchall()
        scenarios: dict[int, list[int]] = {}
        for row in scenario_rows:
            scenarios.setdefault(row["plan_id"], []).append(row["scenario_id"])
        alerts: dict[int, list[AlertRecord]] = {}
        for row in alert_rows:
            alerts.setdefault(row["plan_id"], []).append(_alert(row))
        return [
            _plan(row, scenarios.get(row["id"], []), alerts.get(row["id"], [])) for row in plan_rows
        ]

    def _details(self, company_id: int, result: DerivedResult, log_root: str) -> ResultDetails:
        template = self._failure_messages.get(result.scenario_id, "")
        return result_details(self._seed, company_id, result, log_root, template)

    def _execution_record(self, row: sqlite3.Row) -> ExecutionRecord:
        user = self._users[row["user_id"]]
        return ExecutionRecord(
            id=row["id"],
            user_id=row["user_id"],
            username=user.username,
            company_id=row["company_id"],
            project_id=row["project_id"],
            project_name=self._project_names[row["project_id"]],
            plan_id=row["plan_id"],
            plan_name=self._plan_names[row["plan_id"]],
            test_results=json.loads(row["test_results"]),
            runtime=row["runtime_ms"],
            result_summary=json.loads(row["result_summary"]),
            start_date=_utc(row["start_ms"]),
            end_date=_utc(row["end_ms"]),
            test_result_status_counts=row["status_counts"],
        )

    def _result_record(
        self, execution: StoredExecution, plan: sqlite3.Row, result: DerivedResult, log_root: str
    ) -> ResultRecord:
        environment = self._environments[result.environment_id]
        details = self._details(execution.company_id, result, log_root)
        return ResultRecord(
            id=result.id,
            level=result.level.value,
            runtime=result.runtime_s,
            environment=environment,
            session_id=details.session_id,
            message=details.message,
            screenshots_enabled=plan["screen_shot_type"] != "NO",
            screen_shot_type="NO" if plan["screen_shot_type"] == "NO" else "FULL",
            video_enabled=bool(plan["video_enabled"]),
            performance_data_enabled=bool(plan["performance_data_enabled"]),
            test_key=result_key(
                company_id=execution.company_id,
                plan_id=execution.plan_id,
                execution_id=execution.id,
                scenario_id=result.scenario_id,
                environment_id=environment.id,
                operating_system=environment.operating_system,
                browser_type=environment.browser_type,
                version=environment.environment_version,
                mobile=environment.mobile,
            ),
            video_format="FLV",
            node_log_path=details.node_log_path,
            executor_log_path=details.executor_log_path,
            screen_resolution=self._screen_resolutions[environment.id],
            user_id=execution.user_id,
            project_id=execution.project_id,
            plan_id=execution.plan_id,
            scenario_id=result.scenario_id,
            execution_id=execution.id,
            company_id=execution.company_id,
            user_info=self._users[execution.user_id],
            start_date=_utc(result.start_ms),
        )


def _where(criteria: ExecutionCriteria) -> tuple[str, list[object]]:
    """The SQL condition of the list operation's filters, with its parameters."""
    conditions = ["company_id = ?"]
    parameters: list[object] = [criteria.company_id]
    for column, value in (
        ("project_id", criteria.project_id),
        ("plan_id", criteria.plan_id),
        ("user_id", criteria.user_id),
        ("status", criteria.status),
    ):
        if value is not None:
            conditions.append(f"{column} = ?")
            parameters.append(value)
    if criteria.start_from_ms is not None:
        conditions.append("start_ms >= ?")
        parameters.append(criteria.start_from_ms)
    if criteria.start_to_ms is not None:
        conditions.append("start_ms <= ?")
        parameters.append(criteria.start_to_ms)
    # Only fixed column names are formatted into SQL; every value is a bound parameter.
    return " AND ".join(conditions), parameters


def _utc_text_sql(column: str) -> str:
    """SQL wording a column of Unix milliseconds (after 1970) as pydantic words the UTC
    datetime `_utc` makes of it: no fraction on a whole second, else six digits; then "Z"."""
    return (
        f"CASE WHEN {column} % 1000 = 0"
        f" THEN strftime('%Y-%m-%dT%H:%M:%SZ', {column} / 1000, 'unixepoch')"
        f" ELSE strftime('%Y-%m-%dT%H:%M:%S', {column} / 1000, 'unixepoch')"
        f" || printf('.%03d000Z', {column} % 1000) END"
    )


# Where each field of `ExecutionRecord` comes from, for `find_executions_json` (e: executions,
# u: users, pr: projects, pl: plans). Its keys must be the model's fields in the model's order
# (checked below): the model is the one definition of the record.
_EXECUTION_JSON_FIELDS = {
    "id": "e.id",
    "user_id": "e.user_id",
    "username": "u.username",
    "company_id": "e.company_id",
    "project_id": "e.project_id",
    "project_name": "pr.name",
    "plan_id": "e.plan_id",
    "plan_name": "pl.plan_name",
    "test_results": "json(e.test_results)",
    "runtime": "e.runtime_ms",
    "result_summary": "json(e.result_summary)",
    "start_date": _utc_text_sql("e.start_ms"),
    "end_date": _utc_text_sql("e.end_ms"),
    "test_result_status_counts": "e.status_counts",
}
if list(_EXECUTION_JSON_FIELDS) != list(ExecutionRecord.model_fields):
    raise RuntimeError("_EXECUTION_JSON_FIELDS must name ExecutionRecord's fields, in order")
EXECUTION_JSON = (
    "json_object("
    + ", ".join(f"'{name}', {sql}" for name, sql in _EXECUTION_JSON_FIELDS.items())
    + ")"
)


def _utc(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def _behaviour(row: sqlite3.Row) -> Behaviour:
    return Behaviour(
        base_runtime_s=row["base_runtime_s"],
        fail_rate=row["fail_rate"],
        focus_fail_rate=row["focus_fail_rate"],
        fail_from=row["fail_from"],
        fail_until=row["fail_until"],
        fails_on=row["fails_on"],
        slowdown=row["slowdown"],
        fail_windows=tuple((start, until) for start, until in json.loads(row["fail_windows"])),
        step_from_ms=row["step_from_ms"],
        step_factor=row["step_factor"],
        failure_level=row["failure_level"],
    )


def _environment(row: sqlite3.Row) -> EnvironmentRecord:
    return EnvironmentRecord(
        id=row["id"],
        name=row["name"],
        operating_system=row["operating_system"],
        browser_type=row["browser_type"],
        environment_type=row["environment_type"],
        environment_version=row["environment_version"],
        enabled=bool(row["enabled"]),
        operating_system_clean_name=row["operating_system_clean_name"],
        mobile=bool(row["mobile"]),
    )


def _user_info(row: sqlite3.Row) -> UserInfoRecord:
    return UserInfoRecord(
        id=row["id"],
        name=row["name"],
        surname=row["surname"],
        username=row["username"],
        email=row["email"],
        enabled=True,
        account_non_expired=True,
        account_non_locked=True,
        credential_non_expired=True,
        language=row["language"],
        time_zone=row["time_zone"],
        company=row["company_name"],
        company_id=row["company_id"],
        current_company=row["company_name"],
        current_company_id=row["company_id"],
        roles=json.loads(row["roles"]),
        access_token=row["access_token"],
    )


def _alert(row: sqlite3.Row) -> AlertRecord:
    return AlertRecord(
        alert_type=row["alert_type"],
        alert_sending_status=row["alert_sending_status"],
        target=row["target"],
        plan_id=row["plan_id"],
        enabled=bool(row["enabled"]),
        unsubscribe_link_eliminated=bool(row["unsubscribe_link_eliminated"]),
    )


def _optional_bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _plan(row: sqlite3.Row, scenarios: list[int], alerts: list[AlertRecord]) -> PlanRecord:
    updated_ms = row["updated_at_ms"]
    return PlanRecord(
        id=row["id"],
        type=row["type"],
        project_id=row["project_id"],
        project_name=row["project_name"],
        company_id=row["company_id"],
        plan_name=row["plan_name"],
        scenarios=scenarios,
        alerts=alerts,
        enabled=bool(row["enabled"]),
        group_plan=bool(row["group_plan"]),
        plan_parallel_test_limit=row["plan_parallel_test_limit"],
        failed_test_retry_count=row["failed_test_retry_count"],
        alerts_enabled_result=bool(row["alerts_enabled_result"]),
        project_enabled=bool(row["project_enabled"]),
        test_run_type=row["test_run_type"],
        created_at=_utc(row["created_at_ms"]),
        updated_at=None if updated_ms is None else _utc(updated_ms),
        created_by=row["created_by"],
        updated_by=row["updated_by"],
        tracker_enabled=bool(row["tracker_enabled"]),
        screen_shot_type=row["screen_shot_type"],
        video_enabled=bool(row["video_enabled"]),
        test_plan_java_parameters=json.loads(row["java_parameters"]),
        performance_data_enabled=_optional_bool(row["performance_data_enabled"]),
        file_download_path=row["file_download_path"],
        clear_app_data=_optional_bool(row["clear_app_data"]),
        uninstall_app_after_test=_optional_bool(row["uninstall_app_after_test"]),
    )
