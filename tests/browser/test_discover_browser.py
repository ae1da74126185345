"""The Discover subgroups page in Chromium on the bundled credit sample: the findings, the chart of the subgroups found
(one marker and error bar each, a line at parity) and the table render at 1,400 and 1,024 px with no text cut and no
console error; the button makes a subgroup found the slice. The numbers are checked in
tests/app/test_discover_page.py. The screenshots are kept for a person to look at, and for the documentation, in
docs/screenshots/ (discover_1400.png, discover_1024.png)."""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import expect

from tests.browser.test_app_browser import (PLOT, TRUNCATED, assert_no_exception, choose_exactly, go_to, open_app,
                                            screenshot, settle, wait_for_plot)
from tests.support import ROOT

pytestmark = pytest.mark.browser

DOCS = ROOT / "docs" / "screenshots"
COLUMNS = ["ethnicity", "sex (not protected)", "age_group (not protected)"]


def test_discover_page_renders_its_findings_chart_and_table(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)   # the credit sample, opened by default
    go_to(page, "Discover subgroups")
    choose_exactly(page, "Columns to search", COLUMNS)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("Findings", exact=True)).to_be_visible()
    expect(main.get_by_text("People with", exact=False).first).to_be_visible()
    chart = main.locator(PLOT).first
    wait_for_plot(page)
    expect(chart.locator("g.trace.scatter")).not_to_have_count(0)
    expect(chart.locator("g.trace.scatter g.points path.point")).to_have_count(10)   # one marker per subgroup
    expect(chart.locator("g.errorbar")).to_have_count(10)
    expect(chart.locator("g.ytick text").filter(has_text="ethnicity = ")).not_to_have_count(0)
    expect(main.get_by_test_id("stDataFrame")).to_be_visible()
    expect(main.get_by_text("held-out rows", exact=False).first).to_be_visible()
    DOCS.mkdir(parents=True, exist_ok=True)
    for width in (1400, 1024):
        page.set_viewport_size({"width": width, "height": 1000})
        settle(page)
        wait_for_plot(page)
        assert_no_exception(page)
        box, frame = chart.bounding_box(), main.bounding_box()
        assert box["x"] >= frame["x"] - 1 and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1, (width, box)
        cut = page.evaluate(TRUNCATED)
        assert not cut, (width, cut)
        shot = screenshot_dir / f"discover_{width}.png"
        screenshot(page, shot)
        shutil.copyfile(shot, DOCS / shot.name)
    # The button makes the subgroup chosen the slice of every page; the sidebar says so.
    main.get_by_role("button", name="Make it the slice of every page").click()
    settle(page)
    expect(main.get_by_text("Every page now analyses the rows of", exact=False)).to_be_visible()
    expect(page.get_by_test_id("stSidebar").get_by_text("of 6,000 rows", exact=False).first).to_be_visible()
    assert_no_exception(page)
    console.assert_clean()
