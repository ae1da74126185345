"""The review report read by a committee and printed on A4: every verdict line of a
two-model report names its model, no heading shows an absent setting ("None"), charts get margins that hold
their subgroup labels, and tables wider than the printed page are split by columns into parts that fit it.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

import fairness_core as fc
from fairness_core._review.gate import STATUS_ORDER
from fairness_core._review import report_layout
from fairness_core._review.report_layout import (PAGE_WIDTH_PX, _width_px, fit_labels, heading_settings,
                                                 label_width_px, split_columns)
from fairness_core._review.report_text import QUANTITY_NAMES, cell_text, column_name, number_text
from tests.support import ROOT

CREDIT = ROOT / "sample_data" / "credit_decisions.csv"
MODELS = ("score_logistic", "score_boosting")


class Outline(HTMLParser):
    """Headings (h1-h3) and verdict lines (li holding a span.verdict) in document order, as their text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.items, self._open = [], None   # (kind, text)
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2", "h3", "li"):
            self._open = [tag, ""]
        elif tag == "span" and self._open and self._open[0] == "li" and "verdict" in (dict(attrs).get("class") or ""):
            self._open[0] = "verdict"

    def handle_endtag(self, tag):
        if self._open and tag == {"verdict": "li"}.get(self._open[0], self._open[0]):
            self.items.append((self._open[0], self._open[1]))
            self._open = None

    def handle_data(self, data):
        if self._open:
            self._open[1] += data

    def headings(self) -> list:
        return [text for kind, text in self.items if kind in ("h1", "h2", "h3")]

    def verdicts(self) -> list:
        """(the heading above, the line without its status badge) of every verdict line."""
        out, heading = [], None
        for kind, text in self.items:
            if kind in ("h2", "h3"):
                heading = text
            elif kind == "verdict":
                out.append((heading, re.sub(r"^(pass|fail|inconclusive|not assessable)", "", text)))
        return out


@pytest.fixture(scope="module")
def credit():
    return fc.read_table(CREDIT)


def _review(frame, scores=MODELS, **options):
    mapping = fc.ColumnMapping(label="repaid", positive_label=1, scores=scores,
                               protected=("sex", "age_group", "ethnicity"))
    return fc.build_review(frame, fc.ReviewConfig(mapping=mapping, ci=None, **options),
                           source={"name": "credit_decisions.csv"})


@pytest.fixture(scope="module")
def two_models(credit):
    review = _review(credit)
    return review, fc.render_report(review)


def test_each_verdict_line_of_a_two_model_report_names_its_model(two_models):
    review, html = two_models
    everything = Outline(html).verdicts()
    gate = [line for heading, line in everything if heading == "Release gate"]   # the gate's non-passes, first
    lines = [(heading, line) for heading, line in everything if heading != "Release gate"]
    assert everything[:len(gate)] == [("Release gate", line) for line in gate]
    gated = [(m.name, v) for m in review.models for v in m.verdicts if v.status != "pass"]
    assert sorted(gate) == sorted(f"{name}: {v.sentence}" for name, v in gated) and gate
    expected = sum(len(m.verdicts) for m in review.models) * 2 + len(review.dataset_verdicts)  # summary + sections
    assert len(lines) == expected and expected >= 13
    for heading, line in lines:
        owner = next((m for m in MODELS if heading == m or heading.startswith(f"Model {m} at ")), None)
        if owner is None:   # the labels' rules, about the data
            assert heading.startswith("Rules about the labels") and line.startswith("Labels: Base rate disparity")
        else:   # under its model's heading, and naming it itself
            assert line.startswith(f"{owner}: "), (heading, line)
    sentences = {m.name: [v.sentence for v in sorted(m.verdicts, key=lambda v: STATUS_ORDER[v.status])]   # fails first
                 for m in review.models}
    for name, said in sentences.items():   # each model's own sentences, not the other's
        assert [line for _, line in lines if line.startswith(f"{name}: ")] == [f"{name}: {s}" for s in said] * 2
    assert sentences["score_logistic"] != sentences["score_boosting"]


