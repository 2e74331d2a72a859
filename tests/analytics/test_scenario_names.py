"""Scenarios by name: "Checkout as guest (402)" where a team named it, "Scenario 402" where
not, one label per distinct id, and the join that adds names and owners to any frame with a
scenario id, keeping its rows, order and index."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.scenario_names import (
    names_by_id,
    owners_by_id,
    scenario_label,
    scenario_labels,
    with_scenario_names,
)

NAMES = pd.DataFrame(
    {
        "scenario_id": pd.array([402, 403], dtype="int64"),
        "name": pd.array(["Checkout as guest", "<b>Login</b>"], dtype="str"),
        "owner": pd.array(["ann@example.com", None], dtype="str"),
    }
)


def test_a_named_scenario_reads_its_name_and_id_and_an_unnamed_one_its_number() -> None:
    names = names_by_id(NAMES)

    assert scenario_label(402, names) == "Checkout as guest (402)"
    assert scenario_label(999, names) == "Scenario 999"
    assert scenario_label(403, names) == "<b>Login</b> (403)"  # text: the face escapes it
    assert owners_by_id(NAMES) == {402: "ann@example.com"}


def test_labels_of_a_column_keep_missing_ids_missing() -> None:
    ids = pd.Series(pd.array([402, None, 7, 402], dtype="Int64"), index=[10, 11, 12, 13])

    labels = scenario_labels(ids, names_by_id(NAMES))

    assert labels.index.tolist() == [10, 11, 12, 13]
    assert labels.tolist()[0] == "Checkout as guest (402)"
    assert pd.isna(labels.tolist()[1])
    assert labels.tolist()[2:] == ["Scenario 7", "Checkout as guest (402)"]


def test_the_join_adds_name_and_owner_and_keeps_every_row() -> None:
    frame = pd.DataFrame(
        {"scenario_id": pd.array([403, 1, 402, None], dtype="Int64"), "failures": [1, 2, 3, 4]},
        index=[5, 6, 7, 8],
    )

    joined = with_scenario_names(frame, NAMES)

    assert joined.index.tolist() == [5, 6, 7, 8]
    assert joined["failures"].tolist() == [1, 2, 3, 4]
    assert joined["scenario_name"].tolist()[0] == "<b>Login</b>"
    assert joined["scenario_name"].isna().tolist() == [False, True, False, True]
    assert joined["scenario_owner"].tolist()[2] == "ann@example.com"
    assert joined["scenario_owner"].isna().tolist() == [True, True, False, True]


def test_the_join_with_no_names_adds_empty_columns() -> None:
    frame = pd.DataFrame({"scenario_id": pd.array([1, 2], dtype="Int64")})

    joined = with_scenario_names(frame, NAMES.iloc[0:0])

    assert joined["scenario_name"].isna().all()
    assert list(joined.columns) == ["scenario_id", "scenario_name", "scenario_owner"]
