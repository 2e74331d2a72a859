"""The dashboard's web server around Streamlit: unknown paths, sign-in, and a shutdown that ends.

`dashboard/app.py` hands these to `st.App`, which `streamlit run dashboard/app.py` then serves
(Streamlit finds the `app` object in the script and runs it with uvicorn).

- **Unknown paths.** Streamlit answers every path it does not know with the app's HTML, whose
  scripts are linked relative to the path: at `/results/extra` they resolve to
  `/results/static/...`, which is HTML again, and the page stays blank forever; at `/nope` it
  shows a "Page not found" dialog and runs the default page. `UnknownPaths` answers a browser's
  request for any path that is not a page with a 404 page that says so and links home.
  `/results/` and the default page's own path (`/plans`) are redirected to their canonical form.
- **Back to the link after sign-in.** Streamlit's sign-in (`st.login`) always lands on the
  home page afterwards, so a shared link opened before signing in would be lost.
  `ReturnAfterSignIn` notes the page a sign-in started from (the `Referer` of `/auth/login`,
  kept only if it is one of the dashboard's pages, with its query) in a short-lived cookie, and
  turns the home-page redirect at the end of the sign-in (`/oauth2callback`) into one to that
  page. If the provider cannot be reached when sign-in starts, Streamlit answers a bare
  "Authentication error"; a page that says what happened and links back is shown instead.
- **Shutdown.** On SIGTERM uvicorn stops serving and Streamlit stops its runtime, but Python
  then waits for every non-daemon thread: an HTTP walk in a `ThreadPoolExecutor` still has
  requests in flight (each up to the client's deadline) and queued pages it will still fetch.
  `lifespan` arms a watchdog when the server has shut down: if the process has not ended
  `SHUTDOWN_GRACE_S` later, it ends it. Nothing is lost: the dashboard keeps no state of its own
  on disk, only caches of what the service answered.
"""

from __future__ import annotations

import ctypes
import gc
import html
import logging
import os
import re
import sys
import threading
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SHUTDOWN_GRACE_S = 3.0
"""How long the process may take to end once the server has shut down, before it is ended."""

# The first path segments Streamlit serves itself (its API, assets, media, components, auth):
# never a page, never ours to answer.
STREAMLIT_PREFIXES = frozenset(
    {"_stcore", "static", "media", "component", "app", "auth", "oauth2callback"}
)
STREAMLIT_FILES = frozenset({"favicon.png", "manifest.json", "index.html", "robots.txt"})

_LOGGER = logging.getLogger(__name__)


class UnknownPaths:
    """ASGI middleware: a browser asking for a path that is not a page gets a 404 page.

    `pages` are the URL paths of the pages (without slashes); `default` is the default page's
    own path, which Streamlit serves at `/`. Only page loads are answered (GET or HEAD that
    accept HTML); Streamlit's own routes and every other request pass through unchanged.
    """

    def __init__(
        self, app: ASGIApp, *, pages: Iterable[str], default: str, base_path: str = ""
    ) -> None:
        self.app = app
        self.pages = frozenset(pages) | {""}
        self.default = default
        self.base_path = "/" + base_path.strip("/") if base_path.strip("/") else ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        answer = self.answer(scope["path"], _header(scope, b"accept"))
        if answer is None:
            await self.app(scope, receive, send)
            return
        status, headers, body = answer
        if status in (307, 308):
            query = scope.get("query_string", b"").decode("latin-1")
            location = headers["location"] + (f"?{query}" if query else "")
            headers = {**headers, "location": location}
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
            }
        )
        await send(
            {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body}
        )

    def answer(self, path: str, accept: str) -> tuple[int, dict[str, str], bytes] | None:
        """What to answer for `path` (None: let Streamlit answer). Pure, for the tests."""
        if "text/html" not in accept:
            return None  # scripts, styles, health checks and API calls are Streamlit's
        if self.base_path:
            if path != self.base_path and not path.startswith(self.base_path + "/"):
                return None
            path = path[len(self.base_path) :]
        segments = path.strip("/").split("/")
        first = segments[0]
        if first in STREAMLIT_PREFIXES or (len(segments) == 1 and first in STREAMLIT_FILES):
            return None
        if len(segments) == 1 and first in self.pages:
            canonical = "" if first == self.default else first
            if path == f"/{canonical}":
                return None
            # "/results/" (its scripts would resolve under /results/) or "/plans" (the
            # default page, whose own path Streamlit greets with "Page not found").
            return 308, {"location": f"{self.base_path}/{canonical}"}, b""
        return 404, _NOT_FOUND_HEADERS, self.not_found_page()

    def not_found_page(self) -> bytes:
        home = html.escape(self.base_path + "/", quote=True)
        return _NOT_FOUND_PAGE.replace("{home}", home).encode()


