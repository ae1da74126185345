"""AppTest: the Metric definitions page shows every metric of the contract, with its formula, and the guide."""

import fairness_core
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.helpers import ROOT
from ui import definitions as defs

# Every public metric function named in ARCHITECTURE.md §5 (the contract), written out here on purpose:
# the page must name each of them, and fairness_core must export each of them.
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
    source = (ROOT / "app.py").read_text()
    nav = source[source.index("st.navigation(["):source.index("]).run()")]
    entries = [line.strip() for line in nav.splitlines() if line.strip().startswith("st.Page(")]
    assert entries[-1] == 'st.Page("pages/definitions.py", title="Metric definitions"),'


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
        assert "seed 00" in metric.source, (metric.key, "source names no seed")
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
    """Issue 7, item 9: statements an independent check found wrong stay corrected."""
    everything = " ".join(f"{m.meaning} {m.source} {m.differs}" for m in defs.METRICS)
    # audmetric scores a class that occurs but is never predicted 0, as we do: no difference to list.
    assert defs.BY_KEY["fscore-class"].differs == ""
    assert "audmetric gives NaN" not in everything and "rather than NaN" not in defs.BY_KEY["uab"].differs
    # roc_auc_score on one class: NaN with a warning in current scikit-learn, an error in older versions.
    auc_note = defs.BY_KEY["subgroup-auc"].differs
    assert "depends on the scikit-learn version" in auc_note and "NaN" in auc_note and "older" in auc_note
    # Seed 002 cites no "Wagner et al."; the FPR gap is about actual negatives.
    assert "Wagner" not in everything and "Wagner" not in (ROOT / "README.md").read_text()
    assert "actual negatives" in defs.BY_KEY["disparity"].meaning
    assert "true negatives" not in defs.BY_KEY["disparity"].meaning
    # scikit-lego's p% score: both rates 0 -> 0 and an empty side -> 1 there; 1.0 and NaN here.
    p_note = defs.BY_KEY["p-percent"].differs
    assert "Both rates 0 gives 1" in p_note and "scikit-lego returns 0" in p_note
    assert "scikit-lego returns 1 after a 'mean of empty slice' warning" in p_note
