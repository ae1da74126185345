"""Error bars on every per-subgroup chart, in Chromium (the credit sample; COMPAS's and its Overview are checked in
its one session, test_app_browser.py).

Plotly draws an error bar as an SVG path of class ``xerror`` or ``yerror`` inside the chart; every
per-subgroup chart of every metric page must have some. The numbers behind them are checked in the
AppTest and library suites.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.test_app_browser import (PLOT, assert_no_exception, choose, choose_exactly, go_to, open_app,
                                            open_tab, screenshot, wait_for_plot)

pytestmark = pytest.mark.browser

ERROR_BAR = "path.xerror, path.yerror"


def charts_with_error_bars(page: Page) -> list[int]:
    """Number of error-bar paths in each chart of the page, in page order (but the threshold explorer's,
    whose curves are point estimates across thresholds)."""
    wait_for_plot(page)
    plots = page.locator(PLOT).filter(has_not=page.locator(".gtitle", has_text="across thresholds"))
    return [plots.nth(i).locator(ERROR_BAR).count() for i in range(plots.count())]


def test_every_per_subgroup_chart_has_error_bars(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    # The credit sample as bundled (probability scores, a predicted label, ethnicity), plus a
    # three-class label so the Class-wise page has classes to compare.
    charts = {}
    for title, expected in (("Subgroup AUCs", 1), ("Rate disparities", 2), ("Calibration", 2),
                            ("Dataset metrics", 1)):
        go_to(page, title)
        if title == "Rate disparities":
            open_tab(page, "p% scores")   # the rates chart and, in this section, the p% scores chart
        counts = charts_with_error_bars(page)
        assert len(counts) >= expected, f"{title}: {len(counts)} charts, expected at least {expected}"
        assert all(n > 0 for n in counts), f"{title}: a chart without error bars ({counts})"
        assert_no_exception(page)
        charts[title] = counts
    go_to(page, "Calibration")
    wait_for_plot(page)
    screenshot(page, screenshot_dir / "calibration_intervals.png")

    go_to(page, "Data")
    choose(page, "Label column", "repayment_status")
    choose(page, "Positive label", "default")
    choose(page, "Predicted label column", "predicted_status")
    choose_exactly(page, "Protected attributes", ["sex"])
    go_to(page, "Class-wise bias")
    counts = charts_with_error_bars(page)
    assert counts and all(n > 0 for n in counts), f"Class-wise bias: {counts}"
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "classwise_intervals.png")
    console.assert_clean()
