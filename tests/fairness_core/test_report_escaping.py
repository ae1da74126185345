"""The HTML report (render_report, Jinja2 templates with autoescape): hostile names as subgroup values, column
names, model names and the file name reach the page only escaped, and no template expression in them is evaluated.
"""

from __future__ import annotations

import ast
import inspect
import json
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc

HOSTILE = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "{{7*7}}", "{% raw %}"]
LABEL, SCORE, ATTRIBUTE, PREDICTED = "{% raw %}", "<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "{{7*7}}"
FILE_NAME = "{{7*7}}<b>bold</b>{% raw %}.csv"


class Page(HTMLParser):
    """Every start tag with its attributes, the text outside script and style, and each script's content."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.text, self.scripts, self._open = [], [], [], []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._open.append(tag)
        if tag == "script":
            self.scripts.append([dict(attrs), ""])

    def handle_endtag(self, tag):
        if self._open and self._open[-1] == tag:
            self._open.pop()

    def handle_data(self, data):
        inside = self._open[-1] if self._open else None
        if inside == "script":
            self.scripts[-1][1] += data
        elif inside != "style":
            self.text.append(data)


@pytest.fixture(scope="module")
def hostile():
    n = 160
    rng = np.random.default_rng(0)
    score = rng.uniform(0, 1, n).round(3)
    frame = pd.DataFrame({LABEL: (rng.uniform(0, 1, n) < score).astype(int), SCORE: score,
                          PREDICTED: (score >= 0.5).astype(int), ATTRIBUTE: np.repeat(HOSTILE, n // 4)})
    mapping = fc.ColumnMapping(label=LABEL, positive_label=1, scores=(SCORE,), predicted_label=PREDICTED,
                               protected=(ATTRIBUTE,), min_size=10)
    config = fc.ReviewConfig(mapping=mapping, n_boot=100)
    review = fc.build_review(frame, config, source={"name": FILE_NAME})
    return config, review, fc.render_report(review)


def test_hostile_names_appear_only_escaped(hostile):
    _, _, html = hostile
    assert "<script>alert(1)" not in html and "<img" not in html and "<b>bold</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html          # headings, meta table, table cells
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in html   # text escaped as html.escape does
    assert '"&gt;&lt;img src=x onerror=alert(1)&gt;' in html        # table cells, escaped as pandas did
    page = Page(html)
    assert not [tag for tag, _ in page.tags if tag == "img"]
    assert not [(tag, name) for tag, attrs in page.tags for name in attrs if name.lower().startswith("on")]
    # the only scripts: plotly's own and the two JSON records
    plotly = [attrs for attrs, _ in page.scripts if attrs.get("type") != "application/json"]
    assert plotly and all(set(attrs) <= {"type", "charset"} and attrs.get("type", "text/javascript") == "text/javascript"
                          for attrs in plotly), plotly   # inline, no src: plotly.js and one call per figure
    records = {attrs["id"]: json.loads(body) for attrs, body in page.scripts if attrs.get("type") == "application/json"}
    assert sorted(records) == ["review-config", "review-json"]


def test_hostile_names_are_shown_as_text_and_no_template_expression_is_evaluated(hostile):
    config, review, html = hostile
    page = Page(html)
    text = "".join(page.text)
    assert f"Fairness review: {FILE_NAME}" in text   # the h1, the title and the meta table, as written
    assert text.count(FILE_NAME) >= 2 and "Fairness review: 49" not in text
    for name in HOSTILE:   # each is a subgroup, and each is a column (label, model, predicted label, attribute)
        assert text.count(name) >= 3, name
    assert "{{7*7}}" in html and "{% raw %}" in html   # written out literally, never rendered as a template
    assert f"Model {SCORE}" in text and f"Given predictions ({PREDICTED})" in text
    # the embedded records give the same names back
    records = {attrs["id"]: body for attrs, body in page.scripts if attrs.get("type") == "application/json"}
    assert fc.ReviewConfig.from_json(records["review-config"]) == config
    assert json.loads(records["review-json"]) == json.loads(review.to_json())


def test_jinja2_is_imported_only_to_render_a_report():
    """fairness_core keeps heavy imports lazy: the report module imports jinja2 inside a function, never at its top
    (read from its source, so that no other test's imports can hide it)."""
    import fairness_core._review.report as report

    tree = ast.parse(inspect.getsource(report))
    top = [alias.name for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
           for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])]
    assert not [name for name in top if name.split(".")[0] in ("jinja2", "markupsafe", "plotly")], top
    assert "jinja2" in inspect.getsource(report._environment)
