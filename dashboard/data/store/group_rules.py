"""A team's rules for failure groups in the history store, beside the marks: each with its
author and time, removed (kept, with who removed it and when) rather than deleted, and never
cleared by `clear`.

A rule is a pattern on the failure's message, optionally one on the scenario (its id or its
name), a plan and a pattern on the environment's label, and what to do with what it matches:
give it a category (product bug, automation bug, infrastructure, or a word of the team's), or
merge it into one group named by the rule (`dashboard.analytics.group_rules` applies them).

Patterns are RE2's (google-re2): matching takes time linear in the text, whatever the pattern,
so a pattern cannot hang a page however a message reads. What RE2 cannot run in linear time
(backreferences, lookarounds) or in bounded memory (`MAX_PROGRAM` bytes: huge counted
repetitions) is refused when the rule is written, with RE2's reason; so is an invalid pattern.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import pandas as pd
import re2  # type: ignore[import-untyped]

from dashboard.data.store.lease import StoreLease
from dashboard.data.store.types import GROUP_RULE_COLUMNS

MAX_PATTERN = 1000
"""Characters of one pattern."""
MAX_LABEL = 100
"""Characters of a category or a merged group's name."""
MAX_PROGRAM = 1 << 20
"""Bytes RE2 may use for one compiled pattern (its default is 8 MiB)."""

_ID_LENGTH = 12
CATEGORY = "category"
MERGE = "merge"
ACTIONS = (CATEGORY, MERGE)
"""What a rule does (`dashboard.analytics.group_rules` names the same two)."""
CATEGORIES = ("product bug", "automation bug", "infrastructure")
"""The categories every team has; a rule may name its own too."""


class RuleRefused(ValueError):
    """A rule the store will not write (or a rule id it does not hold); `problems` are
    sentences, one per problem, fit to show as they are."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(" ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class RuleDraft:
    """A rule as a person writes it."""

    message: str
    label: str
    action: str = CATEGORY
    scenario: str | None = None
    plan_id: int | None = None
    environment: str | None = None


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # RE2 logs to stderr otherwise; the reason is returned instead
    options.max_mem = MAX_PROGRAM
    return options


@lru_cache(maxsize=4096)
def compiled(pattern: str) -> Any:
    """`pattern` compiled by RE2 (linear-time matching); `re2.error` when it cannot be."""
    return re2.compile(pattern, _options())


SET_SIZE = 1000
"""Patterns searched together in one RE2 set (one pass over a message for all of them). 1,000
rules in one set answered 3,621 messages in 3.3 ms, five sets of 200 in 16 ms (benchmark case
14); a set past its memory bound still falls back to searching pattern by pattern."""
SET_MEMORY = 64 << 20
_EVERYTHING = ""
"""A pattern that finds something in every text: added first to every set, so that an answer
without it is a set that could not search that text (RE2's DFA out of its memory bound), never
taken for "no pattern matched"; such a text is searched pattern by pattern instead."""


@lru_cache(maxsize=16)
def _search_set(patterns: tuple[str, ...]) -> Any | None:
    """An RE2 set of `patterns` (index 0 the catch-all), or None when it cannot be built."""
    options = _options()
    options.max_mem = SET_MEMORY
    try:
        found = re2.Set.SearchSet(options)
        found.Add(_EVERYTHING)
        for pattern in patterns:
            found.Add(pattern)
        found.Compile()
    except re2.error:
        return None
    return found


def search_many(patterns: Sequence[Any], texts: Sequence[str]) -> list[list[int]]:
    """For each of `texts`, the positions of `patterns` (compiled by `compiled`) that find
    something in it (`analytics.group_rules.SearchMany`), `SET_SIZE` patterns to an RE2 set."""
    found: list[list[int]] = [[] for _ in texts]
    plain = [t if t.isascii() else t.encode("utf-8", "replace").decode("utf-8") for t in texts]
    for start in range(0, len(patterns), SET_SIZE):
        chunk = patterns[start : start + SET_SIZE]
        searcher = _search_set(tuple(p.pattern for p in chunk))
        for position, text in enumerate(plain):
            answer = searcher.Match(text) if searcher is not None else None
            if answer is not None and 0 in answer:
                found[position] += sorted(start + i - 1 for i in answer if i != 0)
            else:
                found[position] += [
                    start + i for i, p in enumerate(chunk) if p.search(text) is not None
                ]
    return found


def pattern_problem(pattern: str | None, what: str) -> str | None:
    """Why `pattern` cannot be the rule's `what` pattern ("message", "scenario",
    "environment"), or None."""
    if pattern is None:
        return None
    if not pattern:
        return f"The {what} pattern is empty; leave it out to match every {what}."
    if len(pattern) > MAX_PATTERN:
        return f"The {what} pattern has {len(pattern):,} characters; at most {MAX_PATTERN:,}."
    try:
        compiled(pattern)
    except re2.error as error:
        reason = error.args[0] if error.args else "it cannot be read"
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        hint = ""
        if any(word in str(reason) for word in ("escape", "perl operator", "repetition", "large")):
            hint = (
                " Patterns run in RE2, which matches in time linear in the message: "
                "backreferences and lookarounds are not supported, and a pattern may not grow "
                "past RE2's memory bound."
            )
        return f"The {what} pattern cannot be used: {reason}.{hint}"
    return None


def draft_problems(draft: RuleDraft, *, by: str | None) -> list[str]:
    """Every reason the store would refuse `draft` from `by`."""
    problems = [
        pattern_problem(draft.message, "message"),
        pattern_problem(draft.scenario, "scenario"),
        pattern_problem(draft.environment, "environment"),
    ]
    if draft.action not in ACTIONS:
        problems.append(f"A rule gives a category or merges groups, not {draft.action[:30]!r}.")
    label = " ".join(draft.label.split())
    if not label:
        what = "name of the merged group" if draft.action == MERGE else "category"
        problems.append(f"Give the rule its {what}.")
    elif len(label) > MAX_LABEL:
        problems.append(f"The rule's label has {len(label):,} characters; at most {MAX_LABEL}.")
    if draft.plan_id is not None and not 0 < draft.plan_id < 2**63:
        problems.append(f"The plan id {draft.plan_id} is not an id.")
    author = " ".join((by or "").split())
    if not author:
        problems.append("Say who you are (a name), so that the rule says who wrote it.")
    elif len(author) > 200:
        problems.append("The author's name holds at most 200 characters.")
    return [p for p in problems if p]


def usable(pattern: str) -> Any | None:
    """`pattern` compiled (`compiled`), or None when this RE2 cannot compile it: what
    `analytics.group_rules.rules_from` is given, so that a stored pattern another version wrote
    leaves its rule out rather than failing every page."""
    try:
        return compiled(pattern)
    except re2.error:
        return None


def describe_rule(row: dict[str, Any]) -> str:
    """A rule in words: 'message ~ /timeout/ on scenario ~ /checkout/ of plan 7 -> category
    "infrastructure"'."""
    parts = [f"message ~ /{row['message_pattern']}/"]
    if _text(row.get("scenario_pattern")):
        parts.append(f"scenario ~ /{row['scenario_pattern']}/")
    if not _missing(row.get("plan_id")):
        parts.append(f"plan {int(row['plan_id'])}")
    if _text(row.get("environment_pattern")):
        parts.append(f"environment ~ /{row['environment_pattern']}/")
    what = (
        f'category "{row["label"]}"'
        if row.get("action") == CATEGORY
        else f'merge into "{row["label"]}"'
    )
    return ", ".join(parts) + f" -> {what}"


