"""The descriptive parts of a test result: session id, message, log locations and key.

They affect no count or status, so they are drawn on request from a generator seeded by the
result id alone: cheap, and stable across requests. A session id also leads back to its result
(`result_id_of_session`), so the sandbox can serve a result's logs from the log path alone,
without a table of millions of session ids.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from sandbox.data.outcomes import DerivedResult, Level

# The two files each result has, as on the service.
NODE_LOG = "node.log"
EXECUTOR_LOG = "testResult.log"
LOG_FILES = (NODE_LOG, EXECUTOR_LOG)

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

# Session ids are an invertible scramble of the result id (keyed by the seed), in one of the
# service's two forms. Numeric: 10**19 + (id * A + key) mod M, a 20-digit string. UUID: the low
# 62 bits are (id * B + key) mod 2**62 (the version and variant bits lie above them), the rest
# is filler drawn from the result's generator.
_NUMERIC_BASE = 10**19
_NUMERIC_MODULUS = 9 * 10**19
_NUMERIC_FACTOR = 6_364_136_223_846_793_007
_UUID_LOW_BITS = 62
_UUID_MODULUS = 2**_UUID_LOW_BITS
_UUID_FACTOR = 0x5851F42D4C957F2D
assert math.gcd(_NUMERIC_FACTOR, _NUMERIC_MODULUS) == 1
assert _UUID_FACTOR % 2 == 1
_NUMERIC_SESSION = re.compile(r"[1-9][0-9]{19}")
_UUID_SESSION = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


@dataclass(frozen=True)
class ResultDetails:
    session_id: str
    message: str
    node_log_path: str
    executor_log_path: str


def _key(seed: int, modulus: int) -> int:
    digest = hashlib.sha256(f"qa-sandbox-session:{seed}".encode()).digest()
    return int.from_bytes(digest[:16], "big") % modulus


def _session_id(seed: int, result_id: int, rng: random.Random) -> str:
    if rng.random() < 0.5:
        low = (result_id * _UUID_FACTOR + _key(seed, _UUID_MODULUS)) % _UUID_MODULUS
        filler = rng.getrandbits(128 - _UUID_LOW_BITS) << _UUID_LOW_BITS
        return str(uuid.UUID(int=filler | low, version=4))
    scrambled = (result_id * _NUMERIC_FACTOR + _key(seed, _NUMERIC_MODULUS)) % _NUMERIC_MODULUS
    return str(_NUMERIC_BASE + scrambled)  # the service's 20-digit form


def result_id_of_session(seed: int, session_id: str) -> int | None:
    """The id of the result a session id was made for, or None if it is not of either form.

    The answer is only a candidate: callers check that the result exists and that
    `result_details` gives it exactly this session id.
    """
    if _NUMERIC_SESSION.fullmatch(session_id):
        scrambled = int(session_id) - _NUMERIC_BASE
        key, modulus, factor = _key(seed, _NUMERIC_MODULUS), _NUMERIC_MODULUS, _NUMERIC_FACTOR
    elif _UUID_SESSION.fullmatch(session_id):
        scrambled = uuid.UUID(session_id).int % _UUID_MODULUS
        key, modulus, factor = _key(seed, _UUID_MODULUS), _UUID_MODULUS, _UUID_FACTOR
    else:
        return None
    return (scrambled - key) * pow(factor, -1, modulus) % modulus


def _fill(template: str, rng: random.Random) -> str:
    n = rng.choice((30, 45, 60, 90, 120) if "{hex}" in template else (2, 3, 4, 5, 6))
    return template.format(n=n, m=rng.randrange(0, n), hex=f"0x{rng.getrandbits(16):04x}")


def log_folder(log_root: str, company_id: int, start_ms: int, session_id: str) -> str:
    """`{log_root}/{company}/{yyyy}/{MM}/{dd}/{session_id}`, dated by the result's start."""
    day = datetime.fromtimestamp(start_ms / 1000, UTC)
    return f"{log_root}/{company_id}/{day:%Y/%m/%d}/{session_id}"


def result_details(
    seed: int, company_id: int, result: DerivedResult, log_root: str, failure_message: str = ""
) -> ResultDetails:
    """`log_root` is where this sandbox serves its logs, as the caller reached it.

    A failing result of a scenario with a `failure_message` template gets that template with
    its numbers and hex id drawn here, so the same failure repeats with different numbers."""
    rng = random.Random(f"{seed}/result/{result.id}")
    session_id = _session_id(seed, result.id, rng)
    message = rng.choice(MESSAGES[result.level])
    if failure_message and result.level in (Level.FAILURE, Level.ERROR):
        message = _fill(failure_message, rng)
    folder = log_folder(log_root, company_id, result.start_ms, session_id)
    return ResultDetails(session_id, message, f"{folder}/{NODE_LOG}", f"{folder}/{EXECUTOR_LOG}")


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
