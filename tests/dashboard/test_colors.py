"""Colours and symbols: a plan keeps its colour everywhere; a status is never colour alone."""

from __future__ import annotations

from dashboard.analytics.verdicts import KNOWN_STATUSES
from dashboard.data import frames
from dashboard.present import colors, runtime_chart
from tests.dashboard import records


def test_a_plans_colour_comes_from_its_id_not_from_what_else_is_shown() -> None:
    alone = frames.executions_frame([records.execution(1, plan_id=7, plan_name="Checkout")])
    crowded = frames.executions_frame(
        [
            records.execution(1, plan_id=7, plan_name="Checkout"),
            records.execution(2, plan_id=3, plan_name="Basket"),
            records.execution(3, plan_id=5, plan_name="Alpha"),
        ]
    )

    def color_of(figure: object, name: str) -> str:
        return next(t.line.color for t in figure.data if t.name == name)  # type: ignore[attr-defined]

    assert color_of(runtime_chart.runtime_trend(alone), "Checkout") == colors.plan_color(7)
    assert color_of(runtime_chart.runtime_trend(crowded), "Checkout") == colors.plan_color(7)
    assert colors.plan_color(7) != colors.plan_color(8)
    assert not set(colors.PLAN_PALETTE) & {colors.STATUS_COLORS[s] for s in ("SUCCESS", "FAILURE")}


def test_every_known_status_has_a_colour_and_a_symbol_of_its_own_kind() -> None:
    assert tuple(colors.STATUS_COLORS) == KNOWN_STATUSES
    assert set(colors.STATUS_SYMBOLS) == set(KNOWN_STATUSES)
    verdict_symbols = [colors.STATUS_SYMBOLS[s] for s in ("SUCCESS", "FAILURE", "ERROR", "WARNING")]
    assert len(set(verdict_symbols)) == 4
    assert colors.status_label("failure") == "\u2716 failure"
    assert colors.status_label("Quarantined") == "? Quarantined"
