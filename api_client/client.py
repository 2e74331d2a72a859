"""`ApiClient`: the constructor and the three read operations, over one request loop.

The request loop (`_request`), the page walk (`pagination`) and the parsing (`parsing`) each
live in their own module; this one checks the caller's arguments and names the operations.
"""

from __future__ import annotations

import ssl
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Self, TypedDict, TypeVar, Unpack

import httpx
from pydantic import SecretStr

from api_client._arguments import (
    masked_url,
    parse_base_url,
    require_positive_id,
    require_positive_int,
    require_seconds,
    ssl_context,
)
from api_client._request import RequestLoop
from api_client.auth import BearerAuth
from api_client.errors import NoExecutionsMatchError, RequestValidationError
from api_client.models import (
    Execution,
    ExecutionPage,
    FoldedExecutions,
    RecordList,
    TestPlan,
    TestResult,
)
from api_client.operations import Operation
from api_client.pagination import (
    PAGE_SIZES,
    AddPage,
    AddRecords,
    PageTransform,
    ProgressCallback,
    StartFold,
    as_list,
    chunk_each_page,
    first_page_at_largest_size,
    joined,
    models_of,
    walk_executions_folded,
)
from api_client.parsing import (
    execution_page_from_json,
    execution_record_page_from_json,
    record_dicts_from_json,
    records_from_json,
)
from api_client.query import ExecutionQuery
from api_client.records import ExecutionRecordPage, ResultRecord
from api_client.retry import RetryPolicy
from api_client.tokens.source import TokenSource

A = TypeVar("A")
C = TypeVar("C")
P = TypeVar("P")
R = TypeVar("R")  # a result as a model or as a record

EVERY_EXECUTION = ExecutionQuery()


class WalkOptions(TypedDict, total=False):
    """How a walk reads the pages, beside which executions it reads (its query)."""

    page_size: int | None
    """Executions per page; None: as large as the service accepts (see `all_executions`)."""
    on_progress: ProgressCallback | None
    """Called as `on_progress(done_pages, total_pages)` in the caller's thread."""


