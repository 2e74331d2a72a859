"""Records (`api_client.records`): a resource validated into a dict by its model's own rules.

Whatever a record holds, its record type keeps or refuses it exactly as its model does, with the
same values; a list or a page of records keeps the same records and skips the same ones, for the
same reasons, as the model path; strict mode raises as the model path raises. The walk's pages of
records and the results operation's records are the models' values.
"""

from __future__ import annotations

import copy
import gc
from typing import Any, get_type_hints

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from api_client import (
    Execution,
    ExecutionPage,
    Operation,
    ResponseValidationError,
    TestResult,
)
from api_client.models import ApiModel
from api_client.parsing import (
    collection_paused,
    parse_execution_page,
    parse_execution_record_page,
    parse_record_dicts,
    parse_records,
    record_dicts_from_json,
)
from api_client.records import STATIC_RECORDS, record_adapter, record_type
from tests.client.conftest import MakeClient
from tests.client.samples import ACCESS_TOKEN, EXECUTION, TEST_RESULT, page
from tests.client.test_client import execution_started, paged_service
from tests.client.test_model_properties import json_values

SAMPLES: dict[type[ApiModel], dict[str, Any]] = {TestResult: TEST_RESULT, Execution: EXECUTION}


def as_model_values(model: type[ApiModel], record: dict[str, Any]) -> dict[str, Any]:
    """A record's fields as its model holds them: absent fields at the model's defaults, nested
    records as their models' values."""
    values: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        value = record[name] if name in record else info.get_default(call_default_factory=True)
        nested = _nested_model(info.annotation)
        if nested is not None and isinstance(value, dict):
            value = as_model_values(nested, value)
        values[name] = value
    return values


def model_values(model: BaseModel) -> dict[str, Any]:
    return {
        name: model_values(value) if isinstance(value, BaseModel) else value
        for name, value in dict(model).items()
    }


def _nested_model(annotation: Any) -> type[ApiModel] | None:
    for candidate in (annotation, *getattr(annotation, "__args__", ())):
        if isinstance(candidate, type) and issubclass(candidate, ApiModel):
            return candidate
    return None


@st.composite
def mutated(draw: st.DrawFn) -> tuple[type[ApiModel], dict[str, Any]]:
    """A sample record with fields dropped, nulled, replaced, or given nested junk."""
    model = draw(st.sampled_from(list(SAMPLES)))
    record = copy.deepcopy(SAMPLES[model])
    for name in draw(st.lists(st.sampled_from(sorted(record)), max_size=4, unique=True)):
        action = draw(st.sampled_from(["drop", "null", "replace", "nested"]))
        if action == "drop":
            record.pop(name)
        elif action == "null":
            record[name] = None
        elif action == "replace":
            record[name] = draw(json_values)
        elif isinstance(record[name], dict) and record[name]:
            inner = draw(st.sampled_from(sorted(record[name])))
            record[name] = {**record[name], inner: draw(json_values)}
    for name, value in draw(
        st.dictionaries(st.text(min_size=1, max_size=12), json_values, max_size=2)
    ).items():
        record.setdefault(name, value)
    return model, record


def test_each_record_type_names_its_models_fields() -> None:
    for model, static in STATIC_RECORDS.items():
        hints = get_type_hints(static)
        assert set(hints) == set(model.model_fields), model.__name__
        required = {name for name, info in model.model_fields.items() if info.is_required()}
        assert static.__required_keys__ == required, model.__name__
        assert record_type(model).__required_keys__ == required, model.__name__


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(mutated())
def test_a_record_is_kept_or_refused_as_its_model_and_holds_the_models_values(
    case: tuple[type[ApiModel], dict[str, Any]],
) -> None:
    model, raw = case
    try:
        parsed = model.model_validate(raw)
    except ValidationError:
        parsed = None
    try:
        record = record_adapter(model).validate_python(raw)
    except ValidationError:
        record = None

    assert (record is None) == (parsed is None)
    if parsed is not None and record is not None:
        assert as_model_values(model, record) == model_values(parsed)
        assert ACCESS_TOKEN not in repr(record)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(mutated(), min_size=1, max_size=8), json_values)
