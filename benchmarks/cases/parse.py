"""Case 3, parse and frame: 100,000 executions, and 100,000 results, from JSON bytes to the
frame the pages use, against `json.loads` + `pandas.DataFrame` with no validation.

Ours is the client's own parsing into records (`api_client.parsing.record_dicts_from_json`:
pydantic-core JSON, then one validation of the list by each model's rules into dicts, no model
per record) followed by `frames.executions_frame_of` or `records.results_frame`: what the walk
and the results fan-out do. The two steps are also reported apart, to show where the time goes,
and the model path (a pydantic model per record, then the frame) beside them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pandas as pd

from benchmarks import data
from benchmarks.context import Run
from benchmarks.measure import Bound, CaseResult, Target, timed
from dashboard.data import frames
from dashboard.data.store import records

NAME = "parse"
TITLE = "3. Parse and frame"
WITHIN = Target(Bound.RATIO_AT_MOST, 1.5, "within 1.5x json.loads + DataFrame")


def run(run: Run) -> CaseResult:
    size = run.size
    demo = run.demo(size.parse_records)
    result = CaseResult(NAME, TITLE)
    executions_body, executions = data.executions_json(demo, size.parse_records)
    results_body, results = data.results_json(demo, size.parse_records)

    _measure(
        result,
        run.repeats(),
        "executions",
        executions_body,
        (data.parse_execution_records, frames.executions_frame_of),
        (data.parse_executions, frames.executions_frame),
    )
    _measure(
        result,
        run.repeats(),
        "results",
        results_body,
        (data.parse_result_records, records.results_frame),
        (data.parse_results, records.results_frame),
    )
    result.notes += [
        f"{executions:,} executions ({len(executions_body) / 1e6:.1f} MB of JSON, both demo "
        f"companies) and {results:,} results ({len(results_body) / 1e6:.1f} MB) of the sandbox, "
        "serialised as its routes serialise them.",
        "Each repeat runs ours, the model path and the peer one after the other, so a busy "
        "moment of the shared machine falls on all three alike.",
    ]
    return result


Steps = tuple[Callable[[bytes], list[Any]], Callable[[Any], pd.DataFrame]]


def _measure(
    result: CaseResult, repeats: int, kind: str, body: bytes, ours: Steps, models: Steps
) -> None:
    peer = f"{kind}: json.loads + DataFrame"
    total = result.figure(f"{kind}: bytes -> records -> frame", "s", peer=peer, target=WITHIN)
    parsing = result.figure(f"{kind}: bytes -> records", "s", peer=peer)
    framing = result.figure(f"{kind}: records -> frame", "s", peer=peer)
    by_model = result.figure(f"{kind}: bytes -> models -> frame (the model path)", "s", peer=peer)
    plain = result.figure(peer, "s")
    for _ in range(repeats):
        parse_s, parsed = timed(ours[0], body)
        frame_s, built = timed(ours[1], parsed)
        parsing.runs.append(parse_s)
        framing.runs.append(frame_s)
        total.runs.append(parse_s + frame_s)
        del parsed
        model_s, by_models = timed(lambda: models[1](models[0](body)))
        by_model.runs.append(model_s)
        plain_s, loose = timed(_load_plainly, body)
        plain.runs.append(plain_s)
        if not len(built) == len(by_models) == len(loose):
            raise AssertionError(
                f"{kind}: {len(built)} rows framed, {len(by_models)} by models, {len(loose)} loaded"
            )
        pd.testing.assert_frame_equal(built, by_models, check_exact=True)
        del built, by_models, loose


def _load_plainly(body: bytes) -> pd.DataFrame:
    """The peer: the standard library's JSON and a frame of whatever it holds, unvalidated."""
    return pd.DataFrame(json.loads(body))
