"""One name and one key per test environment, used by every analytic and page.

An environment is (OS, browser, browser version) on desktop and (OS, device) on mobile, since a
phone's browser is part of the device. The label reads the way testers say it:
"SAFARI 17 / macOS", "IPHONE 8 / iOS". The key is the same parts joined unambiguously, stable
across executions (the service's `environment_id` is not promised to be), so it is what
analytics group on; the label is for people.
"""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.frames import require_columns

ENVIRONMENT_COLUMNS = ("os", "browser", "browser_version", "device", "mobile")
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
    """ "SAFARI 17 / macOS" on desktop, "IPHONE 8 / iOS" on mobile; missing parts are left out
    (a desktop result without a browser falls back to its device), and an environment with
    nothing known is "(unknown environment)"."""
    os_, br, ver, dev = _text(os), _text(browser), _text(browser_version), _text(device)
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
    """A stable key for grouping: kind, OS, then browser and version, or device."""
    os_, br, ver, dev = _text(os), _text(browser), _text(browser_version), _text(device)
    if _is_mobile(mobile, br, dev):
        return _SEP.join(("mobile", os_, dev or br))
    if not br:
        return _SEP.join(("desktop", os_, dev, ver)) if (os_ or dev or ver) else "unknown"
    return _SEP.join(("desktop", os_, br, ver))


def with_environments(results: pd.DataFrame) -> pd.DataFrame:
    """`results` plus `env_key` and `environment` (label) columns.

    The two are computed once per distinct environment, not per row, so this stays cheap on
    a million results."""
    require_columns(results, ENVIRONMENT_COLUMNS, "environments")
    out = results.copy()
    if results.empty:
        out["env_key"] = pd.Series(dtype="str")
        out["environment"] = pd.Series(dtype="str")
        return out
    codes = results.groupby(list(ENVIRONMENT_COLUMNS), dropna=False, sort=False).ngroup()
    first_rows = codes.drop_duplicates()
    combos = results.loc[first_rows.index, list(ENVIRONMENT_COLUMNS)]
    keys = {}
    labels = {}
    for code, row in zip(first_rows.to_numpy(), combos.itertuples(index=False), strict=True):
        keys[code] = environment_key(*row)
        labels[code] = environment_label(*row)
    code_values = codes.to_numpy()
    key_table = pd.Series(keys).sort_index()
    label_table = pd.Series(labels).sort_index()
    out["env_key"] = pd.Series(key_table.to_numpy()[code_values], index=results.index, dtype="str")
    out["environment"] = pd.Series(
        label_table.to_numpy()[code_values], index=results.index, dtype="str"
    )
    return out
