"""Pydantic models of the service's resources (spec sections 2.1-2.6).

Attribute names equal the JSON field names. The models are lenient by default, because the real
service's enumerations and optional fields are not fully documented: unknown fields are ignored,
enumeration-like fields are plain strings (an unknown status is kept as itself), and every field a
record can plausibly lack is optional. Only what identifies a record is required.

Strict mode (`context={"strict": True}`, used by the contract tests) additionally requires every
field the spec always sends and rejects fields it does not name, so drift is caught.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Generic, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PrivateAttr,
    SecretStr,
    ValidationInfo,
    model_validator,
)


def _as_utc(value: datetime) -> datetime:
    # The spec says timestamps are UTC; a value without an offset is read as UTC, not local time.
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _none_as_empty_list(value: Any) -> Any:
    return [] if value is None else value


def _none_as_empty_dict(value: Any) -> Any:
    return {} if value is None else value


UtcDatetime = Annotated[datetime, AfterValidator(_as_utc)]
"""An aware datetime in UTC."""

IdList = Annotated[list[int], BeforeValidator(_none_as_empty_list)]


class ApiModel(BaseModel):
    """Base of every resource model: lenient by default, strict on request."""

    model_config = ConfigDict(
        extra="ignore",
        frozen=True,
        # A version like 134 sent as a number is still the string "134".
        coerce_numbers_to_str=True,
    )

    # Fields the spec says may be absent; in strict mode every other field must be present.
    SPEC_OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _check_strict_shape(cls, data: Any, info: ValidationInfo) -> Any:
        if not (info.context or {}).get("strict") or not isinstance(data, dict):
            return data
        known = set(cls.model_fields)
        unknown = sorted(set(data) - known)
        missing = sorted(known - cls.SPEC_OPTIONAL - set(data))
        if unknown or missing:
            raise ValueError(
                f"{cls.__name__} does not match the spec: "
                f"unknown fields {unknown}, missing fields {missing}"
            )
        return data


class Environment(ApiModel):
    """Where a test ran (spec 2.2)."""

    id: int | None = None
    name: str | None = None
    operating_system: str | None = None
    browser_type: str | None = None
    environment_type: str | None = None
    environment_version: str | None = None
    enabled: bool | None = None
    operating_system_clean_name: str | None = None
    mobile: bool | None = None


class UserInfo(ApiModel):
    """The user who started a test (spec 2.3). `access_token` is another user's credential."""

    id: int | None = None
    name: str | None = None
    surname: str | None = None
    username: str | None = None
    email: str | None = None
    enabled: bool | None = None
    account_non_expired: bool | None = None
    account_non_locked: bool | None = None
    credential_non_expired: bool | None = None
    language: str | None = None
    time_zone: str | None = None
    company: str | None = None
    company_id: int | None = None
    current_company: str | None = None
    current_company_id: int | None = None
    roles: Annotated[list[str], BeforeValidator(_none_as_empty_list)] = []
    # SecretStr: shown as '**********' in repr, str and model_dump(); only
    # `.get_secret_value()` reveals it, and nothing in this project calls that.
    access_token: SecretStr | None = None

    def __getstate__(self) -> dict[Any, Any]:
        # A pickle (a cache on disk, a copy sent to another process) never carries the
        # credential in clear: it is dropped, and the unpickled copy has none.
        state = super().__getstate__()
        state["__dict__"] = {**state["__dict__"], "access_token": None}
        return state


class TestResult(ApiModel):
    """One result of one scenario in one execution, on one environment (spec 2.1)."""

    __test__: ClassVar[bool] = False  # not a pytest test class, despite its name

    SPEC_OPTIONAL = frozenset({"message"})

    id: int
    level: str
    runtime: int | None = None
    """Duration in seconds (the execution's `runtime` is in milliseconds)."""
    environment: Environment | None = None
    session_id: str | None = None
    message: str | None = None
    screenshots_enabled: bool | None = None
    screen_shot_type: str | None = None
    video_enabled: bool | None = None
    performance_data_enabled: bool | None = None
    test_key: str | None = None
    video_format: str | None = None
    node_log_path: str | None = None
    executor_log_path: str | None = None
    screen_resolution: str | None = None
    user_id: int | None = None
    project_id: int | None = None
    plan_id: int | None = None
    scenario_id: int | None = None
    execution_id: int | None = None
    company_id: int | None = None
    user_info: UserInfo | None = None
    start_date: UtcDatetime | None = None

    @property
    def duration(self) -> timedelta | None:
        return None if self.runtime is None else timedelta(seconds=self.runtime)


class Execution(ApiModel):
    """One run of a test plan (spec 2.4)."""

    id: int
    user_id: int | None = None
    username: str | None = None
    company_id: int | None = None
    project_id: int | None = None
    project_name: str | None = None
    plan_id: int | None = None
    plan_name: str | None = None
    test_results: IdList = []
    runtime: int | None = None
    """Duration in milliseconds (a result's `runtime` is in seconds)."""
    result_summary: Annotated[dict[str, int], BeforeValidator(_none_as_empty_dict)] = {}
    start_date: UtcDatetime | None = None
    end_date: UtcDatetime | None = None
    test_result_status_counts: str | None = None

    @property
    def duration(self) -> timedelta | None:
        return None if self.runtime is None else timedelta(milliseconds=self.runtime)


