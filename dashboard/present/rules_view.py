"""Everything the Group rules page draws, worded: the team's rules for failure groups as a
table (in force and removed), what the form's fields make of a rule, its preview on the
failures the page loaded ("This rule would cover 14 failures in 3 groups.", with examples)
before it is saved, and the rules a viewer may remove.

Patterns, labels and messages are the team's and the service's text: shown as text (table
cells, `st.text`), never as markup; bidirectional and control characters are made visible
(`formatting.visible_text`). A pattern the store would refuse (invalid, or one RE2 cannot run
in linear time or bounded memory) is refused here with the store's own reason
(`store.group_rules.draft_problems`), before anything is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dashboard.analytics.failure_groups import Grouping
from dashboard.analytics.group_rules import preview, rule_matches, rule_of
from dashboard.analytics.marks import failed_of
from dashboard.data.store.group_rules import (
    CATEGORIES,
    CATEGORY,
    MERGE,
    RuleDraft,
    category_word,
    describe_rule,
    draft_problems,
    usable,
)
from dashboard.present import table_view as columns
from dashboard.present.formatting import plural, visible_text
from dashboard.present.table_view import TableView

CUSTOM = "custom"
"""The category choice that takes the team's own word."""
CATEGORY_CHOICES: tuple[str, ...] = (*CATEGORIES, CUSTOM)
CATEGORY_LABELS: dict[str, str] = {
    "product bug": "Product bug",
    "automation bug": "Automation bug",
    "infrastructure": "Infrastructure",
    CUSTOM: "Custom…",
}
ACTION_LABELS: dict[str, str] = {CATEGORY: "Give a category", MERGE: "Merge into one group"}
EXAMPLES = 5
"""Failures a preview shows of those it would cover."""
_PREVIEW_AUTHOR = "preview"
"""Who a preview is checked as: the author is asked when the rule is saved."""

RULES_CAPTION = (
    "A rule matches a failure when its message pattern finds something in the failure's "
    "message and, when given, its scenario pattern in the scenario's id or name, its plan is "
    "the failure's and its environment pattern finds something in the environment's label. A "
    "category rule gives what it matches its category; a merge rule puts it in one group of "
    "its own. Of several rules of one kind, the oldest wins. Patterns are RE2's (linear time: "
    "no backreferences or lookarounds). Rules live in the history store beside the marks and "
    "change nothing on the service; a removed rule is kept, with who removed it."
)
READ_ONLY = (
    "Rules are read-only for you here, as marks are: {why} python -m dashboard rules add "
    "writes them meanwhile."
)


@dataclass(frozen=True)
class RuleInput:
    """What the form holds, as typed."""

    message: str
    action: str = CATEGORY
    category: str = CATEGORIES[0]
    custom: str = ""
    merge_label: str = ""
    scenario: str = ""
    plan_id: int | None = None
    environment: str = ""


def _optional(text: str) -> str | None:
    return text if text.strip() else None


def draft_of(form: RuleInput) -> RuleDraft:
    """The rule the form's fields make: a blank scenario or environment pattern is none (every
    scenario, every environment); a category in the words every face shows."""
    if form.action == MERGE:
        label = form.merge_label
    else:
        label = category_word(form.custom if form.category == CUSTOM else form.category)
    return RuleDraft(
        message=form.message,
        label=label,
        action=form.action,
        scenario=_optional(form.scenario),
        plan_id=form.plan_id,
        environment=_optional(form.environment),
    )


@dataclass(frozen=True, eq=False)
class RulePreviewView:
    """A drafted rule before it is saved: why it cannot be (`problems`, sentences), or what it
    would cover (`sentence`, `basis`) with some of those failures (`examples`)."""

    problems: tuple[str, ...]
    sentence: str | None = None
    basis: str | None = None
    examples: TableView | None = None

    @property
    def usable(self) -> bool:
        return not self.problems


def _row(draft: RuleDraft) -> dict[str, Any]:
    return {
        "message_pattern": draft.message,
        "scenario_pattern": draft.scenario,
        "plan_id": draft.plan_id,
        "environment_pattern": draft.environment,
        "action": draft.action,
        "label": draft.label,
    }


def preview_view(
    form: RuleInput,
    results: pd.DataFrame,
    *,
    names: Mapping[int, str],
    plan_names: Mapping[int, str],
    basis: str,
    tz: str,
) -> RulePreviewView:
    """What the form's rule would cover among the failed results of `results` (`basis` says
    which: "each plan's last 20 finished executions"), or why it cannot be a rule."""
    draft = draft_of(form)
    problems = draft_problems(draft, by=_PREVIEW_AUTHOR)
    rule = None if problems else rule_of(_row(draft), usable, rule_id="preview")
    if rule is None:
        return RulePreviewView(tuple(problems) or ("The rule's patterns cannot be used.",))
    failed = failed_of(results)
    # Counted in the groups the pages show (one message in one plan's scenario).
    found = preview(rule, failed, names=names, grouping=Grouping.SCENARIO)
    matched = failed[rule_matches(rule, failed, names)] if found.failures else failed.iloc[:0]
    counted = f"Counted on the {plural(len(failed), 'failed result')} of {basis}."
    return RulePreviewView(
        problems=(),
        sentence=found.sentence,
        basis=counted,
        examples=_examples(matched, names, plan_names, tz) if found.failures else None,
    )


