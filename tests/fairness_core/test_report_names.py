"""The printed review report's details in human names and to the precision their intervals justify:
no library key (snake_case) in the visible text outside the JSON appendix, only the data's own names; estimates and
interval ends to 3 significant digits, an interval as one column "low to high", counts with thousands separators,
thresholds to 3 decimals; the JSON appendix keeps the keys and every digit.

The reports are real: the credit sample with intervals, two models against a baseline, per-subgroup thresholds,
consistency and a threshold suggestion; and a weighted multi-class review with pairwise comparisons."""

from __future__ import annotations

import json
import re
from functools import cache
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._review.report_text import (COLUMN_NAMES, COUNT_COLUMNS, INTERVAL_ENDS, SIZE_COLUMNS,
                                               WEIGHTED_COLUMN_NAMES, column_name)
from tests.support import ROOT

CREDIT = pd.read_csv(ROOT / "sample_data" / "credit_decisions.csv")
# One worker runs the module (make's --dist loadgroup), so each review below is built once (they are cached).
pytestmark = pytest.mark.xdist_group("report_names")
SNAKE = re.compile(r"\b[A-Za-z0-9]+_[A-Za-z0-9_]+\b")
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?")
# The columns whose cells are counts (sums of weights with weights): integers, or weights as written.
COUNT_HEADERS = {COLUMN_NAMES[k] for k in COUNT_COLUMNS | SIZE_COLUMNS if k in COLUMN_NAMES} | {
    WEIGHTED_COLUMN_NAMES[k] for k in WEIGHTED_COLUMN_NAMES}
# The columns of text: the data's own (subgroup and class names), and notes in words.
TEXT_HEADERS = {"Subgroup", "Compared with", "First subgroup", "Second subgroup", "Class", "Model", "Features",
                "Note", "Why small", "Reason"}


class Visible(HTMLParser):
    """The text a reader sees, outside the JSON appendix (the configuration's <pre> and the <script> records):
    `tables` holds every data table (or part of one) as (headers, rows of cells, the heading above, its caption);
    `text` every other piece of text."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.text, self.tables, self._heading = [], [], None
        self._hidden, self._table, self._row, self._cell = 0, None, None, None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "pre"):
            self._hidden += 1
        elif tag in ("h2", "h3"):
            self._heading = ""
        elif tag == "table" and "data" in (dict(attrs).get("class") or "").split():
            self._table = ([], [], self._heading, "")
        elif self._table is not None and tag == "caption":
            self._cell = ""
        elif self._table is not None and tag == "tr":
            self._row = []
        elif self._table is not None and tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("script", "style", "pre"):
            self._hidden -= 1
        elif tag == "table" and self._table is not None:
            self.tables.append(self._table)
            self._table = None
        elif tag == "caption" and self._table is not None:
            self._table = (*self._table[:3], self._cell.strip())
            self._cell = None
        elif self._table is not None and tag in ("td", "th") and self._cell is not None:
            self._row.append((tag, self._cell.strip()))
            self._cell = None
        elif self._table is not None and tag == "tr" and self._row is not None:
            if all(kind == "th" for kind, _ in self._row):
                self._table[0].extend(cell for _, cell in self._row)
            else:
                self._table[1].append([cell for _, cell in self._row])
            self._row = None

    def handle_data(self, data):
        if self._hidden:
            return
        if self._cell is not None:
            self._cell += data
        else:
            self.text.append(data)
            if isinstance(self._heading, str) and self._table is None:
                self._heading += data

    def cells(self):
        """(header, cell) of every data table's cell."""
        for headers, rows, _, _ in self.tables:
            for row in rows:
                yield from zip(headers, row)

    def table(self, heading: str, n: int = 0) -> pd.DataFrame:
        """The `n`-th table under the first heading that starts with `heading`, its parts joined, as text."""
        start = next(h for _, _, h, _ in self.tables if h and h.startswith(heading))
        tables = []
        for headers, rows, above, caption in self.tables:
            if above != start:
                continue
            part = pd.DataFrame(rows, columns=headers)
            if caption.startswith("Part 1 of") or not caption:
                tables.append(part)
            else:   # a later part: its key columns repeated, then its own
                tables[-1] = pd.concat([tables[-1], part.drop(columns=[c for c in part.columns
                                                                       if c in tables[-1].columns])], axis=1)
        return tables[n]


def significant_digits(number: str) -> int:
    """Significant digits of a number as written: '0.00995' 3, '27.0' 3, '2.35e-5' 3, '1,234' 4."""
    mantissa = number.lstrip("-").split("e")[0].replace(",", "")
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits) if "." in mantissa else len(digits.rstrip("0")) or 1