def test_a_list_keeps_and_skips_what_the_model_path_does_for_the_same_reasons(
    cases: list[tuple[type[ApiModel], dict[str, Any]]], junk: Any
) -> None:
    items: list[Any] = [record for _, record in cases] + [junk]
    for model in SAMPLES:
        models = parse_records(model, items, operation=Operation.TEST_RESULTS, strict=False)
        records = parse_record_dicts(model, items, operation=Operation.TEST_RESULTS, strict=False)

        assert records.skipped == models.skipped
        assert [as_model_values(model, r) for r in records] == [model_values(m) for m in models]


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(mutated(), max_size=6), json_values)
def test_a_page_of_records_is_the_page_of_models(
    cases: list[tuple[type[ApiModel], dict[str, Any]]], junk: Any
) -> None:
    body = page([record for _, record in cases] + [junk])
    models = parse_execution_page(body, strict=False)
    records = parse_execution_record_page(body, strict=False)

    assert (records.current_page, records.total_count, records.page_count) == (
        models.current_page,
        models.total_count,
        models.page_count,
    )
    assert records.skipped == models.skipped
    assert [as_model_values(Execution, r) for r in records.item_list] == [
        model_values(m) for m in models.item_list
    ]


@pytest.mark.parametrize(
    "data",
    [
        {"not": "a list"},
        [{**EXECUTION, "surprise": 1}],
        [{k: v for k, v in EXECUTION.items() if k != "plan_name"}],
    ],
    ids=["not-a-list", "unknown-field", "missing-field"],
)
def test_strict_mode_refuses_what_the_model_path_refuses_with_the_same_message(data: Any) -> None:
    with pytest.raises(ResponseValidationError) as by_model:
        parse_records(Execution, data, operation=Operation.EXECUTIONS, strict=True)
    with pytest.raises(ResponseValidationError) as by_record:
        parse_record_dicts(Execution, data, operation=Operation.EXECUTIONS, strict=True)

    assert str(by_record.value) == str(by_model.value)


def test_a_bad_envelope_is_refused_as_the_model_path_refuses_it() -> None:
    body = page([EXECUTION])
    body["total_count"] = "many"
    with pytest.raises(ResponseValidationError) as by_model:
        parse_execution_page(body, strict=False)
    with pytest.raises(ResponseValidationError) as by_record:
        parse_execution_record_page(body, strict=False)

    assert str(by_record.value) == str(by_model.value)
    assert isinstance(parse_execution_page(page([]), strict=False), ExecutionPage)


def test_the_walks_records_are_all_executions_values(make_client: MakeClient) -> None:
    executions = [execution_started(i) for i in range(30, 0, -1)]
    client, _ = make_client(paged_service(executions), max_concurrency=3)

    walked = client.fold_execution_records(list, lambda kept, page: [*kept, *page], page_size=7)
    listed = client.all_executions(page_size=7)

    assert walked.pages == 5
    assert [as_model_values(Execution, r) for r in walked.value] == [
        model_values(e) for e in listed
    ]


def test_the_collector_is_paused_while_records_are_made_and_back_as_it_was_after() -> None:
    assert gc.isenabled()
    with collection_paused():
        assert not gc.isenabled()
        with collection_paused():  # another parse at the same time shares the pause
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()

    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled()  # it was off before: left off
    finally:
        gc.enable()


def test_a_parse_that_fails_still_switches_the_collector_back_on() -> None:
    with pytest.raises(ResponseValidationError):
        record_dicts_from_json(Execution, b"[{", operation=Operation.EXECUTIONS, strict=False)
    assert gc.isenabled()
