"""Environment labels, the scenario x environment matrix, concentration and version changes."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dashboard.analytics.environment_names import (
    environment_key,
    environment_label,
    label_names,
    version_text,
    versioned_label,
    with_environments,
    with_version,
)
from dashboard.analytics.environments import (
    environment_matrix,
    environment_report,
    environment_specific,
    heatmap,
    version_changes,
)
from tests.analytics.frames import (
    CHROME,
    DESKTOP,
    FIREFOX,
    IPHONE,
    execution,
    executions,
    result,
    results,
)

LEVEL = {"P": "SUCCESS", "F": "FAILURE", "E": "ERROR", "W": "WARNING", "N": "WAITING"}


def runs(scenario: int, env: dict, pattern: str, first: int = 1) -> list[dict]:
    return [
        result(
            first + i,
            scenario,
            LEVEL[ch],
            env,
            start=pd.Timestamp("2025-03-01 10:00", tz="UTC") + pd.Timedelta(days=first + i),
        )
        for i, ch in enumerate(pattern)
        if ch != "."
    ]


@pytest.mark.parametrize(
    ("parts", "label"),
    [
        (("macOS", "SAFARI", "17", "safari", False), "SAFARI / macOS"),
        (("iOS", None, None, "IPHONE 8", True), "IPHONE 8 / iOS"),
        (("Android", "CHROME", None, "Galaxy_Note20", True), "Galaxy_Note20 / Android"),
        (("iOS", None, None, "IPHONE 8", None), "IPHONE 8 / iOS"),  # flag missing: a phone
        (("WIN11", "CHROME", None, "chrome", False), "CHROME / WIN11"),
        ((None, "FIREFOX", "128", None, False), "FIREFOX"),
        ((None, None, None, None, None), "(unknown environment)"),
        (("  Windows  11 ", "EDGE", "120", "edge", pd.NA), "EDGE / Windows 11"),
    ],
)
def test_environment_labels(parts: tuple, label: str) -> None:
    assert environment_label(*parts) == label


def test_keys_tell_apart_what_labels_could_merge_and_are_stable() -> None:
    desktop = environment_key("iOS", "SAFARI", "17", "safari", False)
    phone = environment_key("iOS", None, None, "SAFARI 17", True)
    assert desktop != phone
    assert environment_key("macOS", "SAFARI", "17", "x", False) == environment_key(
        "macOS", "SAFARI", "17", "y", False
    )  # the lower-case desktop device name is not part of the environment


def test_an_environment_s_identity_is_unchanged_by_its_browser_version() -> None:
    """#38: OS x browser (x device on a phone) is the environment; the version is beside it."""
    old = ("Windows 10", "CHROME", "130", "chrome", False)
    new = ("Windows 10", "CHROME", "131", "chrome", False)
    assert environment_key(*old) == environment_key(*new)
    assert environment_label(*old) == environment_label(*new) == "CHROME / Windows 10"
    assert environment_key(*old) != environment_key("Windows 11", "CHROME", "130", "chrome", False)
    assert environment_key(*old) != environment_key("Windows 10", "EDGE", "130", "edge", False)
    assert versioned_label(*new) == "CHROME 131 / Windows 10"
    assert with_version("CHROME / Windows 10", "131") == "CHROME / Windows 10 (131)"
    assert with_version("CHROME / Windows 10", "130", "131") == "CHROME / Windows 10 (130 -> 131)"
    assert with_version("CHROME / Windows 10", "131", "131") == "CHROME / Windows 10 (131)"
    assert with_version("IPHONE 8 / iOS", None, None) == "IPHONE 8 / iOS"
    assert version_text(None, "131") == "(131)"


@pytest.mark.parametrize(
    ("label", "names"),
    [
        ("CHROME / Windows 10", True),  # the label now
        ("CHROME 130 / Windows 10", True),  # a label made before #38, any version
        ("CHROME 131 / Windows 10", True),
        ("CHROME 1.2-beta / Windows 10", True),
        ("CHROME 131 / Windows 11", False),  # another OS
        ("EDGE 131 / Windows 10", False),  # another browser
        ("CHROMEX / Windows 10", False),
        ("CHROME / x / Windows 10", False),
        ("", False),
    ],
)
def test_a_label_made_with_a_version_still_names_the_environment(label: str, names: bool) -> None:
    assert label_names(label, "Windows 10", "CHROME", "131", "chrome", False) is names


