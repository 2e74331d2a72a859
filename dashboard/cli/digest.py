"""`python -m dashboard digest --standup --to URL`: the standup digest, sent to a team's chat.

The digest is the page's own view (`present.standup_view`) over the same data (the page's
window and query, the results behind newly failing scenarios through the history store), written
by `present.digest`, so the chat says what the page says. It is sent as Markdown through
apprise, which knows Slack, Microsoft Teams, Mattermost, e-mail and many more by URL
(https://github.com/caronc/Apprise/wiki); `--to -` prints it instead. Links are absolute, made
from the dashboard's public address (`--dashboard-url`, else `QA_DASHBOARD_PUBLIC_URL`, else
`public_url` in the `[dashboard]` table of the secrets file).

The destination URL often holds a secret of its own (a webhook token): it is never printed; a
failure names the kind of service only. apprise is an optional dependency (`pip install
"qa-dashboard[team]"`); only sending needs it.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, time
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

import typer

from dashboard.cli.common import (
    OK,
    SERVICE,
    USAGE,
    Args,
    CliError,
    Parsed,
    client_for,
    open_store,
    parsed,
    read_configuration,
    service_problem,
)
from dashboard.cli.connections import targets
from dashboard.cli.options import (
    DEFAULT_SECRETS,
    DEFAULT_WAIT,
    DEFAULT_ZONE,
    ConnectionName,
    DashboardUrl,
    Secrets,
    Wait,
    zone_checked,
)

if TYPE_CHECKING:
    import pandas as pd

    from api_client import ApiClient
    from dashboard.analytics.group_rules import TeamRules
    from dashboard.data.connection import Connection
    from dashboard.data.store import HistoryStore

PRINT = "-"
ENV_PUBLIC_URL = "QA_DASHBOARD_PUBLIC_URL"
ENV_DIGEST_TO = "QA_DASHBOARD_DIGEST_TO"
SECRETS_DIGEST = "digest"
SECRETS_DASHBOARD = "dashboard"
TITLE = "Since the last standup"
APPRISE_MISSING = (
    'sending needs apprise: pip install "qa-dashboard[team]" (or `--to -` to print the digest)'
)


@dataclass(frozen=True)
class DigestOptions:
    """What a digest shows and where it goes (the worker keeps one for its daily digest)."""

    to: str
    dashboard_url: str | None
    project: int | None = None
    at: time | None = None  # the standup's local time; None: the page's default
    tz: str = "UTC"


DEFAULT_WEEKDAYS = "mon-fri"
DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WORKING_DAYS = frozenset(range(5))
"""Monday to Friday (`date.weekday()` numbers): the days a scheduled digest goes out by default,
as the standup page counts working days."""


def parse_weekdays(text: str) -> frozenset[int]:
    """Days of the week (`date.weekday()` numbers) from "mon-fri", "mon,wed,fri", "sun-thu" (a
    range may wrap past Sunday) or "mon-sun"; names of at least three letters, any case."""

    def day(word: str) -> int:
        word = word.strip().lower()
        found = [i for i, name in enumerate(DAY_NAMES) if len(word) >= 3 and name.startswith(word)]
        if len(found) != 1:
            raise ValueError(word)
        return found[0]

    days: set[int] = set()
    try:
        for part in text.split(","):
            first, dash, last = part.partition("-")
            start = day(first)
            end = day(last) if dash else start
            days.update((start + i) % 7 for i in range((end - start) % 7 + 1))
    except ValueError:
        raise typer.BadParameter(
            f"not days of the week like mon-fri or mon,wed,fri: {text!r}"
        ) from None
    return frozenset(days)


def _project(text: str) -> int:
    if not text.isascii() or not text.isdigit() or not 0 < int(text) < 2**63:
        raise typer.BadParameter(f"not a project id: {text!r}")
    return int(text)


def _time_of_day(text: str) -> time:
    # Lazy: analytics.windows imports pandas, needed only when a time is given.
    from dashboard.analytics.windows import parse_time_of_day

    try:
        return parse_time_of_day(text)
    except ValueError:
        raise typer.BadParameter(f"not a time of day like 09:15: {text!r}") from None


# -- the digest's options; the worker takes them as --digest-to, --digest-project, ... ----------


def _to(flag: str) -> Any:
    return typer.Option(
        flag,
        metavar="URL",
        help="an apprise URL (slack://..., msteams://..., mailto://..., json://host/path), "
        f"or - to print the Markdown (default: ${ENV_DIGEST_TO}, else `to` in "
        f"[{SECRETS_DIGEST}] of the secrets file: a webhook URL holds a secret, better kept "
        "out of the command line)",
        show_default=False,
    )


def _project_option(flag: str) -> Any:
    return typer.Option(
        flag, parser=_project, metavar="ID", help="only this project's plans", show_default=False
    )


def _zone_option(flag: str) -> Any:
    return typer.Option(
        flag,
        callback=zone_checked,
        metavar="ZONE",
        help="the time zone of the standup and of the times shown",
    )


To = Annotated[str | None, _to("--to")]
Project = Annotated[int | None, _project_option("--project")]
Zone = Annotated[str, _zone_option("--tz")]
DigestTo = Annotated[str | None, _to("--digest-to")]
DigestProject = Annotated[int | None, _project_option("--digest-project")]
DigestZone = Annotated[str, _zone_option("--digest-tz")]
DigestAt = Annotated[
    str | None,
    typer.Option(
        "--digest-at",
        metavar="HH:MM",
        help="the local time (--digest-tz) after which the day's digest is sent; it is also "
        "the standup time its window counts from",
        show_default=False,
    ),
]
DigestWeekdays = Annotated[
    frozenset[int],
    typer.Option(
        "--digest-weekdays",
        parser=parse_weekdays,
        metavar="DAYS",
        help="the days of the week (in --digest-tz) the daily digest goes out: mon-fri (the "
        "default), mon,wed,fri, sun-thu, mon-sun",
        show_default=False,
    ),
]


def digest_command(
    ctx: typer.Context,
    standup: Annotated[
        bool,
        typer.Option(
            "--standup",
            help="the standup digest: what changed since the last standup (the only digest so far)",
        ),
    ],
    to: To = None,
    project: Project = None,
    at: Annotated[
        time | None,
        typer.Option(
            parser=_time_of_day,
            metavar="HH:MM",
            help="the standup's local time (default: the page's, 09:30)",
            show_default=False,
        ),
    ] = None,
    tz: Zone = DEFAULT_ZONE,
    dashboard_url: DashboardUrl = None,
    connection: ConnectionName = None,
    secrets: Secrets = DEFAULT_SECRETS,
    wait: Wait = DEFAULT_WAIT,
) -> Parsed:
    """Compute the standup digest, as the Standup page shows it, and send it as Markdown through
    apprise (or print it with --to -)."""
    return parsed(ctx, run)


def dashboard_url(
    given: str | None, secrets: Mapping[str, Any], env: Mapping[str, str]
) -> str | None:
    """The dashboard's public address (flag, environment, secrets file), ending in "/"."""
    table = secrets.get(SECRETS_DASHBOARD)
    configured = table.get("public_url") if isinstance(table, Mapping) else None
    url = given or env.get(ENV_PUBLIC_URL) or configured
    if not url:
        return None
    url = str(url).strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
        raise CliError(
            "the dashboard's public address must be an http(s) URL without a query, "
            "like https://qa.example.com/dashboard/",
            USAGE,
        )
    return url if url.endswith("/") else url + "/"


