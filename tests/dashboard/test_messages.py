"""Each `ApiError` becomes a short message: what happened and what to do, never a secret."""

from __future__ import annotations

import re

import pytest

from api_client import (
    ApiConnectionError,
    ApiError,
    ApiStatusError,
    ApiTimeoutError,
    AuthenticationError,
    CompanyNotFoundError,
    ExecutionNotFoundError,
    InternalServerError,
    InvalidRequestError,
    NoExecutionsMatchError,
    NotFoundError,
    Operation,
    PermissionDeniedError,
    RateLimitError,
    RequestValidationError,
    ResponseValidationError,
    ScenarioNotFoundError,
    ServerError,
    UnauthorizedUserError,
)
from dashboard.data.connection import Source
from dashboard.present.messages import (
    FORM_EMAIL_LABEL,
    FORM_TITLE,
    describe_error,
    email_setting,
)
from dashboard.present.notes import describe_skipped

TOKEN = "sbx-7f3a9c0e1d2b4a5f6e7d8c9b0a1f2e3d4c5b6a79"


def status(cls: type[ApiStatusError], code: int, service_code: str | None, op: Operation):
    # The service's own message text echoes the token: the dashboard must not repeat it.
    return cls(
        f"The request failed: Bearer {TOKEN}",
        status_code=code,
        code=service_code,
        operation=op,
    )


CASES: list[tuple[ApiError, list[str]]] = [
    (
        status(PermissionDeniedError, 403, "ACCESS_DENIED", Operation.EXECUTIONS),
        ["TEST_EXECUTION_VIEW", "administrator"],
    ),
    (
        status(PermissionDeniedError, 401, "ACCESS_DENIED", Operation.TEST_RESULTS),
        ["TEST_RESULT_VIEW"],
    ),
    (status(PermissionDeniedError, 403, "ACCESS_DENIED", Operation.PLANS), ["PLAN_VIEW"]),
    (status(AuthenticationError, 401, None, Operation.PLANS), ["token", "fresh token"]),
    (
        status(UnauthorizedUserError, 403, "UNAUTHORIZED_USER", Operation.EXECUTIONS),
        ["Only mine", "QA_DASHBOARD_EMAIL"],
    ),
    (
        status(InvalidRequestError, 400, "INVALID_REQUEST", Operation.EXECUTIONS),
        ["company id", "INVALID_REQUEST"],
    ),
    (
        status(ExecutionNotFoundError, 404, "EXECUTION_NOT_FOUND", Operation.TEST_RESULTS),
        ["no such execution", "Executions"],
    ),
    (
        status(ScenarioNotFoundError, 404, "TEST_SCENARIO_NOT_FOUND", Operation.TEST_RESULTS),
        ["scenario is unknown"],
    ),
    (
        status(NoExecutionsMatchError, 404, "TEST_EXECUTION_NOT_FOUND", Operation.EXECUTIONS),
        ["No executions match"],
    ),
    (status(NotFoundError, 404, None, Operation.PLANS), ["base URL"]),
    (status(RateLimitError, 429, None, Operation.EXECUTIONS), ["Wait a minute", "Refresh"]),
    (
        status(CompanyNotFoundError, 500, "USERS_COMPANY_NOT_EXISTS", Operation.TEST_RESULTS),
        ["company does not exist", "right account"],
    ),
    (
        status(InternalServerError, 500, "SYSTEM_INTERNAL_ERROR", Operation.PLANS),
        ["failed while loading the test plans", "even after retrying", "Refresh"],
    ),
    (status(ServerError, 503, None, Operation.EXECUTIONS), ["HTTP 503", "Refresh"]),
    (status(ApiStatusError, 418, "TEAPOT", Operation.PLANS), ["HTTP 418", "Refresh"]),
    (
        ApiTimeoutError(f"timed out {TOKEN}", operation=Operation.EXECUTIONS),
        ["did not answer in time", "Refresh"],
    ),
    (
        ApiConnectionError(f"refused {TOKEN}", operation=Operation.PLANS),
        ["Could not reach the service", "connection"],
    ),
    (
        ResponseValidationError(f"not JSON {TOKEN}", operation=Operation.PLANS),
        ["expected format", "base URL"],
    ),
    (
        RequestValidationError(f"bad id {TOKEN}", operation=Operation.EXECUTIONS),
        ["not valid", "Reset the filters"],
    ),
    (ApiError(f"odd {TOKEN}"), ["Could not load the data", "Refresh"]),
]


