"""Deadlines and size caps for everything outside that a token comes from.

A token endpoint that drips one byte at a time (a per-read timeout never fires), a token file
that is a named pipe (opening it waits for a writer), a token command that prints without end:
each would hold token renewal, and every page waiting on it, for as long as it likes. Each is
given a short deadline here and must end in its own sentence. Nothing here sleeps; the limits
are what the sources were given, and times are only checked against a wide margin.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from api_client import TokenError
from api_client.tokens import TokenCommand, TokenFile
from tests.client.test_token_file_and_command import assert_ended, python
from tests.client.test_tokens import Service, client_of, password_source
from tests.client.token_endpoint import token_endpoint
from tests.service_tokens import Clock

# -- the token endpoint --------------------------------------------------------------------------


@pytest.mark.parametrize("behaviour", ["drip", "drip-headers"], ids=["body", "headers"])
def test_an_endpoint_that_drips_its_answer_is_given_up_at_the_deadline(behaviour: str) -> None:
    with token_endpoint() as stub:
        stub.drip_every = 0.3  # well inside the per-read timeout: only a deadline stops it
        source = password_source(stub.url(behaviour), Clock(), timeout=1.0)
        began = time.monotonic()

        with pytest.raises(TokenError) as caught:
            client_of(source, Service()).plans()

    assert time.monotonic() - began < 30
    host = stub.base_url.removeprefix("http://")
    assert caught.value.message == (
        f"The token endpoint at {host} did not answer within 1 s while asked for the password "
        "grant."
    )


@pytest.mark.parametrize("behaviour", ["huge", "huge-declared"], ids=["streamed", "declared"])
def test_an_endpoint_answer_larger_than_a_token_answer_is_refused(behaviour: str) -> None:
    with token_endpoint() as stub:
        source = password_source(stub.url(behaviour), Clock(), max_answer_bytes=16 * 1024)

        with pytest.raises(TokenError) as caught:
            client_of(source, Service()).plans()

    host = stub.base_url.removeprefix("http://")
    assert caught.value.message == (
        f"The token endpoint at {host} answered the password grant with more than 16 KiB, "
        "which is no token answer."
    )


# -- a token file --------------------------------------------------------------------------------


def test_a_token_file_that_is_a_named_pipe_is_refused_without_waiting_for_a_writer(
    tmp_path: Path,
) -> None:
    path = tmp_path / "token"
    os.mkfifo(path)

    with pytest.raises(TokenError) as caught:
        client_of(TokenFile(path), Service()).plans()

    assert caught.value.message == (
        f"The token file {path} is not a regular file (it is a named pipe)."
    )


def test_a_token_file_that_is_a_device_is_refused() -> None:
    with pytest.raises(TokenError) as caught:
        TokenFile("/dev/zero").token()

    assert caught.value.message == (
        "The token file /dev/zero is not a regular file (it is a device)."
    )


def test_a_token_file_larger_than_the_cap_is_refused_without_reading_it_whole(
    tmp_path: Path,
) -> None:
    path = tmp_path / "token"
    with path.open("wb") as file:
        file.truncate(300 * 1024 * 1024)  # sparse: 300 MB on paper, nothing on disk

    with pytest.raises(TokenError) as caught:
        TokenFile(path, max_bytes=4096).token()

    assert caught.value.message == f"The token file {path} holds more than 4 KiB, so no token."


# -- a token command -----------------------------------------------------------------------------


def test_a_command_that_prints_more_than_the_cap_is_stopped_at_once(tmp_path: Path) -> None:
    """It prints a megabyte and would then wait an hour with its output open: the cap stops
    it, not the (longer) timeout, and with it what it started."""
    started = tmp_path / "child.pid"
    code = (
        "import subprocess, sys, pathlib\n"
        "child = subprocess.Popen(['sleep', '3600'])\n"
        f"pathlib.Path({str(started)!r}).write_text(str(child.pid))\n"
        "sys.stdout.buffer.write(b'a' * 1024 * 1024)\n"
        "sys.stdout.flush()\n"
        "child.wait()\n"
    )
    source = TokenCommand(python(code), timeout=300.0, max_output_bytes=64 * 1024)
    began = time.monotonic()

    with pytest.raises(TokenError) as caught:
        source.token()

    assert time.monotonic() - began < 120  # not the 300 s timeout (a wide, load-proof margin)
    name = Path(sys.executable).name
    assert caught.value.message == (
        f"The token command ({name}) printed more than 64 KiB, so no token; it was stopped."
    )
    assert_ended(int(started.read_text()))


def test_a_command_that_drips_its_output_is_stopped_at_its_timeout() -> None:
    code = (
        "import sys, time\n"
        "while True:\n"
        "    sys.stdout.write('a'); sys.stdout.flush(); time.sleep(0.3)\n"
    )
    source = TokenCommand(python(code), timeout=1.0)

    with pytest.raises(TokenError) as caught:
        source.token()

    name = Path(sys.executable).name
    assert caught.value.message == (
        f"The token command ({name}) did not finish within 1 s and was stopped."
    )
