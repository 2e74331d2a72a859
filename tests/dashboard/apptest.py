"""Reading what an `AppTest` run shows, the way a person would see it."""

from __future__ import annotations

import functools
import re
import time
from pathlib import Path
from typing import Any

from streamlit.components.v2.component_manager import BidiComponentManager
from streamlit.testing.v1 import AppTest, local_script_runner
from streamlit.util import calc_hash

from dashboard.state import routes
from dashboard.ui.notices import CAPTION_KEY, NOTE_KEY
from tests.waiting import PATIENT_S

APP = Path(__file__).resolve().parents[2] / "dashboard" / "app.py"

PLANS = "app_pages/plans.py"
EXECUTIONS = "app_pages/executions.py"
RESULTS = "app_pages/execution_results.py"
STANDUP = "app_pages/standup.py"
HEALTH = "app_pages/health.py"
FLAKY = "app_pages/flaky.py"
ENVIRONMENTS = "app_pages/environments.py"
COMPARE = "app_pages/compare.py"
SCENARIO = "app_pages/scenario.py"
STATES = "app_pages/states.py"
SLOWER = "app_pages/slower.py"
FAILURES = "app_pages/failures.py"
TIME_TO_GREEN = "app_pages/time_to_green.py"


def page_hash(script: str) -> str:
    """The hash `st.navigation` gives the page of `script` (`app_pages/...`): Streamlit 1.67's
    `st.Page._script_hash`, a hash of the page's URL path (`routes`), not of its file name."""
    return calc_hash(next(route.url_path for route in routes.ALL if route.script == script))


def start_on(at: AppTest, script: str) -> AppTest:
    """Make the first run of `at` open the page of `script`, as a link to that page does.

    `AppTest.switch_page` resolves a page through the pages a previous run registered, so
    it needs a run of the default page (Plans, over the whole demo) first: the page tests paid
    for two page runs each. This sets what `switch_page` sets, the page hash the next run asks
    for, without that run; `test_apptest_start.py` checks it against `switch_page` itself and
    that the first run lands on every page, so a Streamlit upgrade that changes either fails
    there, not in every page test.
    """
    at._page_hash = page_hash(script)
    return at


@functools.cache
def installed_components() -> BidiComponentManager:
    """The registry of installed Streamlit components, scanned once per test process as a
    server scans it once as it starts (`Runtime` makes one for every session).

    `AppTest` makes and scans one of its own for each new `AppTest`: reading the metadata of
    every installed distribution, about 0.7 s of CPU, more than most pages' own run (#36).
    """
    components = BidiComponentManager()
    components.discover_and_register_components(start_file_watching=False)
    return components


_POLLING_WAIT = local_script_runner.require_widgets_deltas


def _wait_for_the_run(runner: local_script_runner.LocalScriptRunner, timeout: float = 3) -> None:
    """Wait for a run's script thread to end (it emits SHUTDOWN before it returns), then
    check as Streamlit does; a run not ended is left to Streamlit's own wait, its timeout error
    included. Streamlit's wait wakes every millisecond and scans the run's events: a few per
    cent of a core for as long as the page runs, and the page's thread handing over the GIL."""
    start = time.monotonic()
    thread = runner._script_thread
    if thread is not None:
        thread.join(timeout)
    if not runner.script_stopped():
        _POLLING_WAIT(runner, max(timeout - (time.monotonic() - start), 0.0))


@functools.cache
def _without_polling() -> None:
    """Make every `AppTest` run of this process wait with `_wait_for_the_run`."""
    assert local_script_runner.require_widgets_deltas is _POLLING_WAIT
    local_script_runner.require_widgets_deltas = _wait_for_the_run


def app_test(page: str | None = None, **query: str) -> AppTest:
    """A new `AppTest` of the dashboard whose first run opens `page` (`start_on`) at `query`.

    It shares the process's component registry (`installed_components`) and has non-empty
    secrets, which replace any .streamlit/secrets.toml of the machine running the tests. What
    the process has loaded is kept: the `app` fixture is this after forgetting it.
    """
    # A guard against a hang, not a time limit: one page's run takes seconds, but a loaded
    # two-core machine (other runs, a browser) can stretch it many times over.
    _without_polling()
    at = AppTest.from_file(str(APP), default_timeout=PATIENT_S)
    # Streamlit 1.67's AppTest makes its own registry on its first run unless it has one.
    assert hasattr(at, "_bidi_component_manager"), "AppTest no longer takes a component registry"
    at._bidi_component_manager = installed_components()
    at.secrets["tests"] = "isolated from local secrets"
    if page is not None:
        start_on(at, page)  # the page's first run is the page: no run of Plans before it
    at.query_params.update(query)
    return at


