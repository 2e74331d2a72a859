"""Marks as the store holds them, checked row by row before anything applies them.

Every mark the program writes went through `store.marks`' checks, but the table can be written
by other hands (an older or newer program, a script, an administrator's `UPDATE`): a kind or a
target this program does not know, a time no frame can hold, a field its target needs left
empty. One such row must neither take the others down (a page, the alerts, the gate read them
all) nor be applied as if it meant something: it is kept apart as `MalformedMark`, with the
field and what is wrong with it, and every face says so ("1 mark is malformed and not applied:
mark 0123456789ab: kind is 'bogus' ...").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import typed

_NAMES = tuple(MARK_COLUMNS)
_TIMES = ("expires_on", "created_at", "updated_at", "closed_at")
_REQUIRED_TIMES = ("created_at", "updated_at")
_NEEDS: dict[str, tuple[str, ...]] = {
    columns.FAILURE_GROUP: ("signature",),
    columns.SCENARIO: ("plan_id", "scenario_id"),
    columns.SCENARIO_ENVIRONMENT: ("plan_id", "scenario_id", "environment"),
    columns.EXECUTION: ("execution_id",),
}
"""The fields each target needs (a failure group's signature may be "", never missing)."""
_SHOWN = 60


@dataclass(frozen=True)
class MalformedMark:
    """A stored mark that cannot be read as one: never applied, shown as malformed."""

    mark_id: str
    problem: str  # "<field> is ..., not ..."

    @property
    def sentence(self) -> str:
        return f"mark {self.mark_id}: {self.problem}"


@dataclass(frozen=True, eq=False)
class MarksRead:
    """A company's marks as read: the well-formed ones (MARK_COLUMNS), and those kept apart."""

    marks: pd.DataFrame
    malformed: tuple[MalformedMark, ...] = ()


def malformed_words(malformed: Sequence[MalformedMark]) -> str | None:
    """One sentence for every face: "1 mark is malformed and not applied: mark ...: ..."."""
    if not malformed:
        return None
    count = len(malformed)
    said = "1 mark is" if count == 1 else f"{count} marks are"
    return f"{said} malformed and not applied: " + "; ".join(m.sentence for m in malformed) + "."


def read_rows(rows: Iterable[Sequence[Any]]) -> MarksRead:
    """The rows of `sql_marks.MARKS_OF_COMPANY_AS_STORED` (times as text), checked one by one."""
    good: list[dict[str, Any]] = []
    bad: list[MalformedMark] = []
    for values in rows:
        row = dict(zip(_NAMES, values, strict=True))
        checked, problem = _checked(row)
        if problem is None:
            good.append(checked)
        else:
            bad.append(MalformedMark(str(row["mark_id"]), problem))
    frame = pd.DataFrame(good, columns=list(_NAMES))
    for name in _TIMES:
        frame[name] = pd.to_datetime(frame[name], utc=True).astype(MARK_COLUMNS[name])
    return MarksRead(typed(frame, MARK_COLUMNS), tuple(bad))


def _checked(row: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The row with its times read, or the first thing wrong with it."""
    target, kind = row["target"], row["kind"]
    if target not in columns.TARGETS:
        return row, f"target is {_shown(target)}, not one of {', '.join(columns.TARGETS)}"
    allowed = columns.KINDS_FOR[target]
    if kind not in allowed:
        return row, f"kind is {_shown(kind)}, not one of {', '.join(allowed)} for a {target}"
    for name in _NEEDS[target]:
        if row[name] is None or (name == "environment" and not str(row[name]).strip()):
            return row, f"{name} is missing, and a {target} mark needs it"
    for name in ("created_by", "revision"):
        if row[name] is None:
            return row, f"{name} is missing"
    out = dict(row)
    for name in _TIMES:
        text = row[name]
        if text is None:
            if name in _REQUIRED_TIMES:
                return row, f"{name} is missing"
            out[name] = None
            continue
        when = _time(str(text))
        if when is None:
            return row, f"{name} is {_shown(text)}, not a time this program can read"
        out[name] = when
    return out, None


def _time(text: str) -> pd.Timestamp | None:
    """A stored time read, in UTC; None when it is not one a frame can hold."""
    try:
        when = pd.Timestamp(text)
    except (ValueError, OverflowError, pd.errors.OutOfBoundsDatetime):
        return None
    if when is pd.NaT or not isinstance(when, pd.Timestamp):
        return None
    return when.tz_localize("UTC") if when.tzinfo is None else when.tz_convert("UTC")


def _shown(value: object) -> str:
    """A stored value quoted for a sentence: printable, and cut short."""
    text = "".join(c if c.isprintable() else "?" for c in str(value))
    return repr(text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "\u2026")
