"""The standup once what the team knows is applied: Turned red, Still failing and Newly failing
keep what is unresolved; what marks cover is folded into one line per mark; outages are one line
each; marks that expire soon are named. The page and the chat digest both use it.

Rules (marks as in `analytics.marks`, outages as in `analytics.outages`):

- A failed result of a plan's latest execution (those whose results the digest read,
  `StandupDigest.results_needed`) is known when an applying mark covers it.
- A plan in Turned red or Still failing whose latest execution failed only in known ways (its
  results were read, it has failures, every one is known) leaves those sections: it is known.
- A newly failing scenario on an environment is known when a failure of its cell is.
- Each mark that covers something is one item: its plans, how many scenarios and failures it
  covers, its ticket ("Login suite: 3 scenarios known - SHOP-123").
- Outages (left out of the digest's executions unless included) are listed one per execution.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from dashboard.analytics.environment_names import with_environments
from dashboard.analytics.marks import EXPIRING, covering_marks, mark_states
from dashboard.analytics.outages import OUTAGE_COLUMNS
from dashboard.analytics.outcomes import FAIL, level_outcomes
from dashboard.analytics.standup import StandupDigest
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import empty, typed

KNOWN_ITEM_COLUMNS: dict[str, str] = {
    "mark_id": "str",
    "kind": "str",
    "ticket": "str",
    "target": "str",
    "signature": "str",
    "scenario_id": "Int64",
    "environment": "str",
    "plan_ids": "object",  # tuple of the plans it covers failures of, ascending
    "plans": "object",  # tuple of their names, in the same order
    "scenarios": "int64",  # distinct (plan, scenario) it covers
    "failures": "int64",  # failed results it covers
    "known_plans": "int64",  # plans it took out of Turned red / Still failing
}

EXPIRING_COLUMNS: dict[str, str] = {**MARK_COLUMNS, "days_left": "Int64"}


@dataclass(frozen=True, eq=False)
class StandupTriage:
    """What the standup folds away: `known` (KNOWN_ITEM_COLUMNS, most scenarios first),
    `outages` (OUTAGE_COLUMNS, newest first), `expiring` (EXPIRING_COLUMNS, soonest first);
    `outages_left_out`: whether the digest was computed without the outages."""

    known: pd.DataFrame
    outages: pd.DataFrame
    expiring: pd.DataFrame
    outages_left_out: bool = True

    @property
    def empty(self) -> bool:
        return self.known.empty and self.outages.empty and self.expiring.empty


NO_TRIAGE = StandupTriage(empty(KNOWN_ITEM_COLUMNS), empty(OUTAGE_COLUMNS), empty(EXPIRING_COLUMNS))


def standup_triage(
    digest: StandupDigest,
    results: pd.DataFrame | None,
    marks: pd.DataFrame,
    now: object,
    *,
    outages: pd.DataFrame | None = None,
    outages_left_out: bool = True,
) -> tuple[StandupDigest, StandupTriage]:
    """The digest with what `marks` (all of the company's: those that apply are used) cover taken
    out of its sections, and what was taken out; `results` are those the digest read for its
    newly failing scenarios (None when they could not be read: nothing is folded then);
    `outages` those of the window (`analytics.outages`)."""
    states = mark_states(marks, now) if len(marks) else None
    expiring = empty(EXPIRING_COLUMNS)
    applying = marks.iloc[0:0]
    if states is not None:
        soon = marks.assign(days_left=states["days_left"].to_numpy())[
            (states["state"] == EXPIRING).to_numpy()
        ]
        expiring = typed(
            soon.sort_values(["days_left", "created_at"], kind="stable"), EXPIRING_COLUMNS
        )
        applying = marks[states["applies"].to_numpy()]
    window_outages = empty(OUTAGE_COLUMNS) if outages is None else typed(outages, OUTAGE_COLUMNS)
    if results is None or applying.empty or not digest.results_needed:
        return digest, StandupTriage(
            empty(KNOWN_ITEM_COLUMNS), window_outages, expiring, outages_left_out
        )

    latest_ids = set(digest.pairs["after_execution_id"].astype("int64"))
    latest = results[results["execution_id"].isin(latest_ids)]
    failed = latest[(level_outcomes(latest["level"]) == FAIL).to_numpy()]
    cover = covering_marks(failed, applying)
    covered = failed.assign(mark_id=cover["mark_id"].to_numpy())
    covered = covered[covered["mark_id"].notna()]
    if covered.empty:
        return digest, StandupTriage(
            empty(KNOWN_ITEM_COLUMNS), window_outages, expiring, outages_left_out
        )

    per_execution = failed.groupby("execution_id").size()
    known_per_execution = covered.groupby("execution_id").size()
    all_known = {
        int(e)
        for e, total in per_execution.items()
        if total > 0 and int(known_per_execution.get(e, 0)) == int(total)
    }
    turned_red = digest.turned_red[~digest.turned_red["execution_id"].isin(all_known)]
    still = digest.still_failing[~digest.still_failing["execution_id"].isin(all_known)]
    newly = digest.newly_failing
    if newly is not None and not newly.empty:
        named = with_environments(covered)
        cells = set(
            zip(
                named["execution_id"].astype("int64"),
                named["scenario_id"].astype("int64"),
                named["environment"].astype("str"),
                strict=True,
            )
        )
        keep = [
            (int(e), int(s), str(env)) not in cells
            for e, s, env in zip(
                newly["execution_id"], newly["scenario_id"], newly["environment"], strict=True
            )
        ]
        newly = newly[keep].reset_index(drop=True)
    taken_out = {
        int(p)
        for frame in (digest.turned_red, digest.still_failing)
        for p, e in zip(frame["plan_id"], frame["execution_id"], strict=True)
        if int(e) in all_known
    }
    known = _known_items(covered, applying, _plan_names(digest), taken_out)
    unresolved = dataclasses.replace(
        digest,
        turned_red=turned_red.reset_index(drop=True),
        still_failing=still.reset_index(drop=True),
        newly_failing=newly,
    )
    return unresolved, StandupTriage(known, window_outages, expiring, outages_left_out)


def _plan_names(digest: StandupDigest) -> dict[int, str]:
    names: dict[int, str] = {}
    for frame in (digest.pairs, digest.turned_red, digest.still_failing):
        for plan_id, plan in zip(frame["plan_id"], frame["plan"], strict=True):
            if not pd.isna(plan_id) and isinstance(plan, str) and plan:
                names[int(plan_id)] = plan
    return names


def _known_items(
    covered: pd.DataFrame, marks: pd.DataFrame, names: dict[int, str], taken_out: set[int]
) -> pd.DataFrame:
    # Counted per mark in whole columns (a hundred covering marks made a row each by hand, at
    # a few tenths of a millisecond apiece).
    grouped = covered.groupby("mark_id", sort=False)
    failures = grouped.size()
    scenarios = (
        covered.drop_duplicates(["mark_id", "plan_id", "scenario_id"])
        .groupby("mark_id", sort=False)
        .size()
        .reindex(failures.index)
    )
    plan_ids = grouped["plan_id"].agg(lambda plans: tuple(sorted({int(p) for p in plans.dropna()})))
    own = marks[marks["mark_id"].isin(failures.index)]
    details = own.drop_duplicates("mark_id").set_index("mark_id").loc[failures.index]
    frame = pd.DataFrame(
        {
            "mark_id": failures.index,
            "kind": details["kind"].to_numpy(),
            "ticket": details["ticket"].to_numpy(),
            "target": details["target"].to_numpy(),
            "signature": details["signature"].to_numpy(),
            "scenario_id": details["scenario_id"].to_numpy(),
            "environment": details["environment"].to_numpy(),
            "plan_ids": plan_ids.to_numpy(),
            "plans": [tuple(names.get(p, f"Plan {p}") for p in ids) for ids in plan_ids],
            "scenarios": scenarios.to_numpy(dtype="int64"),
            "failures": failures.to_numpy(dtype="int64"),
            "known_plans": [len(taken_out & set(ids)) for ids in plan_ids],
        },
        columns=list(KNOWN_ITEM_COLUMNS),
    )
    frame = frame.sort_values(
        ["scenarios", "failures", "mark_id"], ascending=[False, False, True], kind="stable"
    )
    return typed(frame, KNOWN_ITEM_COLUMNS)
