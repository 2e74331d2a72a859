"""The PostgreSQL store's server: its URL (checked, and shown without the password), one
connection pool per server and process, and advisory-lock keys.

The URL may carry a password (in its user part or as a `password=` query parameter). It is
handed to libpq and nowhere else: `safe_url` is what messages, reprs and `info` show, a pool is
found by a hash of the URL, and a driver's message is `scrubbed` of the password before it
becomes a `StoreError`.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from typing import Any
from urllib.parse import SplitResult, parse_qsl, unquote, urlsplit

import psycopg
from psycopg_pool import ConnectionPool

from dashboard.data.store.errors import StoreError

SCHEMES = ("postgresql", "postgres")
POOL_SIZE = 10
"""Connections per server and process: a page's store, a sync's lock, a few sessions at once."""
CONNECT_TIMEOUT = 10
_pools: dict[str, ConnectionPool] = {}
_pools_lock = threading.Lock()


SHAPE = "postgresql://user:password@host:5432/database"
PLACEHOLDER = "postgresql://?"
"""What `safe_url` shows for a URL that is not of the expected shape (its parts cannot be told
apart, so any of them may be the password)."""


def _parts(url: str) -> SplitResult | None:
    """`url`'s parts when it is postgresql://[user[:password]@]host[:port]/database, else None
    (no scheme, libpq's key=value form, one slash, a malformed host or port)."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError:
        return None
    if parts.scheme not in SCHEMES or not parts.netloc or not parts.hostname:
        return None
    if not parts.path.strip("/"):
        return None
    return parts


def check_url(url: str) -> None:
    """Refuse what is not a postgresql:// URL with a host and a database, without echoing it
    (it may carry a password anywhere when it is not of that shape)."""
    if _parts(url) is None:
        raise StoreError(f"The store URL must look like {SHAPE}.", location=PLACEHOLDER)


def safe_url(url: str) -> str:
    """`url` without its password or query: scheme, user, host, port and database; a
    placeholder when `url` is not of the shape `check_url` accepts."""
    parts = _parts(url)
    if parts is None:
        return PLACEHOLDER
    port = f":{parts.port}" if parts.port else ""
    user = f"{unquote(parts.username)}@" if parts.username else ""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{user}{host}{port}{parts.path}"


def _passwords(url: str) -> list[str]:
    try:
        parts = urlsplit(url.strip())
        found = [parts.password, unquote(parts.password or "")]
    except ValueError:
        return []
    found += [v for k, v in parse_qsl(parts.query) if k.lower() == "password"]
    return [p for p in found if p]


def scrubbed(message: str, url: str) -> str:
    """A driver's message cut to its first line, with the URL's password removed; a generic
    message when the password cannot be found although the URL may hold one (a user part, or
    not a scheme:// URL at all): libpq may echo any part of what it was given."""
    lines = message.strip().splitlines()
    text = lines[0][:300] if lines else "no details"
    passwords = _passwords(url)
    if not passwords and ("@" in url or _parts(url) is None):
        return "the server refused or could not be reached (details withheld)"
    for password in passwords:
        text = text.replace(password, "***")
    return text


def lock_key(schema: str, purpose: str) -> int:
    """A signed 64-bit advisory-lock key for (schema, purpose)."""
    digest = hashlib.sha256(f"qa-dashboard\n{schema}\n{purpose}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _configure(con: psycopg.Connection[Any]) -> None:
    con.execute("SET TimeZone = 'UTC'")
    con.execute("SET DateStyle = 'ISO, YMD'")  # what Arrow parses (the default, made sure)
    con.execute("SET work_mem = '64MB'")  # a page's window sorts in memory, not on disk


def pool_for(url: str) -> ConnectionPool:
    """This process's pool for the server at `url` (made and checked on first use)."""
    key = hashlib.sha256(url.encode()).hexdigest()  # the password is never a key
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            try:
                with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT):
                    pass
            except psycopg.Error as error:
                raise StoreError(
                    f"The history store server {safe_url(url)} cannot be reached: "
                    f"{scrubbed(str(error), url)}",
                    location=safe_url(url),
                ) from None
            pool = ConnectionPool(
                url,
                min_size=0,
                max_size=POOL_SIZE,
                kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT},
                configure=_configure,
                name=f"history-store-{len(_pools) + 1}",
                open=True,
            )
            _pools[key] = pool
        return pool


def give_back(pool: ConnectionPool, con: psycopg.Connection[Any]) -> None:
    """Return `con` to the pool it came from (closed instead when that pool is closed)."""
    if pool.closed:
        con.close()
    else:
        pool.putconn(con)


def close_pool(url: str) -> None:
    """Close this process's pool for `url`, if there is one (a store of it reopens a new one)."""
    with _pools_lock:
        pool = _pools.pop(hashlib.sha256(url.encode()).hexdigest(), None)
    if pool is not None:
        with contextlib.suppress(Exception):
            pool.close(timeout=2)


def close_pools() -> None:
    """Close every pool of this process (at exit, and between tests of several servers)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        with contextlib.suppress(Exception):
            pool.close(timeout=2)
