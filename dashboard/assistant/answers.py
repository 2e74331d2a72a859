"""One answer of a tool, shaped for an assistant: structured content (the view's figures and
rows as values), a short text of our own words and numbers, the coverage line, the `view_url` of
the page that shows the same slice, and a page of rows at a time.

Service text is data: names, messages and log paths travel only as values in `rows` and
`figures`, never inside `text` or `coverage`, which are built from numbers and fixed words.
No answer is longer than `MAX_CHARS` (about 20,000 tokens: Claude Code refuses tool answers
over 25,000); rows beyond it are left for the next page, said as "N more, ask with cursor".
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent

from dashboard.analytics.basis import Basis, execution_basis

MAX_CHARS = 80_000
"""The longest answer (its JSON and its text together), about 20,000 tokens."""
SUMMARY_ROWS = 10
FULL_ROWS = 200
Detail = Literal["summary", "full"]
DETAILS: tuple[Detail, ...] = ("summary", "full")


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A frame's rows as JSON values: times in ISO 8601, missing values null."""
    if frame.empty:
        return []
    text = frame.to_json(orient="records", date_format="iso", date_unit="s", default_handler=str)
    rows: list[dict[str, Any]] = json.loads(text)
    return rows


def coverage(basis: Basis | None = None, *, executions: pd.DataFrame | None = None) -> str:
    """ "computed from 601 of 601 executions, 29 Oct - 28 Nov": what the answer was computed
    from, by a view's basis (or the executions it read)."""
    if basis is None:
        if executions is None or executions.empty:
            return "computed from no execution"
        basis = execution_basis(executions)
    used = basis.with_results if basis.with_results is not None else basis.judged
    text = f"computed from {used:,} of {basis.executions:,} executions"
    first, last = basis.first, basis.last
    if first is not None and last is not None and not pd.isna(first) and not pd.isna(last):
        text += f", {first:%d %b %Y} - {last:%d %b %Y}"
    if basis.running:
        text += f"; {basis.running:,} still running (no verdict)"
    return text


@dataclass(frozen=True)
class Page:
    """Where a page of rows starts and how many it may hold."""

    offset: int
    size: int


def page_of(tool: str, question: Mapping[str, Any], detail: str, cursor: str | None) -> Page:
    """The page a call asks for: the first, or the one its `cursor` names, which must come
    from an earlier answer to the same question (same tool and arguments)."""
    if detail not in DETAILS:
        raise ToolError(f"detail must be one of {', '.join(DETAILS)}.")
    size = SUMMARY_ROWS if detail == "summary" else FULL_ROWS
    if not cursor:
        return Page(0, size)
    try:
        raw = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii") + b"=="))
        offset, asked = int(raw["o"]), str(raw["q"])
    except (ValueError, KeyError, TypeError, UnicodeEncodeError, binascii.Error):
        raise ToolError("That cursor is not one this server gave: ask without it.") from None
    if asked != _question_key(tool, question) or offset < 0:
        raise ToolError(
            "That cursor belongs to another question (another tool or other arguments): ask "
            "again with the arguments it came with, or without a cursor."
        )
    return Page(offset, size)


def _question_key(tool: str, question: Mapping[str, Any]) -> str:
    shown = json.dumps([tool, dict(sorted(question.items()))], default=str)
    return hashlib.sha256(shown.encode()).hexdigest()[:16]


def _cursor(tool: str, question: Mapping[str, Any], offset: int) -> str:
    raw = json.dumps({"q": _question_key(tool, question), "o": offset}).encode()
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def answer(
    *,
    tool: str,
    question: Mapping[str, Any],
    page: Page,
    headline: str,
    coverage_line: str,
    figures: Mapping[str, Any] | None = None,
    rows: pd.DataFrame | None = None,
    extra: Mapping[str, Any] | None = None,
    view_url: str | None = None,
    notes: Sequence[str] = (),
    shape: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
) -> CallToolResult:
    """The tool's answer: `headline` (our words and numbers only) and the coverage line as
    text, the rest as structured content; a page of `rows`, cut to fit `MAX_CHARS`. `shape`
    changes the page's rows before they are written (the dashboard's links made absolute):
    only the rows sent are shaped and written, not the whole table (a 30 days' Failures table
    holds thousands)."""
    total = 0 if rows is None else len(rows)
    start = min(page.offset, total)
    shown: list[dict[str, Any]] = []
    if rows is not None:
        rows_of_page = rows.iloc[start : start + page.size]
        shown = records(shape(rows_of_page) if shape is not None else rows_of_page)
    content: dict[str, Any] = {
        "tool": tool,
        "summary": headline,
        "coverage": coverage_line,
        "figures": dict(figures or {}),
        **dict(extra or {}),
        "rows": shown,
        "total_rows": total,
        "first_row": start,
        "next_cursor": None,
        "view_url": view_url,
        "notes": list(notes),
    }
    while True:
        after = start + len(shown)
        more = total - after
        content["rows"] = shown
        content["next_cursor"] = _cursor(tool, question, after) if more > 0 else None
        text = _text(headline, coverage_line, start, len(shown), total, more, view_url)
        size = len(json.dumps(content, ensure_ascii=False)) + len(text)
        if size <= MAX_CHARS or not shown:
            break
        shown = shown[: max(len(shown) * MAX_CHARS // size - 1, 0)]
    if size > MAX_CHARS:  # the figures alone are too long: said, never sent cut mid-value
        raise ToolError("The answer is too long even without rows: ask with detail=summary.")
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=content)


def _text(
    headline: str,
    coverage_line: str,
    start: int,
    shown: int,
    total: int,
    more: int,
    view_url: str | None,
) -> str:
    lines = [headline, f"({coverage_line})"]
    if total:
        lines.append(f"Rows {start + 1 if shown else start}-{start + shown} of {total:,}.")
    if more > 0:
        lines.append(f"{more:,} more, ask with cursor (next_cursor).")
    if view_url:
        lines.append("The same view in the dashboard: view_url.")
    return "\n".join(lines)
