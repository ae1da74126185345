"""The command line's report with discovered subgroups and fairness over time, and the history of saved reviews, in
Chromium offline: every chart draws, nothing errs on the console, the tables are there; screenshots of each."""

from __future__ import annotations

import dataclasses

import pytest
from playwright.sync_api import expect

import fairness_core as fc
from fairness_core._cli import main
from tests.browser.conftest import ConsoleLog, scaled_ms
from tests.fairness_core.test_cli_discover_time import FLAGS, scored_frame

pytestmark = pytest.mark.browser


def open_offline(browser, path, shot, heading: str):
    """Open `path` offline, wait for every chart, screenshot the section under the h2 `heading`; the page's charts
    and console log."""
    context = browser.new_context(viewport={"width": 1100, "height": 1300}, offline=True)
    page = context.new_page()
    log = ConsoleLog.of(page)
    page.goto(path.as_uri())
    plots = page.locator(".js-plotly-plot")
    expect(plots.first).to_be_visible(timeout=scaled_ms(30_000))
    count = page.evaluate("() => document.querySelectorAll('.plotly-graph-div').length")
    expect(plots).to_have_count(count, timeout=scaled_ms(30_000))   # every figure drawn by plotly.js
    page.get_by_role("heading", name=heading, level=2).scroll_into_view_if_needed()
    page.evaluate("h => { const el = [...document.querySelectorAll('h2')].find(x => x.textContent === h);"
                  " window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 8); }", heading)
    page.screenshot(path=str(shot))
    return context, page, log, count


def test_report_sections_draw_offline(browser, tmp_path, screenshot_dir, capsys):
    data = tmp_path / "decisions.csv"
    scored_frame(bad_months=[3]).to_csv(data, index=False)
    out = tmp_path / "review.html"
    status = main(["report", str(data), *FLAGS, "--discover", "sex", "region", "--time", "date", "--gate-period",
                   "latest", "--out", str(out)])
    capsys.readouterr()
    assert status == 1
    for heading, name in (("Discovered subgroups", "report_discovered_subgroups.png"),
                          ("Fairness over time", "report_over_time.png")):
        context, page, log, count = open_offline(browser, out, screenshot_dir / name, heading)
        try:
            assert count >= 9   # scorecard, AUCs, rates, ratio scores, calibration, discovery, one per rule
            expect(page.get_by_text("Subgroups found, score")).to_have_count(1)
            expect(page.get_by_role("heading", name="Each rule over time")).to_be_visible()
            log.assert_clean()
        finally:
            context.close()


def test_history_page_draws_offline(browser, tmp_path, screenshot_dir, capsys):
    mapping = fc.ColumnMapping(label="approved", positive_label=1, scores=("score",), protected=("sex",),
                               positive_outcome="favourable")
    paths = []
    for n, (threshold, created) in enumerate([(0.5, "2026-01-05T09:00:00+00:00"), (0.5, "2026-02-05T09:00:00+00:00"),
                                              (0.6, "2026-03-05T09:00:00+00:00")]):
        frame = scored_frame(bad_months=[3], n=2000, seed=n + 1)
        config = fc.ReviewConfig(mapping=mapping, thresholds=(("score", threshold),), n_boot=200)
        review = dataclasses.replace(fc.build_review(frame, config, source={"name": "decisions.csv"}), created=created)
        paths.append(tmp_path / f"review-{n}.json")
        paths[-1].write_text(review.to_json(), encoding="utf-8")
    out = tmp_path / "history.html"
    assert main(["history", *map(str, paths), "--out", str(out)]) == 0
    capsys.readouterr()
    context, page, log, count = open_offline(browser, out, screenshot_dir / "history.png", "Verdicts per rule")
    try:
        assert count == fc.review_history(paths).metrics["metric"].nunique()
        expect(page.locator("tr.differs")).to_have_count(2)
        expect(page.locator("tr.differs").first).to_contain_text("thresholds")
        log.assert_clean()
    finally:
        context.close()