def texts(elements: Any) -> list[str]:
    """Element texts as a person reads them: markdown escapes (`\\.`) removed."""
    return [re.sub(r"\\(.)", r"\1", str(element.value)) for element in elements]


def sources(elements: Any) -> list[str]:
    """Element texts as sent to the browser (markdown source)."""
    return [str(element.value) for element in elements]


def joined(elements: Any) -> str:
    return "\n".join(texts(elements))


def _plain_in(node: Any, key_prefix: str) -> list[str]:
    """The `st.text` values inside containers whose key starts with `key_prefix`."""
    found: list[str] = []

    def walk(node: Any, inside: bool) -> None:
        proto = getattr(node, "proto", None)
        block_id = (
            str(getattr(proto, "id", "")) if getattr(node, "type", "") == "flex_container" else ""
        )
        inside = inside or f"-{key_prefix}-" in block_id
        if inside and getattr(node, "type", "") == "text":
            found.append(str(node.value))
        for child in getattr(node, "children", {}).values():
            walk(child, inside)

    for root in (node.main, node.sidebar) if isinstance(node, AppTest) else (node,):
        walk(root, False)
    return found


def captions(at: Any) -> str:
    """Every caption, markdown (`st.caption`) and plain (`notices.caption`), as read."""
    return "\n".join([*texts(at.caption), *_plain_in(at, CAPTION_KEY)])


def plain_notes(at: Any, severity: str = "warning") -> str:
    """The plain-text notes of one severity (`notices.show_notes`), exactly as shown."""
    return "\n".join(_plain_in(at, f"{NOTE_KEY}-{severity}"))


def notes(at: Any, severity: str = "warning") -> str:
    """Every box of one severity, as read: alerts (`st.warning`, ...) and plain-text notes."""
    alerts = {"warning": at.warning, "info": at.info, "error": at.error}[severity]
    return "\n".join([*texts(alerts), plain_notes(at, severity)])


def metrics(at: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in at.metric}


def everything_shown(at: AppTest) -> str:
    """Every element of the page as sent to the browser, every table as CSV, and the URL."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at.main)
    walk(at.sidebar)
    parts.extend(frame.value.to_csv() for frame in at.dataframe)
    parts.append(repr(at.query_params))
    return "\n".join(parts)


def assert_no_failure(at: AppTest) -> None:
    """No exception element (a traceback) and no error box."""
    assert not at.exception, texts(at.exception)
    assert not at.error, texts(at.error)
    assert not plain_notes(at, "error"), plain_notes(at, "error")


FAILING_NOW = "\u2716 failing"


def assert_red_first(at: AppTest) -> None:
    """The first table's plans that are failing now (its "Now" column) come before the rest:
    the demo holds at least two."""
    now = [text.replace(" (one running)", "") for text in at.dataframe[0].value["Now"]]
    failing = now.count(FAILING_NOW)
    assert failing >= 2, "the demo holds two red plans"
    assert now[:failing] == [FAILING_NOW] * failing
    assert FAILING_NOW not in now[failing:]


def table_with(at: AppTest, *columns: str) -> Any:
    """The one table (a DataFrame as shown) whose columns include `columns`."""
    found = [f.value for f in at.dataframe if set(columns) <= set(f.value.columns)]
    assert len(found) == 1, f"{len(found)} tables have columns {columns}"
    return found[0]


def downloads(at: AppTest) -> list[str]:
    """The keys of the page's CSV download buttons (each table's key + ".csv")."""
    keys = []
    for button in at.get("download_button"):
        ident = str(getattr(button.proto, "id", ""))
        keys.append(ident.rsplit("-", 1)[-1] if "-" in ident else ident)
    return keys
