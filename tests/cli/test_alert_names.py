"""The worker's alerts call scenarios by the team's names and owners (#38): names imported with
`python -m dashboard scenarios import`, then a pass of `store sync --alerts-to` against the
hand-built plan service (scenarios 51-54). A red plan names its failing scenarios; a plan's
broken scenarios said in one message keep the plan in the title though a name holds " of ";
a hostile name reaches the chat as text."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.cli import main
from dashboard.data.connection import resolve
from dashboard.data.store import open_for
from dashboard.data.store.group_rules import RuleDraft
from dashboard.present.formatting import WORD_JOINER
from tests.cli.plan_service import PlanService
from tests.cli.webhook import Receiver

# apprise, imported in this process here, still imports the deprecated `imghdr`.
pytestmark = pytest.mark.filterwarnings("ignore:'imghdr' is deprecated:DeprecationWarning")

DASHBOARD = "https://qa.example.com/"
GREEN = ("SUCCESS", "SUCCESS", "SUCCESS", "SUCCESS")
HOSTILE = "<b>x</b> @channel [a](http://e)"


def sync(env: dict[str, str], receiver: Receiver) -> int:
    return main(
        ["store", "sync", "--quiet", "--alerts-to", receiver.url("alerts"),
         "--dashboard-url", DASHBOARD],
        env,
    )  # fmt: skip


def name_scenarios(env: dict[str, str], tmp_path: Path, rows: str) -> None:
    names = tmp_path / "names.csv"
    names.write_text("id,name,owner\n" + rows, encoding="utf-8")
    assert main(["scenarios", "import", str(names), "--by", "lead"], env) == 0


def read(text: object) -> str:
    """A message as a reader sees it: escapes and word joiners gone."""
    out, escaped = [], False
    for ch in str(text):
        if escaped or ch != "\\":
            out.append(ch)
            escaped = False
        else:
            escaped = True
    return "".join(out).replace(WORD_JOINER, "")


def test_a_red_plan_names_its_failing_scenario_and_its_owner(
    service: PlanService, env: dict[str, str], receiver: Receiver, tmp_path: Path
) -> None:
    name_scenarios(env, tmp_path, "52,Login works,ana@example.com\n")
    for _ in range(3):
        service.add(*GREEN)
    service.add("SUCCESS", "FAILURE", "SUCCESS", "ERROR")  # 52 fails, 54 errs (unnamed)

    assert sync(env, receiver) == 0

    (message,) = receiver.messages
    assert message["title"] == "Red: plan 5 “Checkout” failed"
    body = str(message["message"])
    assert "Failing: Login works (52, owner ana@\u2060example\u2060.com); Scenario 54." in body


def test_a_red_plans_failing_scenario_says_the_category_the_teams_rule_gives_it(
    service: PlanService, env: dict[str, str], receiver: Receiver, tmp_path: Path
) -> None:
    name_scenarios(env, tmp_path, "52,Login works,ana@example.com\n")
    connection = resolve(session=None, secrets={}, env=env).connection
    assert connection is not None
    with open_for(connection, secrets={}, env=env) as store:
        store.add_group_rule(1, RuleDraft(message="basket total", label="product bug"), by="lead")
    for _ in range(3):
        service.add(*GREEN)
    service.add("SUCCESS", "FAILURE", "SUCCESS", "SUCCESS")

    assert sync(env, receiver) == 0

    (message,) = receiver.messages
    body = str(message["message"])
    assert "Failing: Login works (52, owner ana@\u2060example\u2060.com): product bug." in body


def test_broken_scenarios_named_with_of_and_markup_share_one_message_of_their_plan(
    service: PlanService, env: dict[str, str], receiver: Receiver, tmp_path: Path
) -> None:
    name_scenarios(env, tmp_path, f'53,Basket of the shop,cy@example.com\n54,"{HOSTILE}",\n')
    for _ in range(5):
        service.add("SUCCESS", "SUCCESS", "FAILURE", "FAILURE")

    assert sync(env, receiver) == 0

    # Red from its first run, the plan never turned red: the broken scenarios are the news.
    (message,) = receiver.messages
    assert message["title"] == "Broken: 2 scenarios of plan 5 “Checkout”"
    items = str(message["message"]).splitlines()
    assert read(items[0]).startswith("- Basket of the shop (53, owner cy@example.com) is broken")
    assert read(items[1]).startswith(f"- {HOSTILE} (54) is broken")
    everything = "\n".join(f"{m['title']}\n{m['message']}" for m in receiver.messages)
    for raw in ("<b>", "@channel", "[a](", "http://e"):
        assert raw not in everything
