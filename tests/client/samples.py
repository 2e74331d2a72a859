"""Records shaped as the spec's sections 2.1-2.6 describe them, with realistic values."""

from __future__ import annotations

import copy
from typing import Any

ACCESS_TOKEN = "at-of-another-user-5f1c9e0d7a"  # a credential carried in user_info
TOKEN = "caller-bearer-token-8d2e4b"  # the caller's own bearer token

ENVIRONMENT: dict[str, Any] = {
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

USER_INFO: dict[str, Any] = {
    "id": 5,
    "name": "Ada",
    "surname": "Lovelace",
    "username": "ada",
    "email": "ada@example.test",
    "enabled": True,
    "account_non_expired": True,
    "account_non_locked": True,
    "credential_non_expired": True,
    "language": "ENGLISH",
    "time_zone": "Europe/Istanbul",
    "company": "Acme",
    "company_id": 7,
    "current_company": "Acme",
    "current_company_id": 7,
    "roles": ["ROLE_USER", "ROLE_REPORT", "ROLE_RUN_TEST"],
    "access_token": ACCESS_TOKEN,
}

TEST_RESULT: dict[str, Any] = {
    "id": 900001,
    "level": "FAILURE",
    "runtime": 42,
    "environment": ENVIRONMENT,
    "session_id": "12345678901234567890",
    "message": "Element #login not found",
    "screenshots_enabled": True,
    "screen_shot_type": "FULL",
    "video_enabled": True,
    "performance_data_enabled": False,
    "test_key": "TEST-C7-P3-E900-S21-ENV:11-WIN10-CHROME-134",
    "video_format": "FLV",
    "node_log_path": "https://storage.example.test/7/2026/11/20/12345678901234567890/node.log",
    "executor_log_path": (
        "https://storage.example.test/7/2026/11/20/12345678901234567890/testResult.log"
    ),
    "screen_resolution": "1920x1080",
    "user_id": 5,
    "project_id": 2,
    "plan_id": 3,
    "scenario_id": 21,
    "execution_id": 900,
    "company_id": 7,
    "user_info": USER_INFO,
    "start_date": "2026-11-20T09:15:00Z",
}

EXECUTION: dict[str, Any] = {
    "id": 900,
    "user_id": 5,
    "username": "ada",
    "company_id": 7,
    "project_id": 2,
    "project_name": "Web shop",
    "plan_id": 3,
    "plan_name": "Checkout smoke",
    "test_results": [900001, 900002],
    "runtime": 125000,
    "result_summary": {"SUCCESS": 1, "FAILURE": 1},
    "start_date": "2026-11-20T09:15:00Z",
    "end_date": "2026-11-20T09:17:05Z",
    "test_result_status_counts": "[SUCCESS, 1, FAILURE, 1]",
}

ALERT: dict[str, Any] = {
    "alert_type": "EMAIL",
    "alert_sending_status": "EVERY_TEST",
    "target": "qa-lead@example.test",
    "plan_id": 3,
    "enabled": True,
    "unsubscribe_link_eliminated": False,
}

TEST_PLAN: dict[str, Any] = {
    "id": 3,
    "type": "APPIUM",
    "project_id": 2,
    "project_name": "Web shop",
    "company_id": 7,
    "plan_name": "Checkout smoke",
    "scenarios": [21, 22, 23],
    "alerts": [ALERT],
    "enabled": True,
    "group_plan": False,
    "plan_parallel_test_limit": 4,
    "failed_test_retry_count": 1,
    "alerts_enabled_result": True,
    "project_enabled": True,
    "test_run_type": "CROSS",
    "created_at": "2026-08-01T10:00:00Z",
    "updated_at": "2026-11-01T10:00:00+03:00",
    "created_by": "ada",
    "updated_by": "grace",
    "tracker_enabled": False,
    "screen_shot_type": "ONLY_FAILURE",
    "video_enabled": True,
    "test_plan_java_parameters": ["-Xmx512m"],
    "performance_data_enabled": True,
    "file_download_path": "/downloads",
    "clear_app_data": True,
    "uninstall_app_after_test": False,
}


def page(
    items: list[dict[str, Any]],
    *,
    current: int = 1,
    total_count: int | None = None,
    page_count: int = 1,
    next_page: str = "",
    previous_page: str = "",
) -> dict[str, Any]:
    return {
        "current_page": current,
        "total_count": len(items) if total_count is None else total_count,
        "page_count": page_count,
        "next_page": next_page,
        "previous_page": previous_page,
        "item_list": items,
        "rest_api_url": "https://svc.example.test/Api/api",
    }


def execution(execution_id: int, **changes: Any) -> dict[str, Any]:
    record = copy.deepcopy(EXECUTION)
    record["id"] = execution_id
    record.update(changes)
    return record


def with_changes(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(record)
    out.update(changes)
    return out


def without(record: dict[str, Any], *fields: str) -> dict[str, Any]:
    return {key: value for key, value in copy.deepcopy(record).items() if key not in fields}
