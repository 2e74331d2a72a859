"""Where the store lives: the folder's precedence, the file's name, the folder's permissions."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import SecretStr

from dashboard.data.connection import Connection
from dashboard.data.store import open_for
from dashboard.data.store.errors import StoreError
from dashboard.data.store.location import (
    cache_dir,
    private_folder,
    service_address,
    store_name,
    store_path,
)

TOKEN = "sbx-0123456789abcdef0123456789abcdef01234567"


def connection(
    base_url: str = "https://qa.example.test/Api", company_id: int = 7, **kw: object
) -> Connection:
    return Connection(
        base_url=base_url, token=SecretStr(kw.pop("token", TOKEN)), company_id=company_id, **kw
    )  # type: ignore[arg-type]


def test_the_folder_comes_from_the_environment_then_the_secrets_then_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    secrets = {"store": {"cache_dir": "/from/store"}, "service": {"cache_dir": "/from/service"}}

    assert cache_dir(secrets=secrets, env={"QA_DASHBOARD_CACHE_DIR": "/from/env"}) == Path(
        "/from/env"
    )
    assert cache_dir(secrets=secrets, env={}) == Path("/from/store")
    assert cache_dir(secrets={"service": {"cache_dir": "/from/service"}}, env={}) == Path(
        "/from/service"
    )
    assert cache_dir(
        secrets={"store": {"cache_dir": "  "}}, env={"QA_DASHBOARD_CACHE_DIR": ""}
    ) == (tmp_path / "home" / ".cache" / "qa-dashboard")
    assert cache_dir(secrets=None, env={"XDG_CACHE_HOME": "/xdg"}) == Path("/xdg/qa-dashboard")
    # A relative XDG_CACHE_HOME is invalid by the XDG rules and ignored.
    assert (
        cache_dir(secrets=None, env={"XDG_CACHE_HOME": "rel"})
        == tmp_path / "home" / ".cache" / "qa-dashboard"
    )
    assert cache_dir(secrets=None, env={"QA_DASHBOARD_CACHE_DIR": "~/x"}) == tmp_path / "home" / "x"


def test_a_file_per_service_and_company_named_without_the_token() -> None:
    base = connection()
    name = store_name(base)

    assert name.startswith("history-qa.example.test-c7-")
    assert name.endswith(".duckdb")
    assert TOKEN not in name
    assert TOKEN[4:12] not in name
    assert store_name(connection(token="another-token")) == name  # one company, one history
    assert store_name(connection(company_id=8)) != name
    assert store_name(connection(base_url="https://qa.example.test/Other")) != name
    assert store_name(connection(base_url="https://other.example.test/Api")) != name
    # Credentials or a query in the URL neither reach the name nor change it.
    assert store_name(connection(base_url="https://user:pw@QA.example.test/Api/?x=1")) == name


def test_the_demo_has_its_own_file_whatever_port_it_runs_on() -> None:
    clock = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)
    first = connection("http://127.0.0.1:40001", 1, source="demo", clock=clock)
    second = connection("http://127.0.0.1:40002", 1, source="demo", clock=clock)

    assert store_name(first) == store_name(second)
    assert store_name(first).startswith("history-demo-c1-")
    assert store_name(first) != store_name(connection("http://127.0.0.1:40001", 1))


def test_the_path_joins_folder_and_name() -> None:
    path = store_path(connection(), secrets=None, env={"QA_DASHBOARD_CACHE_DIR": "/c"})
    assert path == Path("/c") / store_name(connection())


def test_service_address_drops_what_is_not_the_address() -> None:
    assert (
        service_address("HTTPS://u:p@Host.Example:8443/Api/?token=x#f")
        == "https://host.example:8443/Api"
    )
    assert service_address("http://[::1]:9/") == "http://[::1]:9"


def test_a_new_folder_is_owner_only_and_an_existing_one_is_left_alone(tmp_path: Path) -> None:
    made = private_folder(tmp_path / "a" / "b")
    assert made.stat().st_mode & 0o777 == 0o700

    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    private_folder(shared)
    assert shared.stat().st_mode & 0o777 == 0o755

    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError):
        private_folder(tmp_path / "file")


def test_open_for_makes_the_folder_and_records_the_service_without_credentials(
    tmp_path: Path,
) -> None:
    env = {"QA_DASHBOARD_CACHE_DIR": str(tmp_path / "cache")}
    with open_for(
        connection("https://user:pw@qa.example.test/Api"), secrets=None, env=env
    ) as store:
        info = store.info()

    assert (info.service, info.company_id) == ("https://qa.example.test/Api", 7)
    assert Path(info.location).parent.stat().st_mode & 0o777 == 0o700
    for file in (tmp_path / "cache").iterdir():
        assert b"pw@" not in file.read_bytes()
        assert TOKEN.encode() not in file.read_bytes()

    (tmp_path / "a-file").write_text("x")
    with pytest.raises(StoreError, match="cannot be used"):
        open_for(
            connection(), secrets=None, env={"QA_DASHBOARD_CACHE_DIR": str(tmp_path / "a-file")}
        )


def test_each_demo_size_keeps_its_own_store() -> None:
    # `make demo N=100000` is other data under the same ids: its marks are not the small demo's.
    clock = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)
    demo = connection("http://127.0.0.1:40001", 1, source="demo", clock=clock)
    size = "QA_DASHBOARD_DEMO_EXECUTIONS"
    default = store_name(demo, {})

    assert store_name(demo, {size: "100000"}) != default
    assert store_name(demo, {size: "100000"}) != store_name(demo, {size: "3000"})
    assert store_name(demo, {size: "100000"}).startswith("history-demo-c1-")
    # The default size named or not is one data set, and keeps the file it always had.
    assert store_name(demo, {size: "300"}) == default == store_name(demo, {size: " "})
    assert default == "history-demo-c1-d1d6d89476ab6bd8.duckdb"
    cache = {"QA_DASHBOARD_CACHE_DIR": "/c"}
    assert store_path(demo, secrets=None, env={**cache, size: "100000"}) != store_path(
        demo, secrets=None, env=cache
    )
    # A service's store is named by its address and company only.
    assert store_name(connection(), {size: "100000"}) == store_name(connection(), {})
