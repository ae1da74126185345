"""The Over time page in Chromium on the bundled credit sample (its decision_date column is mapped): the verdict
strip, one chart per rule and the subgroups' rates are drawn, the sentences name the month the planted drop first
fails the four-fifths rule, and the page at 1,400 and 1,024 px is kept as screenshots (test-artifacts/screenshots/
and docs/screenshots/over_time_1400.png, over_time_1024.png) for a person to look at, and for the documentation."""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import scaled_ms
from tests.browser.test_app_browser import PLOT, assert_no_exception, go_to, open_app, screenshot, settle, wait_for_plot
from tests.support import ROOT

pytestmark = pytest.mark.browser

DOCS = ROOT / "docs" / "screenshots"
RULES = 6   # score_logistic's five rate rules and the labels' base-rate rule
WIDTHS = (1400, 1024)


def test_over_time_draws_every_chart_and_keeps_screenshots(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    go_to(page, "Over time")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("What changed")).to_be_visible(timeout=scaled_ms(120_000))
    # the strip, one chart per rule, the subgroups' rates
    expect(main.locator(PLOT)).to_have_count(1 + RULES + 1, timeout=scaled_ms(60_000))
    expect(main.get_by_text("first failed in 2024-08").first).to_be_visible()
    strip = main.locator(PLOT).first
    expect(strip.locator(".gtitle")).to_have_text("Verdict per period")
    # every status of the planted drop is in the strip's legend, and each rule is a row of squares
    for status in ("fail", "inconclusive", "pass"):
        expect(strip.locator("g.legend text.legendtext").filter(has_text=status)).to_have_count(1)
    rule_charts = main.locator(PLOT)
    for i in range(1, 1 + RULES):
        expect(rule_charts.nth(i).locator("g.trace.scatter").first).to_be_attached()
        expect(rule_charts.nth(i).locator("path.yerror").first).to_be_attached()
    rates = main.locator(PLOT).last
    expect(rates.locator(".gtitle")).to_have_text("Selection rate per subgroup")
    expect(rates.locator("g.legend text.legendtext")).to_have_count(5)   # Group A ... Group E
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        settle(page)
        wait_for_plot(page)
        assert_no_exception(page)
        path = screenshot_dir / f"over_time_{width}.png"
        screenshot(page, path)
        DOCS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS / path.name)
    console.assert_clean()
