"""Navigation in Chromium: URL paths equal page titles, a deep link opened first after a server start
gets the app's own navigation, a reload shows a working page, tiles link to their definitions.

A reload starts a new Streamlit session: the upload is gone, and the page reloaded shows the default
sample, which its context line names (no "None", no error, no half-drawn state).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import serve_app, scaled_ms
from tests.browser.test_app_browser import (assert_no_exception, choose, choose_exactly, go_to, open_app, screenshot,
                                            settle, wait_for_plot)
from fairness_dashboard import navigation
from fairness_dashboard.data import loading

pytestmark = pytest.mark.browser

# Opening a page's URL directly, Streamlit's frontend first probes <page>/_stcore/health and
# <page>/_stcore/host-config (404) before the app root (200): streamlit/streamlit#7074, open.
_SUBPAGE_PROBE = re.compile(r"status of 404 .*\(https?://[^/]+/[a-z-]+/_stcore/(health|host-config):")
# Streamlit's file-based names for pages/*.py, which its pages/-directory mode would list.
FILE_NAMES = ["app", "calibration", "classwise", "data", "dataset metrics", "definitions", "overview",
              "rate disparities", "subgroup aucs"]
SAMPLE = loading.SAMPLES[loading.DEFAULT_SAMPLE]["title"]


@pytest.fixture
def fresh_server():
    """A streamlit server of its own, started for this test only, so the test's request is its first."""
    with serve_app("streamlit-fresh-server.log") as (base, _):
        yield base


def nav_titles(page: Page) -> list[str]:
    return page.get_by_test_id("stSidebarNav").get_by_role("link").all_inner_texts()


def main_text(page: Page) -> str:
    return page.get_by_test_id("stMain").inner_text()


def assert_page(page: Page, title: str) -> None:
    """The page titled `title` is shown at its URL path, under the app's navigation, with nothing 'None'."""
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible(timeout=scaled_ms(30_000))
    settle(page)
    path = page.evaluate("location.pathname").strip("/")
    # the default page (Data) is also the app's root
    assert path == navigation.slug(title) or (title == navigation.TITLES[0] and path == ""), (title, page.url)
    assert nav_titles(page) == list(navigation.TITLES)
    assert not re.search(r"\bNone\b", main_text(page)), f"'None' on {title}:\n{main_text(page)}"
    expect(page.get_by_role("dialog")).to_have_count(0)
    assert_no_exception(page)


def context_line(page: Page):
    """The caption at the top of the page that names the dataset, model and slice."""
    return page.get_by_test_id("stMain").get_by_test_id("stCaptionContainer").filter(has_text="slice:").first


def test_deep_link_first_after_a_server_start_gets_the_app_navigation(fresh_server, app_page, screenshot_dir):
    page, console = app_page
    page.goto(f"{fresh_server}/rate-disparities")  # the server's very first request
    assert_page(page, "Rate disparities")
    wait_for_plot(page)
    links = nav_titles(page)
    assert not set(links) & (set(FILE_NAMES) - {"calibration", "overview", "data"}), links
    expect(context_line(page)).to_have_text(re.compile(rf"^{re.escape(SAMPLE)} · model \S+ · slice: all [\d,]+ rows$"))
    screenshot(page, screenshot_dir / "deep_link_first.png")
    # and a second session of the same server gets the same navigation
    page.goto(f"{fresh_server}/calibration")
    assert_page(page, "Calibration")
    console.errors[:] = [e for e in console.errors if not _SUBPAGE_PROBE.search(e)]
    console.assert_clean()


def test_load_change_switch_and_reload(compas_csv, app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Upload a file", exact=True).click()
    page.locator("input[type=file]").set_input_files(compas_csv)
    expect(page.get_by_text(re.compile(r"compas-scores-two-years\.csv: 7,214 rows, \d+ columns, [\d.]+ MB"))
           ).to_be_visible(timeout=scaled_ms(30_000))
    settle(page)
    choose(page, "Label column", "two_year_recid")
    choose(page, "Positive label", "1")
    choose_exactly(page, "Score column", ["decile_score"])
    choose_exactly(page, "Protected attributes", ["race"])
    expect(page.get_by_text("6 subgroups", exact=True)).to_be_visible()
    # an option in the sidebar: the minimum subgroup size
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_test_id("stExpander").filter(has_text="Subgroups").locator("summary").click()
    size = page.get_by_label("Minimum subgroup size", exact=True)
    size.fill("50")
    size.press("Enter")
    settle(page)

    line = "compas-scores-two-years.csv · model decile_score · slice: all 7,214 rows"
    for title in navigation.TITLES[1:]:
        go_to(page, title)
        assert_page(page, title)
        if title != "Metric definitions":
            expect(context_line(page)).to_have_text(line)
    expect(page.get_by_label("Minimum subgroup size", exact=True)).to_have_value("50")

    # back on Data: the loaded file's name and size, and a button to replace it (not an empty uploader)
    go_to(page, "Data")
    assert_page(page, "Data")
    expect(page.get_by_text(re.compile(r"^compas-scores-two-years\.csv: 7,214 rows, \d+ columns, [\d.]+ MB$"))
           ).to_be_visible()
    expect(page.get_by_role("button", name="Replace file")).to_be_visible()
    expect(page.locator("input[type=file]")).to_have_count(0)
    screenshot(page, screenshot_dir / "data_loaded_file.png")
    page.get_by_role("button", name="Replace file").click()
    settle(page)
    expect(page.locator("input[type=file]")).to_be_attached()
    expect(page.get_by_role("button", name="Keep compas-scores-two-years.csv")).to_be_visible()

    # a reload is a new session: the URL's settings ask for their data file (fairness_dashboard.settings.review_url); without it, the same
    # page on the default sample, named by the context line
    go_to(page, "Rate disparities")
    page.reload()
    expect(page.get_by_role("heading", name="Reopen a saved review", level=1)).to_be_visible(timeout=scaled_ms(30_000))
    settle(page)
    page.get_by_role("button", name="Continue without it").click()
    assert_page(page, "Rate disparities")
    wait_for_plot(page)
    expect(context_line(page)).to_contain_text(SAMPLE)
    console.errors[:] = [e for e in console.errors if not _SUBPAGE_PROBE.search(e)]
    console.assert_clean()


def test_tile_help_links_to_the_definition(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    go_to(page, "Rate disparities")
    wait_for_plot(page)
    tile = page.get_by_test_id("stMetric").filter(has_text="Equalized odds").first
    tile.get_by_test_id("stTooltipHoverTarget").first.hover()
    link = page.get_by_test_id("stTooltipContent").get_by_role("link", name="Definition")
    expect(link).to_be_visible()
    href = link.get_attribute("href")
    assert href == "/metric-definitions#equalized-odds", href

    # the link opens the definitions page at that entry (a new tab keeps this page's session)
    with page.context.expect_page() as opened:
        link.click()
    definitions = opened.value
    expect(definitions.get_by_role("heading", name="Metric definitions", level=1)).to_be_visible(
        timeout=scaled_ms(30_000))
    expect(definitions.locator("#equalized-odds")).to_be_in_viewport(timeout=scaled_ms(10_000))
    screenshot(definitions, screenshot_dir / "definition_anchor.png")
    definitions.close()
    console.errors[:] = [e for e in console.errors if not _SUBPAGE_PROBE.search(e)]
    console.assert_clean()
