"""Markup in the data never runs, links, loads or formats, in the app or in its HTML report (Chromium).

The file of tests/hostile_data.py (its name, column names, subgroups and label values hold
``<script>``, ``<img onerror>``, Markdown links and images, LaTeX, ``:red[...]``, ``http://`` URLs and
an ``=HYPERLINK(`` formula) is uploaded, every page is visited through the navigation (the
comparison of two models on, a named reference chosen), and the review's report is downloaded
and opened from file://. Throughout: no dialog opens, no request leaves the app's origin (the
report makes none at all), no <a> or <img> points at the hostile hosts, and the text reads as
it is in the file. st.dataframe offers no verbatim "Download as CSV" (``client.disableDataExport``).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests import hostile_data as hostile
from tests.browser.conftest import ConsoleLog, scaled_ms
from tests.browser.test_app_browser import (PLOT, assert_no_exception, choose, go_to, open_app, open_overview_details,
                                            open_tab, screenshot, settle, still, wait_for_plot)
from tests.browser.test_comparison_browser import compare_on
from fairness_dashboard import navigation

pytestmark = pytest.mark.browser

ZWJ = "\u200d"  # fairness_dashboard.presentation.escape.md and plotting.plot_text break URLs, e-mails and :directives with it; it is invisible
# Links and images whose address holds a hostile host, in HTML or SVG (Plotly), and any element loading one.
HOSTILE_ELEMENTS = """() => [...document.querySelectorAll('a, img, image, [src], [href], [srcset]')]
  .map(e => [e.tagName, e.getAttribute('href') || e.getAttribute('xlink:href') || e.getAttribute('src')
             || e.getAttribute('srcset') || ''])
  .filter(([tag, url]) => /evil|2130706433/.test(url))"""
# The app's main area (the sidebar's st.text shows the file name as plain text anyway), or the report's body.
VISIBLE_TEXT = "() => (document.querySelector('[data-testid=\"stMain\"]') || document.body).innerText"
PLOT_TEXT = "() => [...document.querySelectorAll('.js-plotly-plot')].map(p => p.textContent).join('\\n')"
LATEX = ".katex, .katex-display"


class Watch:
    """Dialogs opened and requests made by every page of a browser context."""

    def __init__(self, context):
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        context.on("request", lambda request: self.requests.append(request.url))
        context.on("page", self.page)

    def page(self, page) -> None:
        def dismiss(dialog):
            self.dialogs.append(f"{dialog.type}: {dialog.message}")
            dialog.dismiss()

        page.on("dialog", dismiss)

    def elsewhere(self, *allowed: str) -> list[str]:
        """Requests whose URL starts with none of `allowed` (data: and blob: URLs never leave the page)."""
        return [url for url in self.requests if not url.startswith(("data:", "blob:", *allowed))]


def shown(page) -> str:
    """The page's visible text, joiners removed (they are invisible)."""
    return page.evaluate(VISIBLE_TEXT).replace(ZWJ, "")


visited: set = set()  # page titles checked, for the last assertion (every page of the navigation)


def check(page, watch: Watch, origin: str, where: str, expected=(), *, formulas: bool = False) -> str:
    """Nothing ran, linked, loaded or formatted on the current page; `expected` texts are shown literally.
    `formulas`: the page typesets its own LaTeX (Metric definitions, which shows no data)."""
    visited.add(where)
    assert_no_exception(page)
    assert not watch.dialogs, f"{where}: a dialog opened: {watch.dialogs}"
    assert not watch.elsewhere(origin), f"{where}: requests to another origin: {watch.elsewhere(origin)}"
    assert page.evaluate(HOSTILE_ELEMENTS) == [], f"{where}: {page.evaluate(HOSTILE_ELEMENTS)}"
    assert formulas or page.locator(LATEX).count() == 0, f"{where}: LaTeX was typeset"
    assert page.locator(".stMarkdownColoredText").count() == 0, f"{where}: a :red[...] directive was applied"
    text = shown(page)
    for value in expected:
        assert value in text, f"{where}: {value!r} is not shown literally: " + str(re.findall(r".{0,60}against.{0,60}", text))
    # Escapes are resolved, never shown: no backslash before a character md escapes.
    assert not re.search(r"\\[\[\]()<>!*_#`|~$&.:-]", text), f"{where}: a Markdown escape shows: " \
        + re.search(r".{0,40}\\[\[\]()<>!*_#`|~$&.:-].{0,40}", text).group(0)
    return text


