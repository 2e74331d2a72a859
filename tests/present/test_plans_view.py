"""The Plans page's view: its KPIs, words and table from the plans and their recent executions,
without Streamlit."""

from __future__ import annotations

from datetime import date

from dashboard.data import frames
from dashboard.data.live import ExecutionsData, PlansData
from dashboard.present.kpis import Kpi
from dashboard.present.plans_view import PlansView, plans_view
from tests.dashboard import records


def _plans() -> PlansData:
    return PlansData(
        frames.plans_frame(
            [
                records.plan(1, plan_name="Alpha", project_id=2, enabled=False, alerts=[]),
                records.plan(2, plan_name="Beta", project_id=2, scenarios=[1, 2]),
                records.plan(3, plan_name="Gamma", project_id=5, project_name="Mobile"),
            ]
        )
    )


def _view(data: PlansData, project_id: int | None = None) -> PlansView:
    return plans_view(
        data,
        project_id=project_id,
        project=None,
        active_only=True,
        today=date(2026, 11, 20),
        tz="UTC",
    )


def test_the_kpis_count_the_plans_the_filters_keep() -> None:
    view = _view(_plans(), project_id=2)

    assert view.kpis == (
        Kpi("Plans", "2"),
        Kpi("Enabled", "1"),
        Kpi("Scenarios", "5"),
        Kpi("With alerts", "1"),
    )
    assert sorted(view.plans["plan_id"]) == [1, 2]
    assert view.empty_text is None
    assert view.notes == ()


def test_no_plan_left_says_what_to_do() -> None:
    view = _view(_plans(), project_id=99)

    assert view.empty_text == (
        "No plans match these filters. Turn off *Active plans only* to include disabled ones."
    )


def test_without_the_recent_executions_the_table_shows_settings_only() -> None:
    shown = _view(_plans()).with_states(None)

    assert list(shown.display["Plan"]) == ["Gamma", "Alpha", "Beta"]  # by project, then name
    assert "Now" not in shown.display
    assert len(shown.captions) == 1
    assert "3 active plans in every project" in shown.captions[0]


def test_with_the_recent_executions_red_plans_come_first_and_the_source_is_said() -> None:
    runs = [
        records.execution(10, plan_id=3, result_summary={"FAILURE": 2}),
        records.execution(11, plan_id=1, result_summary={"SUCCESS": 2}),
    ]
    recent = ExecutionsData(frames.executions_frame(runs), frames.status_counts_frame(runs))

    shown = _view(_plans()).with_states(recent)

    assert list(shown.plans["plan_id"]) == [3, 1, 2]
    assert list(shown.display["Now"]) == [
        "\u2716 failing",
        "\u2714 passing",
        "\u2013 no finished run",
    ]
    assert "last 30 days of executions (2)" in shown.captions[1]
    assert shown.notes == ()
