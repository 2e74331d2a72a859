"""A real PostgreSQL server for the tests: an external one, or a throwaway cluster of our own.

Used three ways:

- pytest fixtures (registered by tests/conftest.py as a plugin): `pg_server` (session scope) is
  the server, a `PgServer` with its `url`; `pg_url` (function scope) is the URL of a fresh,
  empty database on it, dropped after the test. A test that needs PostgreSQL asks for `pg_url`.
- `QA_DASHBOARD_TEST_PG_URL=postgresql://user:password@host:port/db` names an external server
  (CI's, started by .ci/run); the tests then create and drop their databases on it.
- Otherwise a cluster is made here: `initdb` of Debian's binaries (/usr/lib/postgresql/*/bin)
  in a temporary folder, listening on a free loopback port (and a unix socket in a short folder
  of its own under /tmp: a socket's path must fit in 107 bytes, and $TMPDIR may be long),
  password authentication, stopped and removed at the end of the session. initdb refuses to
  run as root, so under root the cluster runs as the `postgres` user (Debian's package makes
  it) or `nobody`, through `runuser`.

When neither is possible the PostgreSQL tests are skipped, except with CI=true, where they
fail: CI must exercise the second engine.

`python3 -m tests.pg_server start FOLDER` prints a URL and `stop FOLDER` stops that cluster:
what .ci/run does. This module uses the standard library only, so .ci/run can run it before any
virtualenv exists.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

ENV_URL = "QA_DASHBOARD_TEST_PG_URL"
SUPERUSER = "qa_test"
_RUN_AS = ("postgres", "nobody")
_DATABASES = itertools.count(1)


class PgUnavailable(RuntimeError):
    """No PostgreSQL server could be had (no URL given, no binaries, nobody to run them as)."""


@dataclass
class PgServer:
    """A PostgreSQL server the tests may create databases on. `url` names its `postgres`
    database as a superuser (with the password in it: never print it)."""

    url: str
    folder: Path | None = None  # our own cluster's folder; None for an external server
    run_as: str | None = None
    binaries: Path | None = None
    made: list[str] = field(default_factory=list)

    def database_url(self, name: str) -> str:
        """This server's URL with another database name."""
        parts = urlsplit(self.url)
        return urlunsplit(parts._replace(path="/" + quote(name)))

    def create_database(self) -> str:
        """A new empty database; returns its URL."""
        name = f"qa_test_{os.getpid()}_{next(_DATABASES)}_{secrets.token_hex(3)}"
        _admin(self.url, f'CREATE DATABASE "{name}"')
        self.made.append(name)
        return self.database_url(name)

    def drop_database(self, url: str) -> None:
        name = urlsplit(url).path.lstrip("/")
        _admin(self.url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        with contextlib.suppress(ValueError):
            self.made.remove(name)

    def stop(self) -> None:
        """Stop our own cluster and remove its folder (an external server is left alone)."""
        if self.folder is None:
            return
        for name in list(self.made):
            with contextlib.suppress(Exception):
                self.drop_database(self.database_url(name))
        stop_cluster(self.folder)


def _admin(url: str, statement: str) -> None:
    """Run one statement in autocommit (CREATE/DROP DATABASE cannot run in a transaction)."""
    import psycopg  # imported here: the CLI below runs without it

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as con:
        con.execute(statement.encode())


def find_binaries() -> Path | None:
    """The newest Debian PostgreSQL bin folder that has initdb and pg_ctl."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _runner() -> str | None:
    """Whom to run the cluster as: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in _RUN_AS:
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise PgUnavailable("running as root and there is no postgres or nobody user to run as")


def _run(
    command: list[str], run_as: str | None, *, log: Path | None = None, timeout: float = 120
) -> None:
    """Run `command` (as `run_as`); PgUnavailable when it fails or outlasts `timeout` seconds."""
    name = Path(command[0]).name
    if run_as is not None:
        command = ["runuser", "-u", run_as, "--", *command]
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise PgUnavailable(f"{name} did not finish within {timeout:g} s") from None
    if result.returncode != 0:
        details = (result.stdout + result.stderr).strip().splitlines()[-5:]
        if log is not None and log.exists():
            details += log.read_text(errors="replace").strip().splitlines()[-5:]
        raise PgUnavailable(f"{name} failed: " + " | ".join(details))


def start_cluster(folder: Path) -> PgServer:
    """initdb a cluster in `folder` (made if missing) and start it on a free loopback port."""
    binaries = find_binaries()
    if binaries is None:
        raise PgUnavailable("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
    run_as = _runner()
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    data = folder / "data"
    # Short whatever `folder` is (a unix socket's path must fit in 107 bytes); removed by stop.
    socket_dir = Path(tempfile.mkdtemp(prefix="qa-pg-", dir="/tmp"))
    (folder / "socket_dir").write_text(str(socket_dir))
    password = secrets.token_urlsafe(18)
    password_file = folder / "password"
    password_file.write_text(password + "\n")
    password_file.chmod(0o600)
    if run_as is not None:
        user = pwd.getpwnam(run_as)
        for path in (folder, socket_dir, password_file):
            os.chown(path, user.pw_uid, user.pw_gid)
    (folder / "run_as").write_text(run_as or "")
    try:
        _run(
            [
                str(binaries / "initdb"),
                "-D",
                str(data),
                "-U",
                SUPERUSER,
                "--auth=scram-sha-256",
                f"--pwfile={password_file}",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ],
            run_as,
        )
        password_file.unlink()
        port = _free_port()
        options = (
            f"-p {port} -k {socket_dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        log = folder / "server.log"
        if run_as is not None:
            log.touch()
            user = pwd.getpwnam(run_as)
            os.chown(log, user.pw_uid, user.pw_gid)
        _run(
            [
                str(binaries / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(log),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "start",
            ],
            run_as,
            log=log,
        )
    except PgUnavailable:
        stop_cluster(folder)  # a server that started late is stopped; the socket folder goes
        raise
    url = f"postgresql://{SUPERUSER}:{quote(password, safe='')}@127.0.0.1:{port}/postgres"
    return PgServer(url=url, folder=folder, run_as=run_as, binaries=binaries)


def stop_cluster(folder: Path) -> None:
    """Stop the cluster in `folder` (if it runs) and remove the folder."""
    binaries = find_binaries()
    data = folder / "data"
    if binaries is not None and (data / "postmaster.pid").exists():
        marker = folder / "run_as"
        run_as = (marker.read_text().strip() or None) if marker.exists() else _runner()
        with contextlib.suppress(PgUnavailable, subprocess.TimeoutExpired):
            _run(
                [str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], run_as
            )
    marker = folder / "socket_dir"
    if marker.exists():
        socket_dir = Path(marker.read_text().strip())
        if socket_dir.name.startswith("qa-pg-") and socket_dir.parent == Path("/tmp"):
            shutil.rmtree(socket_dir, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)


def server_from_environment() -> PgServer:
    """The external server named by QA_DASHBOARD_TEST_PG_URL, else a cluster of our own."""
    url = os.environ.get(ENV_URL, "").strip()
    if url:
        return PgServer(url=url)
    return start_cluster(Path(tempfile.mkdtemp(prefix="qa-pg-")))


# -- pytest ------------------------------------------------------------------------------------

try:
    import pytest
except ImportError:  # the CLI below runs before any virtualenv exists
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture(scope="session")
    def pg_server() -> Iterator[PgServer]:
        """The session's PostgreSQL server (skipped locally, failed in CI, when there is none)."""
        try:
            server = server_from_environment()
        except PgUnavailable as error:
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(f"PostgreSQL is required in CI: {error}")
            pytest.skip(f"no PostgreSQL server: {error}")
        try:
            yield server
        finally:
            server.stop()

    @pytest.fixture
    def pg_url(pg_server: PgServer) -> Iterator[str]:
        """The URL of a fresh, empty database on the session's server, dropped afterwards."""
        url = pg_server.create_database()
        try:
            yield url
        finally:
            pg_server.drop_database(url)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python3 -m tests.pg_server start|stop FOLDER", file=sys.stderr)
        return 2
    folder = Path(argv[1])
    if argv[0] == "stop":
        stop_cluster(folder)
        return 0
    try:
        server = start_cluster(folder)
    except PgUnavailable as error:
        print(f"pg_server: {error}", file=sys.stderr)
        return 1
    print(server.url)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
