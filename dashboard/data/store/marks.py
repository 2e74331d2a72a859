"""What may be written into the known-failure ledger: a mark's fields, checked, each problem
said in a sentence.

The ledger (`store.ledger`) refuses what these checks refuse, whoever writes (a page's form,
`python -m dashboard known add`, an import), so a page can check a form before it is sent and
the store still never holds a `javascript:` ticket or a note of a megabyte. Text is kept as it
was typed: showing and exporting it as text, never as markup or a formula, is the job of the
layers that show and export it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import urlsplit

from dashboard.columns import marks as columns

MAX_NOTE = 2000
"""Characters a note may hold."""
MAX_TICKET = 2000
"""Characters a ticket link may hold (a link, not a document)."""
MAX_NAME = 200
"""Characters an owner's or an author's name may hold (one line)."""
MAX_SIGNATURE = 4000
"""Characters of a failure group's signature (the normalised message)."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_ID = re.compile(r"^[0-9a-f]{12}$")


class MarkRefused(ValueError):
    """A mark (or a change of one) the ledger will not write; `problems` are sentences, one per
    problem, fit to show as they are."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(" ".join(problems))
        self.problems = problems


class MarkNotFound(MarkRefused):
    """No mark of that id in this company's ledger (it does not exist, or it is another
    company's: the two are not told apart)."""


@dataclass(frozen=True)
class MarkTarget:
    """What a mark is about (see `dashboard.columns.marks`): `target` and the fields it uses."""

    target: str
    signature: str | None = None
    plan_id: int | None = None
    scenario_id: int | None = None
    environment: str | None = None
    execution_id: int | None = None


@dataclass(frozen=True)
class MarkDraft:
    """A mark as a person or a script proposes it, before the ledger gives it an id."""

    target: MarkTarget
    kind: str
    ticket: str | None = None
    note: str | None = None
    owner: str | None = None
    expires_on: date | None = None


@dataclass(frozen=True)
class MarkChange:
    """New values for an open mark's kind, ticket, note, owner and expiry (all of them: what
    did not change is given as it was)."""

    kind: str
    ticket: str | None = None
    note: str | None = None
    owner: str | None = None
    expires_on: date | None = None


EDITABLE: tuple[str, ...] = ("kind", "ticket", "note", "owner", "expires_on")
"""What a change of an open mark may touch (its target is what it is)."""


def new_mark_id(raw: str) -> str:
    """A mark's id from 32 hex digits (a UUID's): its first twelve, short enough to type."""
    return raw[:12]


def is_mark_id(text: str) -> bool:
    return bool(_ID.match(text))


def cleaned(text: str | None) -> str | None:
    """Text as stored: stripped at both ends; empty is none."""
    if text is None:
        return None
    stripped = text.strip()
    return stripped or None


def _quoted(text: str, limit: int = 60) -> str:
    shown = _CONTROL.sub(" ", text)
    return f'"{shown[:limit]}…"' if len(shown) > limit else f'"{shown}"'


# What a ticket link may not hold: characters chats and Markdown read as markup (a Slack
# `<url|text>`, a `[text](url)`, a code span) and the others RFC 3986 leaves out of a URL.
_TICKET_MARKUP = {
    "<": "angle brackets",
    ">": "angle brackets",
    "|": "a vertical bar",
    "[": "square brackets",
    "]": "square brackets",
    "(": "parentheses",
    ")": "parentheses",
    "{": "braces",
    "}": "braces",
    "`": "a backtick",
    "^": "a caret",
    "\\": "a backslash",
    '"': "a double quote",
}
_WEB_LINK = re.compile(r"https?://", re.IGNORECASE)
_PLAIN_ECHO = re.compile(r"[!#-;=?-Z_a-z~]{1,60}")  # printable ASCII, none of the markup


def _invisible(char: str) -> bool:
    """A control, format (bidi, zero-width) or line-separator character."""
    return unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp")


def _not_a_web_link(ticket: str) -> str:
    echo = f" ({_quoted(ticket)} is not)" if _PLAIN_ECHO.fullmatch(ticket) else ""
    return (
        f"The ticket must be a web link starting with http:// or https://{echo}, so that it "
        "opens the ticket and nothing else."
    )


def ticket_problem(ticket: str | None) -> str | None:
    """Why `ticket` cannot be a mark's ticket link, or None when it can (or there is none).

    A ticket is an absolute http(s) link to a host, and nothing else: no spaces, no markup a chat
    or Markdown would read, no invisible character, no user name before the host (which would
    make `https://tracker.example@evil.example/` look like the tracker). The sentence names the
    problem; it repeats the value only when it is short plain text."""
    if ticket is None:
        return None
    if len(ticket) > MAX_TICKET:
        return (
            f"The ticket link has {len(ticket):,} characters; a link holds at most {MAX_TICKET:,}."
        )
    if not _WEB_LINK.match(ticket):
        return _not_a_web_link(ticket)
    if any(_invisible(char) for char in ticket):
        return (
            "The ticket link holds an invisible or control character (a line break, a tab, a "
            "direction mark or a zero-width space, say); paste the link again as plain text."
        )
    if any(char.isspace() for char in ticket):
        return "The ticket link holds a space; a link has none (write a space in it as %20)."
    markup = sorted({word for char, word in _TICKET_MARKUP.items() if char in ticket})
    if markup:
        return (
            f"The ticket link holds {', '.join(markup)}, which chats and Markdown read as "
            "markup; a link has none (write such a character %-encoded)."
        )
    try:
        parts = urlsplit(ticket)
        host, _port = parts.hostname, parts.port
    except ValueError:
        return _not_a_web_link(ticket)
    if not host:
        return _not_a_web_link(ticket)
    if "@" in parts.netloc:
        return (
            "The ticket link names a user name or a password before its host; a ticket link has "
            "none, so that it shows the host it opens."
        )
    if not host.isascii():
        return (
            "The ticket link's host has letters outside ASCII, which can pass for others; write "
            "the host as the tracker's address bar shows it (xn--...)."
        )
    return None


