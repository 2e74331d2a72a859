"""A team's rules for failure groups and its scenario names beside the pages (issue #38): the
pages that show failure groups or scenarios at 100,000 executions, with 1,000 rules and 10,000
named scenarios with owners, against the same pages with neither (#38's "today").

Since #38 the Flaky and Time to green pages group failures after the team's rules
(`analytics.group_rules.apply_rules`, through `group_rules.grouped`), the Failures page names
each row's group and category by them, and Failures, States and Flaky show each scenario's name
and owner (`data.cache_names`). This case gives each page's pure view the frames its page reads,
built in this process from the sandbox's own derivation (`benchmarks.data`, no HTTP, no
marks), with the verdicts judged once beforehand (the page reads them from a shared cache), and
times in CPU seconds (`time.process_time`: the machine is shared, its wall clock is noise):

- Flaky scenarios (`flaky_view.flaky_page`, its memo a plain call), each plan's last W;
- Time to green (`time_to_green_view` and its `failure_ages`), the 90 days' failing executions;
- Failures (`failures_view.failures_view`), the default 7 days;
- Scenario states (`states_view.states_view`), each plan's last W;
- `apply_rules` alone on the failures of Time to green's failing executions;

each without rules and names, then with them, the two interleaved in every repeat (their order
alternating), so the ratio of medians is taken in one run. #38's target: at most 1.2x.

The rules are generated deterministically as a team would write them over time: most give a
category from a message pattern (a few dozen of them on the demo's real failures, the rest on
messages of the team's other products, never seen here), some scoped to a scenario (its id or
name), a plan or an environment, one in ten merging groups; compiled by the store's RE2 and
searched with its sets (`ui.group_rules.rules_of`'s path). The names cover scenarios 1-10,000
(every demo scenario among them), each with an owner among 40 addresses and tags.

Each view runs once untimed first (the failure signatures, which `normalise_message` keeps per
distinct message, and the RE2 sets are warm on a page's second visit). Part of the suite
(`python -m benchmarks`); alone: `python -m benchmarks --only rules --json FILE` (FILE keeps
the suite's results file as it is).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import pandas as pd

from benchmarks.cases.verdicts import _executions, _results
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Figure, Target
from dashboard.analytics.flaky import last_finished
from dashboard.analytics.group_rules import apply_rules, team_rules
from dashboard.analytics.outcomes import FAIL, level_outcomes
from dashboard.analytics.scenario_names import names_by_id
from dashboard.analytics.states import StateRules
from dashboard.analytics.triage import failure_verdicts
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty, typed
from dashboard.data.store import group_rules as stored
from dashboard.data.store.types import GROUP_RULE_COLUMNS, SCENARIO_NAME_COLUMNS
from dashboard.present import failures_view, flaky_view, states_view
from dashboard.present.time_to_green_view import time_to_green_view
from dashboard.state import links

NAME = "rules"
TITLE = "14. Failure groups' rules and scenario names beside the pages"
RULES = 1_000
NAMED = 10_000
OWNERS = 40
FAILURES_DAYS = 7  # the Failures page's default period
AT_MOST_1_2X = Target(Bound.RATIO_AT_MOST, 1.2, "<= 1.2x the page without rules and names (#38)")

# Patterns on the demo's own failures (sandbox/data/result_details.py, sandbox/data/planted.py):
# what a team writes first. The rest are on messages of its other products.
SEEN = (
    r"SessionNotCreatedException",
    r"did not respond within \d+s",
    r"TimeoutException: element '#search-results'",
    r"not visible after \d+s",
    r"page crash",
    r"Unable to locate element",
    r"expected \d+ items in cart but found \d+",
    r"expected text 'Order confirmed'",
    r"Payment declined",
    r"not clickable at point",
    r"Expected URL to contain '/account'",
    r"login\?error=1",
    r"Selenium grid \w+ unreachable",
    r"WebDriverException",
    r"NoSuchElementException: no element '#cart-remove-\d+'",
    r"^AssertionError",
    r"(?i)timeout|timed out",
    r"node 0x[0-9a-f]{4}",
    r"cart",
    r"checkout-summary",
)
UNSEEN = (
    r"ConnectionRefusedError: .*service-{i}\b",
    r"HTTP 5\d\d from /api/v{k}/orders/{i}",
    r"(?i)payment-gateway-{i} timed out",
    r"StaleElementReferenceException: .*#widget-{i}",
    r"expected status {k}0{k} but was 5\d\d \(case {i}\)",
    r"ORA-{i:05d}",
    r"feature flag 'exp-{i}' (on|off)",
    r"^KeyError: 'field_{i}'",
)
LABELS = ("product bug", "automation bug", "infrastructure", "to investigate", "flaky env")
ENVIRONMENTS = (r"CHROME", r"FIREFOX", r"SAFARI", r"Windows 1[01]", r"(?i)android", r"EDGE 1\d\d")
HOW = ("as guest", "with coupon", "on mobile", "after sign-in")
WORDS = ("Checkout", "Search", "Login", "Cart", "Payment", "Account", "Orders", "Profile")


def rules_frame(plan_ids: list[int], count: int = RULES, seed: int = 38) -> pd.DataFrame:
    """`count` stored rules (`GROUP_RULE_COLUMNS`), oldest first, the same for the same seed."""
    rng = random.Random(seed)
    at = datetime(2026, 1, 1, tzinfo=UTC)
    rows = []
    for i in range(count):
        seen = i % 25 == 0 or rng.random() < 0.02  # about 6 %: on the demo's own failures
        template = rng.choice(SEEN) if seen else rng.choice(UNSEEN)
        message = template if seen else template.format(i=i, k=rng.randint(1, 9))
        scope = rng.random()
        rows.append(
            {
                "rule_id": f"r{i:04d}",
                "message_pattern": message,
                "scenario_pattern": (
                    rng.choice((rf"^{rng.randint(1, 60)}$", rf"(?i){rng.choice(WORDS)}"))
                    if scope < 0.15
                    else None
                ),
                "plan_id": rng.choice(plan_ids) if 0.15 <= scope < 0.25 and plan_ids else None,
                "environment_pattern": rng.choice(ENVIRONMENTS) if 0.25 <= scope < 0.35 else None,
                "action": "merge" if rng.random() < 0.1 else "category",
                "label": rng.choice(LABELS) if rng.random() < 0.9 else f"team word {i % 7}",
                "created_by": "lead@example.com",
                "created_at": at + timedelta(minutes=i),
                "removed_by": None,
            }
        )
    frame = pd.DataFrame(rows)
    frame["removed_at"] = pd.Series(pd.NaT, index=frame.index, dtype="datetime64[us, UTC]")
    return typed(frame, GROUP_RULE_COLUMNS)


def names_frame(count: int = NAMED, seed: int = 38) -> pd.DataFrame:
    """Names of scenarios 1..`count` (`SCENARIO_NAME_COLUMNS`), each with an owner and tags."""
    rng = random.Random(seed)
    at = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [
        {
            "scenario_id": sid,
            "name": f"{rng.choice(WORDS)} {rng.choice(HOW)} {sid}",
            "owner": f"qa{sid % OWNERS}@example.com",
            "tags": ",".join(rng.sample(("smoke", "regression", "nightly", "p1"), 2)),
            "changed_by": "lead@example.com",
            "changed_at": at,
        }
        for sid in range(1, count + 1)
    ]
    return typed(pd.DataFrame(rows), SCENARIO_NAME_COLUMNS)


def _cpu(action: Callable[[], Any]) -> float:
    started = time.process_time()
    action()
    return time.process_time() - started


def run(run: Run) -> CaseResult:
    result = CaseResult(NAME, TITLE)
    demo = run.demo(run.size.page_executions)
    now = run.now
    executions = _executions(demo)
    plan_ids = sorted(int(p) for p in executions["plan_id"].dropna().unique())
    plan_names = {p: f"plan {p}" for p in plan_ids}
    rules = team_rules(rules_frame(plan_ids), stored.usable, stored.search_many)
    names = names_frame()
    named = names_by_id(names)
    ledger = empty(MARK_COLUMNS)
    applied = StateRules()
    window = executions[
        executions["execution_id"].isin(last_finished(executions, applied.window)["execution_id"])
    ]
    window_results = _results(demo, window["execution_id"].tolist())
    judged = [int(e) for e in window["execution_id"]]
    window_verdicts = failure_verdicts(
        window_results, executions, ledger, now=pd.Timestamp(now), judged=judged, rules=applied
    )

    def flaky(with_them: bool) -> Any:
        return flaky_view.flaky_page(
            window,
            window_results,
            executions,
            ledger,
            counts=None,
            window=applied.window,
            threshold=applied.threshold,
            today=now.date(),
            scope="every plan",
            plan=None,
            plan_names=plan_names,
            tz="UTC",
            scenario_link=lambda p, s: links.scenario_link(p, s, window=applied.window),
            results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
            verdicts=window_verdicts,
            names=names if with_them else None,
            rules=rules if with_them else None,
        )

    def states(with_them: bool) -> Any:
        return states_view.states_view(
            window,
            window_results,
            applied,
            applied,
            only=(),
            today=now.date(),
            scope="every plan",
            plan_names=plan_names,
            scenario_link=lambda p, s: links.scenario_link(p, s, window=applied.window),
            verdicts=window_verdicts,
            tz="UTC",
            names=names if with_them else None,
        )

    green = time_to_green_view(
        executions,
        now=now,
        tz="UTC",
        project=None,
        plan=None,
        results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
        compare_link=lambda p, before, after: links.compare_link(p, before, after),
    )
    failing_results = _results(demo, green.failing["execution_id"].tolist())

    def time_to_green(with_them: bool) -> Any:
        view = time_to_green_view(
            executions,
            now=now,
            tz="UTC",
            project=None,
            plan=None,
            results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
            compare_link=lambda p, before, after: links.compare_link(p, before, after),
        )
        return view.failure_ages(
            failing_results, rules if with_them else None, names=names if with_them else None
        )

    runs = failures_view.period_runs(
        executions, None, start=now - timedelta(days=FAILURES_DAYS), end=None
    )
    period_results = _results(demo, list(runs.judged))
    history = failures_view.triage_results(window_results, period_results)
    period_verdicts = failure_verdicts(
        history, runs.executions, ledger, now=pd.Timestamp(now), judged=runs.judged
    )

    def failures(with_them: bool) -> Any:
        return failures_view.failures_view(
            executions,
            window_results,
            window,
            runs,
            period_results,
            verdicts=period_verdicts,
            include_outages=False,
            only=(),
            now=now,
            scope="every plan",
            plan_names=plan_names,
            scenario_link=links.scenario_link,
            results_link=lambda e, p, s: links.results_link(e, plan_id=p, started=s),
            tz="UTC",
            marks=ledger,
            names=names if with_them else None,
            rules=rules if with_them else None,
        )

    failed = failing_results[level_outcomes(failing_results["level"]) == FAIL]

    def ruled(with_them: bool) -> Any:
        chosen = rules.rules if with_them else ()
        return apply_rules(chosen, failed, names=named, search_many=rules.search_many)

    pages: list[tuple[str, Callable[[bool], Any]]] = [
        ("Flaky scenarios (flaky_page)", flaky),
        ("Time to green (time_to_green_view and failure_ages)", time_to_green),
        (f"Failures, {FAILURES_DAYS} d (failures_view)", failures),
        ("Scenario states (states_view)", states),
    ]
    pairs: list[tuple[Callable[[bool], Any], Figure, Figure]] = []
    for label, view in pages:
        view(False)  # the first visit, untimed
        view(True)
        without = result.figure(f"{label}: without rules and names (CPU)", "s")
        with_them = result.figure(
            f"{label}: with 1,000 rules and 10,000 names (CPU)",
            "s",
            peer=without.name,
            target=AT_MOST_1_2X,
        )
        pairs.append((view, without, with_them))
    ruled(True)
    alone = result.figure(
        "apply_rules alone, 1,000 rules, Time to green's failures (CPU)",
        "s",
        peer=pairs[1][1].name,
    )
    for repeat in range(run.repeats()):
        for view, without, with_them in pairs:
            order = (False, True) if repeat % 2 == 0 else (True, False)
            for given in order:
                seconds = _cpu(partial(view, given))
                (with_them if given else without).runs.append(seconds)
        alone.runs.append(_cpu(partial(ruled, True)))
    matched = ruled(True)
    result.notes.append(
        f"{len(executions):,} executions of company 1 (of a {run.size.page_executions:,}-"
        f"execution demo) in 90 days; each plan's last {applied.window} finished: "
        f"{len(window):,} executions, {len(window_results):,} results; Time to green's "
        f"{len(green.failing):,} failing executions: {len(failing_results):,} results, "
        f"{len(failed):,} failed, {failed['message'].nunique():,} distinct messages; Failures' "
        f"{FAILURES_DAYS} d: {len(runs.judged):,} failing executions, "
        f"{len(period_verdicts):,} failed results. No marks; outages not left out (both sides)."
    )
    result.notes.append(
        f"{len(rules.rules):,} rules in force ({rules.left_out} left out), "
        f"{sum(1 for r in rules.rules if r.action == 'merge'):,} merging, "
        f"{sum(1 for r in rules.rules if r.scenario or r.plan_id or r.environment):,} scoped; "
        f"of Time to green's failed results {matched['category'].notna().sum():,} given a "
        f"category, {matched['merge_rule'].notna().sum():,} merged. {len(names):,} scenarios "
        f"named, {OWNERS} owners. CPU seconds (time.process_time), without and with "
        "interleaved in each repeat, their order alternating."
    )
    return result
