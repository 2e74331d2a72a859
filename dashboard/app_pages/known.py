"""Known failures: every mark of the company, with its state, its evidence and its log; closing
one (in one click when it looks fixed), changing one, and the likely outages to confirm or
dismiss."""

import streamlit as st

from dashboard.analytics import marks as mark_analytics
from dashboard.analytics.flaky import DEFAULT_WINDOW
from dashboard.present import known as words
from dashboard.present.formatting import escape_markdown
from dashboard.state import routes
from dashboard.state.params import MARKS
from dashboard.ui import analytics_input, marking, notices
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.tables import table, time_column
from dashboard.ui.zones import viewer_zone

ROUTE = routes.KNOWN
DETAILED = 30
"""Marks listed one by one (with their log and actions) under the table, which holds all."""
TICKET_COLUMN = st.column_config.LinkColumn(display_text=r"https?://[^/]+/(?:[^?#]*/)?([^/?#]+)")

page = open_page(ROUTE, "Known failures", plans="wanted")
connection, state, now, plan_names = page.connection, page.state, page.now, page.plan_names

widgets = page.widgets()
top = st.columns([4, 2], vertical_alignment="bottom")
with top[0]:
    widgets.segmented("Show", MARKS, {f: f.label for f in words.MarkFilter})
with top[1]:
    tz = viewer_zone(widgets, state)
page.settle()
notices.caption(words.NOTHING_CHANGES)

# Evidence ("looks fixed") is read in each plan's last W finished executions, as on Flaky.
loaded = analytics_input.load_window(connection, now=now, window=DEFAULT_WINDOW)
triage = triage_view.triage_of(connection, loaded.executions, now=now, state=state)
ledger = triage.ledger
marking.notice(ledger)
marking.read_only_notice()
marks = ledger.marks
states = mark_analytics.mark_states(marks, now)
evidence = mark_analytics.mark_evidence(marks, loaded.results, now)
keep = words.filter_rows(states, evidence, state.mark_filter).to_numpy()
chosen = marks[keep]

st.header("Marks", divider="gray")
# A closed mark leaves the open ones: what closing it did is said here, not in its block.
marking.flash("known.closed")
notices.caption(words.filter_words(state.mark_filter, len(chosen), len(marks)))
notices.caption(words.evidence_caption(DEFAULT_WINDOW))
table(
    words.marks_display(chosen, states[keep], evidence, plan_names, tz),
    key="known.table",
    file_name="known-failures.csv",
    tz=tz,
    column_config={
        "Ticket": TICKET_COLUMN,
        "Made": time_column(tz),
        "Closed": time_column(tz),
        "Target": st.column_config.TextColumn(width="large"),
    },
)

proof = evidence.set_index("mark_id")
state_of = words.state_by_mark(states)
for position, mark in enumerate(chosen.head(DETAILED).to_dict("records")):
    mark_id = str(mark["mark_id"])
    found = proof.loc[mark_id].to_dict() if mark_id in proof.index else None
    heading = words.mark_heading(mark, str(state_of[mark_id]), plan_names)
    # The target and ticket are the team's text: shown literally, never as markdown.
    with st.expander(escape_markdown(heading)):
        for line in words.mark_lines(mark, found, tz):
            notices.plain(line)
        log = ledger.log[ledger.log["mark_id"] == mark_id]
        table(
            words.log_display(log),
            key=f"known.log.{position}",
            file_name=f"mark-{mark_id}-log.csv",
            tz=tz,
            column_config={"When": time_column(tz)},
        )
        if state_of[mark_id] != mark_analytics.CLOSED:
            left, right = st.columns(2)
            with left:
                fixed = bool(found and found["looks_fixed"])
                marking.close_button(
                    f"known.{position}",
                    mark_id,
                    ledger=ledger,
                    connection=connection,
                    now=now,
                    label="Close: looks fixed" if fixed else "Close",
                    reason=words.looks_fixed_reason(found, tz) if fixed and found else None,
                    said_at="known.closed",
                )
            with right:
                marking.change_form(
                    f"known.{position}", mark, ledger=ledger, connection=connection, now=now
                )
if len(chosen) > DETAILED:
    notices.caption(words.more_marks_caption(len(chosen), DETAILED))

st.header("Likely outages", divider="gray")
pending = words.pending_outages(triage.outages)
notices.caption(words.pending_outages_caption(len(pending)))
marking.mark_form(
    "outages",
    words.execution_choices(pending, plan_names, tz),
    ledger=ledger,
    connection=connection,
    now=now,
    kinds=words.OUTAGE_KINDS,
    label="Confirm or dismiss…",
)
for line in (words.outage_line(row, plan_names, tz) for row in pending.to_dict("records")):
    notices.plain(line)
