"""The house's layering, checked on the source: analytics import only pandas, numpy, the
standard library and other analytics modules; presentation never imports Streamlit or the
Streamlit-only layers (it may use the layers before it)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED_THIRD_PARTY = {"pandas", "numpy"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def offending(folder: str, own_layers: tuple[str, ...]) -> dict[str, list[str]]:
    bad = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        wrong = [
            name
            for name in imported_modules(path)
            if name.split(".")[0] not in sys.stdlib_module_names
            and name.split(".")[0] not in ALLOWED_THIRD_PARTY
            and not any(name == layer or name.startswith(layer + ".") for layer in own_layers)
        ]
        if wrong:
            bad[str(path.relative_to(ROOT))] = sorted(wrong)
    return bad


def test_analytics_import_only_pandas_numpy_and_the_standard_library() -> None:
    assert (ROOT / "dashboard/analytics").is_dir()
    assert offending("dashboard/analytics", ("dashboard.analytics",)) == {}


def test_presentation_stays_free_of_streamlit() -> None:
    later = ("streamlit", "dashboard.ui", "dashboard.app_pages", "dashboard.app")
    bad = {
        str(path.relative_to(ROOT)): sorted(
            name
            for name in imported_modules(path)
            if any(name == layer or name.startswith(layer + ".") for layer in later)
        )
        for path in sorted((ROOT / "dashboard/present").rglob("*.py"))
    }
    assert {path: names for path, names in bad.items() if names} == {}


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import streamlit\nfrom api_client import X\nimport pandas as pd\n")
    assert imported_modules(module) == {"streamlit", "api_client", "pandas"}
