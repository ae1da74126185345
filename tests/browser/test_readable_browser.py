"""Every page readable at 1,400 px: no label, tile, header, tab or value cut off, on two real files.

Each page is visited with the Adult two-model file (as a newcomer maps it: the first guess) and with
COMPAS; a screenshot of every page is saved, and every visible text element that hides overflow
(``overflow: hidden|clip`` or an ellipsis) must show all of its text (``scrollWidth <= clientWidth``).
"""

from __future__ import annotations


import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_app_browser import (assert_no_exception, go_to, open_app, screenshot, upload,
                                            upload_compas)
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
    upload(page, adult_two_models_csv, r"adult_two_models\.csv: 16,281 rows")
    # The first guess maps the file: no choice needed (issue 10 item 1).
    cut = _every_page(page, "adult", screenshot_dir)
    assert not cut, "Text cut off:\n" + "\n".join(f"{k}: {v}" for k, v in cut.items())
    console.assert_clean()


def test_compas_every_page_readable(compas_csv, app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    upload_compas(page, compas_csv)
    cut = _every_page(page, "compas", screenshot_dir)
    assert not cut, "Text cut off:\n" + "\n".join(f"{k}: {v}" for k, v in cut.items())
    console.assert_clean()
