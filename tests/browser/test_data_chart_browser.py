"""The Data page's base-rate chart in Chromium: collapsed under the subgroups' table, yet the chart library is loaded
when the app opens (so the first metric page does not wait for it), and opening it shows one bar per subgroup."""

import re

import pytest

from tests.browser.test_app_browser import open_app, settle

pytestmark = pytest.mark.browser


def test_base_rate_chart_is_collapsed_and_the_chart_library_is_loaded_at_open(app_page, app_url, screenshot_dir):
    page, log = app_page
    open_app(page, app_url)
    chart = page.get_by_test_id("stPlotlyChart")
    chart.wait_for(state="attached")   # drawn by the chart component, which loads the library first
    settle(page)
    loaded = page.evaluate("() => performance.getEntriesByType('resource').map(e => e.name.split('/').pop())")
    assert any(name.startswith("PlotlyChart") for name in loaded), loaded
    assert chart.count() == 1 and not chart.is_visible()   # in the collapsed expander
    page.get_by_test_id("stExpander").filter(has_text="Base rate per subgroup (chart)").locator("summary").click()
    settle(page)
    assert chart.is_visible() and chart.locator(".main-svg").count() >= 1
    assert chart.locator(".gtitle").text_content() == "Base rate per subgroup"
    bars = page.evaluate("() => document.querySelector('[data-testid=stPlotlyChart] .js-plotly-plot').data[0].y")
    shown = page.get_by_test_id("stMarkdownContainer").filter(has_text=re.compile(r"^\d+ subgroups\.")).inner_text()
    assert len(bars) == int(shown.split()[0]), (len(bars), shown)
    chart.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "data_base_rates.png"), full_page=True)
    log.assert_clean()
