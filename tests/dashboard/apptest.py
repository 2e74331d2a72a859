"""Reading what an `AppTest` run shows, the way a person would see it."""

from __future__ import annotations

import re
from typing import Any

from streamlit.testing.v1 import AppTest

PLANS = "app_pages/plans.py"
EXECUTIONS = "app_pages/executions.py"
RESULTS = "app_pages/execution_results.py"
STANDUP = "app_pages/standup.py"
HEALTH = "app_pages/health.py"


def texts(elements: Any) -> list[str]:
    """Element texts as a person reads them: markdown escapes (`\\.`) removed."""
    return [re.sub(r"\\(.)", r"\1", str(element.value)) for element in elements]


def sources(elements: Any) -> list[str]:
    """Element texts as sent to the browser (markdown source)."""
    return [str(element.value) for element in elements]


def joined(elements: Any) -> str:
    return "\n".join(texts(elements))


def metrics(at: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in at.metric}


def everything_shown(at: AppTest) -> str:
    """Every element of the page as sent to the browser, every table as CSV, and the URL."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at.main)
    walk(at.sidebar)
    parts.extend(frame.value.to_csv() for frame in at.dataframe)
    parts.append(repr(at.query_params))
    return "\n".join(parts)


def assert_no_failure(at: AppTest) -> None:
    """No exception element (a traceback) and no error box."""
    assert not at.exception, texts(at.exception)
    assert not at.error, texts(at.error)
