"""Who may destroy stored history: the one rule every screen asks.

A dashboard whose operator configured its connection (the secrets file or the environment) or
a shared store (`QA_DASHBOARD_STORE_URL`) serves a team: its store holds what the worker synced
for everyone, and what is older than the worker's `--days` cannot be fetched again. A viewer
who is not signed in could be anyone (a TV in presenter mode included): such a dashboard offers
none of them *Clear stored history*; its operator clears with `python -m dashboard store clear`.
A dashboard without either (nor sign-in) is one person's local use (the demo, or a service
reached through the sidebar form): its store is that person's cache, and the button stays.

With viewer sign-in (`dashboard.data.signin`), `operators` are the addresses of its `operators`
setting and `viewer` the signed-in, admitted viewer's address (both lower-case): a signed-in
operator may clear a shared store from the page.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from dashboard.data.connection import ENV_BASE_URL, ENV_TOKEN, SECRETS_SECTION
from dashboard.data.signin import AUTH_SECTION
from dashboard.data.store.location import store_url


def serves_a_team(*, secrets: Mapping[str, Any] | None, env: Mapping[str, str]) -> bool:
    """Whether an operator configured this dashboard's connection (even half of one: a typo
    does not make a team's dashboard someone's local one), a shared store, or viewer sign-in."""
    if (secrets or {}).get(AUTH_SECTION) is not None:
        return True
    section = (secrets or {}).get(SECRETS_SECTION)
    configured = [env.get(ENV_BASE_URL), env.get(ENV_TOKEN)]
    if isinstance(section, Mapping):
        configured += [section.get("base_url"), section.get("token")]
    if any(str(value or "").strip() for value in configured):
        return True
    return store_url(secrets=secrets, env=env) is not None


def may_clear_history(
    *,
    secrets: Mapping[str, Any] | None,
    env: Mapping[str, str],
    viewer: str | None = None,
    operators: Collection[str] = frozenset(),
) -> bool:
    """Whether the viewer may empty the store from a page: on one person's local dashboard, or
    when the signed-in `viewer` is one of `operators`."""
    if viewer is not None and viewer in operators:
        return True
    return not serves_a_team(secrets=secrets, env=env)
