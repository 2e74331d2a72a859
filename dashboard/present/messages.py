"""The one place that turns an `ApiError` into a short message a viewer can act on.

A message says what happened and what to do. It is built only from the exception's class and its
typed attributes (operation, status code, service code, missing authority), never from the
service's own message text or the request: neither a token nor a stack trace can reach the page.
Filter values a message names are the page's own, passed in by the caller and shown literally.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from api_client import (
    ApiConnectionError,
    ApiError,
    ApiStatusError,
    ApiTimeoutError,
    AuthenticationError,
    CompanyNotFoundError,
    ExecutionNotFoundError,
    InvalidRequestError,
    NoExecutionsMatchError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RedirectError,
    RequestValidationError,
    ResponseValidationError,
    ScenarioNotFoundError,
    ServerError,
    TokenError,
    UnauthorizedUserError,
)
from dashboard.data.connection import (
    ENV_BASE_URL,
    ENV_CA_BUNDLE,
    ENV_COMPANY_ID,
    ENV_EMAIL,
    ENV_TOKEN,
    SECRETS_SECTION,
    Source,
)
from dashboard.present.formatting import escape_markdown

Severity = Literal["error", "warning", "info"]

# The sidebar form's labels, named here so that messages sending a viewer to the form use the
# words the viewer sees (dashboard/ui/sidebar.py draws it).
FORM_TITLE = "Connect to a service"
FORM_EMAIL_LABEL = "Your e-mail (optional)"

_CODE_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")

REFRESH_HINT = "Press **Refresh** in the sidebar to try again."
CONNECTION_HINT = (
    f"Check the connection: the sidebar's *{FORM_TITLE}* form, `.streamlit/secrets.toml` or the "
    "`QA_DASHBOARD_*` environment variables."
)


@dataclass(frozen=True)
class UserMessage:
    """A message for the page: its text (markdown, no service data) and how loud to show it."""

    text: str
    severity: Severity = "error"


def describe_error(
    error: ApiError,
    *,
    part: str | None = None,
    filters: Sequence[str] = (),
    source: Source | None = None,
) -> UserMessage:
    """Word `error` for a viewer.

    `part` names what could not be loaded ("scenario 12"); `filters` are the filter values the
    request carried, in words ("status PROCESSING"), so a rejected request can name them;
    `source` is where the connection comes from, so advice names the setting the viewer has.
    """
    what = part or (f"the {error.operation.label}" if error.operation else "the data")

    if isinstance(error, RequestValidationError):
        return _describe_invalid_argument(error, what, source)
    if source == "session" and not isinstance(error, _ONLY_FROM_A_WORKING_SERVICE):
        return form_connection_failed(what)
    if isinstance(error, ApiTimeoutError):
        return UserMessage(
            f"The service did not answer in time while loading {what}, even after retrying. "
            f"{REFRESH_HINT} A narrower date range also helps."
        )
    if isinstance(error, ApiConnectionError):
        return UserMessage(
            f"Could not reach the service while loading {what}, even after retrying. "
            f"{CONNECTION_HINT} Then {_lower_first(REFRESH_HINT)}"
        )
    if isinstance(error, ResponseValidationError):
        return UserMessage(
            f"The service's answer for {what} was not in the expected format (for example a web "
            f"page instead of JSON). Check that the base URL is the service's API address. "
            f"{REFRESH_HINT}"
        )
    if isinstance(error, RedirectError):
        return _describe_redirect(error, what, source)
    if isinstance(error, TokenError):
        # The client's own sentence: which token source (a path, a program, a host) and why.
        return UserMessage(
            f"No token to load {what}: {escape_markdown(error.message)} Check the connection's "
            f"token settings (docs/service-tokens.md), then {_lower_first(REFRESH_HINT)}"
        )
    if isinstance(error, ApiStatusError):
        return _describe_status(error, what, filters, source)
    return UserMessage(f"Could not load {what}. {REFRESH_HINT}")


# What a malformed token contains, as `api_client.auth.token_problem` words it ("it contains a
# space"): plain words only, so nothing of the token itself can pass through.
_TOKEN_PROBLEM_RE = re.compile(r"; it contains (an? [A-Za-z -]{1,40})(?: \(|$)")
# An origin as `api_client.errors` keeps it: scheme, host (a name or an IP, v6 in brackets), port.
_ORIGIN_RE = re.compile(
    r"^https?://[A-Za-z0-9.\-]{1,253}(?::\d{1,5})?$|^https?://\[[0-9A-Fa-f:.]{2,45}\](?::\d{1,5})?$"
)


def _where_to_fix(source: Source | None, setting: str) -> str:
    """Where the viewer corrects a connection setting, for their kind of connection."""
    if source == "session":
        return f"in the sidebar's *{FORM_TITLE}* form, then connect again"
    if source == "secrets":
        return f"in the `[{SECRETS_SECTION}]` table of `.streamlit/secrets.toml`"
    if source == "environment":
        return f"in `{setting}`"
    return f"in the sidebar's *{FORM_TITLE}* form or where the connection is configured"


def _describe_invalid_argument(
    error: RequestValidationError, what: str, source: Source | None
) -> UserMessage:
    """A request refused before it was sent, worded by the argument at fault.

    The token's problem is said in the client's own words ("it contains a space"), which name a
    kind of character and never the token; nothing else of the error's text is repeated.
    """
    argument = error.argument
    if argument == "token":
        found = _TOKEN_PROBLEM_RE.search(str(error))
        if found:
            problem = f"it contains {found.group(1)}"
        elif "empty" in str(error):
            problem = "it is empty"
        else:
            problem = "it is not text"
        return UserMessage(
            f"The token is not valid: {problem}. A token is one line of visible ASCII "
            f"characters, without spaces. Check it {_where_to_fix(source, ENV_TOKEN)} "
            f"(paste it again, from the service itself rather than a document)."
        )
    if argument == "company_id":
        return UserMessage(
            f"The company id is not valid: it must be a whole number of 1 or more. Check it "
            f"{_where_to_fix(source, ENV_COMPANY_ID)}."
        )
    if argument == "base_url":
        return UserMessage(
            f"The base URL is not valid: it must start with http:// or https:// and name a host "
            f"(the part before /api). Check it {_where_to_fix(source, ENV_BASE_URL)}."
        )
    if argument == "verify":
        return UserMessage(
            "The CA bundle could not be loaded, so no request was sent. Check the file named by "
            f"`{ENV_CA_BUNDLE}` or `ca_bundle` in `.streamlit/secrets.toml`: it must be a "
            "readable PEM file."
        )
    return UserMessage(
        f"Could not ask for {what}: a filter value is not valid. Reset the filters (open the "
        f"page from the sidebar) and choose them again."
    )


def _describe_redirect(error: RedirectError, what: str, source: Source | None) -> UserMessage:
    """A redirect is never followed: the base URL is not the API's own address.

    Only the target's origin is named (a path or query may carry a ticket), as code so that
    markdown cannot make it a link, and only when it has the shape of an origin.
    """
    origin = error.location_origin
    where = f"to `{origin}`" if origin and _ORIGIN_RE.match(origin) else "elsewhere"
    return UserMessage(
        f"The service redirected the request for {what} {where} (HTTP {error.status_code}); "
        f"redirects are not followed. Check the base URL "
        f"{_where_to_fix(source, ENV_BASE_URL)}: it must be the API's own address (the part "
        f"before /api), not a login or a web page."
    )


def describe_failures(
    failures: Iterable[tuple[int, ApiError]], *, source: Source | None = None
) -> list[str]:
    """One message per scenario whose results could not be loaded ((scenario id, error) each);
    the others' results are shown as usual."""
    return [
        describe_error(error, part=f"scenario {scenario}", source=source).text
        for scenario, error in failures
    ]


