"""A token kept in a file that something else renews, and a token printed by a command.

Real files in a temporary folder and real child processes; the service is a MockTransport that
accepts the tokens a test says, and expiry is a clock the test moves.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path

import pytest

from api_client import AuthenticationError, TokenError
from api_client.tokens import TokenCommand, TokenFile
from tests.client.test_tokens import Service, client_of
from tests.service_tokens import Clock
from tests.waiting import wait_until

FULL = "sbx-oa-4f1e9c2b7d"  # what a sidecar means to write
SECRET_ON_STDERR = "stderr-SECRET-31d7"


def write(path: Path, text: str) -> None:
    """Replace the file's content; its modification time moves even within one clock tick."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="ascii")
    os.utime(path, ns=(before + 1_000_000, max(before + 1_000_000, time.time_ns())))


# -- a token file --------------------------------------------------------------------------------


def test_the_file_is_read_again_when_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "token"
    write(path, "first-token\n")
    service = Service()
    client = client_of(TokenFile(path), service)

    client.plans()
    client.plans()
    write(path, "second-token\n")
    client.plans()

    assert service.tokens == ["first-token", "first-token", "second-token"]


@pytest.mark.parametrize(
    ("content", "sentence"),
    [
        (None, "The token file {path} does not exist."),
        ("", "The token file {path} is empty."),
        ("  \n", "The token file {path} is empty."),
        ("sbx-oa-4f1e\n9c2b", "The token file {path} does not hold one token (it contains a line "
         "break); is it half-written?"),
    ],
    ids=["missing", "empty", "blank", "half-written"],
)  # fmt: skip
def test_an_unusable_file_is_one_sentence_naming_it(
    tmp_path: Path, content: str | None, sentence: str
) -> None:
    path = tmp_path / "token"
    if content is not None:
        path.write_text(content, encoding="ascii")
    service = Service()

    with pytest.raises(TokenError) as caught:
        client_of(TokenFile(path), service).plans()

    assert caught.value.message == sentence.format(path=path)
    assert service.tokens == []  # nothing was sent
    if content:
        assert "4f1e" not in caught.value.message


def test_while_the_file_is_unusable_the_last_token_read_is_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="api_client")
    path = tmp_path / "token"
    write(path, FULL)
    service = Service()
    client = client_of(TokenFile(path), service)
    client.plans()

    path.unlink()  # a sidecar replacing it, not yet done
    client.plans()
    client.plans()
    write(path, "")
    client.plans()

    assert service.tokens == [FULL] * 4
    assert caplog.messages == [  # once per problem, not once per request
        f"The token file {path} does not exist. The last good token is used until it expires.",
        f"The token file {path} is empty. The last good token is used until it expires.",
    ]


def test_a_token_read_half_written_is_read_again_when_the_service_refuses_it(
    tmp_path: Path,
) -> None:
    """The writer had written part of the token when it was read: the service refuses it, and
    by then the writer has finished, so the request is sent again with the whole token."""
    path = tmp_path / "token"
    write(path, FULL[:9])

    def accepted(token: str) -> bool:
        write(path, FULL)  # the writer finishes meanwhile
        return token == FULL

    service = Service(accepted)
    client_of(TokenFile(path), service).plans()

    assert service.tokens == [FULL[:9], FULL]


def test_a_refused_token_the_file_still_holds_is_a_refusal(tmp_path: Path) -> None:
    path = tmp_path / "token"
    write(path, FULL)
    service = Service(accepted=lambda token: False)

    with pytest.raises(AuthenticationError):
        client_of(TokenFile(path), service).plans()

    assert service.tokens == [FULL]  # read again, unchanged: nothing new to send


# -- a token command -----------------------------------------------------------------------------


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def counting(tmp_path: Path, printed: str) -> list[str]:
    """A command that prints `printed` (a format with {n}: its run number) and counts its runs
    in a file."""
    runs = tmp_path / "runs"
    code = (
        "import pathlib, sys\n"
        f"p = pathlib.Path({str(runs)!r})\n"
        "n = len(p.read_text()) + 1 if p.exists() else 1\n"
        "p.write_text('x' * n)\n"
        f"print({printed!r}.format(n=n))\n"
    )
    return python(code)