def test_a_single_model_report_reads_without_the_prefix(credit):
    review = _review(credit, scores=("score_logistic",))
    lines = [(h, line) for h, line in Outline(fc.render_report(review)).verdicts() if h != "Release gate"]
    assert len(lines) == 2 * len(review.models[0].verdicts) + len(review.dataset_verdicts) > 0
    assert [line for _, line in lines[:len(review.models[0].verdicts)]] == [
        v.sentence for v in sorted(review.models[0].verdicts, key=lambda v: STATUS_ORDER[v.status])]
    assert not [line for _, line in lines if line.startswith(("score_logistic:", "Labels:"))]


@pytest.mark.parametrize("options, reduction, against", [
    ({}, "max", "against the rest"),
    ({"rate_reduction": "mean", "rate_distance": "ratio", "rate_reference": "overall"}, "mean",
     "against the whole population"),
    ({"rate_reference": "pairwise", "rate_metrics": ("true_positive_rate",)}, "max", "between every pair"),
    ({"rate_reference": fc.named_reference("sex=Male, age_group=25-39, ethnicity=Group A"),
      "rate_metrics": ("statistical_parity", "false_discovery_rate")}, "max",
     "against subgroup sex=Male, age_group=25-39, ethnicity=Group A"),
])
def test_no_heading_shows_an_absent_setting(credit, options, reduction, against):
    review = _review(credit, scores=("score_boosting",), **options)
    rates = review.models[0].rates
    assert rates["theil_index"].distance_measure is None   # the setting a Theil index has not
    headings = Outline(fc.render_report(review)).headings()
    assert not [h for h in headings if re.search(r"\bNone\b", h)], headings
    # the Theil index: its reduction and reference, no distance
    assert [h for h in headings if h.startswith("Theil")] == [
        f"Theil index disparity ({reduction}, {against}): {number_text(rates['theil_index'].value)}"]
    # every other rate: reduction, distance (in words) and reference, in the same words, the value to 3 digits
    distance = {"diff": "difference"}.get(options.get("rate_distance", "diff"), "ratio")
    expected = [f"{QUANTITY_NAMES[m]} ({reduction}, {distance}, {against}): {number_text(r.value)}"
                for m, r in rates.items() if m != "theil_index"]
    assert "Selection rate disparity" in " ".join(expected) or "statistical_parity" not in rates
    assert len(expected) == len(options.get("rate_metrics", "ab")) + 1   # and equalized odds
    assert [h for h in headings if h in expected] == expected


def test_heading_settings_leave_out_what_is_absent():
    assert heading_settings("max", None, "against rest") == " (max, against rest)"
    assert heading_settings("max", "diff", "against rest") == " (max, diff, against rest)"
    assert heading_settings(None, None) == "" and heading_settings("None", "") == ""


def _layouts(html: str) -> list:
    """The layout of every figure of a report, from plotly's Plotly.newPlot(id, data, layout, config) calls."""
    decoder, layouts = json.JSONDecoder(), []
    for match in re.finditer(r'Plotly\.newPlot\(\s*"[^"]+",\s*', html):
        _, end = decoder.raw_decode(html, match.end())       # the data
        layout, _ = decoder.raw_decode(html, html.index("{", end))
        layouts.append(layout)
    return layouts


def test_report_charts_have_margins_that_hold_their_labels(two_models):
    review, html = two_models
    layouts = _layouts(html)
    assert len(layouts) >= 8   # per model: AUCs, rates, ratio scores, reliability, calibration errors
    longest = max((n for n in review.subgroups["subgroup"]), key=len)   # 50 characters
    assert longest == "sex=Female, age_group=(missing), ethnicity=Group A"
    need = label_width_px(longest + " (small)") + report_layout.LABEL_PAD_PX
    subgroup_charts = [lay for lay in layouts if lay.get("yaxis", {}).get("type") == "category"]
    assert len(subgroup_charts) >= 6
    for layout in subgroup_charts:
        assert layout["margin"]["l"] >= need > 300
    for layout in layouts:
        axes = [v for k, v in layout.items() if re.fullmatch(r"[xy]axis\d*", k)]
        assert axes and all(a["automargin"] is True for a in axes)


