"""Who has proved they may read stored results, kept so that reading the store does not let
anyone check a guessed token cheaply.

A store is per service and company, not per token, and a token of that company may lack the
authority to read results. So a reader (a connection's fingerprint: a SHA-256 of the service's
address, the company and a SHA-256 of the token) is given stored results only once the service
has answered it one results request (`results_fanout`), and the store remembers it.

What is remembered is not the fingerprint, nor an HMAC of it under a key kept in the same table
(anyone who could read the store could then test a guessed token offline at the speed of
SHA-256): it is scrypt (RFC 7914, OpenSSL's, through `hashlib`) of the fingerprint under a
random salt of the store, with OWASP's parameters for scrypt (N=2**14, r=8, p=5: 16 MiB and
about a tenth of a second of a core per guess, over a hundred thousand times an HMAC's). This
process keeps each derived entry in memory (`entry` is cached): a viewer costs one derivation
per process.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from secrets import token_hex

SALT = "reader_scrypt_salt"
"""The `store_meta` key of the store's random salt (hex)."""
ENTRY_PREFIX = "reader_scrypt:"
"""The `store_meta` keys of remembered readers: this, then the derived key (hex)."""
HIDDEN_PREFIX = "reader"
"""`store_meta` keys that are the store's own business (readers, their salt), never shown."""

N, R, P = 2**14, 8, 5
"""scrypt's cost (OWASP's password storage cheat sheet lists N=2**14, r=8, p=5)."""
_MAXMEM = 64 * 1024 * 1024  # above scrypt's 128 * r * N bytes, which OpenSSL checks against
_LENGTH = 32


def new_salt() -> str:
    return token_hex(32)


@lru_cache(maxsize=256)
def entry(salt: str, reader: str) -> str:
    """The `store_meta` key that remembers `reader` in a store whose salt is `salt`."""
    derived = hashlib.scrypt(
        reader.encode(), salt=bytes.fromhex(salt), n=N, r=R, p=P, maxmem=_MAXMEM, dklen=_LENGTH
    )
    return ENTRY_PREFIX + derived.hex()
