"""axe-core, the accessibility engine, run in a page of the browser tests.

The engine is the npm package `axe-core`, pinned in package.json and package-lock.json and
installed by `make test` (`npm ci`) into node_modules/: Deque's own build, the one behind
Lighthouse's accessibility audit. This module only loads that file into the page, calls its
documented `axe.run` and reads what it returns; every rule (contrast among them) is axe's.

What fails a test (`blocking`): a violation axe rates serious or critical, and any violation of
the structural rules in `STRICT_RULES` whatever its rating (axe rates a skipped heading level
"moderate", but a page whose headings skip levels is one a screen-reader user cannot outline).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.browser.harness import REPO_ROOT

PACKAGE = REPO_ROOT / "package.json"
SCRIPT = REPO_ROOT / "node_modules" / "axe-core" / "axe.min.js"
INSTALL_HINT = "install it with: npm ci (make test does)"
THEMES = ("light", "dark")
"""The themes every page is audited in (`?embed_options=THEME_theme`)."""

BLOCKING_IMPACTS = frozenset({"serious", "critical"})
STRICT_RULES = frozenset({"heading-order", "page-has-heading-one", "empty-heading"})
"""Rules whose every violation fails, whatever axe rates it."""

RUN_OPTIONS: dict[str, Any] = {"resultTypes": ["violations"]}
"""Every rule axe runs by default (WCAG 2.0-2.2 A and AA, and its best practices); only the
violations are returned."""


def pinned_version() -> str:
    """The axe-core version package.json pins."""
    return str(json.loads(PACKAGE.read_text())["devDependencies"]["axe-core"])


@dataclass(frozen=True)
class Violation:
    """One rule axe found broken, and where."""

    rule: str
    impact: str | None
    help: str
    nodes: tuple[str, ...]  # each: the element's selector, its HTML and axe's summary

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Violation:
        nodes = tuple(
            f"{' '.join(map(str, node.get('target', [])))}\n"
            f"      {str(node.get('html', ''))[:200]}\n"
            f"      {str(node.get('failureSummary', '')).replace(chr(10), ' ')}"
            for node in raw.get("nodes", [])
        )
        return cls(raw["id"], raw.get("impact"), raw.get("help", ""), nodes)

    @property
    def blocking(self) -> bool:
        return self.impact in BLOCKING_IMPACTS or self.rule in STRICT_RULES

    def __str__(self) -> str:
        where = "\n".join(f"    {node}" for node in self.nodes)
        return f"{self.rule} ({self.impact}): {self.help}, {len(self.nodes)} element(s)\n{where}"


@dataclass(frozen=True)
class Audit:
    """What axe found on one page."""

    version: str
    violations: tuple[Violation, ...]
    raw: list[dict[str, Any]]

    @property
    def blocking(self) -> list[Violation]:
        return [v for v in self.violations if v.blocking]

    def report(self) -> str:
        return "\n".join(str(v) for v in self.blocking)


def audit(page: Page, script: str) -> Audit:
    """Run axe-core (`script`, the text of axe.min.js) on the page as it is now."""
    page.evaluate(script)
    result = page.evaluate("options => axe.run(document, options)", RUN_OPTIONS)
    violations = result["violations"]
    return Audit(
        version=str(result["testEngine"]["version"]),
        violations=tuple(Violation.of(v) for v in violations),
        raw=violations,
    )


def themed(url: str, theme: str) -> str:
    """`url` shown in `theme` (one of THEMES), the way a viewer's choice is kept in a link."""
    return f"{url}{'&' if '?' in url else '?'}embed_options={theme}_theme"


def save(result: Audit, target: Path) -> None:
    """Keep the raw violations beside the test's screenshot."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"axe": result.version, "violations": result.raw}, indent=1))
