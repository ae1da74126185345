"""The Metric definitions page in Chromium: every formula rendered by KaTeX, no errors, a screenshot."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import scaled_ms
from tests.browser.test_app_browser import assert_no_exception, go_to, open_app, screenshot, settle
from fairness_dashboard.presentation import definitions as defs

pytestmark = pytest.mark.browser

TITLE = "Metric definitions"
# Opening a page's URL directly, Streamlit's frontend first probes <page>/_stcore/health and
# <page>/_stcore/host-config (404) before the app root (200): streamlit/streamlit#7074, open.
_SUBPAGE_PROBE = re.compile(r"status of 404 .*\(https?://[^/]+/metric-definitions/_stcore/(health|host-config):")


def _open(page, console, app_url: str) -> None:
    # a page's URL path is its title in lowercase with hyphens (fairness_dashboard.navigation)
    page.goto(f"{app_url}/metric-definitions")
    expect(page.get_by_role("heading", name=TITLE, level=1)).to_be_visible(timeout=scaled_ms(30_000))
    settle(page)
    console.errors[:] = [e for e in console.errors if not _SUBPAGE_PROBE.search(e)]


def _assert_every_entry_rendered(page) -> None:
    # one KaTeX display per st.latex, each with its rendered HTML and no parse error
    displays = page.locator(".katex-display")
    expect(displays).to_have_count(len(defs.METRICS))
    assert page.locator(".katex").count() >= len(defs.METRICS)
    errors = page.locator(".katex-error")
    assert errors.count() == 0, "KaTeX could not parse:\n" + "\n".join(
        errors.evaluate_all("els => els.map(e => e.getAttribute('title') || e.textContent)"))
    assert page.locator(".katex-display .katex-html").count() == len(defs.METRICS)
    # no formula is wider than the column it sits in (it would need a scroll bar to be read)
    too_wide = page.locator(".katex-display").evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.closest('[data-testid=\"stElementContainer\"]').clientWidth)"
        ".map(e => e.textContent.slice(0, 40))")
    assert not too_wide, f"formulas wider than the page: {too_wide}"
    # the guide and every entry are on the page
    expect(page.get_by_role("heading", name="Which metrics to look at")).to_be_visible()
    for question in defs.GUIDE:
        expect(page.get_by_text(question.question)).to_be_visible()
    for metric in defs.METRICS:
        expect(page.locator(f"#{metric.key}")).to_be_attached()
    assert_no_exception(page)


def test_page_url_renders_every_formula(app_page, app_url):
    page, console = app_page
    _open(page, console, app_url)
    _assert_every_entry_rendered(page)
    console.assert_clean()


def test_sidebar_link_renders_every_formula_and_guide_links_jump(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    go_to(page, TITLE)
    assert urlparse(page.url).path.rstrip("/").endswith("/metric-definitions")   # (the settings in its query)
    _assert_every_entry_rendered(page)
    screenshot(page, screenshot_dir / "definitions.png")

    # a guide answer links to its entry; following the link scrolls the entry's heading into view
    page.get_by_role("link", name="False discovery rate", exact=True).first.click()
    expect(page.locator("#fdr")).to_be_in_viewport()
    assert_no_exception(page)
    console.assert_clean()