def test_markup_in_a_file_is_shown_as_text_on_every_page_and_in_the_report(browser, app_url, tmp_path,
                                                                              screenshot_dir):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    context.set_default_timeout(scaled_ms(30_000))
    watch = Watch(context)
    page = context.new_page()
    console = ConsoleLog.of(page)
    try:
        open_app(page, app_url)
        page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Upload a file", exact=True).click()
        settle(page)
        page.locator("input[type=file]").set_input_files(
            {"name": hostile.FILE_NAME, "mimeType": "text/csv", "buffer": hostile.csv_bytes()})
        expect(page.get_by_text(re.compile(r"395 rows, 4 columns"))).to_be_visible()
        settle(page)
        # Data: the file name (sidebar and summary), columns and label values; 8 subgroups, all named.
        check(page, watch, app_url, "Data", [hostile.FILE_NAME, "8 subgroups"])
        expect(page.get_by_role("combobox", name="Label column", exact=True)).to_have_value(hostile.LABEL)
        expect(page.get_by_role("combobox", name="Positive label", exact=True)).to_have_value(hostile.POSITIVE)
        # The subgroup table's toolbar: searching and full screen, but no verbatim CSV download.
        table = page.get_by_test_id("stDataFrame").last
        table.hover()
        toolbar = page.get_by_test_id("stElementToolbar").filter(has=page.get_by_role("button")).last
        expect(toolbar.get_by_role("button").first).to_be_visible()
        labels = toolbar.get_by_role("button").evaluate_all("bs => bs.map(b => b.getAttribute('aria-label'))")
        assert "Download as CSV" not in labels and labels, labels

        go_to(page, "Subgroup AUCs")
        wait_for_plot(page)
        open_tab(page, "Compare models")
        compare_on(page)  # both model names (a tag and a URL) in headings, heatmaps and tables from here on
        wait_for_plot(page)
        check(page, watch, app_url, "Subgroup AUCs", [f"Score column: {hostile.SCORE}."])
        plots = page.evaluate(PLOT_TEXT).replace(ZWJ, "")
        for value in (hostile.SCRIPT, hostile.LINK, hostile.IMAGE, hostile.LATEX, hostile.DIRECTIVE, hostile.URL,
                      hostile.FORMULA, hostile.SCORE_2):
            assert value in plots, f"{value!r} is not a literal label of the AUC charts"

        go_to(page, "Rate disparities")
        wait_for_plot(page)
        choose(page, "Reference", "a chosen subgroup")  # the largest subgroup: the Markdown link
        # the rerun has drawn the new reference (on a loaded machine it can start after settle's quiet spell)
        expect(page.get_by_test_id("stMain").get_by_text("against the subgroup", exact=False).first).to_be_visible()
        wait_for_plot(page)
        text = check(page, watch, app_url, "Rate disparities", [f"against the subgroup {hostile.LINK}"])
        assert f"{hostile.SCORE} ranges from" in text
        assert f"Reference: {hostile.LINK}" in page.evaluate(PLOT_TEXT).replace(ZWJ, "")  # the legend
        page.locator(PLOT).first.evaluate("el => el.scrollIntoView({block: 'start'})")  # the rates, the legend
        still(page)
        page.screenshot(path=str(screenshot_dir / "injection_rate_disparities.png"))
        choose(page, "Reference", "rest of the population")

        for title in ("Calibration", "Class-wise bias", "Dataset metrics", "Discover subgroups", "Over time",
                      "Metric definitions"):
            go_to(page, title)
            if title == "Calibration":
                open_tab(page, "Compare models")  # the model names there too
            if title not in ("Metric definitions", "Over time"):   # the file has no time column: a message, no chart
                wait_for_plot(page)
            check(page, watch, app_url, title, [] if title == "Metric definitions" else [hostile.FILE_NAME],
                  formulas=title == "Metric definitions")

        # Overview: its findings name subgroups; then the report.
        go_to(page, "Overview")
        open_overview_details(page)
        check(page, watch, app_url, "Overview", [hostile.FILE_NAME, f"Bottom line for {hostile.SCORE}.",
                                                 f"score {hostile.SCORE}"])
        page.get_by_role("button", name="Prepare the report").click()
        download_button = page.get_by_role("button", name="Report (HTML)")
        expect(download_button).to_be_visible(timeout=scaled_ms(60_000))
        settle(page)
        with page.expect_download() as pending:
            download_button.click()
        report = tmp_path / "report.html"
        pending.value.save_as(report)
        check(page, watch, app_url, "Overview, report prepared")
        screenshot(page, screenshot_dir / "injection_overview.png")
        console.assert_clean()
    finally:
        context.close()

    # The report from file://: the same checks, and no request at all besides the file itself.
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    watch = Watch(context)
    try:
        page = context.new_page()
        console = ConsoleLog.of(page)
        page.goto(report.as_uri())
        expect(page.locator(PLOT).first.locator(".main-svg").first).to_be_attached()
        expect(page.get_by_role("heading", level=1)).to_have_text(f"Fairness review: {hostile.FILE_NAME}")
        text = check(page, watch, report.as_uri(), "report",
                     [hostile.SCRIPT, hostile.LINK, hostile.IMAGE, hostile.LATEX, hostile.URL, hostile.FORMULA,
                      f"Label\t{hostile.LABEL} (positive: {hostile.POSITIVE})"])
        assert f"Model {hostile.SCORE} at threshold" in text
        assert watch.requests == [report.as_uri()], watch.requests
        # Its tables neutralise the formula (a cell copied into a spreadsheet stays text).
        cells = page.locator("table.data td").all_inner_texts()
        assert "'" + hostile.FORMULA in cells and hostile.FORMULA not in cells
        assert hostile.SCRIPT in page.evaluate(PLOT_TEXT).replace(ZWJ, "")
        page.screenshot(path=str(screenshot_dir / "injection_report.png"))
        console.assert_clean()
    finally:
        context.close()
    assert set(navigation.TITLES) <= visited, f"pages not visited: {set(navigation.TITLES) - visited}"
