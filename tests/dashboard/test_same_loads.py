"""Every run of the same executions load gets one object (`cache.SameLoads`): Streamlit's data
cache hands each run its own copy, and views kept of those copies would each keep a window."""

from __future__ import annotations

from datetime import timedelta

import pandas as pd

from dashboard.data import cache, live


def loaded(at: float) -> live.ExecutionsData:
    return live.ExecutionsData(pd.DataFrame({"execution_id": [1, 2]}), pd.DataFrame(), loaded_at=at)


def test_the_same_load_is_one_object_per_key_for_a_while() -> None:
    same = cache.SameLoads(max_entries=2, max_age=timedelta(minutes=15))
    first, copy = loaded(100.0), loaded(100.0)

    assert same.one("a", first, now=0.0) is first
    assert same.one("a", copy, now=1.0) is first  # a copy of the same load: the first
    assert same.one("b", copy, now=1.0) is copy  # another query's
    assert same.one("a", copy, now=15 * 60.0) is copy  # too old: the copy is kept instead


def test_a_new_load_replaces_the_one_kept() -> None:
    same = cache.SameLoads(max_entries=2, max_age=timedelta(minutes=15))
    old, new = loaded(100.0), loaded(200.0)

    same.one("a", old, now=0.0)

    assert same.one("a", new, now=1.0) is new
    assert same.one("a", loaded(200.0), now=2.0) is new


def test_only_the_latest_few_are_kept() -> None:
    same = cache.SameLoads(max_entries=2, max_age=timedelta(minutes=15))
    a, b, c, again = loaded(1.0), loaded(1.0), loaded(1.0), loaded(1.0)

    same.one("a", a, now=0.0)
    same.one("b", b, now=1.0)
    same.one("c", c, now=2.0)

    assert same.one("a", again, now=3.0) is again  # "a" was let go
    assert same.one("c", loaded(1.0), now=3.0) is c
