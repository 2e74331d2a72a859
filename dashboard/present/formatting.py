"""Small pure helpers that turn values into text a viewer reads: durations, date spans, safe text.

Nothing here imports Streamlit, so every rule is unit-tested directly.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Sequence
from datetime import date, datetime

import pandas as pd

from dashboard.columns.cells import EN_DASH

_MARKDOWN_SPECIALS = frozenset(string.punctuation)

INVISIBLE_MARKER = "\ufffd"
"""What a character that would reorder or hide text is shown as: the replacement character."""
# Bidirectional controls reorder what follows them ("evil\u202eexe.txt" reads "eviltxt.exe");
# zero-width and other format characters hide text or split a word invisibly; C0 and C1
# controls (other than tab, LF and CR) have no business in a name.
_BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_ZERO_WIDTH = "\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"
_CONTROLS = "".join(chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)] if chr(c) not in "\t\n\r")
_NEUTRALISE = str.maketrans(
    dict.fromkeys(_BIDI_CONTROLS + _ZERO_WIDTH + _CONTROLS, INVISIBLE_MARKER)
)
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# What chat Markdown (Slack, Teams, Mattermost, CommonMark) would read as formatting or a link.
_CHAT_MARKDOWN_SPECIALS = frozenset("\\`*_[]<>|~#")
WORD_JOINER = "\u2060"
"""An invisible character that joins what is around it: put inside a link's shape ("https:",
WJ, "//"), it keeps the text as written while no renderer sees a link there any more."""
# Where GitHub-flavoured Markdown sees a bare link even in escaped text (Streamlit's renderer
# links it after the escapes are read): after "://"'s colon, between "www" and its dot, and
# after an address's "@".
_AUTOLINK_SEAMS = re.compile(r"(?<=:)(?=//)|(?<=www)(?=\.)|(?<=@)(?=[-\w])", re.IGNORECASE)


def break_autolinks(text: str) -> str:
    """`text` with a `WORD_JOINER` where Markdown would start a bare link (http://, https://,
    www., an e-mail address or mailto:), so it reads the same and is never a link."""
    return _AUTOLINK_SEAMS.sub(WORD_JOINER, text)


def escape_markdown(text: object) -> str:
    """Make text from the service or the URL render literally in Streamlit markdown.

    Every ASCII punctuation mark is backslash-escaped (CommonMark allows escaping any of them),
    which also disarms Streamlit's own directives (`:red[...]`, `:material/icon:`, `$...$`) and
    raw HTML tags. Line breaks become spaces, so a name cannot start a heading or a list. Escapes
    do not stop a bare URL or address from becoming a link, so `break_autolinks` does.
    """
    flat = break_autolinks(" ".join(str(text).split()))
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else ch for ch in flat)


def escape_chat_markdown(text: object) -> str:
    """Text from the service made literal in a chat message's Markdown, on one line.

    Narrower than `escape_markdown`: only what chat Markdown reads as emphasis, code, links,
    tables, headings or HTML is escaped, so "v1.2 (beta)" stays readable in clients that show
    a stray backslash as it is.
    """
    flat = " ".join(str(text).split())
    return "".join("\\" + ch if ch in _CHAT_MARKDOWN_SPECIALS else ch for ch in flat)


# Where a chat makes a link or a mention of plain text: a URL's "://", a dot inside a word (a
# bare domain: "evil.example", "www.evil.example"), an "@" before a word (@channel, @here, @all,
# @everyone, an address) and Slack's "<!channel>" / "<@U123>" forms.
# A backslash in the name is no seam of its own: a chat may drop it as an escape, so each seam
# looks through backslashes ("www.\\http://" reads as "www.http://" there).
_CHAT_SEAMS = re.compile(
    r"(?<=:)(?=\\*/\\*/)|(?<=\w)(?=\\*\.\\*\w)|(?<=@)(?=\\*\w)|(?<=<)(?=\\*[!@#])"
)
# What may not stand as it is in a chat link's address: what ends or splits a Markdown link or a
# Slack `<url|text>` one, what RFC 3986 leaves out of a URL, and every space.
_URL_ESCAPED = frozenset(' ()<>[]|`"\\^{}')
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def chat_text(value: object) -> str:
    """Text from the service as a chat message shows it (the digest, *Copy for chat*, alerts):
    the pages' visible-text rule (nothing reorders or hides text; one line), no chat Markdown,
    and never a link or a mention: a `WORD_JOINER` sits in each place a chat would start one,
    so it reads the same."""
    return escape_chat_markdown(_CHAT_SEAMS.sub(WORD_JOINER, visible_text(value, one_line=True)))


def chat_url(url: str, *, relative: bool = True) -> str | None:
    """`url` fit to stand as a chat link's address: a web link (http, https, or relative to
    the dashboard) with every character that could end or split the link (spaces, brackets,
    `|`, control and invisible ones) %-encoded; None for any other scheme (`javascript:`,
    `data:`, `mailto:`), and with `relative=False` for a link with no scheme."""
    scheme = _SCHEME.match(url)
    if scheme is None and not relative:
        return None
    if scheme and scheme.group().lower() not in ("http:", "https:"):
        return None
    return "".join(
        "".join(f"%{byte:02X}" for byte in ch.encode())
        if ch in _URL_ESCAPED
        or ch.isspace()
        or ch.translate(_NEUTRALISE) != ch
        or not ch.isprintable()
        else ch
        for ch in url
    )


def chat_link(text: str, url: str | None, *, relative: bool = True) -> str:
    """A chat Markdown link: `text` (already chat text) to `url`, or `text` alone when there
    is no URL or it is no web link (`chat_url`)."""
    safe = chat_url(url, relative=relative) if url else None
    return f"[{text}]({safe})" if safe else text


def visible_text(value: object, *, one_line: bool = False) -> str:
    """Text from the service as a viewer should see it: nothing in it reorders or hides text.

    Every display path (tables, CSV, captions, notes, headers, chart labels, filter options)
    passes names through here. Bidirectional controls, zero-width characters and control
    characters become a visible `INVISIBLE_MARKER`, so "evil\u202eexe.txt" cannot pass for
    "eviltxt.exe" and a hidden character shows that it is there. `one_line` also folds every
    run of whitespace (line breaks included) into one space, for text shown inside a sentence.
    """
    text = str(value).translate(_NEUTRALISE)
    return " ".join(text.split()) if one_line else text


def visible_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with `visible_text` applied to its text cells and its column labels.

    Numbers, dates and flags are left as they are; the frame's shape and dtypes do not change.
    """
    shown = frame.copy()
    for position, dtype in enumerate(shown.dtypes):
        if pd.api.types.is_object_dtype(dtype) or isinstance(dtype, pd.StringDtype):
            column = shown.iloc[:, position]
            shown.isetitem(
                position,
                column.map(lambda v: visible_text(v) if isinstance(v, str) else v),
            )
    shown.columns = [
        visible_text(label) if isinstance(label, str) else label for label in shown.columns
    ]
    return shown


