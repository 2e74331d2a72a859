"""Turning a response's body into models, one record at a time.

A response is parsed record by record so that one malformed record is skipped, with a safe
reason, instead of failing the whole page. In strict mode (contract tests) any misfit raises.
Every way a body can fail (not JSON, nested too deeply, the wrong shape) is a
`ResponseValidationError`.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import threading
from collections.abc import Iterator
from typing import Any, TypeVar

import pydantic_core
from pydantic import BaseModel, TypeAdapter, ValidationError

from api_client.errors import ResponseValidationError
from api_client.models import ApiModel, Execution, ExecutionPage, RecordList, SkippedRecord
from api_client.operations import Operation
from api_client.records import (
    ExecutionRecord,
    ExecutionRecordPage,
    record_adapter,
    records_adapter,
)

M = TypeVar("M", bound=BaseModel)

_MAX_REASON_CHARS = 300
_MAX_ID_CHARS = 40


# pydantic-core's JSON parser stops at this depth with an error instead of overflowing the stack
# (the standard `json` module raises RecursionError on `[` x 200,000). The spec's deepest
# record is three levels down.
MAX_JSON_DEPTH = 200


def decode_json(body: bytes, *, operation: Operation) -> Any:
    """The JSON value of a response body, or a `ResponseValidationError` saying why not."""
    try:
        return pydantic_core.from_json(body)
    except ValueError as exc:
        if "recursion limit" in str(exc):
            raise ResponseValidationError(
                f"The {operation.label} response is nested more than {MAX_JSON_DEPTH} levels "
                "deep, which no answer of this service is",
                operation=operation,
            ) from None
        start = body.lstrip()[:1]
        raise ResponseValidationError(
            f"The {operation.label} response is not valid JSON ({len(body)} bytes)",
            operation=operation,
            # A body that begins like JSON but does not parse was cut short in transit.
            transient=start in (b"{", b"["),
        ) from None


def records_from_json(
    model: type[M], body: bytes, *, operation: Operation, strict: bool
) -> RecordList[M]:
    """`parse_records` from a response body."""
    return parse_records(
        model, decode_json(body, operation=operation), operation=operation, strict=strict
    )


def execution_page_from_json(body: bytes, *, strict: bool) -> ExecutionPage:
    """`parse_execution_page` from a response body."""
    return parse_execution_page(decode_json(body, operation=Operation.EXECUTIONS), strict=strict)


def record_dicts_from_json(
    model: type[ApiModel], body: bytes, *, operation: Operation, strict: bool
) -> RecordList[Any]:
    """`parse_record_dicts` from a response body: records as dicts, no model per record.

    A body whose records all fit is validated straight from its bytes, in one call (no
    Python value of the whole body is made first: a third less work than decoding it, then
    validating that); any other body (not JSON, not a list, a record that misfits) is
    decoded and parsed as `parse_record_dicts` parses it, which says why."""
    with collection_paused():
        if not strict:
            try:
                return RecordList(records_adapter(model).validate_json(body))
            except ValidationError:
                pass
        return parse_record_dicts(
            model, decode_json(body, operation=operation), operation=operation, strict=strict
        )


def execution_record_page_from_json(body: bytes, *, strict: bool) -> ExecutionRecordPage:
    """`parse_execution_record_page` from a response body; a page whose envelope and records
    all fit is validated straight from its bytes, in one call (`record_dicts_from_json`)."""
    with collection_paused():
        if not strict:
            try:
                whole = record_adapter(ExecutionPage).validate_json(body)
            except ValidationError:
                pass  # said by the path below, part by part
            else:
                return _record_page_of(whole)
        return parse_execution_record_page(
            decode_json(body, operation=Operation.EXECUTIONS), strict=strict
        )


_paused = 0  # parses under way with the cyclic collector paused
_collector_was_on = False
_pause_lock = threading.Lock()


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a body becomes records.

    Decoding a body and validating it allocate two containers per record and release none, so
    the collector's allocation counter starts collection after collection, each walking every
    record made so far: for 100,000 records that was more than half the parse. Records hold
    no reference cycles, so nothing is left for it to find; reference counting frees as usual.
    Parses in other threads share one pause; the collector is switched back on when the last
    ends (and only if it was on when the first began).
    """
    global _paused, _collector_was_on
    with _pause_lock:
        if _paused == 0:
            _collector_was_on = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _pause_lock:
            _paused -= 1
            if _paused == 0 and _collector_was_on:
                gc.enable()


def describe_validation_error(error: ValidationError) -> str:
    """Name each failing field and what was wrong, without the offending values.

    Values are left out because a record may carry a credential (`user_info.access_token`).
    """
    parts = []
    for detail in error.errors(include_input=False, include_url=False, include_context=False):
        where = ".".join(str(part) for part in detail["loc"]) or "record"
        parts.append(f"{where}: {detail['msg']}")
    text = "; ".join(parts) or "does not fit the expected shape"
    return text if len(text) <= _MAX_REASON_CHARS else text[: _MAX_REASON_CHARS - 1] + "…"


