"""Every relative link of the README and of `docs/*.md` leads somewhere: the file exists and,
when the link names a heading (`file.md#heading`), that heading is in it. Documents move and
get renamed; a reader who follows a dead link loses the thread.

Links are read as GitHub renders them: Markdown links and images, and the `src`/`href` of HTML
tags, outside code blocks and code spans; a heading's anchor is GitHub's slug of its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
# [text](target), ![alt](target), [text](<target> "title"); the text may hold [brackets].
_MARKDOWN_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]"  # [text]
    r"\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"  # (target "title")
)
_HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]+)\"", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, ...


@dataclass(frozen=True)
class Link:
    source: Path
    target: str

    def __str__(self) -> str:
        return f"{_shown(self.source)} -> {self.target}"


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def _prose(text: str) -> str:
    """The text GitHub reads links in: no fenced blocks, no code spans."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def relative_links(path: Path) -> list[Link]:
    prose = _prose(path.read_text(encoding="utf-8"))
    targets = _MARKDOWN_LINK.findall(prose) + _HTML_LINK.findall(prose)
    return [Link(path, t) for t in targets if not _EXTERNAL.match(t)]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, markup and punctuation dropped, spaces to -."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        name, number = base, 0
        while name in found:  # GitHub numbers repeated headings: x, x-1, x-2
            number += 1
            name = f"{base}-{number}"
        found.add(name)
    return found


def problem(link: Link) -> str | None:
    """Why `link` leads nowhere, or None when it resolves."""
    target, _, anchor = link.target.partition("#")
    path = (link.source.parent / target).resolve() if target else link.source
    if not path.exists():
        return f"{link}: no such file"
    if anchor and path.suffix == ".md" and anchor not in anchors(path):
        return f"{link}: no heading #{anchor} in {_shown(path)}"
    return None


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(document: Path) -> None:
    broken = [p for link in relative_links(document) if (p := problem(link))]
    assert broken == []


def test_the_readme_links_every_document_and_its_screenshots() -> None:
    """A control: the parser sees the README's map and images, so an empty list above means
    the links were checked, and no document in docs/ is left out of the map."""
    targets = {link.target for link in relative_links(ROOT / "README.md")}
    documents = {f"docs/{p.name}" for p in DOCUMENTS[1:]}
    assert documents <= targets, sorted(documents - targets)
    assert "docs/screenshots/standup.png" in targets


def test_a_dead_link_or_anchor_is_reported(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# Shared store (PostgreSQL)\n\n## Notes\n\n## Notes\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok](there.md#shared-store-postgresql) [ok](there.md#notes-1)\n"
        '[gone](missing.md) ![gone](img/none.png) <img src="gone.png"> [no](there.md#nowhere)\n'
        "`[in code](missing.md)` [web](https://example.com/x) [self](#nothing-here)\n"
        "```\n[in a block](missing.md)\n```\n"
    )
    broken = [p for link in relative_links(page) if (p := problem(link))]
    assert [b.split(" -> ")[1].split(":")[0] for b in broken] == [
        "missing.md",
        "img/none.png",
        "there.md#nowhere",
        "#nothing-here",
        "gone.png",
    ]
