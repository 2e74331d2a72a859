"""Schemathesis hooks for `test_schemathesis.py`: the company header is fixed, its mutations moot.

The filter and plans operations need `current-company-id` to name the caller's own company, so the
test fixes it to the demo lead's company (a parameter override in the config). Schemathesis still
plans cases that mutate the header, e.g. one below the declared minimum, then sends the override
instead; and because it judges a header's value as a string against the header's integer
schema, it reports the request it actually sent ("1") as an invalid one that was accepted. That
single kind of report, for that header, when the request carried the caller's company, is
dropped here: the invalid value never reached the sandbox. Every other failure counts. What the
sandbox does with a bad company header is tested directly in `test_schemathesis.py`.
"""

from __future__ import annotations

import os
from typing import Any

import schemathesis
from schemathesis.core.failures import AcceptedNegativeData

COMPANY_HEADER = "current-company-id"
# Set by the test for the schemathesis process.
COMPANY_ENV = "SANDBOX_COMPANY_ID"


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """False (drop) only for an "accepted invalid company header" whose header was overridden."""
    data = getattr(getattr(case.meta, "phase", None), "data", None)
    mutated = getattr(data, "parameter", None)
    sent = response.request.headers.get(COMPANY_HEADER)
    overridden = mutated == COMPANY_HEADER and sent == os.environ[COMPANY_ENV]
    return not (isinstance(failure, AcceptedNegativeData) and overridden)
