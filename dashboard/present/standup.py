"""The standup page's sections as display frames: one small table per section, in one order.

Each item links to its evidence (`link_for`, as in `dashboard.present.digest`), and every table
has the same plain-text cells as its CSV. Times are shown in the window's zone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Literal

import pandas as pd

from dashboard.analytics.basis import Basis
from dashboard.analytics.marks import failed_of
from dashboard.analytics.standup import StandupDigest
from dashboard.analytics.standup_triage import StandupTriage
from dashboard.analytics.triage import PRECEDENCE
from dashboard.analytics.what_changed import WhatChanged
from dashboard.analytics.windows import Window
from dashboard.data.fanout_answer import FanOutCounts
from dashboard.present import known
from dashboard.present.captions import describe_basis, describe_results
from dashboard.present.digest import EMPTY_TEXTS, EXPIRED_SECTION, SECTIONS, expired_line
from dashboard.present.formatting import human_duration, plural, visible_frame, weekday_time
from dashboard.present.tables import with_names
from dashboard.present.triage import label_text
from dashboard.present.what_changed import newly_failing_change, pair_summary

LinkFor = Callable[[str, int], "str | None"]
PLAN_EVIDENCE, EXECUTION_EVIDENCE = "plan", "execution"
"""The kinds of evidence `link_for` is asked for: a plan (its executions), an execution (its
results)."""
NEWLY_FAILING = "Newly failing scenarios"
"""The section built on results (the others need executions only)."""

SHOWN_PER_SECTION = 5
"""Items shown per section: five of each fit a 1920x1080 screen without scrolling."""

PRESENTER_LEAVES_OUT: dict[str, tuple[str, ...]] = {
    # The execution that changed the verdict stays; the one before it is a click away (the
    # evidence), and the plans running now are named below the sections.
    "Turned red": ("Passed in", "Now running", "What changed"),
    "Fixed": ("Failed in", "Now running"),
    # The latest execution is the one the evidence link opens.
    "Still failing": ("Latest",),
    # The rule's minimum of executions is in the CSV and the normal view.
    "Slower": ("Executions",),
    # A version move is a sentence, and the rules' category (a column only when a rule gives
    # one) a word the room can do without: the normal view and the CSV hold both.
    "Newly failing scenarios": ("What changed", "Category"),
}
"""Columns presenter mode leaves out, by section: in its large type a third of a 1920 px screen
holds four or five columns, and a column cut off at the right reads as missing data."""

SPARED_LAST: dict[str, tuple[str, ...]] = {
    "Turned red": ("Passed in",),
    "Fixed": ("Failed in",),
    "Still failing": ("Executions",),
    "Slower": ("Median, ", "Executions"),
    # A version move is a sentence: the scenario, its environment and message come first.
    "Newly failing scenarios": ("What changed",),
}
"""Columns (or the start of their names) the normal view puts at a section's right end, a
scroll away on a narrow screen: the execution before a change, the baseline and the counts are
a click away (the evidence); the columns a lead needs come first (`present.key_columns`)."""


@dataclass(frozen=True)
class Section:
    """One section: its title, its rows (all of them), and what to say when it is empty."""

    title: str
    rows: pd.DataFrame
    empty_text: str
    computed: bool = True  # False: its data (results) could not be loaded

    @property
    def shown(self) -> pd.DataFrame:
        return self.rows.head(SHOWN_PER_SECTION)

    @property
    def more(self) -> int:
        return max(0, len(self.rows) - SHOWN_PER_SECTION)


def _plan_name(plan: object, plan_id: object) -> str:
    return plan if isinstance(plan, str) and plan else f"Plan {int(plan_id)}"  # type: ignore[call-overload]


WEEK_OF_DAYS = pd.Timedelta(days=6)
"""An execution this close before the window's end is named by its weekday alone."""


def _run(execution_id: object, start: object, window: Window) -> str:
    """ "#1003, Wed 10:00": an execution and when it started, the date left out within the
    last six days of the window (the weekday says it; a section's column stays narrow)."""
    moment = pd.Timestamp(start)
    if window.end - moment <= WEEK_OF_DAYS:
        local = moment.tz_convert(window.tz)
        when = f"{weekday_time(moment, window.tz).split()[0]} {local:%H:%M}"
    else:
        when = weekday_time(moment, window.tz)
    return f"#{execution_id}, {when}"


def _running_note(running_id: object) -> str:
    return "" if pd.isna(running_id) else f"#{int(running_id)} running"  # type: ignore[call-overload]


