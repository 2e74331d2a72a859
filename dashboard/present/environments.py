"""The environments page's words and tables: environment-specific scenarios as sentences ("fails
on SAFARI / macOS in 20 of 20 runs, passes elsewhere"), version changes ("failures started with
CHROME / Windows 11 (134 -> 135)"), and the matrix in long form for its CSV. An environment is
named without its browser version, which is shown beside it (#38)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from dashboard.analytics.environment_names import with_version
from dashboard.analytics.environments import FAIL_SHARE, MIN_RUNS, PASS_SHARE
from dashboard.present.formatting import plural
from dashboard.present.known import ticket_label

ScenarioLink = Callable[[int, int], str]


def specific_sentence(row: pd.Series) -> str:
    """ "fails on SAFARI / macOS in 20 of 20 runs, passes elsewhere (57 of 58 runs on 3
    environments)"."""
    return (
        f"fails on {row['environment']} in {int(row['failed'])} of "
        f"{plural(int(row['runs']), 'run')}, passes elsewhere ({int(row['elsewhere_passed'])} of "
        f"{plural(int(row['elsewhere_runs']), 'run')} on "
        f"{plural(int(row['elsewhere_environments']), 'environment')})"
    )


def specific_sentences(specific: pd.DataFrame) -> list[str]:
    """One sentence per flagged pair: "Scenario 12 fails on SAFARI / macOS in ..."."""
    return [
        f"Scenario {int(row['scenario_id'])} {specific_sentence(row)}"
        for _, row in specific.iterrows()
    ]


def specific_caption(basis_text: str) -> str:
    """What the environment-specific section was computed from, and its rule."""
    return (
        basis_text + f". Flagged: a scenario that failed in at least {FAIL_SHARE:.0%} of at least "
        f"{MIN_RUNS} runs on an environment and passed in at least {PASS_SHARE:.0%} of its runs "
        "elsewhere."
    )


def versions_caption(basis_text: str) -> str:
    return (
        basis_text + ". Desktop browsers: a version that failed where the version seen before "
        "passed."
    )


def matrix_caption(basis_text: str) -> str:
    return basis_text + ". Hover a cell for its counts; grey: the scenario did not run there."


def specific_display(specific: pd.DataFrame, scenario_link: ScenarioLink) -> pd.DataFrame:
    """Flagged scenario x environment pairs, most concentrated first."""
    return pd.DataFrame(
        {
            "Scenario": specific["scenario_id"].astype("int64"),
            "Environment": specific["environment"].astype("str"),
            "Failed": specific["failed"].astype("int64"),
            "Runs": specific["runs"].astype("int64"),
            "Passed elsewhere": specific["elsewhere_passed"].astype("int64"),
            "Runs elsewhere": specific["elsewhere_runs"].astype("int64"),
            "History": [
                scenario_link(int(p), int(s))
                for p, s in zip(specific["plan_id"], specific["scenario_id"], strict=True)
            ],
            # Last: the page says each finding above the table; the counts are in view.
            "Finding": [specific_sentence(row) for _, row in specific.iterrows()],
        }
    )


def version_sentence(row: pd.Series) -> str:
    """ "failures started with CHROME / Windows (134 -> 135): 3 scenarios, 12 of 12 runs
    failed; they passed 11 of 12 runs on 134"."""
    changed = with_version(row["environment"], row["previous_version"], row["version"])
    return (
        f"failures started with {changed}: "
        f"{plural(int(row['scenarios']), 'scenario')}, {int(row['failed'])} of "
        f"{plural(int(row['runs']), 'run')} failed; they passed {int(row['previous_passed'])} of "
        f"{plural(int(row['previous_runs']), 'run')} on {row['previous_version']}"
    )


def version_display(changes: pd.DataFrame) -> pd.DataFrame:
    """Environments whose failures started with a new browser version, newest first."""
    return pd.DataFrame(
        {
            "Environment": [
                with_version(e, p, v)
                for e, p, v in zip(
                    changes["environment"],
                    changes["previous_version"],
                    changes["version"],
                    strict=True,
                )
            ],
            "Previous": changes["previous_version"].astype("str"),  # the version it passed on
            "Finding": [version_sentence(row) for _, row in changes.iterrows()],
            "Scenarios": [", ".join(str(i) for i in ids) for ids in changes["scenario_ids"]],
            "First seen": changes["first_seen"],
        }
    )


def matrix_display(matrix: pd.DataFrame, scenario_link: ScenarioLink) -> pd.DataFrame:
    """The heat map's cells in long form (its CSV): one row per scenario and environment."""
    return pd.DataFrame(
        {
            "Scenario": matrix["scenario_id"].astype("int64"),
            "Environment": matrix["environment"].astype("str"),
            "Pass rate": (matrix["pass_rate"] * 100).round(1),
            "Passed": matrix["passed"].astype("int64"),
            "Failed": matrix["failed"].astype("int64"),
            "Warnings": matrix["warned"].astype("int64"),
            "No verdict": matrix["no_verdict"].astype("int64"),
            "Executions": matrix["executions"].astype("int64"),
            **_known_columns(matrix),
            "History": [
                scenario_link(int(p), int(s))
                for p, s in zip(matrix["plan_id"], matrix["scenario_id"], strict=True)
            ],
            # The browser's versions in the window, "(134 -> 135)": last, so the columns a lead
            # needs (through History) stay in view at 1440x900.
            **({"Versions": matrix["versions"].astype("str")} if "versions" in matrix else {}),
        }
    ).reset_index(drop=True)


def _known_columns(matrix: pd.DataFrame) -> dict[str, object]:
    """Unresolved and Known failed cells, the pass rate without known failures and the mark's
    ticket, when the matrix has them (`known_figures.matrix_with_known`)."""
    if "known" not in matrix.columns:
        return {}
    return {
        "Unresolved": matrix["unresolved"].astype("int64"),
        "Known": matrix["known"].astype("int64"),
        "Pass rate without known": (matrix["pass_rate_without_known"] * 100).round(1),
        "Mark": [
            ticket_label(t) if k else ""
            for t, k in zip(matrix["ticket"], matrix["known"], strict=True)
        ],
    }
