"""Failures grouped by what their message says, once the details that vary are stripped.

Normalisation (in this order, so an id inside quotes goes with the quotes):
whitespace runs become one space; quoted values become "{…}" / '{…}' (a quote counts only
where it opens after a non-word character, so "didn't" stays); UUIDs become {id}; 0x-hex and
long hex strings mixing letters and digits (session ids, hashes) become {hex}; runs of 6 or more
digits become {id}; other numbers (with decimals) become {n}. Digits inside a word (WIN10,
Galaxy_Note20, v1.2) are kept: they name things, they do not vary between runs.
"SessionNotCreatedException: device did not respond within 30s" reads
"SessionNotCreatedException: device did not respond within {n}s".

A group counts failed results (FAILURE or ERROR; every retry is a failure), and keeps its
result ids so a page can lead to them. Results without a message form the group "".
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import pandas as pd

from dashboard.analytics.basis import Basis, execution_basis
from dashboard.analytics.environment_names import ENVIRONMENT_COLUMNS, with_environments
from dashboard.analytics.outcomes import FAIL, level_outcomes
from dashboard.columns.schemas import UTC_TIME
from dashboard.columns.shapes import require_columns, typed

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\s+"), " "),
    (re.compile(r'(?<!\w)"[^"]*"'), '"{…}"'),
    (re.compile(r"(?<!\w)'[^']*'(?!\w)"), "'{…}'"),
    (re.compile(r"\b[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}\b"), "{id}"),
    (re.compile(r"\b0[xX][0-9a-fA-F]+\b"), "{hex}"),
    (re.compile(r"\b(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,}\b"), "{hex}"),
    (re.compile(r"(?<![A-Za-z0-9_.])\d{6,}(?![0-9])"), "{id}"),
    (re.compile(r"(?<![A-Za-z0-9_.])\d+(?:\.\d+)*"), "{n}"),
)
# What a text must hold for each rule to change it: a rule is skipped when its text is absent
# (most messages have no quotes, UUIDs or 0x-numbers), which gives the same signature sooner.
_DIGIT = re.compile(r"\d")
_NEEDS: tuple[tuple[str, ...] | None, ...] = (
    None,
    ('"',),
    ("'",),
    ("-",),
    ("0x", "0X"),
    None,  # the rules from here on need a digit: skipped together when there is none
    None,
    None,
)
_FIRST_DIGIT_RULE = 5
SIGNATURES_CACHED = 16_384
"""Distinct messages whose signatures are kept (least recently used first out): pages and
marks ask for the same messages again and again, and a signature costs eight regexes."""

GROUP_COLUMNS: dict[str, str] = {
    "signature": "str",  # the normalised message; "" for failures without one
    "failures": "int64",
    "scenarios": "int64",  # distinct (plan, scenario)
    "environments": "int64",
    "executions": "int64",
    "plans": "int64",
    "first_seen": UTC_TIME,
    "last_seen": UTC_TIME,
    "sample_message": "str",  # the latest failure's message as it was
    "scenario_ids": "object",  # tuple, ascending
    "environment_labels": "object",  # tuple, ascending
    "execution_ids": "object",  # tuple, ascending
    "result_ids": "object",  # tuple, ascending
}


@functools.lru_cache(maxsize=SIGNATURES_CACHED)
def normalise_message(message: str) -> str:
    """One message's signature (module docstring)."""
    text = message
    for position, (pattern, placeholder) in enumerate(_RULES):
        if position == _FIRST_DIGIT_RULE and not _DIGIT.search(text):
            break
        needs = _NEEDS[position]
        if needs is not None and not any(part in text for part in needs):
            continue
        text = pattern.sub(placeholder, text)
    return text.strip()


def normalise_messages(messages: pd.Series) -> pd.Series:
    """Every message's signature, computed once per distinct message; missing stays missing."""
    codes, uniques = pd.factorize(messages, use_na_sentinel=True)
    table = pd.Series([normalise_message(str(u)) for u in uniques] + [pd.NA], dtype="str")
    return pd.Series(table.to_numpy()[codes], index=messages.index, dtype="str")


@dataclass(frozen=True, eq=False)
class FailureGroups:
    """groups: `GROUP_COLUMNS`, largest first; basis: the executions and results read."""

    groups: pd.DataFrame
    basis: Basis


def failure_groups(executions: pd.DataFrame, results: pd.DataFrame) -> FailureGroups:
    """Failed results of `executions` (the window's), grouped by message signature. Ordered
    by failures, then latest seen, then signature."""
    require_columns(executions, ("execution_id", "start", "finished"), "failure groups")
    require_columns(
        results,
        (
            "result_id",
            "execution_id",
            "plan_id",
            "scenario_id",
            "level",
            "message",
            "start",
            *ENVIRONMENT_COLUMNS,
        ),
        "failure groups",
    )
    own = results[results["execution_id"].isin(executions["execution_id"])]
    basis = execution_basis(executions, results_of=own["execution_id"], results=len(own))
    failed = own[level_outcomes(own["level"]) == FAIL]
    if failed.empty:
        return FailureGroups(typed(failed, GROUP_COLUMNS), basis)
    failed = with_environments(failed)
    failed["signature"] = normalise_messages(failed["message"]).fillna("")
    failed = failed.sort_values(["start", "result_id"], kind="stable", na_position="first")
    failed["_scenario"] = failed.groupby(["plan_id", "scenario_id"], dropna=False).ngroup()
    grouped = failed.groupby("signature", sort=False)
    groups = grouped.agg(
        failures=("result_id", "size"),
        scenarios=("_scenario", "nunique"),
        environments=("env_key", "nunique"),
        executions=("execution_id", "nunique"),
        plans=("plan_id", "nunique"),
        first_seen=("start", "min"),
        last_seen=("start", "max"),
        sample_message=("message", "last"),
        scenario_ids=("scenario_id", _ascending),
        environment_labels=("environment", _ascending),
        execution_ids=("execution_id", _ascending),
        result_ids=("result_id", _ascending),
    ).reset_index()
    groups = groups.sort_values(
        ["failures", "last_seen", "signature"],
        ascending=[False, False, True],
        kind="stable",
        na_position="last",
    )
    return FailureGroups(typed(groups, GROUP_COLUMNS), basis)


def _ascending(values: pd.Series) -> tuple[object, ...]:
    distinct = pd.unique(values.dropna())
    if values.dtype.kind in "iu" or str(values.dtype) in ("Int64", "int64"):
        return tuple(sorted(int(v) for v in distinct))
    return tuple(sorted(str(v) for v in distinct))
