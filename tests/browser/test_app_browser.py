"""The real app in Chromium: upload COMPAS, map its columns, visit every page, see charts, no console errors.

Numbers are checked in the AppTest suite; here the browser checks rendering, navigation, the upload
path, the BaseWeb/react-aria widgets and the browser console. COMPAS is uploaded and mapped once: its one
session also checks the error bars and stars, the Overview, and that no text is cut off on any page.
Also the shared helpers of the browser tests (settle, choose, go_to, upload, screenshot, every_page_cut).
"""

from __future__ import annotations

import re

from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from fairness_dashboard.navigation import TITLES
from tests.browser.conftest import SCRIPT_IDLE, scaled_ms

pytestmark = pytest.mark.browser

EXCEPTION = '[data-testid="stException"]'
PLOT = ".js-plotly-plot"
CREDIT = pd.read_csv(Path(__file__).resolve().parents[2] / "sample_data" / "credit_decisions.csv")


# Helpers ---------------------------------------------------------------------------------------

def settle(page: Page, timeout_s: float = 60.0) -> None:
    """Wait until Streamlit has finished every script run the page asked for (conftest's SCRIPT_IDLE: a run started
    after the last request and finished, the app not running, nothing stale), at most `timeout_s` seconds times the
    machine's load. It returns at once when nothing was asked for since the last run."""
    try:
        page.wait_for_function(SCRIPT_IDLE, timeout=scaled_ms(timeout_s * 1000))
    except PlaywrightTimeoutError:
        bound = scaled_ms(timeout_s * 1000) / 1000
        raise AssertionError(f"Streamlit kept running for more than {bound:.0f} s") from None


# Nothing moves: every finite animation has ended (an expander opening, a transition; spinners and skeletons loop
# forever and are not waited for), and every chart on screen is laid out at its container's width (Plotly redraws
# after a resize, a moment after the page's own layout).
STILL = """() => document.getAnimations().every(a => a.playState !== 'running' || !a.effect
    || a.effect.getComputedTiming().endTime === Infinity)
  && [...document.querySelectorAll('.js-plotly-plot')].every(plot => !plot._fullLayout || plot.clientWidth === 0
    || Math.abs(plot._fullLayout.width - plot.clientWidth) <= 1)"""


def still(page: Page, timeout_s: float = 20.0) -> None:
    """Wait until nothing moves on the page (STILL), at most `timeout_s` seconds times the machine's load, then for
    two frames to be painted: what a scroll, a resize, an expander or a chart's redraw changed is on screen."""
    try:
        page.wait_for_function(STILL, timeout=scaled_ms(timeout_s * 1000))
    except PlaywrightTimeoutError:
        raise AssertionError(f"the page kept moving for more than {scaled_ms(timeout_s * 1000) / 1000:.0f} s: "
                             "an animation or a chart's redraw at a new width never ended") from None
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done())))")


def combobox(page: Page, label: str):
    """The text input of a selectbox/multiselect, found by its label (react-aria combobox)."""
    return page.get_by_role("combobox", name=label, exact=True)


def choose(page: Page, label: str, option: str) -> None:
    """Select `option` in the selectbox labelled `label`: click it, type, pick the exact option."""
    box = combobox(page, label)
    if box.input_value() == option:
        return
    box.click()
    box.fill(option)
    page.get_by_role("option", name=option, exact=True).click()
    settle(page)
    expect(combobox(page, label)).to_have_value(option)


def multiselect(page: Page, label: str):
    return page.get_by_test_id("stMultiSelect").filter(has=combobox(page, label))


def chips(page: Page, label: str) -> list[str]:
    return multiselect(page, label).locator("[data-tag]").evaluate_all(
        "tags => tags.map(t => t.getAttribute('aria-label'))")


def choose_exactly(page: Page, label: str, wanted: list[str]) -> None:
    """Make the multiselect labelled `label` hold exactly `wanted`: remove other chips, add missing ones."""
    for value in chips(page, label):
        if value not in wanted:
            multiselect(page, label).get_by_role("button", name=f"Remove {value}", exact=True).click()
            settle(page)
    for value in wanted:
        if value not in chips(page, label):
            box = combobox(page, label)
            box.click()
            box.fill(value)
            page.get_by_role("option", name=value, exact=True).click()
            page.keyboard.press("Escape")
            settle(page)
    assert chips(page, label) == wanted, f"{label} holds {chips(page, label)}, expected {wanted}"


def go_to(page: Page, title: str) -> None:
    """Open a page through its sidebar navigation link and wait for its title."""
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()
    settle(page)