def describe_left_out(failures: Sequence[tuple[int, ApiError]], pairs: int) -> str | None:
    """One message for the scenario results an analytic goes without ((scenario id, error)
    each, of `pairs` asked for), naming the first failure; None when none failed."""
    if not failures:
        return None
    scenario, error = failures[0]
    text = describe_error(error, part=f"scenario {scenario}").text
    return (
        f"{len(failures):,} of {pairs:,} scenario results could not be loaded and are left out; "
        f"the first: {text}"
    )


# Answers only the service itself gives, to a token it accepted: worded as usual for the form.
_ONLY_FROM_A_WORKING_SERVICE = (
    UnauthorizedUserError,
    ExecutionNotFoundError,
    ScenarioNotFoundError,
    NoExecutionsMatchError,
)


def form_connection_failed(what: str) -> UserMessage:
    """The one sentence for any failure of a connection made with the sidebar's form.

    The form makes the server fetch an address a viewer typed. Were a closed port, a web server
    and an API worded apart, the form would be a port scanner of the server's network, so
    nothing of the answer (or its absence) is told apart here: the sentence depends only on
    what was being loaded.
    """
    return UserMessage(
        f"Could not load {what} with the connection of the sidebar's *{FORM_TITLE}* form: no "
        f"usable answer came back. Check the base URL (the part before /api), the token and the "
        f"company id, then connect again."
    )


