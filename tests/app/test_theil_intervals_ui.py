"""AppTest: intervals on the Theil indices and the correlation score on the Rate disparities page.

The expected intervals come from fairness_core called directly with the app's options (level, 1,000
resamples, seed 0) on subgroups built here from the sample file; the correlation interval from
Fisher's z transformation written out in the test.
"""

import math

import numpy as np
import pandas as pd
from scipy.stats import norm

import fairness_core as fc
from tests.app.helpers import CI, ROOT, interval, metrics, as_shown, open_section, tile, widget
from fairness_dashboard.presentation import formats

RATE_PAGE = "pages/rate_disparities.py"
CREDIT = pd.read_csv(ROOT / "sample_data" / "credit_decisions.csv")






def rounded(result) -> tuple[float, float, float]:
    return result.level, as_shown(result.ci_low), as_shown(result.ci_high)


def credit():
    """The page's defaults on the credit sample: repaid == 1, score_logistic >= 0.5, ethnicity (min 30)."""
    y = (CREDIT["repaid"] == 1).to_numpy().astype(int)
    pred = (CREDIT["score_logistic"] >= 0.5).to_numpy().astype(int)
    groups = fc.Subgroups.from_attributes(CREDIT, ["ethnicity"], min_size=30)
    return y, pred, groups


def texts(app) -> list[str]:
    return [c.value for c in app.caption] + [m.value for m in app.markdown]


def test_theil_tiles_and_table_show_the_library_intervals(app):
    open_section(app, "rates:section", "Theil index", run=False)
    app.switch_page(RATE_PAGE).run()
    assert not app.exception and not app.error
    assert widget(app, "checkbox", "Show intervals").value is True
    assert (widget(app, "selectbox", "Reduction").value, widget(app, "selectbox", "Reference").value) == ("max", "rest")
    assert not any("no interval is computed" in t for t in texts(app))
    y, pred, groups = credit()
    kw = dict(ci=0.95, n_boot=1000, random_state=0)

    # Headline tile: the reduced two-group Theil index and its bootstrap interval.
    result = fc.theil_index(y, pred, groups, reduction="max", reference="rest", **kw)
    benefit = pred - y + 1
    worst = (CREDIT["ethnicity"] == result.worst[0]).to_numpy()
    n1, n2, m1, m2 = worst.sum(), (~worst).sum(), benefit[worst].mean(), benefit[~worst].mean()
    mu = (n1 * m1 + n2 * m2) / (n1 + n2)
    literal = sum(n / (n1 + n2) * (m / mu) * math.log(m / mu) for n, m in ((n1, m1), (n2, m2)))
    value, captions = tile(app, "Theil index (max)")
    assert value == f"{formats.tile(literal)}" == f"{formats.tile(result.value)}"
    assert interval(captions[0]) == rounded(result)
    assert result.ci_low <= result.value <= result.ci_high

    # The Theil tab: the library's table with its interval columns.
    theil_tables = [df.value for df in app.dataframe
                    if "subgroup_value_ci_low" in df.value.columns and "numerator" not in df.value.columns]
    assert len(theil_tables) == 1
    expected = result.table
    shown = theil_tables[0]
    assert list(shown["disparity"]) == sorted(shown["disparity"], reverse=True)  # largest disparity first
    shown = shown.set_index("subgroup", drop=False).loc[expected["subgroup"]].reset_index(drop=True)
    assert list(shown.columns) == list(expected.columns)
    for col in ("disparity", "disparity_ci_low", "disparity_ci_high", "p_value", "subgroup_value_ci_low",
                "reference_value_ci_high"):
        np.testing.assert_allclose(shown[col].astype(float), expected[col].astype(float), rtol=0, atol=1e-12)
    assert shown["excludes_parity"].tolist() == expected["excludes_parity"].tolist()

    # Individual and between-group indices: the bootstrap stratified by the subgroups' memberships.
    individual = fc.individual_theil_index(y, pred, subgroups=groups, **kw)
    between = fc.between_group_theil_index(y, pred, groups, **kw)
    for label, expected in (("Individual Theil index", individual), ("Between-group Theil index", between)):
        value, captions = tile(app, label)
        assert value == f"{formats.tile(expected.value)}"
        assert interval(captions[0]) == rounded(expected)
        assert "bootstrap with 1,000 resamples (seed 0)" in captions[0]
        assert expected.ci_low <= expected.value <= expected.ci_high


def test_correlation_tile_shows_fishers_interval(app):
    open_section(app, "rates:section", "Correlation", run=False)
    app.switch_page(RATE_PAGE).run()
    approved = (CREDIT["score_logistic"] >= 0.5).astype(float).to_numpy()
    for column, label in (("income", "Correlation score (income)"),
                          ("n_late_payments", "Correlation score (n\\_late\\_payments)")):
        widget(app, "selectbox", "Correlate predictions with").set_value(column).run()
        z = CREDIT[column].to_numpy(dtype=float)
        r = np.corrcoef(approved, z)[0, 1]
        half = norm.ppf(0.975) / math.sqrt(len(z) - 3)
        lo, hi = math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)
        far, near = max(abs(lo), abs(hi)), (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi)))
        assert metrics(app)[label] == f"{formats.tile(-abs(r))}"
        caption = next(c for c in texts(app) if "Fisher" in c)
        assert interval(caption) == (0.95, as_shown(-far), as_shown(-near))
        assert f"{formats.num(lo)} to {formats.num(hi)}" in caption


def test_no_theil_or_correlation_interval_when_intervals_are_off(app):
    open_section(app, "rates:section", "Correlation", run=False)
    app.switch_page(RATE_PAGE).run()
    widget(app, "checkbox", "Show intervals").set_value(False).run()
    assert not app.exception and not app.error
    assert metrics(app)["Correlation score (income)"]
    assert not any("Fisher" in t for t in texts(app))
    open_section(app, "rates:section", "Theil index")
    for label in ("Theil index (max)", "Individual Theil index", "Between-group Theil index"):
        _, captions = tile(app, label)
        assert not any(CI.search(c) for c in captions)
    y, pred, groups = credit()
    assert tile(app, "Individual Theil index")[0] == f"{formats.tile(fc.individual_theil_index(y, pred))}"
    # At 90 %, the intervals are the library's at 90 % and nested in the 95 % ones.
    widget(app, "checkbox", "Show intervals").set_value(True).run()
    widget(app, "selectbox", "Confidence level").set_value(0.90).run()
    narrow = fc.individual_theil_index(y, pred, subgroups=groups, ci=0.90, n_boot=1000, random_state=0)
    assert interval(tile(app, "Individual Theil index")[1][0]) == rounded(narrow)
