"""Records shaped like the spec's sections 2.1-2.6, built into the client's models.

Small builders with realistic defaults: a test names only the fields it is about.
"""

from __future__ import annotations

from typing import Any

from api_client import Execution, TestPlan, TestResult

ACCESS_TOKEN = "demo-at-0f1e2d3c4b5a69788796a5b4c3d2e1f0"  # another user's credential in user_info


def plan(plan_id: int = 3, **changes: Any) -> TestPlan:
    record: dict[str, Any] = {
        "id": plan_id,
        "type": "SELENIUM",
        "project_id": 2,
        "project_name": "Web shop",
        "company_id": 7,
        "plan_name": "Checkout smoke",
        "scenarios": [21, 22, 23],
        "alerts": [
            {
                "alert_type": "EMAIL",
                "alert_sending_status": "EVERY_TEST",
                "target": "qa-lead@example.test",
                "plan_id": plan_id,
                "enabled": True,
                "unsubscribe_link_eliminated": False,
            }
        ],
        "enabled": True,
        "group_plan": False,
        "plan_parallel_test_limit": 4,
        "failed_test_retry_count": 1,
        "alerts_enabled_result": True,
        "project_enabled": True,
        "test_run_type": "CROSS",
        "created_at": "2026-08-01T10:00:00Z",
        "updated_at": "2026-11-01T07:00:00Z",
        "created_by": "ada",
        "updated_by": "grace",
        "tracker_enabled": False,
        "screen_shot_type": "ONLY_FAILURE",
        "video_enabled": True,
        "test_plan_java_parameters": [],
    }
    record.update(changes)
    return TestPlan.model_validate(record)


def execution(execution_id: int = 900, **changes: Any) -> Execution:
    record: dict[str, Any] = {
        "id": execution_id,
        "user_id": 5,
        "username": "ada",
        "company_id": 7,
        "project_id": 2,
        "project_name": "Web shop",
        "plan_id": 3,
        "plan_name": "Checkout smoke",
        "test_results": [1, 2, 3, 4],
        "runtime": 125_000,
        "result_summary": {"SUCCESS": 3, "FAILURE": 1},
        "start_date": "2026-11-20T09:15:00Z",
        "end_date": "2026-11-20T09:17:05Z",
        "test_result_status_counts": "[SUCCESS, 3, FAILURE, 1]",
    }
    record.update(changes)
    return Execution.model_validate(record)


def result(result_id: int = 1, **changes: Any) -> TestResult:
    environment = {
        "id": 11,
        "name": "Windows 10 Chrome 134",
        "operating_system": "WIN10",
        "browser_type": "CHROME",
        "environment_type": "chrome",
        "environment_version": "134",
        "enabled": True,
        "operating_system_clean_name": "Windows 10",
        "mobile": False,
    }
    record: dict[str, Any] = {
        "id": result_id,
        "level": "SUCCESS",
        "runtime": 42,
        "environment": environment,
        "session_id": "12345678901234567890",
        "message": "",
        "screenshots_enabled": True,
        "screen_shot_type": "FULL",
        "video_enabled": False,
        "performance_data_enabled": False,
        "test_key": "TEST-C7-P3-E900-S21-ENV:11-WIN10-CHROME-134",
        "video_format": "FLV",
        "node_log_path": "https://logs.example.test/7/2026/11/20/12345678901234567890/node.log",
        "executor_log_path": (
            "https://logs.example.test/7/2026/11/20/12345678901234567890/testResult.log"
        ),
        "screen_resolution": "1920x1080",
        "user_id": 5,
        "project_id": 2,
        "plan_id": 3,
        "scenario_id": 21,
        "execution_id": 900,
        "company_id": 7,
        "user_info": {
            "id": 5,
            "name": "Ada",
            "surname": "Lovelace",
            "username": "ada",
            "email": "ada@example.test",
            "roles": ["ROLE_USER"],
            "access_token": ACCESS_TOKEN,
        },
        "start_date": "2026-11-20T09:15:00Z",
    }
    if "environment" in changes and isinstance(changes["environment"], dict):
        environment.update(changes.pop("environment"))
    record.update(changes)
    return TestResult.model_validate(record)
