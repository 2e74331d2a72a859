"""An alert's words: a title and one or two Markdown lines that end with the link to its
evidence (given by the caller, which knows the dashboard's pages).

Every name, message and ticket goes through `chat_text`, the digest's own rule: a plan called
"<!channel>" or "[Checkout](https://evil.example)" mentions and links nobody, and a direction
mark shows as the pages show it. A ticket is a link only to a web address (`chat_link`).

`alert_messages` makes the messages of one pass: changes of one kind in one plan (its
scenarios) or of the marks are said together, and a flood is capped at a number of messages
(`cli.alerts.MAX_MESSAGES`) and one saying how many more changes there are.

A scenario is called by the team's name for it and its owner (`ScenarioNames`, from the
history store's names): "Login works (402, owner ana@example.com)"; an unnamed one stays
"Scenario 402". A name is team text but still data: it goes through `chat_text` too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import pandas as pd

from dashboard.analytics import triage
from dashboard.analytics.alerts import (
    BROKEN,
    EXPIRING,
    FLAKY,
    GREEN,
    LOOKS_FIXED,
    RED,
    Change,
    LeftOut,
)
from dashboard.analytics.scenario_names import names_by_id, owners_by_id
from dashboard.analytics.verdicts import FAILING_STATUSES
from dashboard.present.formatting import chat_link, chat_text

_APART = {
    triage.KNOWN: "known",
    triage.OUTAGE: "in a likely outage",
    triage.INCOMPLETE: "incomplete",
}


def split_words(split: tuple[tuple[str, int], ...] | dict[str, int]) -> str:
    """Failures by their triage label, as a chat says them: "3 unresolved (1 new, 2 broken),
    2 known, 17 in a likely outage" (every label but known, outage and incomplete is
    unresolved; parts with nothing are left out, unresolved always said)."""
    counts = dict(split)
    held = {k: n for k, n in counts.items() if k not in _APART and n}
    unresolved = f"{sum(held.values())} unresolved"
    if set(held) - {triage.UNRESOLVED}:
        unresolved += " (" + ", ".join(f"{n} {label}" for label, n in held.items()) + ")"
    parts = [unresolved]
    for label in (triage.KNOWN, triage.OUTAGE, triage.INCOMPLETE):
        if counts.get(label):
            parts.append(f"{counts[label]} {_APART[label]}")
    return ", ".join(parts)


@dataclass(frozen=True)
class ScenarioNames:
    """The team's names and owners of scenarios, by id, as an alert calls them (none: every
    scenario is "Scenario 402")."""

    names: Mapping[int, str] = field(default_factory=dict)
    owners: Mapping[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, frame: pd.DataFrame) -> ScenarioNames:
        """From a frame of names (the store's `scenario_names`, `SCENARIO_NAME_COLUMNS`)."""
        return cls(names_by_id(frame), owners_by_id(frame))


NO_NAMES = ScenarioNames()


def scenario_words(
    scenario_id: int, names: ScenarioNames = NO_NAMES, *, owner: bool = True, first: bool = True
) -> str:
    """A scenario as an alert calls it: "Login works (402, owner ana@example.com)", "Login
    works (402)" without an owner (or `owner=False`), "Scenario 402" when it has no name
    ("scenario 402" unless `first` in its sentence), "Scenario 402 (owner ana@example.com)"
    when it has an owner and no name. Name and owner are chat text: never markup, a link or a
    mention."""
    number = int(scenario_id)
    name = names.names.get(number)
    owned = names.owners.get(number) if owner else None
    by = f"owner {chat_text(owned)}" if isinstance(owned, str) and owned else ""
    if isinstance(name, str) and name:
        return f"{chat_text(name)} ({number}{', ' + by if by else ''})"
    return f"{'Scenario' if first else 'scenario'} {number}" + (f" ({by})" if by else "")


FAILING_NAMED = 5
"""Failing scenarios a red alert names one by one before "and N more"."""


def failing_scenarios(results: pd.DataFrame, execution_id: int) -> tuple[int, ...]:
    """The scenarios with a failed result (FAILURE or ERROR) in `execution_id`, by id."""
    own = results[results["execution_id"] == execution_id]
    failed = own[own["level"].astype("str").str.upper().isin(FAILING_STATUSES)]
    return tuple(sorted({int(s) for s in failed["scenario_id"].dropna()}))


def scenario_categories(
    results: pd.DataFrame, ruled: pd.DataFrame | None, execution_id: int
) -> dict[int, str]:
    """Each scenario of `execution_id` whose failures the team's rules gave a category
    (`ruled`: `group_rules.ruled_failures` of `results`): its categories, most failures
    first ("infrastructure, product bug"), as the groups' Category column says them."""
    if ruled is None or ruled.empty:
        return {}
    own = results.loc[results["execution_id"] == execution_id, ["result_id", "scenario_id"]]
    found = ruled.loc[ruled["category"].notna(), ["result_id", "category"]].merge(
        own.dropna(subset=["scenario_id"]), on="result_id"
    )
    out: dict[int, str] = {}
    for scenario_id, rows in found.groupby("scenario_id", sort=True):
        counts = rows["category"].astype(str).value_counts(sort=False)
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        out[int(scenario_id)] = ", ".join(category for category, _ in ranked)
    return out


def failing_words(
    failing: Sequence[int],
    names: ScenarioNames = NO_NAMES,
    categories: Mapping[int, str] | None = None,
) -> str:
    """ "Failing: Login works (402, owner ana@example.com): product bug; Scenario 403." ("" when
    none), `FAILING_NAMED` of them, then "and N more"; a scenario's failures' `categories` (the
    team's rules, `scenario_categories`) after it."""
    if not failing:
        return ""
    categories = categories or {}
    named = [
        scenario_words(s, names) + (f": {chat_text(categories[s])}" if categories.get(s) else "")
        for s in failing[:FAILING_NAMED]
    ]
    more = len(failing) - FAILING_NAMED
    if more > 0:
        named.append(f"and {more} more")
    return "Failing: " + "; ".join(named) + "."


def _plan(change: Change) -> str:
    name = f" “{chat_text(change.plan)}”" if change.plan else ""
    return f"plan {change.plan_id}{name}"


def _words(text: str | None) -> str:
    return "" if text is None else chat_text(text)


LEFT_OUT_NAMED = 3
"""Outages a red or green message names one by one before "and N more"."""
_SIGNATURE_CHARS = 80


def left_out_words(change: Change) -> str:
    """The outages a plan's change left out, each with its dominant message: "Left out: a
    likely outage of plan 1 “Checkout”, execution 11 (started 2026-11-19 02:00 UTC), 92 %
    failed with “UnreachableBrowser: grid down”." ("" when none)."""
    if not change.left_out:
        return ""
    named = [_outage_words(change, outage) for outage in change.left_out[:LEFT_OUT_NAMED]]
    more = len(change.left_out) - LEFT_OUT_NAMED
    if more > 0:
        named.append(f"and {more} more")
    return "Left out: " + "; ".join(named) + "."


def _outage_words(change: Change, outage: LeftOut) -> str:
    kind = "an outage" if outage.confirmed else "a likely outage"
    started = "" if outage.start is None else f" (started {outage.start:%Y-%m-%d %H:%M} UTC)"
    share = (
        f"{round(100 * outage.failed / outage.verdicts)} % failed"
        if outage.verdicts
        else f"{outage.failed} failed"
    )
    text = f"{kind} of {_plan(change)}, execution {outage.execution_id}{started}, {share}"
    if outage.signature:
        signature = outage.signature
        if len(signature) > _SIGNATURE_CHARS:
            signature = signature[: _SIGNATURE_CHARS - 1] + "…"
        text += f" with “{chat_text(signature)}”"
    return text


def _scenario(change: Change, names: ScenarioNames, *, first: bool) -> str:
    if change.scenario_id is None:
        return "Scenario ?" if first else "scenario ?"
    return scenario_words(change.scenario_id, names, owner=first, first=first)


def _target(change: Change, names: ScenarioNames) -> str:
    """What a mark is about, in chat words; a scenario's mark by its name ("Login works (53)
    of plan 5" where the change says "scenario 53 of plan 5")."""
    target = change.target
    if target is None:
        return ""
    said = f"scenario {change.scenario_id} "
    if change.scenario_id is not None and target.startswith(said):
        named = scenario_words(change.scenario_id, names, owner=False, first=False)
        return f"{named} {chat_text(target[len(said) :])}"
    return chat_text(target)


def alert_title(change: Change, names: ScenarioNames = NO_NAMES) -> str:
    """The message's title; a scenario's by its name (no owner: the body says it)."""
    if change.kind == RED:
        return f"Red: {_plan(change)} failed"
    if change.kind == GREEN:
        return f"Green again: {_plan(change)} passed"
    if change.kind == BROKEN:
        return f"Broken: {_scenario(change, names, first=False)} of {_plan(change)}"
    if change.kind == FLAKY:
        return f"Flaky: {_scenario(change, names, first=False)} of {_plan(change)}"
    if change.kind == EXPIRING:
        return f"Known failure expires tomorrow: {_target(change, names)}"
    if change.kind == LOOKS_FIXED:
        return f"Known failure looks fixed: {_target(change, names)}"
    raise ValueError(f"unknown kind of change: {change.kind!r}")


def alert_body(
    change: Change,
    link: str | None,
    names: ScenarioNames = NO_NAMES,
    failing: Sequence[int] = (),
    categories: Mapping[int, str] | None = None,
) -> str:
    """The message's Markdown: what changed, the numbers behind it, the link to its evidence.
    A red change's `failing` scenarios (`failing_scenarios`) are named, by `names`, each with
    its failures' `categories` (`scenario_categories`)."""
    started = "" if change.start is None else f" (started {change.start:%Y-%m-%d %H:%M} UTC)"
    detail = _words(change.detail)
    if change.kind == RED:
        text = (
            f"Execution {change.execution_id}{started} failed after execution "
            f"{change.previous_execution_id} passed: {detail}"
            + (f" ({split_words(change.split)})" if change.split else "")
            + "."
        )
        if failing:
            text += " " + failing_words(failing, names, categories)
    elif change.kind == GREEN:
        text = (
            f"Execution {change.execution_id}{started} passed after execution "
            f"{change.previous_execution_id} failed."
        )
    elif change.kind in (BROKEN, FLAKY):
        text = (
            f"{_scenario(change, names, first=True)} is {change.kind} as of execution "
            f"{change.execution_id}{started}: {detail}."
        )
    else:
        words = _words(change.ticket)
        ticket = f" Ticket: {chat_link(words, change.ticket, relative=False)}." if words else ""
        action = "Extend it or close it." if change.kind == EXPIRING else "Close it if it is fixed."
        text = f"The mark on {_target(change, names)}: {detail}.{ticket} {action}"
    if change.kind in (RED, GREEN) and change.left_out:
        text += " " + left_out_words(change)
    return text + (f"\n\n{chat_link('See the evidence', link)}" if link else "")


ITEMS_PER_MESSAGE = 10
"""Changes a grouped message lists one by one before "and N more"."""
_GROUP_TITLES = {
    BROKEN: "Broken: {n} scenarios of {scope}",
    FLAKY: "Flaky: {n} scenarios of {scope}",
    EXPIRING: "Known failures expire tomorrow: {n} marks",
    LOOKS_FIXED: "Known failures look fixed: {n} marks",
}


class Pending(Protocol):
    """A change noted and not yet announced (`data.store.alerts.Alert`)."""

    @property
    def key(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def plan_id(self) -> int | None: ...
    @property
    def title(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def link(self) -> str | None: ...


@dataclass(frozen=True)
class AlertMessage:
    """One chat message and the changes it announces (noted announced once it is accepted)."""

    title: str
    body: str
    keys: tuple[str, ...]


def _group(alert: Pending) -> tuple[object, ...]:
    """Changes with the same group are said in one message: a plan's scenarios that became
    broken (or flaky), the marks that expire tomorrow (or look fixed). A plan's red or green
    is its own message, with its own comparison."""
    if alert.kind in (BROKEN, FLAKY):
        return (alert.kind, alert.plan_id)
    if alert.kind in (EXPIRING, LOOKS_FIXED):
        return (alert.kind,)
    return (alert.key,)


_SCENARIO_OF_KEY = re.compile(r":scenario (\d+):")


def _scopes(alert: Pending) -> set[str]:
    """Where the plan's words may start in a scenario change's title ("Broken: Login of the
    shop (53) of plan 5 “Checkout”"): after a " of plan 5" that follows the scenario's number
    ("scenario 53" or "(53)", by its key) and ends the title or opens the plan's quoted name.
    A name may hold " of ", even " of plan 5": each such place is one more candidate."""
    title, marker = alert.title, f" of plan {alert.plan_id}"
    number = _SCENARIO_OF_KEY.search(alert.key)
    ends = (f"scenario {number[1]}", f"({number[1]})") if number else None
    found = set()
    at = title.find(marker)
    while at >= 0:
        tail = title[at + len(marker) :]
        plan_tail = tail == "" or (tail.startswith(" “") and tail.endswith("”"))
        if plan_tail and (ends is None or title[:at].endswith(ends)):
            found.add(title[at + len(" of ") :])
        at = title.find(marker, at + 1)
    return found


def _scope(members: Sequence[Pending]) -> str:
    """ "plan 5 “Checkout”" out of the titles of a plan's scenario changes: the shortest
    place every title agrees on (a scenario's name is before it, so a " of " in a name only
    adds longer candidates); "plan 5" if none."""
    common: set[str] | None = None
    for alert in members:
        found = _scopes(alert)
        common = found if common is None else common & found
    return min(common, key=len) if common else f"plan {members[0].plan_id}"


def alert_messages(
    pending: Sequence[Pending],
    *,
    absolute: Callable[[str], str],
    home: str | None,
    most: int,
) -> list[AlertMessage]:
    """The messages that announce `pending` (oldest first): one per change, or one per group
    of changes (`_group`) that has several; at most `most` of them, then one that says how
    many more changes there are, of which kinds, with a link to `home` (the dashboard).
    `absolute` makes a change's relative evidence link absolute."""
    groups: dict[tuple[object, ...], list[Pending]] = {}
    for alert in pending:
        groups.setdefault(_group(alert), []).append(alert)
    messages = [_message(members, absolute, home) for members in groups.values()]
    if len(messages) <= most:
        return messages
    rest = [key for message in messages[most:] for key in message.keys]
    left = set(rest)
    kinds = Counter(alert.kind for alert in pending if alert.key in left)
    counts = ", ".join(f"{count} {kind}" for kind, count in kinds.most_common())
    see = f" See them on {chat_link('the dashboard', home)}." if home else ""
    summary = AlertMessage(
        title=f"And {len(rest)} more changes",
        body=f"and {len(rest)} more changes ({counts}), not sent one by one so as not to flood "
        f"the chat.{see}",
        keys=tuple(rest),
    )
    return [*messages[:most], summary]


def _message(
    members: list[Pending], absolute: Callable[[str], str], home: str | None
) -> AlertMessage:
    def evidence(alert: Pending, words: str) -> str:
        return chat_link(words, absolute(alert.link)) if alert.link else ""

    first = members[0]
    if len(members) == 1:
        link = evidence(first, "See the evidence")
        return AlertMessage(first.title, first.body + (f"\n\n{link}" if link else ""), (first.key,))
    title = _GROUP_TITLES[first.kind].format(n=len(members), scope=_scope(members))
    lines = [
        f"- {alert.body} {evidence(alert, 'See the evidence')}".rstrip()
        for alert in members[:ITEMS_PER_MESSAGE]
    ]
    if len(members) > ITEMS_PER_MESSAGE:
        more = len(members) - ITEMS_PER_MESSAGE
        lines.append(
            f"- and {more} more" + (f": {chat_link('the dashboard', home)}" if home else "")
        )
    return AlertMessage(title, "\n".join(lines), tuple(alert.key for alert in members))
