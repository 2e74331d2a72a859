"""Display frames: the tables as a viewer reads them, with their column labels.

A page shows one of these and offers the very same frame as CSV (`dashboard.present.csv`), so
the download is exactly what the table shows.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import pandas as pd

from dashboard.analytics.scenario_names import names_by_id, owners_by_id
from dashboard.analytics.verdicts import is_failing, ordered_statuses
from dashboard.columns.cells import EN_DASH
from dashboard.present.colors import status_label
from dashboard.present.csv import to_csv, with_numbers, with_seconds
from dashboard.present.formatting import human_duration, in_zone, visible_frame

TABLE_ROW_LIMIT = 2_000
"""Most rows a long table sends to the browser (the newest first); its CSV holds every row.
70,000 rows are 12 MB to send at every rerun, and nobody scrolls them: the filters narrow."""


class PreparedTable:
    """A display table made safe to show (`visible_frame`), and its CSV made once, when first
    asked for. Built once per input (`cache.built`), so a rerun that changed nothing neither
    cleans 70,000 rows again nor writes their CSV (the download button asks for it on click).

    `make(rows)` builds the display frame of the first `rows` rows (None: every row); with
    `shown_rows`, only those are built for the page, and the whole table only for the CSV.
    """

    def __init__(
        self,
        make: Callable[[int | None], pd.DataFrame],
        *,
        rows: int,
        shown_rows: int | None = None,
        tz: str = "UTC",
    ) -> None:
        self._make = make
        self.rows = rows  # how many rows the whole table has
        self.tz = tz  # times are shown, and written in the CSV, in this zone
        shown = None if shown_rows is None or shown_rows >= rows else shown_rows
        # Names from the service cannot reorder or hide text, on the page or in the file.
        self.display = visible_frame(in_zone(make(shown), tz))
        self._csv: dict[tuple[tuple[str, ...], str | None], bytes] = {}
        self._lock = threading.Lock()

    @classmethod
    def of(cls, display: pd.DataFrame, *, tz: str = "UTC") -> PreparedTable:
        return cls(
            lambda rows: display if rows is None else display.head(rows),
            rows=len(display),
            tz=tz,
        )

    def __len__(self) -> int:
        return self.rows

    def csv(self, *, links: tuple[str, ...] = (), base_url: str | None = None) -> bytes:
        """The CSV of every row, its `links` columns absolute against `base_url` (`to_csv`);
        made once for each address asked."""
        key = (links, base_url)
        with self._lock:
            if key not in self._csv:
                whole = self.display if len(self.display) == self.rows else None
                if whole is None:
                    whole = visible_frame(in_zone(self._make(None), self.tz))
                self._csv[key] = to_csv(whole, tz=self.tz, links=links, base_url=base_url)
            return self._csv[key]


PLAN_NOW_LABELS = {
    "fail": "\u2716 failing",
    "pass": "\u2714 passing",
}
MINUS = "\u2212"
NO_FINISHED_LABEL = "\u2013 no finished run"
NO_VERDICT_LABEL = "\u2013 no verdict"  # finished, but no result passed or failed (all STOPPED...)


def plan_now_labels(outcomes: pd.Series, finished: pd.Series, running: pd.Series) -> list[str]:
    """Where each plan stands, in words: its latest outcome, else whether it finished anything
    (an execution whose statuses are all unknown or stopped finished without a verdict)."""
    return [
        PLAN_NOW_LABELS.get(str(o), NO_VERDICT_LABEL if f else NO_FINISHED_LABEL)
        + (" (one running)" if r else "")
        for o, f, r in zip(outcomes, finished.fillna(0) > 0, running, strict=True)
    ]


def plans_display(plans: pd.DataFrame, states: pd.DataFrame | None = None) -> pd.DataFrame:
    """The plans table as shown (and downloaded). With `states` (`analytics.plan_state`), each
    plan leads with where it stands: its latest finished outcome, when, and since when."""
    where: dict[str, object] = {}
    if states is not None:
        by_plan = states.set_index("plan_id")
        ids = plans["plan_id"]

        def column(name: str) -> pd.Series:
            return (
                ids.map(by_plan[name]) if not by_plan.empty else pd.Series(pd.NA, index=ids.index)
            )

        finished = column("executions") - column("running")
        where = {
            "Now": plan_now_labels(
                column("latest_outcome"), finished, column("running_execution_id").notna()
            ),
            "Latest finished": column("latest_start"),
            "Same since": column("streak_since"),
            "Executions since": column("streak").astype("Int64"),
        }
    return pd.DataFrame(
        {
            "Id": plans["plan_id"],
            "Plan": plans["plan"],
            **where,
            "Type": plans["type"],
            "Project": plans["project"],
            "Scenarios": plans["scenarios"],
            "Enabled": plans["enabled"],
            "Parallel limit": plans["parallel_limit"],
            "Retries": plans["retries"],
            "Alerts": plans["alerts"],
            "Created": plans["created"],
            "Created by": plans["created_by"],
            "Updated": plans["updated"],
            "Updated by": plans["updated_by"],
        }
    ).reset_index(drop=True)


def executions_display(
    executions: pd.DataFrame,
    status_counts: pd.DataFrame,
    *,
    outages: Mapping[int, str] | None = None,
) -> pd.DataFrame:
    """The executions table as shown: its status (a running one says so, and an outage of
    `outages`, execution id -> "likely outage" or "outage", says which), one count column per
    status present, pass rate in %."""
    flagged = outages or {}
    # A column for every status of the counts given, but only these executions' counts
    # pivoted: the page shows the newest 2,000 rows of a window of 70,000.
    statuses = ordered_statuses(status_counts["status"].unique())
    shown = status_counts[status_counts["execution_id"].isin(executions["execution_id"])]
    counts = shown.pivot_table(
        index="execution_id", columns="status", values="count", aggfunc="sum", fill_value=0
    ).reindex(columns=statuses, fill_value=0)
    display = pd.DataFrame(
        {
            "Id": executions["execution_id"],
            "Status": [
                status_label(status)
                + ("" if finished else " (running)")
                + (f" ({flagged[int(ident)]})" if int(ident) in flagged else "")
                for status, finished, ident in zip(
                    executions["status"],
                    executions["finished"],
                    executions["execution_id"],
                    strict=True,
                )
            ],
            "Start": executions["start"],
            "End": executions["end"],
            "Plan": executions["plan"],
            "Project": executions["project"],
            "User": executions["user"],
            "Duration": executions["runtime_ms"].map(
                lambda ms: human_duration(None if pd.isna(ms) else ms / 1000)
            ),
        }
    )
    for status in statuses:
        display[status] = (
            executions["execution_id"].map(counts[status]).fillna(0).astype("int64").to_numpy()
        )
    display["Pass rate"] = (executions["pass_rate"] * 100).round(1)
    display = display.reset_index(drop=True)
    return with_seconds(display, {"Duration": (executions["runtime_ms"] / 1000).to_numpy()})


def results_display(
    results: pd.DataFrame, scenario_link: Callable[[int], str] | None = None
) -> pd.DataFrame:
    """The results table as shown: failed results first, then by scenario; what a QA lead reads
    first (level, message, logs) on the left. The inert log-path column appears only if needed.
    With `scenario_link` (scenario id -> its history page), a column after the message links
    each row's scenario to its history."""
    failing_first = results.assign(
        _failing=~results["level"].fillna("").map(is_failing).astype("bool")
    ).sort_values(["_failing", "scenario_id"], kind="stable", na_position="last")
    ordered = failing_first.drop(columns="_failing")
    display = pd.DataFrame(
        {
            "Scenario": ordered["scenario_id"],
            "Level": ordered["level"],
            "Message": ordered["message"],
            "Node log": ordered["node_log"],
            "Executor log": ordered["executor_log"],
            "Runtime": ordered["runtime_s"].map(
                lambda s: human_duration(None if pd.isna(s) else float(s))
            ),
            "OS": ordered["os"],
            "Browser": ordered["browser"],
            "Version": ordered["browser_version"],
            "Device": ordered["device"],
            "Mobile": ordered["mobile"],
            "Resolution": ordered["resolution"],
            "Screenshots": ordered["screenshots"],
            "Video": ordered["video"],
        }
    )
    if ordered["unlinked_logs"].notna().any():
        display["Log paths (not web links)"] = ordered["unlinked_logs"]
    if scenario_link is not None:
        # Beside the message, in view on a laptop (`present.key_columns`).
        display.insert(
            display.columns.get_loc("Message") + 1,
            "History",
            [None if pd.isna(s) else scenario_link(int(s)) for s in ordered["scenario_id"]],
        )
    display = display.reset_index(drop=True)
    return with_seconds(display, {"Runtime": ordered["runtime_s"].to_numpy()})


