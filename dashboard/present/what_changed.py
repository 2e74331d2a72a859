"""What changed between a plan's last green execution and its first red one, in words: who
started each and when, the plan's settings, environment versions ("FIREFOX 129 / Linux, was
128"), and the scenarios that started failing with a new version. A version that is not known
reads "not enough data", never a guess."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics import what_changed as rules
from dashboard.analytics.environment_names import with_version
from dashboard.analytics.what_changed import WhatChanged
from dashboard.present.formatting import plural, weekday_time

NOT_ENOUGH_DATA = "not enough data"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def environment_text(row: pd.Series) -> str:
    """One environment that differs: "FIREFOX 129 / Linux, was 128", "SAFARI 17 / macOS new",
    "IPHONE 8 / iOS gone", "CHROME / Windows 11: version not known (not enough data)"."""
    name = str(row["browser"])
    where = f" / {row['os']}" if _text(row["os"]) else ""
    red = ", ".join(row["red_versions"])
    green = ", ".join(row["green_versions"])
    change = row["change"]
    if change == rules.MOVED:
        return f"{name} {red}{where}, was {green}"
    if change == rules.NEW:
        return f"{name} {red}{where} new".replace("  ", " ")
    if change == rules.GONE:
        return f"{name} {green}{where} gone".replace("  ", " ")
    return f"{name}{where}: version not known ({NOT_ENOUGH_DATA})"


def settings_text(row: pd.Series, tz: str) -> str:
    """The plan's settings between the two executions."""
    setting = row["settings"]
    who = _text(row["plan_updated_by"])
    by = f" by {who}" if who else ""
    if setting == rules.CHANGED:
        return f"plan settings changed {weekday_time(row['plan_updated'], tz)}{by}"
    if setting == rules.UNCHANGED:
        return "plan settings unchanged"
    if setting == rules.CHANGED_SINCE:
        return (
            f"plan settings changed since, {weekday_time(row['plan_updated'], tz)}{by} (between "
            "them: not known)"
        )
    return "plan settings: not known"


def starter_text(row: pd.Series) -> str:
    """ "started by bob (alice before)", "started by alice, as before"."""
    red, green = _text(row["red_user"]), _text(row["green_user"])
    if red is None:
        return "started by: not known"
    if green == red:
        return f"started by {red}, as before"
    return f"started by {red}" + (f" ({green} before)" if green else "")


def pair_summary(found: WhatChanged, green: int, red: int, tz: str) -> str:
    """Everything that changed between one pair, in one line: environments first, then the
    plan's settings, then who started it."""
    pairs = found.pairs
    row = pairs[(pairs["green_execution_id"] == green) & (pairs["red_execution_id"] == red)]
    if row.empty:
        return NOT_ENOUGH_DATA
    pair = row.iloc[0]
    envs = found.environments
    mine = envs[(envs["green_execution_id"] == green) & (envs["red_execution_id"] == red)]
    parts = [environment_text(env) for _, env in mine.iterrows()] or ["same environments"]
    parts += [settings_text(pair, tz), starter_text(pair)]
    return "; ".join(parts)


def pair_sentences(found: WhatChanged, green: int, red: int, tz: str) -> list[str]:
    """The compare page's account of one pair, a sentence per kind of change."""
    pairs = found.pairs
    row = pairs[(pairs["green_execution_id"] == green) & (pairs["red_execution_id"] == red)]
    if row.empty:
        return []
    pair = row.iloc[0]

    def when(column: str) -> str:
        value = pair[column]
        return "at a time not known" if pd.isna(value) else weekday_time(value, tz)

    before_user = _text(pair["green_user"]) or "someone not known"
    after_user = _text(pair["red_user"]) or "someone not known"
    envs = found.environments
    mine = envs[(envs["green_execution_id"] == green) & (envs["red_execution_id"] == red)]
    environments = "; ".join(environment_text(env) for _, env in mine.iterrows())
    settings = settings_text(pair, tz)
    return [
        f"#{red} was started by {after_user} {when('red_start')}; #{green} by {before_user} "
        f"{when('green_start')}.",
        "Environments: " + (environments or "the same on both") + ".",
        settings[0].upper() + settings[1:] + ".",
    ]


def version_move_text(browser: object, version: object, previous: object) -> str:
    """ "started failing with FIREFOX 129; was 128"."""
    return f"started failing with {browser} {version}; was {previous}"


def newly_failing_change(row: pd.Series) -> str:
    """A newly failing scenario's change of environment, or "" when it ran where it passed."""
    if pd.isna(row["version"]) or pd.isna(row["previous_version"]):
        return ""
    return version_move_text(row["browser"], row["version"], row["previous_version"])


def moves_sentences(moves: pd.DataFrame) -> list[str]:
    """ "Started failing with FIREFOX 129; was 128: scenarios 35, 36." per version move."""
    if moves.empty:
        return []
    sentences = []
    keys = ["browser", "version", "previous_version"]
    for (browser, version, previous), group in moves.groupby(keys, sort=True):
        ids = sorted({int(s) for s in group["scenario_id"]})
        noun = plural(len(ids), "scenario").split(" ", 1)[1]
        sentences.append(
            version_move_text(browser, version, previous)[0].upper()
            + version_move_text(browser, version, previous)[1:]
            + f": {noun} {', '.join(str(i) for i in ids)}."
        )
    return sentences


def upgrade_line(count: int) -> str | None:
    """ "2 new failures started with a browser upgrade" (`upgrades.upgrade_count`), or None
    when none did: the line Compare and the standup say."""
    if count <= 0:
        return None
    noun = "new failure" if count == 1 else "new failures"
    return f"{count:,} {noun} started with a browser upgrade"


def upgrade_sentences(upgrades: pd.DataFrame) -> list[str]:
    """ "New failure on CHROME / Windows 10 (130 -> 131): scenarios 1, 2." per environment and
    versions of `upgrades.upgrade_failures`."""
    if upgrades.empty:
        return []
    sentences = []
    keys = ["environment", "before_version", "after_version"]
    for (environment, before, after), group in upgrades.groupby(keys, sort=True):
        ids = sorted({int(s) for s in group["scenario_id"]})
        noun = plural(len(ids), "scenario").split(" ", 1)[1]
        failures = "New failure" if len(group) == 1 else "New failures"
        sentences.append(
            f"{failures} on {with_version(environment, before, after)}: "
            f"{noun} {', '.join(str(i) for i in ids)}."
        )
    return sentences


def pair_caption() -> str:
    """Where the account of a pair comes from."""
    return (
        "From the two executions (who started them, when) and their results (each desktop "
        "browser's versions); the plan's settings from its last change, the only one the service "
        "reports. An environment is its OS and browser, whatever the version: a scenario that "
        "passed on one version of a browser and fails on the next is a new failure there that "
        "started with the browser upgrade."
    )
