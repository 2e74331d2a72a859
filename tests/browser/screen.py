"""What a test does in the page: wait for the app, read what a person sees, click like a person.

Waiting is always on the app's own state or on a concrete element, through Playwright's
auto-retrying `expect`: the `stApp` element's `data-test-script-state` says whether the script
is running, and the elements a page draws (metrics, tables, charts) say that the front end has
rendered them (Streamlit loads element components lazily, so a finished run can still show
placeholders for a moment).

Streamlit's `st.dataframe` draws on a canvas (glide-data-grid). Its rows are not DOM text, but
the grid keeps an accessible `<table role="grid">` of the rows and columns in view, whose
`aria-rowcount` counts every row. `Grid` reads that table, and selects a row by clicking its
row marker on the canvas, as a person does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from playwright.sync_api import FloatRect, Locator, Page, expect

FIRST_LOAD_TIMEOUT_MS = 90_000  # a cold server imports pandas/plotly and starts the sandbox
RUN_TIMEOUT_MS = 60_000
POLL_MS = 100  # how often a wait on a page function asks again (as `expect` first does)

APP = '[data-testid="stApp"]'
METRIC = '[data-testid="stMetric"]'
DATAFRAME = '[data-testid="stDataFrame"]'
# The page's own tables, not those in an expander (such as every chart's data under it).
PAGE_TABLE = f':is({DATAFRAME}):not([data-testid="stExpander"] {DATAFRAME})'
PLOTLY_SVG = '[data-testid="stPlotlyChart"] .js-plotly-plot svg.main-svg'
SKELETON = '[data-testid="stSkeleton"], [data-testid="stSkeletonElement"]'
EXCEPTION = '[data-testid="stException"]'
ERROR_ALERT = '[data-testid="stAlertContentError"]'
# Captions: Streamlit's own, and the app's plain-text ones (dashboard/ui/notices.py), which
# show service names as text only.
CAPTION = (
    '[data-testid="stCaptionContainer"], [class*="st-key-qa-plain-caption-"] [data-testid="stText"]'
)

# Streamlit's data grid geometry (default row height; the header row is as tall as a row).
GRID_ROW_HEIGHT = 35
GRID_HEADER_HEIGHT = 35
ROW_MARKER_WIDTH = 40  # the row-selection checkboxes of a selectable grid
APP_HEADER_HEIGHT = 60  # Streamlit's header, fixed over the top of the page (3.75rem)
GRID_ROW_MARKER_X = 18  # the middle of the row-marker (checkbox) column of a selectable grid

PAGE_NOT_FOUND = "Page not found"
TRACEBACK_MARKERS = ("Traceback (most recent call last)", 'File "/')


def wait_until_idle(page: Page, timeout: float = RUN_TIMEOUT_MS) -> None:
    """The app is connected and its script is not running (nor about to rerun)."""
    app = page.locator(APP)
    expect(app).to_have_attribute("data-test-connection-state", "CONNECTED", timeout=timeout)
    expect(app).to_have_attribute("data-test-script-state", "notRunning", timeout=timeout)
    # Elements of the previous run that this run did not redraw are marked stale until removed.
    expect(page.locator('[data-stale="true"]')).to_have_count(0, timeout=timeout)
    # Element components load lazily and show a skeleton until then.
    expect(page.locator(SKELETON)).to_have_count(0, timeout=timeout)


def open_app(page: Page, url: str, timeout: float = FIRST_LOAD_TIMEOUT_MS) -> None:
    page.goto(url)
    wait_until_idle(page, timeout)


def main(page: Page) -> Locator:
    return page.get_by_test_id("stMain")


def wait_until_drawn(page: Page) -> None:
    """Everything the page draws has drawn: its title, every chart's SVG, every visible
    table's canvas (tables in a closed expander are not drawn), and the app is idle."""
    area = main(page)
    expect(area.get_by_role("heading", level=1)).to_be_visible()
    for chart in area.get_by_test_id("stPlotlyChart").all():
        expect(chart.locator(".js-plotly-plot svg.main-svg").first).to_be_attached()
    for frame in area.locator(DATAFRAME).all():
        if frame.is_visible():
            expect(frame.get_by_test_id("data-grid-canvas")).to_be_visible()
    wait_until_idle(page)


