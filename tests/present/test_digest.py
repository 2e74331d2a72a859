"""The standup digest as chat Markdown: exact text on a known digest, links, escaping, limits."""

from __future__ import annotations

import pandas as pd

from dashboard.analytics.outages import OUTAGE_COLUMNS
from dashboard.analytics.standup import standup_digest, with_newly_failing
from dashboard.analytics.standup_triage import standup_triage, standup_verdicts
from dashboard.analytics.windows import custom_window, standup_window
from dashboard.columns import marks as columns
from dashboard.columns.marks import MARK_COLUMNS
from dashboard.columns.shapes import typed_rows
from dashboard.present.digest import digest_markdown
from dashboard.present.formatting import escape_chat_markdown as escape
from dashboard.present.formatting import human_duration
from dashboard.present.formatting import weekday_time as when
from tests.analytics.frames import CHROME, DESKTOP, execution, executions, result, results, ts
from tests.analytics.test_standup_triage import mark

NOW = ts("2025-04-07 10:00")


def small_history() -> pd.DataFrame:
    rows = [
        execution(1, 1, "2025-04-03 10:00", "pass", plan="Checkout *smoke*"),
        execution(2, 1, "2025-04-05 10:00", "fail", plan="Checkout *smoke*"),
        execution(3, 2, "2025-04-01 10:00", "pass", plan="Search"),
        execution(4, 2, "2025-04-02 10:00", "fail", plan="Search"),
        execution(5, 2, "2025-04-06 10:00", "fail", plan="Search"),
        execution(6, 2, "2025-04-07 09:00", "running", plan="Search"),
    ]
    for day in range(21, 31):
        rows.append(
            execution(100 + day, 3, f"2025-03-{day} 10:00", plan="Login", runtime_ms=60_000)
        )
    for n, hour in enumerate((10, 12, 14)):
        rows.append(execution(200 + n, 3, f"2025-04-05 {hour}:00", plan="Login", runtime_ms=95_000))
    return executions(rows)


def read_results() -> pd.DataFrame:
    """The results of the executions the small history's digest reads."""
    return results(
        [
            result(1, 7, "SUCCESS", DESKTOP),
            result(2, 7, "FAILURE", DESKTOP),
            result(1, 7, "SUCCESS", CHROME),
            result(2, 7, "ERROR", CHROME),
            result(4, 8, "FAILURE", CHROME, plan_id=2),
            result(5, 8, "FAILURE", CHROME, plan_id=2),
        ]
    )


def link_for(kind: str, ident: int) -> str | None:
    return f"https://dash.example/{kind}s?id={ident}" if kind == "execution" else None


def test_the_digest_reads_one_line_per_item_with_links() -> None:
    digest = standup_digest(small_history(), standup_window(NOW, tz="Europe/Berlin"))
    digest = with_newly_failing(
        digest,
        results(
            [
                result(1, 7, "SUCCESS", DESKTOP),
                result(2, 7, "FAILURE", DESKTOP),
                result(1, 7, "SUCCESS", CHROME),
                result(2, 7, "ERROR", CHROME),
                result(4, 8, "FAILURE", CHROME, plan_id=2),
                result(5, 8, "FAILURE", CHROME, plan_id=2),
            ]
        ),
    )
    text = digest_markdown(digest, link_for=link_for)
    e = "https://dash.example/executions?id="
    assert text == (
        "**Since the last standup** (Fri 4 Apr 09:30 \u2013 Mon 7 Apr 12:00, Europe/Berlin)\n"
        # In the window: 2 and 5 (8 of 10 passed each), 200-202 (10 of 10), 6 running.
        "6 executions (previous window 3), pass rate 92.0 % (\u22121.3 pts against 93.3 %), "
        "1 still running\n"
        "\n**Turned red**\n"
        f"- Checkout \\*smoke\\*: failed in [execution 2]({e}2) at Sat 5 Apr 12:00, "
        f"passed in [execution 1]({e}1)\n"
        "\n**Fixed**\n- _Nothing fixed_\n"
        "\n**Still failing**\n"
        f"- Search: red since Wed 2 Apr 12:00, 2 executions (latest [execution 5]({e}5)); "
        f"[execution 6]({e}6) is still running\n"
        "\n**Newly failing scenarios**\n"
        f"- Checkout \\*smoke\\*: scenario 7 on CHROME / Windows 11, SAFARI / macOS "
        f"([execution 2]({e}2))\n"
        "\n**Slower**\n"
        "- Login: median 1 min 35 s against 1 min 00 s over the 14 days before "
        "(+58 %, 3 executions)\n"
        "\n_Running now, judged on their latest finished execution: "
        f"Search ([execution 6]({e}6))_\n"
    )


def test_empty_sections_say_so() -> None:
    quiet = custom_window(ts("2025-05-01 00:00"), ts("2025-05-02 00:00"))
    text = digest_markdown(standup_digest(executions([]), quiet))
    for line in (
        "- _Nothing turned red_",
        "- _Nothing fixed_",
        "- _Nothing still failing_",
        "- _No newly failing scenarios_",
        "- _Nothing slower_",
    ):
        assert line in text.splitlines()
    assert "0 executions (previous window 0), pass rate \u2013\n" in text
    assert "Running now" not in text


