"""Records shaped like the spec's sections 2.1-2.6, built into the client's models.

The spec-shaped records live once, in `tests.client.samples`; these builders take them and
change only what the dashboard tests are about, so a test names only the fields it concerns.
"""

from __future__ import annotations

from typing import Any

from api_client import Execution, TestPlan, TestResult
from tests.client import samples

ACCESS_TOKEN = "demo-at-0f1e2d3c4b5a69788796a5b4c3d2e1f0"  # another user's credential in user_info


def plan(plan_id: int = 3, **changes: Any) -> TestPlan:
    # A desktop plan: none of the mobile-only or optional fields of the APPIUM sample.
    record = samples.without(
        samples.TEST_PLAN,
        "performance_data_enabled",
        "file_download_path",
        "clear_app_data",
        "uninstall_app_after_test",
    )
    record.update(
        id=plan_id,
        type="SELENIUM",
        alerts=[{**samples.ALERT, "plan_id": plan_id}],
        test_plan_java_parameters=[],
    )
    record.update(changes)
    return TestPlan.model_validate(record)


def execution(execution_id: int = 900, **changes: Any) -> Execution:
    record = samples.with_changes(
        samples.EXECUTION,
        id=execution_id,
        test_results=[1, 2, 3, 4],
        result_summary={"SUCCESS": 3, "FAILURE": 1},
        test_result_status_counts="[SUCCESS, 3, FAILURE, 1]",
    )
    record.update(changes)
    return Execution.model_validate(record)


def result(result_id: int = 1, **changes: Any) -> TestResult:
    record = samples.with_changes(
        samples.TEST_RESULT,
        id=result_id,
        level="SUCCESS",
        message="",
        video_enabled=False,
        user_info={**samples.USER_INFO, "access_token": ACCESS_TOKEN},
    )
    if isinstance(changes.get("environment"), dict):
        record["environment"] = {**record["environment"], **changes.pop("environment")}
    record.update(changes)
    return TestResult.model_validate(record)
