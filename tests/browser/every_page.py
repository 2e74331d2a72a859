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
        routes.RULES.url_path: "tz=UTC",
    }


RUNS = planted.STILL_FAILING_RUNS
PLANTED_TEXT: dict[str, str] = {
    routes.FLAKY.url_path: "12 flips in 20 runs",  # scenario 4 over plan 2's last 20
    routes.ENVIRONMENTS.url_path: f"fails on SAFARI / macOS in {RUNS} of {RUNS} runs",
    routes.COMPARE.url_path: "\u2716 new failure",  # scenario 8 in plan 1's latest
    routes.SCENARIO.url_path: "Runtime regression: ",  # scenario 12 slowed down
    routes.STATES.url_path: "12 flips in 19 chances",  # scenario 4, flaky
    routes.TIME_TO_GREEN.url_path: f"red for 4 d 21 h ({RUNS} executions)",  # plan 3
    routes.FAILURES.url_path: "first failure on",  # a new failure's evidence (scenario 8)
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


# Every widget's text that is cut: its label, a segmented control's options, a picker's chosen
# value, a toggle's text. A text is cut when the box it is laid out in reaches past the edge of
# an ancestor that clips what overflows it (its own box with an ellipsis, the column a control
# group overflows), up to the main area or the sidebar; a picker's value when its input scrolls.
# Each is reported as (the widget's label, the cut text, px of it hidden).
CUT_LABELS_JS = """() => {
  const widgets = [...document.querySelectorAll(
    '[data-testid="stMain"] .element-container, [data-testid="stSidebar"] .element-container')]
    .filter(w => w.checkVisibility() && !w.querySelector('[data-testid="stDataFrame"]'));
  const cut = [];
  for (const widget of widgets) {
    const label = (widget.querySelector('[data-testid="stWidgetLabel"]') || widget)
      .innerText.trim().split("\\n")[0];
    const walker = document.createTreeWalker(widget, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      if (!text || !node.parentElement.checkVisibility()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const box = range.getBoundingClientRect();
      if (!box.width) continue;
      let hidden = 0;
      for (let el = node.parentElement; el; el = el.parentElement) {
        const style = getComputedStyle(el);
        if (style.overflowX !== "visible") {
          const edge = el.getBoundingClientRect();
          hidden = Math.max(hidden, box.right - edge.right, edge.left - box.left);
        }
        if (el.matches('[data-testid="stMain"], [data-testid="stSidebar"]')) break;
      }
      if (hidden > 1) cut.push([label, text, Math.round(hidden)]);
    }
    // A picker's chosen value is the value of its combobox input, which scrolls what it cuts.
    for (const input of widget.querySelectorAll("input[role=combobox]")) {
      const hidden = input.scrollWidth - input.clientWidth;
      if (hidden > 1 && input.value) cut.push([label, input.value, hidden]);
    }
  }
  return cut;
}"""
"""The widget texts cut at the page's width, as (label, text, px hidden)."""