def signed_percent(change: float | None) -> str:
    """ "+98 %", "\u221212 %"; "0 %" when it rounds to nothing; a dash when unknown."""
    if change is None or pd.isna(change):
        return EN_DASH
    points = round(change * 100)
    if points == 0:
        return "0 %"
    return f"{'+' if points > 0 else MINUS}{abs(points)} %"


def health_display(health: pd.DataFrame, *, now: pd.Timestamp) -> pd.DataFrame:
    """The plan health table (`analytics.health.HEALTH_COLUMNS`) as shown: rates in %, the
    daily pass rate as a list for a sparkline, durations and the runtime trend in words (the
    CSV holds their numbers: seconds, and the trend in signed percent). What a lead scans first
    (where it stands, its rate, its runtime and trend) comes first, in view on a laptop
    (`present.key_columns`)."""

    def rate(column: str) -> pd.Series:
        return (health[column] * 100).round(1)

    display = pd.DataFrame(
        {
            "Id": health["plan_id"],
            "Plan": health["plan"],
            "Now": plan_now_labels(
                health["latest_outcome"],
                health["finished_long"],
                health["running_execution_id"].notna(),
            ),
            "Pass rate 7 d": rate("pass_rate_short"),
            # Days with a verdict only: the browser's sparkline draws no line through a gap
            # (a list holding None shows as text with an error mark).
            "Daily pass rate, 30 d": [
                [round(float(v) * 100, 1) for v in values if not pd.isna(v)]
                for values in health["daily_pass_rate"]
            ],
            "Median runtime 3 d": [
                human_duration(None if pd.isna(ms) else ms / 1000)
                for ms in health["median_runtime_ms_recent"]
            ],
            "Runtime trend": [signed_percent(t) for t in health["runtime_trend"]],
            "Since fully green": [
                human_duration(None if pd.isna(d) else d.total_seconds())
                for d in health["since_fully_green"]
            ],
            "Latest finished": health["latest_start"],
            "Pass rate 30 d": rate("pass_rate_long"),
            "Project": health["project"],
            "Executions 30 d": health["executions_long"],
        }
    ).reset_index(drop=True)
    with_numbers(
        display,
        {"Runtime trend": [None if pd.isna(t) else round(t * 100) for t in health.runtime_trend]},
        unit="%",
    )
    return with_seconds(
        display,
        {
            "Since fully green": [
                None if pd.isna(d) else d.total_seconds() for d in health["since_fully_green"]
            ],
            "Median runtime 3 d": (health["median_runtime_ms_recent"] / 1000).to_numpy(),
        },
    )


