"""The report printed from Chromium as a committee member would: A4 pages (the stylesheet's ``@page``), and page one
the answer — the declared outcome, the bottom line and scorecard of the model, the release gate — before any detail.

The PDF is read with pypdf: its page sizes, its page count and the text of each page."""

from __future__ import annotations

import io

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

import fairness_core as fc
from tests.browser.test_app_browser import PLOT
from tests.support import ROOT

pytestmark = pytest.mark.browser

A4_POINTS = (595.0, 842.0)   # 210 x 297 mm at 72 points per inch (Chromium writes 594.96 x 841.92)


def credit_review(outcome: str) -> fc.Review:
    """The credit sample's logistic score at 0.5, by sex and age group; the label's positive value read as
    `outcome`."""
    frame = fc.read_table(ROOT / "sample_data" / "credit_decisions.csv")
    mapping = fc.ColumnMapping(label="repaid", positive_label=0, scores=("score_logistic",),
                               protected=("sex", "age_group"), positive_outcome=outcome)
    return fc.build_review(frame, fc.ReviewConfig(mapping=mapping, thresholds=(("score_logistic", 0.5),),
                                                  n_boot=200), source={"name": "credit_decisions.csv"})


def printed(browser, html: str, tmp_path) -> PdfReader:
    path = tmp_path / "review.html"
    path.write_text(html, encoding="utf-8")
    context = browser.new_context(viewport={"width": 1200, "height": 1000}, offline=True)
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        expect(page.locator(PLOT).first.locator(".main-svg").first).to_be_attached(timeout=60_000)
        return PdfReader(io.BytesIO(page.pdf(prefer_css_page_size=True, print_background=True)))
    finally:
        context.close()


def test_the_printed_report_is_a4_and_page_one_is_the_answer(browser, tmp_path):
    review = credit_review("adverse")   # repaid = 0 (default) as the event, adverse for the person
    pdf = printed(browser, fc.render_report(review), tmp_path)
    sizes = {(round(float(p.mediabox.width)), round(float(p.mediabox.height))) for p in pdf.pages}
    assert sizes == {tuple(round(x) for x in A4_POINTS)}
    text = [" ".join(p.extract_text().split()) for p in pdf.pages]
    # page one: the outcome and the label's coding in one sentence, the bottom line, the scorecard, the gate
    first = text[0]
    assert first.startswith("Fairness review: credit_decisions.csv")
    assert ("The label repaid has the positive value 0 (the event the scores predict); a positive prediction is "
            "adverse for the person, so the four-fifths rule and the p% and equal opportunity scores compare the "
            "favourable prediction (repaid ≠ 0) across subgroups.") in first
    line = " ".join(fc.bottom_line(review.models[0].verdicts, review.models[0].subjects, review.dataset_verdicts,
                                   [fc.result_subject(review.dataset_parity)]))
    assert f"Bottom line for score_logistic at threshold 0.5. {line}" in first
    assert "Favourable-prediction-rate ratio" in first and "True-negative-rate ratio" in first   # the scorecard
    status = review.exit_status()
    assert f"Release gate {'Fails' if status else 'Passes'} (exit status {status} of the command line)" in first
    # the details follow, each part from a page of its own: more pages, none of them empty
    assert "Policy verdicts" not in first and any(t.startswith("Policy verdicts") for t in text[1:3])
    assert 3 <= len(pdf.pages) <= 40 and all(text)
