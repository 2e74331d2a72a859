"""The suite's two outputs: a table for the terminal and a JSON document for the record.

In the table each figure is numbered within its case, and "vs peer" names the peer by that
number: `31.2x faster than (4)` reads "the median of this row is 31.2 times shorter than the
median of row 4". Ratios are always of medians measured in the same run.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from benchmarks.measure import CaseResult, Compare, Figure

JSON_VERSION = 1
FIGURE_KEYS = (
    "name",
    "unit",
    "runs",
    "median",
    "min",
    "max",
    "peer",
    "compare",
    "ratio",
    "target",
    "met",
    "note",
    "computed",
)
CASE_KEYS = ("title", "status", "error", "seconds", "notes", "figures")


def value_text(value: float, unit: str) -> str:
    if unit == "s":
        return f"{value * 1000:,.0f} ms" if value < 1 else f"{value:,.2f} s"
    if unit == "ms":
        return f"{value:,.1f} ms"
    if unit == "MB":
        return f"{value:,.0f} MB"
    if unit == "bytes":
        return f"{value:,.0f} B"
    if unit.endswith("/s"):
        return f"{value:,.0f} {unit}"
    return f"{value:,.3g} {unit}"


def ratio_text(case: CaseResult, figure: Figure) -> str:
    ratio = case.ratio(figure)
    if ratio is None:
        return ""
    names = [f.name for f in case.figures]
    peer = f"({names.index(figure.peer) + 1})" if figure.peer in names else "?"
    if figure.compare is Compare.SPEEDUP:
        return f"{ratio:,.2f}x faster than {peer}"
    return f"{ratio:,.2f}x {peer}"


def met_text(met: bool | None) -> str:
    return {True: "met", False: "MISSED", None: ""}[met]


def case_table(case: CaseResult) -> str:
    """The case's block of the terminal table."""
    lines = [f"{case.title}  [{case.status}, {case.seconds:,.0f} s]"]
    if case.error:
        lines.append(f"  error: {case.error}")
    rows = [("#", "figure", "median", "min", "max", "vs peer", "target", "")]
    for number, figure in enumerate(case.figures, 1):
        if not figure.runs:
            continue
        rows.append(
            (
                f"({number})",
                figure.name + (" [computed]" if figure.computed else ""),
                value_text(figure.median, figure.unit),
                value_text(figure.low, figure.unit),
                value_text(figure.high, figure.unit),
                ratio_text(case, figure),
                figure.target.text if figure.target else "",
                met_text(case.met(figure)),
            )
        )
    if len(rows) > 1:
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        right = {2, 3, 4}
        for row in rows:
            cells = [
                cell.rjust(widths[i]) if i in right else cell.ljust(widths[i])
                for i, cell in enumerate(row)
            ]
            lines.append("  " + "  ".join(cells).rstrip())
    lines += [f"  - {note}" for note in case.notes]
    return "\n".join(lines)


def figure_json(case: CaseResult, figure: Figure) -> dict[str, Any]:
    has_runs = bool(figure.runs)
    target = figure.target
    return {
        "name": figure.name,
        "unit": figure.unit,
        "runs": figure.runs,
        "median": figure.median if has_runs else None,
        "min": figure.low if has_runs else None,
        "max": figure.high if has_runs else None,
        "peer": figure.peer,
        "compare": figure.compare.value,
        "ratio": case.ratio(figure),
        "target": (
            None
            if target is None
            else {"bound": target.bound.value, "limit": target.limit, "text": target.text}
        ),
        "met": case.met(figure),
        "note": figure.note,
        "computed": figure.computed,
    }


def document(
    *, size: str, machine: dict[str, Any], load_after: list[float], cases: Iterable[CaseResult]
) -> dict[str, Any]:
    return {
        "version": JSON_VERSION,
        "size": size,
        "machine": {**machine, "load_average_after": load_after},
        "cases": {
            case.name: {
                "title": case.title,
                "status": case.status,
                "error": case.error,
                "seconds": case.seconds,
                "notes": case.notes,
                "figures": [figure_json(case, figure) for figure in case.figures],
            }
            for case in cases
        },
    }
