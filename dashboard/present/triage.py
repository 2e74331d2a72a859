"""The words of the failure verdicts (`analytics.triage`): each label as it is shown, and each
failed result's evidence as one line ("fails only on SAFARI 17 / macOS: 6 of 6 runs since
20 Nov"; "in the outage of 27 Nov 02:00: 95 % of the run failed with one message"). Pure: every
face (a page, the CSV, the digest, an alert, the gate) words a verdict through here.

Names from the service and from the team (environments, statuses, tickets, owners, mark kinds)
pass through `visible_text`, on one line.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from dashboard.analytics import triage
from dashboard.analytics.evidence import Shortfall
from dashboard.analytics.outages import CONFIRMED
from dashboard.columns import marks as mark_columns
from dashboard.present.formatting import format_day, plural, visible_text
from dashboard.present.known import ticket_label

LABEL_TEXT: dict[str, str] = {
    triage.INCOMPLETE: "\u22ef results incomplete",
    triage.OUTAGE: "\u26a1 outage",
    triage.KNOWN: "\u25c6 known",
    triage.FLAKY: "\u21c4 flaky",
    triage.RECOVERING: "\u2197 recovering",
    triage.ENVIRONMENT_SPECIFIC: "\u25d0 environment-specific",
    triage.BROKEN: "\u2716 broken",
    triage.NEW: "\u2731 new",
    triage.UNRESOLVED: "\u2716 unresolved",
}
"""Each label with a symbol, so it reads apart from its neighbours without a colour (the
states' symbols where a label is a state)."""


def label_text(label: object) -> str:
    """A label as shown; anything else as itself (made visible)."""
    if isinstance(label, str) and label in LABEL_TEXT:
        return LABEL_TEXT[label]
    return visible_text(label, one_line=True) if _given(label) else "\u2013"


def precedence_text() -> str:
    """The order in which the labels are tried, as one line."""
    return " > ".join(LABEL_TEXT[label].split(" ", 1)[1] for label in triage.PRECEDENCE)


def evidence_line(verdict: Mapping[str, object], *, tz: str = "UTC") -> str:
    """Why a failed result has its label, in one line, with its numbers and dates (in `tz`)."""
    label = verdict.get("label")
    if label == triage.INCOMPLETE:
        return "results incomplete: " + _incomplete(verdict)
    if label == triage.OUTAGE:
        return _outage(verdict, tz)
    if label == triage.KNOWN:
        return _known(verdict, tz)
    if label == triage.FLAKY:
        where = _env(verdict.get("evidence_environment"))
        return (
            f"{plural(_int(verdict, 'flips'), 'flip')} in {plural(_int(verdict, 'runs'), 'run')}"
            + (f" on {where}" if where else "")
            + _since(verdict, tz)
        )
    if label == triage.RECOVERING:
        return _recovering(verdict, tz)
    if label == triage.ENVIRONMENT_SPECIFIC:
        return (
            f"fails only on {_env(verdict.get('evidence_environment'))}: "
            f"{_int(verdict, 'failed_runs')} of {plural(_int(verdict, 'runs'), 'run')}"
            + _since(verdict, tz)
            + f"; passes elsewhere in {_int(verdict, 'elsewhere_passed')} of "
            f"{plural(_int(verdict, 'elsewhere_runs'), 'run')}"
        )
    if label == triage.BROKEN:
        return (
            f"failed {_int(verdict, 'failed_runs')} of its last "
            f"{plural(_int(verdict, 'runs'), 'run')}" + _since(verdict, tz)
        )
    if label == triage.NEW:
        where = _env(verdict.get("environment"))
        here = _int(verdict, "earlier_environment_runs")
        if here:
            return f"first failure on {where}, after {plural(here, 'run')} there without one"
        before = _int(verdict, "earlier_runs")
        return f"its first run on {where} failed; it ran {plural(before, 'time')} before elsewhere"
    if label == triage.UNRESOLVED:
        if not _given(verdict.get("runs")):
            return "no run of its scenario in the window to judge it by"
        return (
            f"failed {_int(verdict, 'failed_runs')} of its {plural(_int(verdict, 'runs'), 'run')}"
            + _since(verdict, tz)
        )
    return label_text(label)


def evidence_lines(verdicts: pd.DataFrame, *, tz: str = "UTC") -> pd.Series:
    """`evidence_line` of every row of a `failure_verdicts` frame, on its index."""
    return pd.Series(
        [evidence_line(row, tz=tz) for row in verdicts.to_dict("records")],
        index=verdicts.index,
        dtype="str",
    )


def _recovering(verdict: Mapping[str, object], tz: str) -> str:
    clean = _int(verdict, "clean_runs")
    passed = _day(verdict.get("passed_at"), tz)
    on = f" on {passed}" if passed else ""
    before = f"failing {_int(verdict, 'failed_runs')} of {plural(_int(verdict, 'runs'), 'run')}"
    if clean <= 1:
        return f"passes now: its last run passed{on}, after {before}"
    latest = f", the latest{on}" if passed else ""
    return f"passes now: passed its last {plural(clean, 'run')}{latest}, after {before}"


def _incomplete(verdict: Mapping[str, object]) -> str:
    reason = verdict.get("incomplete")
    execution = f"execution {_int(verdict, 'execution_id')}"
    if reason == triage.UNKNOWN_EXECUTION:
        return f"{execution} is not among the executions read"
    if reason == triage.RUNNING:
        return f"{execution} is still running"
    if reason == triage.SHORT:
        return Shortfall(failures=_int(verdict, "missing_failures")).text()
    if reason == triage.UNKNOWN_STATUS:
        return f'its status "{_name(verdict.get("level"))}" is not one this dashboard knows'
    if reason == triage.UNREADABLE_MARK:
        return (
            f"mark {_name(verdict.get('mark_id'))} names it but cannot be applied "
            f'(kind "{_name(verdict.get("mark_kind"))}", '
            f'target "{_name(verdict.get("mark_target"))}")'
        )
    return "its evidence could not be read"


def _outage(verdict: Mapping[str, object], tz: str) -> str:
    confirmed = verdict.get("outage") == CONFIRMED
    when = _moment(verdict.get("outage_start"), tz)
    text = f"in the {'' if confirmed else 'likely '}outage of {when}".replace("  ", " ")
    share = verdict.get("outage_share")
    if _given(share):
        text += f": {float(share) * 100:.0f} % of the run failed"  # type: ignore[arg-type]
        failed, alike = _int(verdict, "outage_failed"), verdict.get("outage_signature_failures")
        if _given(alike) and _given(verdict.get("outage_signature")):
            same = int(alike)  # type: ignore[call-overload]
            text += (
                " with one message" if same >= failed else f", {same} of {failed} with one message"
            )
    if confirmed:
        ticket = ticket_label(verdict.get("ticket"))
        text += f" (confirmed{', ' + ticket if ticket else ''})"
    return text


def _known(verdict: Mapping[str, object], tz: str) -> str:
    word = "accepted" if verdict.get("mark_kind") == mark_columns.ACCEPTED else "known"
    ticket = ticket_label(verdict.get("ticket"))
    parts = [ticket or "no ticket"]
    if _given(verdict.get("owner")):
        parts.append(f"owner {_name(verdict.get('owner'))}")
    until = _day(verdict.get("until"), "UTC")  # a mark's last day is a UTC day
    if until:
        parts.append(f"until {until}")
    return f"{word}: " + ", ".join(parts)


def _since(verdict: Mapping[str, object], tz: str) -> str:
    day = _day(verdict.get("since"), tz)
    return f" since {day}" if day else ""


def _day(value: object, tz: str) -> str:
    if not _given(value):
        return ""
    return format_day(pd.Timestamp(value).tz_convert(tz))


def _moment(value: object, tz: str) -> str:
    if not _given(value):
        return "an unknown time"
    local = pd.Timestamp(value).tz_convert(tz)
    return f"{format_day(local)} {local:%H:%M}"


def _env(value: object) -> str:
    return _name(value) if _given(value) else ""


def _name(value: object) -> str:
    return visible_text(value, one_line=True) if _given(value) else "\u2013"


def _int(verdict: Mapping[str, object], name: str) -> int:
    value = verdict.get(name)
    return int(value) if _given(value) else 0  # type: ignore[call-overload]


def _given(value: object) -> bool:
    if value is None:
        return False
    try:
        return not bool(pd.isna(value))
    except (TypeError, ValueError):
        return True
