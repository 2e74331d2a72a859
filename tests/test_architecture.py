"""The house rules of the code, checked: who may import whom, and who names the URL.

Data flows service -> api_client -> dashboard.data -> dashboard.analytics -> dashboard.present ->
pages. Imports go the other way round only where the list below allows it. Under every layer of
the dashboard lies the frames floor (dashboard.columns: the frames' columns and dtypes, holding a
frame to them, reading cells), which imports nothing of ours; analytics are pure and import only
the floor, so every layer above can use them; only pages lay out the screen. No module of the
dashboard imports itself back through others, not even from inside a function.

The URL's query parameters are declared once, in the table of `dashboard.state.params`: only it
makes parameters, only `dashboard.ui.url_filters` touches the address bar, and no other module
names a parameter by a string.
"""

from __future__ import annotations

import ast
import re
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
    # The command line (store sync, the worker, the digest): everything but the screen; the
    # demo's ground truth (`verdicts --evaluate`), and the MCP server's command registered.
    "dashboard.cli": {
        "api_client",
        "sandbox",
        "dashboard.columns",
        "dashboard.analytics",
        "dashboard.data",
        "dashboard.present",
        "dashboard.state",
        "dashboard.assistant",
    },
    # The MCP server: the pages' views, loaded as the command line loads them (its connection,
    # store and gate), never the screen.
    "dashboard.assistant": {
        "api_client",
        "dashboard.columns",
        "dashboard.analytics",
        "dashboard.data",
        "dashboard.present",
        "dashboard.state",
        "dashboard.cli",
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
    # Whether an execution's results hold what its own record says (`evidence`): a short answer
    # is not kept as final by the fetches, as the gate does not judge on it.
    "dashboard.analytics.evidence",
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


def _dashboard_modules() -> dict[str, Path]:
    return {_module_name(path): path for path in _sources("dashboard")}


def _imported_modules(path: Path, modules: dict[str, Path]) -> set[str]:
    """The dashboard modules `path` imports, at any depth (inside functions too): "from
    dashboard.ui import notices" is the module dashboard.ui.notices, "from dashboard.ui.notices
    import caption" too."""
    return {_nearest_module(name, modules) for name in _imported_names(_parse(path))} - {""}


def _imported_names(tree: ast.AST) -> set[str]:
    """What each import names: a module, or for "from m import x" m.x when that is a module
    (a submodule), else m."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _nearest_module(name: str, modules: dict[str, Path] | set[str]) -> str:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import one another, round and round (Tarjan's strongly
    connected components of more than one module, or one that imports itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                other = stack.pop()
                group.append(other)
                if other == module:
                    break
            if len(group) > 1 or module in graph[module]:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_module_of_the_dashboard_imports_itself_back() -> None:
    modules = _dashboard_modules()
    graph = {name: _imported_modules(path, modules) - {name} for name, path in modules.items()}
    assert _cycles(graph) == []


def test_the_cycle_rule_sees_a_cycle_through_a_function_level_import() -> None:
    """A control: the notices <-> sidebar cycle as it was (sidebar imported inside a function)."""
    graph = {
        "dashboard.ui.notices": {"dashboard.ui.sidebar"},
        "dashboard.ui.sidebar": {"dashboard.ui.notices", "dashboard.data.cache"},
        "dashboard.data.cache": set(),
    }
    assert _cycles(graph) == [["dashboard.ui.notices", "dashboard.ui.sidebar"]]
    code = "def show():\n    from dashboard.ui import sidebar\n"
    assert _imported_names(ast.parse(code)) == {"dashboard.ui.sidebar"}


# -- the URL's parameters, named once ---------------------------------------------------------

PARAMS_TABLE = ROOT / "dashboard" / "state" / "params.py"
ADDRESS_BAR = ROOT / "dashboard" / "ui" / "url_filters.py"


def _parameter_words() -> set[str]:
    """Every parameter's name in the URL and the name of the view-state field it fills."""
    from dashboard.state.params import TABLE

    return {row.name for row in TABLE} | {row.field for row in TABLE}


def _names_of_parameters(tree: ast.AST, words: set[str]) -> list[str]:
    """Strings in `tree` that name a parameter where code would use one: a dict key, a
    subscript, a comparison, an attribute looked up by name, or a hand-built query ("?plan=").
    Words in sentences ("1 execution") are not parameters."""
    found = []
    query = re.compile(r"(^|[?&])(" + "|".join(map(re.escape, sorted(words))) + r")=")
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }

    def named(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Constant) and node.value in words

    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and query.search(node.value):
                found.append(f"line {node.lineno}: query {node.value!r}")
        elif isinstance(node, ast.Dict) and any(map(named, node.keys)):
            found.append(f"line {node.lineno}: key")
        elif isinstance(node, ast.Subscript) and named(node.slice):
            found.append(f"line {node.lineno}: subscript")
        elif isinstance(node, ast.Compare) and any(map(named, [node.left, *node.comparators])):
            found.append(f"line {node.lineno}: comparison")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and getattr(node.func, "id", getattr(node.func, "attr", ""))
            in ("getattr", "setattr", "hasattr", "get", "pop", "setdefault")
            and any(map(named, node.args))
        ):
            found.append(f"line {node.lineno}: looked up by name")
    return found


