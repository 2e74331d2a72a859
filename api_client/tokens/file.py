"""`TokenFile`: a token kept in a file that something else renews (a secrets manager, a sidecar).

The file holds the token alone (surrounding blank space and a final line break are ignored). It
is read again whenever it changes (its size, modification time or inode), and after the service
refused the token it held. A missing, empty or half-written file is one sentence naming the
path; while the file is unusable the last token read from it is kept, until the service refuses
it.

Only a regular file is read: a named pipe (which would hold the read until something writes to
it) or a device (`/dev/zero`, endless) is refused, without waiting, and at most `max_bytes` are
read of any file.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from pydantic import SecretStr

from api_client.errors import TokenError
from api_client.tokens.source import Clock, Issued, RenewingSource, byte_size, token_problem

# A token is a few kilobytes at most (a JWT with many claims); a larger file is not a token
# file, and is not read into memory whole.
MAX_TOKEN_FILE_BYTES = 64 * 1024

# What a file that is not a regular one is, in the sentence that refuses it.
_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)

_Signature = tuple[int, int, int, int]  # (device, inode, size, modification time in ns)


class TokenFile(RenewingSource):
    """The token in the file at `path`, read again when the file changes."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_bytes: int = MAX_TOKEN_FILE_BYTES,
        clock: Clock = time.monotonic,
    ) -> None:
        # Reading a file is cheap: a failed read is tried again on the next request.
        super().__init__(retry_after=0.0, clock=clock)
        self._path = Path(path)
        self._max_bytes = max_bytes
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
            data = _read_regular_file(self._path, self._max_bytes + 1)
            after = _signature_or_raise(self._path)
        except FileNotFoundError:
            raise TokenError(f"{where} does not exist.") from None
        except IsADirectoryError:
            raise TokenError(f"{where} is a directory, not a file.") from None
        except _NotRegular as not_regular:
            raise TokenError(f"{where} is not a regular file (it is {not_regular.kind}).") from None
        except OSError as error:
            raise TokenError(f"{where} cannot be read ({error.strerror}).") from None
        if before != after:
            raise TokenError(f"{where} changed while it was read (it is being written).")
        if len(data) > self._max_bytes:
            raise TokenError(f"{where} holds more than {byte_size(self._max_bytes)}, so no token.")
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


class _NotRegular(Exception):
    """The path names something other than a regular file: `kind` says what."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def _read_regular_file(path: Path, limit: int) -> bytes:
    """At most `limit` bytes of the regular file at `path`; `_NotRegular` for anything else.

    Checked before opening (opening a named pipe waits for a writer; opening a device may do
    something), and again on what was opened, without waiting (O_NONBLOCK), in case the path
    was replaced in between.
    """
    _check_regular(path.stat().st_mode)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        _check_regular(os.fstat(descriptor).st_mode)
        chunks: list[bytes] = []
        size = 0
        while size < limit and (chunk := os.read(descriptor, limit - size)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _check_regular(mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise IsADirectoryError
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "another kind of file")
        raise _NotRegular(kind)


def _signature_or_raise(path: Path) -> _Signature:
    stat = path.stat()
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _signature(path: Path) -> _Signature | None:
    try:
        return _signature_or_raise(path)
    except OSError:
        return None
