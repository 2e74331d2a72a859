"""Every column a lead needs is in view, whole, without scrolling sideways: on a 1440x900 laptop
and on a 1920x1080 screen, on every route of `dashboard/state/routes.py`.

Which columns a lead needs is declared once, per page and table, in
`dashboard/present/key_columns.py`; a table on a page that is not declared there fails here, so a
new table is declared with its page. Each page is opened on the demo at its most telling (the
screenshots' examples), where every declared table shows (a table in a closed expander, such
as a failure group's results, is not drawn and not checked).

A grid draws its cells on a canvas; its accessible table lists the columns that meet the grid's
visible width, a cut one included. So a column is whole when the column after it is listed too
(it starts before the grid's right edge), or when it is the last one and nothing scrolls.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from api_client import ApiClient
from dashboard.present.key_columns import ANCHOR_PREFIX, KEY_COLUMNS, table_anchor
from dashboard.state import routes
from sandbox import SandboxSettings
from tests.browser import screen
from tests.browser.harness import StreamlitServer
from tests.browser.test_screenshots import examples

pytestmark = pytest.mark.browser

SIZES = {"1440x900": (1440, 900), "1920x1080": (1920, 1080)}

# Per grid in the main area: its anchor (the container `ui.tables.table` puts it in), how many
# columns it has, whether it scrolls sideways, and the columns its accessible table lists in
# view (header, 1-based column index), left to right.
GRIDS_JS = f"""() => [...document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stDataFrame"]')]
  .filter(grid => grid.checkVisibility() && grid.getBoundingClientRect().height > 0)
  .map(grid => {{
    let anchor = null;
    for (let el = grid; el && !anchor; el = el.parentElement) {{
      anchor = [...(el.classList || [])].find(c => c.startsWith("st-key-{ANCHOR_PREFIX}")) || null;
    }}
    const table = grid.querySelector("table[role=grid]");
    const scroller = grid.querySelector(".dvn-scroller");
    const box = grid.getBoundingClientRect();
    return {{
      anchor: anchor && anchor.slice("st-key-".length),
      columns: Number(table && table.getAttribute("aria-colcount")),
      scrolls: scroller ? scroller.scrollWidth > scroller.clientWidth : false,
      right: box.right,
      listed: table ? [...table.querySelectorAll("thead th")].map(
        th => [th.innerText.trim(), Number(th.getAttribute("aria-colindex"))]) : [],
    }};
  }})"""


def hidden_columns(grid: dict[str, object], needed: tuple[str, ...]) -> list[str]:
    """The needed columns that are not in view whole, in `GRIDS_JS`'s terms."""
    listed = dict(grid["listed"])  # type: ignore[call-overload]
    shown_indexes = set(listed.values())
    hidden = []
    for name in needed:
        index = listed.get(name)
        whole = index is not None and (
            index + 1 in shown_indexes or (index == grid["columns"] and not grid["scrolls"])
        )
        if not whole:
            hidden.append(name)
    return hidden


@pytest.fixture(scope="module")
def urls(oracle: ApiClient, demo_settings: SandboxSettings) -> dict[str, str]:
    queries = examples(oracle, demo_settings.now)
    return {
        route.url_path: ("/" if route.default else f"/{route.url_path}")
        + (f"?{queries[route.url_path]}" if route.url_path in queries else "")
        for route in routes.ALL
    }


def test_every_route_declares_its_tables() -> None:
    assert set(KEY_COLUMNS) == {route.url_path for route in routes.ALL}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("route", [route.url_path for route in routes.ALL])
def test_the_columns_a_lead_needs_are_in_view(
    route: str, size: str, page: Page, dashboard: StreamlitServer, urls: dict[str, str]
) -> None:
    width, height = SIZES[size]
    page.set_viewport_size({"width": width, "height": height})
    screen.open_app(page, dashboard.url + urls[route])
    screen.wait_until_idle(page)
    declared = KEY_COLUMNS[route]
    for key in declared:
        grid = screen.Grid(screen.main(page).locator(f".st-key-{table_anchor(key)}"))
        grid.wait()
    screen.wait_until_idle(page)

    grids = page.evaluate(GRIDS_JS)

    anchors = [g["anchor"] for g in grids]
    assert None not in anchors, f"a table on /{route} is not declared in present/key_columns"
    assert sorted(anchors) == sorted(table_anchor(key) for key in declared)
    by_anchor = {g["anchor"]: g for g in grids}
    problems = {}
    for key, needed in declared.items():
        grid = by_anchor[table_anchor(key)]
        hidden = hidden_columns(grid, needed)
        if hidden:
            problems[key] = {"hidden": hidden, "in view": [name for name, _ in grid["listed"]]}
        assert grid["right"] <= width, f"{key} ends right of the screen"
    assert not problems, f"/{route} at {size}: {problems}"
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"/{route} scrolls sideways at {size}"
    screen.expect_no_failure_shown(page)