def human_duration(seconds: float | None) -> str:
    """A duration in the largest units that keep it readable: "850 ms", "42 s", "3 min 05 s"."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return EN_DASH
    if seconds < 0:
        return "-" + human_duration(-seconds)
    if seconds < 1:
        return f"{round(seconds * 1000)} ms"
    if seconds < 60:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s".replace(".0 s", " s")
    whole = round(seconds)
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours} h {minutes:02d} min"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours:02d} h"


def percent(fraction: float | None) -> str:
    """ "87.5 %" for 0.875; an en dash when there is nothing to divide."""
    if fraction is None or math.isnan(fraction):
        return EN_DASH
    return f"{fraction * 100:.1f} %"


def count_of(part: int, whole: int) -> str:
    """ "2 of 5"; an en dash when there is no whole (every execution a left-out outage, say):
    "0 of 0" reads as a verdict where there is none."""
    if whole == 0:
        return EN_DASH
    return f"{part:,} of {whole:,}"


def duration_unit(max_seconds: float) -> tuple[str, float]:
    """The unit of a chart axis for durations up to `max_seconds`: (label, seconds per unit)."""
    if not max_seconds or math.isnan(max_seconds) or max_seconds < 120:
        return "seconds", 1.0
    if max_seconds < 2 * 3600:
        return "minutes", 60.0
    return "hours", 3600.0


def format_day(day: date | datetime, *, with_year: bool = False) -> str:
    """ "1 Nov" or "1 Nov 2025": English month abbreviations whatever the locale."""
    text = f"{day.day} {_MONTHS[day.month - 1]}"
    return f"{text} {day.year}" if with_year else text


def weekday_time(stamp: object, tz: str) -> str:
    """ "Mon 7 Apr 09:12": a moment in zone `tz`, English names whatever the locale."""
    local: datetime = pd.Timestamp(stamp).tz_convert(tz).to_pydatetime()
    return f"{_WEEKDAYS[local.weekday()]} {format_day(local)} {local:%H:%M}"


def format_span(first: date | datetime, last: date | datetime, *, today: date) -> str:
    """ "1 Nov - 22 Nov" (with an en dash); years appear when the span is not all this year."""
    with_year = first.year != last.year or last.year != today.year
    start, end = format_day(first, with_year=with_year), format_day(last, with_year=with_year)
    return start if start == end else f"{start} {EN_DASH} {end}"


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """ "1 execution", "1,312 executions"."""
    word = noun if count == 1 else (nouns or noun + "s")
    return f"{count:,} {word}"


def describe_slice(
    count: int,
    noun: str,
    first: date | datetime | None,
    last: date | datetime | None,
    *,
    today: date,
    scope: str = "",
) -> str:
    """What slice of data a chart or table shows: "312 executions of Checkout, 1 Nov - 22 Nov"."""
    text = plural(count, noun)
    if scope:
        text += f" {scope}"
    if first is not None and last is not None:
        text += ", " + format_span(first, last, today=today)
    return text


def filter_scope(
    *,
    project: str | None = None,
    plan: str | None = None,
    statuses: Sequence[str] = (),
    mine: bool = False,
) -> str:
    """The filters in words, to follow a count: "of plan Checkout, status ERROR, started by you"."""
    parts = []
    if plan:
        parts.append(f"of plan {plan}")
    elif project:
        parts.append(f"in project {project}")
    if statuses:
        parts.append(f"with status {' or '.join(statuses)}")
    if mine:
        parts.append("started by you")
    return ", ".join(parts)


def utc_text(value: object) -> str:
    """A timestamp as "20 Nov 2026, 09:15 UTC"; a missing one as an en dash."""
    if value is None or pd.isna(value):
        return EN_DASH
    stamp = pd.Timestamp(value)
    return f"{format_day(stamp, with_year=True)}, {stamp:%H:%M} UTC"


def zone_text(value: object, tz: str) -> str:
    """A timestamp in the zone `tz` as "20 Nov 2026, 12:15 Europe/Istanbul" ("... UTC" in UTC);
    a missing one as an en dash."""
    if value is None or pd.isna(value):
        return EN_DASH
    stamp = pd.Timestamp(value)
    stamp = (stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp).tz_convert(tz)
    return f"{format_day(stamp, with_year=True)}, {stamp:%H:%M} {tz}"


def times_note(tz: str) -> str:
    """What a page says about its times: "Times are Europe/Istanbul." """
    return f"Times are {tz}."


def in_zone(frame: pd.DataFrame, tz: str) -> pd.DataFrame:
    """`frame` with every time-zone-aware datetime column shown in `tz` (the same instants)."""
    zoned = [
        position
        for position, dtype in enumerate(frame.dtypes)
        if isinstance(dtype, pd.DatetimeTZDtype) and str(dtype.tz) != tz
    ]
    if not zoned:
        return frame
    shown = frame.copy()
    for position in zoned:
        shown.isetitem(position, shown.iloc[:, position].dt.tz_convert(tz))
    return shown