def test_a_phone_s_label_is_its_device_and_names_only_itself() -> None:
    assert label_names("IPHONE 8 / iOS", "iOS", None, None, "IPHONE 8", True)
    assert not label_names("IPHONE 9 / iOS", "iOS", None, None, "IPHONE 8", True)


def test_with_environments_labels_each_row() -> None:
    frame = results(
        [
            result(1, 1, "SUCCESS", DESKTOP),
            result(1, 2, "SUCCESS", IPHONE),
            result(2, 1, "FAILURE", DESKTOP),
        ]
    )
    labelled = with_environments(frame)
    assert labelled["environment"].tolist() == [
        "SAFARI / macOS",
        "IPHONE 8 / iOS",
        "SAFARI / macOS",
    ]
    assert labelled["env_key"].iloc[0] == labelled["env_key"].iloc[2]


def test_a_few_rows_are_named_as_many_rows_are() -> None:
    """Up to 64 rows are named row by row, more through a groupby: each row gets the same
    label, key and categories either way, missing parts included."""
    bare = {"os": None, "browser": None, "browser_version": None, "device": None}
    environments = [DESKTOP, IPHONE, CHROME, FIREFOX, bare]
    rows = [result(i, i % 7, "FAILURE", environments[i % 5]) for i in range(1, 131)]
    many = with_environments(results(rows))
    few = with_environments(results(rows[:10]))
    for column in ("environment", "env_key"):
        assert few[column].tolist() == many[column].tolist()[:10]
        assert set(few[column].cat.categories) == set(few[column].tolist())
    assert "(unknown environment)" in few["environment"].tolist()


def planted() -> pd.DataFrame:
    rows = []
    rows += (
        runs(1, DESKTOP, "F" * 20) + runs(1, CHROME, "P" * 20) + runs(1, FIREFOX, "P" * 19 + "F")
    )
    rows += runs(2, DESKTOP, "F" * 20) + runs(2, CHROME, "F" * 20)  # broken everywhere
    rows += runs(3, DESKTOP, "FF") + runs(3, CHROME, "PP")  # too few runs to say
    rows += runs(4, DESKTOP, "FFFFP") + runs(4, IPHONE, "FFFFF") + runs(4, CHROME, "PPPPP")
    rows += runs(5, CHROME, "PWN.P")
    return results(rows)


def test_the_matrix_counts_cells_per_scenario_and_environment() -> None:
    matrix = environment_matrix(planted()).set_index(["scenario_id", "environment"])
    safari = matrix.loc[(1, "SAFARI / macOS")]
    assert (safari["executions"], safari["runs"], safari["failed"]) == (20, 20, 20)
    assert safari["pass_rate"] == 0.0
    firefox = matrix.loc[(1, "FIREFOX / Linux")]
    assert firefox["pass_rate"] == pytest.approx(19 / 20)
    odd = matrix.loc[(5, "CHROME / Windows 11")]
    assert (odd["executions"], odd["runs"], odd["warned"], odd["no_verdict"]) == (4, 2, 1, 1)
    assert odd["pass_rate"] == pytest.approx(2 / 3)


def test_the_matrix_keys_an_upgraded_browser_as_one_environment_with_its_versions() -> None:
    chrome_135 = {**CHROME, "browser_version": "135"}
    matrix = environment_matrix(
        results(runs(1, CHROME, "PP") + runs(1, chrome_135, "FF", first=3) + runs(1, IPHONE, "P"))
    ).set_index("environment")

    assert sorted(matrix.index) == ["CHROME / Windows 11", "IPHONE 8 / iOS"]
    chrome = matrix.loc["CHROME / Windows 11"]
    assert (chrome["runs"], chrome["passed"], chrome["failed"]) == (4, 2, 2)
    assert chrome["versions"] == "(134 -> 135)"
    assert matrix.loc["IPHONE 8 / iOS", "versions"] == ""


def test_a_retried_result_counts_once_per_execution() -> None:
    frame = results([result(1, 1, "FAILURE", CHROME), result(1, 1, "SUCCESS", CHROME)])
    cell = environment_matrix(frame).iloc[0]
    assert (cell["executions"], cell["failed"], cell["passed"]) == (1, 1, 0)