def parse_records(
    model: type[M], data: Any, *, operation: Operation, strict: bool
) -> RecordList[M]:
    """Parse a JSON array into models, skipping (or, when strict, raising on) misfits."""
    if not isinstance(data, list):
        raise ResponseValidationError(
            f"The {operation.label} response was {_kind(data)}, not a list of records",
            operation=operation,
        )
    try:
        # The whole list in one call to pydantic-core; record by record only when one misfits.
        return RecordList(_list_adapter(model).validate_python(data, context=_context(strict)))
    except ValidationError:
        pass
    records: RecordList[M] = RecordList()
    for index, item in enumerate(data):
        try:
            records.append(model.model_validate(item, context={"strict": strict}))
        except ValidationError as exc:
            reason = describe_validation_error(exc)
            if strict:
                raise ResponseValidationError(
                    f"Record {index} of the {operation.label} response does not fit "
                    f"{model.__name__}: {reason}",
                    operation=operation,
                ) from None
            records.skipped.append(
                SkippedRecord(index=index, record_id=_record_id(item), reason=reason)
            )
    return records


def parse_record_dicts(
    model: type[ApiModel], data: Any, *, operation: Operation, strict: bool
) -> RecordList[Any]:
    """`parse_records`, each record a dict of `model`'s record type (`api_client.records`)
    instead of a model: the same records kept, the same skipped with the same reasons (the
    model words them), the same errors. Strict mode validates with the models first."""
    if strict:
        parse_records(model, data, operation=operation, strict=True)  # raises on any misfit
    elif not isinstance(data, list):
        raise ResponseValidationError(
            f"The {operation.label} response was {_kind(data)}, not a list of records",
            operation=operation,
        )
    try:
        return RecordList(records_adapter(model).validate_python(data))
    except ValidationError:
        pass
    records: RecordList[Any] = RecordList()
    one = record_adapter(model)
    for index, item in enumerate(data):
        try:
            records.append(one.validate_python(item))
        except ValidationError as refused:
            reason = _model_reason(model, item) or describe_validation_error(refused)
            records.skipped.append(
                SkippedRecord(index=index, record_id=_record_id(item), reason=reason)
            )
    return records


def _model_reason(model: type[ApiModel], item: Any) -> str | None:
    """Why `model` refuses `item`, worded as the model path words it (None: it does not)."""
    try:
        model.model_validate(item, context={"strict": False})
    except ValidationError as exc:
        return describe_validation_error(exc)
    return None


def parse_execution_page(data: Any, *, strict: bool) -> ExecutionPage:
    """Parse the filter operation's envelope; its `item_list` is parsed record by record."""
    page, raw_items = _execution_envelope(data, strict=strict)
    items = parse_records(Execution, raw_items, operation=Operation.EXECUTIONS, strict=strict)
    page = page.model_copy(update={"item_list": list(items)})
    page.skipped.extend(items.skipped)
    return page


def parse_execution_record_page(data: Any, *, strict: bool) -> ExecutionRecordPage:
    """`parse_execution_page` with the executions as records (`ExecutionRecord` dicts). A page
    whose envelope and records all fit is validated in one call."""
    if not strict and isinstance(data, dict) and data.get("item_list") is not None:
        try:
            whole = record_adapter(ExecutionPage).validate_python(data)
        except ValidationError:
            pass  # said below, part by part, as `parse_execution_page` says it
        else:
            return _record_page_of(whole)
    page, raw_items = _execution_envelope(data, strict=strict)
    items: RecordList[ExecutionRecord] = parse_record_dicts(
        Execution, raw_items, operation=Operation.EXECUTIONS, strict=strict
    )
    return ExecutionRecordPage(
        current_page=page.current_page,
        total_count=page.total_count,
        page_count=page.page_count,
        item_list=list(items),
        skipped=list(items.skipped),
    )


def _record_page_of(whole: dict[str, Any]) -> ExecutionRecordPage:
    """The page of a validated `ExecutionPage` record (no `item_list`: no executions)."""
    return ExecutionRecordPage(
        current_page=whole["current_page"],
        total_count=whole["total_count"],
        page_count=whole["page_count"],
        item_list=whole.get("item_list", []),
    )


def _execution_envelope(data: Any, *, strict: bool) -> tuple[ExecutionPage, Any]:
    """The filter operation's envelope without its items, and its raw `item_list`."""
    operation = Operation.EXECUTIONS
    if not isinstance(data, dict):
        raise ResponseValidationError(
            f"The executions response was {_kind(data)}, not a page envelope",
            operation=operation,
        )
    envelope = {key: value for key, value in data.items() if key != "item_list"}
    try:
        page = ExecutionPage.model_validate(envelope, context={"strict": False})
    except ValidationError as exc:
        raise ResponseValidationError(
            f"The executions page envelope does not fit the spec: {describe_validation_error(exc)}",
            operation=operation,
        ) from None
    if strict:
        _check_strict_envelope(data)
    raw_items = data.get("item_list")
    return page, [] if raw_items is None else raw_items


def _check_strict_envelope(data: dict[str, Any]) -> None:
    expected = set(ExecutionPage.model_fields)
    if set(data) != expected:
        raise ResponseValidationError(
            "The executions page envelope does not match the spec: "
            f"unknown fields {sorted(set(data) - expected)}, "
            f"missing fields {sorted(expected - set(data))}",
            operation=Operation.EXECUTIONS,
        )


def _context(strict: bool) -> dict[str, bool] | None:
    # No context at all in lenient mode: the models' strict check then returns at once.
    return {"strict": True} if strict else None


@functools.cache
def _list_adapter(model: type[M]) -> TypeAdapter[list[M]]:
    return TypeAdapter(list[model])  # type: ignore[valid-type]


def _record_id(item: Any) -> str | None:
    if isinstance(item, dict):
        value = item.get("id")
        if isinstance(value, int | str) and not isinstance(value, bool):
            return str(value)[:_MAX_ID_CHARS]
    return None


def _kind(data: Any) -> str:
    if data is None:
        return "empty"
    return f"a JSON {type(data).__name__}"
