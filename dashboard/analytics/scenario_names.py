"""Scenarios by name: the one lookup every face uses to call a scenario.

The service knows scenarios by number; a team names them (`python -m dashboard scenarios
import`, kept in the history store). A named scenario reads "Checkout as guest (402)", the id
kept beside the name so that a link, a search or a ticket still finds it; an unnamed one reads
"Scenario 402", as it always did. Names are data: a face shows them as text, never as markup.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from dashboard.columns.shapes import require_columns

NAME_COLUMNS = ("scenario_id", "name", "owner")
"""What a frame of names must hold (the store's `SCENARIO_NAME_COLUMNS` has them)."""


def scenario_label(scenario_id: int, names: Mapping[int, str]) -> str:
    """ "Checkout as guest (402)", or "Scenario 402" when `names` has none for it."""
    name = names.get(int(scenario_id))
    return f"{name} ({int(scenario_id)})" if name else f"Scenario {int(scenario_id)}"


def names_by_id(names: pd.DataFrame) -> dict[int, str]:
    """A frame of names (`NAME_COLUMNS`) as the mapping `scenario_label` takes."""
    require_columns(names, ("scenario_id", "name"), "scenario names")
    return dict(
        zip(names["scenario_id"].astype("int64").tolist(), names["name"].tolist(), strict=True)
    )


def owners_by_id(names: pd.DataFrame) -> dict[int, str]:
    """The scenarios that have an owner, by id: their owner's address."""
    require_columns(names, ("scenario_id", "owner"), "scenario owners")
    owned = names[names["owner"].notna()]
    return dict(
        zip(owned["scenario_id"].astype("int64").tolist(), owned["owner"].tolist(), strict=True)
    )


def scenario_labels(scenario_ids: pd.Series, names: Mapping[int, str]) -> pd.Series:
    """`scenario_label` of each id of `scenario_ids` (computed once per distinct id); a
    missing id stays missing."""
    codes, uniques = pd.factorize(scenario_ids, use_na_sentinel=True)
    table = [scenario_label(int(u), names) for u in uniques] + [pd.NA]
    return pd.Series(pd.array(table, dtype="str")[codes], index=scenario_ids.index, dtype="str")


def with_scenario_names(frame: pd.DataFrame, names: pd.DataFrame) -> pd.DataFrame:
    """`frame` (with a `scenario_id` column) plus `scenario_name` and `scenario_owner` columns,
    missing where a scenario has no name or no owner. Rows, their order and index are kept."""
    require_columns(frame, ("scenario_id",), "scenario names")
    require_columns(names, NAME_COLUMNS, "scenario names")
    by_id = names.drop_duplicates("scenario_id").set_index(
        names.drop_duplicates("scenario_id")["scenario_id"].astype("int64")
    )
    ids = frame["scenario_id"]
    out = frame.copy()
    known = ids.notna()
    lookup = ids.where(known, -1).astype("int64")
    out["scenario_name"] = pd.Series(
        by_id["name"].reindex(lookup.to_numpy()).to_numpy(), index=frame.index, dtype="str"
    )
    out["scenario_owner"] = pd.Series(
        by_id["owner"].reindex(lookup.to_numpy()).to_numpy(), index=frame.index, dtype="str"
    )
    return out