def note_problem(note: str | None) -> str | None:
    if note is not None and len(note) > MAX_NOTE:
        return f"The note has {len(note):,} characters; a note holds at most {MAX_NOTE:,}."
    return None


def name_problem(name: str | None, what: str) -> str | None:
    if name is None:
        return None
    if len(name) > MAX_NAME:
        return f"The {what} has {len(name):,} characters; a name holds at most {MAX_NAME}."
    if _CONTROL.search(name):
        return f"The {what} must be one line of text."
    return None


def expiry_problem(expires_on: date | None, today: date) -> str | None:
    if expires_on is not None and expires_on < today:
        return (
            f"The expiry {expires_on:%d %b %Y} is in the past (today is {today:%d %b %Y}, UTC): "
            "choose today or a later day, or no expiry."
        )
    return None


def author_problem(by: str | None) -> str | None:
    if not by or not by.strip():
        return "Say who you are (a name) before marking, so that the mark says who made it."
    return name_problem(by.strip(), "name of who marks")


def target_problems(target: MarkTarget) -> list[str]:
    """What is missing or wrong in a target's fields."""
    kind = target.target
    if kind not in columns.TARGETS:
        return [
            f"A mark targets a failure group, a scenario, a scenario on one environment or an "
            f"execution; {_quoted(str(kind))} is none of these."
        ]
    problems = []
    for name in ("plan_id", "scenario_id", "execution_id"):
        value = getattr(target, name)
        if value is not None and not 0 < int(value) < 2**63:
            problems.append(f"The {name.removesuffix('_id')} id {value} is not an id.")
    if kind == columns.FAILURE_GROUP:
        if target.signature is None:
            problems.append("A failure group mark needs the group's message.")
        elif len(target.signature) > MAX_SIGNATURE:
            problems.append(
                f"The failure group's message has {len(target.signature):,} characters; at most "
                f"{MAX_SIGNATURE:,} are kept."
            )
    if kind in (columns.SCENARIO, columns.SCENARIO_ENVIRONMENT) and (
        target.plan_id is None or target.scenario_id is None
    ):
        problems.append("A scenario mark needs the plan and the scenario.")
    if kind == columns.SCENARIO_ENVIRONMENT and not cleaned(target.environment):
        problems.append("A scenario-on-an-environment mark needs the environment's name.")
    if kind == columns.EXECUTION and target.execution_id is None:
        problems.append("An outage mark needs the execution.")
    return problems


def kind_problem(target: str, kind: str) -> str | None:
    allowed = columns.KINDS_FOR.get(target)
    if allowed is None or kind in allowed:
        return None
    if target == columns.EXECUTION:
        return "An execution is marked as an outage, or dismissed as not an outage."
    return f"A failure is marked as a known issue or accepted, not as {_quoted(kind)}."


def draft_problems(draft: MarkDraft, *, by: str | None, today: date) -> list[str]:
    """Every reason the ledger would refuse `draft` from `by` on `today` (UTC)."""
    problems = [*target_problems(draft.target)]
    found = [
        kind_problem(draft.target.target, draft.kind),
        ticket_problem(cleaned(draft.ticket)),
        note_problem(cleaned(draft.note)),
        name_problem(cleaned(draft.owner), "owner"),
        expiry_problem(draft.expires_on, today),
        author_problem(by),
    ]
    return problems + [p for p in found if p]


def change_problems(
    change: MarkChange, *, target: str, by: str | None, today: date, expiry_was: date | None
) -> list[str]:
    """Every reason the ledger would refuse `change` of an open mark of `target` by `by`. An
    expiry left as it was is not refused for having passed meanwhile."""
    found = [
        kind_problem(target, change.kind),
        ticket_problem(cleaned(change.ticket)),
        note_problem(cleaned(change.note)),
        name_problem(cleaned(change.owner), "owner"),
        None if change.expires_on == expiry_was else expiry_problem(change.expires_on, today),
        author_problem(by),
    ]
    return [p for p in found if p]


def utc_day(day: date | None) -> datetime | None:
    """A day as the instant stored for it: its midnight, UTC."""
    return None if day is None else datetime(day.year, day.month, day.day, tzinfo=UTC)


def draft_row(draft: MarkDraft) -> dict[str, Any]:
    """The stored fields of a draft (text cleaned, the expiry as its UTC midnight)."""
    target = {f.name: getattr(draft.target, f.name) for f in fields(draft.target)}
    return {
        **target,
        "signature": draft.target.signature,  # kept as given: "" is the group without a message
        "environment": cleaned(draft.target.environment),
        "kind": draft.kind,
        "ticket": cleaned(draft.ticket),
        "note": cleaned(draft.note),
        "owner": cleaned(draft.owner),
        "expires_on": utc_day(draft.expires_on),
    }