def readable(markdown: str) -> str:
    """The text as a viewer reads it: markdown escapes (`\\_`) removed."""
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.mark.parametrize(("error", "phrases"), CASES, ids=lambda c: type(c).__name__)
def test_each_error_says_what_happened_and_what_to_do(error: ApiError, phrases: list[str]) -> None:
    message = describe_error(error)

    for phrase in phrases:
        assert phrase in readable(message.text)
    assert TOKEN not in message.text
    assert "Traceback" not in message.text
    assert len(message.text) < 400


def test_the_part_that_failed_is_named() -> None:
    error = status(InternalServerError, 500, "SYSTEM_INTERNAL_ERROR", Operation.TEST_RESULTS)
    assert "scenario 12" in describe_error(error, part="scenario 12").text


def test_severity_matches_how_bad_it_is() -> None:
    not_found = status(ExecutionNotFoundError, 404, "EXECUTION_NOT_FOUND", Operation.TEST_RESULTS)
    none_match = status(
        NoExecutionsMatchError, 404, "TEST_EXECUTION_NOT_FOUND", Operation.EXECUTIONS
    )
    assert describe_error(not_found).severity == "warning"
    assert describe_error(none_match).severity == "info"
    assert describe_error(status(ServerError, 500, None, Operation.PLANS)).severity == "error"


def test_a_service_code_that_is_not_code_shaped_is_not_repeated() -> None:
    error = status(ApiStatusError, 400, "<script>alert(1)</script>", Operation.PLANS)
    assert "<script>" not in describe_error(error).text


def test_skipped_records_are_counted_with_their_reasons() -> None:
    reasons = ["start_date: invalid datetime"] * 2 + ["runtime: not an integer"]

    text = describe_skipped(reasons, "execution")

    assert text is not None
    assert text.startswith("3 executions were skipped")
    assert "start_date: invalid datetime (2)" in text
    assert "Everything else is shown" in text
    assert describe_skipped([], "execution") is None
    one = describe_skipped(["id: missing"], "plan")
    assert one is not None
    assert one.startswith("1 plan was skipped")
    assert "(1)" not in one


def test_a_rejected_filtered_request_names_the_filters_not_the_company_id() -> None:
    error = status(InvalidRequestError, 400, "INVALID_REQUEST", Operation.EXECUTIONS)

    message = describe_error(error, filters=["status PROCESSING", "plan 3"]).text

    assert "rejected a filter value (status PROCESSING, plan 3)" in readable(message)
    assert "company id" not in message
    assert "company id" in describe_error(error).text  # nothing filtered: the header is the cause


def test_filter_values_from_a_link_are_shown_literally() -> None:
    error = status(InvalidRequestError, 400, "INVALID_REQUEST", Operation.EXECUTIONS)

    message = describe_error(error, filters=["status *BOLD_ONE*"]).text

    assert "\\*BOLD\\_ONE\\*" in message


def test_messages_name_the_sidebar_form_as_it_is_labelled() -> None:
    for error in (
        status(AuthenticationError, 401, None, Operation.PLANS),
        ApiConnectionError("refused", operation=Operation.PLANS),
    ):
        text = describe_error(error).text
        assert f"*{FORM_TITLE}*" in text
        assert "*Connection*" not in text


