"""The standup page in a real browser: the planted demo cases and nothing else, each link leading
to its evidence; presenter mode refreshing itself; the text "Copy for chat" puts on the
clipboard; and the whole page on a 1920x1080 screen without scrolling, five items a section."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import Locator, Page, expect

from api_client import ApiClient, Execution, ExecutionQuery
from sandbox import SandboxSettings
from sandbox.data import planted
from tests.browser import screen
from tests.browser.harness import StreamlitServer
from tests.dashboard import standup_history as history_service

pytestmark = pytest.mark.browser

SECTIONS = ["Turned red", "Fixed", "Still failing", "Newly failing scenarios", "Slower"]
FULL_HD = {"width": 1920, "height": 1080}
HISTORY_VIEW = (
    f"/standup?range=custom&from={history_service.WINDOW_FROM}"
    f"&to={history_service.WINDOW_TO}&tz=UTC"
)

# Counts the app's script runs after the page loaded: a self-refresh is a run nobody asked for.
RUN_COUNTER_JS = """
(() => {
  window.__runs = 0;
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.target.getAttribute("data-test-script-state") === "running") window.__runs++;
    }
  }).observe(document, {subtree: true, attributes: true,
                        attributeFilter: ["data-test-script-state"]});
})();
"""


def latest_finished(oracle: ApiClient, plan_id: int, now: datetime) -> Execution:
    runs = oracle.all_executions(
        ExecutionQuery(plan_id=plan_id, date_from=now - timedelta(days=30))
    )
    done = [e for e in runs if e.end_date is not None and not e.result_summary.get("WAITING")]
    return max(done, key=lambda e: e.start_date)


def section_grids(page: Page) -> dict[str, screen.Grid]:
    """Each non-empty section's table, by its title (the heading just above it)."""
    grids: dict[str, screen.Grid] = {}
    for title in SECTIONS:
        block = (
            screen.main(page)
            .locator('[data-testid="stVerticalBlock"]')
            .filter(has=page.get_by_role("heading", name=title, exact=True))
        )
        frames = block.last.locator(screen.DATAFRAME)
        if frames.count():
            grids[title] = screen.Grid(frames.first).wait()
    return grids


def open_standup(page: Page, url: str) -> dict[str, screen.Grid]:
    screen.open_app(page, url)
    for title in SECTIONS:
        expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible()
    screen.metrics(page)
    return section_grids(page)


@pytest.fixture(scope="module")
def plan_names(oracle: ApiClient) -> dict[int, str]:
    return {p.id: p.plan_name for p in oracle.plans(active=False)}


def test_the_planted_cases_and_nothing_else_each_linking_to_its_evidence(
    page: Page,
    dashboard: StreamlitServer,
    oracle: ApiClient,
    demo_settings: SandboxSettings,
    plan_names: dict[int, str],
) -> None:
    grids = open_standup(page, f"{dashboard.url}/standup?tz=UTC")

    expected = {
        "Turned red": [planted.TURNED_RED_PLAN],
        "Fixed": [planted.FIXED_PLAN],
        "Still failing": [planted.STILL_FAILING_PLAN],
        "Newly failing scenarios": [planted.TURNED_RED_PLAN]
        * len(planted.PLAN_ENVIRONMENTS[planted.TURNED_RED_PLAN]),
        "Slower": [planted.SLOWER_PLAN],
    }
    now = demo_settings.now
    red, fixed, still = (
        latest_finished(oracle, plan_id, now).id
        for plan_id in (planted.TURNED_RED_PLAN, planted.FIXED_PLAN, planted.STILL_FAILING_PLAN)
    )
    evidence = {
        "Turned red": [f"results?execution={red}"],
        "Fixed": [f"results?execution={fixed}"],
        "Still failing": [f"results?execution={still}"],
        "Newly failing scenarios": [f"results?execution={red}"] * 3,
        "Slower": [f"executions?plan={planted.SLOWER_PLAN}&range=30d"],
    }
    assert list(grids) == SECTIONS
    for title, plan_ids in expected.items():
        grids[title].expect_rows(len(plan_ids))
        assert grids[title].column("Plan") == [plan_names[i] for i in plan_ids], title
        assert grids[title].column("Evidence") == evidence[title], title
    running = screen.caption_matching(page, r"^Running now")
    assert all(plan_names[i] in running for i in planted.RUNNING_PLANS)
    body = screen.main(page).inner_text()
    for quiet in (*planted.STEADY_GREEN_PLANS, planted.SCENARIO_CASES_PLAN):
        if quiet not in planted.RUNNING_PLANS:
            assert plan_names[quiet] not in body
    screen.expect_no_failure_shown(page)

    # Follow the links, as a person does: each opens its evidence in a new tab.
    opened = follow(page, grids["Turned red"])
    assert screen.path(opened) == "/results"
    assert screen.query(opened)["execution"] == str(red)
    expect(screen.main(opened).get_by_role("heading", level=1)).to_have_text(f"Execution #{red}")
    expect(screen.main(opened)).to_contain_text(f"Plan: {plan_names[planted.TURNED_RED_PLAN]}")
    screen.expect_no_failure_shown(opened)

    slower = follow(page, grids["Slower"])
    assert screen.path(slower) == "/executions"
    assert screen.query(slower) == {"plan": str(planted.SLOWER_PLAN), "range": "30d"}
    expect(screen.selectbox(slower, "Plan")).to_have_value(plan_names[planted.SLOWER_PLAN])
    screen.expect_no_failure_shown(slower)


