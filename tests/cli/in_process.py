"""`python -m dashboard ...` run in the test's own process, with the contract a subprocess had.

Starting a Python for every call cost each test 1-2 s of CPU (the interpreter, then pandas,
DuckDB, pydantic and Typer imported again); the command line itself is `dashboard.cli.main(argv,
env)`, so most tests call it here (issue #36). What a subprocess gave for free is given here:

- its own environment: `env` is the developer's environment without any QA_DASHBOARD_*, plus
  the given variables; `main` receives it, and `os.environ` says the same for the call (a few
  paths still read the process's environment, e.g. the demo's size in `dashboard.data.demo`);
- its own working folder (`.streamlit/secrets.toml` is looked up there), an empty stdin;
- the interpreter's warning filters, not pytest's "error";
- stdout and stderr captured apart; the exit code (a `SystemExit`'s too); an exception no
  safety net caught is a traceback on stderr and exit 1, as the interpreter would end;
- a clean end: stores left open are closed (the product's own atexit hook), PostgreSQL pools
  closed, loggers put back as they were and no handler left writing to the captured streams,
  the worker's "stopped by a signal" flag cleared. Signal handlers are put back by the worker
  itself (`Stop.installed`); they are checked here all the same.

What only a real process shows (signals, a worker run until stopped, two processes on one
store, a reader gone away, `python -m dashboard`'s own start) stays in real subprocesses.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

ENV_PREFIX = "QA_DASHBOARD_"


def process_env(given: Mapping[str, str]) -> dict[str, str]:
    """The environment a command sees: the process's without QA_DASHBOARD_*, then `given`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIX)}
    env.update(given)
    return env


def run_cli(
    args: Sequence[str], *, env: Mapping[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    """`python -m dashboard *args` in this process, in folder `cwd`, with the QA_DASHBOARD_*
    variables of `env` only (other keys of `env` are ignored: they are the process's own)."""
    from dashboard.cli import main

    given = {k: v for k, v in env.items() if k.startswith(ENV_PREFIX)}
    out, err = io.StringIO(), io.StringIO()
    with _isolated(given, cwd, out, err):
        try:
            code = main(list(args), env=process_env(given))
        except SystemExit as ended:
            code = _exit_code(ended.code, err)
        except Exception:  # what the interpreter does with an uncaught exception
            traceback.print_exc(file=err)
            code = 1
    return subprocess.CompletedProcess(
        ["python", "-m", "dashboard", *args], code, out.getvalue(), err.getvalue()
    )


def _exit_code(code: object, err: io.StringIO) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=err)  # sys.exit("message"): printed, exit 1
    return 1


@contextmanager
def _isolated(
    given: Mapping[str, str], cwd: Path, out: io.StringIO, err: io.StringIO
) -> Iterator[None]:
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    loggers = _logging_state()
    before = _open_resources()
    with pytest.MonkeyPatch.context() as patch:
        for name in [k for k in os.environ if k.startswith(ENV_PREFIX)]:
            patch.delenv(name)
        for name, value in given.items():
            patch.setenv(name, value)
        patch.chdir(cwd)
        patch.setattr(sys, "stdin", io.StringIO(""))
        patch.setattr(sys, "stdout", out)
        patch.setattr(sys, "stderr", err)
        # A process of its own has no handler: the last resort prints warnings to stderr.
        last_resort = logging.StreamHandler(err)
        last_resort.setLevel(logging.WARNING)
        logging.getLogger().addHandler(last_resort)
        try:
            with warnings.catch_warnings():
                _python_warning_filters()
                yield
        finally:
            _close_what_an_exit_closes(before)
            logging.getLogger().removeHandler(last_resort)
            _restore_logging(loggers, (out, err))
    for sig, handler in handlers.items():
        assert signal.getsignal(sig) is handler, f"the command left its {sig.name} handler"
        signal.signal(sig, handler)


def _open_resources() -> tuple[set[int], set[str]]:
    """The stores and PostgreSQL pools open before a call: the test's own, left alone."""
    lease = sys.modules.get("dashboard.data.store.lease")
    pg_pool = sys.modules.get("dashboard.data.store.pg_pool")
    stores = {id(s) for s in lease._OPEN_STORES} if lease is not None else set()
    pools = set(pg_pool._pools) if pg_pool is not None else set()
    return stores, pools


def _python_warning_filters() -> None:
    """The interpreter's own filters (no `-W`): a warning is printed to stderr, deprecations
    are not, as in `python -m dashboard`; pytest's "error" would turn a library's deprecation
    (apprise imports `imghdr`) into a failed command."""
    warnings.resetwarnings()
    warnings.simplefilter("default")
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category)


def _close_what_an_exit_closes(before: tuple[set[int], set[str]]) -> None:
    """What the process's exit would have closed: the stores and pools the call opened."""
    from dashboard.cli import worker

    worker._stopped_by_signal = False
    stores, pools = before
    lease = sys.modules.get("dashboard.data.store.lease")
    if lease is not None:
        for store in [s for s in list(lease._OPEN_STORES) if id(s) not in stores]:
            with contextlib.suppress(Exception):
                store.close()
    pg_pool = sys.modules.get("dashboard.data.store.pg_pool")
    if pg_pool is not None:
        with pg_pool._pools_lock:
            made = [pg_pool._pools.pop(key) for key in list(pg_pool._pools) if key not in pools]
        for pool in made:
            with contextlib.suppress(Exception):
                pool.close(timeout=2)


LoggerState = tuple[int, bool, bool, list[logging.Handler]]


def _logging_state() -> dict[str, LoggerState]:
    return {
        name: (logger.level, logger.propagate, logger.disabled, logger.handlers[:])
        for name, logger in _loggers()
    }


def _restore_logging(saved: dict[str, LoggerState], streams: tuple[io.StringIO, ...]) -> None:
    for name, logger in _loggers():
        if name in saved:
            logger.level, logger.propagate, logger.disabled, logger.handlers[:] = saved[name]
        else:  # made during the call: none of its handlers may keep writing to the captures
            logger.handlers[:] = [
                h for h in logger.handlers if getattr(h, "stream", None) not in streams
            ]
    logging.getLogger().manager._clear_cache()


def _loggers() -> Iterator[tuple[str, logging.Logger]]:
    yield "", logging.getLogger()
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger):
            yield name, logger
