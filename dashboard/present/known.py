"""What the team knows, in words and tables: kinds, targets, tickets, the standup's one line per
mark, outages, marks expiring soon, "looks fixed", the Known failures page's table and a mark's
change log, and the captions that say which figures leave known failures or outages out.

Notes, owners and tickets are the team's text: shown as text (a table cell, `st.text`), never as
Markdown or HTML, and exported through the CSV helpers that keep formulas inert.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from urllib.parse import urlsplit

import pandas as pd

from dashboard.analytics.marks import (
    CLOSED,
    EXPIRED,
    EXPIRING,
    LOOKS_FIXED_RUNS,
    OPEN,
    KnownSplit,
)
from dashboard.analytics.outages import CONFIRMED, OUTAGE_MIN_RESULTS, OUTAGE_SHARE
from dashboard.columns import marks as columns
from dashboard.columns.cells import EN_DASH
from dashboard.data.signin import MarkRights
from dashboard.data.store.marks import MarkTarget
from dashboard.present.formatting import percent, plural, visible_text, weekday_time


class MarkFilter(StrEnum):
    """Which marks the Known failures page lists (its `marks` parameter)."""

    OPEN = "open"
    EXPIRING = "expiring"
    EXPIRED = "expired"
    LOOKS_FIXED = "fixed"
    CLOSED = "closed"
    ALL = "all"

    @property
    def label(self) -> str:
        return _FILTER_LABELS[self]


_FILTER_LABELS = {
    MarkFilter.OPEN: "Open",
    MarkFilter.EXPIRING: "Expiring",
    MarkFilter.EXPIRED: "Expired",
    MarkFilter.LOOKS_FIXED: "Looks fixed",
    MarkFilter.CLOSED: "Closed",
    MarkFilter.ALL: "All",
}

KIND_LABELS: dict[str, str] = {
    columns.KNOWN_ISSUE: "Known issue",
    columns.ACCEPTED: "Accepted",
    columns.OUTAGE: "Outage",
    columns.NOT_AN_OUTAGE: "Not an outage",
}
STATE_LABELS: dict[str, str] = {
    OPEN: "Open",
    EXPIRING: "Expires soon",
    EXPIRED: "Expired",
    CLOSED: "Closed",
}
DASH = "\u2014"


def kind_label(kind: object) -> str:
    return KIND_LABELS.get(str(kind), str(kind))


def ticket_label(ticket: object) -> str:
    """A ticket link as people name it: its last path part ("SHOP-123"), else its host; "" for
    none."""
    if not isinstance(ticket, str) or not ticket:
        return ""
    parts = urlsplit(ticket)
    last = [p for p in parts.path.split("/") if p]
    return visible_text(last[-1] if last else (parts.hostname or ticket), one_line=True)


def _plan(plan_id: object, plan_names: Mapping[int, str]) -> str:
    if plan_id is None or pd.isna(plan_id):
        return ""
    return visible_text(plan_names.get(int(plan_id), f"Plan {int(plan_id)}"), one_line=True)  # type: ignore[call-overload]


ScenarioNamesById = Mapping[int, str]
"""The team's scenario names by id (`analytics.scenario_names.names_by_id`)."""


def scenario_text(
    scenario_id: object, scenario_names: ScenarioNamesById | None = None, *, first: bool = False
) -> str:
    """A scenario in a sentence: "Login works (31)" when the team named it, else "scenario
    31" ("Scenario 31" `first`). The name is text (`visible_text`), never markup."""
    number = None if scenario_id is None or pd.isna(scenario_id) else int(scenario_id)  # type: ignore[call-overload]
    name = (scenario_names or {}).get(number) if number is not None else None
    if isinstance(name, str) and name:
        return f"{visible_text(name, one_line=True)} ({number})"
    return f"{'Scenario' if first else 'scenario'} {scenario_id}"


def signature_label(signature: object) -> str:
    return (
        visible_text(signature, one_line=True)
        if isinstance(signature, str) and signature
        else "(no message)"
    )


