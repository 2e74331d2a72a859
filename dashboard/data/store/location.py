"""Where the history store lives: a private cache folder, one file per (service, company).

The folder is, first found: the `QA_DASHBOARD_CACHE_DIR` environment variable, `cache_dir` in
the `[store]` table of `.streamlit/secrets.toml`, `cache_dir` in its `[service]` table, or the
per-user cache folder (`$XDG_CACHE_HOME/qa-dashboard`, else `~/.cache/qa-dashboard`).

A file's name is made from the service's address and the company, never from a token: a
readable host part and a hash (`history-ci.example.com-c7-3f9a0c1d2e4b5a69.duckdb`). Two
viewers of one company with different tokens share one file; another company, or another
service, gets its own. The embedded demo has its own file, named by its fixed clock and its
size (`QA_DASHBOARD_DEMO_EXECUTIONS`: the 100,000-execution demo is other data than the default
one, so its marks are its own), because its address (a loopback port) changes at every start.

A team's shared store is a PostgreSQL database instead, named by `QA_DASHBOARD_STORE_URL` or
`url` in the `[store]` table (`store_url`); each (service, company) is a schema of its own
there, named like the file (`store_schema`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from dashboard.data import demo
from dashboard.data.connection import Connection
from dashboard.data.settings import process_environment

ENV_CACHE_DIR = "QA_DASHBOARD_CACHE_DIR"
SECRETS_TABLES = ("store", "service")  # where `cache_dir` is looked for, in this order
APP_FOLDER = "qa-dashboard"
FOLDER_MODE = 0o700
SUFFIX = ".duckdb"
ENV_STORE_URL = "QA_DASHBOARD_STORE_URL"


def cache_dir(*, secrets: Mapping[str, Any] | None, env: Mapping[str, str]) -> Path:
    """The folder the history stores live in (not created here)."""
    configured = process_environment(env)[0].cache_dir
    if not configured:
        for table in SECRETS_TABLES:
            section = (secrets or {}).get(table)
            value = section.get("cache_dir") if isinstance(section, Mapping) else None
            if isinstance(value, str) and value.strip():
                configured = value.strip()
                break
    if configured:
        return Path(configured).expanduser()
    xdg = (env.get("XDG_CACHE_HOME") or "").strip()
    base = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / APP_FOLDER


def private_folder(folder: Path) -> Path:
    """`folder`, created owner-only (0700) if missing. An existing folder the user chose is not
    re-permissioned (it may be shared on purpose); the files in it are 0600 regardless."""
    if not folder.exists():
        folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        folder.chmod(FOLDER_MODE)  # mkdir's mode is narrowed by the umask, never widened
    elif not folder.is_dir():
        raise NotADirectoryError(f"The history store folder {folder} is not a folder.")
    return folder


def store_name(connection: Connection, env: Mapping[str, str] | None = None) -> str:
    """The file name of a connection's store: host part, company and a hash; never a token.
    The demo's is named by its clock and its size (`demo.data_set`, read from `env`, default
    the process's environment, which started the demo)."""
    if connection.is_demo:
        clock = connection.clock.isoformat() if connection.clock else "wall-clock"
        data_set = demo.data_set(os.environ if env is None else env)
        material = f"demo\n{clock}" + (f"\n{data_set}" if data_set else "")
        digest = hashlib.sha256(material.encode()).hexdigest()[:16]
        return f"history-demo-c{connection.company_id}-{digest}{SUFFIX}"
    address = service_address(connection.base_url)
    digest = hashlib.sha256(f"{address}\n{connection.company_id}".encode()).hexdigest()[:16]
    host = re.sub(r"[^a-z0-9.-]+", "-", (urlsplit(address).hostname or "service").lower())
    return f"history-{host[:40].strip('.-') or 'service'}-c{connection.company_id}-{digest}{SUFFIX}"


def store_path(
    connection: Connection, *, secrets: Mapping[str, Any] | None, env: Mapping[str, str]
) -> Path:
    """Where `connection`'s store is (the folder is not created here)."""
    return cache_dir(secrets=secrets, env=env) / store_name(connection, env)


def service_address(base_url: str) -> str:
    """The service's address as the store records it: scheme, host, port and path, without any
    user name, password, query or fragment a URL might carry."""
    parts = urlsplit(base_url.strip())
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme.lower()}://{host}{port}{parts.path.rstrip('/')}"


def store_url(*, secrets: Mapping[str, Any] | None, env: Mapping[str, str]) -> str | None:
    """The shared PostgreSQL store's URL (the environment first, then `[store] url`), or None
    for the embedded DuckDB file. The URL may hold a password: it is handed to the driver only
    (`store.postgres.safe_url` is what any message shows)."""
    configured = process_environment(env)[0].store_url
    if not configured:
        section = (secrets or {}).get("store")
        value = section.get("url") if isinstance(section, Mapping) else None
        configured = value.strip() if isinstance(value, str) else ""
    return configured or None


def store_schema(connection: Connection, env: Mapping[str, str] | None = None) -> str:
    """The PostgreSQL schema of a connection's store: the file name's parts as an identifier
    (`history_ci_example_com_c7_3f9a0c1d2e4b5a69`), at most 63 characters; never a token."""
    stem = store_name(connection, env).removesuffix(SUFFIX)
    host_part, _, rest = stem.rpartition("-c")
    company, _, digest = rest.partition("-")
    host = re.sub(r"[^a-z0-9]+", "_", host_part.lower()).strip("_")
    tail = f"_c{company}_{digest}"
    return host[: 63 - len(tail)].rstrip("_") + tail
