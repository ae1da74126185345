"""The report printed from Chromium as a committee member would: A4 pages (the stylesheet's ``@page``), and page one
the answer — the declared outcome, the bottom line and scorecard of the model, the release gate — before any detail;
the details in human names, to 3 significant digits, with no library key before the configuration appendix.

The PDF is read with pypdf: its page sizes, its page count and the text of each page."""

from __future__ import annotations

import io
import re

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

import fairness_core as fc
from tests.browser.conftest import scaled_ms
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


def printed(browser, html: str, tmp_path, screenshots=None) -> PdfReader:
    """The report printed to PDF from Chromium; with `screenshots` (a folder), first its page one and a details
    table as a reader sees them at 1,024 px (review_report_1024.png, review_report_details_1024.png)."""
    path = tmp_path / "review.html"
    path.write_text(html, encoding="utf-8")
    context = browser.new_context(viewport={"width": 1024 if screenshots else 1200, "height": 900}, offline=True)
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        expect(page.locator(PLOT).first.locator(".main-svg").first).to_be_attached(timeout=scaled_ms(60_000))
        if screenshots:
            page.screenshot(path=str(screenshots / "review_report_1024.png"))
            page.locator("h3", has_text="False positive rate disparity").first.scroll_into_view_if_needed()
            page.screenshot(path=str(screenshots / "review_report_details_1024.png"))
        return PdfReader(io.BytesIO(page.pdf(prefer_css_page_size=True, print_background=True)))
    finally:
        context.close()


def test_the_printed_report_is_a4_and_page_one_is_the_answer(browser, tmp_path, screenshot_dir):
    review = credit_review("adverse")   # repaid = 0 (default) as the event, adverse for the person
    pdf = printed(browser, fc.render_report(review), tmp_path, screenshot_dir)
    sizes = {(round(float(p.mediabox.width)), round(float(p.mediabox.height))) for p in pdf.pages}
    assert sizes == {tuple(round(x) for x in A4_POINTS)}
    text = [" ".join(p.extract_text().split()) for p in pdf.pages]
    # page one: the outcome and the label's coding in one sentence, the bottom line, the scorecard, the gate
    first = text[0]
    assert first.startswith("Fairness review: credit_decisions.csv")
    assert ("The label repaid has the positive value 0 (the event the scores predict); a positive prediction is "
            "adverse for the person, so the four-fifths rule and the p% and equal opportunity scores compare the "
            "favourable prediction (predicted repaid ≠ 0) across subgroups.") in first
    line = " ".join(fc.bottom_line(review.models[0].verdicts, review.models[0].subjects, review.dataset_verdicts,
                                   [fc.result_subject(review.dataset_parity)]))
    assert f"Bottom line for score_logistic at threshold 0.5. {line}" in first
    assert "Favourable-prediction-rate ratio" in first and "True-negative-rate ratio" in first   # the scorecard
    status = review.exit_status()
    assert f"Release gate {'Fails' if status else 'Passes'} (exit status {status} of the command line)" in first
    # the details follow, each part from a page of its own: more pages, none of them empty
    assert "Policy verdicts" not in first and any(t.startswith("Policy verdicts") for t in text[1:3])
    assert 3 <= len(pdf.pages) <= 40 and all(text)
    # the details as printed: human names, no library key (snake_case) before the configuration appendix but the
    # data's own names, estimates and interval ends to 3 significant digits
    details = " ".join(text[1:]).split("Configuration Upload this file")[0]
    assert "Configuration Upload this file" in " ".join(text)   # the appendix is there, after the details
    data_names = {"score_logistic", "age_group", "credit_decisions"}
    keys = set(re.findall(r"\b[a-z0-9]+_[a-z0-9_]+\b", details, re.I))
    assert keys - data_names == set(), sorted(keys - data_names)
    for name in ("Selection rate", "False positive rate", "Positives", "BPSN AUC", "p-value", "Compared with",
                 "Subgroup value interval", "False positive rate disparity (max, difference, against the rest)"):
        assert name in details, name
    fpr = review.models[0].rates["false_positive_rate"].table.set_index("subgroup").loc["sex=Female, age_group=18-24"]
    assert f"{fpr['disparity_ci_low']:.3g} to {fpr['disparity_ci_high']:.3g}" in details
    digits = [(n, len(n.replace(",", "").replace(".", "").lstrip("0"))) for n in re.findall(r"\d[\d,]*\.\d+", details)]
    assert len(digits) > 100 and [n for n, d in digits if d > 4] == []   # never "0.006634 to 0.0165666"
