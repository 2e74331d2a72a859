"""One clock and one store per data set, on the embedded demo (nothing configured): the CLI
reads the demo at the demo's own "now" as the page does, so `known list` gives a mark the state
the Known failures page shows and `known add` accepts the expiry the page's form accepts; and
`known add` on a plan the page shows works on a store never synced (it syncs, saying so)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from api_client import ApiClient
from dashboard.data import demo
from dashboard.present.known import STATE_LABELS
from tests.dashboard.apptest import assert_no_failure, start_on, table_with
from tests.dashboard.conftest import APP, ENV_NAMES
from tests.waiting import PATIENT_S

KNOWN = "app_pages/known.py"


@pytest.fixture(scope="module")
def shown() -> Iterator[tuple[int, int]]:
    """A plan the demo's pages show and one of its scenarios, as the service lists them."""
    service = demo.start()
    try:
        connection = service.connection
        with ApiClient(
            base_url=connection.base_url,
            token=connection.token.get_secret_value(),
            company_id=connection.company_id,
        ) as client:
            plan = next(p for p in client.plans(active=False) if p.scenarios)
        yield plan.id, plan.scenarios[0]
    finally:
        service.server.stop()


@pytest.fixture
def known_page(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Callable[..., AppTest]:
    """The Known failures page on the demo (nothing configured), on the test's own stores."""
    from dashboard.data import cache

    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("QA_DASHBOARD_CACHE_DIR", str(tmp_path / "stores"))

    def make(**query: str) -> AppTest:
        cache.clear_all()
        at = AppTest.from_file(str(APP), default_timeout=PATIENT_S)  # a hang guard only
        at.secrets["tests"] = "isolated from local secrets"
        start_on(at, KNOWN)
        at.query_params.update(query)
        return at

    return make


@pytest.fixture
def demo_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str, str]]:
    """The command line in this process, on the demo (no QA_DASHBOARD_* but its cache)."""
    from dashboard.cli import main

    env = {k: v for k, v in os.environ.items() if not k.startswith("QA_DASHBOARD_")}
    env["QA_DASHBOARD_CACHE_DIR"] = str(tmp_path / "stores")

    def call(*args: str) -> tuple[int, str, str]:
        code = main(list(args), env=env)
        said = capsys.readouterr()
        return code, said.out, said.err

    return call


def test_the_cli_and_the_page_agree_on_a_marks_state_and_its_expiry(
    known_page: Callable[..., AppTest],
    demo_cli: Callable[..., tuple[int, str, str]],
    shown: tuple[int, int],
) -> None:
    cli = demo_cli
    clock = demo.login("http://127.0.0.1:0").clock
    assert clock is not None
    # The day after the demo's "now": the page's form offers it (its first day is the demo's
    # today), and it is long past on the wall clock of anyone running the demo.
    last_day = (clock + timedelta(days=1)).date().isoformat()
    plan, scenario = shown

    code, out, err = cli(
        "known", "add", "--plan", str(plan), "--scenario", str(scenario),
        "--expires", last_day, "--by", "ann",
    )  # fmt: skip

    # A store never synced: the plan the page shows is synced first, and the CLI says so.
    assert code == 0, err
    assert f"Plan {plan} is not stored: reading the plans from the embedded demo" in err
    mark_id = out.strip()
    code, listed, err = cli("known", "list")
    assert code == 0, err
    row = next(line.split() for line in listed.splitlines() if line.startswith(mark_id))
    cli_state = row[1]
    assert cli_state == "expiring"  # within three days of the demo's now

    at = known_page(marks="all").run()
    assert_no_failure(at)
    table = table_with(at, "Mark", "State").set_index("Mark")
    assert table.loc[mark_id, "State"].startswith(STATE_LABELS[cli_state])

    # Once stored, the next mark of that plan needs no sync and no sandbox.
    code, _, err = cli(
        "known", "add", "--plan", str(plan), "--scenario", str(scenario), "--by", "b"
    )
    assert code == 0, err
    assert "not stored" not in err


def test_each_demo_size_marks_in_its_own_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dashboard.data.store import open_for
    from dashboard.data.store.location import store_path

    login = demo.login("http://127.0.0.1:0")
    small = {"QA_DASHBOARD_CACHE_DIR": str(tmp_path)}
    large = {**small, demo.ENV_DEMO_EXECUTIONS: "100000"}
    with open_for(login, secrets=None, env=small) as store:
        store.import_marks(
            login.company_id,
            [{"mark_id": "0123456789ab", "target": "execution", "execution_id": 5,
              "kind": "outage", "company_id": login.company_id}],
            [],
            by="ann",
        )  # fmt: skip
        assert len(store.read_marks(login.company_id).marks) == 1
    with open_for(login, secrets=None, env=large) as store:
        assert store.read_marks(login.company_id).marks.empty
    assert store_path(login, secrets=None, env=small) != store_path(login, secrets=None, env=large)
