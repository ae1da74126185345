"""Every page readable at 1,400 px: no label, tile, header, tab or value cut off, on two real files.

Each page is visited with the Adult two-model file (as a newcomer maps it: the first guess) and with
COMPAS; a screenshot of every page is saved, and every visible text element that hides overflow
(``overflow: hidden|clip`` or an ellipsis) must show all of its text (``scrollWidth <= clientWidth``).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_app_browser import (assert_no_exception, choose, choose_exactly, go_to, open_app, settle,
                                            screenshot)
from ui.navigation import TITLES

pytestmark = pytest.mark.browser

# Text that can be cut: tiles, widget labels and values, headings, tabs, expanders, captions, navigation.
TRUNCATED = """() => {
  const selectors = ['[data-testid="stMetricLabel"]', '[data-testid="stMetricValue"]', '[data-testid="stWidgetLabel"]',
    '[data-testid="stHeading"]', 'button[role="tab"]', '[data-testid="stExpander"] summary',
    '[data-testid="stCaptionContainer"]', '[data-testid="stSidebarNav"] a', 'input[role="combobox"]',
    '[data-testid="stMarkdownContainer"]', '[data-testid="stPageLink"]', '[data-testid="stAlertContainer"]'];
  const out = [];
  const seen = new Set();
  for (const selector of selectors) {
    for (const root of document.querySelectorAll(selector)) {
      for (const el of [root, ...root.querySelectorAll('*')]) {
        if (seen.has(el) || !el.getClientRects().length) continue;
        if (el.closest('.katex-mathml')) continue;  // KaTeX's MathML copy for screen readers, visually hidden
        seen.add(el);
        const style = getComputedStyle(el);
        const hides = ['hidden', 'clip'].includes(style.overflowX) || style.textOverflow === 'ellipsis'
          || el.tagName === 'INPUT';
        if (hides && el.scrollWidth > el.clientWidth + 1) {
          out.push(`${selector}: "${(el.value || el.textContent || '').trim().slice(0, 80)}" `
                   + `(${el.scrollWidth} > ${el.clientWidth} px)`);
        }
      }
    }
  }
  return out;
}"""


def _every_page(page: Page, name: str, screenshot_dir) -> dict:
    found = {}
    for title in TITLES:
        go_to(page, title)
        if page.locator(".js-plotly-plot").count():
            expect(page.locator(".js-plotly-plot").first).to_be_visible()
        page.wait_for_timeout(300)
        assert_no_exception(page)
        screenshot(page, screenshot_dir / f"readable_{name}_{title.lower().replace(' ', '_')}.png")
        cut = page.evaluate(TRUNCATED)
        if cut:
            found[title] = cut
    return found


def test_adult_two_models_every_page_readable(adult_two_models_csv, app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Upload a file", exact=True).click()
    page.locator("input[type=file]").set_input_files(adult_two_models_csv)
    expect(page.get_by_text(re.compile(r"adult_two_models\.csv: 16,281 rows"))).to_be_visible(timeout=30_000)
    settle(page)
    # The first guess maps the file: no choice needed (issue 10 item 1).
    cut = _every_page(page, "adult", screenshot_dir)
    assert not cut, "Text cut off:\n" + "\n".join(f"{k}: {v}" for k, v in cut.items())
    console.assert_clean()


def test_compas_every_page_readable(compas_csv, app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Upload a file", exact=True).click()
    page.locator("input[type=file]").set_input_files(compas_csv)
    expect(page.get_by_text(re.compile(r"compas-scores-two-years\.csv: 7,214 rows"))).to_be_visible(timeout=30_000)
    settle(page)
    choose(page, "Label column", "two_year_recid")
    choose(page, "Positive label", "1")
    choose_exactly(page, "Score column", ["decile_score"])
    choose_exactly(page, "Protected attributes", ["race"])
    cut = _every_page(page, "compas", screenshot_dir)
    assert not cut, "Text cut off:\n" + "\n".join(f"{k}: {v}" for k, v in cut.items())
    console.assert_clean()
