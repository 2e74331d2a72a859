"""An alert's words carry names, messages and tickets as text, through the very function the
chat digest uses (`formatting.chat_text`): no name mentions a channel, makes a link (bare, in
Slack's `<url|text>` or Markdown's `[text](url)`), or reorders the line; each reads as the pages
show it. A ticket is a link only when it is a web link, and its words are escaped too."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from dashboard.analytics import alerts as alert_rules
from dashboard.analytics.alerts import BROKEN, EXPIRING, FLAKY, GREEN, LOOKS_FIXED, RED, Change
from dashboard.analytics.triage import failure_verdicts
from dashboard.columns import marks as columns
from dashboard.present import alerts, digest, formatting
from dashboard.present.formatting import WORD_JOINER, visible_text
from tests.analytics import triage_frames as world

CHAT_LINK = re.compile(r"://|\w\.\w|@\w|<[!@#]", re.ASCII)
MENTIONS = ("@channel", "@here", "@all", "@everyone", "<!channel>", "<!here>", "<@U0123>")
BIDI = "\u202e\u202d\u2066\u2067\u2068\u2069\u200f\u200e\u200b"
HOSTILE = [
    "<!channel> checkout is down",
    "@here @channel @all",
    "evil\u202eexe.txt",
    "<https://evil.example/login|Checkout>",
    "[Checkout](https://evil.example/login)",
    "*bold* `code` # heading",
    "www.evil.example\nsecond line",
]
LINK = re.compile(r"(?<!\\)\]\(")  # a Markdown link: "](" with its "]" not escaped
START = pd.Timestamp("2026-11-24 09:00", tz="UTC")


def changes(name: str) -> list[Change]:
    base = {"plan_id": 5, "project_id": 1, "plan": name, "execution_id": 7, "start": START}
    mark = {"plan_id": 5, "project_id": None, "plan": None, "execution_id": None, "start": None}
    return [
        Change(key="r", kind=RED, previous_execution_id=6, detail="1 of 4 failed", **base),
        Change(key="g", kind=GREEN, previous_execution_id=6, **base),
        Change(key="b", kind=BROKEN, scenario_id=53, detail="failed 5 of 5", **base),
        Change(key="f", kind=FLAKY, scenario_id=54, detail="4 flips in 5 runs", **base),
        Change(key="e", kind=EXPIRING, mark_id="m1", ticket=name, target=name, detail="d", **mark),
        Change(key="l", kind=LOOKS_FIXED, mark_id="m2", ticket=name, target=name, **mark),
    ]


def unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown).replace(WORD_JOINER, "")


def test_alerts_and_the_digest_share_one_chat_text() -> None:
    assert alerts.chat_text is formatting.chat_text
    assert digest.chat_text is formatting.chat_text


@pytest.mark.parametrize("name", HOSTILE)
def test_an_alert_carries_hostile_names_and_tickets_as_text(name: str) -> None:
    for change in changes(name):
        title, body = alerts.alert_title(change), alerts.alert_body(change, None)
        for text in (title, body):
            assert not CHAT_LINK.search(text), text
            assert not any(mention in text for mention in MENTIONS), text
            assert not any(mark in text for mark in BIDI), text
            assert "\n" not in text
            assert not LINK.search(text), text
            assert not re.search(r"(?<!\\)[*`#<>|\[\]]", text), text
        assert visible_text(name, one_line=True) in unescaped(title + " " + body)


def test_a_web_link_ticket_is_a_link_with_escaped_words() -> None:
    ticket = "https://tracker.example/QA-7"
    mark = changes("x")[4]
    body = alerts.alert_body(Change(**{**mark.__dict__, "ticket": ticket}), None)

    assert f"(<{ticket}>)" in body or f"({ticket})" in body
    assert "[https:\u2060//tracker\u2060.example/QA-7](" in body


@pytest.mark.parametrize("ticket", ["javascript:alert(1)", "QA-7", "<https://evil.example|QA-7>"])
def test_a_stored_ticket_that_is_no_web_link_is_no_link(ticket: str) -> None:
    mark = changes("x")[4]
    body = alerts.alert_body(Change(**{**mark.__dict__, "ticket": ticket}), None)
    assert not LINK.search(body), body


def test_markup_in_a_stored_web_link_ticket_makes_no_second_link() -> None:
    mark = changes("x")[4]
    ticket = "https://tracker.example/x)[y](https://evil.example|<!here>"
    body = alerts.alert_body(Change(**{**mark.__dict__, "ticket": ticket}), None)
    assert len(LINK.findall(body)) == 1, body
    assert "(https://tracker.example/x%29%5By%5D%28https://evil.example%7C%3C!here%3E)" in body


# -- the alerts read the one verdict (#37), on hand-built worlds of triage_frames -------------

GREEN_WORLD = {s: {"chrome": "P" * 10, "safari": "P" * 10} for s in range(1, 7)}
"""Six scenarios passing every day; the outage night (execution 11) fails 11 of 12."""
TWO_DAYS = pd.Timedelta(days=2).to_pytimedelta()


def world_of(scenarios: dict[int, dict[str, str]], outage_at: str) -> tuple[object, object]:
    rows = world.world_results(scenarios)
    return world.results(rows), world.summaries(rows, starts={world.OUTAGE_ID: outage_at})


@pytest.mark.parametrize(
    "outage_at", ["2026-11-19 02:00", "2026-11-20 02:00"], ids=["before-latest", "latest"]
)
def test_a_plan_red_only_in_an_outage_is_neither_red_nor_green_again(outage_at: str) -> None:
    results, executions = world_of(GREEN_WORLD, outage_at)
    assert alert_rules.plan_changes(executions, world.NOW, horizon=TWO_DAYS) == []
    assert (
        alert_rules.plan_changes(
            executions, world.NOW, horizon=TWO_DAYS, results=results, marks=world.NO_MARKS
        )
        == []
    )
    # A "not an outage" mark makes it count like any other execution: then it is said.
    dismissed = world.marks(
        world.mark("d", columns.EXECUTION, kind=columns.NOT_AN_OUTAGE, execution_id=world.OUTAGE_ID)
    )
    kinds = [
        c.kind
        for c in alert_rules.plan_changes(
            executions, world.NOW, horizon=TWO_DAYS, results=results, marks=dismissed
        )
    ]
    assert kinds == (["green"] if outage_at.startswith("2026-11-19") else ["red"])


def test_an_outage_makes_no_scenario_flaky_or_broken() -> None:
    results, executions = world_of(GREEN_WORLD, "2026-11-19 02:00")
    assert alert_rules.scenario_changes(executions, results, world.NOW, horizon=TWO_DAYS) == []


def test_a_red_alert_names_its_failures_by_their_verdict() -> None:
    scenarios = {**GREEN_WORLD, 1: {"chrome": "P" * 9 + "F", "safari": "P" * 10}}
    scenarios[2] = {"chrome": "P" * 9 + "F", "safari": "P" * 10}
    results, executions = world_of(scenarios, world.OUTAGE_START)
    known = world.marks(world.mark("m2", "scenario", plan_id=1, scenario_id=2))
    (red,) = alert_rules.plan_changes(
        executions, world.NOW, horizon=TWO_DAYS, results=results, marks=known
    )
    assert red.kind == RED
    assert red.execution_id == 10
    assert red.split == (("known", 1), ("new", 1))
    # The split is the one `failure_verdicts` gives the execution's failures.
    found = failure_verdicts(results, executions, known, now=world.NOW, judged=[10])
    assert sorted(found["label"]) == ["known", "new"]
    body = alerts.alert_body(red, None)
    assert (
        "failed after execution 9 passed: 2 of 12 verdicts failed (1 unresolved (1 new), "
        "1 known)." in body
    )


def test_the_split_words_say_unresolved_first_then_what_is_apart() -> None:
    assert alerts.split_words({"unresolved": 3, "known": 2, "outage": 17}) == (
        "3 unresolved, 2 known, 17 in a likely outage"
    )
    assert alerts.split_words((("incomplete", 1), ("broken", 2), ("new", 1))) == (
        "3 unresolved (2 broken, 1 new), 1 incomplete"
    )
    assert alerts.split_words({"known": 4}) == "0 unresolved, 4 known"


def test_a_red_alert_names_the_outage_it_left_out_with_its_message() -> None:
    # Scenario 1 fails on Chrome in execution 10 (19 Nov 08:00); the outage night, execution
    # 11, fell between execution 9 and 10: 11 of its 12 results failed, "grid down".
    scenarios = {**GREEN_WORLD, 1: {"chrome": "P" * 9 + "F", "safari": "P" * 10}}
    results, executions = world_of(scenarios, "2026-11-19 02:00")

    (red,) = alert_rules.plan_changes(
        executions, world.NOW, horizon=TWO_DAYS, results=results, marks=world.NO_MARKS
    )

    assert (red.kind, red.execution_id, red.previous_execution_id) == (RED, 10, 9)
    (outage,) = red.left_out
    assert (outage.execution_id, outage.failed, outage.verdicts) == (world.OUTAGE_ID, 11, 12)
    assert outage.signature == "UnreachableBrowser: grid down"
    body = alerts.alert_body(red, None)
    assert (
        "Left out: a likely outage of plan 1 “Plan 1”, execution 11 (started 2026-11-19 "
        "02:00 UTC), 92 % failed with “UnreachableBrowser: grid down”." in unescaped(body)
    )


def test_an_outage_before_the_execution_before_the_change_is_not_named() -> None:
    scenarios = {**GREEN_WORLD, 1: {"chrome": "P" * 9 + "F", "safari": "P" * 10}}
    results, executions = world_of(scenarios, world.OUTAGE_START)  # 15 Nov, before execution 9

    (red,) = alert_rules.plan_changes(
        executions, world.NOW, horizon=TWO_DAYS, results=results, marks=world.NO_MARKS
    )

    assert red.left_out == ()
    assert "Left out" not in alerts.alert_body(red, None)


def test_an_outage_is_named_without_a_message_when_its_results_were_not_read() -> None:
    scenarios = {**GREEN_WORLD, 1: {"chrome": "P" * 9 + "F", "safari": "P" * 10}}
    _, executions = world_of(scenarios, "2026-11-19 02:00")

    (red,) = alert_rules.plan_changes(executions, world.NOW, horizon=TWO_DAYS)

    body = unescaped(alerts.alert_body(red, None))
    assert "Left out: a likely outage of plan 1 “Plan 1”, execution 11" in body
    assert body.rstrip().endswith("92 % failed.")