def test_a_limit_collapses_the_rest() -> None:
    rows = []
    for plan in range(1, 8):
        rows.append(execution(plan * 10, plan, "2025-04-03 10:00", "pass"))
        rows.append(execution(plan * 10 + 1, plan, "2025-04-05 10:00", "fail"))
    text = digest_markdown(standup_digest(executions(rows), standup_window(NOW)), limit=5)
    section = text.split("**Turned red**\n")[1].split("\n\n")[0].splitlines()
    assert len(section) == 6
    assert section[-1] == "- and 2 more"


def test_names_cannot_inject_markdown_or_break_links() -> None:
    assert escape("[evil](http://x) `code` <b>") == "\\[evil\\](http://x) \\`code\\` \\<b\\>"
    assert escape("two\nlines") == "two lines"
    rows = [
        execution(1, 1, "2025-04-03 10:00", plan="A"),
        execution(2, 1, "2025-04-05 10:00", "fail", plan="A"),
    ]
    text = digest_markdown(
        standup_digest(executions(rows), standup_window(NOW)),
        link_for=lambda kind, ident: f"https://x.example/a b(c)/{ident}",
    )
    assert "(https://x.example/a%20b%28c%29/2)" in text


def test_small_formatters() -> None:
    assert when(ts("2025-04-07 06:12"), "Europe/Istanbul") == "Mon 7 Apr 09:12"
    assert human_duration(42_400 / 1000) == "42 s"
    assert human_duration(185_000 / 1000) == "3 min 05 s"
    assert human_duration(3_720_000 / 1000) == "1 h 02 min"


def test_known_items_outages_and_expiring_marks_are_one_line_each_after_the_sections() -> None:
    """Checkout turned red only in a known way (scenario 7, marked SHOP-123): it leaves Turned
    red and Newly failing for one Known line linked to its ticket; a night the grid was down is
    one outage line; a mark whose last day is tomorrow is named."""
    digest = with_newly_failing(
        standup_digest(small_history(), standup_window(NOW, tz="Europe/Berlin")), read_results()
    )
    marks = typed_rows(
        [
            mark("SHOP-123", columns.SCENARIO, plan_id=1, scenario_id=7),
            mark(
                "m2",
                columns.FAILURE_GROUP,
                signature="Quota [exceeded](javascript:x)",
                ticket=None,
                expires_on=ts("2025-04-08"),
            ),
        ],
        MARK_COLUMNS,
    )
    night = typed_rows(
        [
            {
                "execution_id": 9,
                "plan_id": 2,
                "plan": "Search",
                "start": ts("2025-04-06 02:00"),
                "verdicts": 40,
                "failed": 38,
                "failed_share": 0.95,
                "state": "likely",
                "signature": "UnreachableBrowser {n}",
                "signature_failures": 30,
            }
        ],
        OUTAGE_COLUMNS,
    )

    unresolved, folded = standup_triage(digest, verdicts(digest, marks), marks, NOW, outages=night)
    text = digest_markdown(unresolved, link_for=link_for, triage=folded, plan_names={2: "Search"})

    assert "\n**Turned red**\n- _Nothing turned red_\n" in text
    assert "\n**Newly failing scenarios**\n- _No newly failing scenarios_\n" in text
    assert "- Search: red since" in text  # not covered: still failing
    folded_part = text.split("**Known**")[1].split("\n\n_Running now")[0]
    assert folded_part == (
        "\n- [Checkout \\*smoke\\*: 1 scenario known \u2014 SHOP-123]"
        "(https://jira.example.com/browse/SHOP-123)\n"
        "\n**Outages (left out of the figures above)**\n"
        "- Search, execution 9 (Sun 6 Apr 04:00): likely outage, 38 of 40 results failed, "
        'most with "UnreachableBrowser {n}"\n'
        "\n**Marks expiring soon**\n"
        '- Known issue (failures "Quota \\[exceeded\\](javascript:x)" in every plan) stops '
        "applying tomorrow: its last day is Tue 8 Apr"
    )


def test_without_marks_the_digest_has_no_folded_sections() -> None:
    digest = with_newly_failing(
        standup_digest(small_history(), standup_window(NOW, tz="Europe/Berlin")), read_results()
    )
    plain = digest_markdown(digest, link_for=link_for)

    none = marks_none()
    unresolved, folded = standup_triage(digest, verdicts(digest, none), none, NOW)

    said = digest_markdown(unresolved, link_for=link_for, triage=folded)
    # Nothing folded; the one change is that each newly failing line says its verdict (#37):
    # scenario 7 of Checkout passed in execution 1 and fails in 2, on both environments.
    newly = said.split("**Newly failing scenarios**\n")[1].split("\n\n")[0].splitlines()
    assert len(newly) == 1
    assert newly[0].endswith(": new")
    assert said.replace(newly[0], newly[0].removesuffix(": new")) == plain


def verdicts(digest: object, marks: pd.DataFrame) -> pd.DataFrame:
    """The one verdict per failed result of the red executions the digest read."""
    judged = [int(i) for i in digest.pairs["after_execution_id"]]  # type: ignore[attr-defined]
    return standup_verdicts(read_results(), small_history(), marks, NOW, judged=judged)


def marks_none() -> pd.DataFrame:
    return typed_rows([], MARK_COLUMNS)
