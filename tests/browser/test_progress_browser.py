"""Progress during long steps, in Chromium: uploading a generated 2 x 10^6-row CSV (92 MB) shows the stage-labelled
st.status box (parsing, checking the columns, validating the mapping) and Streamlit's running indicator;
a consistency computation on request shows its own labelled spinner. Times are never asserted."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.app.helpers import csv_bytes, scored_table
from tests.browser.conftest import scaled_ms
from tests.browser.test_app_browser import assert_no_exception, go_to, open_app, open_tab, settle

pytestmark = pytest.mark.browser

N_ROWS = 2_000_000  # reading it takes over a second, so Streamlit's running indicator shows
# Installed before a long step: records every label of a running st.status box (the spinner icon marks it
# running), every running spinner's text, and whether Streamlit's running indicator appeared.
WATCH = """() => {
  window.__seen = {status: [], spinner: [], running: false};
  const look = () => {
    for (const box of document.querySelectorAll('[data-testid="stExpander"]')) {
      if (box.querySelector('[data-testid="stExpanderIconSpinner"]')) window.__seen.status.push(box.innerText);
    }
    for (const spin of document.querySelectorAll('[data-testid="stSpinner"]')) window.__seen.spinner.push(spin.innerText);
    if (document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')) window.__seen.running = true;
  };
  new MutationObserver(look).observe(document.body, {subtree: true, childList: true, attributes: true,
                                                     characterData: true});
}"""
STAGES = re.compile(r"Loading million\.csv|Parsing million\.csv|Checking the columns|Validating the mapping")


@pytest.fixture(scope="module")
def million_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("upload") / "million.csv"
    path.write_bytes(csv_bytes(scored_table(N_ROWS)))
    return path


def test_large_upload_shows_its_stages_and_the_running_indicator(million_csv, app_page, app_url):
    page, console = app_page
    open_app(page, app_url)
    expect(page.get_by_test_id("stToolbar")).to_be_attached()  # "minimal" would hide it, and the indicator
    page.get_by_test_id("stRadio").filter(has_text="Source").get_by_text("Upload a file", exact=True).click()
    file_input = page.locator("input[type=file]")
    expect(file_input).to_be_attached()
    page.evaluate(WATCH)
    file_input.set_input_files(million_csv)
    expect(page.get_by_text(f"million.csv: {N_ROWS:,} rows, 8 columns")).to_be_visible(timeout=scaled_ms(90_000))
    settle(page, timeout_s=60)
    seen = page.evaluate("() => window.__seen")
    assert any(STAGES.search(label) for label in seen["status"]), seen["status"]
    assert seen["running"], "Streamlit's running indicator never showed while the upload was read"
    expect(page.get_by_test_id("stMetric").filter(has_text="Rows used")).to_contain_text(f"{N_ROWS:,}")
    assert_no_exception(page)

    # Consistency runs on request (a sample of rows), with a labelled spinner while it searches.
    go_to(page, "Dataset metrics")
    open_tab(page, "Consistency")
    button = page.get_by_role("button", name="Compute consistency")
    expect(button).to_be_visible(timeout=scaled_ms(60_000))
    expect(page.get_by_test_id("stMetric").filter(has_text="Share of differing neighbours")).to_have_count(0)
    page.evaluate(WATCH)
    button.click()
    expect(page.get_by_test_id("stMetric").filter(has_text="Share of differing neighbours")).to_be_visible(
        timeout=scaled_ms(90_000))
    settle(page, timeout_s=60)
    seen = page.evaluate("() => window.__seen")
    assert seen["running"] or any("nearest neighbours" in s for s in seen["spinner"]), seen
    expect(page.get_by_text(re.compile(rf"Standard error .*random sample of 20,000 of {N_ROWS:,} rows"))).to_be_visible()
    assert_no_exception(page)
    console.assert_clean()
