"""Sample weights in Chromium: a weight column is proposed from its name and values and applied by its button (never
unasked), the Data page shows the effective sample size, and the pages' numbers are the weighted ones until the weights are taken off. The
AppTest suite checks every page's numbers against independent weighted computations
(tests/app/test_weights_app.py); here the browser shows them."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from sklearn.metrics import roc_auc_score

from tests.app.test_weights_app import _frame as weighted_frame
from tests.browser.test_app_browser import (assert_no_exception, go_to, open_app, screenshot, settle, upload,
                                            wait_for_plot)
from fairness_dashboard.presentation import labels

pytestmark = pytest.mark.browser


def test_a_weight_column_weights_every_page(app_page, app_url, screenshot_dir, tmp_path):
    page, console = app_page
    frame = weighted_frame()
    path = tmp_path / "weighted.csv"
    frame.to_csv(path, index=False)
    w = frame["weight"].to_numpy()
    effective = w.sum() ** 2 / (w ** 2).sum()
    open_app(page, app_url)
    upload(page, path, r"weighted\.csv: 4,000 rows")
    # the weight column is proposed from its name and values, applied by its button, and the Data page then says
    # what it does to the sizes
    expect(page.get_by_text("effective sample size", exact=False)).to_have_count(0)
    box = page.get_by_role("combobox", name=labels.WEIGHT_COLUMN, exact=True)
    expect(box).to_have_attribute("placeholder", labels.NO_WEIGHT)   # "no weights" shown as the choice, not blank
    page.get_by_role("button", name="Weigh the rows by weight").click()
    expect(page.get_by_role("combobox", name=labels.WEIGHT_COLUMN, exact=True)).to_have_value("weight")
    expect(page.get_by_text(f"effective sample size {effective:,.0f} (Kish)")).to_be_visible()
    screenshot(page, screenshot_dir / "weights_data.png")

    weighted = roc_auc_score(frame["label"], frame["score_a"], sample_weight=w)
    plain = roc_auc_score(frame["label"], frame["score_a"])
    assert f"{weighted:.3f}" != f"{plain:.3f}"
    overall = page.get_by_test_id("stMetric").filter(has_text="Overall AUC")
    go_to(page, "Subgroup AUCs")
    expect(overall).to_contain_text(f"{weighted:.3f}")
    wait_for_plot(page)
    screenshot(page, screenshot_dir / "weights_subgroup_aucs.png")
    go_to(page, "Overview")
    expect(page.get_by_text(re.compile(r"^Bottom line for score_a, weighted by weight\."))).to_be_visible()
    screenshot(page, screenshot_dir / "weights_overview.png")
    for title in ("Rate disparities", "Calibration", "Dataset metrics"):   # findings and verdicts say so
        go_to(page, title)
        assert_no_exception(page)
        expect(page.get_by_text(re.compile("Weighted: ")).filter(visible=True).first).to_be_visible()

    go_to(page, "Data")
    box = page.get_by_role("combobox", name=labels.WEIGHT_COLUMN, exact=True)
    box.click()
    box.fill(labels.NO_WEIGHT)
    page.get_by_role("option", name=labels.NO_WEIGHT, exact=True).click()   # None: shown as its placeholder
    settle(page)
    expect(box).to_have_value("")
    expect(box).to_have_attribute("placeholder", labels.NO_WEIGHT)
    expect(page.get_by_text("effective sample size", exact=False)).to_have_count(0)
    go_to(page, "Subgroup AUCs")
    expect(overall).to_contain_text(f"{plain:.3f}")
    console.assert_clean()
