"""Every page of the navigation (every route of `dashboard.state.routes.ALL`, a new one included),
opened on the demo at its most telling (`every_page.examples`), once on a 1440x900 laptop in the
dark theme, with the browser's time zone (one of the longest names) left unchosen, and once on a
1920x1080 shared screen in the light theme, in UTC chosen in the link. Each time, once everything
on it has drawn:

- **nothing failed**: no exception, no error box, and the scenario pages show their planted case;
- **the columns a lead needs are in view**, whole, without scrolling sideways. Which columns a
  lead needs is declared once, per page and table, in `dashboard/present/key_columns.py`; a table
  on a page that is not declared there fails here, so a new table is declared with its page (a
  table in a closed expander is not drawn and not checked). A grid draws its cells on a canvas;
  its accessible table lists the columns that meet the grid's visible width, a cut one included,
  so a column is whole when the column after it is listed too, or when it is the last one and
  nothing scrolls;
- **axe-core finds nothing blocking** (a serious or critical violation, or headings out of
  order: `axe.blocking`), and chart text is drawn in the theme's text colour, whose contrast axe
  checks (it cannot judge text in SVG). What axe cannot judge, and the checks made by hand, are in
  docs/accessibility.md;
- on the laptop, **no widget's text is cut**: no control's label, option or chosen value reaches
  past the edge of a box that clips it ("environmen…", "Custo", "Your browser's ("), the zone
  picker's "Your browser's (America/North_Dakota/New_Salem)" included: a cut label is a control a
  lead cannot read (`every_page.CUT_LABELS_JS`);
- on the light screen, **a screenshot** is kept under artifacts/browser/screenshots/ and, with
  UPDATE_SCREENSHOTS=1 (`make screenshots`), written to docs/screenshots/ for the README.

One page load serves all these checks: each costs a dashboard run and a browser draw, and the
browser suite is most of `make test`'s time (the cut-label check had loads of its own before).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from api_client import ApiClient
from dashboard.present.key_columns import KEY_COLUMNS, table_anchor
from dashboard.state import routes
from sandbox import SandboxSettings
from tests.browser import axe, every_page, screen
from tests.browser.harness import ARTIFACTS, StreamlitServer

pytestmark = pytest.mark.browser

LONG_ZONE = "America/North_Dakota/New_Salem"
"""A browser zone with one of the longest names (30 characters)."""
VIEWS = {
    "1440x900-dark": (1440, 900, "dark", LONG_ZONE),
    "1920x1080-light": (1920, 1080, "light", "UTC"),
}
"""Each page is checked at both sizes, in both themes and both ways of choosing the zone: two
loads, not eight. The laptop's zone is the browser's (no `tz` in the link), the screen's UTC."""
SCREENSHOT_THEME = "light"
CUT_LABELS_VIEW = "1440x900-dark"


@pytest.fixture(scope="module")
def urls(oracle: ApiClient, demo_settings: SandboxSettings) -> dict[str, str]:
    return every_page.urls(oracle, demo_settings.now)


def test_every_route_declares_its_tables() -> None:
    assert set(KEY_COLUMNS) == {route.url_path for route in routes.ALL}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("route", routes.ALL, ids=[r.url_path for r in routes.ALL])
def test_every_page_draws_shows_its_columns_and_passes_axe(
    route: routes.Route,
    view: str,
    new_page: Callable[..., Page],
    dashboard: StreamlitServer,
    urls: dict[str, str],
    axe_script: str,
) -> None:
    width, height, theme, zone = VIEWS[view]
    page = new_page(timezone_id=zone)
    page.set_viewport_size({"width": width, "height": height})
    url = urls[route.url_path]
    if zone != "UTC":  # the browser's zone unchosen: the picker shows "Your browser's (<zone>)"
        url = url.replace("tz=UTC", "").replace("?&", "?").rstrip("?&")
    screen.open_app(page, axe.themed(dashboard.url + url, theme))
    main = screen.main(page)
    expect(main.get_by_role("heading", level=1)).to_be_visible()
    shows = every_page.PLANTED_TEXT.get(route.url_path)
    if shows is not None:
        expect(main).to_contain_text(shows)
    declared = KEY_COLUMNS[route.url_path]
    for key in declared:
        screen.Grid(main.locator(f".st-key-{table_anchor(key)}")).wait()
    screen.wait_until_drawn(page)
    screen.expect_no_failure_shown(page)

    expect_columns_in_view(page, route.url_path, declared, view, width)
    if view == CUT_LABELS_VIEW:
        cut = page.evaluate(every_page.CUT_LABELS_JS)
        assert cut == [], f"/{route.url_path} at {width}x{height} cuts: {cut}"

    result = axe.audit(page, axe_script)
    axe.save(result, ARTIFACTS / "axe" / f"{route.url_path or 'plans'}-{theme}.json")
    assert result.version == axe.pinned_version()
    if result.blocking:
        pytest.fail(f"axe-core {result.version} on /{route.url_path} ({view}):\n{result.report()}")
    assert page.evaluate(every_page.OFF_COLOUR_CHART_TEXT) == [], "chart text off the theme"

    if theme == SCREENSHOT_THEME:
        name = f"{route.url_path}.png"
        targets = [ARTIFACTS / "screenshots" / name]
        targets += [every_page.DOCS / name] if every_page.UPDATE else []
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(target))
            assert target.stat().st_size > 10_000, f"{target} is nearly empty"


def expect_columns_in_view(
    page: Page, route: str, declared: dict[str, tuple[str, ...]], view: str, width: int
) -> None:
    """Every declared table is on the page and shows its key columns whole; nothing scrolls
    sideways."""
    grids = page.evaluate(every_page.GRIDS_JS)
    anchors = [g["anchor"] for g in grids]
    assert None not in anchors, f"a table on /{route} is not declared in present/key_columns"
    assert sorted(anchors) == sorted(table_anchor(key) for key in declared)
    by_anchor = {g["anchor"]: g for g in grids}
    problems = {}
    for key, needed in declared.items():
        grid = by_anchor[table_anchor(key)]
        hidden = every_page.hidden_columns(grid, needed)
        if hidden:
            problems[key] = {"hidden": hidden, "in view": [name for name, _ in grid["listed"]]}
        assert grid["right"] <= width, f"{key} ends right of the screen"
    assert not problems, f"/{route} at {view}: {problems}"
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"/{route} scrolls sideways at {view}"