def follow(page: Page, grid: screen.Grid, row: int = 0) -> Page:
    """Click the first row's "open" and return the tab it opened, once its app has settled."""
    where = grid.link_positions(row, ["Evidence"])
    with page.context.expect_page() as opened:
        page.mouse.click(*where["Evidence"])
    tab = opened.value
    screen.wait_until_idle(tab, timeout=screen.FIRST_LOAD_TIMEOUT_MS)
    expect(screen.main(tab).get_by_role("heading", level=1)).to_be_visible()
    return tab


def test_copy_for_chat_puts_the_digest_with_absolute_links_on_the_clipboard(
    page: Page,
    dashboard: StreamlitServer,
    oracle: ApiClient,
    demo_settings: SandboxSettings,
    plan_names: dict[int, str],
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=dashboard.url)
    open_standup(page, f"{dashboard.url}/standup?tz=UTC")

    screen.main(page).get_by_role("button", name=re.compile("Copy for chat")).click()
    code = page.get_by_test_id("stCode")
    expect(code).to_be_visible()
    code.hover()
    code.get_by_role("button").click()  # the code block's own copy button
    page.wait_for_function("() => navigator.clipboard.readText().then(t => t.length > 0)")
    copied = str(page.evaluate("() => navigator.clipboard.readText()"))

    assert copied.strip() == code.locator("code").inner_text().strip()
    red = latest_finished(oracle, planted.TURNED_RED_PLAN, demo_settings.now)
    base = dashboard.url
    for title in SECTIONS:
        assert f"**{title}**" in copied
    bullets = [line for line in copied.splitlines() if line.startswith("- ")]
    assert len(bullets) == 5  # one line per item
    for plan_id in (
        planted.TURNED_RED_PLAN,
        planted.FIXED_PLAN,
        planted.STILL_FAILING_PLAN,
        planted.SLOWER_PLAN,
    ):
        assert f"[{plan_names[plan_id]}]({base}/executions?plan={plan_id}&range=30d)" in copied
    assert f"[execution {red.id}]({base}/results?execution={red.id})" in copied
    links = re.findall(r"\]\(([^)]*)\)", copied)
    assert links
    assert all(link.startswith(base + "/") for link in links), links
    for plan_id in planted.STEADY_GREEN_PLANS:
        assert not any(plan_names[plan_id] in line for line in bullets)


def test_presenter_mode_has_large_type_no_sidebar_and_refreshes_itself(
    page: Page, dashboard: StreamlitServer, plan_names: dict[int, str]
) -> None:
    # The page's clock is Playwright's: the three minutes between refreshes pass at once.
    page.clock.install()
    page.add_init_script(RUN_COUNTER_JS)
    grids = open_standup(page, f"{dashboard.url}/standup?tz=UTC&present=1")

    expect(page.get_by_test_id("stSidebar")).to_be_hidden()
    expect(page.get_by_test_id("stSidebarCollapsedControl")).to_have_count(0)
    assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "20px"
    expect(screen.main(page).get_by_role("combobox")).to_have_count(0)  # no controls
    assert grids["Turned red"].column("Plan") == [plan_names[planted.TURNED_RED_PLAN]]
    runs = int(page.evaluate("() => window.__runs"))

    page.clock.fast_forward("03:05")

    page.wait_for_function(f"() => window.__runs > {runs}", timeout=screen.RUN_TIMEOUT_MS)
    screen.wait_until_idle(page)
    assert section_grids(page)["Turned red"].column("Plan") == [plan_names[planted.TURNED_RED_PLAN]]
    assert screen.query(page) == {"tz": "UTC", "present": "1"}
    screen.expect_no_failure_shown(page)


