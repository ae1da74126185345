"""AppTest: a subgroup called like a reference keyword ("rest", "overall", "pairwise") can be the named
reference, and the numbers are those against that subgroup, never the keyword's (issue 11)."""

import numpy as np
import pandas as pd

import fairness_core as fc
from tests.app.helpers import csv_bytes, start, widget
from tests.app.review_helpers import upload


def test_a_subgroup_called_rest_is_the_named_reference_not_the_keyword():
    rng = np.random.default_rng(5)
    n = 4000
    group = rng.choice(["rest", "overall", "pairwise", "other"], size=n, p=[0.4, 0.2, 0.2, 0.2])
    y = rng.integers(0, 2, n)
    score = np.round(np.clip(rng.normal(np.where(group == "rest", 0.65, 0.4), 0.2), 0, 1), 4)
    frame = pd.DataFrame({"label": y, "score": score, "team": group})
    at = start()
    upload(at, "keywords.csv", csv_bytes(frame))
    widget(at, "multiselect", "Protected attributes").set_value(["team"]).run()
    at.switch_page("pages/rate_disparities.py").run()
    widget(at, "selectbox", "Reference").set_value("named").run()
    assert widget(at, "selectbox", "Reference subgroup").value == "rest"   # the largest subgroup
    assert not at.exception
    table = next(d.value for d in at.dataframe if "reference" in d.value.columns and "disparity" in d.value.columns)
    assert set(table["reference"]) == {"rest"} and "rest" not in set(table["subgroup"])
    pred = (score >= 0.5).astype(int)
    expected = fc.confusion_counts(y, pred, frame["team"]).disparity(
        "false_positive_rate", reference=fc.named_reference("rest"), reduction=None).set_index("subgroup")["disparity"]
    shown = table.set_index("subgroup")["disparity"]
    np.testing.assert_allclose(shown.loc[expected.index], expected, rtol=1e-12)
    assert any("subgroup rest" in c.value for c in at.caption)   # the captions name the subgroup
