"""What the per-page browser checks share (tests/browser/test_every_page.py and
test_accessibility.py): the query that shows each page at its most telling on the demo, what it
must show of its planted case, how the grids' columns in view are read, and where the README's
screenshots go.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from api_client import ApiClient, ExecutionQuery
from dashboard.present.key_columns import ANCHOR_PREFIX
from dashboard.state import routes
from sandbox.data import planted
from tests.browser.harness import REPO_ROOT

DOCS = REPO_ROOT / "docs" / "screenshots"
UPDATE = os.environ.get("UPDATE_SCREENSHOTS", "").strip().lower() in ("1", "true", "yes")


def examples(oracle: ApiClient, now: datetime) -> dict[str, str]:
    """The query that shows each known page at its most telling on the demo: the plan that
    turned red, and its failing execution."""
    plan = planted.TURNED_RED_PLAN
    runs = oracle.all_executions(ExecutionQuery(plan_id=plan, date_from=now - timedelta(days=30)))
    failed = max(
        (e for e in runs if e.end_date is not None and not e.result_summary.get("WAITING")),
        key=lambda e: e.start_date,
    )
    return {
        routes.EXECUTIONS.url_path: f"plan={plan}&range=30d",
        routes.RESULTS.url_path: f"execution={failed.id}",
        routes.STANDUP.url_path: "tz=UTC",
        routes.HEALTH.url_path: "tz=UTC",
        # The scenario analytics, each on its planted case (sandbox/data/planted.py).
        routes.FLAKY.url_path: f"plan={planted.SCENARIO_CASES_PLAN}&tz=UTC",
        routes.ENVIRONMENTS.url_path: f"plan={planted.STILL_FAILING_PLAN}&tz=UTC",
        routes.COMPARE.url_path: f"plan={planted.TURNED_RED_PLAN}&tz=UTC",
        routes.SCENARIO.url_path: (
            f"plan={planted.SCENARIO_CASES_PLAN}&scenario={planted.SLOWING_SCENARIO}&tz=UTC"
        ),
        routes.STATES.url_path: "tz=UTC",
        routes.TIME_TO_GREEN.url_path: "tz=UTC",
        routes.FAILURES.url_path: "tz=UTC",
        routes.SLOWER.url_path: "tz=UTC",
    }


RUNS = planted.STILL_FAILING_RUNS
PLANTED_TEXT: dict[str, str] = {
    routes.FLAKY.url_path: "12 flips in 20 runs",  # scenario 4 over plan 2's last 20
    routes.ENVIRONMENTS.url_path: f"fails on SAFARI 18 / macOS in {RUNS} of {RUNS} runs",
    routes.COMPARE.url_path: "\u2716 new failure",  # scenario 8 in plan 1's latest
    routes.SCENARIO.url_path: "Runtime regression: ",  # scenario 12 slowed down
    routes.STATES.url_path: "12 flips in 19 chances",  # scenario 4, flaky
    routes.TIME_TO_GREEN.url_path: f"red for 4 d 21 h ({RUNS} executions)",  # plan 3
    routes.FAILURES.url_path: "in a row",  # each failure says since when
    routes.SLOWER.url_path: "median of its last 5 completed runs",  # scenario 12
}
"""What each example shows of its planted case, so a screenshot is never of an empty page (a
table's cells are read through its accessible table, which holds the rows in view)."""


def urls(oracle: ApiClient, now: datetime) -> dict[str, str]:
    """Each route's address (the default page at "/") on its `examples` query."""
    queries = examples(oracle, now)
    return {
        route.url_path: ("/" if route.default else f"/{route.url_path}")
        + (f"?{queries[route.url_path]}" if route.url_path in queries else "")
        for route in routes.ALL
    }


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


# Chart text (axes, their titles, legends) that is not drawn in the page's text colour: axe
# cannot judge text in SVG, so the chart's text must be the text whose contrast is known.
OFF_COLOUR_CHART_TEXT = """() => {
  const text = getComputedStyle(document.querySelector('[data-testid="stMain"]')).color;
  return [...document.querySelectorAll(
    '.stPlotlyChart :is(.xtick, .ytick, .g-xtitle, .g-ytitle) text, .stPlotlyChart text.legendtext'
  )].filter(t => getComputedStyle(t).fill !== text).map(t => t.textContent).slice(0, 5);
}"""
