"""The server around Streamlit: unknown paths get a "page not found" page; shutdown ends."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from dashboard.ui.server import UnknownPaths

HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"  # a browser's
PAGES = ["plans", "executions", "results"]


async def _app(scope: object, receive: object, send: object) -> None:
    raise AssertionError("answer() is tested on its own")


def middleware(base_path: str = "") -> UnknownPaths:
    return UnknownPaths(_app, pages=PAGES, default="plans", base_path=base_path)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "path",
    ["/results/extra", "/nope/a/b", "/nope", "/executions/1", "/results/extra/", "//evil.example"],
)
def test_a_page_load_of_an_unknown_path_is_a_404_page_with_a_link_home(path: str) -> None:
    answer = middleware().answer(path, HTML)

    assert answer is not None
    status, headers, body = answer
    assert status == 404
    assert headers["content-type"] == "text/html; charset=utf-8"
    page = body.decode()
    assert "Page not found" in page
    assert '<a href="/">' in page
    assert "evil" not in page
    assert "extra" not in page


@pytest.mark.parametrize("path", ["/", "/executions", "/results"])
def test_the_pages_are_streamlits_to_serve(path: str) -> None:
    assert middleware().answer(path, HTML) is None


@pytest.mark.parametrize(
    ("path", "location"),
    [("/plans", "/"), ("/plans/", "/"), ("/results/", "/results"), ("/executions/", "/executions")],
)
def test_other_spellings_of_a_page_are_redirected_to_it(path: str, location: str) -> None:
    assert middleware().answer(path, HTML) == (308, {"location": location}, b"")


@pytest.mark.parametrize(
    ("path", "accept"),
    [
        ("/_stcore/health", HTML),
        ("/results/_stcore/health", "*/*"),  # the front end probing for its base path
        ("/static/js/index.js", HTML),
        ("/results/static/js/index.js", "*/*"),
        ("/media/abc.png", HTML),
        ("/component/x/index.html", HTML),
        ("/app/static/logo.png", HTML),
        ("/favicon.png", HTML),
        ("/manifest.json", HTML),
        ("/nope/a/b", "application/json"),
    ],
)
def test_streamlits_own_routes_and_non_page_requests_pass_through(path: str, accept: str) -> None:
    assert middleware().answer(path, accept) is None


def test_a_base_url_path_is_respected() -> None:
    under = middleware("/qa/")

    assert under.answer("/qa/results", HTML) is None
    assert under.answer("/qa/plans", HTML) == (308, {"location": "/qa/"}, b"")
    not_found = under.answer("/qa/results/extra", HTML)
    assert not_found is not None
    assert '<a href="/qa/">' in not_found[2].decode()
    assert under.answer("/elsewhere", HTML) is None  # not ours: outside the app's prefix


def test_through_asgi_the_query_survives_a_redirect_and_head_has_no_body() -> None:
    # A thread of its own: the browser tests' Playwright keeps an event loop running in the main
    # thread of the test session, where asyncio.run() refuses to start another.
    with ThreadPoolExecutor(max_workers=1) as thread:
        thread.submit(asyncio.run, _through_asgi()).result()


async def _through_asgi() -> None:
    async def streamlit(_request: object) -> PlainTextResponse:
        return PlainTextResponse("the app")

    app = Starlette(
        routes=[Route("/{path:path}", streamlit, methods=["GET", "HEAD", "POST"])],
        middleware=[Middleware(UnknownPaths, pages=PAGES, default="plans")],
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://dash.test") as client:
        page = await client.get("/results", headers={"accept": HTML})
        moved = await client.get("/results/?execution=7&plan=3", headers={"accept": HTML})
        missing = await client.get("/results/extra", headers={"accept": HTML})
        head = await client.head("/results/extra", headers={"accept": HTML})
        posted = await client.post("/results/extra", headers={"accept": HTML})

    assert page.text == "the app"
    assert moved.status_code == 308
    assert moved.headers["location"] == "/results?execution=7&plan=3"
    assert missing.status_code == 404
    assert "Page not found" in missing.text
    assert head.status_code == 404
    assert head.content == b""
    assert posted.text == "the app"


def test_the_exit_watchdog_ends_a_process_whose_threads_would_keep_it_alive() -> None:
    """A thread stuck in a request (here: waiting forever) no longer holds the process open."""
    program = textwrap.dedent(
        """
        import threading
        from dashboard.ui.server import arm_exit_watchdog

        threading.Thread(target=threading.Event().wait, name="stuck request").start()
        arm_exit_watchdog(0.5)
        """
    )
    started = time.monotonic()
    # No limit on the run: without the watchdog the process never ends (pytest-timeout fails it).
    process = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)

    assert process.returncode == 0, process.stderr
    # The watchdog's 0.5 s plus an interpreter's start and imports, generous for a loaded machine.
    assert time.monotonic() - started < 300
    assert "exiting now" in process.stderr


ARENAS_SCRIPT = textwrap.dedent(
    """
    import ctypes, sys, threading
    from dashboard.ui.server import cap_malloc_arenas

    print(cap_malloc_arenas(2) if sys.argv[1] == "capped" else None)
    held, ready = [], threading.Barrier(6)

    def allocate():
        ready.wait()  # all six threads allocate at once: each wants an arena of its own
        held.append([bytearray(4096) for _ in range(200)])
        ready.wait()

    threads = [threading.Thread(target=allocate) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ctypes.CDLL("libc.so.6").malloc_stats()  # one "Arena N:" block per arena, on stderr
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc arenas")
@pytest.mark.parametrize("how", ["capped", "as glibc starts"])
def test_the_server_caps_malloc_arenas_for_its_sessions_threads(how: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": "."}  # no MALLOC_ARENA_MAX of the caller's
    done = subprocess.run(
        [sys.executable, "-c", ARENAS_SCRIPT, "capped" if how == "capped" else "no"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    arenas = done.stderr.count("Arena ")
    if how == "capped":
        assert done.stdout.strip() == "2"
        assert 1 <= arenas <= 2
    else:  # the control: without the cap six threads at once get arenas of their own
        assert arenas > 2


def test_an_operators_malloc_arena_max_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from dashboard.ui.server import cap_malloc_arenas

    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert cap_malloc_arenas(2) is None
