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

from dashboard.analytics.environment_names import ENVIRONMENT_COLUMNS, environment_label
from dashboard.analytics.failure_groups import (
    MERGED_PREFIX,
    FailureGroups,
    Grouping,
    failure_groups,
    group_keys,
    normalise_message,
    with_groups,
)
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


SearchMany = Callable[[Sequence[Pattern], Sequence[str]], Sequence[Sequence[int]]]
"""For each of some texts, the positions of the patterns that find something in it."""


def search_each(patterns: Sequence[Pattern], texts: Sequence[str]) -> list[list[int]]:
    """`SearchMany` by asking each pattern of each text in turn."""
    return [[i for i, p in enumerate(patterns) if p.search(text) is not None] for text in texts]


RULES_READ = ("result_id", "message", "scenario_id", "plan_id")
"""The columns of a failure every rule reads (its environment too, when a rule is scoped)."""


def _failed(failures: pd.DataFrame, group_column: str = "signature") -> pd.DataFrame:
    """The failed results of `failures` (all of them when it has no `level`), with only the
    columns the rules read (`RULES_READ`, `group_column` and the environment's): a window has
    tens of thousands of results of twenty columns, and copying the rest costs more than the
    rules."""
    read = [*RULES_READ, group_column, "environment", *ENVIRONMENT_COLUMNS]
    columns = [c for c in dict.fromkeys(read) if c in failures.columns]
    if "level" not in failures.columns:
        return failures[columns]
    failed = (level_outcomes(failures["level"]) == FAIL).to_numpy(dtype=bool)
    return failures.loc[failed, columns]


class _Failures:
    """The failed results with what every rule asks computed once: each distinct message (and
    each row's, by number), plan ids, scenario ids and, on first need, environment labels.
    A rule is then asked once per distinct message, and its other conditions only of the rows
    whose message it matched: a thousand rules over a hundred thousand failures stay cheap."""

    def __init__(self, failed: pd.DataFrame, names: Mapping[int, str] | None) -> None:
        self.frame = failed
        self.names = names or {}
        codes, uniques = pd.factorize(failed["message"], use_na_sentinel=True)
        self.messages = [str(u) for u in uniques]
        missing = codes < 0
        if missing.any():  # a missing message is "", one message with an empty one
            empty = self.messages.index("") if "" in self.messages else len(self.messages)
            if empty == len(self.messages):
                self.messages.append("")
            codes = np.where(missing, empty, codes)
        self.codes = codes
        self.plans = failed["plan_id"].astype("Int64").to_numpy(dtype="int64", na_value=-1)
        self.scenarios = failed["scenario_id"].astype("Int64").to_numpy(dtype="int64", na_value=-1)
        self._environments: tuple[list[str], np.ndarray] | None = None
        self._scenario_hits: dict[int, dict[int, bool]] = {}

    def environments(self) -> tuple[list[str], np.ndarray]:
        """The distinct environment labels, and each row's position among them."""
        if self._environments is None:
            self._environments = _environments(self.frame)
        return self._environments

    def rows(self, rule: MatchingRule, messages: Sequence[int] | None = None) -> np.ndarray:
        """The positions of the rows `rule` matches, ascending; `messages` are the positions
        of the distinct messages its message pattern finds something in, when known."""
        if messages is None:
            messages = [
                i for i, text in enumerate(self.messages) if rule.message.search(text) is not None
            ]
        found = np.zeros(len(self.messages), dtype=bool)
        found[np.asarray(messages, dtype=np.intp)] = True
        rows = np.flatnonzero(found[self.codes])
        if rule.plan_id is not None:
            rows = rows[self.plans[rows] == rule.plan_id]
        if rule.scenario is not None and len(rows):
            rows = rows[self._scenario_mask(rule, self.scenarios[rows])]
        if rule.environment is not None and len(rows):
            labels, of_row = self.environments()
            pattern = rule.environment
            asked = np.array([pattern.search(label) is not None for label in labels], dtype=bool)
            rows = rows[asked[of_row[rows]]]
        return rows

    def _scenario_mask(self, rule: MatchingRule, ids: np.ndarray) -> np.ndarray:
        pattern = rule.scenario
        assert pattern is not None
        answers = self._scenario_hits.setdefault(id(rule), {})
        distinct, of_row = np.unique(ids, return_inverse=True)
        for sid in set(distinct.tolist()) - answers.keys():
            name = self.names.get(sid)
            answers[sid] = sid >= 0 and (
                pattern.search(str(sid)) is not None
                or (name is not None and pattern.search(name) is not None)
            )
        asked = np.array([answers[sid] for sid in distinct.tolist()], dtype=bool)
        return asked[of_row.reshape(-1)]


