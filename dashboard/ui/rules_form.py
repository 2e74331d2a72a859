"""The Group rules page's controls: the team's rules read from the history store, the form that
writes one (previewed before it is saved), and removing one.

Who may write or remove a rule is the marks' rule (`viewer.mark_rights`), asked when the form
is drawn and again when it is used: on a dashboard that serves a team, only a signed-in viewer
(one of `markers`, when listed), and the rule says the address they signed in with; on one
person's own dashboard, a name typed once in this browser session (the marks' own). Anyone
else previews rules and reads them, with one sentence saying why they cannot save.

A rule is saved only once its preview, on the page's failures, was shown for exactly what the
form holds: "Save rule" on a changed form shows the new preview first. A refusal (an invalid or
catastrophic pattern, say) is said in the store's sentences beside the form, which keeps what
was typed; so is a store that cannot take the rule now.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import pandas as pd
import streamlit as st

from dashboard.analytics.scenario_names import names_by_id
from dashboard.data import cache_connection, cache_history, cache_names
from dashboard.data.connection import Connection
from dashboard.data.signin import MarkRights
from dashboard.data.store.errors import StoreBusyError, StoreError
from dashboard.data.store.group_rules import CATEGORY, MAX_LABEL, MAX_PATTERN, RuleRefused
from dashboard.data.store.history import HistoryStore
from dashboard.data.store.marks import MAX_NAME
from dashboard.data.store.types import GROUP_RULE_COLUMNS
from dashboard.present import known as known_words
from dashboard.present import rules_view as words
from dashboard.present.rules_view import RuleInput, RulePreviewView
from dashboard.ui import analytics_input, notices, table_views, viewer
from dashboard.ui.marking import NAME_KEY

_LOG = logging.getLogger(__name__)
FORM_KEY = "rules.form"
_PREVIEWED_KEY = "rules.previewed"
"""session_state: the form's input whose preview was last shown."""
_FLASH_KEY = "rules.flash"
NOT_SAVED = "Nothing was saved: {reason} What you typed is kept: save again in a moment."
EVERY_PLAN = 0


@dataclass(frozen=True, eq=False)
class RulesRead:
    """The company's rules as the page has them (every one, removed too), whether they can be
    changed now, and if not, why."""

    rules: pd.DataFrame
    writable: bool
    notice: str | None = None


def read_rules(connection: Connection) -> RulesRead:
    """Every rule of the company from its history store, once the service accepts the
    connection's credential for its company (as the marks are read)."""
    empty = pd.DataFrame({k: pd.Series(dtype=v) for k, v in GROUP_RULE_COLUMNS.items()})
    if not cache_connection.STORE_ACCESS.access(connection).allowed:
        return RulesRead(empty, False, cache_history.WITHHELD.replace("Marks", "Rules"))
    kept = cache_history.history_store(connection)
    if kept is None:
        return RulesRead(empty, False, "The history store cannot be reached: no rule is shown.")
    try:
        rules = kept.group_rules(connection.company_id, removed=True)
    except StoreBusyError:
        return RulesRead(empty, False, "The history store is busy: try again in a moment.")
    except StoreError:
        return RulesRead(empty, False, "The history store cannot be read just now.")
    if kept.read_only:
        return RulesRead(rules, False, "The history store is open read-only here.")
    return RulesRead(rules, True)


def flash() -> None:
    """What the last save or removal said, once (after the page reloaded with it)."""
    said = st.session_state.pop(_FLASH_KEY, None)
    if said:
        notices.show_notes([said], severity="info")


def _read_only(rights: MarkRights) -> str:
    return (
        known_words.read_only(rights)
        .replace("Marks are", "Rules are")
        .replace("mark, change or close them", "write or remove rules")
    )


WINDOW = 20
"""A preview counts the failures of each plan's last W finished executions (as Flaky reads)."""


