"""An alert's words carry names, messages and tickets as text, through the very function the
chat digest uses (`formatting.chat_text`): no name mentions a channel, makes a link (bare, in
Slack's `<url|text>` or Markdown's `[text](url)`), or reorders the line; each reads as the pages
show it. A ticket is a link only when it is a web link, and its words are escaped too."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from dashboard.analytics.alerts import BROKEN, EXPIRING, FLAKY, GREEN, LOOKS_FIXED, RED, Change
from dashboard.present import alerts, digest, formatting
from dashboard.present.formatting import WORD_JOINER, visible_text

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
