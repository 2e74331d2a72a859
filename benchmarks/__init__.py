"""The benchmark suite: `python -m benchmarks --size full` (see `docs/benchmarks.md` and
`benchmarks/RESULTS.md`).

`cases/` holds one module per case; `context.Run` is what they share (sandbox child processes,
demo data, scratch folders); `measure` the figures, their peers and targets; `report` the table
and the JSON document.
"""
