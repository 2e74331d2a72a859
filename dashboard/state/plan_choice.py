"""The one plan a scenario-analytics page shows (environments, compare, scenario): checked
against the company's plans, with a sentence for a link that names an unknown one."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from dashboard.state.params import AFTER, BEFORE, ViewState


@dataclass(frozen=True)
class PlanChoice:
    state: ViewState  # with `plan` None when the link's plan is unknown
    problems: list[str]


def check_plan(state: ViewState, plan_names: Mapping[int, str], *, page: str) -> PlanChoice:
    """Drop a plan id the company does not have, saying so (`page` names what needs a plan)."""
    if state.plan is None or state.plan in plan_names:
        return PlanChoice(state, [])
    return PlanChoice(
        state.with_changes(plan=None, scenario=None, before=None, after=None),
        [
            f"Plan {state.plan} is not one of this company's plans (or not one you can see), "
            f"so no {page} is shown. Pick a plan."
        ],
    )


def check_scenario(
    state: ViewState,
    scenarios: tuple[int, ...] | None,
    *,
    ran: Collection[int] | None = None,
    looked_in: str = "",
) -> tuple[ViewState, list[str]]:
    """Drop a scenario the plan does not list, saying so, unless it `ran` in the plan's
    executions `looked_in` (the window): a plan's list is what it runs now, and links from its
    past runs (flaky rows, failure groups, comparisons, the standup) name scenarios it dropped
    since. Such a scenario is kept; `retired_note` says so."""
    if state.scenario is None or scenarios is None or state.scenario in scenarios:
        return state, []
    if ran is not None and state.scenario in ran:
        return state, []
    where = f" and did not run in {looked_in}" if looked_in else ""
    return state.with_changes(scenario=None), [
        f"Scenario {state.scenario} is not one of plan {state.plan}'s scenarios{where}, so none "
        f"is shown. Pick one of its scenarios."
    ]


def retired_note(state: ViewState, scenarios: tuple[int, ...] | None, plan_name: str) -> str | None:
    """What to say when the chosen scenario is one the plan no longer lists (kept by
    `check_scenario` because it ran in the window): its past runs are shown. None otherwise."""
    if state.scenario is None or scenarios is None or state.scenario in scenarios:
        return None
    return f"Scenario {state.scenario} is no longer in plan {plan_name}; showing its past runs."


@dataclass(frozen=True)
class PairChoice:
    before: int | None
    after: int | None
    problems: list[str]


def check_pair(
    state: ViewState,
    plan_execution_ids: set[int],
    default: tuple[int, int] | None,
    *,
    plan_name: str,
    lookback: str,
) -> PairChoice:
    """The two executions to compare: the link's, when they are the plan's, else the plan's
    defaults (its latest finished and the one before), saying why."""
    problems: list[str] = []
    instead: tuple[int | None, int | None] = default or (None, None)
    pair: list[int | None] = []
    for side, ident, fallback in zip(
        (BEFORE, AFTER), (state.before, state.after), instead, strict=True
    ):
        if ident is not None and ident not in plan_execution_ids:
            problems.append(
                f"Execution {ident} is not an execution of plan {plan_name} in the {lookback}, "
                f"so the {side.name} side is the plan's default."
            )
            ident = None
        pair.append(fallback if ident is None else ident)
    before, after = pair
    if before is not None and before == after:
        problems.append(f"Execution {before} is on both sides: pick two different executions.")
    return PairChoice(before, after, problems)