def _describe_status(
    error: ApiStatusError, what: str, filters: Sequence[str], source: Source | None
) -> UserMessage:
    code = f" ({error.code})" if error.code and _CODE_RE.match(error.code) else ""
    if isinstance(error, PermissionDeniedError):
        authority = error.missing_authority
        needs = f"the `{authority}` authority" if authority else "the authority needed"
        return UserMessage(
            f"Your token lacks {needs}, so {what} cannot be shown. Ask a company administrator "
            f"to grant it, or connect with the token of a user who has it."
        )
    if isinstance(error, UnauthorizedUserError):
        return UserMessage(
            "The service refused *Only my executions*: the e-mail address given for this "
            "connection is not the address of the token's user. Turn *Only mine* off, or use "
            f"your own address: {escape_markdown(email_setting(source))}."
        )
    if isinstance(error, AuthenticationError):
        return UserMessage(
            f"The service did not accept the token while loading {what}: it is missing, wrong "
            f"or expired{code}. Get a fresh token and paste it in the sidebar's *{FORM_TITLE}* "
            f"form, or update the configured one."
        )
    if isinstance(error, InvalidRequestError) and filters:
        # The connection's company id is checked before a page is drawn, so a 400 on a
        # filtered request is the filter's doing (an unsupported status, for instance).
        return UserMessage(
            f"The service rejected a filter value ({escape_markdown(', '.join(filters))}) "
            f"while loading {what}{code}. Choose another value, or clear that filter."
        )
    if isinstance(error, InvalidRequestError):
        return UserMessage(
            f"The service rejected the request for {what} as malformed{code}. The company id is "
            f"the usual cause: check that it is the id of the token's company. {CONNECTION_HINT}"
        )
    if isinstance(error, ExecutionNotFoundError):
        return UserMessage(
            "The service has no such execution: it may have been deleted, or the link's "
            "execution id is wrong. Pick an execution on the *Executions* page.",
            "warning",
        )
    if isinstance(error, ScenarioNotFoundError):
        return UserMessage(
            f"The service has no results for {what}: the scenario is unknown to it "
            f"(it may have been removed from the plan).",
            "warning",
        )
    if isinstance(error, NoExecutionsMatchError):
        return UserMessage("No executions match these filters.", "info")
    if isinstance(error, NotFoundError):
        return UserMessage(
            f'The service answered "not found" for {what}{code}. Check that the base URL is the '
            f"service's API address (its paths start with /api)."
        )
    if isinstance(error, RateLimitError):
        return UserMessage(
            f"The service is limiting how often it answers (HTTP 429) and {what} could not be "
            f"loaded after waiting. Wait a minute, then press **Refresh** in the sidebar."
        )
    if isinstance(error, CompanyNotFoundError):
        return UserMessage(
            f"The service says your user's company does not exist{code}, so {what} cannot be "
            f"loaded. Check that the token belongs to the right account, or ask the service's "
            f"administrators."
        )
    if isinstance(error, ServerError):
        return UserMessage(
            f"The service failed while loading {what} (HTTP {error.status_code}{code}), even "
            f"after retrying. {REFRESH_HINT} If it keeps failing, tell the service's operators."
        )
    return UserMessage(
        f"The service answered HTTP {error.status_code}{code} while loading {what}. {REFRESH_HINT}"
    )


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def email_setting(source: Source | None) -> str:
    """Where the viewer sets the e-mail address of "only mine", for their kind of connection.

    Plain text: it is shown in notes (escaped) as well as in messages.
    """
    form = f'the sidebar\'s "{FORM_TITLE}" form'
    if source == "session":
        return (
            f'connect again with {form} and fill in "{FORM_EMAIL_LABEL}" (a pasted connection '
            "has no e-mail address unless it is given there)"
        )
    if source == "secrets":
        return f"set email in the [{SECRETS_SECTION}] table of .streamlit/secrets.toml"
    if source == "environment":
        return f"set {ENV_EMAIL}"
    return (
        f"set {ENV_EMAIL}, or email in the [{SECRETS_SECTION}] table of .streamlit/secrets.toml, "
        f'or "{FORM_EMAIL_LABEL}" in {form}'
    )
