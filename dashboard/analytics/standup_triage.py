"""The standup once what the team knows is applied, read from the one verdict per failed result
(`analytics.triage.failure_verdicts`): Turned red, Still failing and Newly failing keep what is
unresolved; what marks cover is folded into one line per mark; outages are one line each, named
with their dominant failure message; marks that expire soon, and those that expired since the
standup's start (their failures count again), are named. The page and the chat digest both use it.

This module applies no rule of its own: a failure is known when its verdict is *known*, an
execution an outage when the triage's outage rule says so (`analytics.outages`, which the
standup's step 1 also uses to leave outages out before any result is read), and a mark's state
is `marks.mark_states`'. What it does:

- A plan in Turned red or Still failing whose latest execution's failures (those the verdicts
  hold, `StandupDigest.results_needed`) are every one labelled known leaves those sections.
- A newly failing scenario on an environment leaves its section when a failure of its cell in
  that execution is labelled known.
- Each mark that covers something is one item: its plans, how many scenarios and failures it
  covers, its ticket ("Login suite: 3 scenarios known - SHOP-123").
- Outages (left out of the digest's executions unless included) are listed one per execution,
  with the message most of its failures share when its results were read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field

import pandas as pd

from dashboard.analytics.marks import EXPIRED, EXPIRING, mark_states
from dashboard.analytics.outages import OUTAGE_COLUMNS
from dashboard.analytics.standup import StandupDigest
from dashboard.analytics.states import StateRules
from dashboard.analytics.triage import KNOWN, TRIAGE_COLUMNS, failure_verdicts
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.schemas import UTC_TIME
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
EXPIRED_COLUMNS: dict[str, str] = {**MARK_COLUMNS, "stopped_applying": UTC_TIME}
"""A mark that expired since the standup's start, and the day it stopped applying (the day
after its last day)."""


@dataclass(frozen=True, eq=False)
class StandupTriage:
    """What the standup folds away: `known` (KNOWN_ITEM_COLUMNS, most scenarios first),
    `outages` (OUTAGE_COLUMNS, newest first), `expiring` (EXPIRING_COLUMNS, soonest first);
    `outages_left_out`: whether the digest was computed without the outages; `expired`
    (EXPIRED_COLUMNS, latest first): marks that stopped applying since the window's start;
    `verdicts`: the failure verdicts the standup read (TRIAGE_COLUMNS)."""

    known: pd.DataFrame
    outages: pd.DataFrame
    expiring: pd.DataFrame
    outages_left_out: bool = True
    expired: pd.DataFrame = field(default_factory=lambda: empty(EXPIRED_COLUMNS))
    verdicts: pd.DataFrame = field(default_factory=lambda: empty(TRIAGE_COLUMNS))

    @property
    def empty(self) -> bool:
        return (
            self.known.empty and self.outages.empty and self.expiring.empty and self.expired.empty
        )


NO_TRIAGE = StandupTriage(empty(KNOWN_ITEM_COLUMNS), empty(OUTAGE_COLUMNS), empty(EXPIRING_COLUMNS))


def standup_verdicts(
    results: pd.DataFrame,
    executions: pd.DataFrame,
    marks: pd.DataFrame,
    now: object,
    *,
    judged: Iterable[int],
    rules: StateRules | None = None,
) -> pd.DataFrame:
    """The one verdict per failed result of the `judged` executions (those whose results the
    standup read), for a face without a cache (the command line); a page reads the same
    through `ui.triage.verdicts_of`."""
    return failure_verdicts(results, executions, marks, now=now, rules=rules, judged=judged)


def standup_triage(
    digest: StandupDigest,
    verdicts: pd.DataFrame | None,
    marks: pd.DataFrame,
    now: object,
    *,
    outages: pd.DataFrame | None = None,
    outages_left_out: bool = True,
) -> tuple[StandupDigest, StandupTriage]:
    """The digest with what the `verdicts` (`failure_verdicts` of the executions whose results
    the standup read; None when they could not be read: nothing is folded then) call known
    taken out of its sections, and what was taken out; `marks`, all of the company's, name the
    marks expiring soon or expired since the window's start and describe the known ones;
    `outages` those of the window (`analytics.outages`)."""
    states = mark_states(marks, now) if len(marks) else None
    expiring, expired = empty(EXPIRING_COLUMNS), empty(EXPIRED_COLUMNS)
    if states is not None:
        soon = marks.assign(days_left=states["days_left"].to_numpy())[
            (states["state"] == EXPIRING).to_numpy()
        ]
        expiring = typed(
            soon.sort_values(["days_left", "created_at"], kind="stable"), EXPIRING_COLUMNS
        )
        expired = _expired_since(marks, states, digest.window.start)
    read = empty(TRIAGE_COLUMNS) if verdicts is None else verdicts
    window_outages = _named_outages(
        empty(OUTAGE_COLUMNS) if outages is None else typed(outages, OUTAGE_COLUMNS), read
    )
    folded = StandupTriage(
        empty(KNOWN_ITEM_COLUMNS), window_outages, expiring, outages_left_out, expired, read
    )
    if verdicts is None or not digest.results_needed:
        return digest, folded

    latest_ids = set(digest.pairs["after_execution_id"].astype("int64"))
    failed = read[read["execution_id"].isin(latest_ids)]
    covered = failed[(failed["label"] == KNOWN).to_numpy() & failed["mark_id"].notna().to_numpy()]
    if covered.empty:
        return digest, folded

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
        cells = set(
            zip(
                covered["execution_id"].astype("int64"),
                covered["scenario_id"].astype("int64"),
                covered["environment"].astype("str"),
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
    known = _known_items(covered, marks, _plan_names(digest), taken_out)
    unresolved = dataclasses.replace(
        digest,
        turned_red=turned_red.reset_index(drop=True),
        still_failing=still.reset_index(drop=True),
        newly_failing=newly,
    )
    return unresolved, dataclasses.replace(folded, known=known)


def _expired_since(marks: pd.DataFrame, states: pd.DataFrame, start: object) -> pd.DataFrame:
    """The marks whose expiry ended their applying at or after `start` (closed ones are not
    expired: someone ended them), the latest first."""
    last_day = marks["expires_on"].dt.tz_convert("UTC").dt.normalize()
    stopped = last_day + pd.Timedelta(days=1)
    gone = (states["state"] == EXPIRED).to_numpy(dtype=bool) & (
        stopped >= pd.Timestamp(start)
    ).fillna(False).to_numpy(dtype=bool)
    frame = marks.assign(stopped_applying=stopped.to_numpy())[gone]
    frame = frame.sort_values(["stopped_applying", "mark_id"], ascending=[False, True])
    return typed(frame, EXPIRED_COLUMNS)


def _named_outages(found: pd.DataFrame, verdicts: pd.DataFrame) -> pd.DataFrame:
    """`found` with each outage's dominant failure message from the verdicts of its failures,
    where the outages were found without its results."""
    if found.empty or verdicts.empty:
        return found
    named = verdicts[verdicts["outage_signature"].notna()].drop_duplicates("execution_id")
    by_id = named.set_index("execution_id")
    ids = found["execution_id"].astype("int64")
    signature = ids.map(by_id["outage_signature"])
    count = ids.map(by_id["outage_signature_failures"])
    lacking = found["signature"].isna()
    return typed(
        found.assign(
            signature=found["signature"].where(~lacking, signature),
            signature_failures=found["signature_failures"].where(~lacking, count),
        ),
        OUTAGE_COLUMNS,
    )


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
    details = own.drop_duplicates("mark_id").set_index("mark_id").reindex(failures.index)
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