@pytest.mark.parametrize(
    ("source", "phrases", "absent"),
    [
        ("session", [FORM_TITLE, FORM_EMAIL_LABEL, "pasted connection"], ["QA_DASHBOARD_EMAIL"]),
        ("secrets", [".streamlit/secrets.toml"], ["QA_DASHBOARD_EMAIL", FORM_TITLE]),
        ("environment", ["QA_DASHBOARD_EMAIL"], ["secrets.toml", FORM_TITLE]),
        (None, ["QA_DASHBOARD_EMAIL", "secrets.toml", FORM_TITLE], []),
    ],
)
def test_the_email_advice_names_the_viewers_own_kind_of_connection(
    source: Source | None, phrases: list[str], absent: list[str]
) -> None:
    error = status(UnauthorizedUserError, 403, "UNAUTHORIZED_USER", Operation.EXECUTIONS)

    text = readable(describe_error(error, source=source).text)

    assert text.endswith(email_setting(source) + ".")
    for phrase in phrases:
        assert phrase in text
    for phrase in absent:
        assert phrase not in text


# Whatever answered a connection made with the sidebar's form (nothing, a web server, an API
# refusing the token), the page says the same: the form is no port scanner.
FORM_FAILURES: list[ApiError] = [
    ApiConnectionError("Connection refused", operation=Operation.PLANS),
    ApiTimeoutError("timed out", operation=Operation.PLANS),
    ResponseValidationError("<html>It works!</html> is not JSON", operation=Operation.PLANS),
    status(NotFoundError, 404, None, Operation.PLANS),
    status(ApiStatusError, 302, None, Operation.PLANS),
    status(ApiStatusError, 418, "TEAPOT", Operation.PLANS),
    status(AuthenticationError, 401, "invalid_token", Operation.PLANS),
    status(PermissionDeniedError, 403, None, Operation.PLANS),
    status(PermissionDeniedError, 403, "ACCESS_DENIED", Operation.PLANS),
    status(InvalidRequestError, 400, "INVALID_REQUEST", Operation.PLANS),
    status(RateLimitError, 429, None, Operation.PLANS),
    status(ServerError, 502, None, Operation.PLANS),
    status(InternalServerError, 500, "SYSTEM_INTERNAL_ERROR", Operation.PLANS),
    status(CompanyNotFoundError, 500, "USERS_COMPANY_NOT_EXISTS", Operation.PLANS),
]


def test_every_failure_of_a_form_connection_reads_the_same() -> None:
    texts = {describe_error(error, source="session").text for error in FORM_FAILURES}

    assert len(texts) == 1, texts
    (text,) = texts
    assert f"*{FORM_TITLE}*" in text
    assert "the test plans" in text
    for revealing in ("HTTP", "JSON", "token was", "reach", "in time", "authority", "404"):
        assert revealing not in text
    # The same errors through a configured connection keep their own words.
    configured = {describe_error(error, source="environment").text for error in FORM_FAILURES}
    assert len(configured) == len(FORM_FAILURES) - 1  # the two 403s read alike there


def test_answers_only_a_working_service_gives_keep_their_words_for_the_form() -> None:
    only_mine = status(UnauthorizedUserError, 403, "UNAUTHORIZED_USER", Operation.EXECUTIONS)
    gone = status(ExecutionNotFoundError, 404, "EXECUTION_NOT_FOUND", Operation.TEST_RESULTS)

    assert "Only my executions" in describe_error(only_mine, source="session").text
    assert "no such execution" in describe_error(gone, source="session").text
    assert "filter value" in describe_error(RequestValidationError("x"), source="session").text


# -- the argument at fault, a redirect, a walk cut short (issue 14) -----------------------------


