"""The words of viewer sign-in: the sign-in page, the one sentence a refused viewer reads, the
sidebar's line, and what a provider that is down or a broken configuration means for a viewer.

Plain text: the pages show these with `st.text`-like elements or escape them, as an address or a
host comes from outside.
"""

from __future__ import annotations

from dashboard.data.signin import Admission, Provider

TITLE = "Sign in to the QA dashboard"
REFUSED_TITLE = "The QA dashboard is not open to this account"
MISCONFIGURED_TITLE = "The QA dashboard's sign-in is not set up"
# Every door page has one h1, as every page of the dashboard does: a screen reader's outline
# starts from it (axe-core's page-has-heading-one, tests/browser/test_signin.py).
INTRO = "This dashboard shows the team's test results to its members only. Sign in to see it."
SIGN_IN = "Sign in"
SIGN_OUT = "Sign out"
TRY_AGAIN = "Try again"


def sign_in_label(provider: Provider, *, several: bool) -> str:
    """The button of one provider: "Sign in", or "Sign in with NAME" when there are several."""
    if several and provider.name:
        return f"{SIGN_IN} with {provider.name}"
    return SIGN_IN


def provider_down(provider: Provider, cause: str) -> str:
    """The sign-in page when the provider does not answer: nobody can sign in, nothing shown."""
    return (
        f"The sign-in service ({provider.host}) {cause}, so nobody can sign in right now. "
        "Try again in a few minutes; if it lasts, tell this dashboard's operator."
    )


def misconfigured(problem: str) -> str:
    """What everyone sees while the sign-in settings are wrong: which key, never its value."""
    return (
        f"This dashboard's sign-in is not set up correctly, so it shows nothing: {problem} "
        "Its operator can fix that in the dashboard's settings."
    )


def refused(admission: Admission) -> str:
    """The one sentence a signed-in viewer who may not see the dashboard reads."""
    if admission.reason == "no-email":
        return (
            "The sign-in service did not tell this dashboard your e-mail address, so it cannot "
            "let you in: sign out and use an account that has one."
        )
    if admission.reason == "unverified":
        return (
            f"The sign-in service has not verified {admission.email}, so this dashboard cannot "
            "let you in: verify the address with it, or sign out and use another account."
        )
    return (
        f"{admission.email} may not see this dashboard: ask its operator to add your address, "
        "or sign out and use another account."
    )


def signed_in_as(email: str) -> str:
    return f"Signed in as {email}"


ONLY_MINE_SIGNED_IN = (
    "Executions started by you (the address you signed in with). The service filters by it only "
    "when this dashboard's token is your own."
)


def only_mine_refused(email: str) -> str:
    """The service's answer to *Only mine* with the signed-in address: it filters only by the
    address of the token's own user, and the dashboard's token is not the viewer's."""
    return (
        f'The service refused "Only mine" for {email}: it filters only by the address of the '
        "token's own user, and this dashboard reads the service with another account's token. "
        'Turn "Only mine" off.'
    )
