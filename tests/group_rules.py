"""Rules for failure groups the tests hold in place of the store's (whose reading of them is
tested with the store)."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.group_rules import CATEGORY, team_rules
from dashboard.data.store.group_rules import search_many, usable

EVERY_MESSAGE = team_rules(
    pd.DataFrame(
        [
            {
                "rule_id": "all",
                "message_pattern": ".",
                "action": CATEGORY,
                "label": "to investigate",
                "removed_at": None,
            }
        ]
    ),
    usable,
    search_many,
)
"""One rule giving every failure with a message the category "to investigate", compiled as the
pages compile the store's rules."""
