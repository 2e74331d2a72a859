"""A company's names for its scenarios: id -> name, an optional owner (an e-mail address) and
optional tags, each with who changed it and when, in the history store beside the marks.

The service knows scenarios by number only; a lead thinks in names ("Checkout as guest"), and an
owner gives an alert or a mark someone to go to. Like the ledger, this is what a team knows,
written here only: `clear` keeps it.

What may be written is checked here, whoever writes (`python -m dashboard scenarios`, a page's
form): a name is one line of at most `MAX_NAME` characters (a longer one is cut, and the cut is
said), kept as written otherwise: markup and a leading `=` are text, and the faces that show or
export a name show it as text (the CSV export writes a leading `'` before a cell a spreadsheet
would run, which the import takes off). A file is read whole before anything is written, and a
file with a problem (a repeated id, an unknown column, an owner that is no address) is refused
with every problem named by line: nothing of it is written.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import pandas as pd

from dashboard.columns.shapes import typed_rows
from dashboard.data.store.engine import with_staged
from dashboard.data.store.lease import StoreLease
from dashboard.data.store.types import SCENARIO_NAME_COLUMNS

MAX_NAME = 200
"""Characters a scenario's name may hold; a longer one is cut to this, ending in "…"."""
MAX_OWNER = 254
"""Characters of an e-mail address (RFC 5321's path limit)."""
MAX_TAGS = 500
"""Characters of a scenario's tags, together."""
COLUMNS = ("id", "name", "owner", "tags")
"""The columns of a names file: id and name required, owner and tags optional."""
REQUIRED = ("id", "name")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
"""What a spreadsheet runs as a formula when a cell begins with it."""
LINES_NAMED = 10
"""Lines named in one sentence; the rest are counted."""

_ADDRESS = re.compile(r"[^@\s<>()\[\],;:\"\\]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")