def runs(tmp_path: Path) -> int:
    path = tmp_path / "runs"
    return len(path.read_text()) if path.exists() else 0


def test_a_command_that_prints_a_token_is_run_once_and_again_when_it_is_refused(
    tmp_path: Path,
) -> None:
    service = Service(accepted=lambda token: token != "token-1")
    client = client_of(TokenCommand(counting(tmp_path, "token-{n}")), service)

    client.plans()  # token-1 refused: the command runs again
    client.plans()

    assert service.tokens == ["token-1", "token-2", "token-2"]
    assert runs(tmp_path) == 2


def test_a_command_that_says_when_its_token_expires_is_run_again_before_then(
    tmp_path: Path,
) -> None:
    clock = Clock()
    answer = json.dumps({"access_token": "token-{n}", "expires_in": 120})
    answer = answer.replace("{", "{{").replace("}", "}}").replace("{{n}}", "{n}")
    source = TokenCommand(counting(tmp_path, answer), clock=clock)

    assert source.token().get_secret_value() == "token-1"
    clock.now += 89  # a 120-second token is renewed 30 s before it expires
    assert source.token().get_secret_value() == "token-1"
    clock.now += 1
    assert source.token().get_secret_value() == "token-2"
    assert runs(tmp_path) == 2


@pytest.mark.parametrize(
    ("command", "sentence"),
    [
        (python("pass"), "The token command (python3) printed nothing."),
        (python("print('   ')"), "The token command (python3) printed nothing."),
        (
            python(f"import sys; sys.stderr.write({SECRET_ON_STDERR!r}); sys.exit(3)"),
            "The token command (python3) failed with exit status 3.",
        ),
        (python("print('two words')"), "The token command (python3) printed something that is "
         "not one token (token must be visible ASCII characters without spaces or line breaks; "
         "it contains a space)."),
        (python("print('{\"token_type\": \"bearer\"}')"), "The token command (python3) printed "
         "a JSON object without an access_token."),
        (["/nonexistent/get-token"], "The token command (get-token) was not found."),
    ],
    ids=["nothing", "blank", "fails", "not-a-token", "json-without-token", "not-found"],
)  # fmt: skip
def test_a_failing_command_is_one_sentence_naming_its_program(
    command: list[str], sentence: str
) -> None:
    source = TokenCommand(command)
    if command[0] == sys.executable:
        sentence = sentence.replace("python3", Path(sys.executable).name)

    with pytest.raises(TokenError) as caught:
        source.token()

    assert caught.value.message == sentence
    assert SECRET_ON_STDERR not in caught.value.message
    assert "-c" not in caught.value.message  # the program, never its arguments


def test_a_command_that_hangs_is_stopped_with_what_it_started(tmp_path: Path) -> None:
    started = tmp_path / "child.pid"
    code = (
        "import subprocess, sys, pathlib\n"
        "child = subprocess.Popen(['sleep', '3600'])\n"
        f"pathlib.Path({str(started)!r}).write_text(str(child.pid))\n"
        "child.wait()\n"
    )
    # 10 s, not 1: a loaded machine may take seconds to start the command and its child.
    source = TokenCommand(python(code), timeout=10.0)
    began = time.monotonic()

    with pytest.raises(TokenError) as caught:
        source.token()

    assert time.monotonic() - began < 60  # a generous multiple of the 10 s timeout: load-proof
    name = Path(sys.executable).name
    assert caught.value.message == (
        f"The token command ({name}) did not finish within 10 s and was stopped."
    )
    assert_ended(int(started.read_text()))


def assert_ended(child: int) -> None:
    """The command's own child ends: SIGKILL is sent, and it ends as the kernel gets to it. It
    would sleep an hour, so a child left running is failed by pytest-timeout's limit."""
    wait_until(lambda: not _alive(child), what="the command's own child ended")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie waiting for its (killed) parent's reaper is not running.
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "State:\tZ" not in status.read_text()


def test_a_command_string_is_split_as_a_shell_would_without_a_shell(tmp_path: Path) -> None:
    script = tmp_path / "get token.py"
    script.write_text("import sys; print(sys.argv[1])", encoding="utf-8")
    command = f"{sys.executable} '{script}' 'the-token'"

    assert TokenCommand(command).token().get_secret_value() == "the-token"
