"""The Overview's answer above the fold with 8 rules: at 1,024 x 768 and at 1,400 x 900 every row of
the scorecard lies inside the first screen, nothing in the answer is cut, and the screenshots are kept in
docs/screenshots/ (scorecard_1024.png, scorecard_1400.png).

The 8 rules: the credit sample (score_logistic, a probability, at its kept threshold) with four rates chosen on Rate
disparities, under the difference distance: the four-fifths and equal-opportunity rules, a bound on each of the four
rates' gaps and on equalized odds, and the calibration rule.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_app_browser import (PLOT, TRUNCATED, assert_no_exception, choose_exactly, go_to, open_app,
                                            screenshot, settle, upload, wait_for_plot)
from tests.support import ROOT

pytestmark = pytest.mark.browser

CREDIT = ROOT / "sample_data" / "credit_decisions.csv"
RATES = ["False positive rate", "False negative rate", "Selection rate", "True positive rate"]
ROWS = 8
DOCS = ROOT / "docs" / "screenshots"
SIZES = ((1024, 768), (1400, 900))


def test_eight_rules_above_the_fold_at_both_sizes(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    upload(page, CREDIT, r"credit_decisions\.csv: 6,000 rows")
    go_to(page, "Rate disparities")
    choose_exactly(page, "Rates", RATES)
    go_to(page, "Overview")
    main = page.get_by_test_id("stMain")
    scorecard = main.locator(PLOT).first
    expect(scorecard.locator("g.trace.scatter")).to_have_count(ROWS)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        settle(page)
        wait_for_plot(page)
        main.evaluate("m => m.scrollTo(0, 0)")
        assert_no_exception(page)
        # Each row is its name (an annotation above the bar) and its bar (the row's plot area): both inside the
        # first screen, and inside the chart's width.
        names = scorecard.locator("text.annotation-text").filter(has_text=" against ")
        expect(names).to_have_count(ROWS)
        rows = scorecard.locator("g.cartesianlayer g.subplot rect.nsewdrag")
        if not rows.count():
            rows = scorecard.locator("rect.nsewdrag")
        assert rows.count() == ROWS, rows.count()
        chart = scorecard.bounding_box()
        for locator in (names, rows):
            for i in range(ROWS):
                box = locator.nth(i).bounding_box()
                assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, (width, i, box)
                assert box["x"] >= chart["x"] - 1 and box["x"] + box["width"] <= chart["x"] + chart["width"] + 1, (
                    width, i, box, chart)
        # The printed values right of the rows: in the first screen, and not cut by the chart's right edge.
        values = scorecard.locator("text.annotation-text").filter(has_text=")")
        for i in range(values.count()):
            box = values.nth(i).bounding_box()
            assert box["y"] + box["height"] <= height and box["x"] + box["width"] <= chart["x"] + chart["width"] + 1, (
                width, i, box, chart)
        cut = page.evaluate(TRUNCATED)
        assert not cut, (width, cut)
        DOCS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOCS / f"scorecard_{width}.png"))   # the first screen, as a reader sees it
    # Below it, collapsed: each rule per subgroup, one panel per row of the scorecard, nothing cut.
    box = main.get_by_test_id("stExpander").filter(has_text="Each rule per subgroup")
    box.locator("summary").click()
    view = box.locator(PLOT)
    expect(view.locator("g.trace.scatter")).to_have_count(ROWS)
    expect(view.locator("text.annotation-text").filter(has_text="passes if")).to_have_count(ROWS)
    settle(page)
    assert not page.evaluate(TRUNCATED)
    box.scroll_into_view_if_needed()
    screenshot(page, screenshot_dir / "rule_subgroups_1400.png")
    console.assert_clean()
