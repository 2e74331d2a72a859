"""The hand-built history (tests/dashboard/history_service.py) with one night the grid was down:
in plan 7's execution at `index`, every result failed with the same grid message, so it is a
likely outage (15 of 15 verdicts failed at index 4 or later; 18 of 18 before), whose dominant
failure group is `GRID_GROUP`.

The rest is the hand-built history unchanged, so its known answers hold outside that execution.
Per execution of plan 7 (index: failed of verdicts), without an outage:

    0: 1/18  1: 4/18  2: 1/18  3: 1/18  4: 4/15  5: 1/15
    6: 5/15  7: 5/15  8: 5/15  9: 5/15  10: 5/15  11: 8/15

192 verdicts, 45 failed, 147 passed over the 12 finished executions. With the outage at index
10 (`LATE`): 55 failed, 137 passed (71.35 %); without that execution's 15 verdicts: 177
verdicts, 40 failed, 137 passed (77.40 %).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tests.dashboard import history_service as hand
from tests.loopback_service import serve_json

LATE = 10
"""The outage at index 10: execution 1011, the plan's newest finished but one."""
EARLY = 1
"""The outage at index 1: execution 1002, older than the last 10 runs of every scenario."""
GRID_TEMPLATE = "UnreachableBrowserException: no node of the grid answered in {n} s (session {hex})"
GRID_GROUP = "UnreachableBrowserException: no node of the grid answered in {n} s (session {hex})"
"""Every message of the outage, normalised: its one failure group."""


def outage_execution(index: int) -> int:
    return hand.FIRST_EXECUTION + index


@dataclass
class OutageHistory(hand.HistoryService):
    index: int = LATE

    def results(self, execution_id: int, scenario: int) -> list[dict[str, Any]]:
        out = super().results(execution_id, scenario)
        if execution_id != outage_execution(self.index):
            return out
        return [
            {
                **result,
                "level": "FAILURE",
                "message": GRID_TEMPLATE.format(n=30 + position, hex=f"{0xA1B2C3D4 + position:x}"),
            }
            for position, result in enumerate(out)
        ]


@contextmanager
def serve_outage_history(index: int = LATE) -> Iterator[OutageHistory]:
    """Serve the hand-built history with the outage at `index` on a free loopback port."""
    service = OutageHistory(index=index)
    with serve_json(service.answer, name="outage-history") as base_url:
        service.base_url = base_url
        yield service