def previewer(
    connection: Connection, *, now: datetime, plan_names: Mapping[int, str], tz: str
) -> Callable[[RuleInput], RulePreviewView]:
    """What `rule_form` previews a rule with: the failed results of each plan's last `WINDOW`
    finished executions and the company's scenario names, loaded at the first preview."""

    def preview_of(form: RuleInput) -> RulePreviewView:
        loaded = analytics_input.load_window(connection, now=now, window=WINDOW)
        return words.preview_view(
            form,
            loaded.results,
            names=names_by_id(cache_names.names(connection)),
            plan_names=plan_names,
            basis=f"each plan's last {WINDOW} finished executions",
            tz=tz,
        )

    return preview_of


def rule_form(
    connection: Connection,
    *,
    read: RulesRead,
    preview_of: Callable[[RuleInput], RulePreviewView],
    plan_names: Mapping[int, str],
    now: datetime,
) -> None:
    """The form that writes a rule: its preview (`preview_of`, on the page's failures) on
    "Preview", and on "Save rule" once the preview of exactly what the form holds was shown."""
    rights = viewer.mark_rights()
    may_save = rights.allowed and read.writable
    plans = {EVERY_PLAN: "Every plan", **dict(plan_names)}
    with st.form(FORM_KEY, border=True, enter_to_submit=False):
        message = st.text_input(
            "Message pattern",
            key=f"{FORM_KEY}.message",
            max_chars=MAX_PATTERN,
            placeholder="TimeoutException|timed out",
            help="An RE2 pattern searched in the failure's message.",
        )
        left, right = st.columns(2)
        with left:
            action = st.segmented_control(
                "Action",
                list(words.ACTION_LABELS),
                key=f"{FORM_KEY}.action",
                format_func=words.ACTION_LABELS.__getitem__,
                default=CATEGORY,
            )
            category = st.selectbox(
                "Category",
                words.CATEGORY_CHOICES,
                key=f"{FORM_KEY}.category",
                format_func=words.CATEGORY_LABELS.__getitem__,
                help="For a category rule.",
            )
            custom = st.text_input(
                "Custom category",
                key=f"{FORM_KEY}.custom",
                max_chars=MAX_LABEL,
                help='With "Custom…": the team\'s word.',
            )
            merge_label = st.text_input(
                "Merged group's name",
                key=f"{FORM_KEY}.merge",
                max_chars=MAX_LABEL,
                help="For a merge rule.",
            )
        with right:
            scenario = st.text_input(
                "Scenario pattern (optional)",
                key=f"{FORM_KEY}.scenario",
                max_chars=MAX_PATTERN,
                help="Searched in the scenario's id and in its name.",
            )
            plan = st.selectbox(
                "Plan", list(plans), format_func=plans.__getitem__, key=f"{FORM_KEY}.plan"
            )
            environment = st.text_input(
                "Environment pattern (optional)",
                key=f"{FORM_KEY}.environment",
                max_chars=MAX_PATTERN,
                placeholder="^CHROME",
                help='Searched in the environment\'s label ("CHROME / Windows 10").',
            )
            typed = None
            if may_save and rights.author is not None:
                st.caption(f"Written as {rights.author}.")
            if may_save and rights.author is None:
                typed = st.text_input(
                    "Your name",
                    value=st.session_state.get(NAME_KEY, ""),
                    max_chars=MAX_NAME,
                    help="Kept for this browser session: the rule says who wrote it.",
                    key=f"{FORM_KEY}.by",
                )
        buttons = st.columns(2)
        with buttons[0]:
            previewed = st.form_submit_button("Preview", icon=":material/visibility:")
        saved = False
        if may_save:
            with buttons[1]:
                saved = st.form_submit_button("Save rule", icon=":material/save:")
    if not may_save:
        notices.show_notes(
            [_read_only(rights) if not rights.allowed else read.notice or ""], severity="info"
        )
    if not (previewed or saved):
        return
    form = RuleInput(
        message=message,
        action=str(action or CATEGORY),
        category=str(category),
        custom=custom,
        merge_label=merge_label,
        scenario=scenario,
        plan_id=None if plan == EVERY_PLAN else int(plan),
        environment=environment,
    )
    shown = preview_of(form)
    ready = saved and st.session_state.get(_PREVIEWED_KEY) == form and shown.usable
    show_preview(shown, asked=saved and not ready)
    st.session_state[_PREVIEWED_KEY] = form
    if ready:
        _save(connection, form, shown, typed=typed, now=now)


