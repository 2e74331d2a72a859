"""The sync worker, `python -m dashboard store sync --every ...`, as a real process.

It is stopped with real signals: between passes and in the middle of one (a slow sandbox behind
a counting proxy shows when the pass is fetching results). Each test waits on what the worker
says or sends, never on a fixed sleep.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from datetime import UTC, datetime
from datetime import time as time_of_day
from pathlib import Path

import pytest

from dashboard.cli.digest import DigestOptions
from dashboard.cli.options import interval
from dashboard.cli.worker import DigestSchedule, due_day
from dashboard.data.store import HistoryStore
from sandbox import RunningSandbox
from tests.cli.conftest import Cli, cli_env
from tests.cli.webhook import Receiver
from tests.cli.worker_process import Worker
from tests.counting_proxy import counting_proxy
from tests.hostile_service import hostile_service
from tests.store.conftest import files_under, lead_of, secret_bytes
from tests.waiting import wait_until

# "Within seconds", load-proof: far below what a stop that waited would take (the hour's sleep;
# the rest of a minute-long pass, which the order of the lines also tells).
STOP_WITHIN = 60.0


@pytest.fixture
def workers(cache: Path, workdir: Path) -> Iterator[list[Worker]]:
    started: list[Worker] = []
    yield started
    for worker in started:
        worker.kill()


def start(
    workers: list[Worker], cache: Path, workdir: Path, *args: str, env: dict[str, str]
) -> Worker:
    worker = Worker(list(args), cli_env(cache, env), workdir)
    workers.append(worker)
    return worker


def service_env(url: str, running: RunningSandbox, company_id: int = 1) -> dict[str, str]:
    who = lead_of(running, company_id)
    return {
        "QA_DASHBOARD_BASE_URL": url,
        "QA_DASHBOARD_TOKEN": who.token,
        "QA_DASHBOARD_COMPANY_ID": str(company_id),
    }


def assert_no_token(text: str, running: RunningSandbox) -> None:
    for secret in secret_bytes(running):
        assert secret.decode() not in text


def stored_meta(path: Path) -> dict[str, str]:
    with HistoryStore.open(path, read_only=True, wait=30) as store:
        return store.meta()


# -- several connections, a clean stop between passes -------------------------------------------


def test_the_worker_syncs_each_connection_logs_a_line_per_pass_and_stops_on_sigterm(
    workers: list[Worker], cache: Path, workdir: Path, live_sandbox: RunningSandbox
) -> None:
    secrets = workdir / "worker.toml"
    secrets.write_text(
        "".join(
            f'[connections.shop{c}]\nbase_url = "{live_sandbox.base_url}"\n'
            f'token = "{lead_of(live_sandbox, c).token}"\ncompany_id = {c}\n\n'
            for c in (1, 2)
        ),
        encoding="utf-8",
    )
    worker = start(
        workers,
        cache,
        workdir,
        "--every",
        "1h",
        "--days",
        "7",
        "--secrets",
        str(secrets),
        "--connection",
        "shop1",
        "--connection",
        "shop2",
        "--name",
        "the worker",
        env={},
    )

    (first,) = worker.wait_for("sync shop1 (")
    (second,) = worker.wait_for("sync shop2 (")
    code, took = worker.stop(signal.SIGTERM)  # it is sleeping until the next pass (1 h)

    assert code == 0
    assert took < STOP_WITHIN
    assert "worker stopped by SIGTERM" in worker.lines[-1]
    assert "company 1)" in first
    assert "company 2)" in second
    for line in (first, second):
        assert "executions (" in line
        assert "stored" in line
        assert line.endswith(" s")
        assert "failed:" not in line
    assert_no_token("\n".join(worker.lines), live_sandbox)
    stores = files_under(cache)
    assert len([p for p in stores if p.suffix == ".duckdb"]) == 2
    for path in stores:
        if path.suffix == ".duckdb":
            meta = stored_meta(path)
            assert meta["last_sync_by"] == "the worker"
            synced = datetime.fromisoformat(meta["last_sync"])
            assert abs((datetime.now(UTC) - synced).total_seconds()) < 600


def test_named_connections_are_checked_and_named_without_their_values(
    cli: Cli, workdir: Path, live_sandbox: RunningSandbox
) -> None:
    token = lead_of(live_sandbox).token
    secrets = workdir / "worker.toml"
    secrets.write_text(f'[connections.half]\ntoken = "{token}"\ncompany_id = 1\n', encoding="utf-8")
    half = cli("store", "sync", "--secrets", str(secrets), "--connection", "half")
    assert half.returncode == 2
    assert "connection 'half' cannot be used" in half.stderr
    assert "base URL is missing" in half.stderr
    assert token not in half.stdout + half.stderr

    missing = cli("store", "sync", "--secrets", str(secrets), "--connection", "other")
    assert missing.returncode == 2
    assert "no table [connections.other]" in missing.stderr
    assert "the file has: half" in missing.stderr

    for bad in ("0s", "5x", "2d", "-1m"):
        wrong = cli("store", "sync", "--every", bad)
        assert wrong.returncode == 2, bad
        assert "Traceback" not in wrong.stderr


def test_from_cron_one_pass_per_connection_and_its_exit_code(
    cli: Cli, workdir: Path, live_sandbox: RunningSandbox
) -> None:
    secrets = workdir / "worker.toml"
    secrets.write_text(
        f'[connections.good]\nbase_url = "{live_sandbox.base_url}"\n'
        f'token = "{lead_of(live_sandbox).token}"\ncompany_id = 1\n\n'
        f'[connections.refused]\nbase_url = "{live_sandbox.base_url}"\n'
        'token = "not-a-token-the-service-knows"\ncompany_id = 1\n',
        encoding="utf-8",
    )
    once = cli(
        "store",
        "sync",
        "--days",
        "3",
        "--secrets",
        str(secrets),
        "--connection",
        "good",
        "--connection",
        "refused",
    )

    assert once.returncode == 3, once.stdout + once.stderr  # the worst of the passes
    lines = once.stdout.splitlines()
    assert len([line for line in lines if " sync " in line]) == 2
    good = next(line for line in lines if "sync good" in line)
    refused = next(line for line in lines if "sync refused" in line)
    assert "failed" not in good.split(";")[0]
    assert "refused the token (401)" in refused
    assert "not-a-token-the-service-knows" not in once.stdout + once.stderr


# -- a stop in the middle of a pass ---------------------------------------------------------------


# 300 ms before each request of the worker's pass makes the pass last a minute, so the signal
# comes in the middle of it; the sync after the stop runs without it.
LATENCY_S = 0.3


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_mid_pass_stops_the_worker_within_seconds_and_leaves_a_usable_store(
    workers: list[Worker],
    cache: Path,
    workdir: Path,
    cli: Cli,
    live_sandbox: RunningSandbox,
    sig: int,
) -> None:
    with counting_proxy(live_sandbox.base_url) as proxy:
        env = service_env(proxy.base_url, live_sandbox)
        proxy.delay = LATENCY_S
        worker = start(workers, cache, workdir, "--every", "5m", env=env)
        worker.wait_for("worker started")
        # Until the pass is fetching results (or the worker ended, with its lines).
        wait_until(
            lambda: proxy.count("results") >= 8,
            alive=worker.process,
            log=worker.output,
            what="8 results requests",
        )

        code, took = worker.stop(sig)

        assert code == 0, "\n".join(worker.lines)
        assert took < STOP_WITHIN, f"took {took:.1f} s"
        assert f"worker stopped by {signal.Signals(sig).name}" in worker.lines[-1]
        assert not any("Traceback" in line for line in worker.lines)
        assert not any(" sync default" in line for line in worker.lines), "the pass ended first"

        # The store is consistent: another sync opens it and completes what was left.
        proxy.delay = 0.0
        after = cli("store", "sync", "--days", "90", "--quiet", env=env)
        assert after.returncode == 0, after.stderr
        assert "last sync" in after.stdout


# A service that drips (or goes silent) holds each request up to the client's deadlines (a
# minute a response, two a call): a stop must not wait for them. Half a minute still tells a
# stop that waited for a deadline from one that did not, and leaves a loaded machine room.
STOP_BUDGET = 30.0


@pytest.mark.parametrize(
    "behaviour", ["drip", "drip-results", "silent-results", "slow-later-pages"]
)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_ends_the_worker_within_seconds_whatever_the_service_does(
    workers: list[Worker], cache: Path, workdir: Path, behaviour: str, sig: int
) -> None:
    with hostile_service(drip_interval=0.5) as service:
        env = {
            "QA_DASHBOARD_BASE_URL": service.url(behaviour),
            "QA_DASHBOARD_TOKEN": "a-token-the-hostile-service-takes",
            "QA_DASHBOARD_COMPANY_ID": "1",
        }
        # Back to before the hostile service's executions (1 November 2026), whatever today is.
        days = (datetime.now(UTC) - datetime(2026, 10, 1, tzinfo=UTC)).days + 1
        worker = start(workers, cache, workdir, "--every", "5m", "--days", str(days), env=env)
        worker.wait_for("worker started")
        # Wait until the service holds requests: the plans (drip), later pages, or results.
        held, count = {"drip": ("plans", 1), "slow-later-pages": ("executions", 3)}.get(
            behaviour, ("results", 4)
        )
        wait_until(
            lambda: sum(held in seen.path for seen in service.requests) >= count,
            alive=worker.process,
            log=worker.output,
            what=f"{count} {held} requests held",
        )

        code, took = worker.stop(sig)

    assert code == 0, "\n".join(worker.lines)
    assert took < STOP_BUDGET, f"took {took:.1f} s:\n" + "\n".join(worker.lines)
    assert f"worker stopped by {signal.Signals(sig).name}" in worker.lines[-1]
    assert not any("Traceback" in line for line in worker.lines), worker.lines


# -- the daily digest ----------------------------------------------------------------------------


def test_the_daily_digest_is_sent_once_a_day_however_many_passes(
    cli: Cli, receiver: Receiver, cache: Path
) -> None:
    digest = [
        "--days",
        "30",
        "--digest-at",
        "00:00",
        "--digest-tz",
        "UTC",
        "--digest-weekdays",
        "mon-sun",  # whatever day of the week the test runs on
        "--digest-to",
        receiver.url("daily"),
        "--dashboard-url",
        "http://dash.example/",
    ]
    first = cli("store", "sync", *digest)  # on the embedded demo
    assert first.returncode == 0, first.stdout + first.stderr
    assert "digest of default for " in first.stdout
    assert " sent" in first.stdout
    assert len(receiver.messages) == 1

    again = cli("store", "sync", *digest)
    assert again.returncode == 0, again.stderr
    assert "digest of default" not in again.stdout
    assert len(receiver.messages) == 1, "sent twice on the same day"
    assert "**Turned red**" in receiver.messages[0]["message"]


def test_the_digest_is_due_once_per_local_day_after_its_time() -> None:
    schedule = DigestSchedule(
        at=time_of_day(9, 15),
        options=DigestOptions(to="-", dashboard_url=None, tz="Europe/Berlin"),
    )
    morning = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)  # 09:00 in Berlin: too early
    later = datetime(2026, 11, 23, 8, 30, tzinfo=UTC)  # 09:30 in Berlin
    assert due_day(schedule, morning, None) is None
    assert due_day(schedule, later, None) == "2026-11-23"
    assert due_day(schedule, later, "2026-11-23") is None
    assert due_day(schedule, later, "2026-11-20") == "2026-11-23"
    past_midnight = datetime(2026, 11, 23, 23, 30, tzinfo=UTC)  # 00:30 on the 24th in Berlin
    assert due_day(schedule, past_midnight, "2026-11-23") is None
    next_morning = datetime(2026, 11, 24, 8, 30, tzinfo=UTC)
    assert due_day(schedule, next_morning, "2026-11-23") == "2026-11-24"


def test_intervals_read_as_people_write_them() -> None:
    assert interval("5m") == 300
    assert interval("90s") == 90
    assert interval("1h") == 3600
    assert interval("45") == 45
