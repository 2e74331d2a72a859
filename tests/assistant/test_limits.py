"""Answers fit an assistant (no answer over 80,000 characters, "N more, ask with cursor"), and
bad input is a tool error with a sentence, never a traceback."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from dashboard.assistant import answers
from tests.assistant.conftest import History, ask_here, error_text, rows, whole
from tests.cli.plan_service import PLAN_ID


def _size(answer: answers.CallToolResult) -> int:
    text = answer.content[0].text  # type: ignore[union-attr]
    return len(json.dumps(answer.structured_content, ensure_ascii=False)) + len(text)


def _big(n: int) -> pd.DataFrame:
    return pd.DataFrame({"Scenario": range(n), "Message": ["x" * 2_000] * n})


def test_an_answer_of_many_long_rows_is_cut_to_the_cap_and_says_how_many_more() -> None:
    page = answers.page_of("t", {"a": 1}, "full", None)
    answer = answers.answer(
        tool="t", question={"a": 1}, page=page, headline="h", coverage_line="c", rows=_big(150)
    )
    content = answer.structured_content
    assert content is not None
    shown = len(content["rows"])
    assert 0 < shown < 150
    assert _size(answer) <= answers.MAX_CHARS
    assert f"{150 - shown:,} more, ask with cursor" in answer.content[0].text  # type: ignore[union-attr]

    # The cursor goes on from the first row not shown, and the pages together hold every row.
    seen = [r["Scenario"] for r in content["rows"]]
    while content["next_cursor"]:
        page = answers.page_of("t", {"a": 1}, "full", content["next_cursor"])
        following = answers.answer(
            tool="t", question={"a": 1}, page=page, headline="h", coverage_line="c", rows=_big(150)
        )
        assert _size(following) <= answers.MAX_CHARS
        content = following.structured_content
        assert content is not None
        seen += [r["Scenario"] for r in content["rows"]]
    assert seen == list(range(150))


def test_a_summary_holds_the_first_rows_and_a_cursor_for_the_rest() -> None:
    frame = pd.DataFrame({"Scenario": range(25)})
    page = answers.page_of("t", {}, "summary", None)
    answer = answers.answer(
        tool="t", question={}, page=page, headline="h", coverage_line="c", rows=frame
    )
    content = answer.structured_content
    assert content is not None
    assert len(content["rows"]) == answers.SUMMARY_ROWS
    assert content["total_rows"] == 25
    assert "15 more, ask with cursor" in answer.content[0].text  # type: ignore[union-attr]


def test_every_page_s_rows_are_shaped_before_they_are_sent_and_only_they() -> None:
    """The dashboard's links of each page are made absolute (`shape`), on the pages after the
    first too; the rows not sent are not shaped (a 30 days' table holds thousands)."""
    frame = pd.DataFrame({"Scenario": range(25), "History": [f"scenario?s={n}" for n in range(25)]})
    seen: list[int] = []

    def shape(rows: pd.DataFrame) -> pd.DataFrame:
        seen.append(len(rows))
        return rows.assign(History="https://qa.example.com/" + rows["History"])

    cursor = None
    sent: list[dict[str, object]] = []
    while True:
        page = answers.page_of("t", {}, "summary", cursor)
        content = answers.answer(
            tool="t",
            question={},
            page=page,
            headline="h",
            coverage_line="c",
            rows=frame,
            shape=shape,
        ).structured_content
        assert content is not None
        assert content["total_rows"] == 25
        sent += content["rows"]
        cursor = content["next_cursor"]
        if not cursor:
            break
    assert [row["Scenario"] for row in sent] == list(range(25))
    assert [row["History"] for row in sent] == [
        f"https://qa.example.com/scenario?s={n}" for n in range(25)
    ]
    assert seen == [answers.SUMMARY_ROWS, answers.SUMMARY_ROWS, 5]


def test_a_cursor_of_another_question_is_refused_with_a_sentence() -> None:
    page = answers.page_of("t", {"plan": 1}, "summary", None)
    cursor = answers.answer(
        tool="t",
        question={"plan": 1},
        page=page,
        headline="h",
        coverage_line="c",
        rows=pd.DataFrame({"n": range(30)}),
    ).structured_content["next_cursor"]  # type: ignore[index]
    with pytest.raises(answers.ToolError, match="another question"):
        answers.page_of("t", {"plan": 2}, "summary", cursor)
    with pytest.raises(answers.ToolError, match="another question"):
        answers.page_of("u", {"plan": 1}, "summary", cursor)
    with pytest.raises(answers.ToolError, match="not one this server gave"):
        answers.page_of("t", {"plan": 1}, "summary", "not-a-cursor!")


@pytest.mark.parametrize(
    ("tool", "arguments", "said"),
    [
        ("failures", {"since": "2026-11-20", "until": "2026-11-10"}, "until is before since"),
        ("failures", {"since": "2016-11-20", "until": "2026-11-20"}, "longer than 90 days"),
        ("failures", {"period": "last_decade"}, "period must be one of"),
        ("failures", {"states": ["on fire"]}, "states must be among"),
        ("execution_results", {"execution": 999_999}, "There is no execution 999999"),
        ("scenario_history", {"plan": 404, "scenario": 1}, "There is no plan 404"),
        ("scenario_history", {"plan": PLAN_ID, "scenario": 52, "window": 10_000}, "window"),
        ("compare_executions", {"plan": PLAN_ID, "before": 5001}, "both before and after"),
        ("compare_executions", {"plan": PLAN_ID, "before": 1, "after": 5006}, "Execution 1 is"),
        ("known_failures", {"show": "everything"}, "show must be one of"),
        ("failures", {"detail": "everything"}, "detail must be one of"),
        ("failures", {"cursor": "bm90IG91cnM"}, "cursor"),
        ("standup", {"since": "2099-01-01T00:00:00Z"}, "not in the past"),
    ],
)
def test_bad_input_is_a_tool_error_with_a_sentence(
    history: History, tool: str, arguments: dict[str, object], said: str
) -> None:
    (answer,) = ask_here(history.env, [(tool, arguments)])
    text = error_text(answer)
    assert said in text
    assert "Traceback" not in text
    assert 'File "' not in text


def test_the_next_page_of_a_real_answer_follows_its_cursor(history: History) -> None:
    (first,) = ask_here(history.env, [("failures", {"detail": "summary"})])
    assert len(rows(first)) == 6
    assert first.structured_content["next_cursor"] is None
    (full,) = ask_here(
        history.env, [("execution_results", {"execution": 5005, "failed_only": False})]
    )
    assert len(rows(full)) == 4, whole(full)


def test_tools_asked_in_a_row_read_the_services_executions_once(history: History) -> None:
    ask_here(history.env, [("red_plans", {})])
    polls = history.service.polls
    assert polls > 0
    ask_here(history.env, [("time_to_green", {}), ("red_plans", {})])
    assert history.service.polls == polls  # the same 90 days, reused as the pages reuse theirs
