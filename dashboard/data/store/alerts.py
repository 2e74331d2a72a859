"""What the worker announced: the alerts table, so that a change is announced once however many
workers share the store and however often they look.

Under the store's "alerts" lock (`StoreLease.exclusive`), a pass notes every change it finds
(`note_alerts`: a key already there is left alone), then sends each pending one and notes it
announced (`announced`) right after its message was accepted. A destination that refuses leaves
it pending for the next pass; a second worker waits for the lock, then finds nothing pending.
(A worker killed between a message accepted and its note sends that one again: a repeat, never
a loss, as with the daily digest.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from dashboard.data.store import sql_alerts
from dashboard.data.store.lease import StoreLease


@dataclass(frozen=True)
class Alert:
    """One change to announce: `key` names the change (the same change found again has the same
    key); `link` is the dashboard's page with its evidence (relative)."""

    key: str
    kind: str
    plan_id: int | None
    project_id: int | None
    title: str
    body: str
    link: str | None
    noticed_at: datetime | None = None


class AlertStore(StoreLease):
    """The alerts' reads and writes; `HistoryStore` has them."""

    def note_alerts(self, alerts: Iterable[Alert], *, now: datetime | None = None) -> int:
        """Note the changes found; returns how many were new (the others were noted before)."""
        at = now or datetime.now(UTC)
        rows = [
            {
                "alert_key": a.key,
                "kind": a.kind,
                "plan_id": a.plan_id,
                "project_id": a.project_id,
                "title": a.title,
                "body": a.body,
                "link": a.link,
                "noticed_at": at,
            }
            for a in alerts
        ]
        if not rows:
            return 0
        with self._write() as db:
            before = int(db.scalar(sql_alerts.COUNT_ALERTS) or 0)
            for row in rows:
                db.execute(sql_alerts.NOTE_ALERT, row)
            return int(db.scalar(sql_alerts.COUNT_ALERTS) or 0) - before

    def pending_alerts(self) -> list[Alert]:
        """The changes noted and not announced yet, oldest first."""
        with self._lease() as db:
            rows = db.rows(sql_alerts.PENDING_ALERTS)
        return [
            Alert(
                key=str(key),
                kind=str(kind),
                plan_id=None if plan is None else int(plan),
                project_id=None if project is None else int(project),
                title=str(title),
                body=str(body),
                link=None if link is None else str(link),
                noticed_at=noticed,
            )
            for key, kind, plan, project, title, body, link, noticed in rows
        ]

    def announced(self, *keys: str, now: datetime | None = None) -> None:
        """Note that the changes `keys` were announced (in one message: all or none)."""
        at = now or datetime.now(UTC)
        with self._write() as db:
            for key in keys:
                db.execute(sql_alerts.ANNOUNCED, {"alert_key": key, "announced_at": at})

    def alert_counts(self) -> tuple[int, int]:
        """(alerts noted, of which announced)."""
        with self._lease() as db:
            rows = db.rows(sql_alerts.COUNT_ALERTS)
        return (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)