RETURN_COOKIE = "qa_dashboard_return"
"""The cookie that carries the page a sign-in started from, until the sign-in ends."""
RETURN_MAX_AGE_S = 900
"""How long a started sign-in may take (at the provider) and still land on its page."""
_QUERY = re.compile(r"[A-Za-z0-9\-._~%!$&'()*+,;=:@/?]{0,4000}")


class ReturnAfterSignIn:
    """ASGI middleware: a sign-in ends on the page (and query) it started from (see module doc).

    `pages` are the URL paths of the pages; only those (or the home page) are ever a target, as
    a path of this site: nothing from the request can send the viewer elsewhere.
    """

    def __init__(self, app: ASGIApp, *, pages: Iterable[str], base_path: str = "") -> None:
        self.app = app
        self.pages = frozenset(pages) | {""}
        self.base_path = "/" + base_path.strip("/") if base_path.strip("/") else ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
        elif scope["path"] == f"{self.base_path}/auth/login":
            target = self.target(_header(scope, b"referer"))
            await self.app(scope, receive, self._starting(send, target))
        elif scope["path"] == f"{self.base_path}/oauth2callback":
            kept = cookie_parser(_header(scope, b"cookie")).get(RETURN_COOKIE)
            target = self.target(unquote(kept)) if kept else None
            await self.app(scope, receive, self._ending(send, target, forget=kept is not None))
        else:
            await self.app(scope, receive, send)

    def target(self, address: str) -> str | None:
        """The page of `address` (a URL or a path with its query) as a path of this site, or
        None when it is not one of the dashboard's pages. Pure, for the tests."""
        parts = urlsplit(address)
        path = parts.path
        if self.base_path:
            if path != self.base_path and not path.startswith(self.base_path + "/"):
                return None
            path = path[len(self.base_path) :]
        page = path.strip("/")
        if path not in ("", "/", f"/{page}") or page not in self.pages:
            return None
        if not _QUERY.fullmatch(parts.query) or (not page and not parts.query):
            return None
        return f"{self.base_path}/{page}" + (f"?{parts.query}" if parts.query else "")

    def _cookie(self, value: str, max_age: int) -> tuple[bytes, bytes]:
        path = self.base_path or "/"
        text = (
            f"{RETURN_COOKIE}={quote(value, safe='')}; Path={path}; Max-Age={max_age}; "
            "HttpOnly; SameSite=Lax"
        )
        return b"set-cookie", text.encode("latin-1")

    def _starting(self, send: Send, target: str | None) -> Send:
        replaced = False

        async def starting(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] >= 400:
                # Streamlit could not reach the provider (or its configuration is wrong).
                replaced = True
                home = html.escape(self.base_path + "/", quote=True)
                await send(
                    {
                        "type": "http.response.start",
                        "status": 502,
                        "headers": [
                            (k.encode("latin-1"), v.encode("latin-1"))
                            for k, v in _NOT_FOUND_HEADERS.items()
                        ],
                    }
                )
                body = _SIGN_IN_FAILED_PAGE.replace("{home}", home).encode()
                await send({"type": "http.response.body", "body": body})
                return
            if replaced:
                return
            if message["type"] == "http.response.start" and target is not None:
                headers = [*message["headers"], self._cookie(target, RETURN_MAX_AGE_S)]
                message = {**message, "headers": headers}
            await send(message)

        return starting

    def _ending(self, send: Send, target: str | None, *, forget: bool) -> Send:
        home = f"{self.base_path}/".encode("latin-1")

        async def ending(message: Message) -> None:
            if message["type"] == "http.response.start" and forget:
                headers = list(message["headers"])
                if target is not None and message["status"] in (302, 303, 307):
                    headers = [
                        (
                            k,
                            target.encode("latin-1")
                            if k.lower() == b"location" and v == home
                            else v,
                        )
                        for k, v in headers
                    ]
                message = {**message, "headers": [*headers, self._cookie("", 0)]}
            await send(message)

        return ending


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


