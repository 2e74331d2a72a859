"""The descriptive parts of a test result: session id, message, log locations and key.

They affect no count or status, so they are drawn on request from a generator seeded by the
result id alone: cheap, and stable across requests.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from sandbox.data.outcomes import DerivedResult, Level

LOG_STORAGE = "https://storage.example.test"

MESSAGES: dict[Level, tuple[str, ...]] = {
    Level.SUCCESS: ("",),
    Level.WARNING: (
        "Step took longer than its soft limit of 10s",
        "Deprecated locator used: //div[@id='cart']",
        "Screenshot could not be attached",
    ),
    Level.FAILURE: (
        "AssertionError: expected text 'Order confirmed' but was 'Payment declined'",
        "AssertionError: expected 3 items in cart but found 2",
        "Element 'button#submit' is not clickable at point (612, 418)",
        "Expected URL to contain '/account' but was '/login?error=1'",
    ),
    Level.ERROR: (
        "TimeoutException: element '#search-results' not visible after 30s",
        "WebDriverException: session deleted because of page crash",
        "NoSuchElementException: Unable to locate element: {'css': '.checkout-summary'}",
        "SessionNotCreatedException: device did not respond within 120s",
    ),
    Level.WAITING: ("", "Waiting for a free node"),
}


@dataclass(frozen=True)
class ResultDetails:
    session_id: str
    message: str
    node_log_path: str
    executor_log_path: str


def result_details(seed: int, company_id: int, result: DerivedResult) -> ResultDetails:
    rng = random.Random(f"{seed}/result/{result.id}")
    if rng.random() < 0.5:
        session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    else:
        session_id = str(rng.randrange(10**19, 10**20))  # the service's 20-digit form
    message = rng.choice(MESSAGES[result.level])
    day = datetime.fromtimestamp(result.start_ms / 1000, UTC)
    folder = f"{LOG_STORAGE}/{company_id}/{day:%Y/%m/%d}/{session_id}"
    return ResultDetails(session_id, message, f"{folder}/node.log", f"{folder}/testResult.log")


def result_key(
    *,
    company_id: int,
    plan_id: int,
    execution_id: int,
    scenario_id: int,
    environment_id: int,
    operating_system: str,
    browser_type: str,
    version: str,
    mobile: bool,
) -> str:
    """The service's test key; mobile keys omit the "ENV:{id}" part."""
    head = f"TEST-C{company_id}-P{plan_id}-E{execution_id}-S{scenario_id}"
    environment = "" if mobile else f"-ENV:{environment_id}"
    return f"{head}{environment}-{operating_system}-{browser_type}-{version}"