def open_tab(page: Page, title: str) -> None:
    """Open the page's secondary section `title` (its tab) and wait for the rerun that draws it: a closed section
    is neither computed nor drawn."""
    tab = page.get_by_test_id("stMain").get_by_role("tab", name=title, exact=True)
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")
    settle(page)


def open_overview_details(page: Page) -> None:
    """Open the Overview's collapsed details: every verdict in full and every page's findings."""
    for label in ("Policy verdicts in full", "Findings of every page"):
        box = page.get_by_test_id("stMain").get_by_test_id("stExpander").filter(has_text=label)
        box.locator("summary").click()
        expect(box.get_by_test_id("stExpanderDetails")).to_be_visible()
    settle(page)


def assert_no_exception(page: Page) -> None:
    exceptions = page.locator(EXCEPTION)
    assert exceptions.count() == 0, "Streamlit exception on the page:\n" + "\n".join(exceptions.all_inner_texts())
    expect(page.get_by_text("Traceback (most recent call last)")).to_have_count(0)


def wait_for_plot(page: Page) -> None:
    """Wait for Plotly to have drawn the (first) chart into SVG."""
    plot = page.locator(PLOT).first
    expect(plot).to_be_visible()
    expect(plot.locator(".main-svg").first).to_be_attached()
    assert plot.locator(".main-svg").count() > 0
    expect(plot.locator(".plot-container")).to_be_visible()
    still(page)


def screenshot(page: Page, path) -> None:
    """A full-page screenshot. Streamlit scrolls inside [data-testid=stMain], not the document, so the
    viewport is stretched to the content's height for the shot, then restored."""
    size = page.viewport_size
    height = page.evaluate(
        "() => { const m = document.querySelector('[data-testid=\"stMain\"]'); return m ? m.scrollHeight : 0; }")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], int(height))})
    still(page)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)


def open_app(page: Page, app_url: str) -> None:
    page.goto(app_url)
    expect(page.get_by_role("heading", name="Data", level=1)).to_be_visible(timeout=scaled_ms(30_000))
    expect(page.get_by_text("What will be analysed")).to_be_visible(timeout=scaled_ms(30_000))
    settle(page)


def open_sidebar_section(page: Page, title: str, shows: str) -> None:
    """Expand the sidebar expander `title` until `shows` (a text inside it) is visible.

    A click that lands while Streamlit redraws the sidebar can be lost, so the click is repeated (after the
    rerun settles) rather than trusted once.
    """
    sidebar = page.get_by_test_id("stSidebar")
    content = sidebar.get_by_text(shows, exact=True)
    for _ in range(3):
        if content.is_visible():
            return
        sidebar.get_by_text(title, exact=True).click()
        try:
            expect(content).to_be_visible(timeout=scaled_ms(5_000))
            return
        except AssertionError:
            settle(page)
    expect(content).to_be_visible()


def upload(page: Page, path, shown: str) -> None:
    """Upload `path` on the Data page and wait for its summary line (a regular expression, e.g. its row count)."""
    page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Upload a file", exact=True).click()
    file_input = page.locator("input[type=file]")
    expect(file_input).to_be_attached()
    file_input.set_input_files(path)
    expect(page.get_by_text(re.compile(shown))).to_be_visible(timeout=scaled_ms(30_000))
    settle(page)


def set_threshold(page: Page, value: str) -> None:
    """Type a decision threshold into the page's number box and wait for the rerun."""
    threshold = page.get_by_label("Decision threshold", exact=True)
    threshold.fill(value)
    threshold.press("Enter")
    settle(page)


def upload_compas(page: Page, compas_csv) -> None:
    """Upload COMPAS and map it through the widgets: label two_year_recid (1), score decile_score, race."""
    upload(page, compas_csv, r"compas-scores-two-years\.csv: 7,214 rows")
    choose(page, "Label column", "two_year_recid")
    choose(page, "Positive label", "1")
    choose_exactly(page, "Score column", ["decile_score"])
    choose_exactly(page, "Protected attributes", ["race"])


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


def every_page_cut(page: Page, name: str, screenshot_dir) -> dict:
    """Visit every page through the navigation; a screenshot of each; {page title: texts cut off} (TRUNCATED)."""
    found = {}
    for title in TITLES:
        go_to(page, title)
        if page.locator(".js-plotly-plot").count():
            expect(page.locator(".js-plotly-plot").first).to_be_visible()
        still(page)
        assert_no_exception(page)
        screenshot(page, screenshot_dir / f"readable_{name}_{title.lower().replace(' ', '_')}.png")
        cut = page.evaluate(TRUNCATED)
        if cut:
            found[title] = cut
    return found


