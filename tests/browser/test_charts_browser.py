"""The pairwise heatmap and the worst-first order in Chromium: the heatmap is drawn with one
cell per pair, and a screenshot of it and of the fitted AUC axis is kept for a person to look at. Every chart's
margins fit its labels before it is drawn, so that Plotly draws it once."""

from __future__ import annotations

import pytest

from playwright.sync_api import expect

from tests.browser.test_app_browser import (PLOT, assert_no_exception, choose, choose_exactly, go_to, open_app,
                                            open_sidebar_section, open_tab, screenshot, settle, wait_for_plot)

pytestmark = pytest.mark.browser


def test_pairwise_heatmap_and_fitted_auc_axis(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    go_to(page, "Subgroup AUCs")
    wait_for_plot(page)
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "auc_fitted_axis.png")
    go_to(page, "Rate disparities")
    choose(page, "Reference", "every other subgroup (pairwise)")
    settle(page)
    wait_for_plot(page)
    assert_no_exception(page)
    heatmap = page.locator(PLOT).filter(has=page.locator("g.hm")).first
    heatmap.scroll_into_view_if_needed()
    assert heatmap.locator("g.hm image, g.hm").count() >= 1
    # five ethnicity subgroups: one text label per off-diagonal cell (20), none on the diagonal
    texts = heatmap.locator("g.textpoint, text.textpoint")
    assert texts.count() in (0, 20)
    heatmap.screenshot(path=str(screenshot_dir / "pairwise_heatmap.png"))
    console.assert_clean()


def test_sidebar_subgroup_options_and_classwise_absolute_difference(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    open_sidebar_section(page, "Subgroups", "Include small subgroups in summaries")
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("Order subgroups")).to_be_visible()
    sidebar.screenshot(path=str(screenshot_dir / "sidebar_subgroup_options.png"))
    choose(page, "Label column", "repayment_status")
    choose(page, "Positive label", "default")
    choose(page, "Predicted label column", "predicted_status")
    choose_exactly(page, "Protected attributes", ["sex"])
    go_to(page, "Class-wise bias")
    choose(page, "Across subgroups", "difference of two subgroups")
    settle(page)
    wait_for_plot(page)
    assert_no_exception(page)
    assert page.get_by_text("shown: absolute", exact=False).count() == 1
    screenshot(page, screenshot_dir / "classwise_absolute_difference.png")
    console.assert_clean()


# Each visible chart: its title and the margins Plotly grew beyond those the figure asked for (a growth is a second
# drawing of the whole chart).
GROWN = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
  .filter(gd => gd.getClientRects().length)
  .map(gd => { const asked = gd.layout.margin || {}, size = gd._fullLayout._size, title = gd.querySelector('.gtitle');
    return [title ? title.textContent : '(untitled)',
            [...'lrtb'].filter(k => size[k] > (asked[k] || 0) + 0.5).map(k => `${k}: ${asked[k]} -> ${size[k]}`)]; })"""


def test_charts_are_drawn_once_their_margins_fit_their_labels(app_page, app_url):
    """At 1,400 and 1,024 px wide, no chart of the metric pages grows a margin after its first drawing."""
    page, console = app_page
    open_app(page, app_url)
    for width in (1400, 1024):
        page.set_viewport_size({"width": width, "height": 1000})
        for title, tab in (("Subgroup AUCs", None), ("Rate disparities", "Threshold explorer"),
                           ("Rate disparities", "p% scores"), ("Calibration", None), ("Class-wise bias", None),
                           ("Dataset metrics", None), ("Overview", None)):
            go_to(page, title)
            if tab:
                open_tab(page, tab)
            wait_for_plot(page)
            charts = page.evaluate(GROWN)
            assert charts, (width, title)
            assert [c for c in charts if c[1]] == [], (width, title, charts)
    assert_no_exception(page)
    console.assert_clean()
