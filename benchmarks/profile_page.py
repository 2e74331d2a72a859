"""`python -m benchmarks.profile_page SCRIPT [--executions N] [--runs R] [--top K]`: where one
page's run spends its time, as each viewer's session pays it.

A sandbox child of N executions (no latency) ending at the current hour, the dashboard's
`app.py` under Streamlit's `AppTest` (no browser, no server) configured through
QA_DASHBOARD_* to read it with an empty history store, opened on `SCRIPT`
(`app_pages/standup.py`) R times in one session, as reruns. Each run is profiled with cProfile in
the script's own thread; the first pays for the loads, the later ones are what a new viewer
pays once the data is cached (a viewer's first run and a rerun do the same work: the page reads
its data through the caches). Prints each run's wall time and, for the last, the dashboard's
functions by cumulative time. A bare run: not a test, nothing asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.local_script_runner import LocalScriptRunner

from benchmarks import sandbox_process
from benchmarks.context import REPO_ROOT, run_clock
from tests.dashboard.apptest import start_on

APP = REPO_ROOT / "dashboard" / "app.py"
PROFILES: list[cProfile.Profile] = []


def _profiled_thread(self: LocalScriptRunner) -> None:
    """The script thread's body, under a profiler of its own (cProfile sees one thread)."""
    profile = cProfile.Profile()
    PROFILES.append(profile)
    profile.enable()
    try:
        _ORIGINAL(self)
    finally:
        profile.disable()


_ORIGINAL = LocalScriptRunner._run_script_thread


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile_page", description=__doc__)
    parser.add_argument("script", help="the page's script, e.g. app_pages/standup.py")
    parser.add_argument("--executions", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args(argv)

    sandbox = sandbox_process.start(executions=args.executions, latency_ms=0, now=run_clock())
    try:
        with tempfile.TemporaryDirectory(prefix="profile-page-") as folder:
            lead = sandbox.lead
            for name in [n for n in os.environ if n.startswith("QA_DASHBOARD_")]:
                del os.environ[name]
            os.environ |= {
                "QA_DASHBOARD_BASE_URL": sandbox.base_url,
                "QA_DASHBOARD_TOKEN": lead.token,
                "QA_DASHBOARD_COMPANY_ID": str(lead.company_id),
                "QA_DASHBOARD_CACHE_DIR": str(Path(folder) / "store"),
            }
            LocalScriptRunner._run_script_thread = _profiled_thread  # type: ignore[method-assign]
            at = start_on(AppTest.from_file(str(APP), default_timeout=1800), args.script)
            at.secrets["profile"] = "isolated from local secrets"
            for number in range(1, args.runs + 1):
                started = time.perf_counter()
                at.run()
                took = time.perf_counter() - started
                failed = [e.value for e in at.exception]
                print(
                    f"run {number}: {took:.2f} s{'; exception: ' + str(failed) if failed else ''}"
                )
            out = io.StringIO()
            stats = pstats.Stats(PROFILES[-1], stream=out).sort_stats("cumulative")
            stats.print_stats(r"dashboard|pandas/io|pickle|arrow", args.top)
            print(out.getvalue())
    finally:
        sandbox.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