def sections(
    digest: StandupDigest,
    link_for: LinkFor,
    scenario_link: Callable[[int, int], str] | None = None,
    changes: WhatChanged | None = None,
    verdicts: pd.DataFrame | None = None,
    names: pd.DataFrame | None = None,
) -> list[Section]:
    """The five sections in their fixed order (`digest.SECTIONS`). With `scenario_link`
    ((plan id, scenario id) -> its history page), newly failing scenarios link to theirs; with
    `changes` (`what_changed` of the plans that turned red: the one before beside the one that
    failed), each of them says what changed; with `verdicts` (`analytics.triage`'s, of the
    newly failing executions), each newly failing scenario says its verdict; with `names` (the
    company's scenario names, `SCENARIO_NAME_COLUMNS`), its name (`Name`, after the
    history link as on the other pages, so the key columns keep their place)."""
    window = digest.window
    tz = window.tz

    def change_rows(frame: pd.DataFrame, now_word: str, before_word: str) -> pd.DataFrame:
        rows = pd.DataFrame(
            {
                "Plan": [_plan_name(r.plan, r.plan_id) for r in frame.itertuples()],
                now_word: [_run(r.execution_id, r.start, window) for r in frame.itertuples()],
                before_word: [
                    _run(r.previous_execution_id, r.previous_start, window)
                    for r in frame.itertuples()
                ],
                "Now running": [_running_note(r.running_execution_id) for r in frame.itertuples()],
                "Evidence": [
                    link_for(EXECUTION_EVIDENCE, int(r.execution_id)) for r in frame.itertuples()
                ],
            },
            dtype=object,
        )
        if now_word == "Failed in":  # turned red: what changed since the one before
            rows["What changed"] = [
                ""
                if changes is None
                else pair_summary(changes, int(r.previous_execution_id), int(r.execution_id), tz)
                for r in frame.itertuples()
            ]
        return rows

    red = digest.still_failing
    still = pd.DataFrame(
        {
            "Plan": [_plan_name(r.plan, r.plan_id) for r in red.itertuples()],
            "Red since": [
                ("at least " if r.red_since_is_bound else "") + weekday_time(r.red_since, tz)
                for r in red.itertuples()
            ],
            "Executions": [int(r.red_executions) for r in red.itertuples()],
            "Latest": [_run(r.execution_id, r.start, window) for r in red.itertuples()],
            "Evidence": [
                link_for(EXECUTION_EVIDENCE, int(r.execution_id)) for r in red.itertuples()
            ],
        },
        dtype=object,
    )
    slow = digest.slower
    slower = pd.DataFrame(
        {
            "Plan": [_plan_name(r.plan, r.plan_id) for r in slow.itertuples()],
            "Median now": [human_duration(r.window_median_ms / 1000) for r in slow.itertuples()],
            f"Median, {digest.baseline_days} days before": [
                human_duration(r.baseline_median_ms / 1000) for r in slow.itertuples()
            ],
            "Slower by": [f"+{r.change * 100:.0f} %" for r in slow.itertuples()],
            "Executions": [int(r.window_executions) for r in slow.itertuples()],
            "Evidence": [link_for(PLAN_EVIDENCE, int(r.plan_id)) for r in slow.itertuples()],
        },
        dtype=object,
    )
    newly = digest.newly_failing
    newly_rows = pd.DataFrame(
        {
            "Plan": [_plan_name(r.plan, r.plan_id) for r in newly.itertuples()],
            "Scenario": [int(r.scenario_id) for r in newly.itertuples()],
            "Environment": list(newly["environment"]),
            **({"Verdict": newly_verdicts(newly, verdicts)} if verdicts is not None else {}),
            "Message": [m if isinstance(m, str) else "" for m in newly["message"]],
            "What changed": [newly_failing_change(row) for _, row in newly.iterrows()],
            "Evidence": [
                link_for(EXECUTION_EVIDENCE, int(r.execution_id)) for r in newly.itertuples()
            ],
        }
        if newly is not None
        else {
            "Plan": [],
            "Scenario": [],
            "Environment": [],
            "Message": [],
            "What changed": [],
            "Evidence": [],
        },
        dtype=object,
    )
    if scenario_link is not None:
        newly_rows["History"] = (
            [
                None if pd.isna(r.plan_id) else scenario_link(int(r.plan_id), int(r.scenario_id))
                for r in newly.itertuples()
            ]
            if newly is not None
            else []
        )
    # After the history link, as on the other pages: the key columns keep their place.
    newly_rows = with_names(newly_rows, names, after="History")
    frames = {
        "Turned red": change_rows(digest.turned_red, "Failed in", "Passed in"),
        "Fixed": change_rows(digest.fixed, "Passed in", "Failed in"),
        "Still failing": still,
        "Newly failing scenarios": newly_rows,
        "Slower": slower,
    }
    return [
        Section(
            title,
            visible_frame(frames[title]).reset_index(drop=True),
            EMPTY_TEXTS[title],
            # Not computed only when results were needed: with no pair to compare, nothing
            # can be newly failing (every plan passed, or nothing had a verdict).
            computed=not (title == NEWLY_FAILING and newly is None and len(digest.pairs)),
        )
        for title in SECTIONS
    ]


