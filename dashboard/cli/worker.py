"""The sync worker: `python -m dashboard store sync --every 5m [--connection NAME ...]`.

It keeps the history store of one or several connections current, so viewers never wait on the
service for finished history: a pass syncs each connection in turn, writes one log line per
connection (counts and duration, never a token), then sleeps until the next pass is due.

SIGTERM and SIGINT stop it within seconds whatever the service does, even mid-pass: the signal
raises `Stopped` in the main thread, which ends the fan-out (requests not started are dropped,
those in flight are abandoned at their next chunk and not waited for, what was fetched is
stored) and leaves the store consistent, as every step is one transaction. Between passes the
sleep simply ends. The exit code is then 0. A request the service holds without sending a byte
cannot be interrupted until its read times out, so the process then ends without waiting for
the threads still holding one (`leave`): all they could bring would be thrown away.

With `--digest-at 09:15 --digest-to URL` it also sends the standup digest of its first
connection once a day, at or after that local time, on the days of `--digest-weekdays` (Monday
to Friday by default); the day it last sent is kept in the store (`digest_sent_day`), so a
restart or a second pass the same day does not send it again. Exactly once per day and store,
however many workers share the store: the check, the sending and the note of the day happen
under the store's "digest" lock (an advisory lock on PostgreSQL, a `flock` beside a DuckDB
file), so a second worker waits, then finds the day sent. (A worker killed between sending and
noting the day sends it again on its next pass: a repeat, never a loss.)

With `--alerts-to URL` each connection's sync is followed by its alerts (`cli.alerts`): one
message per change found in the stored history, noted in the store so that it is sent once
however many workers share it.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from datetime import time as time_of_day
from types import FrameType
from typing import Any

from dashboard.cli.alerts import AlertOptions, alert_pass
from dashboard.cli.common import (
    INTERRUPTED,
    OK,
    PARTIAL,
    SERVICE,
    STORE,
    USAGE,
    Args,
    CliError,
    client_for,
    open_store,
    service_problem,
    store_problem,
)
from dashboard.cli.connections import Target
from dashboard.cli.digest import (
    WORKING_DAYS,
    DigestOptions,
    check_destination,
    dashboard_url,
    deliver,
    destination,
    standup_markdown,
)

DIGEST_SENT_DAY = "digest_sent_day"
DIGEST_LOCK = "digest"  # the store's lock held while the day's digest is checked and sent


class Stopped(BaseException):
    """Raised in the main thread by SIGTERM or SIGINT during a pass (BaseException, so that no
    `except Exception` on the way swallows it)."""


STOP_GRACE_S = 20.0
"""How long a stop may take before the process ends anyway. `Stopped` is raised wherever the
main thread is, and a library on the way may swallow it and go on waiting for a held request
(a minute a response): the promise is a stop within seconds whatever the service does. Ending
then loses nothing: what was stored is committed, and a sync killed mid-way is made whole by
the next (the store's SIGKILL tests)."""


class Stop:
    """The stop request: an event the loop sleeps on, raised as `Stopped` during a pass; past
    `grace` seconds after the signal the process ends with `forced_code` all the same."""

    def __init__(self, *, grace: float = STOP_GRACE_S, forced_code: int = INTERRUPTED) -> None:
        self.event = threading.Event()
        self.signal_name: str | None = None
        self.grace = grace
        self.forced_code = forced_code
        self._in_pass = False

    @classmethod
    @contextmanager
    def installed(cls, *, grace: float = STOP_GRACE_S) -> Iterator[Stop]:
        """A `Stop` that SIGTERM and SIGINT trigger, the previous handlers put back after."""
        stop = cls(grace=grace)
        previous = {
            sig: signal.signal(sig, stop._handle) for sig in (signal.SIGTERM, signal.SIGINT)
        }
        try:
            yield stop
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    @property
    def requested(self) -> bool:
        return self.event.is_set()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        global _stopped_by_signal
        _stopped_by_signal = True
        first = not self.event.is_set()
        self.signal_name = signal.Signals(signum).name
        self.event.set()
        if first:
            watchdog = threading.Timer(self.grace, self._end_anyway)
            watchdog.daemon = True  # a stop that ends in time ends the process without it
            watchdog.start()
        if first and self._in_pass:
            raise Stopped(self.signal_name)

    def _end_anyway(self) -> None:
        log(
            f"worker stopped by {self.signal_name}: the pass did not end within "
            f"{self.grace:g} s, so the process ends now (what was stored is kept)"
        )
        sys.stderr.flush()
        os._exit(self.forced_code)

    @contextmanager
    def in_pass(self) -> Iterator[None]:
        """While inside, a signal interrupts the work at once."""
        if self.event.is_set():
            raise Stopped(self.signal_name)
        self._in_pass = True
        try:
            yield
        finally:
            self._in_pass = False

    def sleep(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True when a stop was requested meanwhile."""
        return self.event.wait(max(0.0, seconds))


_stopped_by_signal = False


def leave(code: int) -> None:
    """End the process with `code`. After a stop, threads may still hold requests the fan-out
    abandoned (a silent service holds a read until it times out, a minute later): everything
    worth keeping is stored and the store closed, so the process ends without joining them.
    Otherwise it exits as usual."""
    stray = [
        thread
        for thread in threading.enumerate()
        if thread is not threading.main_thread() and not thread.daemon and thread.is_alive()
    ]
    if _stopped_by_signal and stray:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


@dataclass(frozen=True)
class PassLine:
    """One connection's pass, as the log line says it."""

    target: str
    code: int
    text: str


def log(text: str) -> None:
    print(f"{datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ} {text}", flush=True)


def sync_pass(
    target: Target,
    args: Args,
    secrets: Mapping[str, Any],
    env: Mapping[str, str],
) -> PassLine:
    """Sync one connection once; never raises for the service or the store (the line says)."""
    # Lazy: the client and the store load pydantic, pandas and DuckDB.
    from api_client import ApiError
    from dashboard.data.store.errors import StoreError
    from dashboard.data.sync import sync_history

    connection = target.connection
    host = "demo" if connection.is_demo else connection.host
    where = f"{target.name} ({host}, company {connection.company_id})"
    started = time.monotonic()

    def took() -> str:
        return f"{time.monotonic() - started:.1f} s"

    try:
        store = open_store(connection, secrets, env, wait=args.wait)
        with store, client_for(connection) as client:
            report = sync_history(
                client,
                store,
                days=args.days,
                now=connection.clock,
                max_concurrency=args.concurrency,
                synced_by=args.name,
                reader=connection.fingerprint,
            )
    except CliError as error:
        return PassLine(target.name, error.code, f"sync {where}: failed: {error}; {took()}")
    except ApiError as error:
        problem = service_problem(error, connection)
        return PassLine(target.name, SERVICE, f"sync {where}: failed: {problem}; {took()}")
    except StoreError as error:
        return PassLine(
            target.name, STORE, f"sync {where}: failed: {store_problem(error)}; {took()}"
        )
    counts = report.results
    code = STORE if report.store_error else PARTIAL if report.failures or report.skipped else OK
    text = (
        f"sync {where}: {report.executions:,} executions ({report.finished:,} finished, "
        f"{report.running:,} running), {report.plans:,} plans; results: {counts.pairs:,} pairs "
        f"missing, {counts.fetched:,} fetched, {counts.stored:,} stored, {counts.failed:,} "
        f"failed; {took()}"
    )
    if report.store_error is not None:
        text += f"; the store could not be written: {store_problem(report.store_error)}"
    return PassLine(target.name, code, text)


def run_once(
    targets: Sequence[Target],
    args: Args,
    secrets: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    stop: Stop,
    digest: DigestSchedule | None = None,
    alerts: AlertOptions | None = None,
) -> int:
    """One pass over every connection (from cron), each followed by its alerts, then the digest
    if it is due; the worst exit code of the passes."""
    worst = OK
    try:
        for target in targets:
            with stop.in_pass():
                line = sync_pass(target, args, secrets, env)
            log(line.text)
            worst = max(worst, line.code)
            if alerts is not None:
                with stop.in_pass():
                    log(alert_pass(alerts, target, secrets, env, wait=args.wait))
        if digest is not None:
            with stop.in_pass():
                send_if_due(digest, targets[0], secrets, env, wait=args.wait)
    except Stopped:
        log(f"stopped by {stop.signal_name}: what was fetched so far is kept")
        return INTERRUPTED
    return worst


def run_every(
    targets: Sequence[Target],
    args: Args,
    secrets: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    every: float,
    stop: Stop,
    digest: DigestSchedule | None,
    alerts: AlertOptions | None = None,
) -> int:
    """Pass after pass until a stop is requested; 0 on a stop (one that had to be forced, too)."""
    stop.forced_code = OK
    names = ", ".join(t.name for t in targets)
    log(f"worker started: {len(targets)} connection(s) ({names}), a pass every {every:.0f} s")
    try:
        while not stop.requested:
            began = time.monotonic()
            for target in targets:
                with stop.in_pass():
                    line = sync_pass(target, args, secrets, env)
                log(line.text)
                if alerts is not None:
                    with stop.in_pass():
                        log(alert_pass(alerts, target, secrets, env, wait=args.wait))
            if digest is not None:
                with stop.in_pass():
                    send_if_due(digest, targets[0], secrets, env, wait=args.wait)
            if stop.sleep(every - (time.monotonic() - began)):
                break
    except Stopped:
        pass
    log(f"worker stopped by {stop.signal_name or 'request'}")
    return OK


# -- the daily digest ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DigestSchedule:
    at: time_of_day
    options: DigestOptions
    weekdays: frozenset[int] = WORKING_DAYS  # `date.weekday()` numbers, in the digest's zone


def digest_schedule(
    args: Args, secrets: Mapping[str, Any], env: Mapping[str, str]
) -> DigestSchedule | None:
    """The worker's daily digest from --digest-at and its options; None without --digest-at."""
    # Lazy: analytics.windows imports pandas, needed only for a scheduled digest.
    from dashboard.analytics.windows import parse_time_of_day

    if args.digest_at is None:
        if args.digest_to is not None:
            raise CliError("--digest-to needs --digest-at HH:MM", USAGE)
        return None
    try:
        at = parse_time_of_day(args.digest_at)
    except ValueError:
        raise CliError(
            f"--digest-at: not a time of day like 09:15: {args.digest_at!r}", USAGE
        ) from None
    options = DigestOptions(
        to=destination(args.digest_to, secrets, env),
        dashboard_url=dashboard_url(args.dashboard_url, secrets, env),
        project=args.digest_project,
        at=at,
        tz=args.digest_tz,
    )
    check_destination(options)
    return DigestSchedule(at=at, options=options, weekdays=args.digest_weekdays)


def due_day(schedule: DigestSchedule, now: datetime, last_sent: str | None) -> str | None:
    """The local day (ISO) whose digest is due at `now`, or None: sent already, too early, or
    not one of the schedule's days of the week."""
    # Lazy: analytics.windows imports pandas.
    from dashboard.analytics.windows import zone

    local = now.astimezone(zone(schedule.options.tz))
    day = local.date().isoformat()
    if local.weekday() not in schedule.weekdays:
        return None
    if local.time().replace(tzinfo=None) < schedule.at or last_sent == day:
        return None
    return day


def send_if_due(
    schedule: DigestSchedule,
    target: Target,
    secrets: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    wait: float,
    now: datetime | None = None,
) -> None:
    """Send the day's digest when it is due and not sent yet, then note the day in the store,
    all under the store's digest lock: another worker on the same store waits (up to `wait`
    seconds, else it logs that the store is busy and looks again next pass), then finds the
    day noted. A digest that could not be computed or sent is logged and tried again on the
    next pass."""
    from dashboard.data.store.errors import StoreError  # lazy: the store loads DuckDB

    connection = target.connection
    try:
        store = open_store(connection, secrets, env, wait=wait)
        with store, store.exclusive(DIGEST_LOCK, wait=wait):
            day = due_day(schedule, now or datetime.now(UTC), store.meta().get(DIGEST_SENT_DAY))
            if day is None:
                return
            with client_for(connection) as client:
                text = standup_markdown(client, store, connection, schedule.options)
            deliver(text, schedule.options)
            store.record(**{DIGEST_SENT_DAY: day})
    except CliError as error:
        log(f"digest of {target.name}: not sent: {error}")
        return
    except StoreError as error:
        log(f"digest of {target.name}: not sent: {store_problem(error)}")
        return
    log(f"digest of {target.name} for {day} sent")
