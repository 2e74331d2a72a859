"""A local, faithful implementation of the test-automation service's read API over demo data.

Build an app with `create_app(SandboxSettings(...))`, or serve one on a free loopback port with
`serve_in_thread(...)`; `demo_users(seed)` lists who can log in (the first is the demo login).
"""

from sandbox.app import create_app
from sandbox.auth import DemoUser, demo_users
from sandbox.data.catalog import Authority
from sandbox.server import RunningSandbox, serve_in_thread
from sandbox.settings import FaultSettings, SandboxSettings

__all__ = [
    "Authority",
    "DemoUser",
    "FaultSettings",
    "RunningSandbox",
    "SandboxSettings",
    "create_app",
    "demo_users",
    "serve_in_thread",
]
