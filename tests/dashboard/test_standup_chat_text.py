"""The standup's "Copy for chat" text is made once per shared view and page address (#39): the
view is one object for all its viewers (`ui.shared_views.standup`), so its Markdown is too."""

from __future__ import annotations

from typing import Any, cast

from dashboard.present.standup_view import StandupView
from dashboard.ui import standup_layout


class CountedView:
    """A view whose chat text names the links it was given, counting how often it is made."""

    def __init__(self) -> None:
        self.made = 0

    def chat(self, link_for: Any, *, limit: int | None = None) -> str:
        self.made += 1
        return f"see {link_for('plan', 3)}"


def test_the_chat_text_is_made_once_per_view_and_address_and_never_crosses_views() -> None:
    view, other = CountedView(), CountedView()
    shared = cast(StandupView, view)
    at = "http://dash.example.test/standup?tz=UTC"

    first = standup_layout.chat_text(shared, at)
    again = standup_layout.chat_text(shared, at)
    elsewhere = standup_layout.chat_text(shared, "https://qa.example.test/standup")
    theirs = standup_layout.chat_text(cast(StandupView, other), at)

    assert first == again == "see http://dash.example.test/executions?plan=3&range=30d"
    assert elsewhere == "see https://qa.example.test/executions?plan=3&range=30d"
    assert view.made == 2  # once for each address
    assert theirs == first
    assert other.made == 1  # another view's text is its own making, not the first one's
