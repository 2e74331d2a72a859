"""The standup's one view (`present.standup_view`) on hand-built frames with known answers, and
the rule that the page and the chat digest both read it (neither computes a standup of its own).

The small history (tests/present/test_digest.py), in the standup window Fri 4 Apr 09:30 - Mon 7
Apr 12:00 (Europe/Berlin): Checkout *smoke* (plan 1) turned red in execution 2 (passed in 1),
scenario 7 newly failing there on two environments; Search (plan 2) still failing since 4,
latest 5, its newest execution 6 running; Login (plan 3) slower, +58 %.
"""

from __future__ import annotations

import ast
from datetime import UTC, date, datetime
from pathlib import Path

import pandas as pd

from api_client import ApiClient
from dashboard.analytics.windows import standup_window
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import typed_rows
from dashboard.data import live, results_fanout
from dashboard.data.fanout_answer import FanOut, FanOutCounts
from dashboard.data.pairs import result_pairs
from dashboard.present.digest import digest_markdown
from dashboard.present.standup_view import (
    SHOWN_PER_SECTION,
    StandupNeeds,
    StandupView,
    execution_places,
    plan_names_of,
    standup_needs,
    standup_view,
)
from dashboard.state.params import DateRange, ViewState
from dashboard.state.query import standup_query
from dashboard.state.query import standup_window as standup_window_of
from tests.analytics.frames import execution, executions, ts
from tests.analytics.test_standup_triage import mark
from tests.dashboard import standup_history as history
from tests.present.test_digest import NOW, link_for, read_results, small_history

REPO = Path(__file__).resolve().parents[2]
WINDOW = standup_window(NOW, tz="Europe/Berlin")
NAMES = {1: "Checkout *smoke*", 2: "Search", 3: "Login", 4: "Grid nightly"}
TITLES = ["Turned red", "Fixed", "Still failing", "Newly failing scenarios", "Slower"]


def no_marks() -> pd.DataFrame:
    return typed_rows([], MARK_COLUMNS)


def fanout(results: pd.DataFrame, executions_read: int = 4) -> FanOut:
    counts = FanOutCounts(
        pairs=len(results),
        from_store=0,
        fetched=len(results),
        stored=len(results),
        failed=0,
        executions=executions_read,
        executions_complete=executions_read,
        executions_running=0,
        executions_incomplete=0,
    )
    return FanOut(results=results, counts=counts)


def view_of(
    history: pd.DataFrame | None = None,
    marks: pd.DataFrame | None = None,
    *,
    results: FanOut | None = None,
    include_outages: bool = False,
) -> tuple[StandupNeeds, StandupView]:
    needs = standup_needs(
        small_history() if history is None else history,
        no_marks() if marks is None else marks,
        window=WINDOW,
        now=NOW.to_pydatetime(),
        include_outages=include_outages,
    )
    view = standup_view(
        needs,
        results,
        link_for=link_for,
        plan_names=NAMES,
        scenario_link=lambda plan, scenario: f"scenario?plan={plan}&scenario={scenario}",
        scope="of project Web",
    )
    return needs, view


def by_title(view: StandupView) -> dict[str, pd.DataFrame]:
    return {s.title: s.section.rows for s in view.sections}


# -- step 1: whose results ----------------------------------------------------------------------


def test_the_needs_name_the_two_executions_of_each_plan_that_failed_in_the_window() -> None:
    needs, _ = view_of()

    # Checkout failed in 2 (after 1), Search in 5 (after 4): both pairs are compared.
    assert needs.results_needed == (1, 2, 4, 5)
    assert needs.window == WINDOW
    assert needs.outages.empty


def test_a_quiet_window_needs_no_results() -> None:
    quiet = executions([execution(1, 1, "2025-04-05 10:00", "pass", plan="A")])

    needs, view = view_of(quiet)

    assert needs.results_needed == ()
    # Nothing was compared, so nothing can be newly failing: said as empty, not "not computed".
    newly = next(s for s in view.sections if s.title == "Newly failing scenarios")
    assert newly.note == ("No newly failing scenarios", "info")