def expect_no_crash(page: Page) -> None:
    """No exception box, no "Page not found" dialog and no traceback text, ever.

    The exception and "Page not found" checks also cover what was shown only for a moment:
    the browser context's init script (conftest.WATCH_SCRIPT) records them as they appear.
    """
    expect(page.locator(EXCEPTION)).to_have_count(0)
    expect(page.get_by_text(PAGE_NOT_FOUND)).to_have_count(0)
    seen = page.evaluate("() => window.__seen")
    assert seen == {"exception": False, "pageNotFound": False}, f"the page showed: {seen}"
    text = page.locator("body").inner_text()
    for marker in TRACEBACK_MARKERS:
        assert marker not in text, f"the page shows a traceback ({marker!r})"


def expect_no_failure_shown(page: Page) -> None:
    """No crash (see `expect_no_crash`) and no error box either."""
    expect_no_crash(page)
    expect(page.locator(ERROR_ALERT)).to_have_count(0)


def metrics(page: Page) -> dict[str, str]:
    """The KPI tiles, label -> value, once they have rendered."""
    tiles = page.locator(METRIC)
    expect(tiles.first).to_be_visible()
    values: dict[str, str] = {}
    for tile in tiles.all():
        label = tile.get_by_test_id("stMetricLabel").inner_text().strip()
        values[label] = tile.get_by_test_id("stMetricValue").inner_text().strip()
    return values


def metric(page: Page, label: str) -> Locator:
    """The value of one KPI tile, for auto-waiting assertions."""
    tile = page.locator(METRIC).filter(
        has=page.get_by_test_id("stMetricLabel").get_by_text(label, exact=True)
    )
    return tile.get_by_test_id("stMetricValue")


def query(page: Page) -> dict[str, str]:
    """The page URL's query parameters (the last value of a repeated one)."""
    return dict(parse_qsl(urlsplit(page.url).query))


def path(page: Page) -> str:
    return urlsplit(page.url).path


def expect_charts(page: Page, count: int) -> None:
    """`count` plotly charts have drawn their SVG (a closed tab whose chart is built only when
    opened has none)."""
    expect(page.locator(PLOTLY_SVG).first).to_be_attached()
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(count)
    for chart in page.locator('[data-testid="stPlotlyChart"]').all():
        expect(chart.locator(".js-plotly-plot svg.main-svg").first).to_be_attached()


_CHART_SIGNATURE_JS = """() => JSON.stringify(
  [...document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')]
    .map(el => (el.data || []).map(t => [t.name, t.x, t.y, t.z])))"""


def chart_signature(page: Page) -> str:
    """A fingerprint of the data every plotly chart on the page draws."""
    return str(page.evaluate(_CHART_SIGNATURE_JS))


def expect_charts_changed(page: Page, before: str) -> str:
    """Wait until the charts draw other data than `before`; return the new fingerprint.

    Polled every `POLL_MS`, not on every animation frame (`wait_for_function`'s default): a
    per-frame poll serialises every chart's data 60 times a second and keeps the page drawing
    frames for the whole rerun."""
    page.wait_for_function(
        f"before => ({_CHART_SIGNATURE_JS})() !== before",
        arg=before,
        timeout=RUN_TIMEOUT_MS,
        polling=POLL_MS,
    )
    return chart_signature(page)


def caption_matching(page: Page, pattern: str) -> str:
    """The text of the first caption that matches `pattern` (a regular expression)."""
    caption = main(page).locator(CAPTION).filter(has_text=re.compile(pattern))
    expect(caption.first).to_be_visible()
    return caption.first.inner_text().strip()


