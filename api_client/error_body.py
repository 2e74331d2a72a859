"""Finding the service's error code and message in an error body of any shape.

The error body is not documented: the platform's one sample is `{"error": "<CODE>",
"message": "..."}`, an authentication failure may come as a framework's own 401 body
(`{"error": "invalid_token", "error_description": "..."}`), and a gateway answers with an HTML
page or plain text. `ErrorBodyReader` looks in all of those places; which class a code maps to
is `api_client.errors`' business, so the reader is given the codes it should recognise.
"""

from __future__ import annotations

import re
from typing import Any

import pydantic_core

# Where a code may sit in a JSON error body. Spring's own 401 body uses `error` with a lower-case
# value such as "invalid_token"; the platform's sample uses {"error": "<CODE>", "message": "..."}.
CODE_FIELDS = ("error", "code", "errorCode", "error_code", "message_code", "messageCode", "status")
MESSAGE_FIELDS = ("message", "error_description", "detail", "errorMessage", "description")
MAX_MESSAGE_CHARS = 300
# An error body is read for its code and message only; markup beyond this is not looked at.
MAX_ERROR_TEXT_CHARS = 64 * 1024


class ErrorBodyReader:
    """Reads (code, message) out of error bodies, knowing which codes are the service's own.

    A known code anywhere in a JSON body wins over any other code-like string; in a text or HTML
    body only a known code, as a whole word, counts.
    """

    def __init__(self, known_codes: frozenset[str]) -> None:
        self._known = known_codes
        # Whole words only, longest first: "TEST_EXECUTION_NOT_FOUND" must not read as the
        # "EXECUTION_NOT_FOUND" it contains.
        self._in_text = re.compile(
            r"(?<![A-Z0-9_])("
            + "|".join(sorted(map(re.escape, known_codes), key=len, reverse=True))
            + r")(?![A-Z0-9_])"
        )

    def code_and_message(self, content: bytes, charset: str) -> tuple[str | None, str | None]:
        """The service's error code and message in a body of any shape, or None for each.

        The message is on one line but not yet cut short (`short`): the caller masks secrets in
        it first, as a secret cut in half would not be found."""
        try:
            # pydantic-core's parser refuses deep nesting with a ValueError, where `json` would
            # overflow the stack with a RecursionError.
            body: Any = pydantic_core.from_json(content) if content else None
        except ValueError:
            body = None
        if isinstance(body, dict):
            return self._code_from_json(body), self._message_from_json(body)
        text = _text(content, charset).strip()[:MAX_ERROR_TEXT_CHARS]
        match = self._in_text.search(text)
        code = match.group(1) if match else None
        return code, one_line(strip_markup(text)) if text else None

    def _code_from_json(self, body: dict[str, Any]) -> str | None:
        candidates = [body.get(field) for field in CODE_FIELDS]
        nested = body.get("error")
        if isinstance(nested, dict):
            candidates = [nested.get(field) for field in CODE_FIELDS] + candidates
        strings = [c for c in candidates if isinstance(c, str) and c.strip()]
        # A known code anywhere wins; otherwise the first code-like string ("invalid_token").
        for value in strings:
            if value.strip() in self._known:
                return value.strip()
        for value in body.values():
            if isinstance(value, str) and value.strip() in self._known:
                return value.strip()
        for value in strings:
            if looks_like_code(value):
                return value.strip()
        return None

    def _message_from_json(self, body: dict[str, Any]) -> str | None:
        for source in (body, body.get("error")):
            if not isinstance(source, dict):
                continue
            for field in MESSAGE_FIELDS:
                value = source.get(field)
                if isinstance(value, str) and value.strip() and value.strip() not in self._known:
                    return one_line(value[:MAX_ERROR_TEXT_CHARS])
        return None


def _text(content: bytes, charset: str) -> str:
    try:
        return content.decode(charset, errors="replace")
    except LookupError:  # a charset Python does not know
        return content.decode("utf-8", errors="replace")


def looks_like_code(value: str) -> bool:
    """Whether `value` reads as an error code ("invalid_token"), not as a sentence."""
    value = value.strip()
    return 0 < len(value) <= 64 and all(ch.isalnum() or ch in "_-." for ch in value)


def strip_markup(text: str) -> str:
    """Reduce an HTML error page to its words, so a gateway's page reads as a sentence."""
    if "<" not in text:
        return text
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
            out.append(" ")
        elif not depth:
            out.append(ch)
    return " ".join("".join(out).split())


def one_line(text: str) -> str:
    """`text` on one line, its blank space runs made single spaces."""
    return " ".join(text.split())


def short(text: str) -> str:
    """`text` on one line, cut to `MAX_MESSAGE_CHARS`."""
    text = one_line(text)
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1] + "…"
