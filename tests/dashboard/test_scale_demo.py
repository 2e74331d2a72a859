"""The pages find each case planted at scale (`sandbox/data/scale.py`) in a demo of 100,000
executions: the flaky page its flaky scenario, the environments page its Firefox-only failure,
the standup its slower plan and its broken one, plan health the slower plan's doubling (about
+100 %) and the red plans first. Marked slow: the sandbox takes a while to build.

The sandbox's clock is this hour's, so the standup's "since the last standup" and the pages'
lookbacks, which count back from the wall clock for a configured service, meet its history.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from api_client import ApiClient
from sandbox import RunningSandbox, SandboxSettings, serve_in_thread
from sandbox.data import scale
from tests.dashboard.apptest import (
    ENVIRONMENTS,
    FLAKY,
    HEALTH,
    STANDUP,
    assert_no_failure,
    table_with,
)
from tests.dashboard.conftest import AppFactory, Connect, user

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def scale_sandbox() -> Iterator[RunningSandbox]:
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    with serve_in_thread(SandboxSettings(executions=100_000, now=now)) as running:
        yield running


@pytest.fixture(scope="module")
def plan_ids(scale_sandbox: RunningSandbox) -> dict[str, int]:
    """Case -> the id of the plan that holds it."""
    lead = user(scale_sandbox)
    with ApiClient(
        base_url=scale_sandbox.base_url, token=lead.token, company_id=lead.company_id
    ) as client:
        plans = {p.plan_name: p.id for p in client.plans(active=False)}
    return {spec.case: plans[spec.name] for spec in scale.PLANS}


def scenario_ids(scale_sandbox: RunningSandbox, plan_id: int) -> list[int]:
    lead = user(scale_sandbox)
    with ApiClient(
        base_url=scale_sandbox.base_url, token=lead.token, company_id=lead.company_id
    ) as client:
        return next(list(p.scenarios) for p in client.plans(active=False) if p.id == plan_id)


def test_the_flaky_page_finds_the_flaky_scenario_and_no_other(
    app: AppFactory, connect: Connect, scale_sandbox: RunningSandbox, plan_ids: dict[str, int]
) -> None:
    connect(scale_sandbox)
    plan = plan_ids[scale.FLAKY]
    at = app(FLAKY, tz="UTC", plan=str(plan))

    at.run()

    assert_no_failure(at)
    flaky = table_with(at, "Evidence", "Timeline")
    case = scenario_ids(scale_sandbox, plan)[0]
    assert set(flaky["Scenario"]) == {case}
    assert "all environments" in set(flaky["Environment"])


@pytest.mark.parametrize("case", [scale.BROKEN, scale.ENVIRONMENT_SPECIFIC, scale.OUTAGE])
def test_a_broken_an_environment_specific_or_an_outage_plan_is_not_flaky(
    case: str,
    app: AppFactory,
    connect: Connect,
    scale_sandbox: RunningSandbox,
    plan_ids: dict[str, int],
) -> None:
    connect(scale_sandbox)
    at = app(FLAKY, tz="UTC", plan=str(plan_ids[case]))

    at.run()

    assert_no_failure(at)
    assert table_with(at, "Evidence", "Timeline").empty


def test_the_environments_page_finds_the_firefox_only_failure(
    app: AppFactory, connect: Connect, scale_sandbox: RunningSandbox, plan_ids: dict[str, int]
) -> None:
    connect(scale_sandbox)
    plan = plan_ids[scale.ENVIRONMENT_SPECIFIC]
    at = app(ENVIRONMENTS, tz="UTC", plan=str(plan))

    at.run()

    assert_no_failure(at)
    specific = table_with(at, "Runs elsewhere", "History")
    case = scenario_ids(scale_sandbox, plan)[0]
    assert list(zip(specific["Scenario"], specific["Environment"], strict=True)) == [
        (case, "FIREFOX / Windows 10")  # named without its version (#38)
    ]
    assert (specific["Failed"] == specific["Runs"]).all()


def test_the_standup_finds_the_slower_plan_and_the_broken_one(
    app: AppFactory, connect: Connect, scale_sandbox: RunningSandbox
) -> None:
    connect(scale_sandbox)
    at = app(STANDUP, tz="UTC")

    at.run()

    assert_no_failure(at)
    items = next(d.value for d in at.dataframe if list(d.value.columns)[:2] == ["Section", "Plan"])
    by_section = items.groupby("Section")["Plan"].apply(set)
    assert scale.plan_of(scale.SLOWER).name in by_section["Slower"]
    still_failing = by_section["Still failing"]
    assert scale.plan_of(scale.BROKEN).name in still_failing
    assert scale.plan_of(scale.ENVIRONMENT_SPECIFIC).name in still_failing


def test_plan_health_reads_the_slower_plan_about_doubled_and_lists_the_red_plans_first(
    app: AppFactory, connect: Connect, scale_sandbox: RunningSandbox
) -> None:
    connect(scale_sandbox)
    at = app(HEALTH, tz="UTC")

    at.run()

    assert_no_failure(at)
    table = table_with(at, "Now", "Runtime trend").set_index("Plan")
    trend = table.loc[scale.plan_of(scale.SLOWER).name, "Runtime trend"]
    assert trend.startswith("+"), trend
    assert int(trend.removeprefix("+").removesuffix(" %")) / 100 == pytest.approx(1.0, abs=0.3)
    failing = [now.startswith("\u2716") for now in table["Now"]]
    assert failing == sorted(failing, reverse=True), "red plans first"
    for case in (scale.BROKEN, scale.ENVIRONMENT_SPECIFIC):
        assert table.loc[scale.plan_of(case).name, "Now"].startswith("\u2716"), case
