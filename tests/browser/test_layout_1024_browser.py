"""Nothing cut, nothing overlapping at 1,024 x 768 (and at 1,400 x 900), in Chromium.

Each width in a fresh browser session opened at that size (a chart drawn at one width and resized keeps some of its
first layout until it is drawn again). On Rate disparities the first verdict is within the first screen, above the
controls; on every page and the sections that draw charts (the threshold suggestion, the p% scores, the model
comparison's trade-off), no chart's legend overlaps an axis title, no chart's title runs past its edge, no point's
label is struck through by an error bar, and no tab hides its label. The first screens of Rate disparities at both
widths are kept in docs/screenshots/ for a person to look at.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ConsoleLog, scaled_ms
from tests.browser.test_app_browser import assert_no_exception, go_to, open_app, open_tab, settle, wait_for_plot
from tests.support import ROOT
from fairness_dashboard.navigation import TITLES

pytestmark = pytest.mark.browser

DOCS = ROOT / "docs" / "screenshots"
SIZES = ((1024, 768), (1400, 900))

# Per visible chart of the main column: its title, and what overlaps or is cut. Plotly draws a legend as g.legend,
# axis titles as text.xtitle, text.x2title, text.ytitle, ..., the chart's title as .gtitle, a point's label as
# g.textpoint text and error bars as path.xerror / path.yerror.
CHART_DEFECTS = """() => {
  const meets = (a, b) => a.width > 0 && b.width > 0 && a.left < b.right - 0.5 && b.left < a.right - 0.5
                          && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const out = [];
  for (const plot of document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')) {
    if (!plot.getClientRects().length) continue;
    const title = plot.querySelector('.gtitle');
    const name = title ? title.textContent : '(untitled)';
    const found = [];
    const axisTitles = [...plot.querySelectorAll('text')]
      .filter(t => /^[xy]\\d*title$/.test(t.getAttribute('class') || ''));
    for (const legend of plot.querySelectorAll('g.legend')) {
      for (const axis of axisTitles) {
        if (meets(legend.getBoundingClientRect(), axis.getBoundingClientRect()))
          found.push(`legend over the axis title "${axis.textContent}"`);
      }
    }
    const svg = plot.querySelector('.main-svg').getBoundingClientRect();
    const end = title ? title.getBoundingClientRect().right : 0;
    if (end > svg.right + 1)
      found.push(`title cut at the chart's edge (${Math.round(end)} > ${Math.round(svg.right)} px)`);
    const bars = [...plot.querySelectorAll('path.xerror, path.yerror')];
    for (const label of plot.querySelectorAll('g.textpoint text')) {
      for (const bar of bars) {
        if (meets(label.getBoundingClientRect(), bar.getBoundingClientRect()))
          found.push(`label "${label.textContent}" struck through by an error bar`);
      }
    }
    out.push([name, found]);
  }
  return out;
}"""

# The labels of tabs in the main column that lie outside what their tab list shows (a list that scrolls sideways
# hides them behind an arrow).
HIDDEN_TABS = """() => {
  const out = [];
  for (const list of document.querySelectorAll('[data-testid="stMain"] [role="tablist"]')) {
    if (!list.getClientRects().length) continue;
    let left = -Infinity, right = Infinity;
    for (let el = list; el; el = el.parentElement) {
      if (['hidden', 'auto', 'scroll', 'clip'].includes(getComputedStyle(el).overflowX)) {
        const r = el.getBoundingClientRect();
        left = Math.max(left, r.left);
        right = Math.min(right, r.right);
      }
    }
    for (const tab of list.querySelectorAll('[role="tab"]')) {
      const r = tab.getBoundingClientRect();
      const cut = tab.scrollWidth > tab.clientWidth + 1;
      if (r.left < left - 1 || r.right > right + 1 || cut) out.push(tab.textContent.trim());
    }
  }
  return out;
}"""

# (page, its section to open or None, a toggle to switch on or None, a chart title that must then be drawn)
VIEWS = (
    *((title, None, None, None) for title in TITLES),
    ("Subgroup AUCs", "Compare models", None, None),
    ("Rate disparities", "p% scores", None, "Each subgroup against the rest"),
    ("Rate disparities", "Threshold explorer", "Assess every threshold", "against the worst disparity"),
    ("Calibration", "Compare models", None, None),
    ("Overview", None, "Compare models", "against worst disparity"),
)


def first_verdict(page):
    """The first verdict under Policy: a Markdown block that starts with its status badge."""
    return page.get_by_test_id("stMain").get_by_test_id("stMarkdownContainer").filter(
        has_text=re.compile(r"^(Pass|Fail|Inconclusive|Not assessable)\s")).first


@pytest.mark.parametrize("width, height", SIZES, ids=[f"{w}px" for w, _ in SIZES])
def test_verdicts_first_and_nothing_cut_or_overlapping(browser, app_url, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(scaled_ms(30_000))
    page = context.new_page()
    console = ConsoleLog.of(page)
    try:
        open_app(page, app_url)   # the credit sample: two models, so Rate disparities has its seven sections
        go_to(page, "Rate disparities")
        wait_for_plot(page)
        # The first verdict is within the first screen, above the controls (the threshold box comes after it).
        verdict = first_verdict(page)
        expect(verdict).to_be_in_viewport(ratio=1)
        box, threshold = verdict.bounding_box(), page.get_by_label("Decision threshold", exact=True).bounding_box()
        assert box["y"] + box["height"] <= height and box["y"] < threshold["y"], (box, threshold)
        assert page.get_by_test_id("stMain").evaluate("m => m.scrollTop") == 0
        page.screenshot(path=str(DOCS / f"rate_disparities_{width}.png"))   # the first screen a reader sees

        defects = {}
        for title, section, toggle, drawn in VIEWS:
            go_to(page, title)
            if section:
                open_tab(page, section)
            if toggle:
                switch = page.get_by_test_id("stMain").get_by_test_id("stCheckbox").filter(has_text=toggle)
                if not switch.locator("input").is_checked():
                    switch.locator("label").click()
                    settle(page)
                expect(switch.locator("input")).to_be_checked()
            if drawn:
                expect(page.locator(".js-plotly-plot .gtitle", has_text=drawn)).to_have_count(1)
            if page.locator(".js-plotly-plot").count():
                wait_for_plot(page)
            assert_no_exception(page)
            view = " / ".join(p for p in (title, section, toggle) if p)
            found = {chart: issues for chart, issues in page.evaluate(CHART_DEFECTS) if issues}
            hidden = page.evaluate(HIDDEN_TABS)
            if found or hidden:
                defects[view] = {**found, **({"hidden tabs": hidden} if hidden else {})}
        assert not defects, f"At {width} x {height}:\n" + "\n".join(f"{k}: {v}" for k, v in defects.items())
        console.assert_clean()
    finally:
        context.close()