# Tests -----------------------------------------------------------------------------------------

def test_compas_upload_mapping_and_every_page(compas_csv, app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)

    # Data: upload the real COMPAS file and map its columns through the widgets.
    upload_compas(page, compas_csv)

    rows_used = page.get_by_test_id("stMetric").filter(has_text="Rows used")
    expect(rows_used).to_contain_text("7,214")
    expect(page.get_by_text("6 subgroups", exact=True)).to_be_visible()
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "data.png")

    # Subgroup AUCs: the AUC chart is drawn.
    go_to(page, "Subgroup AUCs")
    wait_for_plot(page)
    expect(page.get_by_text("Score column: decile_score")).to_be_visible()
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "subgroup_aucs.png")

    # Rate disparities: move the threshold, then set it to 5; the chart follows.
    go_to(page, "Rate disparities")
    wait_for_plot(page)
    threshold = page.get_by_label("Decision threshold", exact=True)
    for value in ("7", "5"):
        threshold.fill(value)
        threshold.press("Enter")
        settle(page)
        # Streamlit's Markdown renders ">=" as "≥".
        expect(page.get_by_text(re.compile(rf"predicted positive = decile_score (>=|≥) {value}\."))).to_be_visible()
    threshold.blur()  # no focus ring in the screenshot
    settle(page)
    wait_for_plot(page)
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "rate_disparities.png")

    # Calibration: a 1-10 risk score is not a probability; a clear warning, no exception.
    go_to(page, "Calibration")
    warning = page.get_by_test_id("stAlertContentWarning").filter(has_text="[0, 1]")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("decile_score")
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "calibration.png")

    # Back to Data: the upload and the mapping are still there.
    go_to(page, "Data")
    expect(page.get_by_test_id("stMetric").filter(has_text="Rows used")).to_contain_text("7,214")
    expect(page.get_by_text("6 subgroups", exact=True)).to_be_visible()
    assert chips(page, "Score column") == ["decile_score"]
    assert chips(page, "Protected attributes") == ["race"]
    assert_no_exception(page)

    # Rate disparities at threshold 5 (kept from above): error bars on both per-subgroup charts, and stars on
    # the disparities whose interval excludes parity.
    go_to(page, "Rate disparities")
    expect(page.get_by_text(re.compile(r"predicted positive = decile_score (>=|≥) 5\."))).to_be_visible()
    open_tab(page, "p% scores")
    wait_for_plot(page)
    plots = page.locator(PLOT).filter(has_not=page.locator(".gtitle", has_text="across thresholds"))
    counts = [plots.nth(i).locator("path.xerror, path.yerror").count() for i in range(plots.count())]
    assert len(counts) == 2 and all(n > 0 for n in counts), counts
    expect(page.locator(PLOT).first.get_by_text("Disparity interval excludes parity")).to_be_visible()

    # The Overview a stakeholder sees first.
    go_to(page, "Overview")
    main = page.get_by_test_id("stMain")
    # Above the fold at 1,400 x 1,000 and at 1,024 x 768: the bottom line and the whole scorecard (one row per rule
    # of the model), nothing in them cut off.
    for width, height in ((1400, 1000), (1024, 768)):
        page.set_viewport_size({"width": width, "height": height})
        still(page)   # Plotly redraws at the new width
        bottom = main.get_by_text(re.compile(r"^Bottom line for decile_score\. Fails \d of \d rules: the "
                                             r"favourable-prediction-rate ratio is"))
        expect(bottom).to_be_in_viewport(ratio=1)
        scorecard = main.locator(PLOT).first
        expect(scorecard.locator("g.trace.scatter")).to_have_count(5)
        box, shown = scorecard.bounding_box(), main.bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, (width, box)
        assert box["x"] >= shown["x"] and box["x"] + box["width"] <= shown["x"] + shown["width"], (width, box, shown)
        # each row's name on its own line above its bar, none cut at either edge of the chart
        labels = scorecard.locator("text.annotation-text").filter(has_text=re.compile(
            r"^(Favourable-prediction-rate ratio|True-negative-rate ratio|Gap in )"))
        assert labels.count() == 5
        boxes = [labels.nth(i).bounding_box() for i in range(5)]
        assert min(b["x"] for b in boxes) >= box["x"] - 1, (boxes, box)   # (to the pixel: text starts at fractions)
        assert max(b["x"] + b["width"] for b in boxes) <= box["x"] + box["width"] + 1, (boxes, box)
        # no tick labels on the rows' axes (stacked, they read as the next row's): each number is printed
        assert scorecard.locator(".xtick text").count() == 0
        assert not [c for c in page.evaluate(TRUNCATED) if "Bottom line" in c], width
        page.screenshot(path=str(screenshot_dir / f"overview_fold_{width}.png"))   # what a reader sees first
    page.set_viewport_size({"width": 1400, "height": 1000})
    open_overview_details(page)
    # two_year_recid reads like a harm, so the outcome is guessed adverse and the findings use the label's words.
    expect(main.get_by_text(re.compile(r"People in African-American who were labelled two_year_recid ≠ 1 were "
                                       r"predicted two_year_recid = 1 at 2\.04× the rate of everyone else")).first
           ).to_be_visible()
    expect(main.get_by_role("link", name="Rate disparities")).to_have_count(2)  # verdicts and findings
    expect(main.get_by_text(re.compile(r"1 of 6 subgroups are smaller than 30 rows"))).to_be_visible()
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "overview.png")

    # Every page readable at 1,400 px and at 1,024 x 768: no label, tile, header, tab, button or value cut off
    # (tiles wrap onto a new line instead).
    cut = every_page_cut(page, "compas", screenshot_dir)
    assert not cut, "Text cut off:\n" + "\n".join(f"{k}: {v}" for k, v in cut.items())
    page.set_viewport_size({"width": 1024, "height": 768})
    cut = every_page_cut(page, "compas_1024", screenshot_dir)
    page.set_viewport_size({"width": 1400, "height": 1000})
    assert not cut, "Text cut off at 1,024 px:\n" + "\n".join(f"{k}: {v}" for k, v in cut.items())

    console.assert_clean()


