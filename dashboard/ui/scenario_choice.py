"""Which scenario the Scenario history page shows: the link's, when its plan lists it or when
it ran in the window (a link from past runs names a scenario the plan has dropped since, whose
past runs are then shown); otherwise none, saying why. And the team's names of scenarios as
pages use them: the form that changes one scenario's name and owner (`name_form`), and the
"Only my scenarios" filter of Failures and States (`only_my_scenarios`)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dashboard.data import cache_names
from dashboard.data.connection import Connection
from dashboard.present import scenario as words
from dashboard.present import scenario_view
from dashboard.present.formatting import visible_text
from dashboard.state import plan_choice
from dashboard.state.params import OWNED, ViewState
from dashboard.ui import analytics_input, notices, viewer
from dashboard.ui.analytics_input import AnalyticsInput
from dashboard.ui.page import Page
from dashboard.ui.url_filters import UrlFilters


@dataclass(frozen=True, eq=False)
class ScenarioChoice:
    """page: with its scenario checked; scenarios: those its plan lists (None without a
    plan); past: the window of a scenario the plan no longer lists (None otherwise); retired:
    what to say about such a scenario; plan_name: the plan's name as shown; names: the
    company's scenario names (`cache_names.names`)."""

    page: Page
    scenarios: tuple[int, ...] | None
    past: AnalyticsInput | None
    retired: str | None
    plan_name: str
    names: pd.DataFrame


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
    names = cache_names.names(page.connection)
    return ScenarioChoice(page, scenarios, past, retired, plan_name, names)


def names_and_mine(
    widgets: UrlFilters, state: ViewState, connection: Connection
) -> tuple[pd.DataFrame, str | None]:
    """The company's scenario names (`cache_names.names`) and `only_my_scenarios`' address, as
    Failures and States pass them to their views."""
    return cache_names.names(connection), only_my_scenarios(widgets, state)


def only_my_scenarios(widgets: UrlFilters, state: ViewState) -> str | None:
    """The "Only my scenarios" toggle (bound to `owned` in the URL), drawn only for a viewer
    who is signed in; the address to keep the scenarios of (their owner's), or None: every
    scenario (the toggle is off, or nobody is signed in, whatever the link says)."""
    email = viewer.signed_in_email()
    if email is None:
        return None
    widgets.toggle("Only my scenarios", OWNED, help=f"Only the scenarios {email} owns.")
    return email if state.only_owned else None


FORM_KEY = "scenario.name"
_SAID_KEY = f"{FORM_KEY}.said"


def name_form(choice: ScenarioChoice) -> None:
    """The "Name and owner" form of the page's scenario: only for a viewer who may change
    marks (`viewer.mark_rights`, asked again on save), the change made under their signed-in
    address (on one person's own dashboard, a typed name). Nothing without a scenario."""
    state = choice.page.state
    if state.scenario is None:
        return
    said = st.session_state.pop(_SAID_KEY, None)
    if said:
        notices.show_notes([said], severity="info")
    rights = viewer.mark_rights()
    with st.expander("Name and owner", icon=":material/edit:"):
        if not rights.allowed:
            notices.plain(words.NAMES_READ_ONLY)
            return
        row = choice.names[choice.names["scenario_id"] == state.scenario]
        was_name = "" if row.empty else str(row.iloc[0]["name"])
        was_owner = "" if row.empty or pd.isna(row.iloc[0]["owner"]) else str(row.iloc[0]["owner"])
        # Keyed by the scenario: another scenario's form starts from its own stored values.
        key = f"{FORM_KEY}.{state.scenario}"
        with st.form(key, border=False):
            name = st.text_input("Name", value=was_name, key=f"{key}.name")
            owner = st.text_input("Owner (e-mail)", value=was_owner, key=f"{key}.owner")
            typed = None
            if rights.author is None:
                typed = st.text_input("Your name", key=f"{key}.by")
            if not st.form_submit_button("Save", icon=":material/save:"):
                return
        _save(choice, state.scenario, name=name, owner=owner, typed=typed)


def _save(
    choice: ScenarioChoice, scenario: int, *, name: str, owner: str, typed: str | None
) -> None:
    """Write the form's values, the rights asked again; say what became of it."""
    rights = viewer.mark_rights()
    by = rights.author or (typed or "").strip()
    if not rights.allowed:
        notices.show_notes([words.NAMES_READ_ONLY], severity="warning")
        return
    saved = cache_names.set_name(
        choice.page.connection,
        scenario,
        name=name,
        owner=owner.strip(),
        by=by,
        now=choice.page.now,
    )
    if not saved.done:
        notices.show_notes(list(saved.refused) or [saved.failed or ""], severity="warning")
        return
    names = cache_names.names(choice.page.connection)
    st.session_state[_SAID_KEY] = words.name_saved_text(
        scenario_view.title_text(scenario, names), cut=saved.cut
    )
    st.rerun()