def target_text(
    mark: Mapping[str, object],
    plan_names: Mapping[int, str],
    scenario_names: ScenarioNamesById | None = None,
) -> str:
    """A mark's target in words: 'failures "Timeout after {n} ms" in Checkout', "scenario 31 of
    Checkout on SAFARI 17 / macOS" ("Login works (31) of Checkout" by `scenario_names`),
    "execution 1005 of Checkout"."""
    target = mark.get("target")
    plan = _plan(mark.get("plan_id"), plan_names)
    if target == columns.FAILURE_GROUP:
        return f'failures "{signature_label(mark.get("signature"))}" {scope_text(mark, plan_names)}'
    if target == columns.EXECUTION:
        return f"execution {mark.get('execution_id')}" + (f" of {plan}" if plan else "")
    scenario = f"{scenario_text(mark.get('scenario_id'), scenario_names)} of {plan}"
    if target == columns.SCENARIO_ENVIRONMENT:
        return f"{scenario} on {visible_text(mark.get('environment'), one_line=True)}"
    return scenario


def scope_text(mark: Mapping[str, object], plan_names: Mapping[int, str]) -> str:
    """Where a failure group mark applies (`marks.group_scope`): "in Checkout", "on CHROME /
    Windows 10", "in Checkout on CHROME / Windows 10", "in every plan"."""
    plan = _plan(mark.get("plan_id"), plan_names)
    environment = mark.get("environment")
    on = (
        f"on {visible_text(environment, one_line=True)}"
        if isinstance(environment, str) and environment
        else ""
    )
    if plan:
        return f"in {plan} {on}".rstrip()
    return on or "in every plan"


def known_line(item: Mapping[str, object]) -> str:
    """One mark on the standup: "Login suite: 3 scenarios known — SHOP-123"."""
    plans = ", ".join(visible_text(p, one_line=True) for p in item["plans"])  # type: ignore[attr-defined]
    count = int(item["scenarios"])  # type: ignore[call-overload]
    word = "known" if item["kind"] != columns.ACCEPTED else "accepted"
    ticket = ticket_label(item.get("ticket"))
    text = f"{plans}: {plural(count, 'scenario')} {word}"
    return text + (f" {DASH} {ticket}" if ticket else " (no ticket)")


def outage_line(row: Mapping[str, object], plan_names: Mapping[int, str], tz: str) -> str:
    """One outage: "Checkout, execution 1005 (Tue 24 Nov 02:00): likely outage, 38 of 40 results
    failed, most with "UnreachableBrowser {…}"."""
    plan = _plan(row.get("plan_id"), plan_names) or visible_text(
        row.get("plan") or "", one_line=True
    )
    when = weekday_time(row.get("start"), tz)
    state = "outage" if row.get("state") == CONFIRMED else "likely outage"
    text = (
        f"{plan or 'No plan'}, execution {row.get('execution_id')} ({when}): {state}, "
        f"{int(row['failed'])} of {int(row['verdicts'])} results failed"  # type: ignore[call-overload]
    )
    signature = row.get("signature")
    if isinstance(signature, str):
        text += f', most with "{signature_label(signature)}"'
    ticket = ticket_label(row.get("ticket"))
    return text + (f" {DASH} {ticket}" if ticket else "")


def expiring_line(
    mark: Mapping[str, object],
    plan_names: Mapping[int, str],
    scenario_names: ScenarioNamesById | None = None,
) -> str:
    """A mark expiring soon: "SHOP-123 (scenario 31 of Checkout) expires in 2 days, after Thu
    26 Nov"."""
    days = int(mark["days_left"])  # type: ignore[call-overload]
    when = "today" if days == 0 else ("tomorrow" if days == 1 else f"in {days} days")
    name = ticket_label(mark.get("ticket")) or kind_label(mark.get("kind"))
    last = pd.Timestamp(mark["expires_on"])
    return (
        f"{name} ({target_text(mark, plan_names, scenario_names)}) stops applying {when}: "
        f"its last day is "
        f"{last:%a} {last.day} {last:%b}"
    )


def evidence_text(evidence: Mapping[str, object], tz: str) -> str:
    """A mark's target lately: "0 failures in the last 10 runs since 24 Nov", "failed in 3 of
    the last 10 runs, latest Tue 24 Nov 02:00", "no runs in the window"."""
    runs = int(evidence.get("runs") or 0)  # type: ignore[call-overload]
    failures = int(evidence.get("failures") or 0)  # type: ignore[call-overload]
    if runs == 0:
        return "no runs in the executions analysed"
    since = pd.Timestamp(evidence["since"]).tz_convert(tz)
    if failures == 0:
        return f"0 failures in the last {plural(runs, 'run')} since {since.day} {since:%b}"
    latest = evidence.get("last_failed")
    tail = (
        f", latest {weekday_time(latest, tz)}" if latest is not None and not pd.isna(latest) else ""
    )
    return f"failed in {failures} of the last {plural(runs, 'run')}{tail}"


