"""The options several commands share, each declared once with its help text and default, and
the argument checks behind them (a bad value is a usage error, exit 2, in one sentence).

The named defaults are the library's own, from `dashboard.data.defaults`, which imports nothing:
`--help` and a usage error load no pandas or DuckDB.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

# The library's defaults, which the commands import from here.
from dashboard.data.defaults import DEFAULT_CONCURRENCY as DEFAULT_CONCURRENCY
from dashboard.data.defaults import DEFAULT_DAYS as DEFAULT_DAYS
from dashboard.data.defaults import DEFAULT_WAIT as DEFAULT_WAIT
from dashboard.data.defaults import MAX_CONCURRENCY as MAX_CONCURRENCY

DEFAULT_SECRETS = Path(".streamlit") / "secrets.toml"
DEFAULT_ZONE = "UTC"


# -- argument checks -----------------------------------------------------------------------------


def seconds(text: str | float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise typer.BadParameter(f"not a number of seconds: {text!r}") from None
    if not 0 <= value <= 3600:
        raise typer.BadParameter(f"must be between 0 and 3600, got {value}")
    return value


def positive_int(text: str | int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise typer.BadParameter(f"not a whole number: {text!r}") from None
    if value < 1:
        raise typer.BadParameter(f"must be at least 1, got {value}")
    return value


def concurrency(text: str | int) -> int:
    value = positive_int(text)
    if value > MAX_CONCURRENCY:
        raise typer.BadParameter(f"must be at most {MAX_CONCURRENCY}, got {value}")
    return value


def identifier(text: str | int) -> int:
    """An id of the service: a whole number from 1 to 2**63 - 1."""
    text = str(text)
    if not text.isascii() or not text.isdigit() or not 0 < int(text) < 2**63:
        raise typer.BadParameter(f"not an id: {text!r}")
    return int(text)


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, None: 1}
MIN_INTERVAL = 10.0
MAX_DURATION = 24 * 3600.0


def _seconds_in(text: str | float) -> float | None:
    """ "30m", "90s", "2h" or a number of seconds, in seconds; None when it is none of these."""
    match = _DURATION.match(str(text).lower())
    return None if match is None else float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


def duration(text: str | float) -> float:
    """ "30m", "90s", "2h", "0" (do not wait) or a number of seconds, at most 24 h."""
    value = _seconds_in(text)
    if value is None:
        raise typer.BadParameter(f"not a duration like 30m, 90s or 2h: {text!r}")
    if value > MAX_DURATION:
        raise typer.BadParameter(f"at most 24 h, got {value:.0f} s")
    return value


def interval(text: str | float) -> float:
    """ "5m", "90s", "1h" or a number of seconds, between 10 s and 24 h."""
    value = _seconds_in(text)
    if value is None:
        raise typer.BadParameter(f"not an interval like 5m, 90s or 1h: {text!r}")
    if not MIN_INTERVAL <= value <= MAX_DURATION:
        raise typer.BadParameter(
            f"must be between {MIN_INTERVAL:.0f} s and 24 h, got {value:.0f} s"
        )
    return value


def one_of(choices: tuple[str, ...]) -> Callable[[str], str]:
    """A check that the value is one of `choices` (shown in the option's metavar)."""

    def check(text: str) -> str:
        if text not in choices:
            raise typer.BadParameter(f"{text!r} is not one of {', '.join(choices)}")
        return text

    return check


def zone_checked(param: typer.CallbackParam, value: str) -> str:
    """A time zone the user named, checked by the dashboard's one rule (`windows.zone`)."""
    if value == param.default:
        return value  # the default is ours and valid: --help and usage errors load no pandas
    # Lazy: analytics.windows imports pandas, needed only when a zone is given.
    from dashboard.analytics.windows import zone

    try:
        zone(value)
    except (ValueError, KeyError):
        raise typer.BadParameter(f"not a time zone like Europe/Berlin: {value!r}") from None
    return value


# -- options several commands take ---------------------------------------------------------------

Secrets = Annotated[
    Path,
    typer.Option("--secrets", metavar="PATH", help="the secrets file to read the connection from"),
]
Wait = Annotated[
    float,
    typer.Option(
        "--wait",
        parser=seconds,
        metavar="SECONDS",
        help="seconds to wait for another process using the store",
    ),
]
ConnectionName = Annotated[
    str | None,
    typer.Option(
        "--connection",
        metavar="NAME",
        help="the table [connections.NAME] of the secrets file (default: the dashboard's own)",
        show_default=False,
    ),
]
DashboardUrl = Annotated[
    str | None,
    typer.Option(
        "--dashboard-url",
        metavar="URL",
        help="the dashboard's public address, for absolute links (default: "
        "$QA_DASHBOARD_PUBLIC_URL, else public_url in [dashboard] of the secrets file)",
        show_default=False,
    ),
]
