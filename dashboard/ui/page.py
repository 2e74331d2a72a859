"""How every page opens: its view read from the URL, its title, the clock, and (when its filters
name projects or plans) the company's plans that view is checked against.

Every page script starts with `open_page` and, once its controls are drawn, calls `settle`: the
URL then holds exactly the page's view, and what was wrong with the link is said under the
controls. What a page shows in between is its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from api_client import ApiError
from dashboard.analytics import plans as plan_analytics
from dashboard.data import cache
from dashboard.data.connection import Connection
from dashboard.state import choices, plan_choice
from dashboard.state.params import PLAN, PROJECT, ViewState
from dashboard.state.routes import Route
from dashboard.ui import notices, session, url_filters

PlanList = Literal["needed", "wanted"]
"""needed: the page stops, saying why, without the company's plans; wanted: it goes on without
them (its project and plan pickers show ids only)."""


@dataclass(frozen=True)
class Page:
    """What a page opens on. state/problems: the URL's view, checked against the plan list when
    there is one, and what was wrong with it (said by `settle`, after the controls). plans: the
    company's plans, every one (old links name retired plans); None when not loaded. heading:
    the title's place, to retitle it."""

    route: Route
    connection: Connection
    state: ViewState
    problems: list[str]
    now: datetime
    heading: DeltaGenerator
    plans: pd.DataFrame | None = None

    @property
    def plan_names(self) -> dict[int, str]:
        return plan_analytics.plan_names(self.plans) if self.plans is not None else {}

    @property
    def projects(self) -> dict[int, str]:
        return plan_analytics.project_names(self.plans) if self.plans is not None else {}

    @property
    def project_name(self) -> str | None:
        """The chosen project's name (its id when the plan list does not name it); None: all."""
        project = self.state.project
        return None if project is None else self.projects.get(project, str(project))

    @property
    def plan_name(self) -> str | None:
        """The chosen plan's name (its id when the plan list does not name it); None: all."""
        plan = self.state.plan
        return None if plan is None else self.plan_names.get(plan, str(plan))

    def checked(self, state: ViewState, problems: Sequence[str]) -> Page:
        """The page with its view replaced by a checked one, and that check's problems added."""
        return replace(self, state=state, problems=[*self.problems, *problems])

    def with_plans(self, plans: pd.DataFrame, *, plan_for: str | None = None) -> Page:
        """The page with `plans` and its view checked against them: a project or plan they do
        not hold is dropped, saying so. `plan_for` names what a page of one plan needs it for
        ("heat map"), and words that check."""
        page = replace(self, plans=plans)
        if PROJECT in self.route.params:
            # A page without a plan filter checks its project only.
            has_plan = PLAN in self.route.params
            checked = choices.reconcile(
                page.state,
                known_projects=page.projects,
                plan_projects=plan_analytics.plan_projects(plans) if has_plan else {},
            )
            return page.checked(checked.state, checked.problems)
        if plan_for is not None:
            one = plan_choice.check_plan(page.state, page.plan_names, page=plan_for)
            return page.checked(one.state, one.problems)
        return page

    def widgets(self) -> url_filters.UrlFilters:
        """The page's filter widgets, bound to the URL."""
        return url_filters.UrlFilters(self.route, self.state)

    def scope_pickers(
        self, widgets: url_filters.UrlFilters, project: DeltaGenerator, plan: DeltaGenerator
    ) -> None:
        """The Project and Plan pickers of a page over one project, one plan or all, in the
        given places: a new project clears the plan, and the plans offered are the project's."""
        with project:
            widgets.selectbox(
                "Project", PROJECT, {None: "All projects", **self.projects}, resets={PLAN: None}
            )
        with plan:
            in_project = (
                plan_analytics.plan_names(self.plans, project_id=self.state.project)
                if self.plans is not None
                else {}
            )
            widgets.selectbox("Plan", PLAN, {None: "All plans", **in_project})

    def settle(self) -> None:
        """After the controls: the URL holds exactly this view (bad and foreign parameters are
        dropped), and what was wrong with the link is said."""
        url_filters.write_url(self.state, self.route)
        notices.show_notes(self.problems)


def open_page(
    route: Route,
    title: str | Callable[[ViewState], str],
    *,
    plans: PlanList | None = None,
    plan_for: str | None = None,
) -> Page:
    """Read the page's view from the URL and draw its title (`title` may depend on the view).

    With `plans`, the company's plans are loaded and the view checked against them
    (`Page.with_plans`).
    """
    connection = session.current_connection()
    parsed = url_filters.read_view(route)
    heading = st.empty()
    heading.title(title(parsed.state) if callable(title) else title)
    page = Page(
        route, connection, parsed.state, list(parsed.problems), session.now(connection), heading
    )
    if plans is None:
        return page
    try:
        frame = cache.plans(connection, active_only=False).plans
    except ApiError as error:
        if plans == "needed":
            notices.show_error(error, part="the plan list")
            st.stop()
        pickers = (
            "project and plan filters show" if PLAN in route.params else "project filter shows"
        )
        notices.show_error(error, part=f"the plan list (the {pickers} ids only)")
        return page
    return page.with_plans(frame, plan_for=plan_for)