def selectbox(page: Page, label: str) -> Locator:
    """The input of the selectbox labelled `label` (its value is the option shown)."""
    return page.get_by_role("combobox", name=label, exact=True)


def choose(page: Page, label: str, option: str) -> None:
    """Pick `option` in the selectbox labelled `label`, as a person does."""
    selectbox(page, label).click()
    page.get_by_role("option", name=option, exact=True).click()


def multiselect(page: Page, label: str) -> Locator:
    """The multiselect labelled `label`."""
    combobox = page.get_by_role("combobox", name=label, exact=True)
    return main(page).get_by_test_id("stMultiSelect").filter(has=combobox)


def pick(page: Page, label: str, option: str) -> None:
    """Add `option` to the multiselect labelled `label`, as a person does, and close it."""
    page.get_by_role("combobox", name=label, exact=True).click()
    page.get_by_role("option", name=option, exact=True).click()
    page.keyboard.press("Escape")


def picked(page: Page, label: str) -> list[str]:
    """The options chosen in the multiselect labelled `label`, as their tags read."""
    tags = multiselect(page, label).locator("[data-tag]")
    return [tag.get_attribute("aria-label") or "" for tag in tags.all()]


def segment(page: Page, label: str, option: str) -> Locator:
    """The button of `option` in the segmented control labelled `label` (a radio group)."""
    group = page.get_by_role("radiogroup", name=label, exact=True)
    return group.get_by_role("radio", name=option, exact=True)


SLICE_CAPTION = re.compile(r"^(\d[\d,]*) (?:active )?(?:plan|execution|result)s?\b")


def expect_table_settled(page: Page) -> Grid:
    """The page's table has drawn the rows its slice caption counts ("4 executions of ...")."""
    caption = main(page).locator(CAPTION).filter(has_text=SLICE_CAPTION)
    expect(caption.first).to_be_visible()
    match = SLICE_CAPTION.match(caption.first.inner_text().strip())
    assert match is not None
    grid = Grid.only(page)
    grid.expect_rows(int(match.group(1).replace(",", "")))
    return grid


def view(page: Page) -> dict[str, object]:
    """Everything a person reads on the current screen: address, title, filters, KPIs,
    captions, table sizes and what the charts draw. Two equal views look the same."""
    main_area = main(page)
    expect(main_area.get_by_role("heading", level=1)).to_be_visible()
    expect_table_settled(page)
    charts = main_area.get_by_test_id("stPlotlyChart")
    for chart in charts.all():
        expect(chart.locator(".js-plotly-plot svg.main-svg").first).to_be_attached()
    grids = [Grid(frame).wait() for frame in main_area.locator(PAGE_TABLE).all()]
    selects = {
        box.get_by_test_id("stWidgetLabel").inner_text().strip(): box.get_by_role(
            "combobox"
        ).input_value()
        for box in main_area.get_by_test_id("stSelectbox").all()
    }
    picks = {
        box.get_by_test_id("stWidgetLabel").inner_text().strip(): [
            tag.get_attribute("aria-label") or "" for tag in box.locator("[data-tag]").all()
        ]
        for box in main_area.get_by_test_id("stMultiSelect").all()
    }
    toggles = {
        box.inner_text().strip(): box.locator("input[type=checkbox]").is_checked()
        for box in main_area.get_by_test_id("stCheckbox").all()
    }
    dates = {
        box.get_by_test_id("stWidgetLabel").inner_text().strip(): box.locator("input").input_value()
        for box in main_area.get_by_test_id("stDateInput").all()
    }
    segments = {
        group.get_attribute("aria-label") or "": [
            radio.inner_text().strip()
            for radio in group.get_by_role("radio").all()
            if radio.get_attribute("aria-checked") == "true"
        ]
        for group in main_area.get_by_role("radiogroup").all()
    }
    tabs = [
        tab.inner_text().strip()
        for tab in main_area.get_by_role("tab").all()
        if tab.get_attribute("aria-selected") == "true"
    ]
    return {
        "path": path(page),
        "query": query(page),
        "title": main_area.get_by_role("heading", level=1).inner_text().strip(),
        "tabs": tabs,
        "selects": selects,
        "picks": picks,
        "toggles": toggles,
        "segments": segments,
        "dates": dates,
        "metrics": metrics(page) if main_area.locator(METRIC).count() else {},
        "captions": [c.strip() for c in main_area.locator(CAPTION).all_inner_texts()],
        "rows": [grid.row_count() for grid in grids],
        "charts": chart_signature(page),
    }