def newly_verdicts(newly: pd.DataFrame, verdicts: pd.DataFrame) -> list[str]:
    """Each newly failing scenario's verdict (`present.triage.label_text`), the one its failed
    result was given (by result id; else its execution, scenario and environment's, the first
    in precedence); a dash where none was judged."""
    ranked = verdicts.assign(
        _rank=verdicts["label"].map({label: i for i, label in enumerate(PRECEDENCE)})
    ).sort_values("_rank", kind="stable")
    by_result = {
        int(r): str(label)
        for r, label in zip(ranked["result_id"], ranked["label"], strict=True)
        if not pd.isna(r)
    }
    by_cell: dict[tuple[int, int, str], str] = {}
    for e, s, env, label in zip(
        ranked["execution_id"],
        ranked["scenario_id"],
        ranked["environment"],
        ranked["label"],
        strict=True,
    ):
        if not pd.isna(s):
            by_cell.setdefault((int(e), int(s), str(env)), str(label))
    out = []
    for row in newly.itertuples():
        label = None
        if not pd.isna(row.result_id):
            label = by_result.get(int(row.result_id))
        if label is None and not pd.isna(row.scenario_id):
            label = by_cell.get((int(row.execution_id), int(row.scenario_id), str(row.environment)))
        out.append(label_text(label))
    return out


def column_order(section: Section, *, present: bool = False) -> list[str]:
    """The section's columns as the page shows them: the plan and its evidence link first (in
    view however narrow the column), then the rest, what `SPARED_LAST` names at the right end;
    in presenter mode without the columns `PRESENTER_LEAVES_OUT` names."""
    columns = list(section.rows.columns)
    if present:
        columns = [c for c in columns if c not in PRESENTER_LEAVES_OUT.get(section.title, ())]
    spared = [
        c for c in columns if any(c.startswith(s) for s in SPARED_LAST.get(section.title, ()))
    ]
    return [
        *(c for c in ("Plan", "Evidence") if c in columns),
        *(c for c in columns if c not in ("Plan", "Evidence") and c not in spared),
        *spared,
    ]


def items_csv_frame(
    all_sections: list[Section],
    *,
    folded: StandupTriage | None = None,
    plan_names: Mapping[int, str] | None = None,
    tz: str = "UTC",
    scenario_names: Mapping[int, str] | None = None,
) -> pd.DataFrame:
    """Every item of every section in one table (the page's CSV): section, plan, what, link;
    then what marks and outages folded away, one line each (`folded`)."""
    rows = []
    for section in all_sections:
        for record in section.rows.to_dict("records"):
            details = "; ".join(
                f"{key}: {value}"
                for key, value in record.items()
                if key not in ("Plan", "Evidence", "History") and value not in ("", None)
            )
            rows.append(
                {
                    "Section": section.title,
                    "Plan": record.get("Plan", ""),
                    "Details": details,
                    "Link": record.get("Evidence") or "",
                }
            )
    if folded is not None:
        for title, line, link in folded_items(folded, plan_names or {}, tz, scenario_names):
            rows.append({"Section": title, "Plan": "", "Details": line, "Link": link})
    return pd.DataFrame(rows, columns=["Section", "Plan", "Details", "Link"])


KNOWN_SECTION, OUTAGES_SECTION, EXPIRING_SECTION = "Known", "Outages", "Marks expiring soon"


def folded_items(
    folded: StandupTriage,
    plan_names: Mapping[int, str],
    tz: str,
    scenario_names: Mapping[int, str] | None = None,
) -> list[tuple[str, str, str]]:
    """(section, line, ticket link) for each mark that covers something, each outage and each
    mark expiring soon: one line each, the known ones collapsed to their mark (a scenario's
    mark by its name when `scenario_names` has one)."""
    items = [
        (
            KNOWN_SECTION,
            known.known_line(row),
            row["ticket"] if isinstance(row["ticket"], str) else "",
        )
        for row in folded.known.to_dict("records")
    ]
    items += [
        (OUTAGES_SECTION, known.outage_line(row, plan_names, tz), "")
        for row in folded.outages.to_dict("records")
    ]
    items += [
        (EXPIRING_SECTION, known.expiring_line(row, plan_names, scenario_names), "")
        for row in folded.expiring.to_dict("records")
    ]
    items += [
        (EXPIRED_SECTION, expired_line(row, plan_names, scenario_names), "")
        for row in folded.expired.to_dict("records")
    ]
    return items


