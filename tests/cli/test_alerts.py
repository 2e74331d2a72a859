"""The worker's alerts: one message per change at a webhook on loopback, with a link to its
evidence; found again by the next pass or another worker, never sent twice; a refusing webhook
tried again next pass; quiet hours; the per-plan and per-project choice; marks that expire
tomorrow or look fixed. The worker runs in this process (`python -m dashboard`'s `main`) and, for
two workers on one store, as two real processes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from datetime import time as time_of_day
from pathlib import Path

import pytest

from dashboard.analytics.alerts import AlertChoice, Change
from dashboard.cli import main
from dashboard.cli.alerts import AlertOptions, alert_pass, is_quiet
from dashboard.cli.connections import Target
from dashboard.data.connection import resolve
from dashboard.data.store import open_for
from dashboard.data.store.marks import MarkDraft, MarkTarget
from tests.cli.conftest import REPO, cli_env
from tests.cli.plan_service import PLAN_ID, PROJECT_ID, PlanService, service_env
from tests.cli.webhook import Receiver
from tests.cli.worker_process import Worker

# apprise, imported in this process here, still imports the deprecated `imghdr`.
pytestmark = pytest.mark.filterwarnings("ignore:'imghdr' is deprecated:DeprecationWarning")

DASHBOARD = "https://qa.example.com/"
GREEN = ("SUCCESS", "SUCCESS", "SUCCESS", "SUCCESS")
RED = ("SUCCESS", "FAILURE", "SUCCESS", "SUCCESS")


def sync(env: dict[str, str], receiver: Receiver, *more: str) -> int:
    """One pass of the worker (sync, then its alerts) in this process."""
    return main(
        [
            "store",
            "sync",
            "--quiet",
            "--alerts-to",
            receiver.url("alerts"),
            "--dashboard-url",
            DASHBOARD,
            *more,
        ],
        env,
    )


def titles(receiver: Receiver) -> list[str]:
    return [str(m.get("title")) for m in receiver.messages]


def test_a_plan_turned_red_is_announced_once_then_green_again_once(
    service: PlanService, env: dict[str, str], receiver: Receiver
) -> None:
    for _ in range(3):
        service.add(*GREEN)
    red = service.add(*RED)
    assert sync(env, receiver) == 0  # (4 runs: too few for a scenario's state)
    assert titles(receiver) == ["Red: plan 5 “Checkout” failed"]
    message = str(receiver.messages[0]["message"])
    assert f"Execution {red}" in message
    assert f"failed after execution {red - 1} passed: 1 of 4 verdicts failed" in message
    assert f"{DASHBOARD}compare?plan={PLAN_ID}&before={red - 1}&after={red}" in message

    assert sync(env, receiver) == 0  # found again: not sent again
    assert len(receiver.messages) == 1

    green = service.add(*GREEN)
    assert sync(env, receiver) == 0
    # With its fifth run scenario 52 (PPPFP) has flipped twice: flaky, said too.
    assert titles(receiver)[1:] == [
        "Flaky: scenario 52 of plan 5 “Checkout”",
        "Green again: plan 5 “Checkout” passed",
    ]
    assert f"Execution {green}" in str(receiver.messages[2]["message"])
    assert sync(env, receiver) == 0
    assert len(receiver.messages) == 3


def test_a_refusing_webhook_gets_the_change_again_next_pass_and_it_is_sent_once(
    service: PlanService,
    env: dict[str, str],
    receiver: Receiver,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service.add(*GREEN)
    service.add(*RED)
    receiver.refusing = True
    sync(env, receiver)
    assert receiver.refused >= 1
    assert receiver.messages == []
    assert "the json:// destination refused" in capsys.readouterr().out

    receiver.refusing = False
    sync(env, receiver)
    sync(env, receiver)
    assert titles(receiver) == ["Red: plan 5 “Checkout” failed"]


def test_quiet_hours_hold_the_changes_until_they_end(
    service: PlanService, env: dict[str, str], receiver: Receiver
) -> None:
    service.add(*GREEN)
    service.add(*RED)
    sync(env, receiver, "--days", "3")  # fill the store; alerts sent nowhere yet is fine
    receiver.messages.clear()
    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    now = datetime.now(UTC)
    around = ((now - timedelta(hours=1)).time(), (now + timedelta(hours=1)).time())
    options = AlertOptions(
        to=receiver.url("alerts"), dashboard_url=DASHBOARD, choice=AlertChoice(), quiet=around
    )
    target = Target("default", connection)
    with open_for(connection, secrets={}, env=env) as store:
        store_before = store.alert_counts()
    assert store_before == (1, 1)  # noticed and sent by the first pass

    service.add(*GREEN)
    sync(env, receiver, "--alerts-on", "none")  # stored; nothing announced by this pass
    line = alert_pass(options, target, {}, env, wait=30.0, now=now)
    assert line.endswith("1 new, 1 held for the quiet hours")
    assert receiver.messages == []
    later = now + timedelta(hours=2)
    line = alert_pass(options, target, {}, env, wait=30.0, now=later)
    assert line.endswith("0 new, 1 sent")
    assert titles(receiver) == ["Green again: plan 5 “Checkout” passed"]


def test_quiet_hours_may_span_midnight_in_their_zone() -> None:
    options = AlertOptions(
        to="json://x",
        dashboard_url=DASHBOARD,
        choice=AlertChoice(),
        quiet=(time_of_day(20), time_of_day(7)),
        tz="Europe/Berlin",
    )
    assert is_quiet(options, datetime(2026, 11, 24, 19, 30, tzinfo=UTC))  # 20:30 in Berlin
    assert is_quiet(options, datetime(2026, 11, 24, 5, 59, tzinfo=UTC))  # 06:59
    assert not is_quiet(options, datetime(2026, 11, 24, 6, 0, tzinfo=UTC))  # 07:00
    assert not is_quiet(options, datetime(2026, 11, 24, 18, 59, tzinfo=UTC))  # 19:59


def change(kind: str, plan_id: int | None, project_id: int | None) -> Change:
    return Change(
        key=kind, kind=kind, plan_id=plan_id, project_id=project_id, plan=None,
        execution_id=None, start=None,
    )  # fmt: skip


def test_a_plans_choice_comes_before_its_projects_and_the_default() -> None:
    choice = AlertChoice(
        default=frozenset({"red", "broken"}),
        plans=((5, frozenset({"green"})),),
        projects=((1, frozenset()),),
    )
    assert choice.wanted(change("green", 5, 1))
    assert not choice.wanted(change("red", 5, 1))  # the plan says only green
    assert not choice.wanted(change("red", 6, 1))  # its project says none
    assert choice.wanted(change("red", 6, 2))  # the default
    assert not choice.wanted(change("flaky", 6, 2))
    assert choice.wanted(change("broken", None, None))


def test_the_choice_on_the_command_line_silences_a_plan_or_its_project(
    service: PlanService, env: dict[str, str], receiver: Receiver
) -> None:
    service.add(*GREEN)
    service.add(*RED)
    sync(env, receiver, "--alerts-for", f"project:{PROJECT_ID}=none")
    sync(env, receiver, "--alerts-for", f"plan:{PLAN_ID}=green")
    assert receiver.messages == []
    sync(env, receiver, "--alerts-on", "red", "--alerts-for", f"project:{PROJECT_ID}=all")
    assert titles(receiver) == ["Red: plan 5 “Checkout” failed"]


def test_a_scenario_that_became_broken_or_flaky_is_announced_with_its_history_link(
    service: PlanService, env: dict[str, str], receiver: Receiver
) -> None:
    # 53 fails every run, 54 flips every run: with the fifth run each has enough runs.
    for index in range(5):
        service.add("SUCCESS", "SUCCESS", "FAILURE", "SUCCESS" if index % 2 == 0 else "FAILURE")
    sync(env, receiver)
    by_title = {str(m["title"]): str(m["message"]) for m in receiver.messages}
    assert set(by_title) == {
        "Broken: scenario 53 of plan 5 “Checkout”",
        "Flaky: scenario 54 of plan 5 “Checkout”",
    }
    assert "failed 5 of its last 5 runs" in by_title["Broken: scenario 53 of plan 5 “Checkout”"]
    assert "4 flips in 5 runs" in by_title["Flaky: scenario 54 of plan 5 “Checkout”"]
    assert (
        f"{DASHBOARD}scenario?plan=5&scenario=53"
        in by_title["Broken: scenario 53 of plan 5 “Checkout”"]
    )
    sync(env, receiver)
    assert len(receiver.messages) == 2


def test_a_mark_that_expires_tomorrow_or_looks_fixed_is_announced(
    service: PlanService, env: dict[str, str], receiver: Receiver
) -> None:
    for _ in range(10):
        service.add(*GREEN)
    sync(env, receiver, "--alerts-on", "expiring,looks-fixed")  # the store knows the history
    assert receiver.messages == []
    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    tomorrow = datetime.now(UTC).date() + timedelta(days=1)
    with open_for(connection, secrets={}, env=env) as store:
        for scenario, expires in ((52, None), (53, tomorrow)):
            store.add_mark(
                1,
                MarkDraft(
                    MarkTarget("scenario", plan_id=PLAN_ID, scenario_id=scenario),
                    "known_issue",
                    ticket="https://tracker.example/QA-7",
                    expires_on=expires,
                ),
                by="ann",
            )
    sync(env, receiver, "--alerts-on", "expiring,looks-fixed")
    got = sorted(titles(receiver))
    # The two marks that look fixed are one message, a line each.
    assert got == [
        "Known failure expires tomorrow: scenario 53 of plan 5",
        "Known failures look fixed: 2 marks",
    ]
    fixed = next(str(m["message"]) for m in receiver.messages if "2 marks" in str(m["title"]))
    items = sorted(line for line in fixed.splitlines() if line.startswith("- "))
    assert [line.split(":")[0] for line in items] == [
        "- The mark on scenario 52 of plan 5",
        "- The mark on scenario 53 of plan 5",
    ]
    assert all("0 failures in its last 10 runs" in line for line in items)
    assert all(f"]({DASHBOARD}known)" in line for line in items)
    assert all("Ticket: [https:\u2060//tracker\u2060.example/QA-7]" in line for line in items)
    sync(env, receiver, "--alerts-on", "expiring,looks-fixed")
    assert len(receiver.messages) == 2


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--alerts-to", "json://127.0.0.1:9/x"], "public address"),
        (["--alerts-quiet", "20:00-07:00"], "need --alerts-to"),
        (["--alerts-to", "nonsense", "--dashboard-url", DASHBOARD], "does not understand"),
    ],
)
def test_alert_options_that_cannot_work_are_refused_before_any_pass(
    args: list[str], says: str, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["store", "sync", *args], env) == 2
    assert says in capsys.readouterr().err


@pytest.mark.slow
def test_two_worker_processes_on_one_store_send_one_message_per_change(
    service: PlanService, receiver: Receiver, tmp_path: Path
) -> None:
    for _ in range(3):
        service.add(*GREEN)
    service.add(*RED)
    env = cli_env(tmp_path / "cache", service_env(service))
    args = [
        "--every",
        "10s",
        "--alerts-to",
        receiver.url("alerts"),
        "--dashboard-url",
        DASHBOARD,
        "--alerts-on",
        "red,green",
        "--wait",
        "60",
    ]
    workers = [Worker(args, env, REPO) for _ in range(2)]
    try:
        for worker in workers:
            worker.wait_for("alerts of default:", count=2)
        assert titles(receiver) == ["Red: plan 5 “Checkout” failed"]
        service.add(*GREEN)
        for worker in workers:
            seen = sum("alerts of default:" in line for line in worker.lines)
            worker.wait_for("alerts of default:", count=seen + 2)
        assert titles(receiver) == [
            "Red: plan 5 “Checkout” failed",
            "Green again: plan 5 “Checkout” passed",
        ]
    finally:
        for worker in workers:
            worker.stop()
    sent = [line for w in workers for line in w.lines if "alerts of default:" in line]
    assert sum(" 1 sent" in line for line in sent) == 2, "\n".join(sent)
    assert "plan-service-token" not in "\n".join(line for w in workers for line in w.lines)


@pytest.fixture(params=["duckdb", "postgresql"])
def store_env(
    request: pytest.FixtureRequest, service: PlanService, tmp_path: Path
) -> Iterator[dict[str, str]]:
    """The service, and where the store is: a DuckDB file in a folder of the test, or PostgreSQL."""
    if request.param == "duckdb":
        yield {**service_env(service), "QA_DASHBOARD_CACHE_DIR": str(tmp_path / "stores")}
        return
    from dashboard.data.store.pg_pool import close_pool

    url: str = request.getfixturevalue("pg_url")
    yield {**service_env(service), "QA_DASHBOARD_STORE_URL": url}
    close_pool(url)


def test_two_senders_at_once_on_one_store_send_each_change_once(
    service: PlanService, store_env: dict[str, str], receiver: Receiver
) -> None:
    import threading

    service.add(*GREEN)
    service.add(*RED)
    sync(store_env, receiver, "--alerts-on", "none")  # the store holds the history
    connection = resolve(session=None, secrets={}, env=store_env).connection
    assert connection is not None
    options = AlertOptions(to=receiver.url("alerts"), dashboard_url=DASHBOARD, choice=AlertChoice())
    target = Target("default", connection)
    barrier = threading.Barrier(2)
    lines: list[str] = []

    def sender() -> None:
        barrier.wait()
        lines.append(alert_pass(options, target, {}, store_env, wait=120.0))

    threads = [threading.Thread(target=sender) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()  # no limit of its own: pytest-timeout ends a hang
    assert titles(receiver) == ["Red: plan 5 “Checkout” failed"]
    assert sorted(line.rsplit(", ", 1)[-1] for line in lines) == ["0 sent", "1 sent"], lines
    with open_for(connection, secrets={}, env=store_env) as store:
        assert store.alert_counts() == (1, 1)


def test_the_destination_may_come_from_the_secrets_file_and_is_never_printed(
    service: PlanService,
    env: dict[str, str],
    receiver: Receiver,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service.add(*GREEN)
    service.add(*RED)
    secrets = tmp_path / "worker.toml"
    hook = receiver.url("hook-secret-5e1f")
    secrets.write_text(f'[alerts]\nto = "{hook}"\n\n[dashboard]\npublic_url = "{DASHBOARD}"\n')
    assert main(["store", "sync", "--quiet", "--secrets", str(secrets)], env) == 0
    assert titles(receiver) == ["Red: plan 5 “Checkout” failed"]
    assert receiver.paths == ["/hook-secret-5e1f"]
    printed = capsys.readouterr()
    assert "alerts of default: 1 new, 1 sent" in printed.out
    assert "hook-secret-5e1f" not in printed.out + printed.err


HOSTILE_PLAN = (
    "<!channel> @here [Checkout](https://evil.example/login) <https://evil.example|x> \u202eexe.txt"
)


def test_hostile_plan_names_reach_the_chat_as_text(
    service: PlanService,
    env: dict[str, str],
    receiver: Receiver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.cli import plan_service

    monkeypatch.setattr(plan_service, "PLAN_NAME", HOSTILE_PLAN)
    service.add(*GREEN)
    service.add(*RED)
    assert sync(env, receiver) == 0
    [message] = receiver.messages
    title, body = str(message["title"]), str(message["message"])
    for text in (title, body):
        for raw in (
            "<!channel>",
            "@here",
            "<https://evil",
            "](https://evil",
            "\u202e",
            "evil.example",
        ):
            assert raw not in text, text
    assert "@\u2060here" in title
    assert "\\<\u2060!channel\\>" in title
    # The one link is the evidence's, on the dashboard.
    assert body.count("](") == 1
    assert f"]({DASHBOARD}compare?plan={PLAN_ID}&" in body


def note_changes(env: dict[str, str], found: list[Change]) -> None:
    """Note `found` in the store as a pass would (what a flood of changes leaves pending)."""
    from dashboard.cli.alerts import evidence_link
    from dashboard.data.store.alerts import Alert
    from dashboard.present.alerts import alert_body, alert_title

    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    with open_for(connection, secrets={}, env=env) as store:
        store.note_alerts(
            Alert(
                key=c.key,
                kind=c.kind,
                plan_id=c.plan_id,
                project_id=c.project_id,
                title=alert_title(c),
                body=alert_body(c, None),
                link=evidence_link(c),
            )
            for c in found
        )


def red_plan(plan_id: int, name: str = "Checkout") -> Change:
    return Change(
        key=f"red:plan {plan_id}:execution {plan_id * 10}", kind="red", plan_id=plan_id,
        project_id=1, plan=name, execution_id=plan_id * 10, start=None,
        previous_execution_id=plan_id * 10 - 1, detail="1 of 4 verdicts failed",
    )  # fmt: skip


def broken_scenario(plan_id: int, scenario_id: int) -> Change:
    return Change(
        key=f"broken:plan {plan_id}:scenario {scenario_id}:execution 7", kind="broken",
        plan_id=plan_id, project_id=1, plan="Checkout", execution_id=7, start=None,
        scenario_id=scenario_id, detail="failed 10 of its last 10 runs",
    )  # fmt: skip


def one_pass(env: dict[str, str], receiver: Receiver, *, most: int | None = None) -> str:
    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    options = AlertOptions(to=receiver.url("alerts"), dashboard_url=DASHBOARD, choice=AlertChoice())
    if most is not None:
        options = AlertOptions(
            to=options.to, dashboard_url=DASHBOARD, choice=AlertChoice(), most=most
        )
    return alert_pass(options, Target("default", connection), {}, env, wait=30.0)


def test_a_flood_of_changes_is_capped_and_the_rest_said_in_one_message(
    env: dict[str, str], receiver: Receiver
) -> None:
    from dashboard.cli.alerts import MAX_MESSAGES

    note_changes(env, [red_plan(plan_id) for plan_id in range(1, 121)])

    line = one_pass(env, receiver)

    assert len(receiver.messages) == MAX_MESSAGES + 1
    assert all(t.startswith("Red: plan ") for t in titles(receiver)[:MAX_MESSAGES])
    summary = receiver.messages[-1]
    more = 120 - MAX_MESSAGES
    assert str(summary["title"]) == f"And {more} more changes"
    assert f"and {more} more changes ({more} red)" in str(summary["message"])
    assert f"]({DASHBOARD})" in str(summary["message"])
    assert line.endswith(f"0 new, 120 sent in {MAX_MESSAGES + 1} messages")
    # Every change is announced: the next pass sends nothing.
    assert one_pass(env, receiver).endswith("0 new, 0 sent")
    assert len(receiver.messages) == MAX_MESSAGES + 1


def test_the_cap_may_be_chosen_and_a_flood_of_hostile_names_stays_text(
    service: PlanService, env: dict[str, str], receiver: Receiver
) -> None:
    note_changes(env, [red_plan(plan_id, HOSTILE_PLAN) for plan_id in range(1, 9)])

    one_pass(env, receiver, most=3)

    assert len(receiver.messages) == 4
    assert "and 5 more changes" in str(receiver.messages[-1]["message"])
    everything = "\n".join(f"{m['title']}\n{m['message']}" for m in receiver.messages)
    for raw in ("<!channel>", "@here", "<https://evil", "](https://evil", "\u202e"):
        assert raw not in everything


def test_changes_of_one_kind_in_one_plan_are_one_message(
    env: dict[str, str], receiver: Receiver
) -> None:
    note_changes(
        env,
        [red_plan(5), *(broken_scenario(5, s) for s in range(100, 130)), broken_scenario(6, 1)],
    )

    assert one_pass(env, receiver).endswith("0 new, 32 sent in 3 messages")

    assert sorted(titles(receiver)) == [
        "Broken: 30 scenarios of plan 5 “Checkout”",
        "Broken: scenario 1 of plan 6 “Checkout”",
        "Red: plan 5 “Checkout” failed",
    ]
    grouped = next(str(m["message"]) for m in receiver.messages if "30 scenarios" in m["title"])
    items = [line for line in grouped.splitlines() if line.startswith("- ")]
    assert len(items) == 11  # ten scenarios, then "and 20 more"
    assert items[0].startswith("- Scenario 100 is broken as of execution 7")
    assert f"]({DASHBOARD}scenario?plan=5&scenario=100)" in items[0]
    assert items[-1].startswith("- and 20 more")


def test_the_cap_comes_from_the_command_line(env: dict[str, str], receiver: Receiver) -> None:
    note_changes(env, [red_plan(plan_id) for plan_id in range(1, 4)])

    assert sync(env, receiver, "--alerts-max", "1") == 0

    assert titles(receiver) == ["Red: plan 1 “Checkout” failed", "And 2 more changes"]


@pytest.mark.parametrize("most", ["0", "-3", "ten", "1001"])
def test_a_cap_that_is_no_number_of_messages_is_refused(
    most: str, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["store", "sync", "--alerts-to", "json://127.0.0.1:9/x", "--alerts-max", most], env)
    assert code == 2
    assert "not a number of messages from 1 to 1000" in capsys.readouterr().err


def test_a_plan_red_only_in_an_outage_neither_turned_red_nor_is_green_again(
    service: PlanService, env: dict[str, str], receiver: Receiver
) -> None:
    for _ in range(3):
        service.add(*GREEN)
    night = service.add("FAILURE", "FAILURE", "FAILURE", "FAILURE")
    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    with open_for(connection, secrets={}, env=env) as store:  # the team confirms the outage
        store.add_mark(
            1, MarkDraft(MarkTarget("execution", execution_id=night), "outage"), by="ann"
        )
    assert sync(env, receiver) == 0
    assert titles(receiver) == []
    service.add(*GREEN)
    assert sync(env, receiver) == 0
    assert titles(receiver) == []  # no "Green again" after a night the grid was down
    red = service.add(*RED)
    assert sync(env, receiver) == 0
    assert titles(receiver) == ["Red: plan 5 “Checkout” failed"]
    message = str(receiver.messages[0]["message"])
    # The one before that passed is the green after the outage, and the split is said.
    assert f"failed after execution {red - 1} passed: 1 of 4 verdicts failed (1 " in message
