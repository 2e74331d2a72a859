"""The models accept what the spec describes, and what the real service may send besides."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import SecretStr, ValidationError

from api_client import Alert, Environment, Execution, ExecutionPage, TestPlan, TestResult, UserInfo
from tests.client.samples import (
    ACCESS_TOKEN,
    ENVIRONMENT,
    EXECUTION,
    TEST_PLAN,
    TEST_RESULT,
    USER_INFO,
    page,
    with_changes,
    without,
)


def test_test_result_reads_every_spec_field() -> None:
    result = TestResult.model_validate(TEST_RESULT)

    assert result.id == 900001
    assert result.level == "FAILURE"
    assert result.runtime == 42
    assert result.duration == timedelta(seconds=42)  # result runtime is in seconds
    assert result.session_id == "12345678901234567890"
    assert result.message == "Element #login not found"
    assert result.screenshots_enabled is True
    assert result.screen_shot_type == "FULL"
    assert result.video_enabled is True
    assert result.performance_data_enabled is False
    assert result.test_key == "TEST-C7-P3-E900-S21-ENV:11-WIN10-CHROME-134"
    assert result.video_format == "FLV"
    assert result.node_log_path == TEST_RESULT["node_log_path"]
    assert result.executor_log_path == TEST_RESULT["executor_log_path"]
    assert result.screen_resolution == "1920x1080"
    assert (result.user_id, result.project_id, result.plan_id) == (5, 2, 3)
    assert (result.scenario_id, result.execution_id, result.company_id) == (21, 900, 7)
    assert result.start_date == datetime(2026, 11, 20, 9, 15, tzinfo=UTC)
    assert isinstance(result.environment, Environment)
    assert isinstance(result.user_info, UserInfo)


def test_environment_reads_every_spec_field() -> None:
    environment = Environment.model_validate(ENVIRONMENT)

    assert environment.model_dump() == ENVIRONMENT


def test_user_info_reads_every_field_and_hides_the_access_token() -> None:
    info = UserInfo.model_validate(USER_INFO)

    assert info.roles == ["ROLE_USER", "ROLE_REPORT", "ROLE_RUN_TEST"]
    assert info.language == "ENGLISH"
    assert (info.company_id, info.current_company_id) == (7, 7)
    assert isinstance(info.access_token, SecretStr)
    assert info.access_token.get_secret_value() == ACCESS_TOKEN
    for rendering in (repr(info), str(info), str(info.model_dump()), info.model_dump_json()):
        assert ACCESS_TOKEN not in rendering
    result = TestResult.model_validate(TEST_RESULT)
    for rendering in (
        repr(result),
        str(result),
        str(result.model_dump()),
        result.model_dump_json(),
    ):
        assert ACCESS_TOKEN not in rendering


def test_execution_reads_every_spec_field_with_explicit_units() -> None:
    execution = Execution.model_validate(EXECUTION)

    assert execution.id == 900
    assert (execution.user_id, execution.username, execution.company_id) == (5, "ada", 7)
    assert (execution.project_id, execution.project_name) == (2, "Web shop")
    assert (execution.plan_id, execution.plan_name) == (3, "Checkout smoke")
    assert execution.test_results == [900001, 900002]
    assert execution.runtime == 125000
    assert execution.duration == timedelta(seconds=125)  # execution runtime is milliseconds
    assert execution.result_summary == {"SUCCESS": 1, "FAILURE": 1}
    assert execution.start_date == datetime(2026, 11, 20, 9, 15, tzinfo=UTC)
    assert execution.end_date == datetime(2026, 11, 20, 9, 17, 5, tzinfo=UTC)
    assert execution.test_result_status_counts == "[SUCCESS, 1, FAILURE, 1]"


def test_plan_reads_every_spec_field_including_alerts() -> None:
    plan = TestPlan.model_validate(TEST_PLAN)

    assert (plan.id, plan.type, plan.plan_name) == (3, "APPIUM", "Checkout smoke")
    assert (plan.project_id, plan.project_name, plan.company_id) == (2, "Web shop", 7)
    assert plan.scenarios == [21, 22, 23]
    assert plan.alerts == [Alert.model_validate(TEST_PLAN["alerts"][0])]
    assert plan.alerts[0].target == "qa-lead@example.test"
    assert (plan.enabled, plan.group_plan, plan.project_enabled) == (True, False, True)
    assert (plan.plan_parallel_test_limit, plan.failed_test_retry_count) == (4, 1)
    assert plan.alerts_enabled_result is True
    assert plan.test_run_type == "CROSS"
    assert plan.created_at == datetime(2026, 8, 1, 10, tzinfo=UTC)
    # An offset in the body is converted to UTC, keeping the instant.
    assert plan.updated_at == datetime(2026, 11, 1, 7, tzinfo=UTC)
    assert plan.updated_at is not None
    assert plan.updated_at.tzinfo == UTC
    assert (plan.created_by, plan.updated_by) == ("ada", "grace")
    assert plan.tracker_enabled is False
    assert plan.screen_shot_type == "ONLY_FAILURE"
    assert plan.video_enabled is True
    assert plan.test_plan_java_parameters == ["-Xmx512m"]
    assert plan.performance_data_enabled is True
    assert plan.file_download_path == "/downloads"
    assert (plan.clear_app_data, plan.uninstall_app_after_test) == (True, False)


def test_fields_the_spec_says_can_be_absent_are_optional() -> None:
    selenium = without(
        TEST_PLAN,
        "updated_at",
        "performance_data_enabled",
        "file_download_path",
        "clear_app_data",
        "uninstall_app_after_test",
    )
    plan = TestPlan.model_validate(selenium, context={"strict": True})

    assert plan.updated_at is None
    assert plan.performance_data_enabled is None
    assert plan.file_download_path is None
    assert plan.clear_app_data is None
    assert plan.uninstall_app_after_test is None
    result = TestResult.model_validate(without(TEST_RESULT, "message"), context={"strict": True})
    assert result.message is None


def test_unknown_enum_values_are_kept_as_their_string() -> None:
    result = TestResult.model_validate(
        with_changes(TEST_RESULT, level="TERMINATING", screen_shot_type="ONLY_FAILURE")
    )
    plan = TestPlan.model_validate(with_changes(TEST_PLAN, type="PLAYWRIGHT", test_run_type="X"))
    execution = Execution.model_validate(
        with_changes(EXECUTION, result_summary={"SUCCESS": 3, "Unexecuted": 2})
    )

    assert result.level == "TERMINATING"
    assert result.screen_shot_type == "ONLY_FAILURE"
    assert (plan.type, plan.test_run_type) == ("PLAYWRIGHT", "X")
    assert execution.result_summary == {"SUCCESS": 3, "Unexecuted": 2}


def test_unknown_fields_are_ignored_by_default_and_rejected_in_strict_mode() -> None:
    record = with_changes(EXECUTION, brand_new_field={"x": 1})

    assert Execution.model_validate(record).id == 900
    with pytest.raises(ValidationError, match="unknown fields \\['brand_new_field'\\]"):
        Execution.model_validate(record, context={"strict": True})


def test_strict_mode_requires_the_fields_the_spec_always_sends() -> None:
    with pytest.raises(ValidationError, match="missing fields \\['plan_name'\\]"):
        Execution.model_validate(without(EXECUTION, "plan_name"), context={"strict": True})
    # Lenient mode keeps the record, with the field unknown.
    assert Execution.model_validate(without(EXECUTION, "plan_name")).plan_name is None


def test_nulls_for_lists_and_maps_read_as_empty() -> None:
    execution = Execution.model_validate(
        with_changes(EXECUTION, test_results=None, result_summary=None)
    )
    plan = TestPlan.model_validate(
        with_changes(TEST_PLAN, scenarios=None, alerts=None, test_plan_java_parameters=None)
    )

    assert (execution.test_results, execution.result_summary) == ([], {})
    assert (plan.scenarios, plan.alerts, plan.test_plan_java_parameters) == ([], [], [])


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2026-11-20T09:15:00Z", datetime(2026, 11, 20, 9, 15, tzinfo=UTC)),
        ("2026-11-20T12:15:00+03:00", datetime(2026, 11, 20, 9, 15, tzinfo=UTC)),
        # No offset: the spec says timestamps are UTC, so it is read as UTC, not local time.
        ("2026-11-20T09:15:00", datetime(2026, 11, 20, 9, 15, tzinfo=UTC)),
        ("2026-11-20T09:15:00.123Z", datetime(2026, 11, 20, 9, 15, 0, 123000, tzinfo=UTC)),
    ],
)
def test_timestamps_become_aware_utc_datetimes(raw: str, expected: datetime) -> None:
    execution = Execution.model_validate(with_changes(EXECUTION, start_date=raw))

    assert execution.start_date == expected
    assert execution.start_date is not None
    assert execution.start_date.utcoffset() == timedelta(0)


def test_a_numeric_version_is_read_as_a_string() -> None:
    environment = Environment.model_validate(with_changes(ENVIRONMENT, environment_version=134))

    assert environment.environment_version == "134"


@pytest.mark.parametrize(
    ("model", "record", "field", "bad"),
    [
        (Execution, EXECUTION, "id", "not-a-number"),
        (Execution, EXECUTION, "start_date", "yesterday"),
        (TestResult, TEST_RESULT, "level", None),
        (TestPlan, TEST_PLAN, "scenarios", "21,22"),
    ],
)
def test_wrong_types_give_a_validation_error_naming_the_field(
    model: type[Execution | TestResult | TestPlan], record: dict, field: str, bad: object
) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(with_changes(record, **{field: bad}))

    assert caught.value.errors()[0]["loc"][0] == field


def test_execution_page_envelope() -> None:
    envelope = page([EXECUTION], next_page="https://svc.example.test/Api/api/executions/filter/2")
    parsed = ExecutionPage.model_validate(envelope, context={"strict": True})

    assert parsed.current_page == 1
    assert (parsed.total_count, parsed.page_count) == (1, 1)
    assert parsed.next_page.endswith("/2")
    assert parsed.previous_page == ""
    assert parsed.item_list[0].id == 900
    assert parsed.rest_api_url == "https://svc.example.test/Api/api"
    assert parsed.skipped == []


def test_a_pickled_result_never_carries_the_access_token() -> None:
    result = TestResult.model_validate(TEST_RESULT)

    data = pickle.dumps(result)

    assert ACCESS_TOKEN.encode() not in data
    restored = pickle.loads(data)  # noqa: S301 - our own bytes
    assert restored.user_info is not None
    assert restored.user_info.access_token is None
    assert restored.user_info.username == "ada"
    assert restored.id == result.id
