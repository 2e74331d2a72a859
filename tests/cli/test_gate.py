"""The quality gate: its exit codes on hand-built histories served over loopback, its waiting on
a clock the test drives (no sleeping), known failures that do not fail it, and a run against the
sandbox as a real process."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dashboard.cli import gate, parse
from dashboard.cli.common import CliError, Parsed
from dashboard.data.connection import resolve
from dashboard.data.store import open_for
from dashboard.data.store.marks import MarkDraft, MarkTarget
from sandbox import RunningSandbox
from tests.cli.conftest import Cli
from tests.cli.plan_service import PLAN_ID, SCENARIOS, PlanService, service_env
from tests.store.conftest import lead_of


class DrivenClock:
    """A clock that moves only when the gate sleeps; `on_sleep` runs at each of its sleeps."""

    def __init__(self, on_sleep: Callable[[int], None] = lambda n: None) -> None:
        self.seconds = 0.0
        self.sleeps = 0
        self.on_sleep = on_sleep

    def monotonic(self) -> float:
        return self.seconds

    def sleep(self, seconds: float) -> None:
        self.seconds += seconds
        self.sleeps += 1
        self.on_sleep(self.sleeps)

    def now(self) -> datetime:
        return datetime.now(UTC)


def run_gate(
    args: list[str],
    env: dict[str, str],
    clock: DrivenClock | None = None,
    capsys: pytest.CaptureFixture[str] | None = None,
) -> tuple[int, str]:
    """The gate's exit code (as `python -m dashboard` maps a `CliError`) and what it printed."""
    # The default secrets file, relative to the working folder: the repository has none.
    parsed = parse(["gate", *args])
    assert isinstance(parsed, Parsed)
    try:
        code = gate.run(parsed.args, env, clock or DrivenClock())
    except CliError as error:
        print(f"error: {error}")
        code = error.code
    out = capsys.readouterr().out if capsys is not None else ""
    return code, out


GREEN = ("SUCCESS", "SUCCESS", "SUCCESS", "SUCCESS")
ONE_FAILED = ("SUCCESS", "FAILURE", "SUCCESS", "SUCCESS")


