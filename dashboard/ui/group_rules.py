"""The team's rules for failure groups as the pages apply them: read from the history store
(`data.cache_history.group_rules`, kept 15 seconds as the marks are) and compiled by RE2
(`data.store.group_rules.usable`): a stored pattern this version cannot compile leaves its rule
out (the groups' caption counts it), never failing the page. The views take the result as an
input (`analytics.group_rules.TeamRules`)."""

from __future__ import annotations

from dashboard.analytics.group_rules import TeamRules, team_rules
from dashboard.data import cache_history
from dashboard.data.connection import Connection
from dashboard.data.store import group_rules as stored


def rules_of(connection: Connection) -> TeamRules:
    """The company's rules in force, compiled, with the store's RE2 sets to search them."""
    return team_rules(cache_history.group_rules(connection), stored.usable, stored.search_many)
