"""CSV downloads: nothing from the service runs as a formula, header or cell; UTF-8 with a BOM."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from dashboard.data import frames
from dashboard.present import csv as csv_export
from dashboard.present import tables
from tests.dashboard import records

RUNNABLE = [
    '=HYPERLINK("http://x")',
    "@SUM(A1)",
    "+1",
    "-2+3",
    "\tx",
    "\rx",
    "\nx",
    " =1+1",
    "  @SUM(A1)",
    " \t-3",
    "\uff1dHYPERLINK()",  # full-width =
    "\uff0b1",  # full-width +
    "\uff0d1",  # full-width -
    "\uff20SUM(A1)",  # full-width @
]
HARMLESS = ["plain", "a=b", "x-1", "mail@example.test", " leading space", "Ünïcödé 名前"]


def read(data: bytes) -> list[list[str]]:
    assert data.startswith(b"\xef\xbb\xbf"), "no UTF-8 byte order mark"
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


@pytest.mark.parametrize("text", RUNNABLE, ids=repr)
def test_a_runnable_cell_gets_a_leading_quote(text: str) -> None:
    rows = read(csv_export.to_csv(pd.DataFrame({"Message": [text]})))

    assert rows == [["Message"], ["'" + text]]


@pytest.mark.parametrize("text", HARMLESS, ids=repr)
def test_harmless_text_is_left_as_it_is(text: str) -> None:
    rows = read(csv_export.to_csv(pd.DataFrame({"Message": [text]})))

    assert rows == [["Message"], [text]]


def test_status_names_from_the_service_are_guarded_as_column_headers() -> None:
    hostile = {'=HYPERLINK("http://evil.example","x")': 2, "@SUM(A1)": 1, "\uff1dX": 1}
    executions = [records.execution(901, result_summary={"SUCCESS": 3, **hostile})]
    display = tables.executions_display(
        frames.executions_frame(executions), frames.status_counts_frame(executions)
    )
    assert set(hostile) <= set(display.columns)  # the page's table shows them as they are

    header, row = read(csv_export.to_csv(display))

    for status in hostile:
        assert "'" + status in header
        assert status not in header
    assert "SUCCESS" in header
    assert row[header.index("'@SUM(A1)")] == "1"


def test_non_ascii_names_survive_the_round_trip_to_a_spreadsheet() -> None:
    plans = frames.plans_frame([records.plan(plan_name="Prüfung · 検証", project_name="Café")])

    data = csv_export.to_csv(tables.plans_display(plans))

    header, row = read(data)
    assert header[0] == "Id"  # the BOM is not glued to the first label when read as UTF-8 BOM
    assert row[header.index("Plan")] == "Prüfung · 検証"
    assert row[header.index("Project")] == "Café"
    assert pd.read_csv(io.BytesIO(data))["Plan"].tolist() == ["Prüfung · 検証"]


# -- times in the viewer's zone, durations as seconds (issue 15) -------------------------------


def test_times_are_written_in_the_zone_named_in_their_header() -> None:
    display = pd.DataFrame(
        {
            "Id": [1, 2],
            "Start": pd.to_datetime(["2026-11-20 09:15", None], utc=True),
        }
    )

    header, first, second = read(csv_export.to_csv(display, tz="Europe/Istanbul"))

    assert header == ["Id", "Start (Europe/Istanbul)"]
    assert first == ["1", "2026-11-20 12:15:00+03:00"]
    assert second == ["2", ""]
    assert read(csv_export.to_csv(display))[0] == ["Id", "Start (UTC)"]


def test_durations_are_numbers_of_seconds_with_the_unit_in_the_header() -> None:
    display = pd.DataFrame({"Id": [1, 2, 3], "Duration": ["1 min 05 s", "\u2013", "850 ms"]})
    csv_export.with_seconds(display, {"Duration": [65.0, None, 0.85]})

    rows = read(csv_export.to_csv(display))

    assert rows == [["Id", "Duration (s)"], ["1", "65.0"], ["2", ""], ["3", "0.85"]]
    # A frame sorted after the seconds were noted keeps each row's own number.
    backwards = display.iloc[::-1]
    assert read(csv_export.to_csv(backwards))[1:] == [["3", "0.85"], ["2", ""], ["1", "65.0"]]
    # The page's table is unchanged: words.
    assert display["Duration"].tolist() == ["1 min 05 s", "\u2013", "850 ms"]


def test_the_executions_and_results_tables_note_their_seconds() -> None:
    executions = [records.execution(901, runtime=125_000), records.execution(902, runtime=None)]
    display = tables.executions_display(
        frames.executions_frame(executions), frames.status_counts_frame(executions)
    )

    rows = read(csv_export.to_csv(display))

    by_id = dict(zip(column(rows, "Id"), column(rows, "Duration (s)"), strict=True))
    assert by_id == {"901": "125.0", "902": ""}


def column(rows: list[list[str]], label: str) -> list[str]:
    index = rows[0].index(label)
    return [row[index] for row in rows[1:]]


def test_seconds_must_match_the_rows() -> None:
    with pytest.raises(ValueError, match="Duration: 1 durations for 2 rows"):
        csv_export.with_seconds(pd.DataFrame({"Duration": ["a", "b"]}), {"Duration": [1.0]})


def test_a_prepared_table_writes_its_csv_once_with_every_row() -> None:
    from dashboard.present.formatting import visible_frame
    from dashboard.present.tables import PreparedTable

    display = pd.DataFrame({"Plan": ["=cmd", "evil\u202eexe.txt", "ok"], "Runs": [1, 2, 3]})
    prepared = PreparedTable.of(display)

    first = prepared.csv()

    assert first == csv_export.to_csv(visible_frame(display))
    assert prepared.csv() is first  # made once, then kept
    assert len(prepared) == 3


def test_a_long_prepared_table_builds_its_shown_rows_then_the_whole_csv_on_demand() -> None:
    from dashboard.present.formatting import visible_frame
    from dashboard.present.tables import PreparedTable

    display = pd.DataFrame({"Plan": [f"plan {i}" for i in range(10)], "Runs": range(10)})
    built: list[int | None] = []

    def make(rows: int | None) -> pd.DataFrame:
        built.append(rows)
        return display if rows is None else display.head(rows)

    prepared = PreparedTable(make, rows=10, shown_rows=3)

    assert built == [3]
    assert len(prepared.display) == 3
    assert len(prepared) == 10
    assert prepared.csv() == csv_export.to_csv(visible_frame(display))
    assert built == [3, None]


def test_links_are_absolute_against_the_dashboard_s_address() -> None:
    """A spreadsheet has no page to resolve "results?execution=5" against: the file holds
    the address, behind the dashboard's path prefix; a missing link stays an empty cell."""
    display = pd.DataFrame(
        {"Results": ["results?execution=5", None, "https://elsewhere.test/log"], "n": [1, 2, 3]}
    )
    rows = read(
        csv_export.to_csv(
            display,
            links=("Results",),
            base_url="https://qa.example.test/dashboard/failures?range=7d",
        )
    )

    assert [row[0] for row in rows[1:]] == [
        "https://qa.example.test/dashboard/results?execution=5",
        "",
        "https://elsewhere.test/log",
    ]