@dataclass(frozen=True)
class ResultMessage:
    """One result's whole message, for the detail below the results table."""

    heading: str  # "Scenario 12 · FAILURE · Windows 11 CHROME 134" (service text: shown plain)
    message: str  # as the service sent it; empty when it sent none
    # The result's web log links, (what, address): real links beside the message, reached with
    # the keyboard, where the table's link cells are drawn on a canvas.
    logs: tuple[tuple[str, str], ...] = ()


LOG_COLUMNS = ("Node log", "Executor log")
"""The log-link columns of `results_display`, in the order the detail offers them."""


def health_with_known(
    display: pd.DataFrame, plan_ids: pd.Series, figures: pd.DataFrame
) -> pd.DataFrame:
    """The plan health table with what is known told apart (`known_figures.plan_known_figures`):
    each pass rate "without known failures" (the 7 days' after the columns a lead scans first,
    which stay in view on a laptop, `present.key_columns`; the 30 days' beside its rate), and
    the 30 days' failed results split into Unresolved and Known."""
    known = figures.reindex(pd.Index(plan_ids.astype("int64")))
    out = display.copy()
    for days, name, after in ((7, "short", "Since fully green"), (30, "long", "Pass rate 30 d")):
        rate = (known[f"pass_rate_{name}_without_known"].to_numpy(dtype="float64") * 100).round(1)
        out.insert(out.columns.get_loc(after) + 1, f"{days} d without known", rate)
    failed = known["failed_long"].fillna(0).astype("int64").to_numpy()
    known_long = known["known_long"].fillna(0).astype("int64").to_numpy()
    out["Unresolved 30 d"] = failed - known_long
    out["Known 30 d"] = known_long
    return out