# -- captions --------------------------------------------------------------------------------------

KNOWN_RULE = (
    "Known failures are those an open, unexpired mark covers (Known failures page); "
    '"without known failures" leaves them out of a pass rate\'s verdicts.'
)


KNOWN_RUNS_CAPTION = (
    "Unresolved and Known split each row's failed runs: known when an open, unexpired mark "
    "covers every failure of the run (Known failures page); Mark names its ticket. The score "
    "counts every run either way."
)


def known_caption(known: int, failed: int, *, counted_from: str | None = None) -> str:
    """ "3 of the 12 failures are known (marked), 9 unresolved. ..." and where they were counted."""
    text = (
        f"{known:,} of the {plural(failed, 'failure')} are known (marked), "
        f"{failed - known:,} unresolved. " + KNOWN_RULE
    )
    return text + (f" Counted in {counted_from}." if counted_from else "")


def split_caption(split: KnownSplit) -> str:
    """ "Failures in the finished executions: 18 unresolved, 27 known. Pass rate without known
    failures 93.1 % (with them 88.0 %)." and the rule."""
    return (
        f"Failures in the finished executions: {split.failed - split.known:,} unresolved, "
        f"{split.known:,} known. Pass rate without known failures "
        f"{percent(split.pass_rate_without_known)} (with them {percent(split.pass_rate)}). "
        + KNOWN_RULE
    )


OUTAGES_HELP = (
    f"An execution where at least {OUTAGE_SHARE:.0%} of its results failed (with at least "
    f"{OUTAGE_MIN_RESULTS} results) is a likely outage: most likely the grid or the service was "
    "down, not the tests. It is left out of pass rates, flaky scores and environment figures "
    "unless this is on."
)


def outages_caption(left_out: int, *, included: bool) -> str | None:
    """What the outage rule did to the figures of a page, or None when there were none."""
    if not left_out:
        return None
    rule = (
        f"an execution where at least {OUTAGE_SHARE:.0%} of its {OUTAGE_MIN_RESULTS} or more "
        "results failed, or one a viewer confirmed"
    )
    if included:
        return f"{plural(left_out, 'outage')} ({rule}) counted in these figures."
    return (
        f"{plural(left_out, 'likely outage')} ({rule}) left out of these figures and pass rates: "
        f'"Include outages" counts {"it" if left_out == 1 else "them"}.'
    )


# -- the Known failures page ---------------------------------------------------------------------


def marks_display(
    marks: pd.DataFrame,
    states: pd.DataFrame,
    evidence: pd.DataFrame,
    plan_names: Mapping[int, str],
    tz: str,
    scenario_names: ScenarioNamesById | None = None,
) -> pd.DataFrame:
    """One row per mark: what the page's table and its CSV hold (a scenario's target by its
    name when `scenario_names` has one)."""
    state = states.set_index("mark_id")["state"]
    proof = evidence.set_index("mark_id")
    rows = []
    for mark in marks.to_dict("records"):
        mark_id = mark["mark_id"]
        found = proof.loc[mark_id].to_dict() if mark_id in proof.index else None
        looks_fixed = bool(found and found["looks_fixed"])
        rows.append(
            {
                "Mark": mark_id,
                "State": STATE_LABELS[str(state[mark_id])]
                + (" (looks fixed)" if looks_fixed else ""),
                "Kind": kind_label(mark["kind"]),
                "Target": target_text(mark, plan_names, scenario_names),
                "Ticket": mark["ticket"] if isinstance(mark["ticket"], str) else None,
                "Evidence": evidence_text(found, tz) if found else EN_DASH,
                "Owner": visible_text(mark["owner"]) if isinstance(mark["owner"], str) else "",
                "Last day": _day(mark["expires_on"]),
                "Note": visible_text(mark["note"]) if isinstance(mark["note"], str) else "",
                "By": visible_text(mark["created_by"], one_line=True),
                "Made": mark["created_at"],
                "Closed by": visible_text(mark["closed_by"], one_line=True)
                if isinstance(mark["closed_by"], str)
                else "",
                "Closed": mark["closed_at"],
            }
        )
    # What a lead reads first, left to right: its state, what it covers, who looks after it and
    # until when, its ticket and evidence; who made and closed it, then the mark's id, last.
    columns_ = [
        "State", "Kind", "Target", "Owner", "Last day", "Ticket", "Evidence", "Note", "By",
        "Made", "Closed by", "Closed", "Mark",
    ]  # fmt: skip
    frame = pd.DataFrame(rows, columns=columns_)
    for name in ("Made", "Closed"):
        frame[name] = pd.to_datetime(frame[name], utc=True)
    return frame


