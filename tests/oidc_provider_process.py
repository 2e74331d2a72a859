"""The process of tests/oidc_provider.py: `oidc-provider-mock`, whose sign-in form takes any
subject, with one change that makes it a provider the dashboard admits: a subject it has not
been told about signs in with that subject as its `email` and `email_verified: true`, as a
provider that verified the address says (the dashboard refuses an address whose verification
the provider does not state). A user set through its `PUT /users/SUB` keeps exactly the claims
given, so a test can sign in someone whose address is not verified.

    python -m tests.oidc_provider_process --host 127.0.0.1 --port PORT
"""

from __future__ import annotations

from oidc_provider_mock import _storage
from oidc_provider_mock.__main__ import run

_told = _storage.Storage.get_user


def _get_user(self: _storage.Storage, sub: str) -> _storage.User | None:
    user = _told(self, sub)
    if user is None:
        user = _storage.User(sub=sub, claims={"email": sub, "email_verified": True})
        self.store_user(user)
    return user


_storage.Storage.get_user = _get_user  # type: ignore[method-assign]

if __name__ == "__main__":
    run()
