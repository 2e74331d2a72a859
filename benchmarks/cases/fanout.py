"""Case 2, results fan-out: the results of many (execution, scenario) pairs behind a 50 ms
service, through `results_fanout.fetch_results` (no store) against a loop that asks for one
pair after another with `client.test_results`."""

from __future__ import annotations

from api_client import ApiClient
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Compare, Target, timed
from dashboard.data import frames
from dashboard.data.pairs import result_pairs
from dashboard.data.results_fanout import DEFAULT_CONCURRENCY, fetch_results
from dashboard.data.store.records import finished_execution_ids

NAME = "fanout"
TITLE = "2. Results fan-out"
SEQUENTIAL = "sequential client.test_results loop"


def run(run: Run) -> CaseResult:
    size = run.size
    sandbox = run.sandbox(executions=size.fetch_executions, latency_ms=size.latency_ms)
    lead = sandbox.lead
    result = CaseResult(NAME, TITLE)

    def client(concurrency: int = 8) -> ApiClient:
        return ApiClient(
            base_url=sandbox.base_url,
            token=lead.token,
            company_id=lead.company_id,
            max_concurrency=concurrency,
        )

    with client() as api:
        listed = api.executions(1, 1000).item_list
        plans = frames.plans_frame(api.plans(active=False))
    executions = frames.executions_frame(listed)
    finished = finished_execution_ids(executions, frames.status_counts_frame(listed))
    every_pair, _ = result_pairs(executions, plans, [e.id for e in listed if e.id in finished])
    pairs = list(every_pair[: size.fanout_pairs])
    if len(pairs) < size.fanout_pairs:
        raise AssertionError(f"only {len(pairs)} pairs in the sandbox's latest executions")

    def fan_out(concurrency: int) -> int:
        with client(concurrency) as api:
            answer = fetch_results(
                api, pairs, finished=finished, store=None, max_concurrency=concurrency
            )
        if answer.failures:
            raise AssertionError(f"{len(answer.failures)} pairs failed")
        return len(answer.results)

    def one_by_one() -> int:
        with client() as api:
            return sum(len(api.test_results(*pair)) for pair in pairs)

    sixteen = result.figure(
        "fetch_results, 16 in flight (default)",
        "s",
        peer=SEQUENTIAL,
        compare=Compare.SPEEDUP,
        target=Target(Bound.RATIO_AT_LEAST, 8, ">= 8x faster than the loop"),
    )
    eight = result.figure(
        "fetch_results, 8 in flight (the default before)",
        "s",
        peer=SEQUENTIAL,
        compare=Compare.SPEEDUP,
    )
    loop = result.figure(SEQUENTIAL, "s")
    counts: set[int] = set()
    for _ in range(run.repeats(slow=True)):
        for figure, action in (
            (sixteen, lambda: fan_out(DEFAULT_CONCURRENCY)),
            (eight, lambda: fan_out(8)),
            (loop, one_by_one),
        ):
            seconds, count = timed(action)
            figure.runs.append(seconds)
            counts.add(count)
    if len(counts) != 1:
        raise AssertionError(f"the fan-out and the loop found different results: {counts}")
    result.notes.append(
        f"{len(pairs):,} pairs of the newest finished executions ({counts.pop():,} results), "
        f"{size.latency_ms} ms added to every response. With 8 requests in flight the best "
        f"possible speed-up over one at a time is 8x, hence the default of {DEFAULT_CONCURRENCY}."
    )
    return result
