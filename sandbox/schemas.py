"""Response bodies, with JSON field names exactly as in the spec (sections 2.1-2.6).

The sandbox keeps its own models and never imports the client's: if the two drift apart,
contract tests between them fail instead of both silently agreeing on a mistake.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class EnvironmentRecord(BaseModel):
    """Spec 2.2."""

    id: int
    name: str
    operating_system: str
    browser_type: str
    environment_type: str
    environment_version: str
    enabled: bool
    operating_system_clean_name: str
    mobile: bool


class UserInfoRecord(BaseModel):
    """Spec 2.3. `access_token` is a recognisable fake ("demo-at-...") standing for a credential."""

    id: int
    name: str
    surname: str
    username: str
    email: str
    enabled: bool
    account_non_expired: bool
    account_non_locked: bool
    credential_non_expired: bool
    language: str
    time_zone: str
    company: str
    company_id: int
    current_company: str
    current_company_id: int
    roles: list[str]
    access_token: str


class ResultRecord(BaseModel):
    """Spec 2.1: one test result. `runtime` is in seconds."""

    id: int
    level: str
    runtime: int = Field(description="Duration in seconds")
    environment: EnvironmentRecord
    session_id: str
    message: str
    screenshots_enabled: bool
    screen_shot_type: str
    video_enabled: bool
    performance_data_enabled: bool
    test_key: str
    video_format: str
    node_log_path: str
    executor_log_path: str
    screen_resolution: str
    user_id: int
    project_id: int
    plan_id: int
    scenario_id: int
    execution_id: int
    company_id: int
    user_info: UserInfoRecord
    start_date: datetime


class ExecutionRecord(BaseModel):
    """Spec 2.4: one execution of a plan. `runtime` is in milliseconds."""

    id: int
    user_id: int
    username: str
    company_id: int
    project_id: int
    project_name: str
    plan_id: int
    plan_name: str
    test_results: list[int]
    runtime: int = Field(description="Duration in milliseconds")
    result_summary: dict[str, int]
    start_date: datetime
    end_date: datetime
    test_result_status_counts: str


class ExecutionPage(BaseModel):
    """Spec 2.5. Page links are absolute URLs, or "" when there is no such page."""

    current_page: int
    total_count: int
    page_count: int
    next_page: str
    previous_page: str
    item_list: list[ExecutionRecord]
    rest_api_url: str


class AlertRecord(BaseModel):
    """Element of a plan's `alerts` (spec 2.6)."""

    alert_type: str
    alert_sending_status: str
    target: str
    plan_id: int
    enabled: bool
    unsubscribe_link_eliminated: bool


class PlanRecord(BaseModel):
    """Spec 2.6. Fields left as None are absent from the JSON (the operation drops nulls):
    `updated_at`, `performance_data_enabled` and `file_download_path` sometimes, and
    `clear_app_data` / `uninstall_app_after_test` on every non-APPIUM plan."""

    id: int
    type: str
    project_id: int
    project_name: str
    company_id: int
    plan_name: str
    scenarios: list[int]
    alerts: list[AlertRecord]
    enabled: bool
    group_plan: bool
    plan_parallel_test_limit: int
    failed_test_retry_count: int
    alerts_enabled_result: bool
    project_enabled: bool
    test_run_type: str
    created_at: datetime
    updated_at: datetime | None = None
    created_by: str
    updated_by: str
    tracker_enabled: bool
    screen_shot_type: str
    video_enabled: bool
    test_plan_java_parameters: list[str]
    performance_data_enabled: bool | None = None
    file_download_path: str | None = None
    clear_app_data: bool | None = None
    uninstall_app_after_test: bool | None = None


class ErrorBody(BaseModel):
    """The error shape seen on the real platform: a code and a human-readable message."""

    error: str
    message: str


class AuthErrorBody(BaseModel):
    """A 401 from the authentication layer, shaped like Spring Security's OAuth2 body; the
    token endpoint's refusals take the same shape (RFC 6749 section 5.2)."""

    error: str
    error_description: str


class TokenAnswer(BaseModel):
    """The token endpoint's answer (RFC 6749 section 5.1)."""

    access_token: str
    token_type: str = "bearer"  # noqa: S105 - the kind of token, not one
    expires_in: int
    refresh_token: str | None = None
    scope: str
