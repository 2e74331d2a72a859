"""Records: a resource validated by its model's rules into a plain dict, not a model instance.

A caller that only turns records into columns (a data frame) has no use for one pydantic model
per record: building 70,000 `Execution` models cost four times what validating the same JSON
into dicts costs. A record type here is derived from its model, field by field (the same
annotations, the same validators, the same optional fields, the same configuration; a nested
model becomes its own record type), so a record is accepted or refused exactly as its model
would be, and what a refused record is said to lack is worded by the model itself
(`api_client.parsing`). Fields the record did not carry are absent from the dict (the model
would have given their default): read them with `.get`.

The static `TypedDict`s below name the keys for type checkers; `record_adapter` builds the
validating type from the model, and a test holds the two to the same keys.
"""

import functools
import types
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, NotRequired, Required, Union, get_args, get_origin

from pydantic import ConfigDict, SecretStr, TypeAdapter
from typing_extensions import TypedDict  # pydantic needs it on Python < 3.12

from api_client.models import (
    ApiModel,
    Environment,
    Execution,
    SkippedRecord,
    TestResult,
    UserInfo,
)


class EnvironmentRecord(TypedDict, total=False):
    """`Environment` as a record."""

    id: int | None
    name: str | None
    operating_system: str | None
    browser_type: str | None
    environment_type: str | None
    environment_version: str | None
    enabled: bool | None
    operating_system_clean_name: str | None
    mobile: bool | None


class UserInfoRecord(TypedDict, total=False):
    """`UserInfo` as a record; `access_token` stays a `SecretStr`."""

    id: int | None
    name: str | None
    surname: str | None
    username: str | None
    email: str | None
    enabled: bool | None
    account_non_expired: bool | None
    account_non_locked: bool | None
    credential_non_expired: bool | None
    language: str | None
    time_zone: str | None
    company: str | None
    company_id: int | None
    current_company: str | None
    current_company_id: int | None
    roles: list[str]
    access_token: SecretStr | None


class ExecutionRecord(TypedDict, total=False):
    """`Execution` as a record (`id` always present)."""

    id: Required[int]
    user_id: int | None
    username: str | None
    company_id: int | None
    project_id: int | None
    project_name: str | None
    plan_id: int | None
    plan_name: str | None
    test_results: list[int]
    runtime: int | None
    result_summary: dict[str, int]
    start_date: datetime | None
    end_date: datetime | None
    test_result_status_counts: str | None


class ResultRecord(TypedDict, total=False):
    """`TestResult` as a record (`id` and `level` always present)."""

    id: Required[int]
    level: Required[str]
    runtime: int | None
    environment: EnvironmentRecord | None
    session_id: str | None
    message: str | None
    screenshots_enabled: bool | None
    screen_shot_type: str | None
    video_enabled: bool | None
    performance_data_enabled: bool | None
    test_key: str | None
    video_format: str | None
    node_log_path: str | None
    executor_log_path: str | None
    screen_resolution: str | None
    user_id: int | None
    project_id: int | None
    plan_id: int | None
    scenario_id: int | None
    execution_id: int | None
    company_id: int | None
    user_info: UserInfoRecord | None
    start_date: datetime | None


STATIC_RECORDS: dict[type[ApiModel], Any] = {
    Environment: EnvironmentRecord,
    UserInfo: UserInfoRecord,
    Execution: ExecutionRecord,
    TestResult: ResultRecord,
}
"""Each model that has a record type, and the `TypedDict` that names its keys."""

_VALIDATION_CONFIG_KEYS = ("extra", "coerce_numbers_to_str", "str_strip_whitespace", "strict")


# Called through a plain name: the types are made at run time, from the models.
_make_typed_dict: Any = TypedDict


@functools.cache
def record_type(model: type[ApiModel]) -> Any:
    """The validating record type of `model`: a `TypedDict` with each field's annotation and
    validators, required where the model requires it, nested models as their record types,
    and the model's validation settings."""
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation = _as_records(info.annotation)
        if info.metadata:
            annotation = Annotated[(annotation, *info.metadata)]
        fields[name] = Required[annotation] if info.is_required() else NotRequired[annotation]
    record = _make_typed_dict(f"{model.__name__}Record", fields)
    settings = model.model_config
    config = {key: settings[key] for key in _VALIDATION_CONFIG_KEYS if key in settings}  # type: ignore[literal-required]
    record.__pydantic_config__ = ConfigDict(**config)  # type: ignore[typeddict-item]
    return record


@functools.cache
def record_adapter(model: type[ApiModel]) -> TypeAdapter[Any]:
    """Validates one record of `model` into its record dict."""
    return TypeAdapter(record_type(model))


@functools.cache
def records_adapter(model: type[ApiModel]) -> TypeAdapter[list[Any]]:
    """Validates a list of `model`'s records in one call."""
    one: Any = record_type(model)
    return TypeAdapter(list[one])


def _as_records(annotation: Any) -> Any:
    """`annotation` with every `ApiModel` in it replaced by its record type."""
    if isinstance(annotation, type) and issubclass(annotation, ApiModel):
        return record_type(annotation)
    origin = get_origin(annotation)
    if origin is None:
        return annotation
    args = get_args(annotation)
    if origin is Annotated:
        return Annotated[(_as_records(args[0]), *annotation.__metadata__)]
    converted = tuple(_as_records(arg) for arg in args)
    if converted == args:
        return annotation
    if origin in (Union, types.UnionType):
        return Union[converted]  # noqa: UP007 - built from a runtime tuple
    return origin[converted if len(converted) > 1 else converted[0]]


@dataclass(slots=True)
class ExecutionRecordPage:
    """One page of the filter operation with its executions as records: what a walk reads
    (`ExecutionPage` is the same page with models). `skipped` lists records left out of it."""

    current_page: int
    total_count: int
    page_count: int
    item_list: list[ExecutionRecord]
    skipped: list[SkippedRecord] = field(default_factory=list)
