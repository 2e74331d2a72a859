"""How long things stay red, in words and tables: each plan's time to green and its trend, its
red stretches, the failure groups' ages, and "turned red in the last 7 days: 4, back to green:
7". A length that is only a bound reads "at least"; a plan with no measure reads "not enough
data", never a number."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime

import pandas as pd

from dashboard.analytics.basis import Basis
from dashboard.analytics.failure_groups import Grouping
from dashboard.analytics.red_stretches import RedTurns, TimeToGreen
from dashboard.present.captions import describe_basis
from dashboard.present.csv import with_moments
from dashboard.present.failure_groups import category_cells, grouping_text, signature_text
from dashboard.present.formatting import human_duration, plural, weekday_time

NOT_ENOUGH_DATA = "not enough data"
STILL_RED = "still red"
MINUS = "\u2212"

ResultsLink = Callable[[int, "int | None", "datetime | None"], str]
"""(execution id, plan id, execution start) -> the results page's link."""
CompareLink = Callable[[int, int, int], str]
"""(plan id, before execution, after execution) -> the compare page's link."""


def duration_text(value: object, *, bound: bool = False) -> str:
    """ "5 h 10 min", "at least 3 d 02 h"; "not enough data" when there is none."""
    if value is None or pd.isna(value):
        return NOT_ENOUGH_DATA
    text = human_duration(pd.Timedelta(value).total_seconds())
    return f"at least {text}" if bound else text


def trend_text(trend: object, *, has: int = 0, needs: int = 4, long_days: int = 90) -> str:
    """ "\u221240 % (faster)", "+25 % (slower)", "no change"; without a trend, how many
    stretches it needs and has: "needs 4 red stretches that ended in 90 d, has 1"."""
    if trend is None or pd.isna(trend):
        return f"needs {needs} red stretches that ended in {long_days} d, has {has}"
    value = float(trend)  # type: ignore[arg-type]
    if abs(value) < 0.005:
        return "no change"
    sign = "+" if value > 0 else MINUS
    word = "slower" if value > 0 else "faster"
    return f"{sign}{abs(value) * 100:.0f} % ({word})"


def turns_text(turns: RedTurns) -> str:
    """ "Turned red in the last 7 days: 4, back to green: 7." """
    return (
        f"Turned red in the last {turns.days} days: {turns.turned_red:,}, back to green: "
        f"{turns.back_to_green:,}."
    )


def turns_caption(turns: RedTurns) -> str:
    """What the figures above the tables count."""
    return (
        f"Red stretches that started (turned red) or ended (back to green) in the last "
        f"{turns.days} days; one already red at the start of the history did not turn red in it. "
        "Red now: plans whose latest finished execution failed."
    )


def _plan(name: object, plan_id: object) -> str:
    return name if isinstance(name, str) and name else f"Plan {int(plan_id)}"  # type: ignore[call-overload]


def _median(count: object, median: object) -> str:
    """ "5 h 10 min (3 stretches)"; "not enough data" when none ended."""
    if not count:
        return NOT_ENOUGH_DATA
    return f"{duration_text(median)} ({plural(int(count), 'stretch', 'stretches')})"  # type: ignore[call-overload]


def _now(row: pd.Series) -> str:
    if not row["red_now"]:
        return "\u2714 green"
    bound = bool(row["red_for_is_bound"]) if not pd.isna(row["red_for_is_bound"]) else False
    executions = plural(int(row["red_executions"]), "execution")
    return f"\u2716 red for {duration_text(row['red_for'], bound=bound)} ({executions})"


def plans_display(found: TimeToGreen) -> pd.DataFrame:
    """One row per plan: red now (and for how long), its median time to green over the short
    and long periods, the trend, its stretches; red plans first."""
    plans = found.plans
    short, long = found.short_days, found.long_days
    return pd.DataFrame(
        {
            "Plan": [_plan(n, p) for n, p in zip(plans["plan"], plans["plan_id"], strict=True)],
            "Now": [_now(row) for _, row in plans.iterrows()],
            f"Time to green, {short} d": [
                _median(n, m)
                for n, m in zip(plans["stretches_short"], plans["median_short"], strict=True)
            ],
            f"Time to green, {long} d": [
                _median(n, m)
                for n, m in zip(plans["stretches_long"], plans["median_long"], strict=True)
            ],
            "Trend": [
                trend_text(t, has=int(n), needs=found.trend_min_stretches, long_days=long)
                for t, n in zip(plans["trend"], plans["stretches_long"], strict=True)
            ],
            "Red stretches": plans["stretches"].astype("int64").to_numpy(),
            "Ever green": ["yes" if g else "no, never" for g in plans["ever_green"]],
        }
    )


