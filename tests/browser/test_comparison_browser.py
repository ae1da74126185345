"""Model comparison in Chromium: the Jigsaw madlibs uploaded with its two toxicity models;
"Compare models" draws the subgroup x model heatmaps, the side-by-side disparities with the differences from
a baseline, the calibration side by side and the Overview's performance-vs-disparity scatter, without an
exception or a console error. Screenshots (1400x1000 viewport) are kept for a person to look at; the numbers
are checked in tests/app/test_model_comparison.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import scaled_ms
from tests.browser.test_app_browser import (PLOT, assert_no_exception, choose, go_to, open_app, open_sidebar_section,
                                            open_tab, settle, still, wait_for_plot)

pytestmark = pytest.mark.browser


def show_intervals(page, on: bool) -> None:
    """Set the sidebar's "Show intervals" (the AUC bootstrap of 51 overlapping identity subgroups takes tens of
    seconds per model on a busy machine; the intervals of the comparison are checked in AppTest)."""
    open_sidebar_section(page, "Intervals", "Show intervals")
    box = page.get_by_test_id("stSidebar").get_by_test_id("stCheckbox").filter(has_text="Show intervals")
    if box.locator("input").is_checked() != on:
        box.click()
        settle(page, timeout_s=60)


def shot_of_section(page, path) -> None:
    """A viewport screenshot (1400x1000) that starts at the "Compare models" heading."""
    page.get_by_role("heading", name="Compare models").evaluate("el => el.scrollIntoView({block: 'start'})")
    still(page)
    page.screenshot(path=str(path))


def compare_on(page) -> None:
    """Turn the "Compare models" toggle on (kept across pages: once is enough) and wait for the section."""
    switch = page.get_by_test_id("stCheckbox").filter(has_text="Compare models")
    expect(switch).to_be_visible()
    if not switch.locator("input").is_checked():
        switch.click()
        settle(page)
    expect(page.get_by_role("heading", name="Compare models")).to_be_visible()


def test_madlibs_model_comparison_views(madlibs_csv, app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Upload a file", exact=True).click()
    settle(page)
    file_input = page.locator("input[type=file]")
    expect(file_input).to_be_attached()
    file_input.set_input_files(madlibs_csv)
    expect(page.get_by_text(re.compile(r"madlibs_identities\.csv: 30,240 rows"))).to_be_visible(
        timeout=scaled_ms(60_000))
    settle(page)
    # The first guess maps the label, both models and the 51 identity columns.
    expect(page.get_by_test_id("stMetric").filter(has_text="Rows used")).to_contain_text("30,240")

    show_intervals(page, False)
    go_to(page, "Subgroup AUCs")
    wait_for_plot(page)
    open_tab(page, "Compare models")
    compare_on(page)
    heatmap = page.locator(PLOT).filter(has=page.locator("g.hm")).first
    heatmap.scroll_into_view_if_needed()
    expect(heatmap.locator(".xtick").filter(has_text="TOXICITY@1")).to_have_count(1)
    expect(heatmap.locator(".xtick").filter(has_text="TOXICITY@6")).to_have_count(1)
    assert heatmap.locator(".ytick").count() >= 40  # a row per identity subgroup (small ones included)
    assert_no_exception(page)
    heatmap.screenshot(path=str(screenshot_dir / "compare_auc_heatmap.png"))
    shot_of_section(page, screenshot_dir / "compare_subgroup_aucs.png")

    go_to(page, "Rate disparities")
    open_tab(page, "Compare models")   # a secondary section of the page
    show_intervals(page, True)  # the differences' paired intervals
    open_tab(page, "Compare models")
    expect(page.get_by_role("heading", name="Compare models")).to_be_visible()  # the toggle is kept
    choose(page, "Baseline model", "TOXICITY@6")
    expect(page.get_by_text(re.compile(r"(No difference from TOXICITY@6|Differences whose interval excludes 0)"))
           ).to_be_visible()
    assert_no_exception(page)
    shot_of_section(page, screenshot_dir / "compare_rate_disparities.png")

    go_to(page, "Calibration")
    show_intervals(page, False)
    open_tab(page, "Compare models")
    expect(page.get_by_role("heading", name="Compare models")).to_be_visible()
    assert_no_exception(page)
    shot_of_section(page, screenshot_dir / "compare_calibration.png")

    go_to(page, "Overview")
    expect(page.get_by_role("heading", name="Compare models")).to_be_visible()
    scatter = page.locator(PLOT).filter(has=page.locator("g.scatterlayer")).last
    scatter.scroll_into_view_if_needed()
    expect(scatter.locator("g.trace.scatter")).to_have_count(2)  # one point per model
    expect(scatter.locator("text").filter(has_text="TOXICITY@1")).to_have_count(1)
    assert_no_exception(page)
    scatter.screenshot(path=str(screenshot_dir / "compare_tradeoff.png"))
    shot_of_section(page, screenshot_dir / "compare_overview.png")
    console.assert_clean()
