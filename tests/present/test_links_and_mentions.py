"""Names and messages stay text wherever they are shown: in Streamlit's Markdown (an expander's
title) no bare URL or address becomes a link, and in the chat digest no name mentions a channel,
links anywhere, or reorders the line. Each reads as it was written."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from dashboard.analytics.standup import standup_digest
from dashboard.analytics.windows import standup_window
from dashboard.present.digest import chat_text, digest_markdown
from dashboard.present.formatting import (
    INVISIBLE_MARKER,
    WORD_JOINER,
    escape_markdown,
    visible_text,
)
from tests.analytics.frames import execution, executions, ts

# The bare links GitHub-flavoured Markdown makes after escapes are read (the expressions of
# mdast-util-gfm-autolink-literal, which Streamlit's renderer uses; JavaScript's \w is ASCII).
GFM_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.IGNORECASE | re.ASCII)
GFM_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII)
# What chats turn into a link or a notification: a URL, a bare domain, an address, a mention.
CHAT_LINK = re.compile(r"://|\w\.\w|@\w|<[!@#]", re.ASCII)
MENTIONS = ("@channel", "@here", "@all", "@everyone", "<!channel>", "<!here>", "<@U0123>")
BIDI = "\u202e\u202d\u2066\u2067\u2068\u2069\u200f\u200e"
HOSTILE = [
    "https://evil.example/login",
    "HTTP://EVIL.EXAMPLE",
    "www.evil-shop.example",
    "phish@evil.example",
    "mailto:phish@evil.example",
    "Reset at https://evil.example/reset, www.evil.example or mailto:phish@evil.example",
    "@channel the build is down",
    "ping <!here> and <@U0123>",
    "evil.example/reset @all @everyone",
    "evil\u202eexe.txt",
]

link_shaped = st.lists(
    st.one_of(
        st.sampled_from(
            ["http://", "https://", "www.", "WWW.", "@", ".", "mailto:", ":", "/", "<!", " "]
        ),
        st.sampled_from(["evil", "example", "a", "1", "-", "_", "+", "channel", "here", "é"]),
        st.text(max_size=3),
    ),
    max_size=12,
).map("".join)


def unescaped(markdown: str) -> str:
    """The text Markdown reads out of `markdown` (backslash escapes resolved)."""
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.mark.parametrize("text", HOSTILE)
def test_an_escaped_name_has_no_bare_link_and_reads_as_written(text: str) -> None:
    read = unescaped(escape_markdown(text))

    assert not GFM_URL.search(read), read
    assert not GFM_EMAIL.search(read), read
    assert read.replace(WORD_JOINER, "") == " ".join(text.split())


@given(link_shaped)
def test_no_text_escaped_for_markdown_makes_a_bare_link(text: str) -> None:
    read = unescaped(escape_markdown(text))

    assert not GFM_URL.search(read), read
    assert not GFM_EMAIL.search(read), read
    assert read.replace(WORD_JOINER, "") == " ".join(text.split())


@pytest.mark.parametrize("text", [*HOSTILE, *MENTIONS])
def test_a_name_in_chat_mentions_and_links_nobody_and_reads_as_the_pages_show_it(
    text: str,
) -> None:
    chat = chat_text(text)

    assert not CHAT_LINK.search(chat), chat
    assert not any(mention in chat for mention in MENTIONS), chat
    assert not any(mark in chat for mark in BIDI), chat
    shown = visible_text(text, one_line=True)
    assert unescaped(chat).replace(WORD_JOINER, "") == shown


@given(link_shaped)
@example("www.\\http://")  # a backslash between the dot and the word: a chat drops it
@example("a\\.b @\\here <\\!channel> http:\\/\\/x")
def test_no_name_in_chat_makes_a_link_or_a_mention(text: str) -> None:
    chat = chat_text(text)

    assert not CHAT_LINK.search(chat.replace("\\", "")), chat
    assert unescaped(chat).replace(WORD_JOINER, "") == visible_text(text, one_line=True)


def test_the_digest_carries_hostile_plan_names_as_text() -> None:
    names = {1: "@channel https://evil.example/login", 2: "www.evil.example \u202eexe.txt"}
    rows = [
        execution(1, 1, "2025-04-03 10:00", plan=names[1]),
        execution(2, 1, "2025-04-05 10:00", "fail", plan=names[1]),
        execution(3, 2, "2025-04-03 10:00", "fail", plan=names[2]),
        execution(4, 2, "2025-04-05 10:00", plan=names[2]),
    ]
    digest = standup_digest(executions(rows), standup_window(ts("2025-04-07 10:00")))

    text = digest_markdown(digest)

    assert "**Turned red**\n- @\u2060channel https:\u2060//evil\u2060.example/login: failed" in text
    assert f"**Fixed**\n- www\u2060.evil\u2060.example {INVISIBLE_MARKER}exe\u2060.txt" in text
    for unbroken in ("@channel", "://", "www.", "evil.example", "\u202e"):
        assert unbroken not in text