# -- step 2: what is shown ----------------------------------------------------------------------


def test_the_sections_figures_and_captions_of_the_small_history() -> None:
    _, view = view_of(results=fanout(read_results()))

    assert [s.title for s in view.sections] == TITLES
    rows = by_title(view)
    assert rows["Turned red"]["Plan"].tolist() == ["Checkout *smoke*"]
    assert rows["Turned red"]["Evidence"].tolist() == ["https://dash.example/executions?id=2"]
    assert rows["Still failing"][["Plan", "Executions"]].values.tolist() == [["Search", 2]]
    assert rows["Slower"]["Slower by"].tolist() == ["+58 %"]
    newly = rows["Newly failing scenarios"]
    assert newly["Scenario"].tolist() == [7, 7]
    assert newly["History"].tolist() == ["scenario?plan=1&scenario=7"] * 2
    assert rows["Fixed"].empty

    notes = {s.title: s.note for s in view.sections}
    assert notes == {
        "Turned red": None,
        "Fixed": ("Nothing fixed", "info"),
        "Still failing": None,
        "Newly failing scenarios": None,
        "Slower": None,
    }
    captions = {s.title: s.caption for s in view.sections}
    assert captions["Newly failing scenarios"] == "Built on the results of 4 of 4 executions."
    assert [c for t, c in captions.items() if t != "Newly failing scenarios"] == [None] * 4

    assert [(m.label, m.value, m.delta) for m in view.metrics] == [
        ("Executions", "6", None),
        ("Pass rate", "92.0 %", "-1.3 pts"),
        ("Previous window", "3 executions", None),
    ]
    assert view.window_caption.startswith(
        "From Fri 04 Apr 09:30 to Mon 07 Apr 12:00 (Europe/Berlin). "
    )
    assert " of project Web" in view.window_caption
    assert view.running_caption == (
        "Running now, judged on their latest finished execution: Search"
    )


def test_each_section_keeps_its_table_key_and_the_columns_of_each_mode() -> None:
    _, view = view_of(results=fanout(read_results()))
    turned = view.sections[0]

    assert turned.key == "qa-table-standup-turned-red"
    assert turned.columns[:2] == ["Plan", "Evidence"]
    assert turned.columns[-1] == "Passed in"
    assert turned.presenter_columns == ["Plan", "Evidence", "Failed in"]
    assert turned.more.empty


def test_results_that_could_not_be_read_leave_newly_failing_not_computed() -> None:
    _, view = view_of(results=None)

    newly = next(s for s in view.sections if s.title == "Newly failing scenarios")
    assert newly.note == ("The results could not be loaded.", "warning")
    assert newly.caption is None
    # The sections that need executions only are all there.
    assert by_title(view)["Turned red"]["Plan"].tolist() == ["Checkout *smoke*"]


def test_more_than_five_items_show_five_and_keep_the_rest_behind_and_n_more() -> None:
    rows = []
    for plan in range(1, 9):  # eight plans that passed, then failed in the window
        rows.append(execution(plan * 10, plan, "2025-04-04 10:00", "pass", plan=f"P{plan}"))
        rows.append(execution(plan * 10 + 1, plan, "2025-04-07 08:00", "fail", plan=f"P{plan}"))

    _, view = view_of(executions(rows))

    turned = view.sections[0]
    assert len(turned.section.shown) == SHOWN_PER_SECTION == 5
    assert turned.section.more == 3
    assert turned.more["Plan"].tolist() == ["P6", "P7", "P8"]
    assert len(view.items[view.items["Section"] == "Turned red"]) == 8


def test_the_csv_lists_every_item_then_what_was_folded() -> None:
    _, view = view_of(results=fanout(read_results()))

    assert list(view.items.columns) == ["Section", "Plan", "Details", "Link"]
    assert view.items["Section"].tolist() == [
        "Turned red",
        "Still failing",
        "Newly failing scenarios",
        "Newly failing scenarios",
        "Slower",
    ]


# -- marks and outages --------------------------------------------------------------------------


