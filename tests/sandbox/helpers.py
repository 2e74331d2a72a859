"""Small helpers for calling the sandbox over HTTP in tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from sandbox import DemoUser

# The type of the `demo_user` fixture (tests/conftest.py).
UserPicker = Callable[..., DemoUser]

RESULTS = "/api/results/execution/{execution_id}/scenario/{scenario_id}"
FILTER = "/api/executions/filter"
PLANS = "/api/plans/lazy"

# Every key of each record, as listed in the spec (sections 2.1-2.6).
RESULT_FIELDS = {
    "id", "level", "runtime", "environment", "session_id", "message", "screenshots_enabled",
    "screen_shot_type", "video_enabled", "performance_data_enabled", "test_key", "video_format",
    "node_log_path", "executor_log_path", "screen_resolution", "user_id", "project_id",
    "plan_id", "scenario_id", "execution_id", "company_id", "user_info", "start_date",
}  # fmt: skip
ENVIRONMENT_FIELDS = {
    "id", "name", "operating_system", "browser_type", "environment_type", "environment_version",
    "enabled", "operating_system_clean_name", "mobile",
}  # fmt: skip
USER_INFO_FIELDS = {
    "id", "name", "surname", "username", "email", "enabled", "account_non_expired",
    "account_non_locked", "credential_non_expired", "language", "time_zone", "company",
    "company_id", "current_company", "current_company_id", "roles", "access_token",
}  # fmt: skip
EXECUTION_FIELDS = {
    "id", "user_id", "username", "company_id", "project_id", "project_name", "plan_id",
    "plan_name", "test_results", "runtime", "result_summary", "start_date", "end_date",
    "test_result_status_counts",
}  # fmt: skip
PAGE_FIELDS = {
    "current_page", "total_count", "page_count", "next_page", "previous_page", "item_list",
    "rest_api_url",
}  # fmt: skip
PLAN_REQUIRED_FIELDS = {
    "id", "type", "project_id", "project_name", "company_id", "plan_name", "scenarios", "alerts",
    "enabled", "group_plan", "plan_parallel_test_limit", "failed_test_retry_count",
    "alerts_enabled_result", "project_enabled", "test_run_type", "created_at", "created_by",
    "updated_by", "tracker_enabled", "screen_shot_type", "video_enabled",
    "test_plan_java_parameters",
}  # fmt: skip
PLAN_OPTIONAL_FIELDS = {
    "updated_at", "performance_data_enabled", "file_download_path", "clear_app_data",
    "uninstall_app_after_test",
}  # fmt: skip
ALERT_FIELDS = {
    "alert_type", "alert_sending_status", "target", "plan_id", "enabled",
    "unsubscribe_link_eliminated",
}  # fmt: skip


def headers(user: DemoUser, company_id: int | None = None) -> dict[str, str]:
    """Bearer auth for `user`, plus the company header when `company_id` is given."""
    result = {"Authorization": f"Bearer {user.token}"}
    if company_id is not None:
        result["current-company-id"] = str(company_id)
    return result


def company_headers(user: DemoUser) -> dict[str, str]:
    return headers(user, user.company_id)


def assert_error(response: httpx.Response, status: int, code: str) -> None:
    """The service's error: the status, and exactly `{"error": code, "message": <text>}`."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "message"}, body
    assert body["error"] == code, body
    assert isinstance(body["message"], str)
    assert body["message"]


def all_executions(
    client: httpx.Client, user: DemoUser, size: int = 1000, **filters: str | int
) -> list[dict[str, Any]]:
    """Every execution matching `filters`, walking the pages by their `next_page` links."""
    response = client.get(
        FILTER, params={"page": 1, "size": size, **filters}, headers=company_headers(user)
    )
    items: list[dict[str, Any]] = []
    while True:
        assert response.status_code == 200, response.text
        page = response.json()
        items += page["item_list"]
        if not page["next_page"]:
            return items
        response = client.get(page["next_page"], headers=company_headers(user))