def _missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _text(value: Any) -> str | None:
    return None if _missing(value) or value == "" else str(value)


# -- the store -------------------------------------------------------------------------------------

RULES_OF_COMPANY = """
SELECT rule_id, message_pattern, scenario_pattern, plan_id, environment_pattern, action, label,
       created_by, created_at, removed_by, removed_at
FROM group_rules WHERE company_id = :company_id ORDER BY created_at, rule_id
"""

INSERT_RULE = """
INSERT INTO group_rules (rule_id, company_id, message_pattern, scenario_pattern, plan_id,
                         environment_pattern, action, label, created_by, created_at)
VALUES (:rule_id, :company_id, :message_pattern, :scenario_pattern, :plan_id,
        :environment_pattern, :action, :label, :created_by, :created_at)
"""

REMOVE_RULE = """
UPDATE group_rules SET removed_by = :by, removed_at = :at
WHERE company_id = :company_id AND rule_id = :rule_id AND removed_at IS NULL
RETURNING rule_id
"""


def _now(now: datetime | None) -> datetime:
    at = now or datetime.now(UTC)
    if at.tzinfo is None:
        raise ValueError("a rule's time must be timezone-aware")
    return at.astimezone(UTC)


class GroupRuleStore(StoreLease):
    """The group rules' reads and writes (see the module); `HistoryStore` has them."""

    def group_rules(self, company_id: int, *, removed: bool = False) -> pd.DataFrame:
        """The company's rules, oldest first (`GROUP_RULE_COLUMNS`): those in force, or with
        `removed` every rule ever written."""
        with self._lease() as db:
            rules = db.frame(RULES_OF_COMPANY, GROUP_RULE_COLUMNS, {"company_id": company_id})
        if removed:
            return rules
        return rules[rules["removed_at"].isna()].reset_index(drop=True)

    def add_group_rule(
        self, company_id: int, draft: RuleDraft, *, by: str, now: datetime | None = None
    ) -> str:
        """Write a rule; returns its id (twelve hex digits). `RuleRefused` names every problem
        (nothing is written)."""
        problems = draft_problems(draft, by=by)
        if problems:
            raise RuleRefused(problems)
        rule_id = uuid.uuid4().hex[:_ID_LENGTH]
        with self._write() as db:
            db.execute(
                INSERT_RULE,
                {
                    "rule_id": rule_id,
                    "company_id": company_id,
                    "message_pattern": draft.message,
                    "scenario_pattern": draft.scenario,
                    "plan_id": draft.plan_id,
                    "environment_pattern": draft.environment,
                    "action": draft.action,
                    "label": " ".join(draft.label.split()),
                    "created_by": " ".join(by.split()),
                    "created_at": _now(now),
                },
            )
        return rule_id

    def remove_group_rule(
        self, company_id: int, rule_id: str, *, by: str, now: datetime | None = None
    ) -> None:
        """Take a rule of the company out of force (it is kept, with who removed it and when).
        `RuleRefused` when the company holds no such rule in force."""
        author = " ".join((by or "").split())
        if not author:
            raise RuleRefused(["Say who you are (a name), so that the removal says who."])
        with self._write() as db:
            landed = db.rows(
                REMOVE_RULE,
                {"by": author, "at": _now(now), "company_id": company_id, "rule_id": rule_id},
            )
        if not landed:
            raise RuleRefused(
                [f"There is no rule {str(rule_id)[:40]!r} in force in company {company_id}."]
            )


def category_word(text: str) -> str:
    """A category as the team types it ("product-bug", "Infrastructure") in the words every
    face shows ("product bug", "infrastructure"); another word is kept as typed."""
    plain = " ".join(text.replace("-", " ").replace("_", " ").split()).lower()
    return plain if plain in CATEGORIES else " ".join(text.split())