def test_a_mark_folds_the_plan_it_covers_into_one_known_line() -> None:
    marks = typed_rows([mark("SHOP-123", columns.SCENARIO, plan_id=1, scenario_id=7)], MARK_COLUMNS)

    _, view = view_of(marks=marks, results=fanout(read_results()))

    rows = by_title(view)
    assert rows["Turned red"].empty
    assert rows["Newly failing scenarios"].empty
    assert rows["Still failing"]["Plan"].tolist() == ["Search"]  # not covered
    assert view.folded_title == "Known: 1 mark, 1 scenario"
    assert view.folded_lines == ("Known: Checkout *smoke*: 1 scenario known \u2014 SHOP-123",)
    known = view.items[view.items["Section"] == "Known"]
    assert known[["Details", "Link"]].values.tolist() == [
        [
            "Checkout *smoke*: 1 scenario known \u2014 SHOP-123",
            "https://jira.example.com/browse/SHOP-123",
        ]
    ]
    assert "**Known**" in view.chat(link_for)


def test_without_marks_nothing_is_folded_and_every_failure_can_be_marked() -> None:
    _, view = view_of(results=fanout(read_results()))

    assert view.folded.empty
    assert view.folded_title == "Known failures and outages: none"
    assert view.folded_lines == ()
    labels = [choice.label for choice in view.mark_choices]
    assert any(label.startswith("Scenario 7 of Checkout *smoke* on ") for label in labels)
    assert any("Search" in label for label in labels)
    assert view.outage_choices == ()


def with_an_outage() -> pd.DataFrame:
    """The small history and a night the grid was down: Grid nightly (plan 4) passed on Friday,
    then every result of its Sunday night run failed (a likely outage)."""
    return pd.concat(
        [
            small_history(),
            executions(
                [
                    execution(40, 4, "2025-04-04 12:00", "pass", plan="Grid nightly"),
                    execution(41, 4, "2025-04-06 02:00", "fail", failed=10, plan="Grid nightly"),
                ]
            ),
        ],
        ignore_index=True,
    )


def test_an_outage_is_one_line_and_left_out_of_the_sections_unless_included() -> None:
    needs, view = view_of(with_an_outage(), results=fanout(read_results()))

    assert needs.outages["execution_id"].tolist() == [41]
    assert "Grid nightly" not in set(view.items["Plan"])
    assert view.folded_title == "Outages: 1"
    assert view.folded_lines[0].startswith("Outages: Grid nightly, execution 41 (")
    assert view.folded_caption.endswith(
        "Outages are left out of the sections and the pass rate (Include outages counts them)."
    )
    assert [c.label for c in view.outage_choices] != []  # a likely outage to confirm or dismiss
    assert view.metrics[0].value == "7"  # 40 counts; 41 is left out

    _, counted = view_of(with_an_outage(), results=None, include_outages=True)

    assert by_title(counted)["Turned red"]["Plan"].tolist() == ["Grid nightly", "Checkout *smoke*"]
    assert counted.folded_title == "Outages: 1"
    assert counted.folded_caption.endswith("Outages are counted in the sections and the pass rate.")
    assert counted.metrics[0].value == "8"


# -- the hand-built history (tests/dashboard/standup_history.py), loaded as a face loads it -------


def history_view() -> StandupView:
    """The standup of Tue 3 - Wed 4 March 2026 (UTC) over the hand-built history, its results
    fetched as the chat digest fetches them (no store)."""
    state = ViewState(
        date_range=DateRange.CUSTOM,
        date_from=date.fromisoformat(history.WINDOW_FROM),
        date_to=date.fromisoformat(history.WINDOW_TO),
        tz="UTC",
    )
    now = datetime(2026, 3, 5, 9, 0, tzinfo=UTC)
    window = standup_window_of(state, now, tz="UTC")
    with (
        history.serve_history() as service,
        ApiClient(base_url=service.base_url, token="any", company_id=7) as client,
    ):
        loaded = live.load_executions(client, standup_query(state, window))
        needs = standup_needs(loaded.executions, no_marks(), window=window, now=now)
        plans = live.load_plans(client, active_only=False).plans
        pairs, finished = result_pairs(loaded.executions, plans, needs.results_needed)
        read = results_fanout.fetch_results(client, pairs, finished=finished)
    return standup_view(
        needs,
        read,
        link_for=lambda kind, ident: f"{kind}:{ident}",
        plan_names=history.PLANS,
        plans=plans,
    )


