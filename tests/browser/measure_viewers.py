"""How many viewers one dashboard process holds: 10 browser sessions on the standup page.

`python -m tests.browser.measure_viewers [SESSIONS]` starts one `streamlit run` on the embedded
demo, opens the standup page in SESSIONS fresh browser contexts one after another (each kept
open), printing how long each took to show and the process's resident memory after it, then
reloads them all at once. `docs/running-for-a-team.md` quotes a run. A measurement, not a
test: nothing is asserted, and figures depend on the machine's load (printed too).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from tests.browser import harness, screen
from tests.browser.harness import CHROMIUM_ARGS, StreamlitServer


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(sessions: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        env = harness.dashboard_env(home, {"QA_DASHBOARD_CACHE_DIR": str(home / "cache")})
        server = StreamlitServer(name="measure", env=env, log_path=home / "streamlit.log")
        measure(server.start(), sessions)


def measure(server: StreamlitServer, sessions: int) -> None:
    assert server._process is not None
    pid = server._process.pid
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"idle process: {rss_mb(pid):.0f} MB RSS")
    expect.set_options(timeout=120_000)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=harness.find_chromium(), headless=True, args=list(CHROMIUM_ARGS)
            )
            pages = []
            for n in range(1, sessions + 1):
                ctx = browser.new_context(
                    viewport={"width": 1600, "height": 1000}, timezone_id="UTC"
                )
                page = ctx.new_page()
                t0 = time.monotonic()
                page.goto(server.url + "/standup")
                screen.wait_until_idle(page, 120_000)
                expect(page.get_by_text("Turned red").first).to_be_visible()
                took = time.monotonic() - t0
                pages.append(page)
                memory = rss_mb(pid)
                print(f"session {n:2d}: standup shown in {took:5.2f} s; RSS {memory:.0f} MB")
            t0 = time.monotonic()
            for page in pages:
                page.reload(wait_until="commit")
            for page in pages:
                screen.wait_until_idle(page, 120_000)
                expect(page.get_by_text("Turned red").first).to_be_visible()
            took = time.monotonic() - t0
            print(f"all {len(pages)} reloaded at once: the last shown after {took:.2f} s")
            print(f"RSS {rss_mb(pid):.0f} MB")
            browser.close()
    finally:
        server.stop()
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
