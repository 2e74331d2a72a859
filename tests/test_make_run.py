"""`make run` listens on this machine only unless told otherwise (docs/security.md)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.waiting import PATIENT_S, wait_until

ROOT = Path(__file__).resolve().parents[1]
PROC_NET_TCP = Path("/proc/net/tcp")
LISTEN = "0A"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("make") is None, reason="needs make"),
    pytest.mark.skipif(not PROC_NET_TCP.exists(), reason="reads Linux's /proc/net/tcp"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening_addresses(port: int) -> set[str]:
    """The IPv4 addresses with a socket listening on `port` (from /proc/net/tcp)."""
    found = set()
    for line in PROC_NET_TCP.read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if state == LISTEN and int(hex_port, 16) == port:
            found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


@contextmanager
def make_run(*variables: str) -> Iterator[int]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QA_DASHBOARD_", "STREAMLIT_"))}
    # STAMP=pyproject.toml: the environment exists already; do not reinstall it.
    command = ["make", "--no-print-directory", "run", f"PORT={port}", "STAMP=pyproject.toml"]
    process = subprocess.Popen(
        [*command, *variables],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # make and the streamlit it starts, stopped together below
    )
    try:
        wait_until(lambda: listening_addresses(port), alive=process, what="make run listened")
        yield port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()  # no limit of its own: pytest-timeout ends a hang


def test_make_run_listens_on_loopback_only() -> None:
    with make_run() as port:
        assert listening_addresses(port) == {"127.0.0.1"}
        health = httpx.get(f"http://127.0.0.1:{port}/_stcore/health", timeout=PATIENT_S)
        assert health.text == "ok"  # a loaded machine answers late, not wrong


def test_make_run_address_exposes_it_when_asked() -> None:
    with make_run("ADDRESS=0.0.0.0") as port:
        assert listening_addresses(port) == {"0.0.0.0"}  # noqa: S104 - what is asked for


def test_make_run_says_first_which_url_to_open() -> None:
    """The first line `make run` prints is the one to read: the address to open."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QA_DASHBOARD_", "STREAMLIT_"))}
    process = subprocess.Popen(
        ["make", "--no-print-directory", "run", f"PORT={port}", "STAMP=pyproject.toml"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline().strip()
        assert first == (
            f"Open http://127.0.0.1:{port} in your browser (Ctrl+C stops the dashboard)"
        )
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()  # no limit of its own: pytest-timeout ends a hang
        if process.stdout is not None:
            process.stdout.close()


def test_make_run_first_lines_are_only_where_to_look() -> None:
    """After "Open http://..." a first run prints Streamlit's own address lines and nothing a
    newcomer could take for a failure: no warning, no "No runtime found" (which each
    `st.cache_data` declared before Streamlit's runtime exists used to log, eight of them)."""
    port = free_port()
    # As typed in a terminal: not a make inside `make test` (its MAKELEVEL would make the
    # stopping line "make[1]: ***" instead of "make: ***").
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("QA_DASHBOARD_", "STREAMLIT_"))
        and k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")
    }
    # -o: the environment exists already; do not reinstall it, and say nothing about it.
    command = ["make", "--no-print-directory", "-o", ".venv/.installed-stamp", "run"]
    process = subprocess.Popen(
        [*command, f"PORT={port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # what the terminal shows: both, in order
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    try:
        wait_until(lambda: listening_addresses(port), alive=process, what="make run listened")
        # Answered by the app, so `streamlit run` has imported it and started its runtime: what
        # a start logs is logged by now.
        assert httpx.get(f"http://127.0.0.1:{port}/_stcore/health", timeout=PATIENT_S).text == "ok"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        output, _ = process.communicate()  # no limit of its own: pytest-timeout ends a hang
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    opened = f"Open http://127.0.0.1:{port} in your browser (Ctrl+C stops the dashboard)"
    assert lines[0] == opened, output
    # Then Streamlit's address, and then only what stopping it says (make's "Terminated").
    assert lines[1:3] == [
        "You can now view your Streamlit app in your browser.",
        f"URL: http://127.0.0.1:{port}",
    ], output
    assert all(line.startswith("make: ***") for line in lines[3:]), output
    assert "No runtime found" not in output
    assert "Warning" not in output


def test_editable_install_prints_no_warning_box(tmp_path: Path) -> None:
    """`make run`'s first install (`pip install -e .`) is quiet: setuptools' boxed
    BuildBackendWarning ("Editable installation", printed by its import-finder strategy for a
    package at the top of the repository) made a newcomer wonder whether it failed. The same
    build, without dependencies, into a throwaway environment; pip fetches its build backend as
    `make run` does."""
    target = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)], check=True)
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(target / "bin" / "python"),
            "install",
            "--quiet",
            "--no-deps",
            "--editable",
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    shown = install.stdout + install.stderr
    assert "BuildBackendWarning" not in shown, shown
    assert "Editable installation" not in shown, shown
    assert "!!" not in shown, shown
    # The checkout on sys.path by one .pth line, no import finder.
    editable = [p.name for p in (target / "lib").glob("python3*/site-packages/__editable__*")]
    assert len(editable) == 1, editable
    assert editable[0].endswith(".pth"), editable