@pytest.mark.parametrize(
    ("token", "said"),
    [
        ("sbx token", "it contains a space"),
        ("sbx\u2014token", "it contains a non-ASCII character"),
        ("sbx\ttoken", "it contains a blank character"),
        ("sbx\ntoken", "it contains a line break"),
        ("", "it is empty"),
    ],
    ids=["space", "non-ascii", "tab", "line-break", "empty"],
)
def test_a_malformed_token_is_said_to_be_the_token_and_never_shown(token: str, said: str) -> None:
    from api_client import ApiClient

    with pytest.raises(RequestValidationError) as caught:
        ApiClient(base_url="http://127.0.0.1:9", token=token, company_id=1)

    for source in ("environment", "secrets", "session", None):
        text = readable(describe_error(caught.value, source=source).text)
        assert text.startswith("The token is not valid: " + said), text
        assert "filter" not in text
        if token.strip():
            assert token not in text
            assert "sbx" not in text
    assert "QA_DASHBOARD_TOKEN" in describe_error(caught.value, source="environment").text
    assert "secrets.toml" in describe_error(caught.value, source="secrets").text
    assert FORM_TITLE in describe_error(caught.value, source="session").text


def test_a_token_problem_that_is_not_in_the_clients_words_repeats_nothing() -> None:
    error = RequestValidationError(f"token {TOKEN}; it contains {TOKEN}", argument="token")

    text = describe_error(error).text
    assert "The token is not valid" in text
    assert TOKEN not in text


@pytest.mark.parametrize(
    ("argument", "phrase"),
    [
        ("company_id", "company id is not valid"),
        ("base_url", "base URL is not valid"),
        ("verify", "CA bundle could not be loaded"),
        ("date_from", "a filter value is not valid"),
        (None, "a filter value is not valid"),
    ],
)
def test_each_invalid_argument_is_named(argument: str | None, phrase: str) -> None:
    error = RequestValidationError(f"bad {TOKEN}", argument=argument)

    text = readable(describe_error(error, source="environment").text)
    assert phrase in text
    assert TOKEN not in text


def redirect(origin: str | None) -> ApiError:
    from api_client import RedirectError

    return RedirectError(
        "redirected",
        status_code=302,
        code=None,
        operation=Operation.PLANS,
        location_origin=origin,
    )


def test_a_redirect_names_its_origin_as_code_and_asks_to_check_the_base_url() -> None:
    text = describe_error(redirect("https://login.example.test"), source="environment").text

    assert "redirected the request for the test plans to `https://login.example.test`" in text
    assert "Check the base URL in `QA_DASHBOARD_BASE_URL`" in text
    assert "Refresh" not in text  # pressing it again can never help
    # Markdown cannot make the origin a link: it is a code span, and nothing else is a URL.
    assert text.count("https://") == 1


@pytest.mark.parametrize(
    "origin", [None, "https://evil.test/path?ticket=1", "javascript:alert(1)", "https://a`b"]
)
def test_a_redirect_to_no_usable_origin_says_elsewhere(origin: str | None) -> None:
    text = describe_error(redirect(origin), source="secrets").text

    assert "redirected the request for the test plans elsewhere" in text
    assert "ticket" not in text
    assert "javascript" not in text


def test_a_redirect_through_the_form_reads_like_any_form_failure() -> None:
    text = describe_error(redirect("https://login.example.test"), source="session").text

    assert text == describe_error(FORM_FAILURES[0], source="session").text


def test_a_walk_cut_short_says_what_the_service_claims_and_what_is_shown() -> None:
    from api_client import Truncation, TruncationReason
    from dashboard.present.notes import describe_truncation

    truncation = Truncation(
        claimed_pages=1_000_000_000,
        claimed_total=50_000_000_000,
        pages_read=2,
        reason=TruncationReason.NOTHING_NEW,
    )
    text = describe_truncation(truncation)

    assert text is not None
    assert text.startswith("The service claims 1,000,000,000 pages of executions")
    assert "showing the first 2 pages" in text
    assert "already shown" in text
    assert describe_truncation(None) is None
    one = Truncation(5, 50, 1, TruncationReason.EMPTY_PAGE)
    assert "showing the first 1 page (a page before the claimed end was empty)" in str(
        describe_truncation(one)
    )