def test_sample_calibration_reliability_diagram(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)

    page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text(
        "Sample: text moderation", exact=True).click()
    settle(page)
    expect(page.get_by_text(re.compile(r"^Sample: text moderation: [\d,]+ rows"))).to_be_visible()

    go_to(page, "Calibration")
    wait_for_plot(page)
    expect(page.locator(PLOT).first.get_by_text("Perfectly calibrated")).to_be_visible()
    expect(page.get_by_text("Reliability diagram, toxicity_score", exact=True)).to_be_visible()
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "calibration_sample.png")

    console.assert_clean()


def test_credit_classwise_dataset_metrics_and_slice(app_page, app_url, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)

    # Data: the credit sample's three-class label and prediction, by sex.
    choose(page, "Label column", "repayment_status")
    choose(page, "Positive label", "default")
    choose(page, "Predicted label column", "predicted_status")
    choose_exactly(page, "Protected attributes", ["sex"])
    expect(page.get_by_text(re.compile(r"^3 classes in repayment_status"))).to_be_visible()
    assert_no_exception(page)

    go_to(page, "Class-wise bias")
    wait_for_plot(page)
    expect(page.get_by_test_id("stMetric").filter(has_text="Unweighted average bias")).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text="Classes used")).to_contain_text("3 of 3")
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "classwise.png")

    go_to(page, "Dataset metrics")
    wait_for_plot(page)
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "dataset_metrics.png")   # the base rates first
    open_tab(page, "Smoothed EDF")
    expect(page.get_by_test_id("stMetric").filter(has_text="Smoothed EDF")).to_be_visible()
    open_tab(page, "Consistency")
    expect(page.get_by_test_id("stMetric").filter(has_text="Share of differing neighbours")).to_be_visible()
    assert_no_exception(page)

    # Sidebar slice: women only; every page says so and counts the rows.
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_test_id("stExpander").filter(has_text="Slice").locator("summary").click()
    expect(combobox(page, "Slice by")).to_be_visible()
    still(page)  # the expander's opening animation
    choose_exactly(page, "Slice by", ["ethnicity"])
    choose_exactly(page, "ethnicity", ["Group A"])
    n_rows = f"{int((CREDIT['ethnicity'] == 'Group A').sum()):,}"
    expect(sidebar.get_by_text(re.compile(rf"{n_rows} of 6,000 rows"))).to_be_visible()
    go_to(page, "Rate disparities")
    wait_for_plot(page)
    expect(page.get_by_test_id("stMain").get_by_text(re.compile(r"slice: ethnicity in \{Group A\}"))).to_be_visible()
    open_tab(page, "p% scores")
    expect(page.get_by_test_id("stMetric").filter(has_text="p% score (min)")).to_be_visible()
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "rate_disparities_slice.png")

    console.assert_clean()
