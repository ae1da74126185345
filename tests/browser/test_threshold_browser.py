"""The threshold explorer in Chromium: its charts render with the band and the threshold line, the slider
and the number box move the same threshold, and the page's numbers follow. Numbers are checked in
tests/app/test_threshold_explorer.py; here the browser checks rendering and the widgets' round trip."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import scaled_ms
from tests.browser.test_app_browser import (PLOT, assert_no_exception, go_to, open_app, open_tab, settle,
                                            still, wait_for_plot)

pytestmark = pytest.mark.browser

EXPLORER_TITLE = "across thresholds"


def explorer_plots(page: Page):
    return page.locator(PLOT).filter(has=page.locator(".gtitle", has_text=EXPLORER_TITLE))


def tile_value(page: Page, label: str) -> str:
    metric = page.get_by_test_id("stMetric").filter(has=page.get_by_test_id("stMetricLabel").get_by_text(
        label, exact=True))
    return metric.get_by_test_id("stMetricValue").inner_text()


def threshold_box(page: Page):
    return page.get_by_test_id("stNumberInput").filter(has_text="Decision threshold").locator("input")


def slider_thumb(page: Page):
    """The slider's range input (react-aria: a hidden <input type=range> inside the thumb)."""
    return page.get_by_test_id("stSlider").filter(has_text="Move the threshold").locator("input[type=range]")


def slider_shows(page: Page):
    return page.get_by_test_id("stSlider").filter(has_text="Move the threshold").get_by_test_id("stSliderThumbValue")


def scroll_to(page: Page, heading: str) -> None:
    """Scroll the main area so that `heading` is at the top of the viewport."""
    page.get_by_role("heading", name=heading).evaluate("h => h.scrollIntoView({block: 'start'})")
    still(page)


def test_explorer_band_line_and_slider(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    go_to(page, "Rate disparities")
    wait_for_plot(page)
    open_tab(page, "Threshold explorer")
    heading = page.get_by_role("heading", name="Threshold explorer")
    heading.scroll_into_view_if_needed()
    plots = explorer_plots(page)
    expect(plots).to_have_count(1)  # one chart, a panel per rate (the defaults: false positive and negative rate)
    # the page's other chart (the rates): the closed sections' charts (ratio scores) are not drawn
    expect(page.locator(PLOT).filter(has_not=page.locator(".gtitle", has_text=EXPLORER_TITLE))).to_have_count(1)
    first = plots.first
    first.scroll_into_view_if_needed()
    expect(first.locator(".main-svg").first).to_be_attached()
    # a panel per rate, titled; the band (shaded rectangles below the lines) and the threshold line and its label
    # in each; one legend entry for the band and one per subgroup
    for title in ("False positive rate", "False negative rate"):
        expect(first.locator(".annotation-text").filter(has_text=re.compile(f"^{title}$"))).to_have_count(1)
    assert first.locator(".layer-below .shapelayer path").count() >= 2
    assert first.locator(".layer-above .shapelayer path").count() == 2
    expect(first.get_by_text("chosen threshold 0.5", exact=True)).to_have_count(2)
    expect(first.locator(".legendtext").filter(has_text="holds")).to_have_count(1)
    expect(first.locator(".legendtext").filter(has_text="All rows")).to_have_count(1)

    before = tile_value(page, "False positive rate disparity (max)")
    assert threshold_box(page).input_value() == "0.5"
    thumb = slider_thumb(page)
    expect(thumb).to_have_value("0.5")
    expect(slider_shows(page)).to_have_text("0.5")
    thumb.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    settle(page)
    expect(threshold_box(page)).to_have_value("0.53")
    expect(slider_thumb(page)).to_have_value("0.53")
    expect(slider_shows(page)).to_have_text("0.53")
    expect(explorer_plots(page).first.get_by_text("chosen threshold 0.53", exact=True)).to_have_count(2)
    after = tile_value(page, "False positive rate disparity (max)")
    assert after != before, (before, after)

    # the number box moves the slider
    box = threshold_box(page)
    box.fill("0.42")
    box.press("Enter")
    settle(page)
    expect(slider_thumb(page)).to_have_value("0.42")
    expect(slider_shows(page)).to_have_text("0.42")
    expect(explorer_plots(page).first.get_by_text("chosen threshold 0.42", exact=True)).to_have_count(2)
    assert_no_exception(page)

    scroll_to(page, "Threshold explorer")
    page.screenshot(path=str(screenshot_dir / "threshold_explorer.png"))
    open_tab(page, "Performance at the threshold")   # at the threshold the slider chose
    expect(page.get_by_test_id("stMetric").filter(has_text="Accuracy")).to_be_visible()
    scroll_to(page, "Performance at the threshold")
    page.screenshot(path=str(screenshot_dir / "performance_at_threshold.png"))
    open_tab(page, "Threshold explorer")

    # per-subgroup thresholds: a box per subgroup, the table and the sentence
    page.get_by_test_id("stCheckbox").filter(has_text="Per-subgroup thresholds").locator("label").click()
    settle(page)
    group_a = page.get_by_test_id("stNumberInput").filter(has_text="Group A").locator("input")
    expect(group_a).to_have_value("0.42")
    group_a.fill("0.55")
    group_a.press("Enter")
    settle(page)
    expect(page.get_by_text("With these thresholds, overall accuracy is")).to_be_visible()
    page.get_by_test_id("stCheckbox").filter(has_text="Per-subgroup thresholds").scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollBy(0, 200)")
    still(page)
    page.screenshot(path=str(screenshot_dir / "per_subgroup_thresholds.png"))
    assert_no_exception(page)

    # suggested per-subgroup thresholds say the gap to expect on new rows
    suggest = page.get_by_test_id("stExpander").filter(has_text="Suggest per-subgroup thresholds")
    suggest.locator("summary").click()
    settle(page)
    expect(suggest.get_by_text("on new rows of the same sizes expect up to")).to_be_visible()
    suggest.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "suggest_group_thresholds.png"))
    assert_no_exception(page)

    # suggest a threshold: every threshold assessed with intervals, the trade-off chart and the summary (on the
    # credit sample no threshold passes every rule with its interval, so the best threshold where none fails is
    # offered, said as such; tests/app/test_suggest_app.py applies a passing one)
    page.get_by_test_id("stCheckbox").filter(has_text="Assess every threshold").locator("label").click()
    settle(page, timeout_s=120)
    summary = page.get_by_text("Every rule passes at:")
    expect(summary).to_be_visible(timeout=scaled_ms(60_000))
    expect(page.get_by_text(re.compile(r"No threshold passes every rule with its interval\. Suggested: \S+, the "
                                       r"threshold where no rule fails"))).to_be_visible()
    expect(page.get_by_role("button", name=re.compile(r"^Apply the threshold \S+ to every page$"))).to_be_visible()
    tradeoff = page.locator(PLOT).filter(has=page.locator(".gtitle", has_text="against the worst disparity"))
    expect(tradeoff).to_have_count(1)
    expect(tradeoff.locator(".legendtext").filter(has_text="fail")).to_have_count(1)
    expect(tradeoff.locator(".legendtext").filter(has_text="current")).to_have_count(1)
    summary.scroll_into_view_if_needed()
    still(page)
    page.screenshot(path=str(screenshot_dir / "suggest_threshold.png"))
    assert_no_exception(page)
    console.assert_clean()
