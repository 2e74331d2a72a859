"""One name and one key per test environment, used by every analytic and page.

An environment is (OS, browser) on desktop and (OS, device) on mobile, since a phone's browser
is part of the device. The browser's version is not part of it: it is an attribute of each run,
shown beside the name ("CHROME / Windows 10 (131)", "(130 -> 131)" where it moved), so a
browser upgrade is the same environment on a new version, not a new environment (#38). The
label reads the way testers say it: "SAFARI / macOS", "IPHONE 8 / iOS". The key is the same
parts joined unambiguously, stable across executions (the service's `environment_id` is not
promised to be), so it is what analytics group on; the label is for people.

Labels made before #38 carried the version ("SAFARI 17 / macOS"); a mark naming one still
names the environment, whatever its version (`label_names`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dashboard.columns.schemas import ENVIRONMENT
from dashboard.columns.shapes import require_columns

ENVIRONMENT_COLUMNS = tuple(ENVIRONMENT)
UNKNOWN_ENVIRONMENT = "(unknown environment)"
_SEP = "\x1f"  # a key separator no name from the service contains in practice


def _text(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    return " ".join(str(value).split())


def _is_mobile(mobile: object, browser: str, device: str) -> bool:
    if mobile is True or mobile is False:
        return bool(mobile)
    if mobile is not None and mobile is not pd.NA and not isinstance(mobile, float):
        return bool(mobile)
    # The flag is missing: a device with no browser is a phone.
    return bool(device) and not browser


def environment_label(
    os: object, browser: object, browser_version: object, device: object, mobile: object
) -> str:
    """ "SAFARI / macOS" on desktop, "IPHONE 8 / iOS" on mobile: the environment's identity,
    without the browser version (`versioned_label` has it). Missing parts are left out (a
    desktop result without a browser falls back to its device), and an environment with nothing
    known is "(unknown environment)"."""
    del browser_version  # an attribute of the run, not of the environment
    return _label(_text(os), _text(browser), "", _text(device), mobile)


def versioned_label(
    os: object, browser: object, browser_version: object, device: object, mobile: object
) -> str:
    """The label with the desktop browser's version in it, as labels were before #38:
    "SAFARI 17 / macOS" ("IPHONE 8 / iOS" on mobile, where the device is the browser)."""
    return _label(_text(os), _text(browser), _text(browser_version), _text(device), mobile)


def _label(os_: str, br: str, ver: str, dev: str, mobile: object) -> str:
    if _is_mobile(mobile, br, dev):
        head = dev or br
    else:
        head = " ".join(part for part in (br or dev, ver) if part)
    if head and os_:
        return f"{head} / {os_}"
    return head or os_ or UNKNOWN_ENVIRONMENT


def environment_key(
    os: object, browser: object, browser_version: object, device: object, mobile: object
) -> str:
    """A stable key for grouping: kind, OS, then browser or device; never the version."""
    del browser_version
    os_, br, dev = _text(os), _text(browser), _text(device)
    if _is_mobile(mobile, br, dev):
        return _SEP.join(("mobile", os_, dev or br))
    if not br:
        return _SEP.join(("desktop", os_, dev)) if (os_ or dev) else "unknown"
    return _SEP.join(("desktop", os_, br))


def version_text(before: object, after: object = None) -> str:
    """The version beside an environment's name: "(131)", "(130 -> 131)" where it moved
    (`before` is the earlier one), "" when neither is known. One side known reads as that one."""
    old, new = _text(before), _text(after)
    if old and new and old != new:
        return f"({old} -> {new})"
    return f"({new or old})" if (new or old) else ""


def with_version(label: object, before: object, after: object = None) -> str:
    """ "CHROME / Windows 10 (130 -> 131)": a label and its version (`version_text`)."""
    version = version_text(before, after)
    return f"{label} {version}" if version else str(label)


def label_names(
    label: object,
    os: object,
    browser: object,
    browser_version: object,
    device: object,
    mobile: object,
) -> bool:
    """Whether `label` (a mark's environment, say) names this environment: its label, or a
    label made before #38 with any version of its desktop browser in it ("CHROME 130 /
    Windows 10" names CHROME / Windows 10 on 131 too: the mark was about the environment, and
    an upgrade does not make it another one)."""
    del browser_version
    text = _text(label)
    os_, br, dev = _text(os), _text(browser), _text(device)
    if text == _label(os_, br, "", dev, mobile):
        return True
    if _is_mobile(mobile, br, dev) or not (br or dev):
        return False
    head = text
    if os_:
        tail = f" / {os_}"
        if not text.endswith(tail):
            return False
        head = text[: -len(tail)]
    name = br or dev
    version = head[len(name) + 1 :] if head.startswith(name + " ") else ""
    return bool(version) and "/" not in version


_FEW_ROWS = 64
"""Up to this many rows, `with_environments` names each row's environment by itself."""


def with_environments(results: pd.DataFrame) -> pd.DataFrame:
    """`results` plus `env_key` and `environment` (label) columns, as categoricals.

    Both are computed once per distinct environment, not per row, and stay categorical (small
    integer codes) so that sorting and picking among a million rows stays cheap; outputs of
    the analytics turn them into plain strings."""
    require_columns(results, ENVIRONMENT_COLUMNS, "environments")
    if len(results) <= _FEW_ROWS:
        # A handful of rows (a standup's latest failures): a groupby's fixed cost (~3 ms) is
        # more than naming each row's environment outright.
        rows = list(zip(*(results[c].tolist() for c in ENVIRONMENT_COLUMNS), strict=True))
        keys = [environment_key(*row) for row in rows]
        labels = [environment_label(*row) for row in rows]
        positions = np.arange(len(rows), dtype=np.intp)
    else:
        codes = results.groupby(list(ENVIRONMENT_COLUMNS), dropna=False, sort=False).ngroup()
        first_rows = codes.drop_duplicates().sort_values()
        combos = results.loc[first_rows.index, list(ENVIRONMENT_COLUMNS)]
        keys = [environment_key(*row) for row in combos.itertuples(index=False)]
        labels = [environment_label(*row) for row in combos.itertuples(index=False)]
        positions = codes.to_numpy()
    return results.assign(
        env_key=_spread(keys, positions, results.index),
        environment=_spread(labels, positions, results.index),
    )


def _spread(values: list[str], positions: np.ndarray, index: pd.Index) -> pd.Series:
    """`values[positions]` as a categorical column (categories sorted)."""
    categories = sorted(set(values))
    lookup = {value: i for i, value in enumerate(categories)}
    table = np.array([lookup[v] for v in values], dtype=np.int32)
    codes = table[positions] if len(positions) else np.array([], dtype=np.int32)
    return pd.Series(
        pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype="str")),
        index=index,
    )
