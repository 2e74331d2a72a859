"""The standup page's Newly failing table says the category the team's rules give each row's
failure (#38), and the view viewers share is keyed by those rules (`ui.shared_views.standup`,
as Failures' is): a viewer after a rule was added gets a view with its categories, never the
one made before it. On the demo sandbox, the rules read by `ui.group_rules.rules_of` held by
the test (the store's reading of them is tested with the store)."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.analytics.group_rules import NO_RULES, TeamRules
from dashboard.ui import group_rules, session, shared_views
from tests.dashboard.apptest import STANDUP, assert_no_failure
from tests.dashboard.conftest import AppFactory, Connect
from tests.dashboard.test_shared_views import Counted
from tests.group_rules import EVERY_MESSAGE


def newly_failing(at: AppTest) -> pd.DataFrame:
    """The Newly failing scenarios table (the one with an Environment column)."""
    (found,) = [d.value for d in at.dataframe if "Environment" in d.value.columns]
    return found


def test_a_rule_added_gives_the_next_viewer_the_categories_of_newly_failing_scenarios(
    app: AppFactory, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    moment = datetime.now(UTC)
    monkeypatch.setattr(session, "now", lambda connection: moment)
    held: list[TeamRules] = [NO_RULES]
    monkeypatch.setattr(group_rules, "rules_of", lambda connection: held[0])
    view = Counted(shared_views.standup_view)
    monkeypatch.setattr(shared_views, "standup_view", view)
    connect()
    before, after = app(STANDUP, tz="UTC"), app(STANDUP, tz="UTC")

    before.run()
    held[0] = EVERY_MESSAGE
    after.run()

    assert_no_failure(before)
    assert_no_failure(after)
    assert view.calls == 2  # the rules are in the shared view's key
    plain, ruled = newly_failing(before), newly_failing(after)
    assert len(plain) > 0
    assert "Category" not in plain.columns
    with_message = (ruled["Message"] != "").to_numpy()
    assert with_message.any()
    assert ruled.loc[with_message, "Category"].eq("to investigate").all()
    assert ruled.loc[~with_message, "Category"].eq("").all()
    pd.testing.assert_frame_equal(ruled.drop(columns="Category"), plain)
