"""The review's record in Chromium: the app's HTML report opens offline with its charts and the app's numbers, and
its embedded configuration restores the same view; a reloaded page asks for its data file and reopens its options."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from playwright.sync_api import expect

from tests.app.helpers import start, widget
from tests.app.review_helpers import Downloads, fpr_table, map_compas, prepare, restore, sha256, upload
from tests.browser.test_app_browser import (PLOT, assert_no_exception, choose, combobox, go_to, open_app, screenshot,
                                            set_threshold, settle, still, upload_compas)
from tests.browser.conftest import ConsoleLog, scaled_ms
from tests.browser.test_navigation_browser import _SUBPAGE_PROBE

pytestmark = pytest.mark.browser

# The rows of the report's table under the heading that starts with `title`, as {column: text}: a table wider than
# the printed page is in parts by columns (each starting with the subgroup), joined here row by row.
REPORT_TABLE = """title => {
  const heading = [...document.querySelectorAll('h3')].find(h => h.textContent.startsWith(title));
  const rows = [];
  for (const table of heading.nextElementSibling.querySelectorAll('table')) {
    const columns = [...table.querySelectorAll('thead th')].map(th => th.textContent.trim());
    [...table.querySelectorAll('tbody tr')].forEach((tr, r) => Object.assign(rows[r] = rows[r] || {},
      Object.fromEntries([...tr.querySelectorAll('td')].map((td, i) => [columns[i], td.textContent.trim()]))));
  }
  return rows;
}"""
# What does not fit the printed page: tables and charts wider than it, cells of a short word (a number, True, a
# header such as size) cut onto two lines or overflowing, and axis labels of a chart that start left of it (cut
# off, as "es" for "yes").
PRINT_PROBLEMS = """() => {
  const page = document.documentElement.clientWidth;
  const wider = [...document.querySelectorAll('table, .js-plotly-plot')]
    .filter(e => e.getBoundingClientRect().right > page + 1 || e.getBoundingClientRect().left < -1)
    .map(e => e.tagName + ' ' + Math.round(e.getBoundingClientRect().width));
  const cut = [...document.querySelectorAll('table.data td, table.data th')]   // short words: numbers, True, rest
    .filter(c => /^\\S{1,10}$/.test(c.textContent.trim()))
    .filter(c => { const text = document.createRange(); text.selectNodeContents(c);
                   return c.scrollWidth > c.clientWidth + 1 || text.getClientRects().length > 1; })   // 2 lines
    .map(c => c.textContent);
  const clipped = [...document.querySelectorAll('.js-plotly-plot')].flatMap(plot => {
    const left = plot.querySelector('.main-svg').getBoundingClientRect().left;
    return [...plot.querySelectorAll('.ytick text, .xtick text')]
      .filter(t => t.getBoundingClientRect().width > 0 && t.getBoundingClientRect().left < left - 0.5)
      .map(t => t.textContent);
  });
  return {wider, cut, clipped, plots: document.querySelectorAll('.js-plotly-plot').length,
          tables: document.querySelectorAll('table.data').length, page};
}"""


def test_report_offline_numbers_and_restore(browser, compas_csv, monkeypatch, tmp_path, screenshot_dir):
    # The app's export: COMPAS, threshold 5, the rates against the whole population.
    downloads = Downloads(monkeypatch)
    app = start()
    map_compas(app, compas_csv)
    app.switch_page("pages/rate_disparities.py").run()
    widget(app, "number_input", "Decision threshold").set_value(5.0).run()
    widget(app, "selectbox", "Reference").set_value("overall").run()
    shown = fpr_table(app)
    assert round(shown.set_index("subgroup").loc["African-American", "subgroup_value"], 4) == 0.4485
    prepare(app)
    report = tmp_path / "review.html"
    report.write_bytes(downloads.ending("review.html"))

    # The report in Chromium with the network off: charts drawn, no console error, the app's numbers.
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, offline=True)
    try:
        page = context.new_page()
        console = ConsoleLog.of(page)
        page.goto(report.as_uri())
        expect(page.locator(PLOT).first.locator(".main-svg").first).to_be_attached(timeout=scaled_ms(20_000))
        assert page.locator(PLOT).count() >= 3  # AUCs, rates, p% and equal opportunity scores
        expect(page.get_by_role("heading", level=1)).to_have_text(f"Fairness review: {compas_csv.name}")
        expect(page.get_by_text(sha256(compas_csv), exact=True)).to_be_visible()
        rows = page.evaluate(REPORT_TABLE, "False positive rate disparity")
        in_report = {r["Subgroup"]: r["Subgroup value"] for r in rows}   # human names, 3 significant digits
        for subgroup, value in zip(shown["subgroup"], shown["subgroup_value"]):
            assert in_report[subgroup] == f"{value:.3g}"   # the app's number, to 3 significant digits
        reference = {r["Subgroup"]: r["Reference value"] for r in rows}
        overall = shown["reference_value"].iloc[0]  # one reference, the whole population
        assert set(reference.values()) == {f"{overall:.3g}"}
        saved = page.locator("#review-config").text_content()
        page.screenshot(path=str(screenshot_dir / "review_report.png"))
        page.locator(PLOT).nth(1).scroll_into_view_if_needed()  # the rates chart
        still(page)
        page.screenshot(path=str(screenshot_dir / "review_report_chart.png"))
        console.assert_clean()
    finally:
        context.close()

    # The embedded configuration restores the same view in the app, from the report file itself.
    fresh = start()
    upload(fresh, compas_csv.name, compas_csv.read_bytes())
    restore(fresh, "review.html", report.read_bytes(), "text/html")
    assert not fresh.exception and not fresh.error
    assert '"threshold' in saved and '"decile_score": 5.0' in saved
    assert widget(fresh, "multiselect", "Score column").value == ["decile_score"]
    pd.testing.assert_frame_equal(fpr_table(fresh), shown)
    assert widget(fresh, "number_input", "Decision threshold").value == 5.0
    assert widget(fresh, "selectbox", "Reference").value == "overall"


def test_reload_asks_for_the_file_and_keeps_the_options(app_page, app_url, compas_csv, screenshot_dir):
    page, console = app_page
    open_app(page, app_url)
    upload_compas(page, compas_csv)

    go_to(page, "Rate disparities")
    set_threshold(page, "6")
    choose(page, "Reference", "whole population")
    page.wait_for_function("() => new URLSearchParams(location.search).has('review')")
    assert "/rate-disparities?review=" in page.url and len(page.url) < 1000

    page.reload()
    expect(page.get_by_role("heading", name="Reopen a saved review", level=1)).to_be_visible(timeout=scaled_ms(30_000))
    prompt = page.get_by_test_id("stAlertContentInfo")
    expect(prompt).to_contain_text(compas_csv.name)
    expect(prompt).to_contain_text(sha256(compas_csv))
    sidebar = page.get_by_test_id("stSidebar")  # the pages' links only: no sample behind the question
    expect(sidebar.get_by_text("Sample: credit decisions")).to_have_count(0)
    expect(sidebar.get_by_text("Dataset", exact=True)).to_have_count(0)
    settle(page)
    assert_no_exception(page)
    screenshot(page, screenshot_dir / "review_reopen_link.png")

    page.locator("input[type=file]").set_input_files(compas_csv)
    expect(page.get_by_role("heading", name="Rate disparities", level=1)).to_be_visible(timeout=scaled_ms(30_000))
    settle(page)
    expect(page.get_by_label("Decision threshold", exact=True)).to_have_value("6")
    expect(combobox(page, "Reference")).to_have_value("whole population")
    expect(page.get_by_text(re.compile(r"predicted positive = decile_score (>=|≥) 6\."))).to_be_visible()
    assert_no_exception(page)
    page.locator(PLOT).first.wait_for()
    screenshot(page, screenshot_dir / "review_reopened.png")
    console.errors[:] = [e for e in console.errors if not _SUBPAGE_PROBE.search(e)]  # the reload's deep link
    console.assert_clean()


def test_report_prints_on_a4_without_cut_columns(browser, compas_csv, tmp_path, screenshot_dir):
    # A two-model review (COMPAS's two scores, intervals on: the widest tables), printed on A4.
    import fairness_core as fc

    frame = fc.read_table(compas_csv)
    config = fc.ReviewConfig(mapping=fc.ColumnMapping(label="two_year_recid", positive_label=1,
                                                      scores=("decile_score", "v_decile_score"),
                                                      protected=("race", "sex")),
                             thresholds=(("decile_score", 5.0), ("v_decile_score", 5.0)), n_boot=200)
    path = tmp_path / "review.html"
    path.write_text(fc.render_report(fc.build_review(frame, config, source={"name": compas_csv.name})), encoding="utf-8")
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, offline=True)
    page = context.new_page()
    try:
        page.goto(path.as_uri())
        # each model's scorecard on page one, then its AUCs, rates and ratio scores (deciles: no calibration)
        expect(page.locator(PLOT)).to_have_count(8)
        expect(page.locator(PLOT).last.locator(".main-svg").first).to_be_attached()
        on_screen = page.evaluate(PRINT_PROBLEMS)
        assert (on_screen["wider"], on_screen["cut"], on_screen["clipped"]) == ([], [], []), on_screen
        page.emulate_media(media="print")
        page.set_viewport_size({"width": 794, "height": 1123})   # A4 at 96 dpi
        still(page)
        printed = page.evaluate(PRINT_PROBLEMS)
        assert printed["page"] <= 794 and printed["plots"] == 8
        assert (printed["wider"], printed["cut"], printed["clipped"]) == ([], [], []), printed
        # the disparity tables with their intervals are wider than the page: printed in parts, subgroup first
        fpr = page.evaluate("""() => { const h = [...document.querySelectorAll('h3')]
            .find(h => h.textContent.startsWith('False positive rate disparity'));
            return [...h.nextElementSibling.querySelectorAll('table')].map(t => t.querySelector('th').textContent); }""")
        assert len(fpr) >= 2 and set(fpr) == {"Subgroup"}
        assert printed["tables"] > on_screen["tables"] - 1 >= 20
        rows = page.evaluate(REPORT_TABLE, "False positive rate disparity")   # the parts join into whole rows
        assert {r["Subgroup"] for r in rows} >= {"race=African-American, sex=Male", "race=Caucasian, sex=Female"}
        intervals = [(r["Subgroup value interval"].split(" to "), r["Subgroup value"])
                     for r in rows if r["Subgroup value"]]
        assert len(intervals) >= 4 and all(r["Compared with"] == "rest" for r in rows)
        assert all(float(low) <= float(value) <= float(high) for (low, high), value in intervals)
        # every verdict line names its model (two models) or the labels
        lines = page.locator("li:has(span.verdict)").all_inner_texts()
        assert len(lines) >= 13 and all(re.search(r"^\S+ ?(decile_score|v_decile_score|Labels): ", t) for t in lines), lines
        page.screenshot(path=str(screenshot_dir / "review_report_print_top.png"))
        page.locator("h3", has_text="False positive rate disparity").first.scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / "review_report_print_table.png"))
        page.locator(PLOT).nth(1).scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot_dir / "review_report_print_chart.png"))
        # printed from a wide window (no resize event): the charts are redrawn at the page's width, then back
        page.emulate_media(media="screen")
        page.set_viewport_size({"width": 1400, "height": 1000})
        widths = "() => [...document.querySelectorAll('.js-plotly-plot .main-svg')].map(s => s.getBoundingClientRect().width)"
        page.wait_for_function(f"() => ({widths})().every(w => w > 1000)")
        page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
        page.wait_for_function(f"() => ({widths})().every(w => w <= 680)")
        assert page.evaluate(PRINT_PROBLEMS)["clipped"] == []
        page.evaluate("() => window.dispatchEvent(new Event('afterprint'))")
        page.wait_for_function(f"() => ({widths})().every(w => w > 1000)")
        assert len(page.pdf(format="A4")) > 10_000
    finally:
        context.close()
