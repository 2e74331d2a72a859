"""Keeping credentials out of text from outside: the one masking function.

Wherever words a service or a token endpoint wrote are repeated (an error message, a log line),
`redact` masks the secrets we know (a token, a client secret, a password, an `id:secret` pair)
in every form a careless server may repeat them: as they are, percent-encoded as a form sends
them, and in base64, standard or URL-safe, padded or not, alone or inside a longer encoded text
(`Basic base64(id:secret)` holds the secret at some offset). It also masks any credential shaped
as an `Authorization` header value (`Bearer ...`, `Basic ...`), known to us or not. The log
filter (`api_client.auth.RedactBearerFilter`) and the error messages both use it.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import quote, quote_plus

REDACTED = "<redacted>"

# The characters of base64 in both alphabets (standard "+/", URL-safe "-_"); "=" pads the end.
_BASE64_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")
_TO_URLSAFE = str.maketrans("+/", "-_")

# A bearer credential: whatever follows the scheme up to a blank or a quote.
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s'\",]+")
# A basic credential is a token68 (RFC 7235), never followed by "=" and a value or a quote, as an
# auth-param (`Basic realm="x"`) is.
_BASIC = re.compile(r"(?i)\b(basic\s+)([A-Za-z0-9+/_-]+=*)(?![A-Za-z0-9+/_=\"-])")


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` with each of `secrets`, in every form above, and every credential shaped as an
    `Authorization` header value replaced by a marker.

    Linear in the length of `text` (it may be a hostile 64 KiB body): plain searches, no pattern
    that backtracks over a long base64 run.
    """
    for secret in secrets:
        if not secret:
            continue
        for form in _plain_forms(secret):
            text = text.replace(form, REDACTED)
        for core in _base64_cores(secret):
            text = _mask_encoded_runs(text, core)
    text = _BEARER.sub(rf"\1{REDACTED}", text)
    return _BASIC.sub(_masked_basic, text)


def _plain_forms(secret: str) -> list[str]:
    """The secret as it is and as a form or a URL carries it (`a b&c` as `a+b%26c`)."""
    forms = {secret, quote(secret, safe=""), quote_plus(secret, safe="")}
    return sorted(forms, key=len, reverse=True)


def _base64_cores(secret: str) -> set[str]:
    """What any base64 text holding `secret` is sure to contain, in both alphabets.

    Base64 encodes three bytes as four characters, so the secret's encoding depends on where it
    starts in the encoded bytes (its offset modulo 3). For each of the three offsets, the whole
    three-byte groups that lie inside the secret encode the same way wherever the secret sits;
    their encoding is the core to look for (the run of base64 around it is masked whole).
    """
    raw = secret.encode()
    cores: set[str] = set()
    for shift in range(3):
        inside = raw[shift:]
        groups = inside[: len(inside) // 3 * 3]
        if not groups:
            continue
        core = base64.b64encode(groups).decode("ascii")
        cores.update((core, core.translate(_TO_URLSAFE)))
    return cores


def _mask_encoded_runs(text: str, core: str) -> str:
    """`text` with every base64 run (and its padding) that contains `core` replaced."""
    pieces: list[str] = []
    start = 0
    while (found := text.find(core, start)) != -1:
        left, right = found, found + len(core)
        while left > start and text[left - 1] in _BASE64_CHARACTERS:
            left -= 1
        while right < len(text) and text[right] in _BASE64_CHARACTERS:
            right += 1
        while right < len(text) and text[right] == "=":
            right += 1
        pieces += [text[start:left], REDACTED]
        start = right
    pieces.append(text[start:])
    return "".join(pieces)


def _masked_basic(match: re.Match[str]) -> str:
    """A `Basic <value>` with its value masked, unless the value is a plain word ("Basic
    authentication is required"): a credential has a character other than a letter, or
    decodes to a `user:password` pair."""
    scheme, value = match.group(1), match.group(2)
    if value.isalpha() and b":" not in _decoded(value):
        return match.group(0)
    return f"{scheme}{REDACTED}"


def _decoded(value: str) -> bytes:
    padded = value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4)
    try:
        return base64.b64decode(padded.translate(str.maketrans("-_", "+/")), validate=True)
    except ValueError:  # binascii.Error: not base64 at all
        return b""