_NOT_FOUND_HEADERS = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
    "x-content-type-options": "nosniff",
}


# The requested path is not repeated: nothing of the request is reflected into the page.
def _plain_page(title: str, paragraphs: tuple[str, ...], link: str) -> str:
    """A small page of the dashboard's own, outside Streamlit: a heading, paragraphs and a link
    home (`{home}` is filled in when it is served). Nothing of the request is reflected into it."""
    body = "\n".join(f"<p>{paragraph}</p>" for paragraph in paragraphs)
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · QA dashboard</title>
<style>
  :root {{ color-scheme: light dark; }}
  body {{ font-family: "Source Sans Pro", system-ui, sans-serif; margin: 4rem auto;
         max-width: 40rem; padding: 0 1.5rem; line-height: 1.5; }}
  h1 {{ font-size: 2rem; margin-bottom: 0.5rem; }}
</style>
</head>
<body>
<main>
<h1>{title}</h1>
{body}
<p><a href="{{home}}">{link}</a></p>
</main>
</body>
</html>
"""


_NOT_FOUND_PAGE = _plain_page(
    "Page not found",
    ("The QA dashboard has no page at this address. The link may be mistyped or cut short.",),
    "Go to the dashboard's home page",
)
_SIGN_IN_FAILED_PAGE = _plain_page(
    "Sign-in not possible right now",
    (
        "The sign-in service did not answer, so you could not be signed in. Nothing of the "
        "dashboard is shown without signing in. Try again in a few minutes; if it lasts, tell "
        "this dashboard's operator.",
    ),
    "Back to the dashboard's sign-in page",
)


@asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """Serve, with what is loaded by then kept out of the garbage collector's passes; once the
    server has shut down, make sure the process ends (see module doc)."""
    keep_loaded_out_of_collections()
    cap_malloc_arenas(MALLOC_ARENAS)
    yield None
    arm_exit_watchdog(SHUTDOWN_GRACE_S)


MALLOC_ARENAS = 2
"""glibc's malloc arenas for the whole process (its default: up to 8 per core)."""
_M_ARENA_MAX = -8  # mallopt's parameter number (glibc's malloc.h)


def cap_malloc_arenas(arenas: int) -> int | None:
    """Cap glibc's malloc arenas at `arenas` for the rest of the process; the cap applied, or
    None where it is not (not glibc, or an operator's own `MALLOC_ARENA_MAX`, which glibc has
    read at start and is kept).

    Every session's script runs in a thread of its own, and glibc gives a thread that allocates
    an arena of its own (up to 16 on two cores): the frames a run frees stay mapped in its
    arena, so a morning of viewers raised the dashboard's peak resident set. Capped at two,
    case 13's peak at 100,000 executions went from 757-762 MB to 626-633 MB (benchmarks/
    RESULTS.md). It takes effect for arenas made from now on, so it is set before any session
    runs; glibc fixes its limit once 8 arenas exist."""
    if os.environ.get("MALLOC_ARENA_MAX") or not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        applied = libc.mallopt(_M_ARENA_MAX, arenas)
    except (OSError, AttributeError):  # not glibc (musl has no such library or no mallopt)
        return None
    return arenas if applied == 1 else None


def keep_loaded_out_of_collections() -> None:
    """Move every object alive now (the modules loaded: Streamlit's, pandas', plotly's, the
    dashboard's code and constants) out of the cyclic garbage collector's passes (`gc.freeze`).

    Streamlit collects every generation after each script run (`runner.postScriptGC`), holding
    the GIL: a pass over everything loaded took about 0.2 s per run on the benchmark machine,
    during which the server could not send the browser the end of the run. Frozen objects are
    still freed by reference counting; only garbage in cycles among them would be kept, and
    loaded modules are never garbage. What is collectable now is collected first."""
    gc.collect()
    gc.freeze()


def arm_exit_watchdog(grace_s: float) -> threading.Thread:
    """End the process `grace_s` seconds from now unless it has ended by then.

    A daemon thread: it does not itself keep the process alive, and it still runs while the
    interpreter waits for the other threads at exit, which is when it is needed.
    """

    def end() -> None:
        _LOGGER.warning(
            "Threads still running %.0f s after shutdown (requests in flight); exiting now.",
            grace_s,
        )
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    timer = threading.Timer(grace_s, end)
    timer.daemon = True
    timer.name = "exit-watchdog"
    timer.start()
    return timer