def data_tokens(frame: pd.DataFrame, mapping: fc.ColumnMapping, source: str) -> set:
    """The snake_case tokens of the data's own names: its column names, the values of the mapped columns that are
    text (label, predicted label, protected attributes), and its file name. They are written as the data writes
    them; nothing else is excused."""
    texts = [source, *map(str, frame.columns)]
    for column in [mapping.label, mapping.predicted_label, *mapping.protected]:
        if column:
            texts += [str(v) for v in frame[column].dropna().unique()]
    return {token for text in texts for token in SNAKE.findall(text)}


@cache
def _full_review():
    mapping = fc.ColumnMapping(label="repaid", positive_label=0, scores=("score_logistic", "score_boosting"),
                               protected=("sex", "age_group"), positive_outcome="adverse")
    config = fc.ReviewConfig(mapping=mapping, n_boot=200, baseline="score_logistic",
                             rate_metrics=("false_positive_rate", "selection_rate", "true_positive_rate"),
                             subgroup_thresholds={"score_logistic": {"sex=Male, age_group=25-39": 0.45}},
                             consistency_features=("income", "debt_to_income"), suggest_measure="accuracy")
    return CREDIT, mapping, fc.build_review(CREDIT, config, source={"name": "credit_decisions.csv"})


@cache
def _weighted_classes_review():
    frame = CREDIT.assign(sampling_weight=np.random.default_rng(0).uniform(0.5, 2.0, len(CREDIT)).round(2))
    mapping = fc.ColumnMapping(label="repayment_status", positive_label="default", predicted_label="predicted_status",
                               protected=("sex", "ethnicity"), intersect=False, all_classes=True,
                               weight="sampling_weight")
    config = fc.ReviewConfig(mapping=mapping, n_boot=100, rate_reference="pairwise")
    return frame, mapping, fc.build_review(frame, config, source={"name": "credit_decisions.csv"})


@pytest.fixture(scope="module", params=["full", "weighted_classes"])
def report(request):
    frame, mapping, review = {"full": _full_review, "weighted_classes": _weighted_classes_review}[request.param]()
    html = fc.render_report(review)
    return request.param, frame, mapping, review, html, Visible(html)


def test_no_library_key_outside_the_json_appendix(report):
    _, frame, mapping, review, html, page = report
    allowed = data_tokens(frame, mapping, "credit_decisions.csv")
    found = {token for piece in [*page.text, *(c for _, c in page.cells()), *(h for h, _ in page.cells())]
             for token in SNAKE.findall(piece)}
    assert found - allowed == set()
    assert found & allowed   # the data's own names are shown as written (sex=..., age_group=..., on_time)
    # the appendix keeps the keys and every digit
    record = json.loads(re.search(r'<script type="application/json" id="review-json">(.*?)</script>', html,
                                  re.S).group(1))
    assert record == json.loads(review.to_json()) and "subgroup_value_ci_low" in review.to_json()


def test_numbers_to_the_precision_their_intervals_justify(report):
    _, _, _, _, _, page = report
    # table cells: estimates and interval ends to 3 significant digits; counts integers with thousands separators
    # (a sum of weights as written)
    for header, cell in page.cells():
        numbers = NUMBER.findall(cell)
        if header in COUNT_HEADERS:   # "5,600", "2,861.74"; never "5600"
            assert cell == "" or re.fullmatch(r"\d{1,3}(,\d{3})*(\.\d+)?", cell), (header, cell)
        elif numbers and header not in TEXT_HEADERS:
            assert max(significant_digits(n) for n in numbers) <= 3, (header, cell)
    # sentences and headings: no decimal number with more than 4 significant digits (counts are integers; the
    # total of the weights, in the meta table, is a weight as written)
    text = " ".join(page.text)
    long = [n for n in NUMBER.findall(text) if "." in n and significant_digits(n) > 4]
    total = re.search(r"sum of weights \(total ([\d,.]+)\)", text)
    assert long == ([] if total is None or "." not in total.group(1) else [total.group(1)]), long[:10]
    assert len([n for n in NUMBER.findall(text) if "." in n]) > 50   # the sentences do show numbers