def show_preview(shown: RulePreviewView, *, asked: bool) -> None:
    """The preview: the refusal's sentences, or what the rule would cover and examples."""
    if not shown.usable:
        notices.show_notes(list(shown.problems), severity="warning")
        return
    with st.container(key="rules-preview"):
        notices.plain(shown.sentence)
        notices.caption(shown.basis)
        if shown.examples is not None:
            table_views.show(shown.examples)
        if asked:
            notices.caption("This is what the rule would cover: Save rule again to save it.")


def _writer(connection: Connection) -> tuple[HistoryStore | None, str | None]:
    if not cache_connection.STORE_ACCESS.access(connection).allowed:
        return None, NOT_SAVED.format(reason=cache_history.WITHHELD.replace("Marks", "Rules"))
    kept = cache_history.history_store(connection)
    if kept is None:
        return None, NOT_SAVED.format(reason="the history store cannot be reached.")
    if kept.read_only:
        return None, NOT_SAVED.format(reason="the history store is open read-only.")
    return kept, None


def _author(typed: str | None) -> tuple[MarkRights, str] | None:
    """The rights and author asked again at the moment of writing; None (said) when the viewer
    may not write rules now."""
    rights = viewer.mark_rights()
    if not rights.allowed:
        notices.show_notes([_read_only(rights)], severity="warning")
        return None
    return rights, rights.author or (typed or "").strip()


def _landed(change: Callable[[HistoryStore], str], connection: Connection) -> str | None:
    """Run one change on the connection's store; its result, or None once what kept it from
    landing is said."""
    kept, problem = _writer(connection)
    if kept is None:
        notices.show_notes([problem or ""], severity="warning")
        return None
    try:
        done = change(kept)
    except RuleRefused as refused:
        notices.show_notes(refused.problems, severity="warning")
    except StoreBusyError:
        notices.show_notes([NOT_SAVED.format(reason="the history store is busy.")])
    except StoreError as error:
        _LOG.warning("rule not saved: %s", type(error).__name__)
        notices.show_notes([NOT_SAVED.format(reason=error.message)])
    else:
        cache_history.forget_group_rules()  # every page groups by the rules as they are now
        return done
    return None


def _save(
    connection: Connection,
    form: RuleInput,
    shown: RulePreviewView,
    *,
    typed: str | None,
    now: datetime,
) -> None:
    author = _author(typed)
    if author is None:
        return
    rights, by = author
    draft = words.draft_of(form)
    rule_id = _landed(
        lambda kept: kept.add_group_rule(connection.company_id, draft, by=by, now=now),
        connection,
    )
    if rule_id is None:
        return
    if rights.author is None:
        st.session_state[NAME_KEY] = by
    st.session_state[_FLASH_KEY] = words.saved_text(rule_id, shown)
    st.session_state.pop(_PREVIEWED_KEY, None)
    st.rerun()


def remove_form(
    connection: Connection, *, read: RulesRead, removable: Sequence[tuple[str, str]], now: datetime
) -> None:
    """Remove one rule in force (it is kept, with who removed it); only for a viewer who may
    write rules, on a store that takes changes."""
    rights = viewer.mark_rights()
    if not removable or not rights.allowed or not read.writable:
        return
    labels = dict(removable)
    with st.form("rules.remove", border=False, enter_to_submit=False):
        rule_id = st.selectbox(
            "Rule to remove",
            list(labels),
            format_func=lambda i: f"{i}: {labels[i]}",
            key="rules.remove.which",
        )
        typed = None
        if rights.author is None:
            typed = st.text_input(
                "Your name (to remove it)",
                value=st.session_state.get(NAME_KEY, ""),
                max_chars=MAX_NAME,
            )
        if not st.form_submit_button("Remove rule", icon=":material/delete:"):
            return
    author = _author(typed)
    if author is None or rule_id is None:
        return
    _, by = author
    chosen = str(rule_id)

    def remove(kept: HistoryStore) -> str:
        kept.remove_group_rule(connection.company_id, chosen, by=by, now=now)
        return chosen

    done = _landed(remove, connection)
    if done is not None:
        st.session_state[_FLASH_KEY] = words.removed_text(chosen)
        st.rerun()