class ScenarioNamesRefused(ValueError):
    """Names (a file, or one change) the store will not write; `problems` are sentences."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(" ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class ScenarioName:
    """One scenario's name, owner and tags, as they will be stored (checked and cleaned)."""

    scenario_id: int
    name: str
    owner: str | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class NamesFile:
    """A names file read: its rows, and sentences about what was kept differently from how it
    was written (names cut, formulas kept as text)."""

    names: tuple[ScenarioName, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class SavedNames:
    """What a save did: names new to the store, names changed, names given as they were."""

    added: int
    changed: int
    unchanged: int


# -- checks ----------------------------------------------------------------------------------------


def _invisible(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp")


def _has_invisible(text: str) -> bool:
    # Printable text (the usual case) holds none: one C-level check before the per-character one.
    return not text.isprintable() and any(_invisible(char) for char in text)


def one_line(text: str) -> str:
    """`text` with every run of whitespace (line breaks, tabs) one space, stripped."""
    return " ".join(text.split())


def owner_problem(owner: str | None) -> str | None:
    """Why `owner` is not an owner's e-mail address, or None (none is fine)."""
    if owner is None:
        return None
    if len(owner) > MAX_OWNER:
        return f"the owner has {len(owner):,} characters; an address holds at most {MAX_OWNER}."
    if not owner.isascii() or not _ADDRESS.fullmatch(owner):
        shown = f' "{owner}"' if len(owner) <= 60 and owner.isprintable() else ""
        return f"the owner{shown} is not an e-mail address like ann@example.com."
    return None


def name_problem(name: str) -> str | None:
    """Why `name` (one line already) cannot be a scenario's name, or None."""
    if not name:
        return "the name is empty."
    if _has_invisible(name):
        return "the name holds an invisible or control character; write it as plain text."
    return None


def capped(name: str) -> tuple[str, bool]:
    """`name` at most `MAX_NAME` characters (cut, ending in "…"), and whether it was cut."""
    if len(name) <= MAX_NAME:
        return name, False
    return name[: MAX_NAME - 1] + "…", True


def parse_tags(text: str | None) -> tuple[str, ...]:
    """Tags from their cell: comma-separated, each one line, empty ones dropped, in order."""
    if not text:
        return ()
    tags = [one_line(tag) for tag in text.split(",")]
    return tuple(dict.fromkeys(tag for tag in tags if tag))


def tags_text(tags: Sequence[str]) -> str | None:
    return ", ".join(tags) or None


def tags_problem(tags: Sequence[str]) -> str | None:
    text = tags_text(tags) or ""
    if len(text) > MAX_TAGS:
        return f"the tags have {len(text):,} characters; at most {MAX_TAGS} are kept."
    if _has_invisible(text):
        return "the tags hold an invisible or control character."
    return None


def checked(
    scenario_id: int, name: str, owner: str | None = None, tags: Sequence[str] = ()
) -> tuple[ScenarioName, list[str], bool]:
    """A scenario's name as it will be stored, its problems, and whether its name was cut."""
    problems = []
    if not 0 < scenario_id < 2**63:
        problems.append(f"{scenario_id} is not a scenario id.")
    flat = one_line(name)
    problem = name_problem(flat)
    if problem:
        problems.append(problem)
    flat, cut = capped(flat)
    address = owner.strip() if owner is not None else None
    problems += [p for p in (owner_problem(address or None), tags_problem(tags)) if p]
    return ScenarioName(scenario_id, flat, address or None, tuple(tags)), problems, cut


# -- the CSV file ----------------------------------------------------------------------------------


def _lines(numbers: Sequence[int]) -> str:
    listed = [str(n) for n in numbers[:LINES_NAMED]]
    more = len(numbers) - LINES_NAMED
    if more > 0:
        listed.append(f"{more:,} more")
    shown = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
    return ("line " if len(numbers) == 1 else "lines ") + shown


def live(cell: str) -> str:
    """A cell as written before the export made it inert (`inert`): one leading `'` off."""
    return cell[1:] if cell.startswith("'") else cell


def inert(cell: str | None) -> str | None:
    """A cell a spreadsheet shows as text: a leading `'` before one it would run (or one that
    begins with `'` already, so that `live` gives back exactly what was stored)."""
    if cell is not None and (cell.startswith("'") or cell.lstrip().startswith(FORMULA_STARTS)):
        return "'" + cell
    return cell


def read_names_csv(text: str) -> NamesFile:
    """The names of a CSV file (a header naming id, name and optionally owner and tags, then a
    row per scenario). `ScenarioNamesRefused` names every problem, by line, and nothing of the
    file is kept: a repeated id, an unknown or missing column, a cell that is not an id, an
    empty name, an owner that is not an address."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        raise ScenarioNamesRefused(["The file is empty; it needs a header line id,name."])
    header = [cell.strip().lstrip("\ufeff").lower() for cell in header]  # a BOM on stdin
    unknown = [c for c in header if c not in COLUMNS]
    if unknown:
        listed = ", ".join(f'"{c[:40]}"' for c in unknown[:LINES_NAMED])
        raise ScenarioNamesRefused(
            [
                f"The header names columns this file cannot hold ({listed}); the columns are "
                f"{', '.join(COLUMNS)} (id and name required), in a first line of their own."
            ]
        )
    missing = [c for c in REQUIRED if c not in header]
    repeated = sorted({c for c in header if header.count(c) > 1})
    if missing or repeated:
        said = [f"the header lacks {' and '.join(missing)}"] if missing else []
        said += [f"names {', '.join(repeated)} more than once"] if repeated else []
        raise ScenarioNamesRefused(
            [f"The first line must be a header id,name[,owner][,tags]: {'; it '.join(said)}."]
        )
    where = {name: header.index(name) for name in header}
    names: list[ScenarioName] = []
    problems: dict[str, list[int]] = {}
    own_words: list[str] = []
    first_line: dict[int, int] = {}
    repeats: dict[int, list[int]] = {}
    cut: list[int] = []
    formulas: list[int] = []
    line = 1
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            problems.setdefault("has more cells than the header", []).append(line)
            continue
        cells = {k: live(row[i]) if i < len(row) else "" for k, i in where.items()}
        raw_id = cells["id"].strip()
        if not (raw_id.isascii() and raw_id.isdigit() and 0 < int(raw_id) < 2**63):
            problems.setdefault("has no scenario id (a whole number) in its id column", []).append(
                line
            )
            continue
        scenario_id = int(raw_id)
        if scenario_id in first_line:
            repeats.setdefault(scenario_id, [first_line[scenario_id]]).append(line)
            continue
        first_line[scenario_id] = line
        owner = cells.get("owner", "").strip() or None
        name, row_problems, was_cut = checked(
            scenario_id, cells["name"], owner, parse_tags(cells.get("tags"))
        )
        for problem in row_problems:
            if problem.startswith("the owner") and problem.endswith("like ann@example.com."):
                own_words.append(f"line {line}: {problem}")
                problems.setdefault("has an owner that is not an e-mail address", []).append(line)
            else:
                problems.setdefault(problem.rstrip("."), []).append(line)
        if was_cut:
            cut.append(line)
        if name.name.lstrip().startswith(FORMULA_STARTS):
            formulas.append(line)
        names.append(name)
    said = [
        f"Scenario {sid} is on {_lines(lines)}."
        for sid, lines in list(repeats.items())[:LINES_NAMED]
    ]
    if len(repeats) > LINES_NAMED:
        said.append(f"{len(repeats) - LINES_NAMED:,} more scenarios are given more than once.")
    for problem, lines in problems.items():
        said.append(f"{_lines(lines).capitalize()}: {problem}.")
    said += own_words[:3]
    if said:
        raise ScenarioNamesRefused([*said, "Nothing of the file was written."])
    notes = []
    if cut:
        notes.append(
            f"The names on {_lines(cut)} are longer than {MAX_NAME} characters: each was cut to "
            f"its first {MAX_NAME - 1} and an ellipsis."
        )
    if formulas:
        notes.append(
            f"The names on {_lines(formulas)} begin with =, +, - or @: they are kept as text, "
            "and the export writes them with a leading ' so that a spreadsheet shows them as "
            "text."
        )
    return NamesFile(tuple(names), tuple(notes))


def names_csv(names: pd.DataFrame) -> str:
    """The CSV of a company's names (`SCENARIO_NAME_COLUMNS`), by id, which `read_names_csv`
    reads back as it was: id,name,owner,tags, formula-like cells made inert."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    ordered = names.sort_values("scenario_id", kind="stable")
    for sid, name, owner, tags in zip(
        ordered["scenario_id"].tolist(),
        ordered["name"].tolist(),
        ordered["owner"].tolist(),
        ordered["tags"].tolist(),
        strict=True,
    ):
        writer.writerow(
            [int(sid), inert(str(name)), inert(_text(owner)) or "", inert(_text(tags)) or ""]
        )
    return out.getvalue()


def _text(value: object) -> str | None:
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    return str(value)


# -- the store -------------------------------------------------------------------------------------

NAMES_OF_COMPANY = """
SELECT scenario_id, name, owner_address AS owner, tags, changed_by, changed_at
FROM scenario_names WHERE company_id = :company_id ORDER BY scenario_id
"""

COUNT_STAGED = """
SELECT COUNT(*) - COUNT(n.scenario_id),
       COALESCE(SUM(CASE WHEN n.scenario_id IS NOT NULL
                          AND (n.name IS DISTINCT FROM s.name
                               OR n.owner_address IS DISTINCT FROM s.owner_address
                               OR n.tags IS DISTINCT FROM s.tags)
                    THEN 1 ELSE 0 END), 0)
FROM {staged} AS s
LEFT JOIN scenario_names AS n ON n.company_id = s.company_id AND n.scenario_id = s.scenario_id
"""

UPSERT_STAGED = """
INSERT INTO scenario_names (company_id, scenario_id, name, owner_address, tags, changed_by,
                            changed_at)
SELECT company_id, scenario_id, name, owner_address, tags, changed_by, changed_at FROM {staged}
ON CONFLICT (company_id, scenario_id) DO UPDATE
SET name = excluded.name, owner_address = excluded.owner_address, tags = excluded.tags,
    changed_by = excluded.changed_by, changed_at = excluded.changed_at
WHERE scenario_names.name IS DISTINCT FROM excluded.name
   OR scenario_names.owner_address IS DISTINCT FROM excluded.owner_address
   OR scenario_names.tags IS DISTINCT FROM excluded.tags
"""

COUNT_NAMES = "SELECT COUNT(*) FROM scenario_names WHERE company_id = :company_id"

_STAGED_TYPES = {
    "company_id": "int64",
    "scenario_id": "int64",
    "name": "str",
    "owner_address": "str",
    "tags": "str",
    "changed_by": "str",
    "changed_at": "datetime64[us, UTC]",
}


def _author(by: str | None) -> str:
    author = one_line(by or "")
    if not author:
        raise ScenarioNamesRefused(["Say who you are (a name), so that the change says who."])
    if len(author) > MAX_NAME:
        raise ScenarioNamesRefused([f"The author's name holds at most {MAX_NAME} characters."])
    return author


def _now(now: datetime | None) -> datetime:
    at = now or datetime.now(UTC)
    if at.tzinfo is None:
        raise ValueError("a change's time must be timezone-aware")
    return at.astimezone(UTC)


class ScenarioNameStore(StoreLease):
    """The scenario names' reads and writes (see the module); `HistoryStore` has them."""

    def scenario_names(self, company_id: int) -> pd.DataFrame:
        """The company's named scenarios, by id (`SCENARIO_NAME_COLUMNS`)."""
        with self._lease() as db:
            return db.frame(NAMES_OF_COMPANY, SCENARIO_NAME_COLUMNS, {"company_id": company_id})

    def save_scenario_names(
        self,
        company_id: int,
        names: Sequence[ScenarioName],
        *,
        by: str,
        now: datetime | None = None,
    ) -> SavedNames:
        """Write `names` (checked: `ScenarioNamesRefused` names every problem, and nothing is
        written) in one transaction; a scenario given as stored keeps who changed it and when.
        Scenarios not among `names` are left as they are."""
        author, at = _author(by), _now(now)
        problems: list[str] = []
        seen: set[int] = set()
        for given in names:
            _, found, _ = checked(given.scenario_id, given.name, given.owner, given.tags)
            problems += [f"Scenario {given.scenario_id}: {p}" for p in found]
            if given.scenario_id in seen:
                problems.append(f"Scenario {given.scenario_id} is given more than once.")
            seen.add(given.scenario_id)
        if problems:
            raise ScenarioNamesRefused(problems[: LINES_NAMED * 2])
        rows = [
            {
                "company_id": company_id,
                "scenario_id": n.scenario_id,
                "name": capped(one_line(n.name))[0],
                "owner_address": n.owner,
                "tags": tags_text(n.tags),
                "changed_by": author,
                "changed_at": at,
            }
            for n in names
        ]
        if not rows:
            return SavedNames(0, 0, 0)
        staged = typed_rows(rows, _STAGED_TYPES)
        with self._write() as db, db.staged(staged) as relation:
            counts = db.rows(with_staged(COUNT_STAGED, relation))
            db.execute(with_staged(UPSERT_STAGED, relation))
        added, changed = (int(counts[0][0]), int(counts[0][1])) if counts else (0, 0)
        return SavedNames(added, changed, len(rows) - added - changed)

    def set_scenario_name(
        self,
        company_id: int,
        scenario_id: int,
        *,
        name: str | None = None,
        owner: str | None = None,
        tags: Sequence[str] | None = None,
        by: str,
        now: datetime | None = None,
    ) -> tuple[ScenarioName, bool]:
        """Change one scenario's name, owner or tags (None: as it was; an owner of "" takes
        the owner away); returns it as stored now and whether its name was cut."""
        current = self.scenario_names(company_id)
        row = current[current["scenario_id"] == scenario_id]
        if row.empty and name is None:
            raise ScenarioNamesRefused(
                [f"Scenario {scenario_id} has no name yet: give it one (--name)."]
            )
        was = row.iloc[0] if not row.empty else None
        new_name = name if name is not None else str(was["name"])  # type: ignore[index]
        new_owner = owner if owner is not None else (None if was is None else _text(was["owner"]))
        new_tags = (
            tuple(tags)
            if tags is not None
            else (() if was is None else parse_tags(_text(was["tags"])))
        )
        stored, problems, cut = checked(scenario_id, new_name, new_owner, new_tags)
        if problems:
            raise ScenarioNamesRefused([p[0].upper() + p[1:] for p in problems])
        self.save_scenario_names(company_id, [stored], by=by, now=now)
        return stored, cut

    def scenario_name_count(self, company_id: int) -> int:
        with self._lease() as db:
            return int(db.scalar(COUNT_NAMES, {"company_id": company_id}) or 0)