def _day(value: object) -> str:
    if value is None or pd.isna(value):
        return ""
    stamp = pd.Timestamp(value)
    return f"{stamp:%Y-%m-%d}"


def log_display(log: pd.DataFrame) -> pd.DataFrame:
    """A mark's change log, oldest first, as text."""
    return pd.DataFrame(
        {
            "#": log["revision"].astype("int64"),
            "When": log["at"],
            "Who": [visible_text(a, one_line=True) for a in log["actor"]],
            "What": [visible_text(w) for w in log["what"]],
        }
    ).reset_index(drop=True)


def filter_rows(states: pd.DataFrame, evidence: pd.DataFrame, chosen: MarkFilter) -> pd.Series:
    """Which marks (by position) the page's filter keeps."""
    if chosen is MarkFilter.ALL:
        return pd.Series(True, index=states.index)
    if chosen is MarkFilter.LOOKS_FIXED:
        fixed = set(evidence.loc[evidence["looks_fixed"], "mark_id"])
        return states["mark_id"].isin(fixed)
    wanted = {
        MarkFilter.OPEN: (OPEN, EXPIRING),
        MarkFilter.EXPIRING: (EXPIRING,),
        MarkFilter.EXPIRED: (EXPIRED,),
        MarkFilter.CLOSED: (CLOSED,),
    }[chosen]
    return states["state"].isin(wanted)


def looks_fixed_reason(evidence: Mapping[str, object], tz: str) -> str:
    """What a mark closed as looks fixed says in its log."""
    return "looks fixed: " + evidence_text(evidence, tz)


def filter_words(chosen: MarkFilter, shown: int, total: int) -> str:
    what = {
        MarkFilter.OPEN: "open (expiring ones included)",
        MarkFilter.EXPIRING: "expiring within 3 days",
        MarkFilter.EXPIRED: "expired (they no longer apply)",
        MarkFilter.LOOKS_FIXED: (
            f"open whose target has not failed in its last {LOOKS_FIXED_RUNS} runs"
        ),
        MarkFilter.CLOSED: "closed (kept, no longer applying)",
        MarkFilter.ALL: "of every state",
    }[chosen]
    return f"{shown:,} of the company's {plural(total, 'mark')}: {what}."


def read_only(rights: MarkRights) -> str:
    """The one calm sentence of a viewer who may not mark, change or close marks here, saying
    why and how marking is turned on (`MarkRights.why_not`)."""
    if rights.why_not == "unverified":
        return (
            f"Marks are read-only for you: the sign-in service has not verified {rights.email}, "
            "so a mark could not truthfully say it was you. Ask this dashboard's operator to "
            "list your account in markers by its subject (sub:...)."
        )
    if rights.why_not == "not-a-marker":
        return (
            f"Marks are read-only for {rights.email}: only this dashboard's markers may mark, "
            "change or close them. Ask its operator to add you to markers."
        )
    return (
        "Marks are read-only here: this dashboard serves a team and nobody signs in to it, so a "
        "mark could not truthfully say who made it. Its operator can turn on viewer sign-in "
        "(docs/running-for-a-team.md) to let the team mark; python -m dashboard known add "
        "marks meanwhile."
    )


NOTHING_CHANGES = (
    "A mark is the team's note about a failure: it changes which figures count the failure as "
    "unresolved, and nothing on the service (no test, result or execution is touched)."
)


def today_utc(now: object) -> date:
    return pd.Timestamp(now).tz_convert("UTC").date()


LinkFor = Callable[[str, int], "str | None"]


# -- what the marking form offers ------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One target the marking form offers: how it reads, and what it is."""

    label: str
    target: MarkTarget


