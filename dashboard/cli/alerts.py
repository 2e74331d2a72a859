"""The worker's alerts: after each pass, a message per change a team wants to hear about at
once (`analytics.alerts`: a plan turned red or back to green, a scenario became broken or
flaky, a known-failure mark expires tomorrow or looks fixed), each with a link to its evidence;
a plan's scenarios of one kind, and the marks of one kind, share a message, and a pass sends at
most `--alerts-max` messages and then one that says how many more changes there are
(`present.alerts.alert_messages`).

    python -m dashboard store sync --every 5m --alerts-to slack://... \\
        --dashboard-url https://qa.example.com/ [--alerts-quiet 20:00-07:00 --alerts-tz ZONE] \\
        [--alerts-on red,green,broken,flaky,expiring,looks-fixed] \\
        [--alerts-for plan:42=red,green --alerts-for project:3=none] [--alerts-max 10]

Sent through apprise as the digest is. Each change is noted in the store (its alerts table)
when found, then sent under the store's "alerts" lock and noted announced once its message is
accepted: a second worker on the same store finds it announced (one message per change, however
many workers), a destination that refuses leaves it for the next pass (never sent twice), and a
change found in quiet hours waits in the store until they end.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from datetime import time as time_of_day
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer

from dashboard.cli.common import USAGE, Args, CliError, open_store, store_problem
from dashboard.cli.digest import dashboard_url, notifier
from dashboard.cli.options import zone_checked

if TYPE_CHECKING:
    from dashboard.analytics.alerts import AlertChoice, Change
    from dashboard.cli.connections import Target
    from dashboard.data.store import HistoryStore
    from dashboard.data.store.alerts import Alert

ENV_ALERTS_TO = "QA_DASHBOARD_ALERTS_TO"
SECRETS_ALERTS = "alerts"
ALERTS_LOCK = "alerts"
ALERT_DAYS = 14
"""Days of stored history the changes are looked for in (the states' windows fit in it)."""
KIND_WORDS = ("red", "green", "broken", "flaky", "expiring", "looks-fixed")
ALL_KINDS = "all"
MAX_MESSAGES = 10
"""Messages a pass sends at most (`--alerts-max`); the other changes are said in one more."""


def _kinds(text: str) -> frozenset[str]:
    words = {w.strip().lower() for w in text.split(",") if w.strip()}
    if words == {"none"}:
        return frozenset()
    if words == {"all"}:
        return frozenset(KIND_WORDS)
    unknown = words - set(KIND_WORDS)
    if unknown or not words:
        raise typer.BadParameter(
            f"not kinds of change: {text!r} (use {', '.join(KIND_WORDS)}, all or none)"
        )
    return frozenset(words)


class Scoped(NamedTuple):
    """One --alerts-for: a plan's or a project's own choice of kinds."""

    scope: str  # "plan" or "project"
    ident: int
    kinds: frozenset[str]


class QuietHours(NamedTuple):
    start: time_of_day
    end: time_of_day


def _scoped(text: str) -> Scoped:
    scope, equals, kinds = text.partition("=")
    kind, colon, ident = scope.strip().partition(":")
    if not equals or not colon or kind not in ("plan", "project") or not ident.isdigit():
        raise typer.BadParameter(
            f"not plan:ID=KINDS or project:ID=KINDS (like plan:42=red,green): {text!r}"
        )
    return Scoped(kind, int(ident), _kinds(kinds))


def _quiet(text: str) -> QuietHours:
    # Lazy: analytics.windows imports pandas, needed only when quiet hours are given.
    from dashboard.analytics.windows import parse_time_of_day

    first, dash, last = text.partition("-")
    try:
        if not dash:
            raise ValueError(text)
        start, end = parse_time_of_day(first.strip()), parse_time_of_day(last.strip())
    except ValueError:
        raise typer.BadParameter(f"not quiet hours like 20:00-07:00: {text!r}") from None
    if start == end:
        raise typer.BadParameter("quiet hours must not start when they end")
    return QuietHours(start, end)


def _most(text: str | int) -> int:
    text = str(text)
    if not text.strip().isdigit() or not 1 <= int(text) <= 1000:
        raise typer.BadParameter(f"not a number of messages from 1 to 1000: {text!r}")
    return int(text)


# -- the worker's alert options (`store sync`) -----------------------------------------------

AlertsTo = Annotated[
    str | None,
    typer.Option(
        "--alerts-to",
        metavar="URL",
        help=f"an apprise URL for the alerts (default: ${ENV_ALERTS_TO}, else `to` in "
        f"[{SECRETS_ALERTS}] of the secrets file); without one, no alerts. After each pass, "
        "a message per change (a plan turned red or back to green, a scenario became broken "
        "or flaky, a known-failure mark expires tomorrow or looks fixed); the store remembers "
        "what it announced, so however many workers share it, a change is announced once. "
        "Needs --dashboard-url for the links.",
        show_default=False,
    ),
]
AlertsOn = Annotated[
    frozenset[str],
    typer.Option(
        "--alerts-on",
        parser=_kinds,
        metavar="KINDS",
        help=f"which changes to announce: {','.join(KIND_WORDS)} (the default), or some",
        show_default=False,
    ),
]
AlertsFor = Annotated[
    list[Scoped],
    typer.Option(
        "--alerts-for",
        parser=_scoped,
        metavar="plan:ID=KINDS",
        help="the changes announced for one plan or project instead (plan:42=red,green, "
        "project:3=none); a plan's choice comes before its project's; repeat for several",
        show_default=False,
    ),
]
AlertsQuiet = Annotated[
    QuietHours | None,
    typer.Option(
        "--alerts-quiet",
        parser=_quiet,
        metavar="HH:MM-HH:MM",
        help="send nothing in these hours (--alerts-tz); what is found meanwhile is sent at "
        "the first pass after them",
        show_default=False,
    ),
]
AlertsMax = Annotated[
    int,
    typer.Option(
        "--alerts-max",
        parser=_most,
        metavar="N",
        help="send at most N messages a pass, then one that says how many more changes "
        "there are, with a link to the dashboard",
    ),
]
AlertsZone = Annotated[
    str,
    typer.Option(
        "--alerts-tz",
        callback=zone_checked,
        metavar="ZONE",
        help="the time zone of --alerts-quiet",
    ),
]


@dataclass(frozen=True)
class AlertOptions:
    to: str
    dashboard_url: str
    choice: AlertChoice
    quiet: tuple[time_of_day, time_of_day] | None = None
    tz: str = "UTC"
    days: int = ALERT_DAYS
    horizon: timedelta = field(default=timedelta(days=1))
    most: int = MAX_MESSAGES


def alert_options(
    args: Args, secrets: Mapping[str, Any], env: Mapping[str, str]
) -> AlertOptions | None:
    """The worker's alerts from its options, the environment or the secrets file; None when
    no destination is configured. Refuses at once what cannot be sent."""
    from dashboard.analytics.alerts import AlertChoice  # lazy: analytics loads pandas

    table = secrets.get(SECRETS_ALERTS)
    configured = table.get("to") if isinstance(table, Mapping) else None
    to = args.alerts_to or env.get(ENV_ALERTS_TO) or configured
    if not isinstance(to, str) or not to.strip():
        if args.alerts_quiet is not None or args.alerts_for:
            raise CliError(
                f"--alerts-quiet and --alerts-for need --alerts-to (or ${ENV_ALERTS_TO})", USAGE
            )
        return None
    base = dashboard_url(args.dashboard_url, secrets, env)
    if base is None:
        raise CliError(
            "alerts need the dashboard's public address for their links: --dashboard-url "
            "https://... (or $QA_DASHBOARD_PUBLIC_URL, or public_url in [dashboard])",
            USAGE,
        )
    notifier(to.strip())  # apprise present, and the URL one it knows
    choice = AlertChoice(
        default=args.alerts_on,
        plans=tuple((i, k) for scope, i, k in args.alerts_for if scope == "plan"),
        projects=tuple((i, k) for scope, i, k in args.alerts_for if scope == "project"),
    )
    return AlertOptions(
        to=to.strip(),
        dashboard_url=base,
        choice=choice,
        quiet=args.alerts_quiet,
        tz=args.alerts_tz,
        most=args.alerts_max,
    )


def is_quiet(options: AlertOptions, now: datetime) -> bool:
    """Whether `now` falls in the quiet hours (which may span midnight)."""
    if options.quiet is None:
        return False
    # Lazy, for a fast --help: it loads pandas.
    from dashboard.analytics.windows import zone

    local = now.astimezone(zone(options.tz)).time().replace(tzinfo=None)
    start, end = options.quiet
    return start <= local < end if start < end else local >= start or local < end


class _History(NamedTuple):
    """What the changes are found in: the stored executions, results and marks."""

    executions: Any
    results: Any
    marks: Any


def _history(
    store: HistoryStore, company_id: int, options: AlertOptions, now: datetime
) -> _History:
    # Lazy, for a fast --help: it loads pandas.
    from dashboard.data.frames import executions_of_history

    since = now - timedelta(days=options.days)
    executions = executions_of_history(
        store.executions(date_from=since), store.status_counts(date_from=since)
    )
    return _History(executions, store.results_in_window(date_from=since), store.marks(company_id))


def _changes(history: _History, options: AlertOptions, now: datetime) -> list[Change]:
    from dashboard.analytics import alerts

    executions, results, marks = history
    changes = [
        *alerts.plan_changes(
            executions, now, horizon=options.horizon, results=results, marks=marks
        ),
        *alerts.scenario_changes(executions, results, now, horizon=options.horizon, marks=marks),
        *alerts.mark_changes(marks, results, now),
    ]
    changes = alerts.with_projects(changes, executions)
    return [change for change in changes if options.choice.wanted(change)]


def found_changes(
    store: HistoryStore, company_id: int, options: AlertOptions, now: datetime
) -> list[Change]:
    """Every change the stored history shows at `now` that the options announce."""
    return _changes(_history(store, company_id, options, now), options, now)


def found_alerts(
    store: HistoryStore, company_id: int, options: AlertOptions, now: datetime
) -> list[Alert]:
    """The changes of `found_changes`, worded to be noted: each scenario by the team's name
    and owner (the store's names of `company_id`), a red plan's failing scenarios named."""
    from dashboard.analytics.alerts import RED
    from dashboard.data.store.alerts import Alert
    from dashboard.present.alerts import (
        ScenarioNames,
        alert_body,
        alert_title,
        failing_scenarios,
        scenario_categories,
    )

    history = _history(store, company_id, options, now)
    changes = _changes(history, options, now)
    names = ScenarioNames.of(store.scenario_names(company_id)) if changes else ScenarioNames()
    red = {c.execution_id for c in changes if c.kind == RED and c.execution_id is not None}
    ruled = _ruled(store, company_id, history.results, red, names) if red else None

    def failing(change: Change) -> tuple[int, ...]:
        if change.kind != RED or change.execution_id is None:
            return ()
        return failing_scenarios(history.results, change.execution_id)

    def categories(change: Change) -> dict[int, str]:
        if change.kind != RED or change.execution_id is None:
            return {}
        return scenario_categories(history.results, ruled, change.execution_id)

    return [
        Alert(
            key=c.key,
            kind=c.kind,
            plan_id=c.plan_id,
            project_id=c.project_id,
            title=alert_title(c, names),
            body=alert_body(c, None, names, failing(c), categories(c)),
            link=evidence_link(c),
        )
        for c in changes
    ]


def _ruled(
    store: HistoryStore,
    company_id: int,
    results: Any,
    executions: set[int],
    names: Any,
) -> Any:
    """The team's rules (`group_rules`) applied to the failures of `executions`: each failed
    result's category (None when the team has no rule in force)."""
    from dashboard.analytics import group_rules
    from dashboard.data.store import group_rules as stored_rules

    rules = group_rules.team_rules(
        store.group_rules(company_id), stored_rules.usable, stored_rules.search_many
    )
    own = results[results["execution_id"].isin(executions)]
    return group_rules.ruled_failures(rules, own, names=names.names) if len(own) else None


def evidence_link(change: Change) -> str:
    """The page that shows why: the two executions side by side, the scenario's history, or
    the known failures."""
    # Lazy, for a fast --help: it loads pandas.
    from dashboard.analytics import alerts
    from dashboard.state import links

    if change.kind in (alerts.RED, alerts.GREEN) and change.plan_id is not None:
        return links.compare_link(
            change.plan_id, before=change.previous_execution_id, after=change.execution_id
        )
    if change.plan_id is not None and change.scenario_id is not None and change.mark_id is None:
        return links.scenario_link(change.plan_id, change.scenario_id)
    return links.known_link()


def alert_pass(
    options: AlertOptions,
    target: Target,
    secrets: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    wait: float,
    now: datetime | None = None,
) -> str:
    """Note the changes of `target`'s stored history, then send what is pending (unless in
    quiet hours); the log line. Never raises for the store or the destination: what was not
    sent is sent on a later pass."""
    # Lazy, for a fast --help: the data layer loads pandas and DuckDB.
    from dashboard.data.store.errors import StoreError

    at = now or datetime.now(UTC)
    connection = target.connection
    where = f"alerts of {target.name}"
    try:
        store = open_store(connection, secrets, env, wait=wait)
        # Noting and sending under one lock: two workers neither note one change at once nor
        # send what the other is sending.
        with store, store.exclusive(ALERTS_LOCK, wait=wait):
            new = store.note_alerts(found_alerts(store, connection.company_id, options, at), now=at)
            if is_quiet(options, at):
                pending = len(store.pending_alerts())
                return f"{where}: {new} new, {pending} held for the quiet hours"
            sent, messages, refused = _send_pending(store, options, at)
    except CliError as error:
        return f"{where}: not sent: {error}"
    except StoreError as error:
        return f"{where}: not sent: {store_problem(error)}"
    text = f"{where}: {new} new, {sent} sent"
    if messages != sent:
        text += f" in {messages} message{'s' if messages != 1 else ''}"
    if refused:
        text += f"; the {refused} destination refused: the rest are tried again next pass"
    return text


def _send_pending(
    store: HistoryStore, options: AlertOptions, at: datetime
) -> tuple[int, int, str | None]:
    """Send the pending alerts as `present.alerts.alert_messages` words them (grouped, at most
    `options.most` messages and one that says how many more), noting each message's changes
    announced once it is accepted; stop at the first refusal. (Changes announced, messages
    sent, the refusing destination's kind of URL or None.)"""
    # Lazy: apprise is optional and only sending needs it; the views load pandas.
    import apprise

    from dashboard.present.alerts import alert_messages
    from dashboard.state import links

    sent = messages = 0
    target, kind = notifier(options.to)
    for message in alert_messages(
        store.pending_alerts(),
        absolute=lambda link: links.absolute(link, options.dashboard_url),
        home=options.dashboard_url,
        most=options.most,
    ):
        if not target.notify(
            body=message.body, title=message.title, body_format=apprise.NotifyFormat.MARKDOWN
        ):
            return sent, messages, kind
        store.announced(*message.keys, now=at)
        sent += len(message.keys)
        messages += 1
    return sent, messages, None
