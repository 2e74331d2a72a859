"""The demo data as a running service would serve it today.

The sandbox's demo ends at a fixed moment (`sandbox.settings.DEFAULT_NOW`) so that its answers
never change, and the embedded demo counts its windows back from that moment. A dashboard
pointed at a service counts them back from the wall clock instead, so the tests that point one
at a sandbox saw the demo slide out of "the last 7 days" as the calendar moved on (a CI run a
week after that moment failed on it). Their sandboxes end the demo at `TODAY`: the fixed
moment moved on by whole days, so the data, its times of day and its planted cases are the
demo's, and its newest executions are never more than a day old.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sandbox import SandboxSettings
from sandbox.settings import DEFAULT_NOW

_DAY = timedelta(days=1)

# Read once per test run, so every sandbox of the run ends the demo at the same moment.
TODAY = DEFAULT_NOW + max(0, (datetime.now(UTC) - DEFAULT_NOW) // _DAY) * _DAY


def today_settings(**changes: Any) -> SandboxSettings:
    """The demo's settings with `changes`, ending at `TODAY`."""
    return SandboxSettings(now=TODAY, **changes)
