"""AppTest, odd data: a subgroup called like a reference keyword ("rest", "overall", "pairwise") can
be the named reference, with the numbers against that subgroup, never the keyword's; infinite values in a
numeric column are left out of the correlation score (and counted) and binned at the ends."""

import numpy as np
import pandas as pd

import fairness_core as fc
from tests.app.helpers import csv_bytes, open_section, start, widget
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


def test_infinite_values_in_a_numeric_column_are_left_out_of_the_correlation_and_binned_at_the_ends():
    rng = np.random.default_rng(6)
    n = 2000
    frame = pd.DataFrame({"label": rng.integers(0, 2, n), "score": np.round(rng.random(n), 4),
                          "group": rng.choice(["a", "b"], n), "income": rng.normal(50, 10, n)})
    frame.loc[:9, "income"] = np.inf
    frame.loc[10:14, "income"] = -np.inf
    at = start()
    upload(at, "inf.csv", csv_bytes(frame))
    widget(at, "multiselect", "Protected attributes").set_value(["group"]).run()
    open_section(at, "rates:section", "Correlation", run=False)
    at.switch_page("pages/rate_disparities.py").run()
    widget(at, "selectbox", "Correlate predictions with").set_value("income").run()
    assert not at.exception
    assert any("15 rows with a missing or infinite income are left out" in c.value for c in at.caption)
    # The same column as a protected attribute: quantile bins of its finite values, infinities at the ends.
    at.switch_page("pages/data.py").run()
    widget(at, "multiselect", "Protected attributes").set_value(["income"]).run()
    assert not at.exception
    open_section(at, "rates:section", "Tables", run=False)
    at.switch_page("pages/rate_disparities.py").run()
    shown = next(d.value for d in at.dataframe if "subgroup" in d.value.columns)
    assert not any("nan" in str(s) for s in shown["subgroup"])
    assert any(str(s).startswith("[-inf, ") for s in shown["subgroup"])
    assert any(str(s).endswith(", inf]") for s in shown["subgroup"])
