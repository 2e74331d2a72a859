"""The house rules of the code, checked: who may import whom.

Data flows service -> api_client -> dashboard.data -> dashboard.analytics -> dashboard.present ->
pages. Imports go the other way round only where the list below allows it. Under every layer of
the dashboard lies the frames floor (dashboard.columns: the frames' columns and dtypes, holding a
frame to them, reading cells), which imports nothing of ours; analytics are pure and import only
the floor, so every layer above can use them; only pages lay out the screen.
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
    "dashboard.columns": set(),
    "dashboard.analytics": {"dashboard.columns"},
    "dashboard.data": {"api_client", "dashboard.columns", "dashboard.analytics", "sandbox"},
    "dashboard.present": {
        "api_client",
        "dashboard.columns",
        "dashboard.analytics",
        "dashboard.data",
    },
    "dashboard.state": {
        "api_client",
        "dashboard.columns",
        "dashboard.analytics",
        "dashboard.data",
        "dashboard.present",
    },
    "dashboard.ui": {
        "api_client",
        "dashboard.columns",
        "dashboard.analytics",
        "dashboard.data",
        "dashboard.present",
        "dashboard.state",
    },
    "dashboard.app_pages": {
        "api_client",
        "dashboard.columns",
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
        "dashboard.columns",
        "dashboard.analytics",
        "dashboard.data",
        "dashboard.present",
        "dashboard.state",
    },
}
OURS = ("api_client", "sandbox", "dashboard")

# Streamlit lives in the pages, the ui helpers, the app and the caching modules of the data layer
# (the loads, what is kept per connection, the history store as pages use it); everything else
# is plain Python, tested without it.
STREAMLIT_ALLOWED = (
    "dashboard.ui",
    "dashboard.app_pages",
    "dashboard.app",
    "dashboard.data.cache",
    "dashboard.data.cache_connection",
    "dashboard.data.cache_history",
)
# Analytics are frames in, frames out.
ANALYTICS_THIRD_PARTY = {"pandas", "numpy"}
# The floor describes frames and nothing else.
FLOOR_THIRD_PARTY = {"pandas", "numpy", "pyarrow"}
# The data layer stands on the floor, not on the analytics: of those it uses only the rules it
# must apply while it frames what it loads, each defined once in the analytics.
DATA_USES_OF_ANALYTICS = {
    # An execution's verdict counts, status and whether it is finished (framing executions, and
    # what the store may keep: only finished executions' results).
    "dashboard.analytics.verdicts",
    # The header of the execution a results link names, which `live.find_execution` returns
    # with it, computed as the pages compute every other execution's.
    "dashboard.analytics.executions",
}


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


def _third_party(path: Path) -> set[str]:
    return {
        i.split(".")[0] for i in _imports(path) if not _ours(i) and not _is_stdlib(i.split(".")[0])
    }


@pytest.mark.parametrize("path", _sources("dashboard/analytics"), ids=str)
def test_analytics_need_only_pandas_numpy_and_themselves(path: Path) -> None:
    third_party = _third_party(path)
    assert third_party <= ANALYTICS_THIRD_PARTY, f"{_module_name(path)} imports {third_party}"


@pytest.mark.parametrize("path", _sources("dashboard/columns"), ids=str)
def test_the_frames_floor_needs_only_pandas_numpy_and_pyarrow(path: Path) -> None:
    third_party = _third_party(path)
    assert third_party <= FLOOR_THIRD_PARTY, f"{_module_name(path)} imports {third_party}"


@pytest.mark.parametrize("path", _sources("dashboard/data"), ids=str)
def test_the_data_layer_uses_only_the_analytics_rules_it_frames_by(path: Path) -> None:
    used = {
        module
        for imported in _imports(path)
        if imported.startswith("dashboard.analytics")
        # "from dashboard.analytics.verdicts import x" lists ".verdicts.x" too: judge the module
        for module in [
            next((m for m in DATA_USES_OF_ANALYTICS if imported.startswith(m + ".")), imported)
        ]
    }
    assert used <= DATA_USES_OF_ANALYTICS, f"{_module_name(path)} imports {used}"


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
    assert "dashboard.analytics.verdicts" in _imports(ROOT / "dashboard" / "data" / "frames.py")
    assert _package_of("dashboard.data.cache") == "dashboard.data"
    assert _package_of("dashboard.columns.schemas") == "dashboard.columns"


def test_the_rules_see_each_kind_of_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import streamlit\nfrom api_client import X\nimport pandas as pd\n")
    assert _imports(module) == {"streamlit", "api_client", "api_client.X", "pandas"}


def _is_stdlib(name: str) -> bool:
    import sys

    return name in sys.stdlib_module_names or name == "__future__"
