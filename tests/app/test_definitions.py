"""AppTest: the Metric definitions page shows every metric of the contract, with its formula, and the guide."""

import re

import fairness_core
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.helpers import PAGES, ROOT, each_section
from fairness_dashboard import navigation
from fairness_dashboard.presentation import definitions as defs

# Every public metric function of the metric families, written out here on purpose:
# the page must name each of them, and fairness_core must export each of them.
# The public projects the fairness metrics follow (each definition's source names one).
PROJECTS = ("Jigsaw", "ExFairness", "audmetric", "scikit-lego", "Oracle AutoMLx")

CONTRACT_FUNCTIONS = [
    # 5.1 bias-aware AUCs
    "subgroup_auc", "bpsn_auc", "bnsp_auc", "power_mean", "bias_auc_score", "bias_auc_table",
    # 5.2 rates and disparities
    "group_rates", "rate_disparity", "model_statistical_parity", "true_positive_rate_disparity",
    "false_positive_rate_disparity", "false_negative_rate_disparity", "false_omission_rate_disparity",
    "false_discovery_rate_disparity", "error_rate_disparity", "equalized_odds", "theil_index",
    "individual_theil_index", "between_group_theil_index", "p_percent_score", "equal_opportunity_score",
    "correlation_score", "subset_score",
    # 5.3 calibration (calibration_errors holds the Brier score)
    "reliability_diagram", "expected_calibration_error", "maximum_calibration_error", "calibration_disparity",
    "calibration_errors",
    # 5.4 class-wise bias
    "unweighted_average_bias",
    # 5.5 dataset metrics
    "dataset_statistical_parity", "consistency", "smoothed_edf",
]


@pytest.fixture(scope="module")
def page():
    """The definitions page, run on its own (it draws the shared frame like every page)."""
    at = AppTest.from_file(str(ROOT / "pages" / "definitions.py"), default_timeout=60)
    at.run()
    return at


def _text(at) -> str:
    return "\n".join(el.value for el in [*at.markdown, *at.caption])


def test_page_runs_without_exception_or_error(page):
    assert not page.exception, page.exception
    assert not page.error, [e.value for e in page.error]
    assert [t.value for t in page.title] == ["Metric definitions"]


def test_page_is_the_last_entry_of_the_navigation():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/definitions.py").run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Metric definitions"]
    assert navigation.PAGES[-1] == ("pages/definitions.py", "Metric definitions") == ("pages/definitions.py", defs.PAGE)


def test_every_formula_is_rendered_with_st_latex(page):
    rendered = [el.value for el in page.latex]
    assert len(rendered) == len(defs.METRICS)
    for metric in defs.METRICS:
        assert any(metric.formula in value for value in rendered), metric.name


def test_every_metric_has_its_subheader_and_fields_on_the_page(page):
    subheaders = [s.value for s in page.subheader]
    text = _text(page)
    for metric in defs.METRICS:
        assert metric.name in subheaders
        for field in (metric.perfect, metric.meaning, metric.source, metric.differs):
            assert field in text, (metric.name, field)


def test_every_contract_function_is_named_on_the_page(page):
    text = _text(page)
    missing = [name for name in CONTRACT_FUNCTIONS if f"`{name}`" not in text]
    assert not missing, f"not named on the page: {missing}"
    named = {name for metric in defs.METRICS for name in metric.functions}
    assert set(CONTRACT_FUNCTIONS) <= named


def test_entries_are_complete():
    keys = [m.key for m in defs.METRICS]
    assert len(keys) == len(set(keys)), "metric keys (page anchors) must be unique"
    assert not set(keys) & ({f.key for f in defs.FAMILIES} | {"guide", "notation"})
    for metric in defs.METRICS:
        for field in ("name", "formula", "perfect", "meaning", "source"):
            assert getattr(metric, field).strip(), (metric.key, field)
        assert metric.functions, metric.key
        # Every fairness metric names the public project it follows; the standard performance measures the literature.
        assert any(p in metric.source for p in PROJECTS) or metric.key in {"performance"}, (metric.key, "source names no project")
    for family in defs.FAMILIES:
        assert family.page in defs.PAGES and family.metrics


def test_formulas_are_ascii_latex_without_macros_katex_lacks():
    for metric in defs.METRICS:
        assert metric.formula.isascii(), metric.key  # KaTeX warns about Unicode in math mode
        for macro in (r"\mathbbm", r"\operatorname*", r"\newcommand", r"\DeclareMathOperator", r"\abs", r"\tag"):
            assert macro not in metric.formula, (metric.key, macro)
        assert metric.formula.count("{") == metric.formula.count("}"), metric.key


def test_guide_is_present_and_points_to_pages_and_entries(page):
    assert "Which metrics to look at" in [h.value for h in page.header]
    text = _text(page)
    for question in defs.GUIDE:
        assert question.question in text
        for answer in question.answers:
            assert answer.page in defs.PAGES or answer.page == ""
            assert answer.metrics or answer.look_at == "go on to the next question"
            assert set(answer.metrics) <= set(defs.BY_KEY)
    guided = {key for q in defs.GUIDE for a in q.answers for key in a.metrics}
    for needed in ("fpr", "fdr", "fnr", "for", "tpr", "selection-rate", "p-percent", "equal-opportunity",
                   "ece", "calibration-disparity", "subgroup-auc", "bpsn-auc", "bnsp-auc", "base-rate", "uab"):
        assert needed in guided, needed


def test_fairness_core_exports_every_named_function():
    """Each name on the page is public in fairness_core (some are added by parallel work)."""
    named = sorted(set(CONTRACT_FUNCTIONS) | {n for m in defs.METRICS for n in m.functions})
    missing = [name for name in named if name not in fairness_core.__all__]
    assert not missing, f"named on the definitions page but not in fairness_core.__all__: {missing}"