def test_fit_labels_sizes_the_left_margin_from_the_longest_label():
    import pandas as pd

    table = pd.DataFrame({"subgroup": ["no", "yes"], "size": [50, 60], "n_positive": [20, 30], "n_negative": [30, 30],
                          "selection_rate": [0.4, 0.5]})
    fig = fit_labels(fc.plotting.rate_chart(table, ["selection_rate"]))
    # "yes": 3 characters of 0.6 em at 12 px (21.6 px), and 24 px to spare: 46 px instead of the chart's 10
    assert fig.layout.margin.l == 46 and fig.layout.yaxis.automargin is True and fig.layout.xaxis.automargin is True
    long = table.assign(subgroup=["a" * 40, "b" * 60])
    fig = fit_labels(fc.plotting.rate_chart(long, ["selection_rate"]))
    assert fig.layout.margin.l == 60 * 0.6 * 12 + 24 == 456   # the longest label, 60 characters


def test_wide_tables_are_split_into_parts_that_fit_the_page(two_models):
    review, html = two_models
    table = review.models[0].rates["false_positive_rate"].table
    from fairness_core._review.report import _table

    block = _table(table)
    assert len(block["columns"]) == len(table.columns) == 14
    parts = block["parts"]
    assert len(parts) >= 2
    for n, part in enumerate(parts, 1):
        assert part["columns"][:2] == ["Subgroup", "Compared with"] and part["caption"] == f"Part {n} of {len(parts)}"
        width = sum(_width_px([row[i] for row in part["rows"]], c) for i, c in enumerate(part["columns"]))
        assert width <= PAGE_WIDTH_PX
        assert len(part["rows"]) == len(table)
    others = [c for part in parts for c in part["columns"][2:]]
    assert others == [column_name(c) for c in table.columns[2:]]   # every other column once, in order, named
    # a row's cells are the same row in every part
    row = table.reset_index(drop=True).iloc[3]
    for part in parts:
        keys = [next(k for k in table.columns if column_name(k) == c) for c in part["columns"]]
        for key, cell in zip(keys, part["rows"][3]):
            assert cell == cell_text(key, row[key])
    # a narrow table stays one table
    small = _table(review.subgroups)
    assert len(small["parts"]) == 1 and small["parts"][0]["caption"] == ""
    assert html.count("<caption>Part 1 of ") >= 4


def test_split_columns_keeps_the_keys_and_every_column():
    columns = ["subgroup", "reference"] + [f"value_{i}" for i in range(12)]
    rows = [["sex=Female, age_group=18-24", "rest"] + ["0.123456"] * 12]
    widths = [_width_px([r[i] for r in rows], c) for i, c in enumerate(columns)]
    # the subgroup wraps at 26 characters, "reference" (9) and "0.123456" (8, its header of 7 wrapped onto 2
    # lines: 4) stay on one line: 5.8 px a character and 13 px of padding and border
    assert widths[:3] == pytest.approx([26 * 5.8 + 13, 9 * 5.8 + 13, 8 * 5.8 + 13])
    # 229 px of keys leave 171 px of a 400 px page: two value columns of 59.4 px a part
    assert split_columns(columns, rows, width_px=400) == [[0, 1, 2 + k, 3 + k] for k in range(0, 12, 2)]
    # on the printed page (700 px): 471 px, seven value columns, then the other five
    assert split_columns(columns, rows) == [[0, 1, *range(2, 9)], [0, 1, *range(9, 14)]]
    assert split_columns(columns[:5], rows) == [[0, 1, 2, 3, 4]]   # a table that fits stays whole
