"""Case 1, executions fetch: every execution of the lead's company behind a 50 ms service.

`all_executions()` with its defaults (pages of 1,000, 8 in flight) against a naive sequential
walk (pages of 100, one at a time) and against the latency floor,
`ceil(pages / concurrency) x latency`. A fresh client per run, so each run learns the page size
as a first walk does.

Then the walk issue #27 measured: `all_executions(page_size=100)` over a smaller company (71
pages of 100 at the full size), against the same sequential walk of it and the same floor, as
a service that takes pages of 100 at most would be walked.

Each walk is also timed against a sandbox of the same data with no latency: what is left there
is work (the sandbox serialising, the client parsing, on the same two cores), which no
concurrency hides.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from api_client import ApiClient
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Compare, Figure, Target, timed
from benchmarks.sandbox_process import SandboxProcess

NAME = "fetch"
WORK_FLOOR = "floor with the work: max(the floor, the walk with no latency)"
TITLE = "1. Executions fetch"
CONCURRENCY = 8  # ApiClient's default max_concurrency
DEFAULT_PAGE = 1000  # what all_executions asks for first
# Issue #27 item 4 (issue #10 asked for 6x).
SPEEDUP = Target(Bound.RATIO_AT_LEAST, 8, ">= 8x faster than the walk")
AT_FLOOR = Target(Bound.RATIO_AT_MOST, 1.5, "<= 1.5x ceil(pages / 8) x latency")
AT_WORK_FLOOR = Target(Bound.RATIO_AT_MOST, 1.5, "<= 1.5x max(floor, the walk with no latency)")
SMALL = "#27's walk"
WIDE = 16  # tried for the dashboard's walks (#27): faster with latency, not kept (RESULTS.md)


@dataclass(frozen=True)
class Walk:
    """The figures of one walk: the client's, against the sequential walk and two floors."""

    label: str  # what the rows set against floors are called
    fast: str
    wide: str  # the same walk with more pages in flight
    sequential: str
    instant: str
    floor: str
    work_floor: str


def run(run: Run) -> CaseResult:
    size = run.size
    sandbox = run.sandbox(executions=size.fetch_executions, latency_ms=size.latency_ms)
    result = CaseResult(NAME, TITLE)

    small_pages = "all_executions(page_size=100) (8 in flight)"
    main = _figures(
        result,
        Walk(
            label="all_executions()",
            fast="all_executions() (pages of 1,000, 8 in flight)",
            wide=f"all_executions() with {WIDE} in flight",
            sequential="sequential walk, pages of 100",
            instant="all_executions() on the same data with no latency",
            floor="floor: ceil(pages / 8) x latency",
            work_floor=WORK_FLOOR,
        ),
        small_pages=small_pages,
    )
    small = _figures(
        result,
        Walk(
            label=f"{SMALL}: all_executions(page_size=100)",
            fast=f"{SMALL}: all_executions(page_size=100) (8 in flight)",
            wide=f"{SMALL}: the same with {WIDE} in flight",
            sequential=f"{SMALL}: sequential walk",
            instant=f"{SMALL}: all_executions(page_size=100) with no latency",
            floor=f"{SMALL}: floor: ceil(pages / 8) x latency",
            work_floor=f"{SMALL}: {WORK_FLOOR}",
        ),
    )
    # The same walks with no latency: what is left is work, which no concurrency hides.
    instant = run.sandbox(executions=size.fetch_executions)
    executions = _measure(
        run,
        result,
        main,
        sandbox,
        instant,
        page_size=None,
        small_pages=result.figure(small_pages, "s"),
    )
    small_sandbox = run.sandbox(executions=size.small_walk_executions, latency_ms=size.latency_ms)
    small_instant = run.sandbox(executions=size.small_walk_executions)
    small_executions = _measure(
        run, result, small, small_sandbox, small_instant, page_size=size.naive_page_size
    )

    pages = math.ceil(executions / DEFAULT_PAGE)
    small_count = math.ceil(executions / size.naive_page_size)
    small_walk_pages = math.ceil(small_executions / size.naive_page_size)
    latency = size.latency_ms
    result.notes += [
        f"{executions:,} executions of company 1 ({pages} page(s) of 1,000, "
        f"{small_count} of {size.naive_page_size}); {latency} ms added to every response; every "
        "walk returned all of them.",
        f"#27's walk: {small_executions:,} executions of company 1 in a sandbox of "
        f"{size.small_walk_executions:,}: {small_walk_pages} pages of {size.naive_page_size}, "
        f"asked for at that size (as from a service that takes no larger page).",
        f"The floor is the issue's formula; a walk must read page 1 alone before it knows the "
        f"count, so its real minimum is (1 + ceil((pages - 1) / 8)) x latency: "
        f"{_real_minimum(pages, latency)} ms for the first walk, "
        f"{_real_minimum(small_walk_pages, latency)} ms for #27's "
        f"(the formula: {math.ceil(pages / CONCURRENCY) * latency} and "
        f"{math.ceil(small_walk_pages / CONCURRENCY) * latency} ms).",
        "The issue's floor counts the client's parsing and the service's serialising as free: "
        "where the same walk with no latency at all costs more than the floor, the formula "
        "cannot be met. The target is also restated against the larger of the two: latency is "
        "hidden when the walk costs at most 1.5x what it would cost with no latency (or the "
        "floor, if larger).",
    ]
    return result