def destination(given: str | None, secrets: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """Where the digest goes: the flag, else $QA_DASHBOARD_DIGEST_TO, else [digest] to."""
    table = secrets.get(SECRETS_DIGEST)
    configured = table.get("to") if isinstance(table, Mapping) else None
    to = given or env.get(ENV_DIGEST_TO) or configured
    if not isinstance(to, str) or not to.strip():
        raise CliError(
            f"where should the digest go? --to URL (or - to print it), ${ENV_DIGEST_TO}, or "
            f"`to` in [{SECRETS_DIGEST}] of the secrets file",
            USAGE,
        )
    return to.strip()


def run(args: Args, env: Mapping[str, str]) -> int:
    secrets = read_configuration(args.secrets, env)
    options = DigestOptions(
        to=destination(args.to, secrets, env),
        dashboard_url=dashboard_url(args.dashboard_url, secrets, env),
        project=args.project,
        at=args.at,
        tz=args.tz,
    )
    check_destination(options)
    names = [args.connection] if args.connection else []
    with targets(secrets, env, names) as (target, *_):
        connection = target.connection
        store = open_store(connection, secrets, env, wait=args.wait)
        with store, client_for(connection) as client:
            text = standup_markdown(client, store, connection, options)
        deliver(text, options)
    return OK


def check_destination(options: DigestOptions) -> None:
    """Refuse at once what cannot be sent: no public address for links, apprise missing, a
    destination apprise does not understand."""
    if options.to == PRINT:
        if options.dashboard_url is None:
            print(
                "note: no dashboard address given (--dashboard-url); links are relative.",
                file=sys.stderr,
            )
        return
    if options.dashboard_url is None:
        raise CliError(
            "a digest sent to a chat needs the dashboard's public address for its links: "
            f"--dashboard-url https://..., ${ENV_PUBLIC_URL} or public_url in "
            f"[{SECRETS_DASHBOARD}] of the secrets file",
            USAGE,
        )
    notifier(options.to)


def standup_markdown(
    client: ApiClient,
    store: HistoryStore | None,
    connection: Connection,
    options: DigestOptions,
    *,
    now: datetime | None = None,
) -> str:
    """The standup's view (`present.standup_view`, the page's own) over the same data, in
    Markdown with absolute links, `SHOWN_PER_SECTION` items a section."""
    # Lazy: the client, the data and the views load pydantic, pandas and DuckDB.
    from api_client import ApiError
    from dashboard.data import live, results_fanout
    from dashboard.data.pairs import result_pairs
    from dashboard.present.standup_view import (
        PLAN_EVIDENCE,
        SHOWN_PER_SECTION,
        execution_places,
        plan_names_of,
        standup_needs,
        standup_view,
    )
    from dashboard.state import links
    from dashboard.state.params import ViewState
    from dashboard.state.query import standup_query, standup_window

    current = now or connection.clock or datetime.now(UTC)
    state = ViewState(project=options.project, tz=options.tz, standup_at=options.at)
    window = standup_window(state, current, tz=options.tz)
    marks = _marks_of(store, connection)
    fanout, every_plan = None, None
    try:
        data = live.load_executions(client, standup_query(state, window))
        # Outages are one line each, left out of the sections and the pass rate (as on the page).
        needs = standup_needs(data.executions, marks, window=window, now=current)
        if needs.results_needed:
            every_plan = live.load_plans(client, active_only=False).plans
            pairs, finished = result_pairs(data.executions, every_plan, needs.results_needed)
            fanout = results_fanout.fetch_results(client, pairs, finished=finished, store=store)
    except ApiError as error:
        raise CliError(service_problem(error, connection), SERVICE) from None

    # A results link carries the execution's plan and start, so the page finds it at once.
    places = execution_places(data.executions)

    def link_for(kind: str, ident: int) -> str | None:
        if kind == PLAN_EVIDENCE:
            link = links.executions_link(ident)
        else:
            plan_id, started = places.get(int(ident), (None, None))
            link = links.results_link(ident, plan_id=plan_id, started=started)
        return links.absolute(link, options.dashboard_url)

    view = standup_view(
        needs,
        fanout,
        link_for=link_for,
        plan_names=plan_names_of(data.executions),
        plans=every_plan,
        names=_names_of(store, connection),
        rules=_rules_of(store, connection) if fanout is not None else None,
    )
    text = view.chat(link_for, limit=SHOWN_PER_SECTION)
    page = links.standup_link(state)
    return text + f"\n[Open the standup page]({links.absolute(page, options.dashboard_url)})\n"


def _marks_of(store: HistoryStore | None, connection: Connection) -> pd.DataFrame:
    """The company's marks in its store (none without a store, or when it cannot be read:
    the digest then says every failure as unresolved, as the page would)."""
    # Lazy, for a fast --help: it loads pandas.
    from dashboard.columns.marks import MARK_COLUMNS
    from dashboard.columns.shapes import empty
    from dashboard.data.store.errors import StoreError

    if store is None:
        return empty(MARK_COLUMNS)
    try:
        return store.marks(connection.company_id)
    except StoreError as error:
        print(f"note: the marks could not be read ({error.message})", file=sys.stderr)
        return empty(MARK_COLUMNS)


def _names_of(store: HistoryStore | None, connection: Connection) -> pd.DataFrame | None:
    """The company's scenario names in its store (None without a store, or when they cannot
    be read: the digest then says "scenario 402", as before names)."""
    from dashboard.data.store.errors import StoreError

    if store is None:
        return None
    try:
        return store.scenario_names(connection.company_id)
    except StoreError as error:
        print(f"note: the scenario names could not be read ({error.message})", file=sys.stderr)
        return None


def _rules_of(store: HistoryStore | None, connection: Connection) -> TeamRules | None:
    """The company's rules for failure groups in force in its store, compiled as the pages
    compile them (a pattern this version cannot use is left out), for the categories of the
    newly failing scenarios' failures (None without a store, or when they cannot be read: the
    digest then says no category, as before rules)."""
    from dashboard.analytics.group_rules import team_rules
    from dashboard.data.store import group_rules as stored_rules
    from dashboard.data.store.errors import StoreError

    if store is None:
        return None
    try:
        stored = store.group_rules(connection.company_id)
    except StoreError as error:
        print(f"note: the rules could not be read ({error.message})", file=sys.stderr)
        return None
    return team_rules(stored, stored_rules.usable, stored_rules.search_many)


def deliver(text: str, options: DigestOptions) -> None:
    """Print the digest (`--to -`) or send it; `CliError` when the destination refused it."""
    if options.to == PRINT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    import apprise  # lazy: optional (the "team" extra), and only sending needs it

    sender, kind = notifier(options.to)
    sent = sender.notify(body=text, title=TITLE, body_format=apprise.NotifyFormat.MARKDOWN)
    if not sent:
        raise CliError(f"the {kind} destination did not accept the digest", SERVICE)
    print(f"Sent the standup digest to {kind}.", file=sys.stderr)


def notifier(url: str) -> tuple[Any, str]:
    """An apprise notifier for `url` and the kind of service it is (its URL is never shown)."""
    try:
        # Lazy, for a fast --help: apprise is optional, and only sending needs it.
        import apprise
    except ImportError:
        raise CliError(APPRISE_MISSING, USAGE) from None
    notifier = apprise.Apprise()
    scheme = url.split("://", 1)[0].lower() if "://" in url else "?"
    if not notifier.add(url):
        raise CliError(
            f"apprise does not understand the destination (a {scheme}:// URL); see "
            "https://github.com/caronc/Apprise/wiki for the forms it takes",
            USAGE,
        )
    return notifier, f"{scheme}://"
