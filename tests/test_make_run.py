"""`make run` listens on this machine only unless told otherwise (docs/security.md)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

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
        deadline = time.monotonic() + 90
        while not listening_addresses(port):
            assert process.poll() is None, "make run exited"
            assert time.monotonic() < deadline, "make run never listened"
            time.sleep(0.2)  # a poll interval between two state checks
        yield port
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def test_make_run_listens_on_loopback_only() -> None:
    with make_run() as port:
        assert listening_addresses(port) == {"127.0.0.1"}
        assert httpx.get(f"http://127.0.0.1:{port}/_stcore/health", timeout=30).text == "ok"


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
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()
