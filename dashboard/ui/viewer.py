"""The viewer: who is signed in.

`signed_in_email()` is the identity the rest of the dashboard uses (who marks a known failure).
Sign-in is not configured in this version: nobody is signed in, and a viewer who marks types a
name once per browser session (`dashboard.ui.marking`).
"""

from __future__ import annotations


def signed_in_email() -> str | None:
    """The address of the signed-in viewer; None when sign-in is not configured or nobody is
    signed in."""
    return None