def download_table(page: Page, folder: Path) -> tuple[str, str]:
    """Press the page's "Download CSV"; return the file's suggested name and its text.

    The file starts with a UTF-8 byte order mark (for spreadsheets); it is checked and removed.
    """
    button = main(page).get_by_test_id("stDownloadButton").filter(has_text="Download CSV")
    expect(button).to_have_count(1)
    with page.expect_download() as started:
        button.click()
    download = started.value
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / download.suggested_filename
    download.save_as(target)
    data = target.read_bytes()
    assert data.startswith("\ufeff".encode()), "the CSV does not start with a UTF-8 BOM"
    return download.suggested_filename, data.decode("utf-8-sig")


@dataclass
class Grid:
    """One `st.dataframe`, read through its accessible table."""

    root: Locator

    @classmethod
    def only(cls, page: Page) -> Grid:
        frames = main(page).locator(PAGE_TABLE)
        expect(frames).to_have_count(1)
        return cls(frames.first)

    @property
    def table(self) -> Locator:
        return self.root.locator("table[role=grid]")

    @property
    def scroller(self) -> Locator:
        return self.root.locator(".dvn-scroller")

    def wait(self) -> Grid:
        expect(self.root.get_by_test_id("data-grid-canvas")).to_be_visible()
        expect(self.table).to_be_attached()
        expect(self.table.locator("tbody tr").first).to_be_attached()
        return self

    def row_count(self) -> int:
        """Every row of the grid, not only those in view."""
        self.wait()
        return int(self.table.get_attribute("aria-rowcount") or "1") - 1

    def expect_rows(self, count: int) -> None:
        """Wait until the grid holds `count` rows (it redraws a moment after a rerun)."""
        self.wait()
        expect(self.table).to_have_attribute("aria-rowcount", str(count + 1))

    def headers(self) -> list[str]:
        """The column headers in view, left to right."""
        self.wait()
        return [h.strip() for h in self.table.locator("thead th").all_inner_texts()]

    def column(self, header: str) -> list[str]:
        """The cells of one column, for the rows in view."""
        index = self.headers().index(header)
        return [
            row.locator("td").nth(index).inner_text().strip()
            for row in self.table.locator("tbody tr").all()
        ]

    def select_row(self, row: int) -> None:
        """Tick the row marker of data row `row` (0 = the first row shown)."""
        self.wait()
        y = GRID_HEADER_HEIGHT + row * GRID_ROW_HEIGHT + GRID_ROW_HEIGHT // 2
        # The grid's scroller lies over its canvas and takes the pointer events.
        self.scroller.click(position={"x": GRID_ROW_MARKER_X, "y": y})

    def scroll_to(self, header: str) -> None:
        """Scroll the grid sideways until the column `header` is in view."""
        self.wait()
        if header in self.headers():
            return
        self.scroller.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
        expect(self.table.locator("thead")).to_contain_text(header)

    def link_positions(self, row: int, links: list[str]) -> dict[str, tuple[float, float]]:
        """Where on the page the link texts of `row` are, for the link columns `links`.

        Link cells are drawn on the canvas; the grid shows a pointer cursor over a link's text.
        Moving the mouse along the row finds the pointer regions, left to right, one per link
        column in view. The grid can move while it is scanned (a chart above it drawing late on
        a busy machine pushes it down, a rerun redraws it), so a scan that does not find one
        region per link column is made again, from the grid's new place, a few times.
        """
        in_view: list[str] = []
        found: list[list[float]] = []
        page = self.root.page
        # A tab left behind when a link opened another is hidden: Chromium then draws it (and
        # its cursor) only now and then, and each step of the scan waits seconds.
        page.bring_to_front()
        for attempt in range(6):
            if attempt > 0:
                # Start the next scan from a settled page, with the pointer off the grid: the
                # grid then sees the pointer enter afresh.
                page.mouse.move(0, 0)
                wait_until_idle(page)
            self.wait()
            canvas = self.root.get_by_test_id("data-grid-canvas")
            canvas.scroll_into_view_if_needed()
            box, y = self._row_line(canvas, row)
            viewport = page.viewport_size
            assert viewport is not None
            if not APP_HEADER_HEIGHT < y < viewport["height"] - GRID_ROW_HEIGHT:
                # The row scanned, not only some part of the grid, must be in view and clear
                # of the app's fixed header.
                canvas.evaluate("el => el.scrollIntoView({block: 'center'})")
                box, y = self._row_line(canvas, row)
            # After a scan that missed, each step waits for the page to draw a frame: the grid
            # sets its cursor on a frame, which a busy machine's page draws late.
            found = self._pointer_regions(canvas, box, y, per_frame=attempt > 0)
            in_view = [h for h in self.headers() if h in links]
            if len(found) == len(in_view):
                return {h: ((r[0] + r[1]) / 2, y) for h, r in zip(in_view, found, strict=True)}
        raise AssertionError(
            f"link regions {found} for columns {in_view}; {self._scan_report(box, y)}"
        )

    @staticmethod
    def _row_line(canvas: Locator, row: int) -> tuple[FloatRect, float]:
        """The grid canvas's box, and the height on the page of the middle of data row `row`."""
        box = canvas.bounding_box()
        assert box is not None
        return box, box["y"] + GRID_HEADER_HEIGHT + row * GRID_ROW_HEIGHT + GRID_ROW_HEIGHT / 2

    def _scan_report(self, box: FloatRect, y: float) -> str:
        """What lay under the scanned line when a scan missed, for the failure message."""
        page = self.root.page
        under = page.evaluate(
            "([x, y]) => { const el = document.elementFromPoint(x, y);"
            " return el ? `${el.tagName} ${el.getAttribute('data-testid') ?? ''}"
            " ${el.className}`.slice(0, 120) : 'nothing'; }",
            [box["x"] + box["width"] / 2, y],
        )
        return f"canvas {box}, line y={y}, viewport {page.viewport_size}, under the line: {under}"

    def _pointer_regions(
        self, canvas: Locator, box: FloatRect, y: float, *, per_frame: bool = False
    ) -> list[list[float]]:
        """The stretches of the line at height `y` where the grid shows a pointer cursor
        (read after the next two drawn frames with `per_frame`)."""
        regions: list[list[float]] = []
        inside = False
        x = box["x"] + 2
        read = (
            "el => new Promise(done => requestAnimationFrame(() => requestAnimationFrame("
            "() => done(getComputedStyle(el).cursor))))"
            if per_frame
            else "el => getComputedStyle(el).cursor"
        )
        while x < box["x"] + box["width"] - 2:
            self.root.page.mouse.move(x, y)
            pointer = canvas.evaluate(read) == "pointer"
            if pointer and not inside:
                regions.append([x, x])
            if pointer:
                regions[-1][1] = x
            inside = pointer
            x += 6
        # A selectable grid's row-marker checkboxes (its first ~40 px) show a pointer too.
        return [r for r in regions if r[1] > box["x"] + ROW_MARKER_WIDTH]
