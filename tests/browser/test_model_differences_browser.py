"""Differences from a baseline model for the AUCs and the ECE in Chromium, on the bundled credit
sample (two probability scores): the "Compare models" sections of Subgroup AUCs and Calibration draw the
difference tables and their summaries without an exception or a console error. Screenshots (1400x1000) are kept
for a person to look at; the numbers are checked in tests/app/test_model_comparison_diffs.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_app_browser import assert_no_exception, go_to, open_app, open_tab, still
from tests.browser.test_comparison_browser import compare_on

pytestmark = pytest.mark.browser

SUMMARY = re.compile(r"(differences have an interval that excludes 0|No difference from score_)")


def shot_of_differences(page, path) -> None:
    """A viewport screenshot that starts at the Baseline model picker."""
    page.get_by_test_id("stSelectbox").filter(has_text="Baseline model").evaluate(
        "el => el.scrollIntoView({block: 'start'})")
    still(page)
    page.screenshot(path=str(path))


def test_auc_and_ece_differences_from_a_baseline(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    go_to(page, "Subgroup AUCs")
    open_tab(page, "Compare models")
    compare_on(page)
    expect(page.get_by_test_id("stSelectbox").filter(has_text="Baseline model")).to_be_visible()
    expect(page.get_by_text(re.compile("DeLong's paired variance of two AUCs"))).to_be_visible()
    expect(page.get_by_text(SUMMARY).first).to_be_visible()
    assert_no_exception(page)
    shot_of_differences(page, screenshot_dir / "compare_auc_differences.png")

    go_to(page, "Calibration")
    open_tab(page, "Compare models")
    expect(page.get_by_role("heading", name="Compare models")).to_be_visible()    # the toggle is kept
    expect(page.get_by_text(re.compile("a paired bootstrap .* recomputes both models' ECE"))).to_be_visible()
    expect(page.get_by_text(SUMMARY).first).to_be_visible()
    assert_no_exception(page)
    shot_of_differences(page, screenshot_dir / "compare_ece_differences.png")
    console.assert_clean()
