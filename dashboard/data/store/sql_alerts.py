"""The statements of the alerts table (schema 7): changes noticed once, announced once."""

from __future__ import annotations

NOTE_ALERT = """
INSERT INTO alerts (alert_key, kind, plan_id, project_id, title, body, link, noticed_at)
VALUES (:alert_key, :kind, CAST(:plan_id AS BIGINT), CAST(:project_id AS BIGINT), :title, :body,
        CAST(:link AS VARCHAR), :noticed_at)
ON CONFLICT (alert_key) DO NOTHING
"""
"""A change noticed: the first notice stays (a change noticed again by the next pass, or by
another worker, is the same alert)."""

PENDING_ALERTS = """
SELECT alert_key, kind, plan_id, project_id, title, body, link, noticed_at
FROM alerts WHERE announced_at IS NULL
ORDER BY noticed_at, alert_key
"""

ANNOUNCED = """
UPDATE alerts SET announced_at = :announced_at
WHERE alert_key = :alert_key AND announced_at IS NULL
"""

COUNT_ALERTS = """
SELECT COUNT(*), COUNT(announced_at) FROM alerts
"""
