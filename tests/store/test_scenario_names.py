"""Scenario names and owners in the history store, on a DuckDB file and on PostgreSQL alike:
kept per company with who changed them and when, a save that changes nothing keeps its
author, one name changed alone, `clear` keeping them, and the names file read whole or refused
whole with every problem named by line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest

from dashboard.data.store import HistoryStore
from dashboard.data.store.scenario_names import (
    MAX_NAME,
    ScenarioName,
    ScenarioNamesRefused,
    names_csv,
    read_names_csv,
)

NOW = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
LATER = NOW + timedelta(hours=2)


def test_names_are_kept_per_company_with_who_and_when(store: HistoryStore) -> None:
    saved = store.save_scenario_names(
        1,
        [
            ScenarioName(402, "Checkout as guest", "ann@example.com", ("checkout", "smoke")),
            ScenarioName(403, "<b>Login</b>"),
        ],
        by="ann",
        now=NOW,
    )
    store.save_scenario_names(2, [ScenarioName(402, "Another company's name")], by="x", now=NOW)

    assert (saved.added, saved.changed, saved.unchanged) == (2, 0, 0)
    names = store.scenario_names(1).set_index("scenario_id")
    assert names.loc[402, "name"] == "Checkout as guest"
    assert names.loc[402, "owner"] == "ann@example.com"
    assert names.loc[402, "tags"] == "checkout, smoke"
    assert names.loc[403, "name"] == "<b>Login</b>"  # markup is kept as written: text
    assert pd.isna(names.loc[403, "owner"])
    assert set(names["changed_by"]) == {"ann"}
    assert (names["changed_at"] == pd.Timestamp(NOW)).all()
    assert store.scenario_names(2)["name"].tolist() == ["Another company's name"]


def test_a_save_changes_only_what_differs_and_says_how_many(store: HistoryStore) -> None:
    store.save_scenario_names(
        1, [ScenarioName(1, "One"), ScenarioName(2, "Two")], by="ann", now=NOW
    )

    saved = store.save_scenario_names(
        1,
        [ScenarioName(1, "One"), ScenarioName(2, "Two, renamed"), ScenarioName(3, "Three")],
        by="bob",
        now=LATER,
    )

    assert (saved.added, saved.changed, saved.unchanged) == (1, 1, 1)
    names = store.scenario_names(1).set_index("scenario_id")
    assert names["changed_by"].to_dict() == {1: "ann", 2: "bob", 3: "bob"}
    assert names.loc[1, "changed_at"] == pd.Timestamp(NOW)
    assert names.loc[2, "changed_at"] == pd.Timestamp(LATER)


def test_one_scenario_is_renamed_or_given_an_owner_alone(store: HistoryStore) -> None:
    store.save_scenario_names(1, [ScenarioName(7, "Search", "ann@example.com")], by="a", now=NOW)

    store.set_scenario_name(1, 7, owner="bob@example.com", by="bob", now=LATER)
    store.set_scenario_name(1, 8, name="Cart", by="bob", now=LATER)
    row = store.scenario_names(1).set_index("scenario_id").loc[7]
    assert (row["name"], row["owner"], row["changed_by"]) == ("Search", "bob@example.com", "bob")

    store.set_scenario_name(1, 7, owner="", by="cy", now=LATER)
    assert pd.isna(store.scenario_names(1).set_index("scenario_id").loc[7, "owner"])
    assert store.scenario_names(1)["name"].tolist() == ["Search", "Cart"]


def test_bad_names_are_refused_with_nothing_written(store: HistoryStore) -> None:
    with pytest.raises(ScenarioNamesRefused) as refused:
        store.save_scenario_names(
            1,
            [ScenarioName(1, "Fine"), ScenarioName(2, "Two", "not an address")],
            by="ann",
        )
    assert "not an e-mail address" in str(refused.value)
    with pytest.raises(ScenarioNamesRefused, match="has no name yet"):
        store.set_scenario_name(1, 9, owner="ann@example.com", by="ann")
    with pytest.raises(ScenarioNamesRefused, match="who you are"):
        store.save_scenario_names(1, [ScenarioName(1, "Fine")], by=" ")
    assert store.scenario_names(1).empty


def test_clear_keeps_the_names(store: HistoryStore) -> None:
    store.save_scenario_names(1, [ScenarioName(5, "Kept")], by="ann", now=NOW)
    store.clear()
    assert store.scenario_names(1)["name"].tolist() == ["Kept"]


def test_the_names_file_round_trips_through_the_store(store: HistoryStore) -> None:
    text = (
        "id,name,owner,tags\r\n"
        '402,Checkout as guest,ann@example.com,"checkout, smoke"\r\n'
        '403,"\'=HYPERLINK(""https://evil.example"")",,\r\n'
        "404,<script>alert(1)</script>,,\r\n"
        "405,'-1 items in cart,,\r\n"
    )
    read = read_names_csv(text)
    store.save_scenario_names(1, read.names, by="ann", now=NOW)

    names = store.scenario_names(1).set_index("scenario_id")["name"]
    assert names[403] == '=HYPERLINK("https://evil.example")'  # stored as the text it is
    assert names[404] == "<script>alert(1)</script>"
    assert names_csv(store.scenario_names(1)) == text


def test_a_hundred_thousand_names_are_saved_and_read(store: HistoryStore) -> None:
    rows = [
        ScenarioName(i, f"Scenario called {i}", f"o{i % 50}@example.com") for i in range(1, 100_001)
    ]

    saved = store.save_scenario_names(1, rows, by="bulk", now=NOW)

    assert saved.added == 100_000
    names = store.scenario_names(1)
    assert len(names) == 100_000
    assert names.set_index("scenario_id").loc[99_999, "name"] == "Scenario called 99999"


# -- the file, read before anything is written ----------------------------------------------------


def test_a_file_with_repeated_ids_is_refused_naming_the_lines() -> None:
    with pytest.raises(ScenarioNamesRefused) as refused:
        read_names_csv("id,name\n1,A\n2,B\n1,C\n3,D\n2,E\n")
    assert refused.value.problems[:2] == [
        "Scenario 1 is on lines 2 and 4.",
        "Scenario 2 is on lines 3 and 6.",
    ]
    assert refused.value.problems[-1] == "Nothing of the file was written."


def test_unknown_columns_are_refused_and_named() -> None:
    with pytest.raises(ScenarioNamesRefused, match='"team", "priority"'):
        read_names_csv("id,name,team,priority\n1,A,x,y\n")


def test_a_file_without_a_header_is_refused() -> None:
    with pytest.raises(ScenarioNamesRefused, match="header"):
        read_names_csv("402,Checkout as guest\n")
    with pytest.raises(ScenarioNamesRefused, match="header lacks name"):
        read_names_csv("id,owner\n402,ann@example.com\n")


def test_bad_owners_ids_and_empty_names_are_named_by_line() -> None:
    with pytest.raises(ScenarioNamesRefused) as refused:
        read_names_csv("id,name,owner\n1,A,ann@example.com\n2,B,bob at example\nx,C,\n4,,\n")
    said = " ".join(refused.value.problems)
    assert "Line 3: has an owner that is not an e-mail address" in said
    assert 'line 3: the owner "bob at example" is not an e-mail address' in said
    assert "Line 4: has no scenario id" in said
    assert "Line 5: the name is empty" in said


def test_long_names_are_cut_and_formulas_kept_as_text_and_both_are_said() -> None:
    read = read_names_csv(f"id,name\n1,{'x' * 250}\n2,=1+1\n3,@SUM(A1)\n4,Plain\n")

    assert len(read.names[0].name) == MAX_NAME
    assert read.names[0].name.endswith("…")
    assert [n.name for n in read.names[1:]] == ["=1+1", "@SUM(A1)", "Plain"]
    assert read.notes[0].startswith(f"The names on line 2 are longer than {MAX_NAME} characters")
    assert read.notes[1].startswith("The names on lines 3 and 4 begin with =, +, - or @")


def test_a_header_may_begin_with_a_byte_order_mark_and_any_case() -> None:
    read = read_names_csv("\ufeffID,Name,Owner\n402,Checkout,ann@example.com\n")
    assert read.names == (ScenarioName(402, "Checkout", "ann@example.com"),)


def test_a_name_is_one_line_and_tags_are_a_list() -> None:
    read = read_names_csv('id,name,tags\n1,"Two\nlines",", a,  b ,a,"\n')
    assert read.names[0].name == "Two lines"
    assert read.names[0].tags == ("a", "b")
