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

**Per scenario by default** (#38): a group is one signature in one scenario of one plan, so its
age, first seen and time to green describe one problem: the same message in three scenarios is
three groups. `Grouping.ACROSS` keeps the older view, one group per signature whatever the
scenario (`?groups=across`). The team's rules (`analytics.group_rules`, applied before grouping
and given as `ruled`) may merge failures into a group of their own, keyed `rule:<id>` and named
by the rule: such a group is the rule's, whatever the scenario (the rule's own scenario, plan
and environment patterns scope it), and its category rules name each group's category. Group
marks still match failures by signature (`analytics.marks`), whatever the grouping.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
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


class Grouping(StrEnum):
    """How failures are grouped (`?groups=`): per scenario (the default) or across them."""

    SCENARIO = "scenario"
    ACROSS = "across"

    @property
    def label(self) -> str:
        return "Per scenario" if self is Grouping.SCENARIO else "Across scenarios"


MERGED_PREFIX = "rule:"
"""The key of a group a merge rule made: `rule:<rule id>` (`analytics.group_rules`)."""

GROUP_COLUMNS: dict[str, str] = {
    "group": "str",  # its key: the signature, or rule:<id> when a merge rule made it
    "label": "str",  # what it is called: the signature, or the merge rule's label
    "plan_id": "Int64",  # the one plan of its failures (per scenario, always); else missing
    "scenario_id": "Int64",  # the one scenario of its failures; else missing
    "category": "str",  # the team's categories of its failures, most first; missing: none
    "signature": "str",  # the normalised message (the latest failure's); "" for none
    "signatures": "object",  # tuple, ascending: every signature of its failures
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


def failure_groups(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    *,
    grouping: Grouping = Grouping.SCENARIO,
    ruled: pd.DataFrame | None = None,
    ruling: Callable[[pd.DataFrame], pd.DataFrame | None] | None = None,
) -> FailureGroups:
    """Failed results of `executions` (the window's), grouped by message signature and, per
    scenario, by plan and scenario (module docstring). `ruled`: the team's rules applied to
    them (`group_rules.apply_rules`: each failed result's `group`, `group_label`, `category`
    and `merge_rule` by `result_id`; None: no rule); or `ruling`, the rules as a function of
    the failed results this cuts, their environments named (`group_rules.grouped`: the
    window's results are cut and their environments named once, not once more for the rules).
    Ordered by failures, then latest seen, then label, plan and scenario."""
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
    if ruling is not None:
        ruled = ruling(failed)
    failed = with_groups(failed, ruled)
    failed = failed.sort_values(["start", "result_id"], kind="stable", na_position="first")
    failed["_scenario"] = failed.groupby(["plan_id", "scenario_id"], dropna=False).ngroup()
    failed, keys = _keyed(failed, grouping)
    # Each group once, by number: the aggregates below are vectorised over the numbers (a
    # window has tens of thousands of groups per scenario; a Python function per group and
    # column would take minutes).
    codes = failed.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    count = int(codes.max()) + 1
    failed = failed.assign(_group=codes)
    grouped = failed.groupby("_group", sort=True)
    groups = grouped.agg(
        group=("group", "first"),
        label=("group_label", "last"),
        signature=("signature", "last"),
        failures=("result_id", "size"),
        scenarios=("_scenario", "nunique"),
        environments=("env_key", "nunique"),
        executions=("execution_id", "nunique"),
        plans=("plan_id", "nunique"),
        first_seen=("start", "min"),
        last_seen=("start", "max"),
        sample_message=("message", "last"),
    ).reset_index(drop=True)
    for column in ("plan_id", "scenario_id"):
        one = grouped[column].nunique().to_numpy() == 1
        groups[column] = grouped[column].first().astype("Int64").where(one).to_numpy()
    groups["category"] = _categories(codes, failed["category"], count)
    groups["signatures"] = _ascending(codes, failed["signature"], count)
    groups["scenario_ids"] = _ascending(codes, failed["scenario_id"], count)
    groups["environment_labels"] = _ascending(codes, failed["environment"], count)
    groups["execution_ids"] = _ascending(codes, failed["execution_id"], count)
    groups["result_ids"] = _ascending(codes, failed["result_id"], count)
    groups = groups.sort_values(
        ["failures", "last_seen", "label", "plan_id", "scenario_id"],
        ascending=[False, False, True, True, True],
        kind="stable",
        na_position="last",
    )
    return FailureGroups(typed(groups, GROUP_COLUMNS), basis)


RULED_INPUT = ("group", "group_label", "category", "merge_rule")
"""What a failure carries once the team's rules are applied (`group_rules.RULED_COLUMNS`)."""


def with_groups(failed: pd.DataFrame, ruled: pd.DataFrame | None) -> pd.DataFrame:
    """Failed results with their `signature` and, after the team's rules (`ruled`, by
    `result_id`; None: none), their `group`, `group_label`, `category` and `merge_rule`: a
    failure no rule merged keeps its signature as its group and its name."""
    out = failed.copy()
    if "signature" not in out.columns:
        out["signature"] = normalise_messages(out["message"]).fillna("")
    out["signature"] = out["signature"].fillna("").astype("str")
    if ruled is None or ruled.empty:
        out["group"] = out["signature"]
        out["group_label"] = out["signature"]
        out["category"] = pd.Series(pd.NA, index=out.index, dtype="str")
        out["merge_rule"] = pd.Series(pd.NA, index=out.index, dtype="str")
        return out
    ids = out["result_id"]
    if _same_ids(ruled["result_id"], ids):
        # The rules were applied to these very failures, in this order (`group_rules.grouped`):
        # each row's answer is the same row's, with no lookup by id.
        for column in RULED_INPUT:
            out[column] = pd.Series(ruled[column].array, index=out.index).astype("str")
    else:
        found = ruled.drop_duplicates("result_id").set_index("result_id")[list(RULED_INPUT)]
        for column in RULED_INPUT:
            out[column] = ids.map(found[column]).astype("str")
    out["group"] = out["group"].fillna(out["signature"])
    out["group_label"] = out["group_label"].fillna(out["signature"])
    return out


def _same_ids(ruled: pd.Series, ids: pd.Series) -> bool:
    """Whether `ruled`'s result ids are `ids`, row for row, each once."""
    if len(ruled) != len(ids) or ruled.hasnans or ids.hasnans:
        return False
    mine = ids.to_numpy()
    return bool(np.array_equal(ruled.to_numpy(), mine)) and ids.is_unique


def group_keys(failed: pd.DataFrame, grouping: Grouping) -> pd.Series:
    """Each failure's group as one hashable key (`with_groups`' frame): its `group`, and per
    scenario its plan and scenario too, unless a merge rule made its group."""
    keyed, keys = _keyed(failed, grouping)
    return pd.Series(list(zip(*(keyed[k] for k in keys), strict=True)), index=failed.index)


def _keyed(failed: pd.DataFrame, grouping: Grouping) -> tuple[pd.DataFrame, list[str]]:
    """`failed` with the columns its groups are keyed by, and their names: per scenario,
    `_plan` and `_scenario_key` added (the plan and scenario, or -1 for a failure a merge rule
    grouped: its group is the rule's, whatever the scenario)."""
    if grouping is Grouping.ACROSS:
        return failed, ["group"]
    merged = failed["merge_rule"].notna().to_numpy(dtype=bool)
    added = {}
    for key, column in (("_plan", "plan_id"), ("_scenario_key", "scenario_id")):
        values = failed[column].astype("Int64").to_numpy(dtype="int64", na_value=-2).copy()
        values[merged] = -1
        added[key] = values
    return failed.assign(**added), ["group", "_plan", "_scenario_key"]


def _categories(codes: np.ndarray, categories: pd.Series, count: int) -> list[object]:
    """Each group's categories (of its failures' `categories`), those of the most failures
    first (ties by name), joined by ", "; missing when none of its failures has one."""
    out: list[object] = [pd.NA] * count
    given = categories.notna().to_numpy(dtype=bool)
    if not given.any():
        return out
    # Counted per (group, category) pair by number: a window has thousands of groups.
    words, names = pd.factorize(categories.to_numpy(dtype=object)[given], sort=True)
    pairs, tally = np.unique(codes[given].astype(np.int64) * len(names) + words, return_counts=True)
    groups, word = np.divmod(pairs, len(names))
    found: dict[int, list[str]] = {}
    for i in np.lexsort((word, -tally, groups)):
        found.setdefault(int(groups[i]), []).append(str(names[word[i]]))
    for group, said in found.items():
        out[group] = ", ".join(said)
    return out


def _ascending(codes: np.ndarray, values: pd.Series, count: int) -> list[tuple[object, ...]]:
    """Each group's distinct values (missing ones left out), ascending, as a tuple: ints for an
    integer column, else texts."""
    whole = values.dtype.kind in "iu" or str(values.dtype) in ("Int64", "int64")
    pairs = pd.DataFrame({"g": codes, "v": values.to_numpy(dtype=object)})
    pairs = pairs[values.notna().to_numpy()]
    pairs["v"] = pairs["v"].astype("int64") if whole else pairs["v"].astype(str)
    pairs = pairs.drop_duplicates().sort_values(["g", "v"], kind="stable")
    bounds = np.searchsorted(pairs["g"].to_numpy(), np.arange(count + 1))
    found = pairs["v"].tolist()
    return [tuple(found[bounds[i] : bounds[i + 1]]) for i in range(count)]


def with_known(groups: pd.DataFrame, covered: pd.DataFrame) -> pd.DataFrame:
    """Groups (`GROUP_COLUMNS`) with their failures split into known and unresolved by result
    id, whatever the grouping: `covered` holds the failed results a mark covers (`result_id`,
    `mark_id`: missing where none does, `ticket`). Adds `known`, `unresolved`, and the
    `mark_id` and `ticket` of the mark covering most of a group's failures (ties: the first
    met)."""
    found = covered[covered["mark_id"].notna()]
    mark_of = dict(zip(found["result_id"].astype("int64"), found["mark_id"], strict=True))
    ticket_of = dict(zip(found["mark_id"], found["ticket"], strict=True))
    known: list[int] = []
    tops: list[object] = []
    for ids in groups["result_ids"]:
        marks = [mark_of[i] for i in ids if i in mark_of]
        known.append(len(marks))
        tops.append(max(dict.fromkeys(marks), key=marks.count) if marks else pd.NA)
    counted = pd.Series(known, index=groups.index, dtype="int64")
    top = pd.Series(tops, index=groups.index, dtype="str")
    return groups.assign(
        known=counted.to_numpy(),
        unresolved=(groups["failures"].astype("int64") - counted).to_numpy(),
        mark_id=top.to_numpy(),
        ticket=pd.Series(
            [ticket_of.get(m) if isinstance(m, str) else pd.NA for m in top],
            index=groups.index,
            dtype="str",
        ).to_numpy(),
    )