def test_a_green_execution_passes_and_a_failure_fails_with_its_scenario_and_links(
    service: PlanService, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    service.add(*ONE_FAILED)
    green = service.add(*GREEN)
    code, out = run_gate(
        ["--plan", str(PLAN_ID), "--dashboard-url", "https://qa.example.com/"], env, None, capsys
    )
    assert code == gate.PASS, out
    assert out.startswith(f"PASS: plan {PLAN_ID} (Checkout), execution {green}: 0 unresolved")
    assert "pass rate 100.00%" in out
    assert f"https://qa.example.com/results?plan={PLAN_ID}&execution={green}&started=" in out

    red = service.add(*ONE_FAILED)
    code, out = run_gate(["--plan", str(PLAN_ID)], env, None, capsys)
    assert code == gate.FAIL, out
    assert out.startswith(f"FAIL: plan {PLAN_ID} (Checkout), execution {red}: 1 unresolved")
    assert "1 unresolved failure (at most 0 allowed)" in out
    assert "- scenario 52 on CHROME / Windows 10: FAILURE: AssertionError" in out
    assert f"scenario?plan={PLAN_ID}&scenario=52" in out

    # The older green one, by id, still passes; one of another plan is refused (exit 2).
    assert run_gate(["--plan", str(PLAN_ID), "--execution", str(green)], env)[0] == gate.PASS
    code, out = run_gate(["--plan", str(PLAN_ID), "--execution", "999"], env, None, capsys)
    assert code == 2
    assert "execution 999 is not an execution of plan 5" in out


def test_a_known_failure_does_not_fail_the_gate_but_the_thresholds_count_the_rest(
    service: PlanService, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    service.add("SUCCESS", "FAILURE", "FAILURE", "SUCCESS")
    assert run_gate(["--plan", str(PLAN_ID)], env, None, capsys)[0] == gate.FAIL  # 2 unresolved
    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    with open_for(connection, secrets={}, env=env) as store:
        store.add_mark(
            1,
            MarkDraft(MarkTarget("scenario", plan_id=PLAN_ID, scenario_id=52), "known_issue"),
            by="ann",
        )
    code, out = run_gate(["--plan", str(PLAN_ID)], env, None, capsys)
    assert code == gate.FAIL
    assert "1 unresolved; 1 known; pass rate" in out
    assert "scenario 53" in out
    assert "scenario 52" not in out

    # One unresolved allowed: the pass rate without the known failure is 2 of 3.
    code, out = run_gate(["--plan", str(PLAN_ID), "--max-unresolved", "1"], env, None, capsys)
    assert code == gate.PASS, out
    assert "pass rate 66.67% without known failures (2 of 3 verdicts)" in out
    code, out = run_gate(
        ["--plan", str(PLAN_ID), "--max-unresolved", "1", "--min-pass-rate", "70"],
        env,
        None,
        capsys,
    )
    assert code == gate.FAIL
    assert "pass rate 66.67% without known failures (at least 70.00% needed)" in out


def test_the_gate_waits_for_the_execution_to_finish_on_its_clock(
    service: PlanService, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    running = service.add(*GREEN, running=True)

    def finish_at_third_sleep(sleeps: int) -> None:
        if sleeps == 3:
            service.finish(running, *ONE_FAILED)

    clock = DrivenClock(finish_at_third_sleep)
    code, out = run_gate(
        ["--plan", str(PLAN_ID), "--wait", "30m", "--poll", "20s"], env, clock, capsys
    )
    assert code == gate.FAIL, out  # judged once finished, on its final results
    assert clock.sleeps == 3
    assert clock.seconds == 60
    assert f"execution {running}: 1 unresolved" in out


def test_an_execution_still_running_after_the_wait_is_no_verdict_exit_3(
    service: PlanService, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    running = service.add(*GREEN, running=True)
    clock = DrivenClock()
    code, out = run_gate(
        ["--plan", str(PLAN_ID), "--wait", "60s", "--poll", "15s"], env, clock, capsys
    )
    assert code == 3
    assert clock.seconds == 60
    assert clock.sleeps == 4
    assert f"execution {running} of plan {PLAN_ID} is still running after 60 s" in out
    # --wait 0 judges only a finished one: no sleeping at all.
    clock = DrivenClock()
    assert run_gate(["--plan", str(PLAN_ID), "--wait", "0"], env, clock)[0] == 3
    assert clock.sleeps == 0


def test_a_service_that_refuses_is_exit_3_and_a_store_that_cannot_be_opened_exit_4(
    service: PlanService, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.loopback_service import serve_json

    with serve_json(lambda path: (401, {"error": "UNAUTHORIZED"}), name="refusing") as url:
        code, out = run_gate(
            ["--plan", str(PLAN_ID)], {**env, "QA_DASHBOARD_BASE_URL": url}, None, capsys
        )
    assert code == 3
    assert "refused the token (401)" in out
    assert "plan-service-token" not in out

    service.add(*GREEN)
    unreachable = "postgresql://gate:secret-pw@127.0.0.1:9/qa?connect_timeout=2"
    code, out = run_gate(
        ["--plan", str(PLAN_ID)], {**env, "QA_DASHBOARD_STORE_URL": unreachable}, None, capsys
    )
    assert code == 4, out
    assert "secret-pw" not in out


@pytest.mark.parametrize(
    "args",
    [
        ["--plan", "x"],
        ["--plan", "5", "--min-pass-rate", "101"],
        ["--plan", "5", "--wait", "soon"],
        ["--plan", "5", "--max-unresolved", "-1"],
        ["--plan", "5", "--execution", "first"],
    ],
)
def test_bad_arguments_are_exit_2(cli: Cli, args: list[str]) -> None:
    done = cli("gate", *args)
    assert done.returncode == 2
    assert "usage:" in done.stderr


def test_the_gate_against_the_sandbox_says_what_its_latest_execution_says(
    cli: Cli, live_sandbox: RunningSandbox
) -> None:
    """A real process against the sandbox: the verdict agrees with the execution's own counts
    (no marks: any failure fails it)."""
    from pydantic import SecretStr

    from api_client import ApiClient, ExecutionQuery
    from dashboard.data.frames import summary_columns

    lead = lead_of(live_sandbox)
    with ApiClient(
        base_url=live_sandbox.base_url, token=SecretStr(lead.token), company_id=1
    ) as client:
        plans = client.plans()
        finished = None
        for plan in plans[:10]:
            page = client.executions(1, 1, query=ExecutionQuery(plan_id=plan.id))
            newest = page.item_list[0] if page.item_list else None
            if (
                newest is not None
                and summary_columns(newest.end_date, newest.result_summary)["finished"]
            ):
                finished = (plan.id, page.item_list[0])
                break
    assert finished is not None
    plan_id, latest = finished
    summary = latest.result_summary
    failed = summary.get("FAILURE", 0) + summary.get("ERROR", 0)
    done = cli(
        "gate",
        "--plan",
        str(plan_id),
        "--wait",
        "0",
        env={
            "QA_DASHBOARD_BASE_URL": live_sandbox.base_url,
            "QA_DASHBOARD_TOKEN": lead.token,
            "QA_DASHBOARD_COMPANY_ID": "1",
        },
    )
    assert done.returncode == (1 if failed else 0), done.stdout + done.stderr
    assert f"execution {latest.id}: {failed} unresolved" in done.stdout
    assert lead.token not in done.stdout + done.stderr


# -- a service that answers what a test shapes: results it does not list yet, hostile names ------


@dataclass
class ShapedService(PlanService):
    """The plan service, with pairs whose results it does not list yet (an empty answer, as a
    service gives while it is still writing them) and the plan name and failure message a test
    plants (hostile text)."""

    hidden: set[tuple[int, int]] = field(default_factory=set)
    plan_name: str | None = None
    message: str | None = None

    def results(self, execution_id: int, scenario_id: int) -> list[dict[str, Any]]:
        if (execution_id, scenario_id) in self.hidden:
            return []
        answer = super().results(execution_id, scenario_id)
        if self.message is not None:
            for record in answer:
                if record["message"] is not None:
                    record["message"] = self.message
        return answer

    def execution(self, run: Any) -> dict[str, Any]:
        record = super().execution(run)
        if self.plan_name is not None:
            record["plan_name"] = self.plan_name
        return record

    def answer(self, target: str) -> tuple[int, Any]:
        status, body = super().answer(target)
        if self.plan_name is not None and target.startswith("/api/plans/lazy"):
            for plan in body:
                plan["plan_name"] = self.plan_name
        return status, body


@pytest.fixture
def shaped(tmp_path: Path) -> Iterator[tuple[ShapedService, dict[str, str]]]:
    from tests.loopback_service import serve_json

    service = ShapedService()
    with serve_json(service.answer, name="shaped-plan-service") as base_url:
        service.base_url = base_url
        env = {**service_env(service), "QA_DASHBOARD_CACHE_DIR": str(tmp_path / "stores")}
        yield service, env


def store_of(env: dict[str, str]) -> Any:
    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    return open_for(connection, secrets={}, env=env)


def test_results_short_of_the_summary_are_no_verdict_and_are_not_kept_as_final(
    shaped: tuple[ShapedService, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    """The High defect of #35: the service counts a failure it does not list yet. The gate
    said PASS on 1 of 2 verdicts, and stored the empty answer, so it passed ever after."""
    service, env = shaped
    red = service.add("SUCCESS", "FAILURE", "SUCCESS", "SUCCESS")
    service.hidden.add((red, 52))
    code, out = run_gate(["--plan", str(PLAN_ID)], env, None, capsys)
    assert code == 3, out
    assert "results incomplete: 1 failure counted by the service is not in its results" in out
    assert "PASS" not in out
    with store_of(env) as store:  # nothing of the short answer is kept as final
        assert store.stored_pairs([(red, s) for s in SCENARIOS]).empty

    service.hidden.clear()  # the service lists it now: the next run fetches it, and fails
    code, out = run_gate(["--plan", str(PLAN_ID)], env, None, capsys)
    assert code == gate.FAIL, out
    assert "- scenario 52 on CHROME / Windows 10: FAILURE" in out


def test_a_short_answer_a_page_stored_earlier_is_fetched_again_not_judged(
    shaped: tuple[ShapedService, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    from pydantic import SecretStr

    from api_client import ApiClient
    from dashboard.data.results_fanout import fetch_results

    service, env = shaped
    red = service.add("SUCCESS", "FAILURE", "SUCCESS", "SUCCESS")
    service.hidden.add((red, 52))
    pairs = [(red, s) for s in SCENARIOS]
    with (
        ApiClient(base_url=service.base_url, token=SecretStr("t"), company_id=1) as client,
        store_of(env) as store,
    ):  # what a page's fan-out (no summary to check against) keeps
        assert fetch_results(client, pairs, finished=[red], store=store).counts.stored == 4
    service.hidden.clear()
    code, out = run_gate(["--plan", str(PLAN_ID)], env, None, capsys)
    assert code == gate.FAIL, out
    assert "1 unresolved failure" in out


def test_the_gate_prints_every_mark_it_applied_and_can_refuse_marks_without_an_expiry(
    service: PlanService, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    service.add("SUCCESS", "FAILURE", "FAILURE", "SUCCESS")
    until = (datetime.now(UTC) + timedelta(days=30)).date()
    with store_of(env) as store:
        lasting = store.add_mark(
            1,
            MarkDraft(
                MarkTarget("scenario", plan_id=PLAN_ID, scenario_id=52),
                "known_issue",
                ticket="https://jira.example.com/browse/QA-7",
                expires_on=until,
            ),
            by="ann",
        )
        forever = store.add_mark(
            1,
            MarkDraft(MarkTarget("scenario", plan_id=PLAN_ID, scenario_id=53), "accepted"),
            by="bob",
        )
    code, out = run_gate(["--plan", str(PLAN_ID)], env, None, capsys)
    assert code == gate.PASS, out
    assert "Marks applied (2):" in out
    assert (
        f"- mark {lasting} (known_issue) by ann, ticket https://jira.example.com/browse/"
        f"QA-7, until {until:%Y-%m-%d}: 1 failure" in out
    )
    assert f"- mark {forever} (accepted) by bob, no ticket, no expiry: 1 failure" in out

    code, out = run_gate(["--plan", str(PLAN_ID), "--require-mark-expiry"], env, None, capsys)
    assert code == gate.FAIL, out
    assert "1 unresolved; 1 known; pass rate" in out
    assert "- scenario 53 on" in out
    assert "Marks not used: 1 without an expiry (--require-mark-expiry)." in out
    assert forever not in out.split("Marks applied")[1].split("Marks not used")[0]


HOSTILE = "Checkout\n::error::pwned\r\n##vso[task.setvariable variable=x]1\u202egnp.exe\x1b[31m"


def test_the_gates_output_is_inert_one_line_each_without_control_or_bidi_characters(
    shaped: tuple[ShapedService, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    service, env = shaped
    service.plan_name = HOSTILE
    service.message = "boom\n::error file=x::owned\u2066 hidden\u2069\u0007"
    service.add(*ONE_FAILED)
    code, out = run_gate(["--plan", str(PLAN_ID)], env, None, capsys)
    assert code == gate.FAIL, out
    assert "::error" in out  # shown, as text inside a line
    for line in out.splitlines():
        assert not line.startswith(("::", "##")), line
        assert not [c for c in line if unicodedata.category(c) in ("Cc", "Cf")], repr(line)
    assert len(out.splitlines()) == 5, out  # verdict, reason, results, heading, one failure


def test_a_plan_that_does_not_exist_is_said_at_once_not_waited_for(
    service: PlanService, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    clock = DrivenClock()
    code, out = run_gate(["--plan", "99", "--wait", "30m"], env, clock, capsys)
    assert code == 2, out
    assert "plan 99 does not exist" in out
    assert clock.sleeps == 0

    # The plan exists but has not run yet: that is worth waiting for.
    def run_at_second_sleep(sleeps: int) -> None:
        if sleeps == 2:
            service.add(*GREEN)

    clock = DrivenClock(run_at_second_sleep)
    code, out = run_gate(["--plan", str(PLAN_ID), "--poll", "15s"], env, clock, capsys)
    assert code == gate.PASS, out
    assert clock.sleeps == 2

    clock = DrivenClock()
    code, out = run_gate(["--plan", str(PLAN_ID), "--execution", "4242"], env, clock, capsys)
    assert code == 2, out
    assert "execution 4242 is not an execution of plan 5" in out
    assert clock.sleeps == 0


def test_a_store_file_that_is_garbage_is_exit_4_without_a_traceback(
    cli: Cli, service: PlanService, tmp_path: Path
) -> None:
    from dashboard.data.store.location import store_path

    service.add(*ONE_FAILED)
    env = {**service_env(service), "QA_DASHBOARD_CACHE_DIR": str(tmp_path / "garbage")}
    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    path = store_path(connection, secrets={}, env=env)
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_bytes(os.urandom(64 * 1024))
    done = cli("gate", "--plan", str(PLAN_ID), "--wait", "0", env=env)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "PASS" not in done.stdout
    assert "FAIL" not in done.stdout


def test_a_store_file_cut_short_is_exit_4_not_an_empty_store_judged_without_marks(
    service: PlanService, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from dashboard.data.store.location import store_path

    service.add(*ONE_FAILED)
    with store_of(env) as store:
        store.add_mark(
            1,
            MarkDraft(MarkTarget("scenario", plan_id=PLAN_ID, scenario_id=52), "known_issue"),
            by="ann",
        )
    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    path = store_path(connection, secrets={}, env=env)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 3])
    code, out = run_gate(["--plan", str(PLAN_ID)], env, None, capsys)
    assert code == 4, out
    assert "the history store cannot be read" in out
    assert path.read_bytes() == whole[: len(whole) // 3]  # not swapped for an empty one


def test_an_outage_mark_lets_its_execution_through_named_in_the_log(
    service: PlanService, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    night = service.add("FAILURE", "FAILURE", "FAILURE", "SUCCESS")
    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    with open_for(connection, secrets={}, env=env) as store:
        mark_id = store.add_mark(
            1, MarkDraft(MarkTarget("execution", execution_id=night), "outage"), by="ann"
        )
    code, out = run_gate(["--plan", str(PLAN_ID)], env, None, capsys)
    assert code == gate.PASS, out
    # Each failure's verdict is the confirmed outage, counted as such (as every page counts
    # it); the outage mark let them through.
    assert (
        f"execution {night}: 0 unresolved; 3 in a likely outage "
        "(3 of them let through by a mark), 0 known; pass rate" in out
    )
    assert f"- mark {mark_id} (outage) by ann, no ticket, no expiry: 3 failures" in out


def test_the_labels_read_the_plans_history_the_store_already_holds(
    service: PlanService, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(3):  # each judged, so the store holds its results
        service.add("SUCCESS", "SUCCESS", "SUCCESS", "SUCCESS")
        assert run_gate(["--plan", str(PLAN_ID)], env)[0] == gate.PASS
    red = service.add("SUCCESS", "FAILURE", "SUCCESS", "SUCCESS")
    code, out = run_gate(["--plan", str(PLAN_ID)], env, None, capsys)
    assert code == gate.FAIL
    # Scenario 52 passed its three runs before: its first failure is new (from the store, no
    # request for the earlier runs).
    assert f"execution {red}: 1 unresolved (1 new); 0 known; pass rate" in out