class Alert(ApiModel):
    """An alert setting of a plan (spec 2.6)."""

    alert_type: str | None = None
    alert_sending_status: str | None = None
    target: str | None = None
    plan_id: int | None = None
    enabled: bool | None = None
    unsubscribe_link_eliminated: bool | None = None


class TestPlan(ApiModel):
    """A test plan of the caller's company (spec 2.6)."""

    __test__: ClassVar[bool] = False

    SPEC_OPTIONAL = frozenset(
        {
            "updated_at",
            "performance_data_enabled",
            "file_download_path",
            "clear_app_data",
            "uninstall_app_after_test",
        }
    )

    id: int
    type: str | None = None
    project_id: int | None = None
    project_name: str | None = None
    company_id: int | None = None
    plan_name: str | None = None
    scenarios: IdList = []
    alerts: Annotated[list[Alert], BeforeValidator(_none_as_empty_list)] = []
    enabled: bool | None = None
    group_plan: bool | None = None
    plan_parallel_test_limit: int | None = None
    failed_test_retry_count: int | None = None
    alerts_enabled_result: bool | None = None
    project_enabled: bool | None = None
    test_run_type: str | None = None
    created_at: UtcDatetime | None = None
    updated_at: UtcDatetime | None = None
    created_by: str | None = None
    updated_by: str | None = None
    tracker_enabled: bool | None = None
    screen_shot_type: str | None = None
    video_enabled: bool | None = None
    test_plan_java_parameters: Annotated[list[Any], BeforeValidator(_none_as_empty_list)] = []
    performance_data_enabled: bool | None = None
    file_download_path: str | None = None
    clear_app_data: bool | None = None
    uninstall_app_after_test: bool | None = None


class SkippedRecord(BaseModel):
    """A record of a response that did not fit its model and was left out.

    `reason` names the fields and what was wrong with them, never their values, so it is safe
    to show and log even when the record carried a credential.
    """

    model_config = ConfigDict(frozen=True)

    index: int
    record_id: str | None
    reason: str


T = TypeVar("T")


class TruncationReason(StrEnum):
    """Why a walk over the executions' pages stopped before the last page the service claimed."""

    PAGE_CAP = "page_cap"
    """More pages than the client's `max_pages`: the first `max_pages` were read."""
    EMPTY_PAGE = "empty_page"
    """A page before the claimed end came back empty."""
    NOTHING_NEW = "nothing_new"
    """A page held only executions already read on earlier pages."""


@dataclass(frozen=True, slots=True)
class Truncation:
    """A walk that did not read every page the service claimed, and why.

    The service's own counts are kept as claimed (they may be wrong, even absurd), so a caller
    can say "the service claims 1,000,000,000 pages; showing the first 2".
    """

    claimed_pages: int
    """`page_count` of the first page."""
    claimed_total: int
    """`total_count` of the first page."""
    pages_read: int
    """Pages whose executions were kept: pages 1 to `pages_read`."""
    reason: TruncationReason


class RecordList(list[T], Generic[T]):
    """A list of parsed records that also says which records were skipped and why.

    `truncation` is set when `all_executions` stopped before the last page the service claimed
    (a lying or broken page count); None when every page was read.
    """

    def __init__(
        self,
        items: Any = (),
        skipped: list[SkippedRecord] | None = None,
        truncation: Truncation | None = None,
    ) -> None:
        super().__init__(items)
        self.skipped: list[SkippedRecord] = list(skipped or [])
        self.truncation = truncation

    def __repr__(self) -> str:
        truncated = f", truncation={self.truncation!r}" if self.truncation else ""
        return f"RecordList({list.__repr__(self)}, skipped={len(self.skipped)}{truncated})"


A = TypeVar("A")


@dataclass(slots=True)
class FoldedExecutions(Generic[A]):
    """What one walk over the executions' pages made of them, page by page
    (`ApiClient.fold_executions`, `ApiClient.all_executions_by_page`), so no more than a few
    pages of `Execution` models are ever held at once.

    The pages folded into `value` held each execution exactly once, in the service's order, as
    `all_executions` would list them; `skipped` and `truncation` are what that list would carry.
    """

    value: A
    """The accumulator after the last page kept."""
    skipped: list[SkippedRecord]
    """The records of the kept pages that did not fit, as `RecordList.skipped`."""
    truncation: Truncation | None = None
    """Set when the walk stopped before the last page the service claimed, as on `RecordList`."""
    executions: int = 0
    """How many executions were folded in (each counted once)."""
    pages: int = 0
    """How many pages were folded in: pages 1 to `pages`."""


class ExecutionPage(ApiModel):
    """One page of the filter operation (spec 2.5). `skipped` lists records left out of it."""

    SPEC_OPTIONAL = frozenset()

    current_page: int
    total_count: int
    page_count: int
    next_page: str = ""
    previous_page: str = ""
    item_list: list[Execution] = []
    rest_api_url: str | None = None

    _skipped: list[SkippedRecord] = PrivateAttr(default_factory=list)

    @property
    def skipped(self) -> list[SkippedRecord]:
        return self._skipped
