"""The standup digest as Markdown for a team chat: one line per item, each with its links.

The page's "Copy for chat" and the command line print the same text. Names from the service
go through `formatting.chat_text` (the alerts' too): a plan called "*smoke*" reads as itself,
one called "@channel" or "https://evil.example" mentions and links nobody, and a right-to-left
override shows as the pages show it. Links come from `link_for`, so this module knows no URL
layout. Times are shown in the window's zone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from dashboard.analytics.standup import StandupDigest
from dashboard.analytics.standup_triage import StandupTriage
from dashboard.columns.cells import EN_DASH
from dashboard.present import known
from dashboard.present.alerts import NO_NAMES, ScenarioNames, scenario_words
from dashboard.present.formatting import (
    chat_link,
    chat_text,
    human_duration,
    percent,
    weekday_time,
)

LinkFor = Callable[[str, int], "str | None"]
"""`link_for(kind, id)`: the URL of an "execution" (its results page) or a "plan" (its
executions page), or None for no link."""

SECTIONS = ("Turned red", "Fixed", "Still failing", "Newly failing scenarios", "Slower")
EMPTY_TEXTS = {
    "Turned red": "Nothing turned red",
    "Fixed": "Nothing fixed",
    "Still failing": "Nothing still failing",
    "Newly failing scenarios": "No newly failing scenarios",
    "Slower": "Nothing slower",
}
MINUS = "\u2212"


def _no_links(kind: str, ident: int) -> str | None:
    return None


_link = chat_link


def _duration(ms: float) -> str:
    return human_duration(ms / 1000)


def _plan(row: object, link_for: LinkFor) -> str:
    plan_id = int(row.plan_id)  # type: ignore[attr-defined]
    name = row.plan  # type: ignore[attr-defined]
    label = chat_text(name) if isinstance(name, str) and name else f"Plan {plan_id}"
    return _link(label, link_for("plan", plan_id))


def _execution(ident: object, link_for: LinkFor, text: str | None = None) -> str:
    number = int(ident)  # type: ignore[call-overload]
    return _link(text or f"execution {number}", link_for("execution", number))


def _running(row: object, link_for: LinkFor) -> str:
    running = row.running_execution_id  # type: ignore[attr-defined]
    if pd.isna(running):
        return ""
    return f"; {_execution(running, link_for)} is still running"


def digest_markdown(
    digest: StandupDigest,
    *,
    link_for: LinkFor = _no_links,
    limit: int | None = None,
    triage: StandupTriage | None = None,
    plan_names: Mapping[int, str] | None = None,
    upgrade_line: str | None = None,
    names: ScenarioNames = NO_NAMES,
    categories: Mapping[tuple[int, int], str] | None = None,
) -> str:
    """The digest as Markdown lines: a heading line, the activity line, then each section
    with a bold title and one bullet per item (or its "Nothing ..." line). With `limit`, a
    section shows that many items and then "and N more". With `triage` (the digest once marks
    are applied, `analytics.standup_triage`), what it folded away: one line per mark with its
    ticket, one per outage, and the marks that expire soon. `upgrade_line` ("2 new failures
    started with a browser upgrade", the standup view's) closes the newly failing section.
    `names`: the team's names and owners of scenarios, as the alerts say them ("Login works
    (402, owner ana@example.com)"; an unnamed one "scenario 402"). `categories`: what the team's
    rules call a newly failing scenario's failures, by (execution, scenario) (the standup view's,
    worded as the alerts word them: "infrastructure, product bug"), said at the end of its line
    ("category: infrastructure"); none: the lines read as without rules."""
    tz = digest.window.tz
    lines = [
        f"**Since the last standup** ({weekday_time(digest.window.start, tz)} {EN_DASH} "
        f"{weekday_time(digest.window.end, tz)}, {chat_text(tz)})",
        _activity(digest),
    ]
    sections = {
        "Turned red": [
            f"{_plan(r, link_for)}: failed in {_execution(r.execution_id, link_for)} at "
            f"{weekday_time(r.start, tz)}, passed in "
            f"{_execution(r.previous_execution_id, link_for)}"
            f"{_running(r, link_for)}"
            for r in digest.turned_red.itertuples(index=False)
        ],
        "Fixed": [
            f"{_plan(r, link_for)}: passed in {_execution(r.execution_id, link_for)} at "
            f"{weekday_time(r.start, tz)}, failed in "
            f"{_execution(r.previous_execution_id, link_for)}"
            f"{_running(r, link_for)}"
            for r in digest.fixed.itertuples(index=False)
        ],
        "Still failing": [
            f"{_plan(r, link_for)}: red since {'at least ' if r.red_since_is_bound else ''}"
            f"{weekday_time(r.red_since, tz)}, {r.red_executions} "
            f"execution{'s' if r.red_executions != 1 else ''} "
            f"(latest {_execution(r.execution_id, link_for)}){_running(r, link_for)}"
            for r in digest.still_failing.itertuples(index=False)
        ],
        "Newly failing scenarios": _newly_failing(
            digest, link_for, None if triage is None else triage.verdicts, names, categories
        ),
        "Slower": [
            f"{_plan(r, link_for)}: median {_duration(r.window_median_ms)} against "
            f"{_duration(r.baseline_median_ms)} over the {digest.baseline_days} days before "
            f"(+{r.change * 100:.0f} %, {r.window_executions} executions)"
            for r in digest.slower.itertuples(index=False)
        ],
    }
    for title in SECTIONS:
        items = sections[title]
        lines.append("")
        lines.append(f"**{title}**")
        if items is None:
            lines.append("- _Not computed: the results were not loaded_")
            continue
        if not items:
            lines.append(f"- _{EMPTY_TEXTS[title]}_")
            continue
        shown = items if limit is None else items[:limit]
        lines.extend(f"- {item}" for item in shown)
        if len(items) > len(shown):
            lines.append(f"- and {len(items) - len(shown)} more")
        if title == "Newly failing scenarios" and upgrade_line:
            lines.append(f"_{chat_text(upgrade_line)}._")
    if triage is not None:
        lines.extend(_folded(triage, plan_names or {}, tz, limit, names.names))
    running = digest.running
    if len(running):
        plans = ", ".join(
            f"{_plan(r, link_for)} ({_execution(r.running_execution_id, link_for)})"
            for r in running.itertuples(index=False)
        )
        lines.append("")
        lines.append(f"_Running now, judged on their latest finished execution: {plans}_")
    return "\n".join(lines) + "\n"


def _folded(
    triage: StandupTriage,
    plan_names: Mapping[int, str],
    tz: str,
    limit: int | None,
    scenario_names: Mapping[int, str] | None = None,
) -> list[str]:
    """The known, outage, expiring and expired lines, each section only when it has items."""
    sections = {
        "Known": [
            chat_link(
                chat_text(known.known_line(row)),
                row["ticket"] if isinstance(row["ticket"], str) else None,
                relative=False,
            )
            for row in triage.known.to_dict("records")
        ],
        "Outages (left out of the figures above)"
        if triage.outages_left_out
        else "Outages (counted above)": [
            chat_text(known.outage_line(row, plan_names, tz))
            for row in triage.outages.to_dict("records")
        ],
        "Marks expiring soon": [
            chat_text(known.expiring_line(row, plan_names, scenario_names))
            for row in triage.expiring.to_dict("records")
        ],
        EXPIRED_SECTION + " (their failures count again)": [
            chat_text(expired_line(row, plan_names, scenario_names))
            for row in triage.expired.to_dict("records")
        ],
    }
    lines: list[str] = []
    for title, items in sections.items():
        if not items:
            continue
        shown = items if limit is None else items[:limit]
        lines += ["", f"**{title}**", *(f"- {item}" for item in shown)]
        if len(items) > len(shown):
            lines.append(f"- and {len(items) - len(shown)} more")
    return lines


EXPIRED_SECTION = "Marks expired"


def expired_line(
    mark: Mapping[str, object],
    plan_names: Mapping[int, str],
    scenario_names: Mapping[int, str] | None = None,
) -> str:
    """A mark that expired since the standup's start: "SHOP-123 (scenario 31 of Checkout)
    expired: its last day was Thu 26 Nov; its failures count again"."""
    name = known.ticket_label(mark.get("ticket")) or known.kind_label(mark.get("kind"))
    last = pd.Timestamp(mark["stopped_applying"]) - pd.Timedelta(days=1)
    return (
        f"{name} ({known.target_text(mark, plan_names, scenario_names)}) expired: its last day was "
        f"{last:%a} {last.day} {last:%b}; its failures count again"
    )


