"""A typed client for the test-automation service's read API.

```python
from api_client import ApiClient, ApiError, ExecutionQuery

with ApiClient(base_url="https://host/Api", token="...", company_id=7) as client:
    plans = client.plans()
    page = client.executions(page=1, size=50, query=ExecutionQuery(plan_id=plans[0].id))
```
"""

from api_client.auth import BearerAuth, RedactBearerFilter
from api_client.client import ApiClient, WalkOptions
from api_client.errors import (
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
from api_client.models import (
    Alert,
    Environment,
    Execution,
    ExecutionPage,
    FoldedExecutions,
    RecordList,
    SkippedRecord,
    TestPlan,
    TestResult,
    Truncation,
    TruncationReason,
    UserInfo,
)
from api_client.operations import Operation
from api_client.pagination import (
    AddPage,
    AddRecords,
    PageTransform,
    ProgressCallback,
    StartFold,
)
from api_client.query import ExecutionQuery
from api_client.records import ExecutionRecord, ExecutionRecordPage, ResultRecord
from api_client.retry import NO_RETRIES, RetryPolicy, retry_delay, should_retry
from api_client.tokens import TokenSource

__all__ = [
    "NO_RETRIES",
    "AddPage",
    "AddRecords",
    "Alert",
    "ApiClient",
    "ApiConnectionError",
    "ApiError",
    "ApiStatusError",
    "ApiTimeoutError",
    "AuthenticationError",
    "BearerAuth",
    "CompanyNotFoundError",
    "Environment",
    "Execution",
    "ExecutionNotFoundError",
    "ExecutionPage",
    "ExecutionQuery",
    "ExecutionRecord",
    "ExecutionRecordPage",
    "FoldedExecutions",
    "InternalServerError",
    "InvalidRequestError",
    "NoExecutionsMatchError",
    "NotFoundError",
    "Operation",
    "PageTransform",
    "PermissionDeniedError",
    "ProgressCallback",
    "RateLimitError",
    "RecordList",
    "RedactBearerFilter",
    "RedirectError",
    "RequestValidationError",
    "ResponseValidationError",
    "ResultRecord",
    "RetryPolicy",
    "ScenarioNotFoundError",
    "ServerError",
    "SkippedRecord",
    "StartFold",
    "TestPlan",
    "TestResult",
    "TokenError",
    "TokenSource",
    "Truncation",
    "TruncationReason",
    "UnauthorizedUserError",
    "UserInfo",
    "WalkOptions",
    "retry_delay",
    "should_retry",
]