def rule_matches(
    rule: MatchingRule, failed: pd.DataFrame, names: Mapping[int, str] | None = None
) -> np.ndarray:
    """Which rows of `failed` (failed results) `rule` matches, as a boolean array."""
    mask = np.zeros(len(failed), dtype=bool)
    mask[_Failures(failed, names).rows(rule)] = True
    return mask


def _environments(failed: pd.DataFrame) -> tuple[list[str], np.ndarray]:
    """The distinct environment labels of `failed` (its `environment`, else
    `environment_names.environment_label` of each distinct environment's first row), and each
    row's position among them."""
    if "environment" in failed.columns:
        codes, uniques = pd.factorize(failed["environment"].astype(object).fillna(""))
        return [str(u) for u in uniques], codes
    require_columns(failed, ENVIRONMENT_COLUMNS, "an environment rule")
    key = np.zeros(len(failed), dtype=np.int64)
    for column in ENVIRONMENT_COLUMNS:
        codes, uniques = pd.factorize(failed[column], use_na_sentinel=False)
        key = key * (len(uniques) + 1) + codes
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    parts = failed[list(ENVIRONMENT_COLUMNS)].iloc[first]
    labels = [environment_label(*row) for row in parts.itertuples(index=False)]
    return labels, inverse.reshape(-1)


def _signatures(failed: pd.DataFrame, group_column: str, prepared: _Failures) -> np.ndarray:
    """Each failure's own group: `group_column` when `failed` has it, else its normalised
    message, normalised once per distinct message (`prepared`'s; a missing message is "")."""
    if group_column in failed.columns:
        return failed[group_column].astype(object).fillna("").astype(str).to_numpy(dtype=object)
    distinct = np.array([normalise_message(m) for m in prepared.messages], dtype=object)
    return distinct[prepared.codes]


def apply_rules(
    rules: Sequence[MatchingRule],
    failures: pd.DataFrame,
    *,
    names: Mapping[int, str] | None = None,
    group_column: str = "signature",
    search_many: SearchMany | None = None,
) -> pd.DataFrame:
    """Each failed result of `failures` with its group and category after `rules`
    (`RULED_COLUMNS`, in the order of `failures`). A failure's own group is `group_column` when
    the frame has it (a page's groups per scenario, say), else its normalised message; `names`
    are scenario names by id, for scenario patterns. `search_many` asks every message pattern
    of every distinct message at once (the store's RE2 sets, `group_rules.search_many`: a
    thousand rules in one pass over each message); by default each pattern is asked in turn."""
    search_many = search_many or search_each
    require_columns(failures, ("result_id", "message", "scenario_id", "plan_id"), "group rules")
    failed = _failed(failures, group_column)
    count = len(failed)
    by_category = np.full(count, -1, dtype=np.int64)  # the deciding rule's position, or -1
    by_merge = np.full(count, -1, dtype=np.int64)
    prepared = _Failures(failed, names)
    signature = _signatures(failed, group_column, prepared)
    messages_of: list[list[int]] = [[] for _ in rules]
    for message, positions in enumerate(search_many([r.message for r in rules], prepared.messages)):
        for position in positions:
            messages_of[position].append(message)
    for position, rule in enumerate(rules):
        if not messages_of[position]:  # most rules find none of the messages read
            continue
        decided = by_category if rule.action == CATEGORY else by_merge
        if rule.action not in ACTIONS or (decided >= 0).all():
            continue
        rows = prepared.rows(rule, messages_of[position])
        rows = rows[decided[rows] < 0]  # the oldest matching rule wins
        decided[rows] = position
    rule_ids = np.array([r.rule_id for r in rules] + [None], dtype=object)
    rule_labels = np.array([r.label for r in rules] + [None], dtype=object)
    merged = by_merge >= 0
    keys = signature.copy()
    labels = signature.copy()
    keys[merged] = [MERGED_PREFIX + str(r) for r in rule_ids[by_merge[merged]]]
    labels[merged] = rule_labels[by_merge[merged]]
    out = pd.DataFrame(
        {
            "result_id": failed["result_id"].to_numpy(),
            "signature": signature,
            "group": keys,
            "group_label": labels,
            "category": rule_labels[by_category],  # -1 picks the trailing None
            "category_rule": rule_ids[by_category],
            "merge_rule": rule_ids[by_merge],
        }
    )
    return typed(out, RULED_COLUMNS)