def test_corrected_statements_about_the_reference_implementations():
    """Statements an independent check found wrong stay corrected."""
    everything = " ".join(f"{m.meaning} {m.source} {m.differs}" for m in defs.METRICS)
    # audmetric scores a class that occurs but is never predicted 0, as we do: no difference to list.
    assert defs.BY_KEY["fscore-class"].differs == ""
    assert "audmetric gives NaN" not in everything and "rather than NaN" not in defs.BY_KEY["uab"].differs
    # roc_auc_score on one class: NaN with a warning in current scikit-learn, an error in older versions.
    auc_note = defs.BY_KEY["subgroup-auc"].differs
    assert "depends on the scikit-learn version" in auc_note and "NaN" in auc_note and "older" in auc_note
    # audmetric cites no "Wagner et al."; the FPR gap is about actual negatives.
    assert "Wagner" not in everything and "Wagner" not in (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert "actual negatives" in defs.BY_KEY["disparity"].meaning
    assert "true negatives" not in defs.BY_KEY["disparity"].meaning
    # scikit-lego's p% score: both rates 0 -> 0 and an empty side -> 1 there; 1.0 and NaN here.
    p_note = defs.BY_KEY["p-percent"].differs
    assert "Both rates 0 gives 1" in p_note and "scikit-lego returns 0" in p_note
    assert "scikit-lego returns 1 after a 'mean of empty slice' warning" in p_note


# The content file and its loader ------------------------------------------------------------------

def test_definitions_live_in_the_markdown_file():
    source = defs.SOURCE.read_text(encoding="utf-8")
    assert defs.SOURCE.name == "definitions.md"
    for metric in defs.METRICS:
        assert f"{{#{metric.key}}}" in source and metric.formula in source
    # the module is a loader, not content
    assert len((ROOT / "fairness_dashboard" / "presentation" / "definitions.py").read_text().splitlines()) < 260


_ENTRY = """# Guide {#guide}

Intro.

## A question?

A hint.

- answer: Yes
  look at: the thing
  metrics: m
  page: Data

# Notation {#notation}

First paragraph.

Second paragraph.

# Family {#fam}

page: Data

The family's introduction.

## Metric M {#m}

functions: f, g

```latex
a + b
```

perfect: 0

meaning: What it means,
continued on a second line.

source: Jigsaw Unintended Bias benchmark
"""


def test_loader_reads_fields_paragraphs_answers_and_formulas():
    notation, intro, guide, families = defs.load(_ENTRY)
    assert notation == "First paragraph.\n\nSecond paragraph."
    assert intro == "Intro."
    assert guide == (defs.Question("A question?", "A hint.", (defs.Answer("Yes", "the thing", ("m",), "Data"),)),)
    (family,) = families
    assert (family.key, family.title, family.page, family.intro) == ("fam", "Family", "Data", "The family's introduction.")
    assert family.metrics == (defs.Metric("m", "Metric M", ("f", "g"), "a + b", "0",
                                          "What it means, continued on a second line.", "Jigsaw Unintended Bias benchmark"),)


@pytest.mark.parametrize("broken, message", [
    (_ENTRY.replace("perfect: 0\n", ""), "lacks \\['perfect'\\]"),
    (_ENTRY.replace("## Metric M {#m}", "## Metric M"), "lacks"),
    (_ENTRY.replace("  look at: the thing", "  look: the thing"), "expected one of"),
    (_ENTRY.replace("source: Jigsaw Unintended Bias benchmark\n", "source: Jigsaw Unintended Bias benchmark\n\nsource: again\n"), "a second 'source'"),
    (_ENTRY.replace("perfect: 0\n", "perfect: 0\n\nStray text.\n"), "text outside a field"),
])
def test_loader_says_where_the_file_departs_from_the_format(broken, message):
    with pytest.raises(ValueError, match=message):
        defs.load(broken)


def test_definition_link_points_to_the_entry_on_the_definitions_page():
    assert defs.definition_link("ece") == "[Definition](/metric-definitions#ece)"
    assert set(defs.RATE_KEYS.values()) <= set(defs.BY_KEY)
    with pytest.raises(KeyError, match="no metric definition 'eec'"):
        defs.definition_link("eec")


_LINK = re.compile(r"\[Definition\]\(/metric-definitions#([a-z0-9-]+)\)$")
# Tiles that show a count or a name, not a metric defined on the definitions page.
_NOT_METRICS = {"Rows in file", "Rows in slice", "Rows used", "Rows excluded", "Base rate (share positive)",
                "Rows analysed", "Subgroups", "Classes used", "Attained by"}


def test_every_headline_tile_links_to_its_definition():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    linked = {}
    for page in PAGES:
        at.switch_page(page).run()
        for _ in each_section(at, page):
            assert not at.exception, (page, at.exception)
            for tile in at.metric:
                if tile.label in _NOT_METRICS:
                    continue
                found = _LINK.search(tile.proto.help)
                assert found, (page, tile.label, tile.proto.help)
                assert found.group(1) in defs.BY_KEY, (page, tile.label)
                linked[tile.label] = found.group(1)
    assert linked["Bias AUC score"] == "bias-auc-score"
    assert linked["False positive rate disparity (max)"] == "fpr"
    assert linked["ECE disparity (max)"] == "calibration-disparity"
    assert linked["Unweighted average bias"] == "uab"
    assert linked["Smoothed EDF (ε)"] == "smoothed-edf"
    assert len(linked) >= 15, sorted(linked)