def test_environment_specific_failures_are_flagged_and_broken_ones_are_not() -> None:
    specific = environment_specific(environment_matrix(planted()))
    assert specific[["scenario_id", "environment"]].values.tolist() == [
        [1, "SAFARI / macOS"],
        [4, "IPHONE 8 / iOS"],
        [4, "SAFARI / macOS"],
    ]
    one = specific.iloc[0]
    assert (one["failed"], one["runs"]) == (20, 20)
    assert (one["elsewhere_passed"], one["elsewhere_runs"]) == (39, 40)
    assert one["elsewhere_environments"] == 2
    assert one["failing_environments"] == 1
    four = specific[specific["scenario_id"] == 4].iloc[1]
    assert four["fail_share"] == pytest.approx(0.8)  # at the threshold counts
    assert four["failing_environments"] == 2
    assert (four["elsewhere_passed"], four["elsewhere_runs"]) == (5, 5)


def test_the_thresholds_are_parameters() -> None:
    matrix = environment_matrix(planted())
    lenient = environment_specific(matrix, min_runs=2)
    assert 3 in lenient["scenario_id"].tolist()
    # At 90 %, Safari (4 of 5) is no longer failing for scenario 4, and counted as elsewhere
    # it passes too rarely for the phone's failures to look environment-specific.
    strict = environment_specific(matrix, fail_share=0.9)
    assert strict["scenario_id"].tolist() == [1]
    with pytest.raises(ValueError, match="fractions"):
        environment_specific(matrix, fail_share=1.5)


def test_the_heat_map_grid_of_one_plan() -> None:
    grid = heatmap(environment_matrix(planted()))
    assert list(grid.columns) == sorted(grid.columns)
    assert grid.loc[1, "SAFARI / macOS"] == 0.0
    assert math.isnan(grid.loc[2, "FIREFOX / Linux"])
    two_plans = environment_matrix(
        results([result(1, 1, "SUCCESS"), result(2, 1, "SUCCESS", plan_id=2)])
    )
    with pytest.raises(ValueError, match="one plan"):
        heatmap(two_plans)


def test_failures_that_started_with_a_new_browser_version() -> None:
    chrome_135 = {**CHROME, "browser_version": "135"}
    firefox_129 = {**FIREFOX, "browser_version": "129"}
    rows = []
    rows += runs(1, CHROME, "PPPPP", first=1) + runs(1, chrome_135, "FFFF", first=6)
    rows += runs(2, CHROME, "PPPPP", first=1) + runs(2, chrome_135, "FFFFP", first=6)
    rows += runs(3, CHROME, "PPPPP", first=1) + runs(3, chrome_135, "PPPP", first=6)
    rows += runs(4, CHROME, "FFFFF", first=1) + runs(4, chrome_135, "FFFF", first=6)  # was red
    rows += runs(1, FIREFOX, "PPP", first=1) + runs(1, firefox_129, "FF", first=4)  # too few
    rows += runs(1, IPHONE, "PPP", first=1) + runs(1, IPHONE, "FFF", first=4)  # no versions
    changes = version_changes(results(rows))
    assert len(changes) == 1
    change = changes.iloc[0]
    assert (change["previous_version"], change["version"]) == ("134", "135")
    assert change["environment"] == "CHROME / Windows 11"  # one environment, two versions
    assert change["previous_environment"] == "CHROME / Windows 11"
    assert change["scenario_ids"] == (1, 2)
    assert (change["failed"], change["runs"]) == (8, 9)
    assert (change["previous_passed"], change["previous_runs"]) == (10, 10)
    assert change["first_seen"] == pd.Timestamp("2025-03-07 10:00", tz="UTC")


def test_phones_only_have_no_version_changes() -> None:
    assert version_changes(results(runs(1, IPHONE, "PPPFFF"))).empty
    assert version_changes(results([])).empty


def test_the_report_carries_its_basis() -> None:
    ex = executions(
        [execution(i, 1, f"2025-03-{i:02d} 10:00") for i in range(1, 21)]
        + [execution(21, 1, "2025-03-21 10:00", "running")]
    )
    report = environment_report(ex, planted())
    assert (report.basis.executions, report.basis.running) == (21, 1)
    assert report.basis.with_results == 20
    assert report.specific["scenario_id"].tolist() == [1, 4, 4]
    assert report.version_changes.empty
