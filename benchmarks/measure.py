"""What one case measures: figures (repeated timings or sizes), how each compares with its peer
measured in the same run, and the target set for it.

A figure keeps every run, so the report can give the median, the spread and the ratio of
medians; the machine is shared, and one run alone says little.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class Compare(StrEnum):
    """How a figure is set beside its peer."""

    SPEEDUP = "speedup"  # peer / figure: "6.2x faster than the walk"
    RATIO = "ratio"  # figure / peer: "1.3x the floor", "2.1x the trivial page"


class Bound(StrEnum):
    """What a target bounds, and from which side."""

    RATIO_AT_LEAST = "ratio_at_least"
    RATIO_AT_MOST = "ratio_at_most"
    VALUE_AT_MOST = "value_at_most"
    VALUE_AT_LEAST = "value_at_least"


@dataclass(frozen=True)
class Target:
    """A goal a figure is held to, e.g. `Target(Bound.RATIO_AT_LEAST, 6, ">= 6x the walk")`."""

    bound: Bound
    limit: float
    text: str

    def met_by(self, value: float, ratio: float | None) -> bool | None:
        """Whether the median (`value`) or its ratio meets the target; None if not comparable."""
        if self.bound is Bound.VALUE_AT_MOST:
            return value <= self.limit
        if self.bound is Bound.VALUE_AT_LEAST:
            return value >= self.limit
        if ratio is None:
            return None
        if self.bound is Bound.RATIO_AT_LEAST:
            return ratio >= self.limit
        return ratio <= self.limit


@dataclass
class Figure:
    """One thing measured, once per repeat. `unit` is what `runs` hold (s, MB, bytes, ...)."""

    name: str
    unit: str
    runs: list[float] = field(default_factory=list)
    peer: str | None = None  # another figure of the same case
    compare: Compare = Compare.RATIO
    target: Target | None = None
    note: str = ""
    computed: bool = False  # derived from other figures (a floor), not measured

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def low(self) -> float:
        return min(self.runs)

    @property
    def high(self) -> float:
        return max(self.runs)


@dataclass
class CaseResult:
    """A case's figures, in the order they are reported, and what a reader should know."""

    name: str
    title: str
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    status: str = "ok"  # "ok", "skipped" (a reason in notes) or "error"
    error: str | None = None
    seconds: float = 0.0  # wall time of the whole case, set-up included

    def figure(
        self,
        name: str,
        unit: str,
        *,
        peer: str | None = None,
        compare: Compare = Compare.RATIO,
        target: Target | None = None,
        note: str = "",
        computed: bool = False,
    ) -> Figure:
        """The figure called `name`, created (in report order) on first use."""
        for existing in self.figures:
            if existing.name == name:
                return existing
        made = Figure(name, unit, peer=peer, compare=compare, target=target, note=note)
        made.computed = computed
        self.figures.append(made)
        return made

    def by_name(self, name: str) -> Figure | None:
        return next((f for f in self.figures if f.name == name), None)

    def ratio(self, figure: Figure) -> float | None:
        """The figure's median against its peer's (see `Compare`); None without a peer."""
        peer = self.by_name(figure.peer) if figure.peer else None
        if peer is None or not peer.runs or not figure.runs:
            return None
        if figure.compare is Compare.SPEEDUP:
            return peer.median / figure.median if figure.median else None
        return figure.median / peer.median if peer.median else None

    def met(self, figure: Figure) -> bool | None:
        if figure.target is None or not figure.runs:
            return None
        return figure.target.met_by(figure.median, self.ratio(figure))


def timed(action: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> tuple[float, T]:
    """(seconds, answer) of one call of `action(*args, **kwargs)`."""
    started = time.perf_counter()
    answer = action(*args, **kwargs)
    return time.perf_counter() - started, answer


def percentile(values: list[float], share: float) -> float:
    """The `share` (0-1) percentile by linear interpolation between closest ranks."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    position = (len(ordered) - 1) * share
    lower = int(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)