def _figures(result: CaseResult, walk: Walk, *, small_pages: str | None = None) -> Walk:
    """Declare one walk's figures, in report order."""
    result.figure(walk.fast, "s", peer=walk.sequential, compare=Compare.SPEEDUP, target=SPEEDUP)
    result.figure(
        f"{walk.label} against the issue's floor",
        "s",
        peer=walk.floor,
        target=AT_FLOOR,
        note="the same runs as the walk's first row; the issue's formula counts work as free",
    )
    result.figure(
        f"{walk.label} against the floor with the work",
        "s",
        peer=walk.work_floor,
        target=AT_WORK_FLOOR,
        note="the same runs as the walk's first row",
    )
    result.figure(walk.wide, "s", peer=walk.sequential, compare=Compare.SPEEDUP)
    if small_pages is not None:
        result.figure(small_pages, "s", peer=walk.sequential, compare=Compare.SPEEDUP)
    result.figure(walk.sequential, "s")
    result.figure(walk.instant, "s")
    result.figure(walk.floor, "s", computed=True)
    result.figure(walk.work_floor, "s", computed=True)
    return walk


def _measure(
    run: Run,
    result: CaseResult,
    walk: Walk,
    sandbox: SandboxProcess,
    instant: SandboxProcess,
    *,
    page_size: int | None,
    small_pages: Figure | None = None,
) -> int:
    """Time `walk`'s runs (each a fresh client) and compute its floors; how many executions
    every walk returned."""
    size = run.size
    lead = sandbox.lead

    def client(base_url: str, in_flight: int = CONCURRENCY) -> ApiClient:
        return ApiClient(
            base_url=base_url,
            token=lead.token,
            company_id=lead.company_id,
            max_concurrency=in_flight,
        )

    def walk_naively() -> int:
        """Page 1, 2, 3... of 100, each request waiting for the one before."""
        with client(sandbox.base_url) as api:
            page_number, seen = 1, 0
            while True:
                page = api.executions(page_number, size.naive_page_size)
                seen += len(page.item_list)
                if page_number >= page.page_count or not page.item_list:
                    return seen
                page_number += 1

    def fetch_all(
        base_url: str, pages_of: int | None = page_size, in_flight: int = CONCURRENCY
    ) -> int:
        with client(base_url, in_flight) as api:
            return len(api.all_executions(page_size=pages_of))

    # The figures `_figures` declared (`figure` returns them).
    fast = result.figure(walk.fast, "s")
    against_floor = result.figure(f"{walk.label} against the issue's floor", "s")
    against_work = result.figure(f"{walk.label} against the floor with the work", "s")
    wide = result.figure(walk.wide, "s")
    naive = result.figure(walk.sequential, "s")
    work = result.figure(walk.instant, "s")
    counts: set[int] = set()
    for _ in range(run.repeats(slow=True)):
        seconds, count = timed(fetch_all, sandbox.base_url)
        for figure in (fast, against_floor, against_work):
            figure.runs.append(seconds)
        counts.add(count)
        seconds, count = timed(fetch_all, sandbox.base_url, page_size, WIDE)
        wide.runs.append(seconds)
        counts.add(count)
        if small_pages is not None:
            seconds, count = timed(fetch_all, sandbox.base_url, size.naive_page_size)
            small_pages.runs.append(seconds)
            counts.add(count)
        seconds, count = timed(walk_naively)
        naive.runs.append(seconds)
        counts.add(count)
        seconds, count = timed(fetch_all, instant.base_url)
        work.runs.append(seconds)
        counts.add(count)
    if len(counts) != 1:
        raise AssertionError(f"the walks disagree on how many executions there are: {counts}")
    executions = counts.pop()
    pages = math.ceil(executions / (page_size or DEFAULT_PAGE))
    floor = math.ceil(pages / CONCURRENCY) * size.latency_ms / 1000
    result.figure(walk.floor, "s").runs.append(floor)
    result.figure(walk.work_floor, "s").runs.append(max(floor, statistics.median(work.runs)))
    return executions


def _real_minimum(pages: int, latency_ms: int) -> int:
    """Milliseconds of latency a walk of `pages` cannot avoid: page 1 alone, then the rest
    `CONCURRENCY` at a time."""
    return (1 + math.ceil((pages - 1) / CONCURRENCY)) * latency_ms
