"""AppTest: data where no comparison can be made — a protected attribute with one value, an attribute that is
entirely missing, every subgroup small — is answered on every page and section as "not assessable", never with
an error box (a one-valued attribute crashed the Overview and Calibration)."""

import numpy as np
import pandas as pd
import pytest

from tests.app.helpers import PAGES, csv_bytes, each_section, start, widget
from tests.app.review_helpers import upload


def degenerate_frame(kind: str, n: int = 600, seed: int = 3) -> pd.DataFrame:
    """A label, a probability score and a ``region`` attribute that allows no comparison of `kind`: ``one``
    (a single value), ``missing`` (every value missing) or ``small`` (every subgroup below the minimum size)."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    score = np.round(np.clip(rng.normal(0.35 + 0.3 * label, 0.2), 0, 1), 3)
    region = {"one": np.full(n, "north", dtype=object), "missing": np.full(n, None, dtype=object),
              "small": np.array([f"r{i // 3}" for i in range(n)], dtype=object)}[kind]
    return pd.DataFrame({"label": label, "score": score, "region": region})


@pytest.mark.parametrize("kind", ["one", "missing", "small"])
def test_every_page_answers_data_that_allows_no_comparison(kind):
    at = start()
    upload(at, f"{kind}.csv", csv_bytes(degenerate_frame(kind)))
    widget(at, "multiselect", "Protected attributes").set_value(["region"]).run()
    assert not at.exception, at.exception
    for page in PAGES:
        at.switch_page(page).run()
        for section in each_section(at, page):
            assert not at.exception, (kind, page, section, at.exception)
    at.switch_page("pages/overview.py").run()
    if kind == "small":   # every rule not assessable, none passed
        bottom = next(m.value for m in at.markdown if m.value.startswith("**Bottom line"))
        assert "No rule fails; 0 of 6 rules pass" in bottom and "6 could not be assessed" in bottom, bottom
    else:   # one subgroup: said on every metric page, and Calibration says why it has no verdict
        for page in PAGES[1:-1]:
            at.switch_page(page).run()
            assert any("so there is nothing to compare it with" in w.value for w in at.warning), page
        at.switch_page("pages/calibration.py").run()
        assert any("every row is in this subgroup" in i.value for i in at.info), [i.value for i in at.info]
