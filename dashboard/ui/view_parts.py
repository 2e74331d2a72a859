"""A pure view's charts and worded lines on the page (`present.view_parts`); its tables are
drawn by `ui.table_views`."""

from __future__ import annotations

from collections.abc import Iterable

from dashboard.present.view_parts import ChartView, Said
from dashboard.ui import charts, notices


def chart(shown: ChartView | None) -> None:
    """`shown` with its data a click away (`ui.charts.chart`); nothing for None."""
    if shown is not None:
        charts.chart(shown.chart, key=shown.key, file_name=shown.file_name)


def say(*said: Said | Iterable[Said] | None) -> None:
    """Each of `said`, in order: captions and plain lines one by one, a note as one box."""
    for part in said:
        if part is None:
            continue
        if not isinstance(part, Said):
            say(*part)
        elif part.how == "caption":
            for text in part.texts:
                notices.caption(text)
        elif part.how == "plain":
            for text in part.texts:
                notices.plain(text)
        else:
            notices.show_notes(part.texts, severity=part.how)
