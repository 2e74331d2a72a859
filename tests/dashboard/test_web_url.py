"""`frames.is_web_url` refuses any URL holding a space or a control character, as the rule
"no `str.isspace` character, nothing below 32" says, for every code point."""

from __future__ import annotations

import sys

from dashboard.data.frames import is_web_url


def test_every_space_and_control_character_makes_a_url_inert() -> None:
    base = "https://logs.example.test/run/1"
    refused = {code for code in range(sys.maxunicode + 1) if not is_web_url(base + chr(code))}
    rule = {code for code in range(sys.maxunicode + 1) if chr(code).isspace() or code < 32}

    assert refused == rule
    assert is_web_url(base)
    assert not is_web_url(" " + base)
    assert not is_web_url(base + "\u2028")
    assert not is_web_url("javascript:alert(1)")
