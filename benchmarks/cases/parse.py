"""Case 3, parse and frame: 100,000 executions, and 100,000 results, from JSON bytes to the
frame the pages use, against `json.loads` + `pandas.DataFrame` with no validation.

Ours is the client's own parsing (`api_client.parsing.records_from_json`: pydantic-core JSON,
then one `TypeAdapter` validation of the list) followed by `frames.executions_frame` or
`records.results_frame`. The two steps are also reported apart, to show where the time
goes.
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
WITHIN = Target(Bound.RATIO_AT_MOST, 3, "within 3x json.loads + DataFrame")


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
        data.parse_executions,
        frames.executions_frame,
    )
    _measure(
        result,
        run.repeats(),
        "results",
        results_body,
        data.parse_results,
        records.results_frame,
    )
    result.notes.append(
        f"{executions:,} executions ({len(executions_body) / 1e6:.1f} MB of JSON, both demo "
        f"companies) and {results:,} results ({len(results_body) / 1e6:.1f} MB) of the sandbox, "
        "serialised as its routes serialise them."
    )
    return result


def _measure(
    result: CaseResult,
    repeats: int,
    kind: str,
    body: bytes,
    parse: Callable[[bytes], list[Any]],
    frame: Callable[[list[Any]], pd.DataFrame],
) -> None:
    peer = f"{kind}: json.loads + DataFrame"
    total = result.figure(f"{kind}: bytes -> models -> frame", "s", peer=peer, target=WITHIN)
    parsing = result.figure(f"{kind}: bytes -> models", "s", peer=peer)
    framing = result.figure(f"{kind}: models -> frame", "s", peer=peer)
    plain = result.figure(peer, "s")
    for _ in range(repeats):
        parse_s, models = timed(parse, body)
        frame_s, built = timed(frame, models)
        parsing.runs.append(parse_s)
        framing.runs.append(frame_s)
        total.runs.append(parse_s + frame_s)
        plain_s, loose = timed(_load_plainly, body)
        plain.runs.append(plain_s)
        if len(built) != len(loose):
            raise AssertionError(f"{kind}: {len(built)} rows framed, {len(loose)} loaded")
        del models, built, loose


def _load_plainly(body: bytes) -> pd.DataFrame:
    """The peer: the standard library's JSON and a frame of whatever it holds, unvalidated."""
    return pd.DataFrame(json.loads(body))