STRETCH_COLUMNS = (
    "Plan",
    "Red from",
    "Green again",
    "How long",
    "Executions",
    "First red",
    "What changed",
    "Green run",
)


def stretches_display(
    stretches: pd.DataFrame,
    results_link: ResultsLink,
    compare_link: CompareLink,
    *,
    tz: str = "UTC",
) -> pd.DataFrame:
    """Every red stretch, newest first: from, to ("still red" while it is; the CSV holds the
    time, in `tz`), how long, how many failing executions, and links to its first red
    execution, to it beside the last green one, and to the execution that turned it green (a
    missing one draws the table's placeholder, a dash)."""
    if stretches.empty:
        return pd.DataFrame({column: pd.Series(dtype="object") for column in STRETCH_COLUMNS})
    rows = stretches
    display = pd.DataFrame(
        {
            "Plan": [_plan(n, p) for n, p in zip(rows["plan"], rows["plan_id"], strict=True)],
            "Red from": rows["red_from"].to_numpy(),
            "Green again": [
                STILL_RED if pd.isna(t) else weekday_time(t, tz) for t in rows["red_to"]
            ],
            "How long": [
                (f"{STILL_RED}, " if o else "") + duration_text(d, bound=b)
                for d, b, o in zip(
                    rows["duration"], rows["from_is_bound"], rows["open"], strict=True
                )
            ],
            "Executions": rows["executions"].astype("int64").to_numpy(),
            "First red": [
                results_link(int(e), int(p), s)
                for e, p, s in zip(
                    rows["first_red_execution_id"], rows["plan_id"], rows["red_from"], strict=True
                )
            ],
            "What changed": [
                None if pd.isna(g) else compare_link(int(p), int(g), int(e))
                for p, g, e in zip(
                    rows["plan_id"],
                    rows["last_green_execution_id"],
                    rows["first_red_execution_id"],
                    strict=True,
                )
            ],
            "Green run": [
                None if pd.isna(e) else results_link(int(e), int(p), s)
                for e, p, s in zip(
                    rows["green_execution_id"], rows["plan_id"], rows["red_to"], strict=True
                )
            ],
        }
    )
    return with_moments(display, {"Green again": rows["red_to"].to_list()})


GROUP_COLUMNS = (
    "Message",
    "Age",
    "First seen",
    "Last seen",
    "Executions hit",
    "Category",
    "Failures",
    "Scenarios",
    "Plans",
    "Scenario ids",
)


def groups_display(groups: pd.DataFrame, ages: pd.DataFrame) -> pd.DataFrame:
    """Failure groups (largest first) with how old each is: its age ("at least" when it was
    there from the start of the history), first and last seen, executions hit, the team's
    category (a dash when none), and which scenarios (one per group, unless grouped across
    scenarios or by a merge rule)."""
    if groups.empty:
        return pd.DataFrame({column: pd.Series(dtype="object") for column in GROUP_COLUMNS})
    return pd.DataFrame(
        {
            "Message": [signature_text(label) for label in groups["label"]],
            "Age": [
                duration_text(a, bound=b)
                for a, b in zip(ages["age"], ages["first_seen_is_bound"], strict=True)
            ],
            "First seen": groups["first_seen"].to_numpy(),
            "Last seen": groups["last_seen"].to_numpy(),
            "Executions hit": groups["executions"].astype("int64").to_numpy(),
            "Category": category_cells(groups["category"]),
            "Failures": groups["failures"].astype("int64").to_numpy(),
            "Scenarios": groups["scenarios"].astype("int64").to_numpy(),
            "Plans": groups["plans"].astype("int64").to_numpy(),
            "Scenario ids": [", ".join(str(i) for i in ids) for ids in groups["scenario_ids"]],
        }
    )