def preview(
    rule: MatchingRule,
    failures: pd.DataFrame,
    *,
    names: Mapping[int, str] | None = None,
    group_column: str = "signature",
    grouping: Grouping | None = None,
) -> RulePreview:
    """How many failed results of `failures` `rule` would cover, and in how many of their
    groups (as they are before any rule): of `group_column`, or with `grouping` the pages'
    groups (per scenario: a signature in one plan's scenario; across: a signature)."""
    require_columns(failures, ("result_id", "message", "scenario_id", "plan_id"), "a preview")
    failed = _failed(failures, group_column)
    if failed.empty:
        return RulePreview(0, 0)
    prepared = _Failures(failed, names)
    rows = prepared.rows(rule)
    if grouping is None:
        groups = pd.Series(_signatures(failed, group_column, prepared)[rows], dtype=object)
        return RulePreview(len(rows), int(groups.nunique()))
    covered = with_groups(failed.iloc[rows], None)
    return RulePreview(len(rows), int(group_keys(covered, grouping).nunique()))


@dataclass(frozen=True, eq=False)
class TeamRules:
    """A company's rules in force as the pages apply them: `rules`, compiled, in the store's
    order; `left_out`: how many stored rules in force were left out because a pattern of theirs
    cannot be compiled here (a page never fails on them); `search_many`: the store's RE2 sets
    (None: each pattern in turn)."""

    rules: tuple[MatchingRule, ...] = ()
    left_out: int = 0
    search_many: SearchMany | None = None

    @property
    def key(self) -> tuple[str, ...]:
        """What names these rules in a cache key: a rule in force never changes, it is only
        added or removed, so its id says all of it."""
        return tuple(rule.rule_id for rule in self.rules)


NO_RULES = TeamRules()


def team_rules(
    stored: pd.DataFrame, compile: Compile, search_many: SearchMany | None = None
) -> TeamRules:
    """The rules in force of a frame of stored rules (`GROUP_RULE_COLUMNS`), compiled by
    `compile` (`rules_from`), with how many could not be."""
    if "removed_at" in stored.columns:
        stored = stored[stored["removed_at"].isna()]
    compiled = rules_from(stored, compile)
    return TeamRules(compiled, len(stored) - len(compiled), search_many)


def ruled_failures(
    rules: TeamRules | None,
    failures: pd.DataFrame,
    *,
    names: Mapping[int, str] | None = None,
) -> pd.DataFrame | None:
    """`apply_rules` of `rules` to `failures`, or None when there is no rule to apply."""
    if rules is None or not rules.rules:
        return None
    return apply_rules(rules.rules, failures, names=names, search_many=rules.search_many)


def grouped(
    executions: pd.DataFrame,
    results: pd.DataFrame,
    rules: TeamRules | None = None,
    *,
    grouping: Grouping = Grouping.SCENARIO,
    names: Mapping[int, str] | None = None,
) -> FailureGroups:
    """The failure groups of `executions`' `results` (`failure_groups.failure_groups`) after
    the team's `rules`: merged groups named by their rule, each group with its category."""
    if rules is None or not rules.rules:
        return failure_groups(executions, results, grouping=grouping)
    return failure_groups(
        executions,
        results,
        grouping=grouping,
        ruling=lambda failed: ruled_failures(rules, failed, names=names),
    )


def rules_note(rules: TeamRules | None) -> str | None:
    """Said beside groups when stored rules were left out (a pattern this version cannot use)."""
    if rules is None or not rules.left_out:
        return None
    count = "1 rule" if rules.left_out == 1 else f"{rules.left_out:,} rules"
    return (
        f"{count} of the team left out here: a pattern that cannot be used by this version "
        "(python -m dashboard rules list shows them)."
    )
