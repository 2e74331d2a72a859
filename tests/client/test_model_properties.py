"""Property-based tests: whatever a record holds, it parses or yields a clear validation error.

Records are the spec-shaped samples with fields dropped, nulled, given values of the wrong type,
huge or unicode strings, unknown enum values and extra fields. Nothing may crash, and nothing
the client reports about a bad record may repeat a credential.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from api_client import Execution, ExecutionPage, Operation, TestPlan, TestResult
from api_client.parsing import parse_execution_page, parse_records
from tests.client.samples import ACCESS_TOKEN, EXECUTION, TEST_PLAN, TEST_RESULT, page

SAMPLES: dict[type[BaseModel], dict[str, Any]] = {
    TestResult: TEST_RESULT,
    Execution: EXECUTION,
    TestPlan: TEST_PLAN,
}

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=50),
    # Huge strings are drawn from a few fixed ones: generating them at random is slow.
    st.sampled_from(["é" * 20_000, "<script>alert(1)</script>" * 800, "\u0000" * 5_000]),
    st.sampled_from(["SUCCESS", "Terminating", "ÜNKNÖWN", "🚀", "", "2026-13-45T99:99:99Z"]),
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=10,
)


@st.composite
def mutated_records(draw: st.DrawFn) -> tuple[type[BaseModel], dict[str, Any]]:
    """A sample record with a handful of fields dropped, replaced or added."""
    model = draw(st.sampled_from(list(SAMPLES)))
    record = copy.deepcopy(SAMPLES[model])
    fields = sorted(record)
    for name in draw(st.lists(st.sampled_from(fields), max_size=4, unique=True)):
        action = draw(st.sampled_from(["drop", "null", "replace"]))
        if action == "drop":
            record.pop(name, None)
        elif action == "null":
            record[name] = None
        else:
            record[name] = draw(json_values)
    for name, value in draw(
        st.dictionaries(st.text(min_size=1, max_size=12), json_values, max_size=3)
    ).items():
        record.setdefault(name, value)
    return model, record


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(mutated_records())
def test_a_record_parses_or_gives_a_validation_error(
    case: tuple[type[BaseModel], dict[str, Any]],
) -> None:
    model, record = case
    try:
        parsed = model.model_validate(record)
    except ValidationError as error:
        problems = error.errors()
    else:
        problems = []
        # Whatever parsed keeps a usable identity and never shows the credential.
        assert isinstance(parsed.id, int)  # type: ignore[attr-defined]
        assert ACCESS_TOKEN not in repr(parsed)
        assert ACCESS_TOKEN not in parsed.model_dump_json()
    assert all(problem["msg"] for problem in problems), "every problem is described"


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(mutated_records(), min_size=1, max_size=8))
def test_a_list_keeps_every_good_record_and_accounts_for_every_bad_one(
    cases: list[tuple[type[BaseModel], dict[str, Any]]],
) -> None:
    records = [record for _, record in cases]
    for model in SAMPLES:
        parsed = parse_records(model, records, operation=Operation.PLANS, strict=False)
        assert len(parsed) + len(parsed.skipped) == len(records)
        for skipped in parsed.skipped:
            assert skipped.reason
            assert ACCESS_TOKEN not in skipped.reason


@settings(max_examples=100, deadline=None)
@given(st.lists(mutated_records(), max_size=6), json_values)
def test_a_page_of_any_records_yields_every_good_execution(
    cases: list[tuple[type[BaseModel], dict[str, Any]]], junk: Any
) -> None:
    items = [record for _, record in cases] + [junk]
    result = parse_execution_page(page(items), strict=False)

    assert isinstance(result, ExecutionPage)
    assert len(result.item_list) + len(result.skipped) == len(items)


@given(
    st.datetimes(
        min_value=datetime(1990, 1, 1),
        max_value=datetime(2100, 1, 1),
        timezones=st.sampled_from(
            [UTC, timezone(timedelta(hours=3)), timezone(timedelta(hours=-9, minutes=-30))]
        ),
    ),
    st.booleans(),
)
def test_timestamps_with_and_without_offsets_keep_their_instant(
    moment: datetime, write_offset: bool
) -> None:
    text = (
        moment.isoformat()
        if write_offset
        else moment.astimezone(UTC).replace(tzinfo=None).isoformat()
    )
    execution = Execution.model_validate({"id": 1, "start_date": text})

    assert execution.start_date == moment
    assert execution.start_date is not None
    assert execution.start_date.tzinfo == UTC
