"""The house rules of the code, checked: who may import whom.

Data flows service -> api_client -> dashboard.data -> dashboard.analytics -> dashboard.present ->
pages. Imports go the other way round only where the list below allows it: analytics is pure and
imports nothing of ours, so every layer above can use it; only pages lay out the screen.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# For each package: the packages of ours it may import (itself always). Third-party packages
# are free, except where FORBIDDEN_THIRD_PARTY says otherwise.
ALLOWED: dict[str, set[str]] = {
    "api_client": set(),
    "sandbox": set(),
    "dashboard.analytics": set(),
    "dashboard.data": {"api_client", "dashboard.analytics", "sandbox"},
    "dashboard.present": {"api_client", "dashboard.analytics", "dashboard.data"},
    "dashboard.state": {"api_client", "dashboard.analytics", "dashboard.data", "dashboard.present"},
    "dashboard.ui": {
        "api_client",
        "dashboard.analytics",
        "dashboard.data",
        "dashboard.present",
        "dashboard.state",
    },
    "dashboard.app_pages": {
        "api_client",
        "dashboard.analytics",
        "dashboard.data",
        "dashboard.present",
        "dashboard.state",
        "dashboard.ui",
    },
    "dashboard.app": {"dashboard.state", "dashboard.ui"},
    # The command line (store sync, the worker, the digest): everything but the screen.
    "dashboard.cli": {
        "api_client",
        "dashboard.analytics",
        "dashboard.data",
        "dashboard.present",
        "dashboard.state",
    },
}
OURS = ("api_client", "sandbox", "dashboard")

# Streamlit lives in the pages, the ui helpers, the app and the one caching module of the data
# layer; everything else is plain Python, tested without it.
STREAMLIT_ALLOWED = ("dashboard.ui", "dashboard.app_pages", "dashboard.app", "dashboard.data.cache")
# Analytics are frames in, frames out.
ANALYTICS_THIRD_PARTY = {"pandas", "numpy"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, at any depth (function-level imports count too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _package_of(module: str) -> str | None:
    """The ALLOWED key a module of ours belongs to (the longest matching prefix)."""
    keys = sorted(ALLOWED, key=len, reverse=True)
    return next((k for k in keys if module == k or module.startswith(k + ".")), None)


def _sources(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def _ours(module: str) -> bool:
    return module.split(".")[0] in OURS


@pytest.mark.parametrize("path", _sources("api_client", "sandbox", "dashboard"), ids=str)
def test_each_module_imports_only_the_layers_below_it(path: Path) -> None:
    module = _module_name(path)
    package = _package_of(module)
    if package is None:  # dashboard/__init__.py, dashboard/__main__.py: the package's front door
        return
    allowed = ALLOWED[package] | {package}
    wrong = sorted(
        imported
        for imported in _imports(path)
        if _ours(imported)
        and imported not in ("dashboard",)
        and not any(imported == a or imported.startswith(a + ".") for a in allowed)
        # "from dashboard.data import frames" also lists "dashboard.data.frames": judge once
        and _package_of(imported) not in allowed
    )
    assert not wrong, f"{module} ({package}) may not import {wrong}"


@pytest.mark.parametrize("path", _sources("dashboard"), ids=str)
def test_streamlit_is_imported_only_where_the_screen_is_drawn(path: Path) -> None:
    module = _module_name(path)
    if any(module == s or module.startswith(s + ".") for s in STREAMLIT_ALLOWED):
        return
    assert not any(i.split(".")[0] == "streamlit" for i in _imports(path)), module


@pytest.mark.parametrize("path", _sources("dashboard/analytics"), ids=str)
def test_analytics_need_only_pandas_numpy_and_themselves(path: Path) -> None:
    third_party = {
        i.split(".")[0] for i in _imports(path) if not _ours(i) and not _is_stdlib(i.split(".")[0])
    }
    assert third_party <= ANALYTICS_THIRD_PARTY, f"{_module_name(path)} imports {third_party}"


def test_nothing_imports_the_page_scripts() -> None:
    importers = [
        _module_name(path)
        for path in _sources("api_client", "sandbox", "dashboard", "tests")
        if any(i.startswith("dashboard.app_pages") for i in _imports(path))
    ]
    assert importers == []


def test_the_sandbox_never_imports_the_client_or_the_dashboard() -> None:
    for path in _sources("sandbox"):
        assert not {i.split(".")[0] for i in _imports(path)} & {"api_client", "dashboard"}, path


def test_the_rules_see_real_imports() -> None:
    """A control: the parser finds a layer's imports, so an empty result above means something."""
    assert "dashboard.data.live" in _imports(ROOT / "dashboard" / "data" / "cache.py")
    assert "api_client" in _imports(ROOT / "dashboard" / "data" / "live.py")
    assert _package_of("dashboard.data.cache") == "dashboard.data"


def _is_stdlib(name: str) -> bool:
    import sys

    return name in sys.stdlib_module_names or name == "__future__"
