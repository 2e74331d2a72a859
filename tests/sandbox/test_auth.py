"""Authentication and authorities (spec section 5), over real HTTP."""

from __future__ import annotations

import httpx
import pytest

from sandbox import Authority, demo_users
from sandbox.auth import BEARER_TOKEN_PREFIX, Authenticator
from tests.sandbox.helpers import FILTER, PLANS, RESULTS, UserPicker, assert_error, headers

# One well-formed request per operation: only the credentials vary between the tests.
COMPANY_1 = {"current-company-id": "1"}
OPERATIONS = {
    "results": (RESULTS.format(execution_id=1, scenario_id=1), {}),
    "filter": (FILTER, {"page": 1, "size": 5}),
    "plans": (PLANS, {}),
}


@pytest.fixture(params=sorted(OPERATIONS))
def operation(request: pytest.FixtureRequest) -> tuple[str, dict[str, int]]:
    return OPERATIONS[request.param]


def test_missing_token_gets_the_security_layers_401(
    http: httpx.Client, operation: tuple[str, dict[str, int]]
) -> None:
    path, params = operation
    response = http.get(path, params=params, headers=COMPANY_1)
    assert response.status_code == 401
    assert response.json() == {
        "error": "unauthorized",
        "error_description": "Full authentication is required to access this resource",
    }
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer sbx-0000000000000000000000000000000000000000",
        "Bearer " + demo_users(8)[0].token,  # a token of another seed's sandbox
        "Basic YWNtZS5sZWFkOnNlY3JldA==",
        "Bearer",
        "sbx-no-scheme",
    ],
)
def test_unusable_token_is_invalid_token_401(
    http: httpx.Client, operation: tuple[str, dict[str, int]], authorization: str
) -> None:
    path, params = operation
    response = http.get(path, params=params, headers={"Authorization": authorization, **COMPANY_1})
    assert response.status_code == 401
    body = response.json()
    assert body["error"] == "invalid_token"
    assert set(body) == {"error", "error_description"}
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


def test_authentication_is_checked_before_the_request_itself(http: httpx.Client) -> None:
    response = http.get(FILTER)  # no token, no header, no page: the token decides first
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("lacking", "path", "params", "status"),
    [
        (Authority.TEST_RESULT_VIEW, RESULTS.format(execution_id=1, scenario_id=1), {}, 401),
        (Authority.TEST_EXECUTION_VIEW, FILTER, {"page": 1, "size": 5}, 403),
        (Authority.PLAN_VIEW, PLANS, {}, 403),
    ],
)
@pytest.mark.parametrize("company_id", [1, 2])
def test_missing_authority_is_access_denied_with_the_operations_status(
    http: httpx.Client,
    demo_user: UserPicker,
    lacking: Authority,
    path: str,
    params: dict[str, int],
    status: int,
    company_id: int,
) -> None:
    user = demo_user(company_id=company_id, lacking=lacking)
    assert_error(
        http.get(path, params=params, headers=headers(user, company_id)), status, "ACCESS_DENIED"
    )


@pytest.mark.parametrize(
    ("lacking", "path"),
    [
        (Authority.TEST_RESULT_VIEW, RESULTS.format(execution_id="x", scenario_id="y")),
        (Authority.TEST_EXECUTION_VIEW, FILTER),
        (Authority.PLAN_VIEW, PLANS + "?active=maybe"),
    ],
)
def test_authority_is_checked_before_parameters(
    http: httpx.Client, demo_user: UserPicker, lacking: Authority, path: str
) -> None:
    # A malformed request from a user without the authority learns nothing about the rules.
    response = http.get(path, headers=headers(demo_user(lacking=lacking)))
    assert response.json()["error"] == "ACCESS_DENIED"


def test_each_user_lacking_one_authority_can_use_the_other_operations(
    http: httpx.Client, demo_user: UserPicker
) -> None:
    user = demo_user(lacking=Authority.PLAN_VIEW)
    response = http.get(FILTER, params={"page": 1, "size": 1}, headers=headers(user, 1))
    assert response.status_code == 200


def test_demo_users_follow_the_documented_layout() -> None:
    users = demo_users(7)
    first = users[0]
    assert first.company_id == 1
    assert set(first.authorities) == set(Authority)
    for company_id in (1, 2):
        for missing in Authority:
            assert any(
                u.company_id == company_id and set(u.authorities) == set(Authority) - {missing}
                for u in users
            )
    orphan = users[-1]
    assert orphan.company_id not in {1, 2}
    assert len({u.username for u in users}) == len({u.email for u in users}) == len(users)
    assert all(u.token.startswith(BEARER_TOKEN_PREFIX) for u in users)


def test_tokens_are_fixed_by_the_seed() -> None:
    assert [u.token for u in demo_users(7)] == [u.token for u in demo_users(7)]
    assert not {u.token for u in demo_users(7)} & {u.token for u in demo_users(8)}


def test_a_demo_users_repr_does_not_show_the_token() -> None:
    user = demo_users(7)[0]
    assert user.token not in repr(user)


def test_authenticator_accepts_only_an_exact_token() -> None:
    users = demo_users(7)
    authenticator = Authenticator(users)
    assert authenticator.authenticate(users[3].token) == users[3]
    assert authenticator.authenticate(users[3].token[:-1]) is None
    assert authenticator.authenticate(users[3].token + "0") is None
    assert authenticator.authenticate("") is None
    assert authenticator.authenticate("sbx-ünïcode") is None
