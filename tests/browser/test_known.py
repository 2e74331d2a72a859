"""Known failures in a real browser, on a demo dashboard with a store of its own: a failure group
marked known on /flaky is still known after a reload, the standup folds the plan it turned red
into one line with its ticket, and closing the mark on the Known failures page brings the plan
back to Turned red."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser import screen
from tests.browser.harness import StreamlitServer

pytestmark = pytest.mark.browser

TICKET = "https://jira.example.com/browse/SHOP-123"
GROUP = re.compile(r'^Failures "SessionNotCreatedException: .*" in every plan$')
KNOWN_LINE = "Known: Web Shop smoke: 1 scenario known \u2014 SHOP-123"


@pytest.fixture
def own_demo(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer], tmp_path: Path
) -> StreamlitServer:
    """The demo, its marks in a store folder of this test's own (the session's demo server
    keeps none of them)."""
    return start_dashboard("known", {"QA_DASHBOARD_CACHE_DIR": str(tmp_path / "stores")})


def turned_red_plans(page: Page) -> list[str]:
    block = (
        screen.main(page)
        .locator('[data-testid="stVerticalBlock"]')
        .filter(has=page.get_by_role("heading", name="Turned red", exact=True))
        .last
    )
    frames = block.locator(screen.DATAFRAME)
    if not frames.count():
        return []
    return screen.Grid(frames.first).wait().column("Plan")


def open_standup(page: Page, server: StreamlitServer) -> None:
    screen.open_app(page, server.url + "/standup?tz=UTC")
    expect(page.get_by_role("heading", name="Turned red", exact=True)).to_be_visible()
    screen.wait_until_idle(page)
    screen.expect_no_failure_shown(page)


def test_a_group_marked_on_flaky_is_folded_on_the_standup_until_closed(
    page: Page, own_demo: StreamlitServer
) -> None:
    open_standup(page, own_demo)
    assert turned_red_plans(page) == ["Web Shop smoke"]
    expect(screen.main(page).get_by_text("Known failures and outages: none")).to_be_visible()

    # Mark the group known where it is seen: /flaky's failure groups.
    screen.open_app(page, own_demo.url + "/flaky?tz=UTC")
    expect(page.get_by_role("heading", name="Failure groups", exact=True)).to_be_visible()
    screen.main(page).get_by_role("button", name=re.compile("Mark as known")).click()
    screen.selectbox(page, "What").click()
    page.get_by_role("option", name=GROUP).click()
    page.get_by_role("textbox", name="Ticket link", exact=True).fill(TICKET)
    page.get_by_role("textbox", name="Your name", exact=True).fill("Ann")
    page.get_by_role("button", name="Save mark").click()
    screen.wait_until_idle(page)
    expect(screen.main(page).get_by_text(re.compile(r"^Marked Failures"))).to_be_visible()

    # A reload is a new session: the mark is in the store, not in the page.
    page.reload()
    screen.wait_until_idle(page)
    screen.caption_matching(page, r"of the [\d,]+ failures are known \(marked\)")
    assert not screen.caption_matching(page, r"failures are known \(marked\)").startswith("0 of")

    open_standup(page, own_demo)
    assert turned_red_plans(page) == []
    folded = screen.main(page).get_by_text("Known: 1 mark, 1 scenario")
    expect(folded).to_be_visible()
    folded.click()
    expect(screen.main(page).get_by_text(KNOWN_LINE)).to_be_visible()

    # Close it on the Known failures page.
    screen.open_app(page, own_demo.url + "/known?tz=UTC")
    # The mark's own block (its heading names its target), not the table's cell.
    screen.main(page).locator('[data-testid="stExpander"] summary').filter(
        has_text="SessionNotCreatedException"
    ).first.click()
    closer = page.get_by_role("textbox", name="Your name (to close it)", exact=True)
    closer.fill("Ann")
    closer.press("Tab")
    screen.wait_until_idle(page)
    page.get_by_role("button", name="Close", exact=True).click()
    screen.wait_until_idle(page)
    expect(screen.main(page).get_by_text(re.compile(r"^Closed mark "))).to_be_visible()

    open_standup(page, own_demo)
    assert turned_red_plans(page) == ["Web Shop smoke"]
    expect(screen.main(page).get_by_text("Known failures and outages: none")).to_be_visible()


@pytest.fixture
def marked_demo(
    start_dashboard: Callable[[str, dict[str, str]], StreamlitServer], tmp_path: Path
) -> StreamlitServer:
    """The demo with a store of its own that holds marks of every target, with long targets,
    tickets, owners and last days: the Known failures table at its widest."""
    from datetime import timedelta

    from dashboard.columns import marks as columns
    from dashboard.data import demo
    from dashboard.data.store import open_for
    from dashboard.data.store.marks import MarkDraft, MarkTarget

    env = {"QA_DASHBOARD_CACHE_DIR": str(tmp_path / "stores")}
    login = demo.login("http://127.0.0.1:0")
    now = demo.now_of(login)
    targets = [
        MarkTarget(columns.FAILURE_GROUP, signature="SessionNotCreatedException: " + "x" * 60),
        MarkTarget(
            columns.SCENARIO_ENVIRONMENT, plan_id=3, scenario_id=31, environment="SAFARI 17 / macOS"
        ),
        MarkTarget(columns.SCENARIO, plan_id=2, scenario_id=4),
        MarkTarget(columns.EXECUTION, execution_id=1005),
    ]
    with open_for(login, secrets=None, env=env) as store:
        for number, target in enumerate(targets):
            kind = columns.OUTAGE if target.target == columns.EXECUTION else columns.KNOWN_ISSUE
            draft = MarkDraft(
                target=target,
                kind=kind,
                ticket=f"https://jira.example.com/browse/SHOP-{1000 + number}",
                note="Seen since the grid upgrade; the vendor is on it.",
                owner="Annabelle Fitzgerald-Okonkwo",
                expires_on=(now + timedelta(days=2 + 10 * number)).date(),
            )
            store.add_mark(login.company_id, draft, by="ann@example.com", now=now)
    return start_dashboard("known-wide", env)


def test_a_marks_owner_and_last_day_are_in_view_at_1440x900(
    new_page: Callable[[], Page], marked_demo: StreamlitServer
) -> None:
    from dashboard.present.key_columns import KEY_COLUMNS, table_anchor
    from tests.browser import every_page

    page = new_page()
    page.set_viewport_size({"width": 1440, "height": 900})
    screen.open_app(page, marked_demo.url + "/known?tz=UTC&marks=all")
    needed = KEY_COLUMNS["known"]["known.table"]
    assert {"Owner", "Last day"} <= set(needed)
    grid = screen.Grid(screen.main(page).locator(f".st-key-{table_anchor('known.table')}")).wait()
    grid.expect_rows(4)
    screen.wait_until_drawn(page)
    screen.expect_no_failure_shown(page)

    (shown,) = [
        g for g in page.evaluate(every_page.GRIDS_JS) if g["anchor"] == table_anchor("known.table")
    ]

    assert every_page.hidden_columns(shown, needed) == [], shown["listed"]
    assert grid.column("Owner")[0] == "Annabelle Fitzgerald-Okonkwo"
