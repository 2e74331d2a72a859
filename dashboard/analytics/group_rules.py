"""A team's rules for failure groups, applied to failed results: a category for each failure
(product bug, automation bug, infrastructure, or the team's own word), and groups merged.

A rule matches a failed result when its message pattern finds something in the result's
message (search, not a whole-text match; a missing message is ""), and, when given, its scenario
pattern finds something in the scenario's id or its name, its plan is the result's, and its
environment pattern finds something in the environment's label ("CHROME 131 / Windows 10").

- A "category" rule gives the failures it matches its label; of several, the oldest rule wins
  (rules come in the order the store keeps them: oldest first).
- A "merge" rule puts the failures it matches in one group of its own, keyed `rule:<id>` and
  named by its label, whatever their message said: groups that are one problem become one. A
  rule scoped to a plan, a scenario or an environment takes only those failures out of their
  group, which splits it.

The patterns are compiled by the store (`dashboard.data.store.group_rules`, RE2: linear time, so
no message can make a rule run long); this module only asks them to `search`. Each pattern is
asked once per distinct message, scenario and environment, not once per failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from dashboard.analytics.environment_names import ENVIRONMENT_COLUMNS, with_environments
from dashboard.analytics.failure_groups import normalise_messages
from dashboard.analytics.outcomes import FAIL, level_outcomes
from dashboard.columns.shapes import require_columns, typed

CATEGORY = "category"
MERGE = "merge"
ACTIONS = (CATEGORY, MERGE)
PRODUCT_BUG = "product bug"
AUTOMATION_BUG = "automation bug"
INFRASTRUCTURE = "infrastructure"
CATEGORIES = (PRODUCT_BUG, AUTOMATION_BUG, INFRASTRUCTURE)
"""The categories every team has (ReportPortal's defect types); a rule may name its own too."""
MERGED_PREFIX = "rule:"

RULED_COLUMNS: dict[str, str] = {
    "result_id": "int64",
    "signature": "str",  # the failure's own group (its normalised message, or as given)
    "group": "str",  # the group after the rules: the signature, or rule:<id> when merged
    "group_label": "str",  # what the group is called: the signature, or the merge rule's label
    "category": "str",  # missing when no category rule matches
    "category_rule": "str",
    "merge_rule": "str",
}


class Pattern(Protocol):
    """A compiled pattern: `search` answers a match (anything but None) or None."""

    def search(self, text: str) -> object | None: ...


@dataclass(frozen=True)
class MatchingRule:
    """One rule, its patterns compiled (see the module)."""

    rule_id: str
    message: Pattern
    action: str
    label: str
    scenario: Pattern | None = None
    plan_id: int | None = None
    environment: Pattern | None = None


@dataclass(frozen=True)
class RulePreview:
    """What a rule would cover, before it is saved."""

    failures: int
    groups: int

    @property
    def sentence(self) -> str:
        """ "This rule would cover 14 failures in 3 groups." """
        failures = "1 failure" if self.failures == 1 else f"{self.failures:,} failures"
        groups = "1 group" if self.groups == 1 else f"{self.groups:,} groups"
        if self.failures == 0:
            return "This rule would cover no failure of the ones read."
        return f"This rule would cover {failures} in {groups}."


Compile = Callable[[str], "Pattern | None"]
"""How a pattern's text becomes a `Pattern` (None: it cannot be used); the store's RE2
(`dashboard.data.store.group_rules.usable`)."""


def rules_from(rules: pd.DataFrame, compile: Compile) -> tuple[MatchingRule, ...]:
    """The rules of a frame of stored rules (the store's `GROUP_RULE_COLUMNS`) that are in
    force (no `removed_at`), in their order, compiled by `compile`; a rule whose pattern cannot
    be compiled is left out."""
    out = []
    for row in rules.to_dict("records"):
        if "removed_at" in row and not _missing(row["removed_at"]):
            continue
        rule = rule_of(row, compile)
        if rule is not None:
            out.append(rule)
    return tuple(out)


def rule_of(
    row: Mapping[str, Any], compile: Compile, rule_id: str | None = None
) -> MatchingRule | None:
    """One stored (or drafted) rule compiled; None when one of its patterns cannot be."""
    patterns: dict[str, Pattern | None] = {}
    for name in ("message_pattern", "scenario_pattern", "environment_pattern"):
        text = row.get(name)
        if _missing(text) or (name != "message_pattern" and text == ""):
            patterns[name] = None
            continue
        compiled = compile(str(text))
        if compiled is None:
            return None
        patterns[name] = compiled
    message = patterns["message_pattern"]
    if message is None:
        return None
    plan = row.get("plan_id")
    return MatchingRule(
        rule_id=str(rule_id if rule_id is not None else row.get("rule_id")),
        message=message,
        action=str(row.get("action")),
        label=str(row.get("label")),
        scenario=patterns["scenario_pattern"],
        plan_id=None if _missing(plan) else int(plan),  # type: ignore[arg-type]
        environment=patterns["environment_pattern"],
    )


def _missing(value: object) -> bool:
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _failed(failures: pd.DataFrame) -> pd.DataFrame:
    """The failed results of `failures` (all of them when it has no `level`)."""
    if "level" not in failures.columns:
        return failures
    return failures[level_outcomes(failures["level"]) == FAIL]


def _hits(pattern: Pattern, values: pd.Series) -> np.ndarray:
    """Which of `values` (text) `pattern` finds something in, asked once per distinct value."""
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    found = np.fromiter(
        (pattern.search(str(u)) is not None for u in uniques), dtype=bool, count=len(uniques)
    )
    return found[codes] if len(codes) else np.zeros(0, dtype=bool)


def _scenario_hits(
    pattern: Pattern, scenario_ids: pd.Series, names: Mapping[int, str]
) -> np.ndarray:
    codes, uniques = pd.factorize(scenario_ids, use_na_sentinel=False)
    found = []
    for sid in uniques:
        if sid is None or sid is pd.NA or (isinstance(sid, float) and np.isnan(sid)):
            found.append(False)
            continue
        name = names.get(int(sid))
        hit = pattern.search(str(int(sid))) is not None or (
            name is not None and pattern.search(name) is not None
        )
        found.append(hit)
    table = np.array(found, dtype=bool)
    return table[codes] if len(codes) else np.zeros(0, dtype=bool)


def rule_matches(
    rule: MatchingRule, failed: pd.DataFrame, names: Mapping[int, str] | None = None
) -> np.ndarray:
    """Which rows of `failed` (failed results) `rule` matches, as a boolean array."""
    mask = _hits(
        rule.message, failed["message"].astype(object).where(failed["message"].notna(), "")
    )
    if rule.plan_id is not None:
        mask &= (failed["plan_id"] == rule.plan_id).fillna(False).to_numpy(dtype=bool)
    if rule.scenario is not None and mask.any():
        mask &= _scenario_hits(rule.scenario, failed["scenario_id"], names or {})
    if rule.environment is not None and mask.any():
        labels = _environments(failed)
        mask &= _hits(rule.environment, labels)
    return mask


def _environments(failed: pd.DataFrame) -> pd.Series:
    if "environment" in failed.columns:
        return failed["environment"].astype(object).fillna("")
    require_columns(failed, ENVIRONMENT_COLUMNS, "an environment rule")
    return with_environments(failed)["environment"].astype(object).fillna("")


def _signatures(failed: pd.DataFrame, group_column: str) -> pd.Series:
    if group_column in failed.columns:
        return failed[group_column].astype(object).fillna("").astype(str)
    return normalise_messages(failed["message"]).fillna("").astype(object).astype(str)


def apply_rules(
    rules: Sequence[MatchingRule],
    failures: pd.DataFrame,
    *,
    names: Mapping[int, str] | None = None,
    group_column: str = "signature",
) -> pd.DataFrame:
    """Each failed result of `failures` with its group and category after `rules`
    (`RULED_COLUMNS`, in the order of `failures`). A failure's own group is `group_column` when
    the frame has it (a page's groups per scenario, say), else its normalised message; `names`
    are scenario names by id, for scenario patterns."""
    require_columns(failures, ("result_id", "message", "scenario_id", "plan_id"), "group rules")
    failed = _failed(failures)
    signature = _signatures(failed, group_column)
    count = len(failed)
    category = np.full(count, None, dtype=object)
    category_rule = np.full(count, None, dtype=object)
    merge_rule = np.full(count, None, dtype=object)
    merge_label = np.full(count, None, dtype=object)
    for rule in rules:
        open_rows = pd.isna(category) if rule.action == CATEGORY else pd.isna(merge_rule)
        if not open_rows.any():
            continue
        hit = rule_matches(rule, failed, names) & open_rows
        if rule.action == CATEGORY:
            category[hit] = rule.label
            category_rule[hit] = rule.rule_id
        elif rule.action == MERGE:
            merge_rule[hit] = rule.rule_id
            merge_label[hit] = rule.label
    merged = ~pd.isna(merge_rule)
    keys = signature.to_numpy(dtype=object).copy()
    labels = keys.copy()
    keys[merged] = [MERGED_PREFIX + str(r) for r in merge_rule[merged]]
    labels[merged] = merge_label[merged]
    out = pd.DataFrame(
        {
            "result_id": failed["result_id"].to_numpy(),
            "signature": signature.to_numpy(dtype=object),
            "group": keys,
            "group_label": labels,
            "category": category,
            "category_rule": category_rule,
            "merge_rule": merge_rule,
        }
    )
    return typed(out, RULED_COLUMNS)


def preview(
    rule: MatchingRule,
    failures: pd.DataFrame,
    *,
    names: Mapping[int, str] | None = None,
    group_column: str = "signature",
) -> RulePreview:
    """How many failed results of `failures` `rule` would cover, and in how many of their
    groups (as they are before any rule)."""
    require_columns(failures, ("result_id", "message", "scenario_id", "plan_id"), "a preview")
    failed = _failed(failures)
    if failed.empty:
        return RulePreview(0, 0)
    hit = rule_matches(rule, failed, names)
    groups = _signatures(failed, group_column)[hit]
    return RulePreview(int(hit.sum()), int(groups.nunique()))
