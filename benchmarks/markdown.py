"""`python -m benchmarks.markdown results.json`: a JSON document of the suite as Markdown tables,
the figures part of `benchmarks/RESULTS.md`, so the record is regenerated, not retyped."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.report import value_text

MET = {True: "met", False: "**missed**", None: ""}


def ratio_text(figure: dict[str, Any], names: list[str]) -> str:
    ratio = figure["ratio"]
    if ratio is None:
        return ""
    peer = f"({names.index(figure['peer']) + 1})" if figure["peer"] in names else "?"
    if figure["compare"] == "speedup":
        return f"{ratio:,.2f}x faster than {peer}"
    return f"{ratio:,.2f}x {peer}"


def case_markdown(case: dict[str, Any]) -> str:
    lines = [f"### {case['title']}", ""]
    if case["status"] != "ok":
        lines += [f"Status: {case['status']}. {case['error'] or ''}".rstrip(), ""]
    names = [figure["name"] for figure in case["figures"]]
    lines += [
        "| # | figure | median | min | max | vs peer | target | |",
        "|---|---|---:|---:|---:|---|---|---|",
    ]
    for number, figure in enumerate(case["figures"], 1):
        if not figure["runs"]:
            continue
        unit = figure["unit"]
        name = figure["name"].strip() + (" *(computed)*" if figure["computed"] else "")
        if figure["name"].startswith(" "):
            name = "↳ " + name
        target = figure["target"]["text"] if figure["target"] else ""
        lines.append(
            f"| {number} | {name} | {value_text(figure['median'], unit)} | "
            f"{value_text(figure['min'], unit)} | {value_text(figure['max'], unit)} | "
            f"{ratio_text(figure, names)} | {target} | {MET[figure['met']]} |"
        )
    lines.append("")
    lines += [f"- {note}" for note in case["notes"]]
    return "\n".join(lines)


def document_markdown(document: dict[str, Any]) -> str:
    machine = document["machine"]
    header = [
        f"Size `{document['size']}`, {machine['date']}, commit `{machine['commit']}`"
        + (" (with uncommitted changes)" if machine.get("dirty") else "")
        + f"; load average before {machine['load_average_before']}, "
        f"after {machine['load_average_after']}.",
        "",
    ]
    return "\n".join(header + [case_markdown(c) + "\n" for c in document["cases"].values()])


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m benchmarks.markdown RESULTS.json", file=sys.stderr)
        return 2
    print(document_markdown(json.loads(Path(args[0]).read_text())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