def test_the_hand_built_history_reads_exactly_its_cases() -> None:
    """Moved from the page's AppTest (tests/dashboard/test_page_standup.py), which keeps what the
    page wires: each section's plans and links, the figures, the running plans."""
    items = history_view().items
    section = dict(list(items.groupby("Section", sort=False)))

    assert section["Turned red"]["Details"].tolist() == [
        "Failed in: #1003, Wed 10:00; Passed in: #1002, Tue 10:00; What changed: "
        "same environments; plan settings changed since, Sun 1 Nov 07:00 by grace (between "
        "them: not known); started by ada, as before"
    ]
    assert section["Fixed"]["Details"].tolist() == [
        "Passed in: #1013, Wed 11:00; Failed in: #1012, Sun 11:00"
    ]
    assert section["Still failing"]["Details"].tolist() == [
        "Red since: Wed 25 Feb 06:00; Executions: 3; Latest: #1023, Tue 06:00"
    ]
    newly = section["Newly failing scenarios"]["Details"].iloc[0]
    assert newly.startswith("Scenario: 1; Environment: ")
    assert "Chrome" in newly or "CHROME" in newly
    assert "Slower by: +100 %" in section["Slower"]["Details"].iloc[0]


# -- the chat digest: the same view, formatted --------------------------------------------------


def test_the_chat_is_the_digest_of_the_view_and_a_limit_collapses_the_rest() -> None:
    _, view = view_of(results=fanout(read_results()))

    text = view.chat(link_for)

    assert text == digest_markdown(
        view.digest, link_for=link_for, triage=view.folded, plan_names=NAMES
    )
    assert text.startswith(
        "**Since the last standup** (Fri 4 Apr 09:30 \u2013 Mon 7 Apr 12:00, Europe/Berlin)\n"
    )
    assert "- Checkout \\*smoke\\*: scenario 7 on CHROME / Windows 11, SAFARI / macOS" in text

    rows = []
    for plan in range(1, 8):
        rows.append(execution(plan * 10, plan, "2025-04-03 10:00", "pass"))
        rows.append(execution(plan * 10 + 1, plan, "2025-04-05 10:00", "fail"))
    _, many = view_of(executions(rows))
    section = many.chat(link_for, limit=SHOWN_PER_SECTION).split("**Turned red**\n")[1]
    assert section.split("\n\n")[0].splitlines()[-1] == "- and 2 more"


def test_what_a_face_needs_to_link_and_name_comes_from_the_executions() -> None:
    frame = executions(
        [
            execution(1, 1, "2025-04-03 10:00", plan="Checkout"),
            execution(2, None, "2025-04-04 10:00"),
        ]
    )

    assert execution_places(frame) == {
        1: (1, ts("2025-04-03 10:00").to_pydatetime()),
        2: (None, ts("2025-04-04 10:00").to_pydatetime()),
    }
    assert plan_names_of(frame) == {1: "Checkout"}


# -- one view, many faces ----------------------------------------------------------------------


def imported(path: Path) -> set[str]:
    """Every module `path` imports, function-level imports included."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_page_and_the_chat_digest_read_the_same_view_and_compute_no_standup() -> None:
    for face in ("dashboard/app_pages/standup.py", "dashboard/cli/digest.py"):
        modules = imported(REPO / face)
        assert "dashboard.present.standup_view" in modules, face
        assert not {m for m in modules if m.startswith("dashboard.analytics.standup")}, face
        assert "dashboard.present.digest" not in modules, face  # the view formats itself


def test_five_items_a_section_is_defined_once() -> None:
    defined = [
        path.relative_to(REPO).as_posix()
        for path in sorted((REPO / "dashboard").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(
            isinstance(target, ast.Name) and target.id == "SHOWN_PER_SECTION"
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
    ]
    assert defined == ["dashboard/present/standup.py"]
