"""The client's modules import one another in one direction only: no cycle, however hidden.

Every import in every module counts, including those inside functions and `TYPE_CHECKING`
blocks: a lazy import is how a cycle hides, and it is still a cycle to a reader.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import api_client

PACKAGE = Path(api_client.__file__).parent


def module_name(path: Path) -> str:
    return "api_client" if path.stem == "__init__" else f"api_client.{path.stem}"


def imports_of(path: Path) -> set[str]:
    """The api_client modules `path` imports, by full name."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from api_client import errors` imports a module; `from api_client.x import y`
            # imports x.
            names = [node.module]
            if node.module == "api_client":
                names += [f"api_client.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            raise AssertionError(f"{path.name}: use absolute imports (found a relative one)")
        else:
            continue
        found.update(name for name in names if name.split(".")[0] == "api_client")
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in PACKAGE.glob("*.py")}
    return {
        name: {target for target in imports_of(path) if target in modules and target != name}
        for name, path in modules.items()
    }


def test_the_graph_covers_the_package() -> None:
    graph = import_graph()

    assert {"api_client.client", "api_client._request", "api_client.operations"} <= set(graph)
    assert "api_client.errors" in graph["api_client.retry"]  # the graph sees real edges


def test_api_client_modules_import_each_other_without_a_cycle() -> None:
    graph = import_graph()

    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as error:
        raise AssertionError(f"import cycle in api_client: {' -> '.join(error.args[1])}") from None
    assert set(order) == set(graph)


def test_no_module_imports_the_package_itself() -> None:
    graph = import_graph()

    # `from api_client import X` inside the package would run __init__ midway: a cycle.
    importers = sorted(name for name, targets in graph.items() if "api_client" in targets)
    assert importers == []
