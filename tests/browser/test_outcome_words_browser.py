"""The words of an outcome in Chromium: on an adverse label (deny = yes) the Data page offers two
optional boxes of words for the predictions, their placeholders the values as written; given "denied" and
"approved", the Rate disparities page's findings say who was labelled and predicted what in those words."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_app_browser import (assert_no_exception, choose, go_to, open_app, screenshot, set_threshold,
                                            settle, upload)
from tests.fairness_core.test_outcome import credit
from fairness_dashboard.presentation import labels

pytestmark = pytest.mark.browser


def test_words_for_the_predictions_reach_the_findings(app_page, app_url, screenshot_dir, tmp_path):
    page, console = app_page
    path = tmp_path / "bank.csv"
    credit(n=3000, seed=7).to_csv(path, index=False)
    open_app(page, app_url)
    upload(page, path, r"bank\.csv: 3,000 rows")
    choose(page, labels.POSITIVE_LABEL, "yes")
    positive = page.get_by_label(labels.WORD_POSITIVE, exact=True)
    negative = page.get_by_label(labels.WORD_NEGATIVE, exact=True)
    expect(positive).to_have_attribute("placeholder", "as written: predicted deny = yes")
    expect(negative).to_have_attribute("placeholder", "as written: predicted deny ≠ yes")
    for box, word in ((positive, "denied"), (negative, "approved")):
        box.fill(word)
        box.press("Enter")
        settle(page)
    expect(page.get_by_text(re.compile(r"A positive prediction means deny = yes \(said “denied” in the findings\), "
                                       r"which is adverse"))).to_be_visible()
    screenshot(page, screenshot_dir / "outcome_words_data.png")
    go_to(page, "Rate disparities")
    set_threshold(page, "0.5")
    assert_no_exception(page)
    expect(page.get_by_text(re.compile(r"^People in Black who were labelled approved were denied at ")).first) \
        .to_be_visible()
    screenshot(page, screenshot_dir / "outcome_words_rates.png")
    console.assert_clean()