def folded_title(folded: StandupTriage) -> str:
    """The one line the folded items sit under: "Known: 2 marks, 5 scenarios · Outages: 1 ·
    Expiring soon: 1" (each part only when it has something)."""
    parts = []
    if len(folded.known):
        scenarios = int(folded.known["scenarios"].sum())
        parts.append(f"Known: {plural(len(folded.known), 'mark')}, {plural(scenarios, 'scenario')}")
    if len(folded.outages):
        parts.append(f"Outages: {len(folded.outages)}")
    if len(folded.expiring):
        parts.append(f"Marks expiring soon: {len(folded.expiring)}")
    if len(folded.expired):
        parts.append(f"Marks expired: {len(folded.expired)}")
    return " \u00b7 ".join(parts) if parts else "Known failures and outages: none"


def folded_lines(
    folded: StandupTriage,
    plan_names: Mapping[int, str],
    tz: str,
    scenario_names: Mapping[int, str] | None = None,
) -> list[str]:
    """The folded items as the page shows them: "Known: Login suite: 3 scenarios known - SHOP-1"."""
    items = folded_items(folded, plan_names, tz, scenario_names)
    return [f"{section}: {line}" for section, line, _ in items]


def folded_caption(folded: StandupTriage) -> str:
    """What the sections leave out, and why."""
    outages = (
        "Outages are left out of the sections and the pass rate (Include outages counts them)"
        if folded.outages_left_out
        else "Outages are counted in the sections and the pass rate"
    )
    return (
        "Turned red, Still failing and Newly failing list what is unresolved: a plan whose "
        "latest execution failed only in ways a mark covers, and a newly failing scenario a "
        f"mark covers, are one line per mark here. {outages}."
    )


def standup_choices(
    digest: StandupDigest,
    results: pd.DataFrame | None,
    plan_names: Mapping[int, str],
    scenario_names: Mapping[int, str] | None = None,
) -> list[known.Choice]:
    """What the standup's "Mark as known…" offers: the newly failing scenarios (on their
    environment, and anywhere), then every other failure of the plans' latest executions
    whose results were read, and their failure groups."""
    cells: list[tuple[int, int, str | None]] = []
    newly = digest.newly_failing
    if newly is not None:
        cells += [
            (int(p), int(s), str(e))
            for p, s, e in zip(
                newly["plan_id"], newly["scenario_id"], newly["environment"], strict=True
            )
            if not pd.isna(p)
        ]
    signatures: list[str] = []
    if results is not None and len(digest.pairs):
        latest = set(digest.pairs["after_execution_id"].astype("int64"))
        failed = failed_of(results[results["execution_id"].isin(latest)])
        cells += [
            (int(p), int(s), str(e))
            for p, s, e in zip(
                failed["plan_id"], failed["scenario_id"], failed["environment"], strict=True
            )
            if not pd.isna(p) and not pd.isna(s)
        ]
        signatures = list(dict.fromkeys(failed["signature"]))
    return known.scenario_choices(cells, plan_names, scenario_names) + known.group_choices(
        signatures, plan_id=None, plan_names=plan_names
    )


def window_caption(window: Window, basis: Basis, *, today: date, scope: str) -> str:
    """ "From Mon 17 Nov 09:30 to Tue 18 Nov 09:30 (Europe/Istanbul). From 42 executions ...":
    the window, what the sections were computed from, and how a plan is judged."""
    start, end = window.local_start(), window.local_end()
    return (
        f"From {start:%a %d %b %H:%M} to {end:%a %d %b %H:%M} ({window.tz}). "
        + describe_basis(basis, today=today, scope=scope)
        + ". A plan is judged on its latest finished execution; a running one is not a verdict."
    )


@dataclass(frozen=True)
class RateChange:
    """The pass rate's change as `st.metric` shows it: its text, and whether it is coloured and
    has an arrow (not for a change that rounds to nothing: "+0.0 pts" in green read as better)."""

    text: str | None
    delta_color: Literal["normal", "off"] = "normal"
    delta_arrow: Literal["auto", "off"] = "auto"


def rate_change(delta: float | None) -> RateChange:
    """The pass rate's change against the previous window, in points: "+2.5 pts"; "0.0 pts",
    plain, when it rounds to nothing; no text without a previous rate."""
    if delta is None:
        return RateChange(None)
    points = round(delta * 100, 1)
    if points == 0:
        return RateChange("0.0 pts", delta_color="off", delta_arrow="off")
    return RateChange(f"{points:+.1f} pts")


def fetched_caption(fetched: FanOutCounts) -> str:
    """Whose results the newly failing section had."""
    return "Built on the " + describe_results(fetched) + "."


def running_caption(digest: StandupDigest) -> str | None:
    """The plans running now (judged on their latest finished execution); None when none is."""
    if not len(digest.running):
        return None
    return "Running now, judged on their latest finished execution: " + ", ".join(
        str(name) for name in digest.running["plan"]
    )
