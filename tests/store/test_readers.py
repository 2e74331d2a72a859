"""Readers (connections that proved they may read results) are kept so that whoever reads the
store cannot check a guessed token against them cheaply: a slow hash (scrypt) of the
fingerprint, nothing keyed by what the store itself holds; stores that kept HMACs beside their
key drop them on upgrade. On both engines, read as an attacker reads them: every row of
`store_meta`, straight from the file or the database."""

from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path
from typing import Any

import duckdb
import psycopg
from pydantic import SecretStr

from dashboard.data.connection import Connection
from dashboard.data.store import open_store, readers
from dashboard.data.store import sql as store_sql
from tests.store.conftest import PG_SCHEMA, HistoryOpener


def fingerprint(token: str) -> str:
    return Connection(
        base_url="https://qa.example.test/Api", token=SecretStr(token), company_id=1
    ).fingerprint


def raw(opener: HistoryOpener, statement: str, params: tuple[Any, ...] = ()) -> list[Any]:
    """`statement` run on the store's database directly, as anyone who can read it would."""
    if opener.pg_url is None:
        con = duckdb.connect(str(opener.path))
        try:
            return con.execute(statement.replace("%s", "?"), params).fetchall()
        finally:
            con.close()
    with psycopg.connect(opener.pg_url, autocommit=True) as pg:
        pg.execute(f"SET search_path TO {PG_SCHEMA}")
        cursor = pg.execute(statement.encode() if not params else statement, params or None)
        return cursor.fetchall() if cursor.description else []


def test_a_reader_is_kept_as_scrypt_and_nothing_the_store_holds_keys_an_hmac_of_it(
    open_history: HistoryOpener,
) -> None:
    reader, other = fingerprint("sbx-viewer-token"), fingerprint("sbx-other-token")
    with open_history() as store:
        assert not store.knows_reader(reader)
        store.add_reader(reader)
        assert store.knows_reader(reader)
        assert not store.knows_reader(other)
        assert not [key for key in store.meta() if key.startswith("reader")]
    rows = dict(raw(open_history, "SELECT key, value FROM store_meta"))
    kept = "\n".join(f"{k}={v}" for k, v in rows.items())

    assert reader not in kept
    # Whatever the store holds, as an HMAC key (text or bytes), reproduces nothing it keeps.
    for candidate in set(re.findall(r"[0-9a-f]{16,}", kept)):
        for key in (candidate.encode(), bytes.fromhex(candidate[: len(candidate) // 2 * 2])):
            for digest in (hashlib.sha256, hashlib.sha512):
                assert hmac.new(key, reader.encode(), digest).hexdigest() not in kept
    # What it keeps is scrypt of the fingerprint under the store's salt, at OWASP's cost.
    salt = rows[readers.SALT]
    derived = hashlib.scrypt(
        reader.encode(), salt=bytes.fromhex(salt), n=2**14, r=8, p=5, maxmem=2**26, dklen=32
    )
    assert rows[f"{readers.ENTRY_PREFIX}{derived.hex()}"] == "1"
    assert (readers.N, readers.R, readers.P) == (2**14, 8, 5)


def test_an_upgraded_store_drops_the_hmacs_kept_beside_their_key(
    open_history: HistoryOpener,
) -> None:
    reader = fingerprint("sbx-viewer-token")
    salt = "ab" * 32
    old_entry = "reader:" + hmac.new(salt.encode(), reader.encode(), hashlib.sha256).hexdigest()
    with open_history() as store:
        store.record(last_sync_by="the worker on qa-1")
    # The store as the previous version left it: schema version 4, readers as HMACs.
    raw(open_history, "DELETE FROM schema_version WHERE version >= 5")
    # Versions 6's, 7's and 8's tables, made again on the way up.
    for table in ("mark_log", "marks", "alerts", "scenario_names", "group_rules"):
        raw(open_history, f"DROP TABLE {table}")
    for key in ("reader_salt", old_entry):
        raw(
            open_history,
            "INSERT INTO store_meta (key, value) VALUES (%s, %s)",
            (key, salt if key == "reader_salt" else "1"),
        )

    with open_history() as store:
        assert store.info().schema_version == store_sql.SCHEMA_VERSION == 8
        assert not store.knows_reader(reader), "a reader proves itself again once"
        assert store.meta()["last_sync_by"] == "the worker on qa-1"
        store.add_reader(reader)
        assert store.knows_reader(reader)
    keys = {key for (key,) in raw(open_history, "SELECT key FROM store_meta")}
    assert "reader_salt" not in keys
    assert old_entry not in keys


def test_two_stores_salt_the_same_reader_apart(tmp_path: Path) -> None:
    reader = fingerprint("sbx-viewer-token")
    entries = []
    for name in ("one", "two"):
        with open_store(tmp_path / f"{name}.duckdb") as store:
            store.add_reader(reader)
        con = duckdb.connect(str(tmp_path / f"{name}.duckdb"), read_only=True)
        try:
            rows = con.execute("SELECT key FROM store_meta").fetchall()
        finally:
            con.close()
        entries.append({k for (k,) in rows if k.startswith(readers.ENTRY_PREFIX)})
    assert entries[0]
    assert entries[1]
    assert not entries[0] & entries[1]