def _examples(
    matched: pd.DataFrame, names: Mapping[int, str], plan_names: Mapping[int, str], tz: str
) -> TableView:
    """The newest `EXAMPLES` failures a rule would cover."""
    newest = matched.sort_values("start", ascending=False, kind="stable").head(EXAMPLES)
    display = pd.DataFrame(
        {
            "Started": newest["start"].to_numpy(),
            "Plan": [_plan(p, plan_names) for p in newest["plan_id"]],
            "Scenario": [_scenario(s, names) for s in newest["scenario_id"]],
            "Environment": [visible_text(e, one_line=True) for e in newest["environment"]],
            "Message": [_message(m) for m in newest["message"]],
        }
    )
    return TableView(
        display.reset_index(drop=True),
        key="rules.preview",
        file_name="rule-preview.csv",
        columns={"Started": columns.moment(tz), "Message": columns.wide_text()},
        tz=tz,
    )


def _plan(plan_id: object, plan_names: Mapping[int, str]) -> str:
    if plan_id is None or pd.isna(plan_id):
        return ""
    return visible_text(plan_names.get(int(plan_id), f"Plan {int(plan_id)}"), one_line=True)  # type: ignore[call-overload]


def _scenario(scenario_id: object, names: Mapping[int, str]) -> str:
    if scenario_id is None or pd.isna(scenario_id):
        return ""
    number = int(scenario_id)  # type: ignore[call-overload]
    name = names.get(number)
    return f"{number} {visible_text(name, one_line=True)}" if name else f"Scenario {number}"


def _message(message: object) -> str:
    if not isinstance(message, str) or not message:
        return "(no message)"
    shown = visible_text(message, one_line=True)
    return shown if len(shown) <= 300 else shown[:299] + "…"


# -- the rules ------------------------------------------------------------------------------------

RULE_COLUMNS = (
    "Message pattern", "Action", "Category or group", "Scenario pattern", "Plan",
    "Environment pattern", "By", "Made", "Removed by", "Removed", "Rule",
)  # fmt: skip
"""What a lead reads first, left to right: what a rule matches and what it does, then where it
is limited to, who wrote (and removed) it and when; its id last."""


@dataclass(frozen=True, eq=False)
class RulesView:
    """The company's rules as the page lists them, and those a viewer may remove."""

    caption: str
    table: TableView | None
    """None while the company has no rule (nothing to list)."""
    removable: tuple[tuple[str, str], ...]
    """(rule id, the rule in words) of each rule in force, oldest first."""


def rules_view(rules: pd.DataFrame, *, plan_names: Mapping[int, str], tz: str) -> RulesView:
    """`rules`: every rule ever written (`HistoryStore.group_rules(removed=True)`), oldest
    first."""
    rows = []
    removable = []
    for rule in rules.to_dict("records"):
        removed = rule.get("removed_at")
        in_force = removed is None or pd.isna(removed)
        rows.append(
            {
                "Message pattern": _text(rule.get("message_pattern")),
                "Scenario pattern": _text(rule.get("scenario_pattern")),
                "Plan": _plan(rule.get("plan_id"), plan_names),
                "Environment pattern": _text(rule.get("environment_pattern")),
                "Action": "Category" if rule.get("action") == CATEGORY else "Merge",
                "Category or group": _text(rule.get("label")),
                "By": _text(rule.get("created_by")),
                "Made": rule.get("created_at"),
                "Removed by": _text(rule.get("removed_by")),
                "Removed": rule.get("removed_at"),
                "Rule": str(rule.get("rule_id")),
            }
        )
        if in_force:
            removable.append((str(rule["rule_id"]), _cap(visible_text(describe_rule(rule)))))
    display = pd.DataFrame(rows, columns=list(RULE_COLUMNS))
    for name in ("Made", "Removed"):
        display[name] = pd.to_datetime(display[name], utc=True)
    in_force = len(removable)
    removed = len(display) - in_force
    caption = (
        f"{plural(in_force, 'rule')} in force"
        + (f", {plural(removed, 'removed rule')} kept" if removed else "")
        + ". "
        + RULES_CAPTION
    )
    return RulesView(
        caption=caption,
        table=None
        if display.empty
        else TableView(
            display,
            key="rules.table",
            file_name="group-rules.csv",
            columns={"Made": columns.moment(tz), "Removed": columns.moment(tz)},
            tz=tz,
        ),
        removable=tuple(removable),
    )


def _text(value: object) -> str:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    return visible_text(value, one_line=True)


def _cap(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def saved_text(rule_id: str, preview: RulePreviewView) -> str:
    """What a saved rule says once the page reloads with it."""
    return f"Saved rule {rule_id}. {preview.sentence or ''}".strip()


def removed_text(rule_id: str) -> str:
    return f"Removed rule {rule_id}: it is kept, with who removed it, and no longer applies."
