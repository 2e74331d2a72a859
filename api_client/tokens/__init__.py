"""Where the client's bearer token comes from: `ApiClient(token=...)` takes a string (a static
token) or one of these sources, which renew it.

```python
from api_client import ApiClient
from api_client.tokens import TokenEndpoint

tokens = TokenEndpoint(
    token_url="https://auth.example.com/oauth/token",
    grant="client_credentials",
    client_id="qa-dashboard",
    client_secret="...",
)
with ApiClient(base_url="https://host/Api", token=tokens, company_id=7) as client:
    plans = client.plans()
```
"""

from api_client.tokens.command import TokenCommand
from api_client.tokens.endpoint import GRANTS, Grant, TokenEndpoint
from api_client.tokens.file import TokenFile
from api_client.tokens.source import RenewingSource, StaticToken, TokenSource, token_problem

__all__ = [
    "GRANTS",
    "Grant",
    "RenewingSource",
    "StaticToken",
    "TokenCommand",
    "TokenEndpoint",
    "TokenFile",
    "TokenSource",
    "token_problem",
]