def test_without_an_address_links_stay_as_they_are() -> None:
    display = pd.DataFrame({"Results": ["results?execution=5"]})

    assert read(csv_export.to_csv(display, links=("Results",)))[1] == ["results?execution=5"]


def test_a_list_column_is_written_as_its_numbers_not_a_python_list() -> None:
    display = pd.DataFrame({"Daily": [[98.5, 100.0, 97.0], []], "Plan": ["a", "b"]})

    frame = pd.read_csv(io.BytesIO(csv_export.to_csv(display)), encoding="utf-8-sig")

    assert list(frame["Daily"].fillna("")) == ["98.5 100.0 97.0", ""]


def test_numbers_noted_for_the_file_are_signed_numbers_with_their_unit_in_the_header() -> None:
    """The page shows "\u221212 %"; the file a number a spreadsheet computes with. A negative
    number is not guarded as a formula: it is a number."""
    display = pd.DataFrame({"Runtime trend": ["+5 %", "\u221212 %", "\u2013"]})
    csv_export.with_numbers(display, {"Runtime trend": [5.0, -12.0, None]}, unit="%")

    rows = read(csv_export.to_csv(display))
    frame = pd.read_csv(io.BytesIO(csv_export.to_csv(display)), encoding="utf-8-sig")

    assert rows == [["Runtime trend (%)"], ["5.0"], ["-12.0"], [""]]
    assert frame["Runtime trend (%)"].tolist()[:2] == [5.0, -12.0]


def test_moments_noted_for_the_file_are_times_in_the_viewer_s_zone() -> None:
    """A column the page words ("still red") holds the instants in the file."""
    display = pd.DataFrame({"Green again": ["20 Nov, 15:00", "still red"]})
    csv_export.with_moments(
        display, {"Green again": [pd.Timestamp("2026-11-20 12:00", tz="UTC"), None]}
    )

    rows = read(csv_export.to_csv(display, tz="Europe/Istanbul"))

    assert rows == [["Green again (Europe/Istanbul)"], ["2026-11-20 15:00:00+03:00"], [""]]


def test_plan_health_s_file_holds_numbers_not_a_python_list_nor_a_unicode_minus() -> None:
    from tests.present.test_health_view import view

    display = view().with_known(pd.Series(dtype="int64")).table.display
    shown = display.set_index("Plan")["Runtime trend"]
    frame = pd.read_csv(io.BytesIO(csv_export.to_csv(display)), encoding="utf-8-sig")
    by_plan = frame.set_index("Plan")

    assert "Runtime trend" not in frame.columns
    assert pd.api.types.is_float_dtype(by_plan["Runtime trend (%)"])
    for plan, words in shown.items():
        number = by_plan.loc[plan, "Runtime trend (%)"]
        if words == "\u2013":
            assert pd.isna(number)
        else:  # "+25 %" on the page, 25.0 in the file; "\u221212 %", -12.0
            assert number == float(words.replace("\u2212", "-").rstrip(" %"))
    daily = by_plan["Daily pass rate, 30 d"].astype(str)
    assert not daily.str.contains(r"[\[\]]").any()
    assert all(float(v) >= 0 for cell in daily for v in cell.split())
    assert "\u2212" not in csv_export.to_csv(display).decode("utf-8-sig")
