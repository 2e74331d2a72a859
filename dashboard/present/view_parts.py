"""What a page's pure view hands its page besides its tables (`present.table_view`): charts with
their key and file name, and worded lines with how each is said.

A view (`present/<page>_view.py`) builds these from frames; `ui.view_parts` draws them with
Streamlit. So a view says that a sentence is a caption, or a note of its own, without importing
Streamlit, and a test reads what the page would say without running it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dashboard.present.chart_data import Chart


@dataclass(frozen=True, eq=False)
class ChartView:
    """A chart with the key it is drawn under and the file name of its data's CSV."""

    chart: Chart
    key: str
    file_name: str


How = Literal["caption", "plain", "info", "warning"]


@dataclass(frozen=True)
class Said:
    """Worded lines and how they are said: each as a caption or as plain text, or all in one
    note ("info" or "warning"). Text from the service is shown literally either way."""

    how: How
    texts: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.texts)


def caption(*texts: str | None) -> Said:
    """Captions, one a line (none for an empty text)."""
    return Said("caption", tuple(t for t in texts if t))


def plain(*texts: str | None) -> Said:
    """Lines of body text, one a line (none for an empty text)."""
    return Said("plain", tuple(t for t in texts if t))


def note(*texts: str | None, severity: Literal["info", "warning"] = "warning") -> Said:
    """One note of these lines (none when every text is empty)."""
    return Said(severity, tuple(t for t in texts if t))
