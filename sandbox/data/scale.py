"""The cases planted at scale: a demo of `MIN_EXECUTIONS` or more fails like a real suite.

The planted cases of `planted.py` are each there exactly once, on a fixed schedule, among
plans that otherwise always pass: right for the default demo of 300 executions, but at 100,000
company 1 (the one the demo shows) would be 99.9 % green. So at scale company 1 also gets the
plans below, added after every catalogue plan (ids from 16 on; their scenarios after every
catalogue scenario). Company 2's unplanned mix would be three quarters red at that size, so there
a stable scenario fails less often by chance (`SECOND_COMPANY_NOISE`), and only the first plan of
each project holds a troubled scenario, one at most. About 5-15 % of all executions then fail,
and of company 1's; each company keeps its share of them.

Each plan holds one case, and its other scenarios always pass; its executions are drawn at
random like the steady plans' (several a day), so the analytics meet each case at scale:

- "Search regression" FLAKY: scenario "Search by keyword" fails in `FLAKY_FAIL_RATE` of its runs
  on any environment, at random: the flaky page lists it.
- "Payments regression" BROKEN: scenario "Checkout with saved card" fails in every run since
  `BROKEN_SINCE_DAYS` days before "now" (always failing since; one flip, so not flaky; drawn
  less often, as it is red in every execution since).
- "Browser matrix" ENVIRONMENT-SPECIFIC: every execution runs on Chrome, Firefox and Edge on
  Windows 10; scenario "Product image zoom" fails in every run on Firefox and passes on the
  others: the environments page finds it. (Red in every execution, so drawn less often.)
- "Nightly full regression" OUTAGES: in the `OUTAGE_HOURS`-hour windows starting
  `OUTAGE_DAYS_AGO` days before "now", most of its scenarios (all but two) fail, every one with
  `OUTAGE_TEMPLATE`: one reason, one failure group.
- "Shop App sync" SLOWER: since `SLOW_SINCE_HOURS` hours before "now" each execution waits
  `SLOWER_EXTRA_SETUP_S` more seconds for its devices (about twice its usual runtime): the
  standup's Slower finds it.

The 300-execution demo (below `MIN_EXECUTIONS`) has none of this and stays as `planted.py`
says; at scale, the catalogue plans 1-10 still hold exactly the planted cases.
"""

from __future__ import annotations

from dataclasses import dataclass

from sandbox.data import planted

MIN_EXECUTIONS = 20_000
COMPANY_ID = planted.COMPANY_ID
SECOND_COMPANY_NOISE = 0.002
"""At scale, the chance that a stable company-2 scenario fails anyway (0.01 below it)."""

HOUR_MS = planted.HOUR_MS
DAY_MS = planted.DAY_MS

FLAKY, BROKEN, ENVIRONMENT_SPECIFIC, OUTAGE, SLOWER = (
    "flaky",
    "broken",
    "environment-specific",
    "outage",
    "slower",
)


@dataclass(frozen=True)
class ScalePlan:
    """A plan added to company 1 at scale: its case, project, scenario names (the case's
    scenario first), the environments it runs on, and whether every execution runs on all."""

    case: str
    name: str
    project_id: int
    scenario_names: tuple[str, ...]
    environments: tuple[int, ...]
    every_environment: bool = False
    weight: float = 1.0  # how often it is drawn for an execution, against a catalogue plan's 1


PLANS: tuple[ScalePlan, ...] = (
    ScalePlan(
        FLAKY,
        "Search regression",
        1,
        (
            "Search by keyword",
            "Filter results by price",
            "Sort results by rating",
            "Product image zoom",
            "Wishlist add and remove",
            "Switch language",
        ),
        (1, 4, 9),
    ),
    ScalePlan(
        BROKEN,
        "Payments regression",
        2,
        (
            "Checkout with saved card",
            "Checkout as guest",
            "Apply discount code",
            "Download invoice PDF",
            "Order history pagination",
        ),
        (1, 3, 5),
        weight=0.3,  # red in every execution since it broke: drawn less often
    ),
    ScalePlan(
        ENVIRONMENT_SPECIFIC,
        "Browser matrix",
        1,
        (
            "Product image zoom",
            "Login with valid credentials",
            "Add item to cart",
            "Remove item from cart",
            "Cookie consent banner",
        ),
        (1, 2, 3),
        every_environment=True,
        weight=0.3,  # red in every execution (Firefox always runs): drawn less often
    ),
    ScalePlan(
        OUTAGE,
        "Nightly full regression",
        1,
        (
            "Login with valid credentials",
            "Login with wrong password",
            "Search by keyword",
            "Add item to cart",
            "Checkout as guest",
            "Reset password by e-mail",
            "Update profile details",
            "Change delivery address",
            "Newsletter sign-up",
            "Two-factor login",
        ),
        (1, 2, 6),
    ),
    ScalePlan(
        SLOWER,
        "Shop App sync",
        3,
        (
            "Sync after reconnect",
            "Offline mode banner",
            "Background refresh",
            "Upload photo attachment",
        ),
        (11, 13, 14),
    ),
)

FLAKY_FAIL_RATE = 0.2
BROKEN_SINCE_DAYS = 12
ENVIRONMENT_SPECIFIC_ON = "FIREFOX"  # the browser of environment 2, Windows 10 Firefox 136
OUTAGE_DAYS_AGO = (61, 33, 9, 2)
OUTAGE_HOURS = 4
OUTAGE_SPARED = 2  # the outage plan's last two scenarios pass even in an outage
SLOW_SINCE_HOURS = 72
SLOWER_EXTRA_SETUP_S = 600

TEMPLATES: dict[str, str] = {
    FLAKY: "TimeoutException: element '#search-results' not visible after {n}s",
    BROKEN: "AssertionError: expected payment status 'CAPTURED' but was 'DECLINED' ({n} tries)",
    ENVIRONMENT_SPECIFIC: "ElementNotInteractableException: zoom overlay {hex} covers the image",
}
OUTAGE_TEMPLATE = "WebDriverException: Selenium grid {hex} unreachable (connection refused)"


def is_active(executions: int, days: int) -> bool:
    """Whether a sandbox of this size holds the plans above (the planted ones too)."""
    return executions >= MIN_EXECUTIONS and planted.is_active(executions, days)


def outage_windows(now_ms: int) -> tuple[tuple[int, int], ...]:
    """The outages, as [from, until) in Unix ms, oldest first."""
    return tuple(
        (now_ms - days * DAY_MS, now_ms - days * DAY_MS + OUTAGE_HOURS * HOUR_MS)
        for days in OUTAGE_DAYS_AGO
    )


def broken_since_ms(now_ms: int) -> int:
    return now_ms - BROKEN_SINCE_DAYS * DAY_MS


def slow_since_ms(now_ms: int) -> int:
    return now_ms - SLOW_SINCE_HOURS * HOUR_MS


def plan_of(case: str) -> ScalePlan:
    return next(plan for plan in PLANS if plan.case == case)