def test_columns_and_cells_have_human_names(report):
    name, frame, _, review, _, page = report
    headers = {h for h, _ in page.cells()}
    if name == "full":
        assert {"Selection rate", "False positive rate", "Positives", "BPSN AUC", "BNSP AUC", "Subgroup AUC",
                "Selection rate interval", "p-value", "Interval excludes parity", "Compared with",
                "Consistency (Zemel et al.)", "Accuracy (own thresholds)", "Favourable-prediction-rate ratio",
                "Gap in false positive rates", "Largest disparity", "Baseline value", "Difference interval"} <= headers
        cells = {c for _, c in page.cells()}
        assert {"p% score", "Equal opportunity score", "Selection rate disparity", "Overall AUC", "pass",
                "inconclusive", "yes", "no"} <= cells
        # an interval as one column, "low to high", to 3 significant digits: the false positive rate disparity's
        fpr = review.models[0].rates["false_positive_rate"].table.set_index("subgroup")
        subgroup = "sex=Female, age_group=18-24"
        shown = page.table("False positive rate disparity")
        row = shown.set_index("Subgroup").loc[subgroup]
        want = fpr.loc[subgroup]
        assert row["Disparity interval"] == f"{want['disparity_ci_low']:.3g} to {want['disparity_ci_high']:.3g}"
        assert row["Disparity"] == f"{want['disparity']:.3g}"
        rest = CREDIT[~((CREDIT["sex"] == "Female") & (CREDIT["age_group"] == "18-24"))]
        assert row["Reference denominator"] == f"{(rest['repaid'] != 0).sum():,}"   # the rest's actual negatives
        # the subgroups: shares in per cent, counts with separators, recomputed from the rows
        subgroups = page.table("Subgroups").set_index("Subgroup")
        rows = CREDIT[(CREDIT["sex"] == "Female") & (CREDIT["age_group"] == "18-24")]
        assert subgroups.loc[subgroup, "Rows"] == f"{len(rows):,}"
        assert subgroups.loc[subgroup, "Share"] == f"{len(rows) / len(CREDIT) * 100:.3g} %"
        assert subgroups.loc[subgroup, "Positives"] == f"{(rows['repaid'] == 0).sum():,}"
        # thresholds to 3 decimals in the suggestion's table and sentence
        suggestion = review.models[0].suggestion
        thresholds = page.table("Thresholds where the rules pass")["Threshold"]
        assert list(thresholds) == [f"{t:.3f}".rstrip("0").rstrip(".") if t >= 0.01 else f"{t:.3g}"
                                    for t in suggestion.table["threshold"]]
        text = " ".join(page.text)
        assert f"Suggested threshold: {suggestion.suggested:.3f}".rstrip("0") in text
        assert "Selection rate disparity (max, difference, against the rest): " in text
        assert (f"Base rate (share of positive labels): {review.base_rate[0]:.3g} (95 % interval "
                f"{review.base_rate[1]:.3g} to {review.base_rate[2]:.3g})") in text
    else:   # weighted: sizes are effective sizes, counts sums of weights as written
        assert {"Effective size", "Positives (weight)", "Class", "Compared with", "F-score",
                "Recall interval"} <= headers
        subgroups = page.table("Subgroups").set_index("Subgroup")
        weights = frame.loc[frame["sex"] == "Female", "sampling_weight"]
        assert subgroups.loc["sex=Female", "Effective size"] == f"{weights.sum() ** 2 / (weights ** 2).sum():,.0f}"
        positives = frame.loc[(frame["sex"] == "Female") & (frame["repayment_status"] == "default"), "sampling_weight"]
        assert subgroups.loc["sex=Female", "Positives (weight)"] == f"{positives.sum():,.6g}"


def test_every_column_of_a_review_has_a_name():
    """Every column of every table a review holds is in the report's one table of names (with an interval's ends
    and the per-subgroup-threshold variants): none falls back to its key with the underscores turned to spaces."""
    _, _, review = _full_review()
    _, _, weighted = _weighted_classes_review()
    keys = {str(c) for r in (review, weighted) for t in r.tables().values() for c in t.columns}
    rules = {c for m in review.models if m.suggestion is not None for c in m.suggestion.table.columns
             if c not in COLUMN_NAMES}
    unnamed = []
    for key in sorted(keys - rules):
        base = next((key[: -len(end)] for end in INTERVAL_ENDS if key.endswith(end)), key)
        base = next((base[: -len(v)] for v in ("_single", "_own") if base.endswith(v)), base)
        if base not in COLUMN_NAMES:
            unnamed.append(key)
    assert unnamed == []
    assert column_name("n_positive") == "Positives" and column_name("p_value") == "p-value"
    assert rules and rules <= {v.rule.name for m in review.models for v in m.suggestion.verdicts[
        m.suggestion.suggested]}