# The layers that deal with the URL. Their modules that know the view state are held to every
# rule; the others may use the same words for other things (frames name their columns "plan"
# and "status", an ASGI message has a "status", the digest's settings a "to").
URL_LAYERS = ("dashboard.state", "dashboard.ui", "dashboard.app_pages", "dashboard.app")


def _knows_the_view(path: Path) -> bool:
    module = _module_name(path)
    if module.startswith("dashboard.state."):
        return True
    in_layer = any(module == layer or module.startswith(layer + ".") for layer in URL_LAYERS)
    return in_layer and any(name.startswith("dashboard.state") for name in _imports(path))


@pytest.mark.parametrize("path", _sources("dashboard"), ids=str)
def test_only_the_parameter_table_names_query_parameters(path: Path) -> None:
    if path == PARAMS_TABLE:
        return
    found = _names_of_parameters(_parse(path), _parameter_words())
    if not _knows_the_view(path):
        found = [f for f in found if ": query " in f]  # a hand-built query counts everywhere
    assert found == [], f"{_module_name(path)} names query parameters: {found}"


@pytest.mark.parametrize("path", _sources("dashboard"), ids=str)
def test_only_the_table_makes_parameters_and_only_url_filters_touch_the_address_bar(
    path: Path,
) -> None:
    tree = _parse(path)
    makes = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Param"
    ]
    touches = [
        node.lineno
        for node in ast.walk(tree)
        if (isinstance(node, ast.Attribute) and node.attr == "query_params")
        or (isinstance(node, ast.keyword) and node.arg == "query_params")
    ]
    if path != PARAMS_TABLE:
        assert makes == [], f"{_module_name(path)} makes parameters (lines {makes})"
    if path != ADDRESS_BAR:
        assert touches == [], f"{_module_name(path)} touches st.query_params (lines {touches})"


def test_the_parameter_rules_see_a_parameter_named_by_hand() -> None:
    """A control: each way of naming a parameter by hand is found."""
    code = (
        "st.query_params['plan']\n"
        "st.switch_page('x.py', query_params={'window': '5'})\n"
        "link = f'scenario?plan={plan}'\n"
        "getattr(state, 'statuses')\n"
        "if field == 'tz': pass\n"
        "plural(3, 'execution')\n"  # a word in a sentence: not a parameter
    )
    found = _names_of_parameters(ast.parse(code), _parameter_words())
    assert sorted(f.split(":")[0] for f in found) == [
        "line 1",
        "line 2",
        "line 3",
        "line 4",
        "line 5",
    ], found


def _is_stdlib(name: str) -> bool:
    import sys

    return name in sys.stdlib_module_names or name == "__future__"


PAGE_LINES_MAX = 100
"""A page script lays out its view (#36): controls, load, `view = ...`, lay it out."""


@pytest.mark.parametrize("path", _sources("dashboard/app_pages"), ids=str)
def test_a_page_lays_out_a_view_and_computes_nothing(path: Path) -> None:
    """Pages read views (`present/`), never the analytics or pandas: an answer is computed once,
    in its view, where the digest, the alerts and the gate read it too."""
    computing = sorted(
        i
        for i in _imports(path)
        if i.startswith("dashboard.analytics") or i.split(".")[0] in {"pandas", "numpy"}
    )
    assert not computing, f"{_module_name(path)} computes: it imports {computing}"
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= PAGE_LINES_MAX, f"{_module_name(path)} is {lines} lines"
