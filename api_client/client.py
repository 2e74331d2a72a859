"""`ApiClient`: the three read operations over one request loop."""

from __future__ import annotations

import json
import logging
import ssl
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any, Self

import httpx
from pydantic import SecretStr

from api_client.auth import BearerAuth, RedactBearerFilter
from api_client.errors import (
    ApiConnectionError,
    ApiError,
    ApiTimeoutError,
    NoExecutionsMatchError,
    Operation,
    RequestValidationError,
    ResponseValidationError,
    error_from_response,
    redact,
)
from api_client.models import Execution, ExecutionPage, RecordList, TestPlan, TestResult
from api_client.parsing import parse_execution_page, parse_records
from api_client.query import DateBound, ExecutionQuery
from api_client.retry import RetryPolicy, retry_delay, should_retry

_LOG = logging.getLogger("api_client")
_LOG.addFilter(RedactBearerFilter())

ProgressCallback = Callable[[int, int], None]
"""Called as `on_progress(done_pages, total_pages)` in the caller's thread."""

# Walks of a filter whose matches keep changing; the last walk is returned as it is.
_MAX_WALKS = 3


class ApiClient:
    """A typed client for the service's read API.

    ```python
    with ApiClient(base_url="https://host/Api", token="...", company_id=7) as client:
        plans = client.plans()
    ```

    `base_url` may carry a path prefix; every operation's path (`/api/...`) is appended to it.
    The token is sent only to the origin of `base_url`. Failed requests are retried as
    `api_client.retry` decides; the errors raised are the `api_client.errors` tree.
    """

    def __init__(
        self,
        *,
        base_url: str,
        token: str | SecretStr,
        company_id: int,
        timeout: float | httpx.Timeout = 30.0,
        max_retries: int = 3,
        retry_policy: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
        verify: bool | str | ssl.SSLContext = True,
        strict: bool = False,
        max_concurrency: int = 4,
    ) -> None:
        url = httpx.URL(base_url)
        if url.scheme not in ("http", "https") or not url.host:
            raise RequestValidationError(f"base_url must be an http(s) URL, got {base_url!r}")
        _require_positive_id("company_id", company_id)
        if max_concurrency < 1:
            raise RequestValidationError("max_concurrency must be >= 1")
        self._base_url = str(url.copy_with(query=None, fragment=None)).rstrip("/")
        self._auth = BearerAuth(token, url)
        self._company_id = company_id
        self._timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self._policy = retry_policy or RetryPolicy(max_retries=max_retries)
        self._strict = strict
        self._max_concurrency = max_concurrency
        self._owns_http_client = http_client is None
        self._http = http_client or httpx.Client(
            timeout=self._timeout,
            verify=_ssl_context(verify),
            follow_redirects=False,  # a redirect could carry the request to another origin
            headers={"Accept": "application/json"},
        )

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return self._base_url

    @property
    def company_id(self) -> int:
        return self._company_id

    def close(self) -> None:
        if self._owns_http_client:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ApiClient(base_url={self._base_url!r}, company_id={self._company_id})"

    # -- operations --------------------------------------------------------------------------

    def test_results(self, execution_id: int, scenario_id: int) -> RecordList[TestResult]:
        """Results of one scenario in one execution (spec 4.1), one per environment it ran on."""
        _require_positive_id("execution_id", execution_id)
        _require_positive_id("scenario_id", scenario_id)
        operation = Operation.TEST_RESULTS
        data = self._request(
            operation,
            f"/api/results/execution/{execution_id}/scenario/{scenario_id}",
            company_header=False,  # the spec lists no company header for this operation
        )
        return parse_records(TestResult, data, operation=operation, strict=self._strict)

    def executions(
        self,
        page: int = 1,
        size: int = 50,
        *,
        query: ExecutionQuery | None = None,
        project_id: int | None = None,
        plan_id: int | None = None,
        date_from: DateBound | None = None,
        date_to: DateBound | None = None,
        status: str | None = None,
        email: str | None = None,
    ) -> ExecutionPage:
        """One page of executions matching the filters (spec 4.2), newest first.

        The filters come as one `query`, or as keyword arguments (not both).
        "No execution matches" (`TEST_EXECUTION_NOT_FOUND`) is an empty page, not an error.
        """
        query = _query(query, project_id, plan_id, date_from, date_to, status, email)
        if isinstance(page, bool) or not isinstance(page, int) or page < 1:
            raise RequestValidationError(f"page must be an integer >= 1, got {page!r}")
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise RequestValidationError(f"size must be an integer >= 1, got {size!r}")
        params = query.to_params()
        params.update(page=str(page), size=str(size))
        try:
            data = self._request(
                Operation.EXECUTIONS, "/api/executions/filter", params, company_header=True
            )
        except NoExecutionsMatchError:
            return ExecutionPage(current_page=page, total_count=0, page_count=0)
        return parse_execution_page(data, strict=self._strict)

    def all_executions(
        self,
        *,
        query: ExecutionQuery | None = None,
        project_id: int | None = None,
        plan_id: int | None = None,
        date_from: DateBound | None = None,
        date_to: DateBound | None = None,
        status: str | None = None,
        email: str | None = None,
        page_size: int = 100,
        on_progress: ProgressCallback | None = None,
    ) -> RecordList[Execution]:
        """Every execution matching the filters, each exactly once, in the service's order.

        The first page tells how many pages there are; the rest are fetched up to
        `max_concurrency` at a time. Pagination walks page numbers on this client's own
        `base_url`: the `next_page` URLs the service returns are never followed, so the token
        cannot be sent to a host they name.

        Page numbers shift when executions start or vanish during the walk, which could skip
        or repeat one at a page boundary. So, when the caller sets no upper bound, the walk
        bounds itself at the newest start on the first page, which keeps executions started
        later out of the later pages; and if the pages still disagree on how many executions
        match, the data changed under the walk and it is walked again.
        """
        # Invalid filters fail here, before any request.
        query = _query(query, project_id, plan_id, date_from, date_to, status, email)
        pages: dict[int, ExecutionPage] = {}
        for _ in range(_MAX_WALKS):
            pages = self._walk(page_size, query, on_progress)
            if len({page.total_count for page in pages.values()}) == 1:
                break
            _LOG.info("executions changed during the walk over %d pages; walking again", len(pages))
        return _merge_pages(pages[number] for number in sorted(pages))

    def _walk(
        self, page_size: int, query: ExecutionQuery, on_progress: ProgressCallback | None
    ) -> dict[int, ExecutionPage]:
        first = self.executions(1, page_size, query=query)
        total_pages = max(first.page_count, 1)
        pages = {1: first}
        if on_progress:
            on_progress(1, total_pages)
        if total_pages > 1:
            later = query
            if query.date_to is None and first.item_list and first.item_list[0].start_date:
                later = query.with_changes(
                    date_to=_newest_start_bound(first.item_list[0].start_date)
                )
            self._fetch_pages(range(2, total_pages + 1), page_size, later, pages, on_progress)
        return pages

    def plans(self, project_id: int | None = None, active: bool = True) -> RecordList[TestPlan]:
        """The company's test plans (spec 4.3); only active ones unless `active=False`."""
        params: dict[str, str] = {"active": "true" if active else "false"}
        if project_id is not None:
            params["projectId"] = str(_require_positive_id("project_id", project_id))
        operation = Operation.PLANS
        data = self._request(operation, "/api/plans/lazy", params, company_header=True)
        return parse_records(TestPlan, data, operation=operation, strict=self._strict)

    # -- the request loop --------------------------------------------------------------------

    def _fetch_pages(
        self,
        numbers: range,
        page_size: int,
        query: ExecutionQuery,
        into: dict[int, ExecutionPage],
        on_progress: ProgressCallback | None,
    ) -> None:
        """Fetch pages concurrently; report each one as it arrives, in the caller's thread."""
        total_pages = len(into) + len(numbers)
        pool = ThreadPoolExecutor(max_workers=self._max_concurrency)
        try:
            futures = {
                pool.submit(self.executions, number, page_size, query=query): number
                for number in numbers
            }
            for future in as_completed(futures):
                into[futures[future]] = future.result()  # the first failure ends the walk
                if on_progress:
                    on_progress(len(into), total_pages)
        finally:
            # On failure, pages not yet started are dropped rather than waited for.
            pool.shutdown(wait=False, cancel_futures=True)

    def _request(
        self,
        operation: Operation,
        path: str,
        params: dict[str, str] | None = None,
        *,
        company_header: bool,
    ) -> Any:
        """GET `path`, retrying as the policy says, and return the decoded JSON body."""
        url = self._base_url + path
        headers = {"current-company-id": str(self._company_id)} if company_header else {}
        deadline = time.monotonic() + self._policy.deadline
        attempt = 0
        while True:
            try:
                return self._send_once(operation, url, params, headers)
            except ApiError as error:
                if not should_retry(error, attempt, self._policy):
                    raise
                delay = retry_delay(attempt, getattr(error, "retry_after", None), self._policy)
                if time.monotonic() + delay > deadline:
                    raise
                _LOG.info(
                    "retrying %s in %.2fs (retry %d of %d) after %s: %s",
                    operation.value,
                    delay,
                    attempt + 1,
                    self._policy.max_retries,
                    type(error).__name__,
                    error.message,
                )
                time.sleep(delay)
                attempt += 1

    def _send_once(
        self,
        operation: Operation,
        url: str,
        params: dict[str, str] | None,
        headers: dict[str, str],
    ) -> Any:
        started = time.monotonic()
        try:
            response = self._http.get(
                url, params=params, headers=headers, auth=self._auth, timeout=self._timeout
            )
        except httpx.TimeoutException as exc:
            raise ApiTimeoutError(
                f"The {operation.label} request to {self._origin_text()} timed out "
                f"({type(exc).__name__})",
                operation=operation,
            ) from None
        except httpx.TransportError as exc:
            raise ApiConnectionError(
                f"Could not get {operation.label} from {self._origin_text()}: "
                f"{type(exc).__name__}: {redact(_first_line(exc), self._auth.secrets)}",
                operation=operation,
            ) from None
        _LOG.debug(
            "GET %s -> %d in %.0f ms",
            response.request.url.copy_with(scheme=None, host=None, port=None),
            response.status_code,
            (time.monotonic() - started) * 1000,
        )
        if not response.is_success:
            raise error_from_response(response, operation, secrets=self._auth.secrets)
        try:
            return json.loads(response.content)
        except ValueError:  # also UnicodeDecodeError
            body = response.content.lstrip()
            raise ResponseValidationError(
                f"The {operation.label} response from {self._origin_text()} is not valid JSON "
                f"({len(response.content)} bytes)",
                operation=operation,
                # A body that begins like JSON but does not parse was cut short in transit.
                transient=body[:1] in (b"{", b"["),
            ) from None

    def _origin_text(self) -> str:
        url = httpx.URL(self._base_url)
        return f"{url.scheme}://{url.netloc.decode('ascii')}"


