"""Known failures: every mark of the company, with its state, its evidence and its log; closing
one (in one click when it looks fixed), changing one, and the likely outages to confirm or
dismiss."""

import streamlit as st

from dashboard.data import cache_names
from dashboard.present import known as words
from dashboard.present.formatting import escape_markdown
from dashboard.present.known_view import EVIDENCE_WINDOW, known_view
from dashboard.state import routes
from dashboard.state.params import MARKS
from dashboard.ui import analytics_input, marking, notices, table_views
from dashboard.ui import triage as triage_view
from dashboard.ui.page import open_page
from dashboard.ui.zones import viewer_zone

ROUTE = routes.KNOWN

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

loaded = analytics_input.load_window(connection, now=now, window=EVIDENCE_WINDOW)
triage = triage_view.triage_of(connection, loaded.executions, now=now, state=state)
ledger = triage.ledger
marking.notice(ledger)
marking.read_only_notice()
outages = triage_view.named_outages(connection, triage.outages, loaded.executions, loaded.results)
view = known_view(
    ledger.marks,
    ledger.log,
    loaded.results,
    outages,
    now=now,
    tz=tz,
    mark_filter=state.mark_filter,
    plan_names=plan_names,
    names=cache_names.names(connection),
)

st.header("Marks", divider="gray")
# A closed mark leaves the open ones: what closing it did is said here, not in its block.
marking.flash("known.closed")
notices.caption(view.filter_caption)
notices.caption(view.evidence_caption)
table_views.show(view.table)

for position, detail in enumerate(view.details):
    # The target and ticket are the team's text: shown literally, never as markdown. Keyed by
    # the mark, so a rerun that adds a line above (a fetch's caption) keeps it open.
    with st.expander(escape_markdown(detail.heading), key=f"known.mark.{detail.mark_id}"):
        for line in detail.lines:
            notices.plain(line)
        table_views.show(detail.log)
        if detail.open:
            left, right = st.columns(2)
            with left:
                marking.close_button(
                    f"known.{position}",
                    detail.mark_id,
                    ledger=ledger,
                    connection=connection,
                    now=now,
                    label=detail.close_label,
                    reason=detail.close_reason,
                    said_at="known.closed",
                )
            with right:
                marking.change_form(
                    f"known.{position}", detail.mark, ledger=ledger, connection=connection, now=now
                )
notices.caption(view.more_caption)

st.header("Likely outages", divider="gray")
notices.caption(view.outages_caption)
marking.mark_form(
    "outages",
    view.outage_choices,
    ledger=ledger,
    connection=connection,
    now=now,
    kinds=words.OUTAGE_KINDS,
    label="Confirm or dismiss…",
)
for line in view.outage_lines:
    notices.plain(line)
