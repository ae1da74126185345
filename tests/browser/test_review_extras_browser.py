"""Per-model threshold boxes in the model comparison, in Chromium: typing a model's threshold there moves only
that model, and the current model's box and the page's Decision threshold show one value. A screenshot of the
section (1400x1000) is kept for a person to look at; the numbers are checked in
tests/app/test_review_extras_app.py."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_app_browser import assert_no_exception, go_to, open_app, open_tab, set_threshold, settle
from tests.browser.test_comparison_browser import compare_on, shot_of_section

pytestmark = pytest.mark.browser


def test_per_model_threshold_boxes(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)  # the credit sample: two score columns
    go_to(page, "Rate disparities")
    open_tab(page, "Compare models")
    compare_on(page)

    def box(score: str):  # the label is Markdown (escaped), so found by its shown text
        return page.get_by_test_id("stNumberInput").filter(has_text=f"Threshold of {score}").locator("input")

    box("score_boosting").fill("0.7")
    box("score_boosting").press("Enter")
    settle(page)
    expect(page.get_by_label("Decision threshold", exact=True)).to_have_value("0.5")
    set_threshold(page, "0.4")  # the page's box moves the current model's box in the comparison
    expect(box("score_logistic")).to_have_value("0.4")
    expect(box("score_boosting")).to_have_value("0.7")
    assert_no_exception(page)
    shot_of_section(page, screenshot_dir / "compare_threshold_boxes.png")
    console.assert_clean()
