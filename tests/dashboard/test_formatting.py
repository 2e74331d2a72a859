"""Text a viewer reads: durations, spans, safe markdown, which log paths become links."""

from __future__ import annotations

import math
from datetime import date

import pandas as pd
import pytest

from dashboard.data import frames
from dashboard.present import formatting


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.85, "850 ms"),
        (4, "4 s"),
        (4.25, "4.2 s"),
        (42, "42 s"),
        (125, "2 min 05 s"),
        (3600, "1 h 00 min"),
        (3 * 86400 + 7200, "3 d 02 h"),
        (None, "\u2013"),
        (math.nan, "\u2013"),
    ],
)
def test_human_duration(seconds: float | None, text: str) -> None:
    assert formatting.human_duration(seconds) == text


@pytest.mark.parametrize(
    ("max_seconds", "unit"),
    [(0, "seconds"), (90, "seconds"), (600, "minutes"), (3 * 3600, "hours")],
)
def test_duration_unit_follows_the_data(max_seconds: float, unit: str) -> None:
    assert formatting.duration_unit(max_seconds)[0] == unit


@pytest.mark.parametrize(
    "text",
    [
        "**bold** _it_ `code`",
        "<script>alert(1)</script>",
        "[click](javascript:alert(1))",
        ":red[alarm] :material/warning: $x^2$",
        "# heading\n- list",
    ],
)
def test_escape_markdown_leaves_no_active_markup(text: str) -> None:
    escaped = formatting.escape_markdown(text)
    for ch in "*_`<>[]():$#-":
        assert ch not in escaped.replace("\\" + ch, "")
    assert "\n" not in escaped


def test_escape_markdown_keeps_the_words() -> None:
    assert formatting.escape_markdown("Web Shop smoke") == "Web Shop smoke"
    assert formatting.escape_markdown("a.b") == "a\\.b"


@pytest.mark.parametrize(
    ("value", "is_link"),
    [
        ("https://logs.example.test/7/node.log", True),
        ("http://10.0.0.1:8080/x", True),
        ("HTTPS://LOGS.EXAMPLE.TEST/a", True),
        ("javascript:alert(1)", False),
        ("JaVaScRiPt:alert(1)", False),
        ("data:text/html,<script>", False),
        ("/relative/node.log", False),
        ("https://", False),
        (" https://example.test/leading-space", False),
        ("https://example.test/a b", False),
        ("", False),
        (None, False),
    ],
)
def test_only_absolute_http_urls_are_links(value: object, is_link: bool) -> None:
    assert frames.is_web_url(value) is is_link


def test_describe_slice_says_how_much_and_when() -> None:
    today = date(2026, 11, 22)
    assert (
        formatting.describe_slice(
            312, "execution", date(2026, 11, 1), date(2026, 11, 22), today=today
        )
        == "312 executions, 1 Nov \u2013 22 Nov"
    )
    assert (
        formatting.describe_slice(
            1, "execution", date(2025, 12, 30), date(2026, 1, 2), today=today, scope="of plan X"
        )
        == "1 execution of plan X, 30 Dec 2025 \u2013 2 Jan 2026"
    )
    assert formatting.describe_slice(1312, "plan", None, None, today=today) == "1,312 plans"


def test_filter_scope_and_percent() -> None:
    assert formatting.filter_scope() == ""
    assert (
        formatting.filter_scope(project="Web", plan="Smoke", statuses=("ERROR",), mine=True)
        == "of plan Smoke, with status ERROR, started by you"
    )
    assert formatting.filter_scope(project="Web") == "in project Web"
    assert formatting.percent(0.875) == "87.5 %"
    assert formatting.percent(None) == "\u2013"
    assert formatting.count_of(2, 5) == "2 of 5"
    assert formatting.count_of(0, 1_200) == "0 of 1,200"
    assert formatting.count_of(0, 0) == "\u2013"


NEUTRALISED = [
    *"\u202a\u202b\u202c\u202d\u202e",  # embeddings and overrides
    *"\u2066\u2067\u2068\u2069",  # isolates
    *"\u200e\u200f\u061c",  # marks
    *"\u200b\u200c\u200d\u2060\ufeff",  # zero-width
    *"\x00\x1b\x7f\x85",  # controls
]


@pytest.mark.parametrize("character", NEUTRALISED, ids=lambda c: f"U+{ord(c):04X}")
def test_visible_text_shows_a_marker_for_reordering_and_invisible_characters(
    character: str,
) -> None:
    assert formatting.visible_text(f"evil{character}exe") == "evil\ufffdexe"


def test_visible_text_leaves_ordinary_text_alone() -> None:
    for text in [
        "Checkout smoke",
        "Prüfung · 検証",
        "متجر",
        "a\tb\nc",
        "👍 ok",
        "https://x.test/a",
    ]:
        assert formatting.visible_text(text) == text
    assert formatting.visible_text("evil\u202eexe.txt") == "evil\ufffdexe.txt"
    assert formatting.visible_text(" a \n\u2028 b\r\n", one_line=True) == "a b"
    assert formatting.visible_text(42) == "42"


def test_visible_frame_neutralises_text_cells_and_labels_only() -> None:
    frame = pd.DataFrame(
        {
            "Plan": pd.Series(["a\u202eb", None], dtype="str"),
            "FAIL\u200bURE": [1, 2],
            "When": pd.to_datetime(["2026-11-20", None], utc=True),
        }
    )

    shown = formatting.visible_frame(frame)

    assert list(shown.columns) == ["Plan", "FAIL\ufffdURE", "When"]
    assert shown["Plan"].iloc[0] == "a\ufffdb"
    assert pd.isna(shown["Plan"].iloc[1])
    assert list(shown.dtypes) == list(frame.dtypes)
    assert frame["Plan"].iloc[0] == "a\u202eb"  # the input is not changed


def test_a_time_in_the_viewers_zone_names_the_zone() -> None:
    import pandas as pd

    stamp = pd.Timestamp("2026-11-20 09:15", tz="UTC")

    assert formatting.zone_text(stamp, "Europe/Istanbul") == "20 Nov 2026, 12:15 Europe/Istanbul"
    assert formatting.zone_text(stamp, "UTC") == formatting.utc_text(stamp)
    assert formatting.zone_text(None, "Asia/Tokyo") == "\u2013"
    assert formatting.times_note("Asia/Tokyo") == "Times are Asia/Tokyo."


def test_a_frame_in_a_zone_keeps_its_instants_and_its_other_columns() -> None:
    import pandas as pd

    frame = pd.DataFrame(
        {"at": pd.to_datetime(["2026-11-20 09:15"], utc=True), "text": ["x"], "n": [1]}
    )

    shown = formatting.in_zone(frame, "Asia/Tokyo")

    assert str(shown["at"].dt.tz) == "Asia/Tokyo"
    assert shown["at"].iloc[0] == frame["at"].iloc[0]
    assert shown[["text", "n"]].equals(frame[["text", "n"]])
    assert formatting.in_zone(frame, "UTC") is frame
