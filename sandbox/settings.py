"""Settings of one sandbox instance: which demo data it holds, where it serves it, which faults.

Everything that shapes the data (seed, size, time window) is explicit here and nothing reads
the wall clock, so two instances built from equal settings answer every request identically.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

# The end of the demo time window. Fixed, not "now": the data must be the same on every run.
DEFAULT_NOW = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)

# Upstream failures a client meets in practice: the service's own 500, and a gateway's 502/503/504.
INJECTABLE_ERROR_STATUSES = frozenset({500, 502, 503, 504})


@dataclass(frozen=True, kw_only=True)
class FaultSettings:
    """Fractions of API requests that misbehave, for testing a client's resilience.

    Each rate is the chance, per request to one of the three operations, that the fault
    happens. Draws come from `random.Random(seed)` in request order, so a sequential client
    meets the same faults on every run.
    """

    seed: int = 0
    error_rate: float = 0.0
    error_statuses: tuple[int, ...] = (500, 502, 503)
    rate_limit_rate: float = 0.0
    retry_after_seconds: int = 1
    slow_rate: float = 0.0
    slow_seconds: float = 2.0
    drop_rate: float = 0.0
    truncated_rate: float = 0.0
    malformed_record_rate: float = 0.0

    def __post_init__(self) -> None:
        for name in (
            "error_rate",
            "rate_limit_rate",
            "slow_rate",
            "drop_rate",
            "truncated_rate",
            "malformed_record_rate",
        ):
            rate = getattr(self, name)
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, got {rate}")
        if not self.error_statuses or not set(self.error_statuses) <= INJECTABLE_ERROR_STATUSES:
            raise ValueError(
                f"error_statuses must be a non-empty subset of {sorted(INJECTABLE_ERROR_STATUSES)}"
            )
        if self.retry_after_seconds < 0:
            raise ValueError("retry_after_seconds must not be negative")
        if self.slow_seconds < 0:
            raise ValueError("slow_seconds must not be negative")

    @property
    def enabled(self) -> bool:
        """Whether any fault can happen at all (lets the middleware step aside cheaply)."""
        return any(
            rate > 0
            for rate in (
                self.error_rate,
                self.rate_limit_rate,
                self.slow_rate,
                self.drop_rate,
                self.truncated_rate,
                self.malformed_record_rate,
            )
        )


@dataclass(frozen=True, kw_only=True)
class SandboxSettings:
    """Everything that defines a sandbox instance.

    `path_prefix` serves the API under e.g. "/svc" (routes at "/svc/api/..."), so clients whose
    base URL carries a path can be tested. `public_base_url` (scheme://host[:port], no prefix)
    replaces the address taken from the request when building `rest_api_url` and page links,
    as a service behind a proxy would. `latency_ms` delays every API response by that many
    milliseconds (the benchmark suite's far-away service); 0 means none. `token_ttl` is the
    lifetime in seconds of the access tokens the OAuth2 token endpoint issues (an hour, as in
    the service's examples; `serve --token-ttl 30s` for a test of renewal), `refresh_token_ttl`
    that of its refresh tokens; the demo users' own tokens never expire.
    """

    seed: int = 7
    executions: int = 300
    days: int = 90
    now: datetime = DEFAULT_NOW
    db_path: str = ":memory:"
    path_prefix: str = ""
    public_base_url: str | None = None
    latency_ms: int = 0
    token_ttl: float = 3600.0
    refresh_token_ttl: float = 14 * 86400.0
    faults: FaultSettings = field(default_factory=FaultSettings)

    def __post_init__(self) -> None:
        if self.executions < 0:
            raise ValueError("executions must not be negative")
        if self.days < 1:
            raise ValueError("days must be at least 1")
        if self.latency_ms < 0:
            raise ValueError("latency_ms must not be negative")
        if not 0 < self.token_ttl <= self.refresh_token_ttl:
            raise ValueError("token_ttl must be positive and at most refresh_token_ttl")
        if self.now.utcoffset() is None:
            raise ValueError("now must be timezone-aware")
        if self.path_prefix and (
            not self.path_prefix.startswith("/") or self.path_prefix.endswith("/")
        ):
            raise ValueError('path_prefix must be "" or start with "/" and not end with "/"')
        if self.public_base_url is not None and not self.public_base_url.startswith(
            ("http://", "https://")
        ):
            raise ValueError("public_base_url must be an absolute http(s) URL")
