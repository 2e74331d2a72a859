"""The viewer: who is signed in, and the door every page of a team's dashboard goes through.

With sign-in configured (an `[auth]` table; see `dashboard.data.signin`), `dashboard/app.py`
asks `admitted()` before anything else of a run: a viewer who is not signed in gets the sign-in
page, one who is signed in but not admitted gets one sentence, and neither gets the sidebar,
the page or any data. Streamlit keeps the identity in a signed cookie (`st.user`); it is read
again at every run, so a viewer taken off the list is refused at their next click.

`signed_in_email()` is the identity the rest of the dashboard uses: whose executions *Only
mine* shows; `mark_rights()` says whether the viewer may mark and as whom (on a team's dashboard
only a signed-in viewer, under their address), `operators()` whether they may clear a shared
store.
"""

from __future__ import annotations

import os
from typing import Literal

import streamlit as st

from api_client import ApiError, UnauthorizedUserError
from dashboard.data import cache, signin
from dashboard.data.connection import Connection
from dashboard.data.signin import Admission, MarkRights, Provider, SignIn
from dashboard.data.store.operators import serves_a_team as team_rule
from dashboard.present import help_texts
from dashboard.present import signin as words
from dashboard.ui import notices

PROBE_TTL_S = 10
"""How long one look at the provider's OpenID configuration serves every sign-in page: a crowd
of viewers (or a stranger reloading) does not turn into a crowd of requests to the provider."""


def settings() -> SignIn:
    """This dashboard's sign-in settings (`[auth]`, `[signin]`, QA_DASHBOARD_*)."""
    return signin.settings(secrets=cache.secrets(), env=os.environ)


def signed_in_email() -> str | None:
    """The address of the signed-in, admitted viewer (lower-case); None when sign-in is not
    configured, nobody is signed in, or the one signed in may not see the dashboard."""
    current = settings()
    if not current.configured or current.problems:
        return None
    seen = _admission(current)
    return seen.email if seen is not None and seen.admitted else None


def operators() -> frozenset[str]:
    """The signed-in viewer's address when they hold the operators' rights (by their verified
    address or their subject, `signin.may_operate`), else nothing: what
    `store.operators.may_clear_history` compares the viewer's address with."""
    current = settings()
    if not current.configured or current.problems:
        return frozenset()
    seen = _admission(current)
    if seen is None or seen.email is None or not signin.may_operate(current, seen):
        return frozenset()
    return frozenset({seen.email})


def serves_a_team() -> bool:
    """Whether this dashboard serves more than the one person at this machine: an operator
    configured its connection, a shared store or sign-in (`store.operators.serves_a_team`), or
    it listens beyond loopback (`server.address` unset, which is every interface, or another
    machine's address)."""
    return team_rule(secrets=cache.secrets(), env=os.environ) or signin.beyond_loopback(
        st.get_option("server.address")
    )


def mark_rights() -> MarkRights:
    """Whether this viewer may mark, change and close known failures, and as whom
    (`signin.mark_rights`): asked at every draw and again at every save."""
    current = settings()
    seen = _admission(current) if current.configured and not current.problems else None
    return signin.mark_rights(current, seen, serves_a_team=serves_a_team())


def admitted() -> bool:
    """Whether this run may show the dashboard: sign-in is off, or the viewer is admitted."""
    current = settings()
    if not current.configured:
        return True
    if current.problems:
        return False
    seen = _admission(current)
    return seen is not None and seen.admitted


def door() -> None:
    """What a viewer who is not admitted sees instead of the dashboard (see the module doc)."""
    current = settings()
    if current.problems:
        st.title(words.MISCONFIGURED_TITLE)
        notices.show_notes([words.misconfigured(current.problems[0])], severity="error")
        return
    seen = _admission(current)
    if seen is not None:
        st.title(words.REFUSED_TITLE)
        notices.show_notes([words.refused(seen)])
        _sign_out_button(width="content")
        return
    st.title(words.TITLE)
    notices.plain(words.INTRO)
    several = len(current.providers) > 1
    for provider in current.providers:
        cause = _provider_problem(provider.name, provider.metadata_url)
        if cause is not None:
            notices.show_notes([words.provider_down(provider, cause)], severity="error")
            st.button(
                words.TRY_AGAIN, key=f"signin.retry.{provider.name}", icon=":material/refresh:"
            )
            continue
        label = words.sign_in_label(provider, several=several)
        # Not type="primary": its white text reads at 2.4:1 on the dark theme's accent.
        if st.button(label, key=f"signin.{provider.name}", icon=":material/login:"):
            st.login(provider.name)


def sidebar_identity() -> None:
    """Who is signed in, and *Sign out*, in the sidebar (nothing when sign-in is off)."""
    email = signed_in_email()
    if email is None:
        return
    notices.caption(words.signed_in_as(email))
    _sign_out_button(width="stretch")


def only_mine_email(connection: Connection) -> str | None:
    """The address *Only mine* filters by: the signed-in viewer's when sign-in is configured
    (the connection's `email` is then the service account's, not the viewer's), else the
    connection's."""
    if settings().configured:
        return signed_in_email()
    return connection.email


def only_mine_help() -> str:
    return words.ONLY_MINE_SIGNED_IN if settings().configured else help_texts.ONLY_MINE


def show_refused_only_mine(error: ApiError) -> bool:
    """Say why the service refused *Only mine* for the signed-in address (True when said)."""
    email = signed_in_email()
    if email is None or not isinstance(error, UnauthorizedUserError):
        return False
    notices.show_notes([words.only_mine_refused(email)], severity="error")
    return True


def _admission(current: SignIn) -> Admission | None:
    """What the sign-in rule says of the signed-in viewer; None when nobody is signed in."""
    if not st.user.get("is_logged_in"):
        return None
    return signin.admission(current, st.user.to_dict())


def _sign_out_button(*, width: Literal["content", "stretch"]) -> None:
    if st.button(words.SIGN_OUT, key="signin.out", icon=":material/logout:", width=width):
        st.logout()


@st.cache_data(ttl=PROBE_TTL_S, show_spinner=False)
def _provider_problem(name: str | None, metadata_url: str) -> str | None:
    return signin.provider_problem(Provider(name, metadata_url))
