"""Execution results: one execution's header, and the results of every scenario of its plan."""

import streamlit as st

from api_client import ApiError
from dashboard.analytics import contradictions
from dashboard.analytics import marks as mark_analytics
from dashboard.analytics import plans as plan_analytics
from dashboard.analytics import results as result_analytics
from dashboard.analytics.marks import failed_of
from dashboard.analytics.verdicts import execution_finished
from dashboard.data import cache
from dashboard.present import help_texts, results_charts, tables
from dashboard.present import known as known_words
from dashboard.present import results as words
from dashboard.present.captions import describe_results_source
from dashboard.present.formatting import human_duration, percent
from dashboard.present.messages import describe_failures
from dashboard.present.notes import (
    describe_skipped,
    execution_not_found,
    header_contradiction_notes,
    results_contradiction_notes,
)
from dashboard.state import links, routes
from dashboard.state.query import execution_query
from dashboard.ui import marking, notices, url_filters, viewer, zones
from dashboard.ui import triage as triage_view
from dashboard.ui.charts import chart
from dashboard.ui.page import open_page
from dashboard.ui.tables import ident_column, link_column, table, wide_text_column

ROUTE = routes.RESULTS

page = open_page(ROUTE, lambda view: words.page_title(view.execution))
connection, state, now = page.connection, page.state, page.now
tz = zones.sidebar_zone(ROUTE, state)
page.settle()
execution_id = state.execution
if execution_id is None:
    st.info("No execution is selected. Pick one in the executions table.")
    url_filters.page_link(
        routes.EXECUTIONS, None, label="Go to executions", icon=":material/arrow_back:"
    )
    st.stop()
url_filters.page_link(
    routes.EXECUTIONS,
    state.with_changes(execution=None, execution_start=None),
    label="Back to executions",
    icon=":material/arrow_back:",
)

# -- the execution (the API has no "get one execution": see live.find_execution) ------------
try:
    listed = execution_query(state, now=now, email=viewer.only_mine_email(connection), tz=tz)
    found = cache.find_execution(
        connection,
        execution_id,
        listed=listed,
        started=state.execution_start,
        plan_id=state.plan,
    )
except ApiError as error:
    notices.show_error(error, part=f"execution {execution_id}", source=connection.source)
    st.stop()
if found.header is None:
    notices.show_notes([execution_not_found(found, listed)], severity="warning")
    st.stop()
header = found.header
# The address bar now holds when the execution started, so a copy of it finds the execution
# directly, whatever its filters select by the time it is opened.
url_filters.write_url(state.with_changes(execution_start=header.start), ROUTE)

# -- header -----------------------------------------------------------------------------------
notices.plain(words.header_line(header, tz))
columns = st.columns(4)
notices.show_notes(header_contradiction_notes(header, now=now))
columns[0].metric(
    "Duration", human_duration(contradictions.possible_runtime(header.runtime_s)), border=True
)
columns[1].metric("Results", f"{header.results:,}", border=True)
columns[2].metric("Failed", f"{header.failed:,}", border=True)
columns[3].metric(
    "Pass rate", percent(header.pass_rate), help=help_texts.RATE_OF_RESULTS, border=True
)
if header.summary:
    notices.caption(words.summary_caption(header))

# -- results of every scenario of the plan -----------------------------------------------------
try:
    plans = cache.plans(connection, active_only=False).plans
except ApiError as error:
    notices.show_error(error, part="the plan's scenario list, so the results cannot be listed")
    st.stop()
plan_id = header.plan_id
scenarios = plan_analytics.plan_scenarios(plans, plan_id) if plan_id is not None else None
if not scenarios:
    notices.show_notes(
        [
            "The plan of this execution lists no scenarios (or is no longer visible), so there are "
            "no results to show."
        ],
        severity="info",
    )
    st.stop()
finished = execution_finished(header.end, dict(header.summary))
try:
    # A finished execution's results come from the history store once fetched (even after a
    # restart); a running one's are fetched afresh and never stored.
    data = cache.execution_results(
        connection, execution_id=execution_id, scenario_ids=tuple(scenarios), finished=finished
    )
except ApiError as error:
    notices.show_error(error, part=f"the results of execution {execution_id}")
    st.stop()

# Each failure names its scenario; the others' results are shown below as usual.
notices.show_messages(
    describe_failures(
        ((failure.scenario_id, failure.error) for failure in data.failures),
        source=connection.source,
    ),
    severity="warning",
)
notices.show_notes([describe_skipped((s.reason for s in data.skipped), "result") or ""])
results = data.results
if results.empty:
    st.info("The service returned no results for this execution's scenarios.")
    st.stop()
complete = not data.failures and not data.skipped
notices.show_notes(results_contradiction_notes(header, results, complete=complete, now=now))
results = contradictions.without_impossible_runtimes(results, "runtime_s")

slice_text = words.slice_text(len(results), scenarios=data.scenarios, failed=len(data.failures))
st.header("Results", divider="gray")
notices.caption(
    words.table_caption(slice_text, describe_results_source(data.counts, finished=finished), tz)
)
shown = tables.results_display(
    results, scenario_link=lambda scenario: links.scenario_link(plan_id or 0, scenario)
)
selected = table(
    shown,
    key="results.table",
    selectable=True,
    file_name=f"execution-{execution_id}-results.csv",
    tz=tz,
    column_config={
        "Scenario": ident_column(),
        "Message": wide_text_column(),
        "Node log": link_column("node log"),
        "Executor log": link_column("executor log"),
        "History": link_column("history"),
    },
)
notices.full_message(tables.result_message(shown, selected), key="results.message")

# What the team knows about this execution's failures, and marking one from here.
triage = triage_view.triage_of(connection, None, now=now, state=state)
failed = failed_of(results)
if not failed.empty:
    known = int(mark_analytics.known_per_execution(results, triage.marks).sum())
    notices.caption(known_words.known_caption(known, len(failed)))
    marking.mark_failures(
        "results",
        failed,
        {plan_id: header.plan} if plan_id is not None else {},
        ledger=triage.ledger,
        connection=connection,
        now=now,
        signatures=failed["signature"],
        plan_id=plan_id,
    )

left, right = st.columns([1, 2])
with left:
    st.header("Levels", divider="gray")
    notices.caption(slice_text)
    chart(
        results_charts.level_chart(result_analytics.level_breakdown(results)),
        key="levels",
        file_name=f"execution-{execution_id}-levels.csv",
    )
with right:
    st.header("Environments", divider="gray")
    notices.caption(words.environments_caption(slice_text))
    chart(
        results_charts.environment_matrix_chart(result_analytics.environment_matrix(results)),
        key="environments",
        file_name=f"execution-{execution_id}-environments.csv",
    )