def plans_caption(basis: Basis, found: TimeToGreen, *, today: date, scope: str) -> str:
    """What the per-plan table was computed from and how it measures."""
    return (
        describe_basis(basis, today=today, scope=scope)
        + f". A red stretch runs from a plan's first failing execution to the next passing one; "
        f"time to green is the median length of the stretches that ended in the last "
        f"{found.short_days} or {found.long_days} days, and the trend sets the newer half of "
        f"the {found.long_days} days' stretches against the older half (it needs "
        f"{found.trend_min_stretches}). "
        "A stretch already red at the start of the history is at least as long as shown and "
        "is left out of the medians."
    )


def stretches_caption(found: TimeToGreen) -> str:
    return (
        f"{plural(len(found.stretches), 'red stretch', 'red stretches')}, newest first. "
        "What changed opens the last green execution beside the first red one."
    )


def groups_caption(
    basis: Basis, *, today: date, scope: str, grouping: Grouping = Grouping.SCENARIO
) -> str:
    return (
        describe_basis(basis, today=today, scope=scope)
        + f". Failed results {grouping_text(grouping)} An age is \u201cat least\u201d when the "
        "group was there in its plan's oldest execution looked at."
    )


def plan_rows_for_health(found: TimeToGreen, plan_names: Mapping[int, str]) -> pd.DataFrame:
    """The plan health page's short form: plans red now or with a stretch that ended in the
    period, with how long they have been red and their time to green."""
    plans = found.plans
    chosen = plans[plans["red_now"] | (plans["stretches_short"] > 0)]
    return pd.DataFrame(
        {
            "Plan": [
                plan_names.get(int(p)) or _plan(n, p)
                for n, p in zip(chosen["plan"], chosen["plan_id"], strict=True)
            ],
            "Now": [_now(row) for _, row in chosen.iterrows()],
            f"Time to green, {found.short_days} d": [
                _median(n, m)
                for n, m in zip(chosen["stretches_short"], chosen["median_short"], strict=True)
            ],
        }
    )


def health_caption(found: TimeToGreen, *, today: date, scope: str) -> str:
    """What plan health's time-to-green table was computed from."""
    return (
        describe_basis(found.basis, today=today, scope=scope)
        + f". Plans red now, or with a red stretch that ended in the last {found.short_days} "
        "days: how long they have been red, and the median length of their stretches that "
        "ended (a stretch already red at the start of the period is at least as long, and left "
        "out of the median)."
    )


OUTAGE_ONLY = "Outage only"
"""The stretches table's column marking a stretch made only of outages (outages included)."""


def with_outage_only(
    display: pd.DataFrame, stretches: pd.DataFrame, only: pd.DataFrame
) -> pd.DataFrame:
    """`stretches_display`'s table with a stretch made only of outages (`only`, rows of the
    same stretches) marked in its own column."""
    marked = set(zip(only["plan_id"], only["first_red_execution_id"], strict=True))
    out = display.copy()
    out[OUTAGE_ONLY] = [
        "\u26a1 outage only" if (p, e) in marked else None
        for p, e in zip(stretches["plan_id"], stretches["first_red_execution_id"], strict=True)
    ]
    return out


def outage_stretches_caption(only: pd.DataFrame, *, included: bool, tz: str) -> str:
    """The red stretches made only of outages: left out (named, up to three), or counted and
    marked."""
    count = plural(len(only), "red stretch", "red stretches")
    if included:
        return (
            f"{count} made only of outages, counted because outages are included: "
            f"{OUTAGE_ONLY} marks {'it' if len(only) == 1 else 'them'}."
        )
    named = [
        f"{_plan(n, p)} from {weekday_time(s, tz)}"
        for n, p, s in zip(only["plan"], only["plan_id"], only["red_from"], strict=True)
    ]
    more = f" and {len(named) - 3} more" if len(named) > 3 else ""
    return (
        f"Left out: {count} made only of outages ({', '.join(named[:3])}{more}), as the "
        "failure verdicts label them: a night the grid was down is not a plan turning red."
    )
