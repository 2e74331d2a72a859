"""GET /api/plans/lazy (spec 4.3 and 2.6)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from sandbox import DemoUser
from tests.sandbox.helpers import (
    ALERT_FIELDS,
    PLAN_OPTIONAL_FIELDS,
    PLAN_REQUIRED_FIELDS,
    PLANS,
    UserPicker,
    assert_error,
    company_headers,
)

Plan = dict[str, Any]
MOBILE_ONLY = {"clear_app_data", "uninstall_app_after_test"}


def _plans(http: httpx.Client, user: DemoUser, **params: str | int | bool) -> list[Plan]:
    response = http.get(PLANS, params=params, headers=company_headers(user))
    assert response.status_code == 200, response.text
    plans: list[Plan] = response.json()
    return plans


@pytest.fixture(scope="module")
def every_plan(http: httpx.Client, demo_user: UserPicker) -> list[Plan]:
    """The plans of both companies, active or not."""
    return [p for c in (1, 2) for p in _plans(http, demo_user(company_id=c), active=False)]


def test_active_is_the_default_and_means_enabled_in_an_enabled_project(
    http: httpx.Client, demo_user: UserPicker, every_plan: list[Plan]
) -> None:
    for company_id in (1, 2):
        user = demo_user(company_id=company_id)
        default = _plans(http, user)
        assert default == _plans(http, user, active=True)
        expected = [
            p["id"]
            for p in every_plan
            if p["company_id"] == company_id and p["enabled"] and p["project_enabled"]
        ]
        assert [p["id"] for p in default] == expected


def test_active_false_lists_every_plan_including_disabled_ones(
    http: httpx.Client, demo_user: UserPicker
) -> None:
    user = demo_user()
    everything = _plans(http, user, active=False)
    active = _plans(http, user)
    assert {p["id"] for p in active} < {p["id"] for p in everything}
    assert any(not p["enabled"] for p in everything)
    assert any(not p["project_enabled"] for p in everything)
    assert [p["id"] for p in everything] == sorted(p["id"] for p in everything)


def test_project_filter(http: httpx.Client, demo_user: UserPicker, every_plan: list[Plan]) -> None:
    user = demo_user()
    projects = {p["project_id"] for p in every_plan if p["company_id"] == 1}
    assert len(projects) >= 3
    for project_id in projects:
        found = _plans(http, user, projectId=project_id, active=False)
        assert found
        assert {p["project_id"] for p in found} == {project_id}
    other_company_project = next(p["project_id"] for p in every_plan if p["company_id"] == 2)
    assert _plans(http, user, projectId=other_company_project, active=False) == []


@pytest.mark.parametrize(
    "params", [{"active": "maybe"}, {"projectId": "web"}, {"projectId": "1.5"}]
)
def test_malformed_parameters_are_invalid_request(
    http: httpx.Client, demo_user: UserPicker, params: dict[str, str]
) -> None:
    response = http.get(PLANS, params=params, headers=company_headers(demo_user()))
    assert_error(response, 400, "INVALID_REQUEST")


def test_plans_have_the_spec_fields(every_plan: list[Plan]) -> None:
    for plan in every_plan:
        assert PLAN_REQUIRED_FIELDS <= set(plan) <= PLAN_REQUIRED_FIELDS | PLAN_OPTIONAL_FIELDS
        assert 3 <= len(plan["scenarios"]) <= 12
        assert plan["type"] in {"SELENIUM", "APPIUM"}
        assert plan["test_run_type"] in {"CROSS", "SEQUENCE"}
        assert plan["screen_shot_type"] in {"YES", "NO", "ONLY_FAILURE"}
        for alert in plan["alerts"]:
            assert set(alert) == ALERT_FIELDS
            assert alert["plan_id"] == plan["id"]
            assert (alert["alert_type"], alert["alert_sending_status"]) == ("EMAIL", "EVERY_TEST")
            assert "@" in alert["target"]


def test_mobile_only_fields_appear_on_appium_plans_only(every_plan: list[Plan]) -> None:
    assert {p["type"] for p in every_plan} == {"SELENIUM", "APPIUM"}
    for plan in every_plan:
        if plan["type"] == "APPIUM":
            assert set(plan) >= MOBILE_ONLY
        else:
            assert not MOBILE_ONLY & set(plan)


def test_optional_fields_are_sometimes_absent_never_null(every_plan: list[Plan]) -> None:
    for field in ("updated_at", "performance_data_enabled", "file_download_path"):
        assert any(field in p for p in every_plan), field
        assert any(field not in p for p in every_plan), field
    assert any(p.get("file_download_path") == "" for p in every_plan)
    assert all(value is not None for p in every_plan for value in p.values())


def test_some_plans_have_alerts_and_some_have_none(every_plan: list[Plan]) -> None:
    assert any(p["alerts"] for p in every_plan)
    assert any(not p["alerts"] for p in every_plan)
