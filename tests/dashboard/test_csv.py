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