LUMINANCE_JS = """el => {
    const [r, g, b] = getComputedStyle(el).color.match(/\\d+/g).slice(0, 3).map(Number)
        .map(v => v / 255).map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}"""


def test_presenter_mode_reads_in_the_dark_theme(
    page: Page, dashboard: StreamlitServer, plan_names: dict[int, str]
) -> None:
    """Presenter mode on a TV in the dark theme: dark page, light large type."""
    grids = open_standup(page, f"{dashboard.url}/standup?tz=UTC&present=1&embed_options=dark_theme")

    expect(page.get_by_test_id("stApp")).to_have_css("background-color", "rgb(18, 20, 24)")
    assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "20px"
    title = screen.main(page).get_by_role("heading", name="Turned red")
    # Light text on the dark background (#121418, luminance ~0.007): contrast above 7:1.
    luminance = float(title.evaluate(LUMINANCE_JS))
    assert (luminance + 0.05) / (0.0069 + 0.05) > 7, luminance
    assert grids["Turned red"].column("Plan") == [plan_names[planted.TURNED_RED_PLAN]]
    screen.expect_no_failure_shown(page)


# -- one screen: five items in every section --------------------------------------------------


@pytest.fixture(scope="module")
def five_of_each() -> Iterator[history_service.HistoryService]:
    with history_service.serve_history(copies=5) as service:
        yield service


@pytest.fixture
def history_dashboard(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer],
    five_of_each: history_service.HistoryService,
) -> StreamlitServer:
    return start_dashboard(
        "history",
        {
            "QA_DASHBOARD_BASE_URL": five_of_each.base_url,
            "QA_DASHBOARD_TOKEN": "hand-built-history-token",
            "QA_DASHBOARD_COMPANY_ID": "7",
        },
    )


def scroll_overflow(page: Page) -> int:
    """How many pixels of the main container lie below the viewport (0: nothing to scroll)."""
    main: Locator = screen.main(page)
    return int(main.evaluate("el => el.scrollHeight - el.clientHeight"))


@pytest.mark.parametrize("present", [False, True], ids=["normal", "presenter"])
def test_five_items_a_section_fit_1920x1080_without_scrolling(
    history_dashboard: StreamlitServer, page: Page, present: bool
) -> None:
    # (The server is asked for first, so it outlives the page and its final screenshot.)
    page.set_viewport_size(FULL_HD)  # type: ignore[arg-type]
    grids = open_standup(
        page, history_dashboard.url + HISTORY_VIEW + ("&present=1" if present else "")
    )

    assert list(grids) == SECTIONS
    for title, grid in grids.items():
        grid.expect_rows(5)
        assert "" not in grid.column("Plan"), title
    expect(screen.main(page).get_by_text(re.compile(r"^and \d+ more$"))).to_have_count(0)
    assert scroll_overflow(page) == 0, "the standup page scrolls at 1920x1080"
    for title, grid in grids.items():
        box = grid.root.bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= FULL_HD["height"], f"{title} ends below the screen"
    screen.expect_no_failure_shown(page)


# What presenter mode shows of each section, left to right (the normal view adds the columns
# dashboard/present/standup.PRESENTER_LEAVES_OUT names).
PRESENTER_HEADERS = {
    "Turned red": ["Plan", "Evidence", "Failed in"],
    "Fixed": ["Plan", "Evidence", "Passed in"],
    "Still failing": ["Plan", "Evidence", "Red since", "Executions"],
    "Newly failing scenarios": [
        "Plan",
        "Evidence",
        "Scenario",
        "Environment",
        "Verdict",
        "Message",
        "History",
    ],
    "Slower": ["Plan", "Evidence", "Median now", "Slower by", "Median, 14 days before"],
}


def test_presenter_mode_shows_every_column_of_every_section_at_1920x1080(
    history_dashboard: StreamlitServer, page: Page
) -> None:
    """No table is cut off at its right edge: every header is in view and nothing scrolls
    sideways (the grid's accessible table lists the columns in view, a cut one included)."""
    page.set_viewport_size(FULL_HD)  # type: ignore[arg-type]
    grids = open_standup(page, history_dashboard.url + HISTORY_VIEW + "&present=1")

    assert list(grids) == SECTIONS
    for title, grid in grids.items():
        grid.expect_rows(5)
        assert grid.headers() == PRESENTER_HEADERS[title], title
        hidden = int(grid.scroller.evaluate("el => el.scrollWidth - el.clientWidth"))
        assert hidden <= 0, f"{title}: {hidden} px of columns lie right of the table's edge"
    screen.expect_no_failure_shown(page)