def _activity(digest: StandupDigest) -> str:
    now, before = digest.current, digest.previous
    text = (
        f"{now.executions} execution{'s' if now.executions != 1 else ''} "
        f"(previous window {before.executions}), pass rate {percent(now.pass_rate)}"
    )
    delta = digest.pass_rate_delta
    if delta is not None:
        sign = "+" if delta >= 0 else MINUS
        text += f" ({sign}{abs(delta) * 100:.1f} pts against {percent(before.pass_rate)})"
    if now.running:
        text += f", {now.running} still running"
    return text


def _newly_failing(
    digest: StandupDigest,
    link_for: LinkFor,
    verdicts: pd.DataFrame | None = None,
    names: ScenarioNames = NO_NAMES,
    categories: Mapping[tuple[int, int], str] | None = None,
) -> list[str] | None:
    """One line per newly failing scenario of an execution, its environments, and with the
    `verdicts` (`failure_verdicts` of the standup) the labels its failures there have ("new",
    "flaky"): the words every page gives them; then the `categories` the team's rules give its
    failures ("; category: product bug")."""
    newly = digest.newly_failing
    if newly is None:
        return None if len(digest.pairs) else []
    labels: dict[tuple[int, int, str], str] = {}
    if verdicts is not None and not verdicts.empty:
        own = verdicts.dropna(subset=["scenario_id"])
        columns = (own[c] for c in ("execution_id", "scenario_id", "environment", "label"))
        for e, sc, env, label in zip(*columns, strict=True):
            labels.setdefault((int(e), int(sc), str(env)), str(label))
    lines = []
    keys = ["plan_id", "plan", "scenario_id", "execution_id"]
    for (plan_id, plan, scenario, execution), rows in newly.groupby(keys, sort=False, dropna=False):
        label = chat_text(plan) if isinstance(plan, str) and plan else f"Plan {int(plan_id)}"
        envs = ", ".join(chat_text(e) for e in rows["environment"])
        cells = (labels.get((int(execution), int(scenario), str(e))) for e in rows["environment"])
        said = list(dict.fromkeys(label for label in cells if label is not None))
        lines.append(
            f"{_link(label, link_for('plan', int(plan_id)))}: "
            f"{scenario_words(int(scenario), names, first=False)} on "
            f"{envs} ({_execution(execution, link_for)})"
            + (f": {', '.join(said)}" if said else "")
            + _category((categories or {}).get((int(execution), int(scenario))))
        )
    return lines


def _category(categories: str | None) -> str:
    """The team's categories of a line's failures as it ends with them: "; category: product
    bug", "; category: infrastructure, product bug" (several: most failures first, as the
    alerts list them); "" for none. A category is team text, still data: chat text, never
    markup or a mention."""
    if not categories:
        return ""
    return f"; category: {chat_text(categories)}"