def result_message(display: pd.DataFrame, position: int | None) -> ResultMessage | None:
    """The message of the row at `position` of `results_display`'s frame (None: no row)."""
    if position is None or not 0 <= position < len(display):
        return None
    row = display.iloc[position]
    parts = [f"Scenario {row['Scenario']}", row["Level"], row["OS"], row["Browser"], row["Version"]]
    heading = " \u00b7 ".join(str(p) for p in parts if p is not None and not pd.isna(p))
    message = row["Message"]
    logs = tuple(
        (column, str(row[column]))
        for column in LOG_COLUMNS
        if column in row.index and isinstance(row[column], str) and row[column]
    )
    return ResultMessage(heading, "" if message is None or pd.isna(message) else str(message), logs)


# -- scenario names and owners beside a table's scenario ids (#38) ----------------------------

NAME_COLUMN = "Name"
"""A scenario's name, beside its id (empty for an unnamed scenario, whose id says "Scenario N")."""
OWNER_COLUMN = "Scenario owner"
"""A scenario's owner's address (empty when nobody owns it); not a mark's owner."""


def with_names(
    display: pd.DataFrame,
    names: pd.DataFrame | None,
    *,
    scenario: str = "Scenario",
    after: str | None = None,
    owners: bool = False,
) -> pd.DataFrame:
    """`display` with a `NAME_COLUMN` (and with `owners`, an `OWNER_COLUMN`) read from the
    company's `names` (`SCENARIO_NAME_COLUMNS`; None: none) by the ids of its `scenario`
    column, placed after the column `after` (None, or not a column: at the end). Names are
    text: the table shows them as such, and the CSV escapes one that looks like a formula.
    Nothing changes without names."""
    if names is None or names.empty or scenario not in display.columns:
        return display
    ids = pd.to_numeric(display[scenario], errors="coerce")
    added = {NAME_COLUMN: _by_id(ids, names_by_id(names))}
    if owners:
        added[OWNER_COLUMN] = _by_id(ids, owners_by_id(names))
    out = display.copy()
    place = list(out.columns).index(after) + 1 if after in out.columns else len(out.columns)
    for offset, (column, values) in enumerate(added.items()):
        out.insert(place + offset, column, values)
    return out


def _by_id(ids: pd.Series, mapping: Mapping[int, str]) -> list[str]:
    return ["" if pd.isna(i) else str(mapping.get(int(i), "") or "") for i in ids]


def owned_by(scenario_ids: pd.Series, names: pd.DataFrame | None, address: str) -> pd.Series:
    """Whether each of `scenario_ids` is owned by `address` (case-insensitive), as "only mine"
    keeps rows; no names: none is."""
    if names is None or names.empty:
        return pd.Series(False, index=scenario_ids.index, dtype="bool")
    wanted = address.strip().lower()
    mine = {i for i, owner in owners_by_id(names).items() if str(owner).lower() == wanted}
    ids = pd.to_numeric(scenario_ids, errors="coerce")
    return pd.Series(
        [not pd.isna(i) and int(i) in mine for i in ids], index=scenario_ids.index, dtype="bool"
    )
