"""Which scenario the Scenario history page shows: the link's, when its plan lists it or when
it ran in the window (a link from past runs names a scenario the plan has dropped since, whose
past runs are then shown); otherwise none, saying why."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.present import scenario_view
from dashboard.present.formatting import visible_text
from dashboard.state import plan_choice
from dashboard.ui import analytics_input
from dashboard.ui.analytics_input import AnalyticsInput
from dashboard.ui.page import Page


@dataclass(frozen=True, eq=False)
class ScenarioChoice:
    """page: with its scenario checked; scenarios: those its plan lists (None without a
    plan); past: the window of a scenario the plan no longer lists (None otherwise); retired:
    what to say about such a scenario; plan_name: the plan's name as shown."""

    page: Page
    scenarios: tuple[int, ...] | None
    past: AnalyticsInput | None
    retired: str | None
    plan_name: str


def choose_scenario(page: Page) -> ScenarioChoice:
    """The page's scenario, checked against its plan's list and, for one it no longer lists,
    against the plan's last W finished executions (loaded here)."""
    state = page.state
    scenarios = scenario_view.plan_scenarios(page.plans, state.plan)
    past = None
    unlisted = (
        state.scenario is not None and scenarios is not None and state.scenario not in scenarios
    )
    if unlisted and state.plan is not None and state.scenario is not None:
        # Links from past runs name scenarios the plan has dropped since: look for its runs.
        past = analytics_input.load_scenario_window(
            page.connection,
            now=page.now,
            window=state.window,
            plan=state.plan,
            scenario=state.scenario,
        )
    state, problems = plan_choice.check_scenario(
        state,
        scenarios,
        ran=scenario_view.scenarios_ran(past.results) if past is not None else None,
        looked_in=f"its last {state.window} finished executions",
    )
    page = page.checked(state, problems)
    plan_name = visible_text(page.plan_name, one_line=True) if state.plan is not None else ""
    retired = plan_choice.retired_note(state, scenarios, plan_name)
    return ScenarioChoice(page, scenarios, past, retired, plan_name)