def _cap(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def group_choices(
    signatures: Iterable[object],
    *,
    plan_id: int | None,
    plan_names: Mapping[int, str],
    failed: pd.DataFrame | None = None,
) -> list[Choice]:
    """Each failure group's scopes, the plan it was made from first: in the page's plan (when
    it shows one; else the one plan where `failed` holds the group's failures, when there is
    one), on each environment it failed on (`failed`: its rows' `signature`, `plan_id` and
    `environment`, the version-independent label), and in every plan."""
    plans, environments = _where_groups_failed(failed)
    out = []
    # Groups per scenario repeat a signature: a mark is of the signature, offered once.
    for signature in dict.fromkeys(signatures):
        text = signature if isinstance(signature, str) else ""
        label = _cap(signature_label(text), 70)
        made_in = plan_id if plan_id is not None else _only(plans.get(text, ()))
        if made_in is not None:
            plan = _plan(made_in, plan_names)
            out.append(
                Choice(
                    f'Failures "{label}" in {plan}',
                    MarkTarget(columns.FAILURE_GROUP, signature=text, plan_id=made_in),
                )
            )
        for environment in environments.get(text, ()):
            out.append(
                Choice(
                    f'Failures "{label}" on {_cap(visible_text(environment, one_line=True), 40)}',
                    MarkTarget(columns.FAILURE_GROUP, signature=text, environment=environment),
                )
            )
        out.append(
            Choice(
                f'Failures "{label}" in every plan',
                MarkTarget(columns.FAILURE_GROUP, signature=text),
            )
        )
    return out


def _where_groups_failed(
    failed: pd.DataFrame | None,
) -> tuple[dict[str, list[int]], dict[str, list[str]]]:
    """The plans and the environments (sorted) each signature of `failed` failed in."""
    if failed is None or failed.empty or "signature" not in failed.columns:
        return {}, {}
    plans: dict[str, list[int]] = {}
    environments: dict[str, list[str]] = {}
    signature = failed["signature"].astype(object).where(failed["signature"].notna(), "")
    if "plan_id" in failed.columns:
        pairs = pd.DataFrame({"s": signature, "p": failed["plan_id"]}).dropna().drop_duplicates()
        for sig, plan in zip(pairs["s"].tolist(), pairs["p"].tolist(), strict=True):
            plans.setdefault(str(sig), []).append(int(plan))
    if "environment" in failed.columns:
        pairs = pd.DataFrame({"s": signature, "e": failed["environment"].astype(object)})
        pairs = pairs.dropna().drop_duplicates().sort_values(["s", "e"], kind="stable")
        for sig, env in zip(pairs["s"].tolist(), pairs["e"].tolist(), strict=True):
            if str(env):
                environments.setdefault(str(sig), []).append(str(env))
    return plans, environments


def _only(plans: Iterable[int]) -> int | None:
    distinct = set(plans)
    return distinct.pop() if len(distinct) == 1 else None


def scenario_choices(
    cells: Iterable[tuple[int, int, str | None]],
    plan_names: Mapping[int, str],
    scenario_names: ScenarioNamesById | None = None,
) -> list[Choice]:
    """For each (plan, scenario, environment) a page shows: the scenario on that environment
    and the scenario anywhere (each once), by its name when the team gave it one."""
    out: dict[tuple[object, ...], Choice] = {}
    for plan_id, scenario_id, environment in cells:
        plan = _plan(plan_id, plan_names)
        said = scenario_text(scenario_id, scenario_names, first=True)
        if environment:
            shown = visible_text(environment, one_line=True)
            out.setdefault(
                (plan_id, scenario_id, environment),
                Choice(
                    f"{said} of {plan} on {shown}",
                    MarkTarget(
                        columns.SCENARIO_ENVIRONMENT,
                        plan_id=int(plan_id),
                        scenario_id=int(scenario_id),
                        environment=str(environment),
                    ),
                ),
            )
        out.setdefault(
            (plan_id, scenario_id),
            Choice(
                f"{said} of {plan}",
                MarkTarget(columns.SCENARIO, plan_id=int(plan_id), scenario_id=int(scenario_id)),
            ),
        )
    return list(out.values())


def failure_choices(
    failed: pd.DataFrame,
    plan_names: Mapping[int, str],
    *,
    signatures: Iterable[object] = (),
    plan_id: int | None = None,
    scenario_names: ScenarioNamesById | None = None,
) -> list[Choice]:
    """What a page's "Mark as known…" offers for its failed cells (`failed`: plan_id,
    scenario_id, environment, and signature when it has one): each scenario on its environment
    and anywhere, then the failure groups of `signatures` in each scope (`group_choices`)."""
    cells = (
        (int(p), int(s), None if pd.isna(e) else str(e))
        for p, s, e in zip(
            failed["plan_id"], failed["scenario_id"], failed["environment"], strict=True
        )
        if not pd.isna(p) and not pd.isna(s)
    )
    return scenario_choices(cells, plan_names, scenario_names) + group_choices(
        dict.fromkeys(signatures), plan_id=plan_id, plan_names=plan_names, failed=failed
    )


def execution_choices(
    outages: pd.DataFrame, plan_names: Mapping[int, str], tz: str
) -> list[Choice]:
    """Each outage's execution, to confirm or dismiss."""
    return [
        Choice(
            _cap(outage_line(row, plan_names, tz), 110),
            MarkTarget(columns.EXECUTION, execution_id=int(row["execution_id"])),
        )
        for row in outages.to_dict("records")
    ]


SCOPE_HELP = (
    "A failure group is marked in one plan (the plan it was seen in comes first), on one "
    "environment (in every plan, on any browser version) or in every plan."
)
"""What the marking form says when it offers a failure group."""


OUTAGE_KINDS: tuple[str, ...] = (columns.OUTAGE, columns.NOT_AN_OUTAGE)
"""What the outage form offers: confirm it, or dismiss it."""


def evidence_caption(window: int) -> str:
    return (
        f"Evidence: each mark's target in each plan's last {window} finished executions. A mark "
        f"whose target ran {LOOKS_FIXED_RUNS} times in a row without failing looks fixed and "
        "can be closed in one click; closing keeps the mark and its log."
    )


def mark_heading(
    mark: Mapping[str, object],
    state: str,
    plan_names: Mapping[int, str],
    scenario_names: ScenarioNamesById | None = None,
) -> str:
    """A mark's one-line heading: "SHOP-123 · Known issue · scenario 31 of Checkout (Open)"."""
    ticket = ticket_label(mark.get("ticket"))
    target = target_text(mark, plan_names, scenario_names)
    parts = [p for p in (ticket, kind_label(mark.get("kind")), target) if p]
    return " \u00b7 ".join(parts) + f" ({STATE_LABELS.get(state, state)})"


def mark_lines(
    mark: Mapping[str, object], evidence: Mapping[str, object] | None, tz: str
) -> list[str]:
    """A mark's details, one plain line each: note, owner, ticket, evidence, who and when."""
    lines = [f"Mark {mark.get('mark_id')}"]
    note = mark.get("note")
    if isinstance(note, str) and note:
        lines.append(f"Note: {visible_text(note)}")
    owner = mark.get("owner")
    if isinstance(owner, str) and owner:
        lines.append(f"Owner: {visible_text(owner, one_line=True)}")
    ticket = mark.get("ticket")
    if isinstance(ticket, str) and ticket:
        lines.append(f"Ticket: {visible_text(ticket, one_line=True)}")
    last = _day(mark.get("expires_on"))
    lines.append(f"Last day it applies: {last}" if last else "No expiry")
    if evidence is not None:
        lines.append("Lately: " + evidence_text(evidence, tz))
    made = weekday_time(mark.get("created_at"), tz)
    lines.append(f"Made by {visible_text(mark.get('created_by'), one_line=True)}, {made}")
    closed = mark.get("closed_at")
    if closed is not None and not pd.isna(closed):
        who = visible_text(mark.get("closed_by"), one_line=True)
        lines.append(f"Closed by {who}, {weekday_time(closed, tz)}")
    return lines


def more_marks_caption(total: int, listed: int) -> str:
    return (
        f"The first {listed} of these {total:,} marks are listed with their log; the table and "
        "its CSV hold every one."
    )


def pending_outages_caption(count: int) -> str:
    if not count:
        return (
            "No likely outage in the last 90 days that is not confirmed or dismissed. "
            + OUTAGES_HELP
        )
    return (
        f"{plural(count, 'likely outage')} to look at: confirm one (an outage mark) or dismiss "
        "it (it then counts like any other execution). " + OUTAGES_HELP
    )


def state_by_mark(states: pd.DataFrame) -> pd.Series:
    """Each mark's state (`marks.mark_states`), by mark id."""
    return states.set_index("mark_id")["state"]


def pending_outages(outages: pd.DataFrame) -> pd.DataFrame:
    """The likely outages no mark has confirmed yet: what the page offers to confirm or dismiss."""
    return outages[outages["state"] != "confirmed"]
