"""`python -m benchmarks [--size tiny|full] [--only CASE ...] [--json out.json]`: the
benchmark suite. Prints each case's table as it ends and writes every figure to JSON.

Exit status: 0 when every case ran (or was skipped for want of chromium, outside CI), 1 when a
case failed, 2 on bad usage. Missed targets do not change it: they are findings, not failures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from benchmarks import machine, report
from benchmarks.cases import CASES, NAMES
from benchmarks.context import ARTIFACTS, Run
from benchmarks.measure import CaseResult
from benchmarks.sizes import SIZES


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--size", choices=sorted(SIZES), default="full")
    parser.add_argument(
        "--only", nargs="+", choices=NAMES, metavar="CASE", help=f"among: {', '.join(NAMES)}"
    )
    parser.add_argument(
        "--json",
        type=Path,
        help="where to write the figures (default: artifacts/benchmarks/results-SIZE.json)",
    )
    return parser


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    size = SIZES[args.size]
    wanted = set(args.only or NAMES)
    out = args.json or ARTIFACTS / f"results-{size.name}.json"
    described = machine.describe()
    print(
        f"Benchmarks, size {size.name}, on {described['cpu']} ({described['cores']} cores, "
        f"{described['memory_gb']} GB), load {described['load_average_before']}",
        flush=True,
    )
    run = Run(size=size, require_browser=in_ci())
    run.artifacts.mkdir(parents=True, exist_ok=True)
    results: list[CaseResult] = []
    try:
        for case in CASES:
            if case.name not in wanted:
                continue
            started = time.perf_counter()
            try:
                result = case.run(run)
            except Exception as error:
                traceback.print_exc(file=sys.stderr)
                result = CaseResult(case.name, case.title, status="error")
                result.error = f"{type(error).__name__}: {error}"
            result.seconds = time.perf_counter() - started
            results.append(result)
            print("\n" + report.case_table(result), flush=True)
    finally:
        run.close()
    doc = report.document(
        size=size.name, machine=described, load_after=machine.load_average(), cases=results
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"\nFigures written to {out}")
    return 1 if any(result.status == "error" for result in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
