"""The tests' own PostgreSQL cluster (tests/pg_server.py): it starts whatever the length of its
folder's path, and a step that hangs is reported as PostgreSQL unavailable, not a crash."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import psycopg
import pytest

from tests.pg_server import PgUnavailable, _run, find_binaries, start_cluster, stop_cluster

SOCKET_PATH_LIMIT = 107  # bytes of a unix socket's path (sun_path less its final NUL)


def test_a_cluster_in_a_folder_with_a_long_path_starts_and_leaves_nothing_behind() -> None:
    if find_binaries() is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("PostgreSQL is required in CI")
        pytest.skip("no PostgreSQL binaries")
    parent = Path(tempfile.mkdtemp(prefix="qa-pg-long-"))
    parent.chmod(0o755)  # the cluster may run as another user (under root)
    folder = parent / ("a-long-TMPDIR-" + "x" * 100)
    assert len(str(folder)) > SOCKET_PATH_LIMIT
    try:
        server = start_cluster(folder)
        try:
            socket_dir = Path((folder / "socket_dir").read_text().strip())
            sockets = list(socket_dir.glob(".s.PGSQL.*"))
            assert sockets
            assert all(len(str(s)) <= SOCKET_PATH_LIMIT for s in sockets)
            with psycopg.connect(server.url, connect_timeout=10) as con:
                assert con.execute("SELECT 1").fetchone() == (1,)
        finally:
            server.stop()
        assert not folder.exists()
        assert not socket_dir.exists()
    finally:
        stop_cluster(folder)
        shutil.rmtree(parent, ignore_errors=True)


def test_a_step_that_hangs_is_reported_as_unavailable() -> None:
    hang = [sys.executable, "-c", "import time; time.sleep(60)"]
    with pytest.raises(PgUnavailable, match=r"did not finish within 0\.5 s"):
        _run(hang, None, timeout=0.5)
