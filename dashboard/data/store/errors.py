"""The errors of the history store: typed, so a page or the CLI can decide what to do.

The store is a cache of what the service already serves: when it cannot be used, a caller falls
back to the service rather than fail. Messages name the file and what happened, never a token
(nothing secret is ever stored or handled here).
"""

from __future__ import annotations

from typing import Any


class StoreError(Exception):
    """Base of every error of the history store."""

    def __init__(self, message: str, *, location: str) -> None:
        super().__init__(message)
        self.message = message
        self.location = location  # a file path, or a database's host and name

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only arguments do not survive pickle's default (a page's cache pickles what
        # it keeps): rebuild from the class and the attributes instead.
        return (_rebuild, (type(self), self.args, dict(vars(self))))


def _rebuild(
    cls: type[StoreError], args: tuple[Any, ...], attributes: dict[str, Any]
) -> StoreError:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(attributes)
    return error


class StoreBusyError(StoreError):
    """Another process held the store for longer than the bounded wait."""

    def __init__(self, message: str, *, location: str, waited: float) -> None:
        super().__init__(message, location=location)
        self.waited = waited


class StoreMissingError(StoreError):
    """A read-only open of a store that does not exist yet (nothing has been synced)."""


class StoreSchemaError(StoreError):
    """A read-only open of a store whose schema this program cannot read as it is (an older one
    needs the upgrade a writable open performs; a newer one belongs to a newer program)."""


class StoreUnreadableError(StoreError):
    """A database file that cannot be read as a database at all: not one, or damaged (cut
    short, its checksums wrong). Unlike a busy or newer store, it will not get better by
    waiting: a writable open sets it aside as `<name>.unreadable` and starts anew."""
