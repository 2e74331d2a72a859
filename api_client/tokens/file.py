"""`TokenFile`: a token kept in a file that something else renews (a secrets manager, a sidecar).

The file holds the token alone (surrounding blank space and a final line break are ignored). It
is read again whenever it changes (its size, modification time or inode), and after the service
refused the token it held. A missing, empty or half-written file is one sentence naming the
path; while the file is unusable the last token read from it is kept, until the service refuses
it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from pydantic import SecretStr

from api_client.errors import TokenError
from api_client.tokens.source import Clock, Issued, RenewingSource, token_problem

# A token is a few kilobytes at most; a larger file is not a token file.
MAX_TOKEN_FILE_BYTES = 64 * 1024

_Signature = tuple[int, int, int, int]  # (device, inode, size, modification time in ns)


class TokenFile(RenewingSource):
    """The token in the file at `path`, read again when the file changes."""

    def __init__(self, path: str | os.PathLike[str], *, clock: Clock = time.monotonic) -> None:
        # Reading a file is cheap: a failed read is tried again on the next request.
        super().__init__(retry_after=0.0, clock=clock)
        self._path = Path(path)
        self._read_signature: _Signature | None = None

    @property
    def path(self) -> Path:
        return self._path

    def _stale(self, current: Issued, now: float) -> bool:
        return _signature(self._path) != self._read_signature

    def _get(self, current: Issued | None) -> Issued:
        where = f"The token file {self._path}"
        try:
            before = _signature_or_raise(self._path)
            with self._path.open("rb") as file:
                data = file.read(MAX_TOKEN_FILE_BYTES + 1)
            after = _signature_or_raise(self._path)
        except FileNotFoundError:
            raise TokenError(f"{where} does not exist.") from None
        except IsADirectoryError:
            raise TokenError(f"{where} is a directory, not a file.") from None
        except OSError as error:
            raise TokenError(f"{where} cannot be read ({error.strerror}).") from None
        if before != after:
            raise TokenError(f"{where} changed while it was read (it is being written).")
        if len(data) > MAX_TOKEN_FILE_BYTES:
            raise TokenError(f"{where} is larger than a token ({MAX_TOKEN_FILE_BYTES:,} bytes).")
        try:
            text = data.decode("ascii").strip()
        except UnicodeDecodeError:
            raise TokenError(f"{where} holds a non-ASCII character, so not a token.") from None
        if not text:
            raise TokenError(f"{where} is empty.")
        problem = token_problem(text)
        if problem:
            raise TokenError(
                f"{where} does not hold one token ({problem.split('; ')[-1]}); is it half-written?"
            )
        self._read_signature = after
        return Issued(value=SecretStr(text))

    def __repr__(self) -> str:
        return f"TokenFile({str(self._path)!r})"


def _signature_or_raise(path: Path) -> _Signature:
    stat = path.stat()
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _signature(path: Path) -> _Signature | None:
    try:
        return _signature_or_raise(path)
    except OSError:
        return None
