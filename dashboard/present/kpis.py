"""A page's headline figures as data: each KPI's label, its value already worded, and what a
hover says; `ui.kpis` draws them in one bordered row."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Kpi:
    """One headline figure: `value` worded ("1,204", "87.5 %"), `delta` a grey note under it
    ("3 running"; None: none), `help` the hover text."""

    label: str
    value: str
    help: str | None = None
    delta: str | None = None
