"""`TokenCommand`: a program that prints a token, like AWS's `credential_process` or a git
credential helper.

The program prints either the token alone, or a JSON object as an OAuth2 token endpoint answers
(`{"access_token": "...", "expires_in": 3600}`), which tells when to run it again. It is run when
the client first needs a token, shortly before a token it said would expire does, and after the
service refused one. It runs without a shell, with no input, in its own process group, and is
killed with everything it started when it takes longer than `timeout` seconds, or prints more
than `max_output_bytes` (what it printed is read as it comes, never more than that into memory).
Its error output is not repeated anywhere (it may name a secret); a failure says which program,
and how it failed.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import PurePath

from pydantic import SecretStr

from api_client.errors import RequestValidationError, TokenError
from api_client.tokens.source import (
    Clock,
    Issued,
    RenewingSource,
    byte_size,
    lifetime,
    seconds,
    token_problem,
)

# A token, or a token endpoint's JSON answer, is a few kilobytes at most; a command printing
# more is not printing a token, and what it prints is not kept in memory beyond this.
MAX_OUTPUT_BYTES = 64 * 1024
# The timeout when none is configured: a credential helper that asks an identity provider
# answers in seconds; a page waits on it, so it must not wait much longer.
DEFAULT_COMMAND_TIMEOUT = 30.0
# How much of the command's output is read at a time.
_READ_BYTES = 16 * 1024


class TokenCommand(RenewingSource):
    """The token printed by `command` (a list of arguments, or one string split as a shell
    would, without running one)."""

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = DEFAULT_COMMAND_TIMEOUT,
        max_output_bytes: int = MAX_OUTPUT_BYTES,
        renew_before: float = 60.0,
        retry_after: float = 5.0,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(retry_after=retry_after, clock=clock)
        self._argv = command_arguments(command)
        self._timeout = timeout
        self._max_output_bytes = max_output_bytes
        self._renew_before = renew_before
        self._name = PurePath(self._argv[0]).name

    def _get(self, current: Issued | None) -> Issued:
        where = f"The token command ({self._name})"
        started = self._clock()
        try:
            process = subprocess.Popen(  # noqa: S603 - the operator's own configured command
                self._argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except FileNotFoundError:
            raise TokenError(f"{where} was not found.") from None
        except OSError as error:
            raise TokenError(f"{where} could not be started ({error.strerror}).") from None
        try:
            output = self._output(process, started=time.monotonic())
        except subprocess.TimeoutExpired:
            _kill_group(process)  # with whatever it started, which may hold its output open
            raise TokenError(
                f"{where} did not finish within {self._timeout:g} s and was stopped."
            ) from None
        except _TooMuch:
            _kill_group(process)
            raise TokenError(
                f"{where} printed more than {byte_size(self._max_output_bytes)}, so no token; "
                "it was stopped."
            ) from None
        except BaseException:
            _kill_group(process)  # never left running, whatever went wrong here
            raise
        if process.returncode != 0:
            how = (
                f"was killed by signal {-process.returncode}"
                if process.returncode < 0
                else f"failed with exit status {process.returncode}"
            )
            raise TokenError(f"{where} {how}.")
        token, expires_in = _parse(output, where)
        renew_at, expires_at = lifetime(started, expires_in, self._renew_before)
        return Issued(value=token, renew_at=renew_at, expires_at=expires_at)

    def _output(self, process: subprocess.Popen[bytes], *, started: float) -> bytes:
        """What the command printed, read as it comes until its output closes and it exits,
        within the timeout (`subprocess.TimeoutExpired`) and the size cap (`_TooMuch`)."""
        until = started + self._timeout
        assert process.stdout is not None
        chunks: list[bytes] = []
        size = 0
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while True:
                left = until - time.monotonic()
                if left <= 0:
                    raise subprocess.TimeoutExpired(process.args, self._timeout)
                if not selector.select(left):
                    continue  # the time is checked again above
                chunk = os.read(process.stdout.fileno(), _READ_BYTES)
                if not chunk:
                    break  # the output is closed: by the command and all it started
                size += len(chunk)
                if size > self._max_output_bytes:
                    raise _TooMuch
                chunks.append(chunk)
        process.stdout.close()
        process.wait(timeout=max(until - time.monotonic(), 0.0))
        return b"".join(chunks)

    def __repr__(self) -> str:
        return f"TokenCommand({self._name!r}, timeout={self._timeout:g})"


class _TooMuch(Exception):
    """The command printed more than its cap."""


def command_arguments(command: object) -> list[str]:
    """The arguments of a command given as a list, or as one string split as a shell would
    (no shell runs it); `RequestValidationError` naming `token_command` when it is neither."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError:
            raise RequestValidationError(
                "token_command could not be split into arguments (an unclosed quote?)",
                argument="token_command",
            ) from None
    elif isinstance(command, list | tuple) and all(isinstance(part, str) for part in command):
        argv = list(command)
    else:
        raise RequestValidationError(
            "token_command must be a string or a list of strings", argument="token_command"
        )
    if not argv or not argv[0].strip():
        raise RequestValidationError("token_command must name a program", argument="token_command")
    return argv


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the command's process group (it leads its own session) and reap the command; what
    is left of its output is not read."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone already
        os.killpg(process.pid, signal.SIGKILL)
    if process.stdout is not None:
        process.stdout.close()
    with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be ignored
        process.wait(timeout=5)


def _parse(output: bytes, where: str) -> tuple[SecretStr, float | None]:
    """The token and its lifetime in seconds (None: not said) from what the command printed."""
    try:
        text = output.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise TokenError(f"{where} printed something that is not text.") from None
    if not text:
        raise TokenError(f"{where} printed nothing.")
    expires_in: float | None = None
    if text.startswith("{"):
        try:
            answer = json.loads(text)
        except ValueError:
            raise TokenError(f"{where} printed something that is not a JSON object.") from None
        token = answer.get("access_token") if isinstance(answer, dict) else None
        if not isinstance(token, str):
            raise TokenError(f"{where} printed a JSON object without an access_token.")
        expires_in = seconds(answer.get("expires_in"))
        text = token.strip()
    problem = token_problem(text)
    if problem:
        raise TokenError(f"{where} printed something that is not one token ({problem}).")
    return SecretStr(text), expires_in
