"""The benchmark cases, in the order they run and are reported. Each module has `NAME`,
`TITLE` and `run(run: Run) -> CaseResult`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.cases import (
    assistant,
    fanout,
    fetch,
    lists,
    memory,
    morning,
    pages,
    parse,
    pgstore,
    rules_names,
    sandbox_latency,
    store,
    verdicts,
    windows,
)
from benchmarks.context import Run
from benchmarks.measure import CaseResult


@dataclass(frozen=True)
class Case:
    name: str
    title: str
    run: Callable[[Run], CaseResult]


CASES: tuple[Case, ...] = tuple(
    Case(module.NAME, module.TITLE, module.run)
    for module in (
        fetch,
        fanout,
        parse,
        pages,
        memory,
        store,
        sandbox_latency,
        pgstore,
        lists,
        windows,
        verdicts,
        assistant,
        morning,
        rules_names,
    )
)
NAMES: tuple[str, ...] = tuple(case.name for case in CASES)