class ApiClient:
    """A typed client for the service's read API.

    ```python
    with ApiClient(base_url="https://host/Api", token="...", company_id=7) as client:
        plans = client.plans()
    ```

    `base_url` may carry a path prefix; every operation's path (`/api/...`) is appended to it.
    `token` is a bearer token, or a source that renews one (`api_client.tokens`: a token file,
    a token command, an OAuth2 token endpoint); when the service refuses a renewed token, the
    request is sent once more with a new one. The token is sent only to the origin of
    `base_url`. Failed requests are retried as
    `api_client.retry` decides; the errors raised are the `api_client.errors` tree.

    Bounds against a misbehaving service: `response_deadline` seconds for one response, from
    sending to its last byte; `max_response_bytes` for its body; `max_pages` for one walk of
    `all_executions`, which fetches up to `max_concurrency` pages at once.
    """

    def __init__(
        self,
        *,
        base_url: str,
        token: str | SecretStr | TokenSource,
        company_id: int,
        timeout: float | httpx.Timeout = 30.0,
        max_retries: int = 3,
        retry_policy: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
        verify: bool | str | ssl.SSLContext = True,
        strict: bool = False,
        max_concurrency: int = 8,
        max_pages: int = 2_000,
        response_deadline: float = 60.0,
        max_response_bytes: int = 64 * 2**20,
    ) -> None:
        url = parse_base_url(base_url)
        require_positive_id("company_id", company_id)
        require_positive_int("max_concurrency", max_concurrency)
        require_positive_int("max_pages", max_pages)
        require_positive_int("max_response_bytes", max_response_bytes)
        require_seconds("response_deadline", response_deadline)
        # Requests go to the base URL without its user part: the token is the credential, and a
        # password left in the URL would otherwise reach httpx's own log lines.
        self._base_url = str(url.copy_with(userinfo=b"", query=None, fragment=None)).rstrip("/")
        self._shown_url = masked_url(str(url.copy_with(query=None, fragment=None)).rstrip("/"))
        self._auth = BearerAuth(token, url)
        self._company_id = company_id
        self._strict = strict
        self._max_concurrency = max_concurrency
        self._max_pages = max_pages
        self._page_size: int | None = None  # the largest the service accepts, once learnt
        timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self._owns_http_client = http_client is None
        self._http = http_client or httpx.Client(
            timeout=timeout,
            # One keep-alive pool: every page of a walk reuses a warm connection, and room is
            # left for a second walk or a results fan-out on the same client.
            limits=httpx.Limits(
                max_connections=max(100, 4 * max_concurrency),
                max_keepalive_connections=2 * max_concurrency,
            ),
            verify=ssl_context(verify),
            follow_redirects=False,  # a redirect could carry the request to another origin
            headers={"Accept": "application/json"},
        )
        self._loop = RequestLoop(
            http=self._http,
            auth=self._auth,
            base_url=self._base_url,
            company_id=company_id,
            timeout=timeout,
            policy=retry_policy or RetryPolicy(max_retries=max_retries),
            response_deadline=float(response_deadline),
            max_response_bytes=max_response_bytes,
            # A password in the base URL is never sent (the token is), but never shown either.
            secrets=(*self._auth.secrets, *([url.password] if url.password else [])),
        )

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """Where requests go: the base URL as given, without a user part or query."""
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
        return f"ApiClient(base_url={self._shown_url!r}, company_id={self._company_id})"

    # -- operations --------------------------------------------------------------------------

    def test_results(
        self, execution_id: int, scenario_id: int, *, stop: threading.Event | None = None
    ) -> RecordList[TestResult]:
        """Results of one scenario in one execution (spec 4.1), one per environment it ran on.

        Setting `stop` (from another thread) abandons the call at its next chunk or back-off:
        it raises `Abandoned`, for a caller that no longer waits for the answer."""
        return self._results(execution_id, scenario_id, records_from_json, stop)

    def test_result_records(
        self, execution_id: int, scenario_id: int, *, stop: threading.Event | None = None
    ) -> RecordList[ResultRecord]:
        """`test_results` with each result as a record (`api_client.records.ResultRecord`, a
        dict validated by the model's rules), not a model: for a caller that only frames them.
        The same records are kept and skipped, for the same reasons, and `stop` abandons it
        the same way."""
        return self._results(execution_id, scenario_id, record_dicts_from_json, stop)

    def _results(
        self,
        execution_id: int,
        scenario_id: int,
        parse_as: Callable[..., RecordList[R]],
        stop: threading.Event | None,
    ) -> RecordList[R]:
        """The results operation, its body read by `parse_as` (models or records)."""
        require_positive_id("execution_id", execution_id)
        require_positive_id("scenario_id", scenario_id)
        operation = Operation.TEST_RESULTS
        return self._loop.get(
            operation,
            f"/api/results/execution/{execution_id}/scenario/{scenario_id}",
            None,
            company_header=False,  # the spec lists no company header for this operation
            parse=lambda body: parse_as(TestResult, body, operation=operation, strict=self._strict),
            stop=stop,
        )

    def executions(
        self, page: int = 1, size: int = 50, *, query: ExecutionQuery | None = None
    ) -> ExecutionPage:
        """One page of the executions matching `query` (spec 4.2), newest first; no `query`:
        every execution.

        "No execution matches" (`TEST_EXECUTION_NOT_FOUND`) is an empty page, not an error.
        """
        query = _query(query)
        _check_page(page, size)
        try:
            return self._get_page(
                page,
                size,
                query,
                None,
                lambda body: execution_page_from_json(body, strict=self._strict),
            )
        except NoExecutionsMatchError:
            return ExecutionPage(current_page=page, total_count=0, page_count=0)

    def all_executions(
        self, query: ExecutionQuery | None = None, **options: Unpack[WalkOptions]
    ) -> RecordList[Execution]:
        """Every execution matching `query`, each exactly once, in the service's order.

        The first page tells how many pages there are; the rest are fetched up to
        `max_concurrency` at a time (`api_client.pagination` says how the walk stays exact
        while executions start, and how far a service's page count is believed). Pagination
        walks page numbers on this client's own `base_url`: the `next_page` URLs the service
        returns are never followed, so the token cannot be sent to a host they name.

        Without a `page_size`, pages are as large as the service accepts: 1,000 is asked for,
        and on a `400 INVALID_REQUEST` 100, then 50; the size that worked is kept for this
        client's later walks. When the walk stopped before the last page the service claimed,
        the result's `truncation` says so. `options` are `WalkOptions`.
        """
        return joined(self.all_executions_by_page(as_list, query, **options))

    def all_executions_by_page(
        self,
        transform: PageTransform[C],
        query: ExecutionQuery | None = None,
        **options: Unpack[WalkOptions],
    ) -> FoldedExecutions[list[C]]:
        """The walk of `all_executions`, keeping `transform`'s chunk of each page instead of
        the page: the result's `value` is the chunks, one per page kept, in page order.

        `transform(executions)` is called as `fold_executions`' `add` is (same list, same
        thread, same order; again for each page of a walk again).
        """
        return self.fold_executions(list, chunk_each_page(transform), query, **options)

    def fold_executions(
        self,
        start: StartFold[A],
        add: AddPage[A],
        query: ExecutionQuery | None = None,
        **options: Unpack[WalkOptions],
    ) -> FoldedExecutions[A]:
        """The walk every other walk is built on: each page folded into an accumulator as it
        arrives.

        For a caller that turns executions into something smaller (a frame's columns, counts):
        a page's models can be dropped once `add` has taken them in, so the walk never holds
        every execution's model at once. `start()` makes the accumulator; `add(accumulator,
        executions)` is called in the caller's thread, in page order, with a new list of the
        page's executions not seen on an earlier page, and returns the accumulator to go on
        with. The pages together hold each execution exactly once, in the service's order.
        When the data changes under the walk and it is walked again, the accumulator is
        dropped, `start()` is called again and `add` sees those pages again. The result
        carries every kept page's skipped records and the walk's `truncation`, as
        `all_executions`' list does; `query`, `options` and page sizes are those of
        `all_executions`.
        """
        return self.fold_execution_records(start, models_of(add), query, **options)

    def fold_execution_records(
        self,
        start: StartFold[A],
        add: AddRecords[A],
        query: ExecutionQuery | None = None,
        **options: Unpack[WalkOptions],
    ) -> FoldedExecutions[A]:
        """`fold_executions` with each page's executions as records (`ExecutionRecord` dicts,
        validated by the model's rules), not models: for a caller that turns them into columns,
        a model per execution is work thrown away. Everything else is `fold_executions`'."""
        # Invalid arguments fail here, before any request.
        query = _query(query)
        page_size = options.get("page_size")
        first = None
        if page_size is not None:
            size = require_positive_int("page_size", page_size)
        elif self._page_size is not None:
            size = self._page_size
        else:
            size, first = first_page_at_largest_size(self._record_page, query, PAGE_SIZES)
            if first.total_count > 0:  # an empty answer may not have looked at the size
                self._page_size = size
        return walk_executions_folded(
            self._record_page,
            query,
            start,
            add,
            page_size=size,
            max_concurrency=self._max_concurrency,
            max_pages=self._max_pages,
            on_progress=options.get("on_progress"),
            first=first,
        )

    def plans(self, project_id: int | None = None, active: bool = True) -> RecordList[TestPlan]:
        """The company's test plans (spec 4.3); only active ones unless `active=False`."""
        params: dict[str, str] = {"active": "true" if active else "false"}
        if project_id is not None:
            params["projectId"] = str(require_positive_id("project_id", project_id))
        operation = Operation.PLANS
        return self._loop.get(
            operation,
            "/api/plans/lazy",
            params,
            company_header=True,
            parse=lambda body: records_from_json(
                TestPlan, body, operation=operation, strict=self._strict
            ),
        )

    def _record_page(
        self, page: int, size: int, query: ExecutionQuery, stop: threading.Event | None = None
    ) -> ExecutionRecordPage:
        _check_page(page, size)
        try:
            return self._get_page(
                page,
                size,
                query,
                stop,
                lambda body: execution_record_page_from_json(body, strict=self._strict),
            )
        except NoExecutionsMatchError:
            return ExecutionRecordPage(current_page=page, total_count=0, page_count=0, item_list=[])

    def _get_page(
        self,
        page: int,
        size: int,
        query: ExecutionQuery,
        stop: threading.Event | None,
        parse: Callable[[bytes], P],
    ) -> P:
        params = query.to_params()
        params.update(page=str(page), size=str(size))
        return self._loop.get(
            Operation.EXECUTIONS,
            "/api/executions/filter",
            params,
            company_header=True,
            parse=parse,
            stop=stop,
        )


def _check_page(page: object, size: object) -> None:
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise RequestValidationError(f"page must be an integer >= 1, got {page!r}", argument="page")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise RequestValidationError(f"size must be an integer >= 1, got {size!r}", argument="size")


def _query(query: object) -> ExecutionQuery:
    """The query given (None: every execution); anything else is a caller's error."""
    if query is None:
        return EVERY_EXECUTION
    if not isinstance(query, ExecutionQuery):
        raise RequestValidationError(
            f"query must be an ExecutionQuery, got {type(query).__name__}", argument="query"
        )
    return query
