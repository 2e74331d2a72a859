"""A mark's ticket is a web link and nothing else: an absolute http(s) URL with a host, no
spaces, no markup a chat or Markdown reads (`<>|[](){}` and the like), no control, bidi or
zero-width character, no user name before the host, of bounded length. Whatever else is typed
is refused in a sentence that names the problem and never carries the value's markup or
invisible characters."""

from __future__ import annotations

import pytest

from dashboard.data.store.marks import MAX_TICKET, ticket_problem

GOOD = [
    "https://jira.example.com/browse/QA-123",
    "http://tracker.example:8080/issues/7?tab=history#comment-3",
    "https://github.com/acme/shop/issues/35",
    "https://tracker.example/a_b~c/%7Cpiped%20space",
]


@pytest.mark.parametrize("ticket", [*GOOD, None])
def test_a_web_link_is_a_ticket(ticket: str | None) -> None:
    assert ticket_problem(ticket) is None


@pytest.mark.parametrize(
    ("ticket", "says"),
    [
        ("QA-123", "must be a web link"),
        ("javascript:alert(1)", "must be a web link"),
        ("JavaScript://evil.example/%0aalert(1)", "must be a web link"),
        ("data:text/html,<b>x</b>", "must be a web link"),
        ("https://", "must be a web link"),
        ("https://tracker.example/x y", "a space"),
        ("https://tracker.example/x\u00a0y", "a space"),
        ("https://tracker.example/x\ty", "control"),
        ("https://tracker.example/QA-1\u202egpj.exe", "invisible or control"),
        ("https://tracker.example/QA\u200b-1", "invisible or control"),
        ("https://tracker.example/\x9b31m", "invisible or control"),
        ("<https://evil.example|https://tracker.example/QA-1>", "must be a web link"),
        ("https://evil.example|https://tracker.example/QA-1", "markup"),
        ("https://tracker.example/QA-1|click here", "a space"),
        ("https://tracker.example/QA-1|click", "markup"),
        ("[QA-1](https://evil.example)", "must be a web link"),
        ("https://tracker.example/<!channel>", "markup"),
        ("https://tracker.example/`x`", "markup"),
        ("https://[::1]/QA-1", "markup"),
        ("https://tracker.example@evil.example/QA-1", "user name"),
        ("https://ann:secret@tracker.example/QA-1", "user name"),
        ("https://tr\u0430cker.example/QA-1", "host"),
        ("http://[evil", "markup"),
        ("https://tracker.example:port/QA-1", "must be a web link"),
        ("https://tracker.example/" + "a" * MAX_TICKET, "characters; a link holds at most"),
    ],
)
def test_anything_else_is_refused_in_a_sentence_naming_the_problem(ticket: str, says: str) -> None:
    problem = ticket_problem(ticket)

    assert problem is not None
    assert says in problem, problem
    for raw in ("<", ">", "|", "[", "]", "`", "\u202e", "\u200b", "\x9b", "\t", "\u00a0", "@"):
        if raw in ticket:
            assert raw not in problem, problem
