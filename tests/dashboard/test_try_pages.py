import pandas as pd
import pytest
from tests.dashboard.apptest import captions, notes, texts

pd.set_option("display.width", 250); pd.set_option("display.max_colwidth", 90); pd.set_option("display.max_columns", 20)

@pytest.mark.parametrize("page", ["states", "slower", "time_to_green", "failures"])
def test_x(app, page):
    at = app(f"app_pages/{page}.py", tz="UTC")
    at.run()
    print(page, texts(at.exception), texts(at.error), notes(at))
    for f in at.dataframe:
        print(f.value.head(12))
    print(captions(at))
    print([ (m.label, m.value) for m in at.metric])