def _require_positive_id(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RequestValidationError(f"{name} must be a positive integer, got {value!r}")
    return value


def _newest_start_bound(newest: datetime) -> datetime:
    """An upper bound that keeps the newest execution of the first page in the later pages.

    Timestamps may come rounded down to the second; the bound covers the whole second.
    """
    return newest.replace(microsecond=0) + timedelta(seconds=1) - timedelta(milliseconds=1)


def _merge_pages(pages: Iterable[ExecutionPage]) -> RecordList[Execution]:
    merged: RecordList[Execution] = RecordList()
    seen: set[int] = set()
    for page in pages:
        merged.skipped.extend(page.skipped)
        for execution in page.item_list:
            if execution.id not in seen:
                seen.add(execution.id)
                merged.append(execution)
    return merged


def _ssl_context(verify: bool | str | ssl.SSLContext) -> bool | ssl.SSLContext:
    """TLS verification is on by default; a string is a CA bundle for a self-hosted service."""
    if not isinstance(verify, str):
        return verify
    try:
        return ssl.create_default_context(cafile=verify)
    except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
        raise RequestValidationError(
            f"The CA bundle {verify!r} could not be loaded: {_first_line(exc)}"
        ) from None


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else "no details"


def _query(
    query: ExecutionQuery | None,
    project_id: int | None,
    plan_id: int | None,
    date_from: DateBound | None,
    date_to: DateBound | None,
    status: str | None,
    email: str | None,
) -> ExecutionQuery:
    """The query given, or one built from keyword filters; mixing both is a caller's error."""
    loose = (project_id, plan_id, date_from, date_to, status, email)
    if query is None:
        return ExecutionQuery(
            project_id=project_id,
            plan_id=plan_id,
            date_from=date_from,  # type: ignore[arg-type]  # validated and converted there
            date_to=date_to,  # type: ignore[arg-type]
            status=status,
            email=email,
        )
    if any(value is not None for value in loose):
        raise RequestValidationError("pass the filters either as a query or as keywords")
    return query
