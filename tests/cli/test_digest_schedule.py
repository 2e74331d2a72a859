"""The worker's daily digest: exactly once per day and store, on the days of the week it names.

Two senders run `worker.send_if_due` at the same moment (a barrier) on one store, a DuckDB file
or a PostgreSQL schema, against the sandbox over loopback, and send to a webhook receiver on
loopback: one message arrives, and the store notes the day. The days of the week are checked
with a fixed clock: the digest is not due on a Saturday by default, and is with `mon-sun`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from datetime import time as time_of_day
from pathlib import Path

import pytest
import typer
from pydantic import SecretStr

from dashboard.cli import parse
from dashboard.cli.common import Parsed
from dashboard.cli.connections import Target
from dashboard.cli.digest import WORKING_DAYS, DigestOptions, parse_weekdays
from dashboard.cli.worker import DIGEST_SENT_DAY, DigestSchedule, due_day, send_if_due
from dashboard.data.connection import Connection
from dashboard.data.store import open_for
from dashboard.data.store.pg_pool import close_pool
from sandbox import RunningSandbox
from tests.cli.conftest import Cli
from tests.cli.webhook import Receiver
from tests.store.conftest import lead_of

MONDAY = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
SATURDAY = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
EVERY_DAY = frozenset(range(7))

# apprise, imported in this process here (the other digest tests run it in a child), still
# imports the standard library's deprecated `imghdr`.
pytestmark = pytest.mark.filterwarnings("ignore:'imghdr' is deprecated:DeprecationWarning")


def schedule(receiver: Receiver, weekdays: frozenset[int] = WORKING_DAYS) -> DigestSchedule:
    return DigestSchedule(
        at=time_of_day(9, 15),
        options=DigestOptions(to=receiver.url("daily"), dashboard_url="http://dash.example/"),
        weekdays=weekdays,
    )


def target_of(running: RunningSandbox) -> Target:
    lead = lead_of(running)
    return Target(
        "shop",
        Connection(base_url=running.base_url, token=SecretStr(lead.token), company_id=1),
    )


@pytest.fixture(params=["duckdb", "postgresql"])
def store_env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    """Where the senders' store is: a DuckDB file in a folder of the test, or PostgreSQL."""
    if request.param == "duckdb":
        yield {"QA_DASHBOARD_CACHE_DIR": str(tmp_path / "stores")}
        return
    url: str = request.getfixturevalue("pg_url")
    yield {"QA_DASHBOARD_STORE_URL": url}
    close_pool(url)


def test_two_senders_at_once_on_one_store_send_the_days_digest_once(
    live_sandbox: RunningSandbox,
    receiver: Receiver,
    store_env: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = target_of(live_sandbox)
    with open_for(target.connection, secrets={}, env=store_env):
        pass  # made and migrated once: the race under test is the digest's, not the schema's
    daily = schedule(receiver)
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def sender() -> None:
        try:
            start.wait()  # both at once (each thread is there: no deadline needed)
            send_if_due(daily, target, {}, store_env, wait=120.0, now=MONDAY)
        except BaseException as error:  # a sender's failure fails the test below
            errors.append(error)

    threads = [threading.Thread(target=sender) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()  # no limit of its own: pytest-timeout ends a hang

    assert errors == []
    # Both senders have returned: whatever they sent has been answered by the receiver.
    assert len(receiver.messages) == 1, "the day's digest was sent twice"
    assert "**Turned red**" in receiver.messages[0]["message"]
    logged = capsys.readouterr().out
    assert logged.count("digest of shop for 2026-11-23 sent") == 1, logged
    with open_for(target.connection, secrets={}, env=store_env) as kept:
        assert kept.meta()[DIGEST_SENT_DAY] == "2026-11-23"


def test_the_digest_waits_for_its_days_of_the_week_on_a_fixed_clock(
    live_sandbox: RunningSandbox, receiver: Receiver, tmp_path: Path
) -> None:
    env = {"QA_DASHBOARD_CACHE_DIR": str(tmp_path / "stores")}
    target = target_of(live_sandbox)

    send_if_due(schedule(receiver), target, {}, env, wait=60.0, now=SATURDAY)
    assert receiver.messages == [], "sent on a Saturday by default"

    send_if_due(schedule(receiver, EVERY_DAY), target, {}, env, wait=60.0, now=SATURDAY)
    assert len(receiver.messages) == 1, "mon-sun sends on Saturdays too"

    send_if_due(schedule(receiver), target, {}, env, wait=60.0, now=MONDAY)
    assert len(receiver.messages) == 2, "the next working day's digest goes out"


def test_due_days_follow_the_weekdays_in_the_digests_zone() -> None:
    monday_6_utc = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)  # Sunday 22:00 in Los Angeles
    utc = DigestSchedule(at=time_of_day(0, 0), options=DigestOptions(to="-", dashboard_url=None))
    los_angeles = DigestSchedule(
        at=time_of_day(0, 0),
        options=DigestOptions(to="-", dashboard_url=None, tz="America/Los_Angeles"),
    )
    assert due_day(utc, monday_6_utc, None) == "2026-11-23"
    assert due_day(los_angeles, monday_6_utc, None) is None  # a Sunday there
    sunday_to_thursday = DigestSchedule(
        at=time_of_day(0, 0),
        options=DigestOptions(to="-", dashboard_url=None),
        weekdays=parse_weekdays("sun-thu"),
    )
    assert due_day(sunday_to_thursday, datetime(2026, 11, 22, 8, tzinfo=UTC), None) == "2026-11-22"
    assert due_day(sunday_to_thursday, datetime(2026, 11, 20, 8, tzinfo=UTC), None) is None


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("mon-fri", {0, 1, 2, 3, 4}),
        ("Mon,Wed,FRI", {0, 2, 4}),
        ("sun-thu", {6, 0, 1, 2, 3}),
        ("fri-mon", {4, 5, 6, 0}),
        ("saturday, sunday", {5, 6}),
        ("mon-sun", set(range(7))),
        ("tue", {1}),
    ],
)
def test_weekdays_read_as_people_write_them(text: str, days: set[int]) -> None:
    assert parse_weekdays(text) == frozenset(days)


@pytest.mark.parametrize("text", ["", "funday", "mo", "mon-", "t", "mon;fri", "mon-fri-sat"])
def test_days_that_are_not_days_are_refused(text: str) -> None:
    with pytest.raises(typer.BadParameter, match="not days of the week"):
        parse_weekdays(text)


def test_the_worker_takes_digest_weekdays_and_defaults_to_monday_to_friday(cli: Cli) -> None:
    default = parse(["store", "sync", "--digest-at", "09:15", "--digest-to", "-"])
    assert isinstance(default, Parsed)
    assert default.args.digest_weekdays == WORKING_DAYS
    chosen = parse(["store", "sync", "--digest-at", "09:15", "--digest-weekdays", "sat,sun"])
    assert isinstance(chosen, Parsed)
    assert chosen.args.digest_weekdays == frozenset({5, 6})

    wrong = cli("store", "sync", "--digest-at", "09:15", "--digest-weekdays", "funday")
    assert wrong.returncode == 2
    assert "not days of the week like mon-fri" in wrong.stderr
    assert "Traceback" not in wrong.stderr
