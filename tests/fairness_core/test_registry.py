"""The metric registry (fairness_core/_registry.py): its rows agree with the library, the policy's default rules,
the scorer, the rate shortcuts and the dashboard's labels and definitions; and a metric added through a registry
row alone shows up in the scorer, the policy, the bottom line, the labels and the invariance suite."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core import _registry as registry
from fairness_core._integrations import sklearn_scorer
from fairness_core._metrics import rates
from fairness_core._policy import rules
from fairness_core.plotting import RATE_LABELS
from fairness_dashboard.presentation import definitions, labels
from tests.fairness_core import test_common as common
from tests.fairness_core.test_common import engine_rows  # noqa: F401 - the fixture of the engine check

SPECS = registry.specs()


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_each_row_names_its_public_function_and_valid_kinds(spec):
    assert common.function(spec) is getattr(fc, spec.function), f"{spec.module}.{spec.function}"
    assert spec.function in fc.__all__
    assert set(spec.roles) <= set(registry.ROLES) and spec.roles
    assert spec.direction in registry.DIRECTIONS and spec.kind in registry.KINDS
    assert spec.engine in registry.ENGINE_TABLES and spec.scorer in registry.SCORER_INPUTS
    assert {invariance for invariance, _ in spec.limits} <= set(registry.INVARIANCES)
    assert all(len(reason) > 30 for _, reason in spec.limits), "a limit says why in a sentence"
    assert bool(spec.engine) != bool(spec.limit("engines")), "an engine table, or the reason there is none"
    assert spec.label and spec.anchor in definitions.BY_KEY, spec.name
    if spec.rule:   # what a rule's label, its verdict's sentence and the bottom line say
        assert spec.kind and spec.subject and spec.plain and spec.direction, spec.name
        assert (spec.kind == "score") == (spec.direction == "higher"), spec.name


def test_names_are_unique_and_the_lookup_says_what_is_registered():
    assert len({s.name for s in SPECS}) == len(SPECS) and len({s.function for s in SPECS}) == len(SPECS)
    assert registry.spec("false_positive_rate").function == "false_positive_rate_disparity"
    with pytest.raises(KeyError, match="No metric 'fpr' is registered. The registered metrics are"):
        registry.spec("fpr")
    assert fc.Rule.metric_specs() is registry.specs()


def test_the_default_rules_are_the_registrys():
    want = {(s.name, *s.default_rule) for s in SPECS if s.default_rule}
    assert {(r.metric, r.distance_measure, r.bound) for r in fc.DEFAULT_RULES} == want


def test_the_policy_lists_the_registrys_rule_metrics_in_order():
    assert rules.METRICS == ('p_percent_score', 'equal_opportunity_score', 'statistical_parity',
                             'true_positive_rate', 'false_positive_rate', 'false_negative_rate',
                             'false_omission_rate', 'false_discovery_rate', 'error_rate', 'equalized_odds',
                             'theil_index', 'calibration_disparity', 'bias_auc_score', 'dataset_statistical_parity')
    assert rules.SCORE_METRICS == ("p_percent_score", "equal_opportunity_score", "bias_auc_score")
    assert rules.DISTANCE_METRICS == rules.METRICS[2:10] + ("calibration_disparity", "dataset_statistical_parity")
    with pytest.raises(AttributeError):
        rules.RATE_METRICS   # noqa: B018 - the pasted copy is gone


def test_the_scorer_reads_its_metrics_and_aliases_from_the_registry():
    assert sorted(sklearn_scorer.METRICS) == sorted(
        ['statistical_parity', 'true_positive_rate', 'false_positive_rate', 'false_negative_rate',
         'false_omission_rate', 'false_discovery_rate', 'error_rate', 'equalized_odds', 'theil_index',
         'p_percent_score', 'equal_opportunity_score', 'correlation_score', 'unweighted_average_bias',
         'dataset_statistical_parity', 'smoothed_edf', 'bias_auc_score', 'calibration_disparity'])
    assert sklearn_scorer.ALIASES == {"model_statistical_parity": "statistical_parity",
                                      **{f"{m}_disparity": m for m in rules.DISTANCE_METRICS[1:7]}}
    negated = sorted(m for m, s in sklearn_scorer.METRICS.items() if s.direction == "lower")
    assert negated == sorted(set(sklearn_scorer.METRICS) - {"p_percent_score", "equal_opportunity_score",
                                                            "correlation_score", "bias_auc_score"})


def test_the_rate_shortcuts_are_generated_with_numpydoc_docstrings():
    assert rates.SHORTCUTS == ("true_positive_rate_disparity", "false_positive_rate_disparity",
                               "false_negative_rate_disparity", "false_omission_rate_disparity",
                               "false_discovery_rate_disparity", "error_rate_disparity")
    formulas = {"true_positive_rate": "TP / (TP + FN)", "false_positive_rate": "FP / (FP + TN)",
                "false_negative_rate": "FN / (FN + TP)", "false_omission_rate": "FN / (FN + TN)",
                "false_discovery_rate": "FP / (FP + TP)", "error_rate": "(FP + FN) / N"}
    keywords = inspect.signature(fc.model_statistical_parity).parameters
    for name in rates.SHORTCUTS:
        f = getattr(fc, name)
        metric = name[: -len("_disparity")]
        assert f.__name__ == f.__qualname__ == name and f.__module__ == "fairness_core._metrics.rates"
        assert f.__doc__.splitlines()[0] == f"Disparity of the {metric.replace('_', ' ')} {formulas[metric]}."
        assert "    References\n    ----------\n" in f.__doc__ and f"metric={metric!r}" in f.__doc__
        assert list(inspect.signature(f).parameters) == list(keywords)
    y, pred, groups = common.DATA["y_true"], common.DATA["y_pred"], common.DATA["groups"]
    got = fc.false_omission_rate_disparity(y, pred, groups, reduction="max")
    assert got.value == fc.rate_disparity(y, pred, groups, metric="false_omission_rate", reduction="max").value


def test_the_dashboard_reads_its_labels_and_anchors_from_the_registry():
    assert labels.RATE_LABELS == RATE_LABELS and list(labels.RATE_LABELS) == list(RATE_LABELS)
    assert definitions.RATE_KEYS == {"selection_rate": "selection-rate", "true_positive_rate": "tpr",
                                     "false_positive_rate": "fpr", "false_negative_rate": "fnr",
                                     "false_omission_rate": "for", "false_discovery_rate": "fdr",
                                     "error_rate": "error-rate"}
    assert {k: labels.COLUMN_LABELS[k] for k in ("subgroup_auc", "ece", "base_rate", "error_rate")} == {
        "subgroup_auc": "Subgroup AUC", "ece": "ECE", "base_rate": "Base rate", "error_rate": "Error rate"}
    for spec in SPECS:   # each anchor's entry documents the metric's function, or one of its family's
        entry = definitions.BY_KEY[spec.anchor]
        assert spec.function in entry.functions or spec.function == "base_rates", (spec.name, entry.functions)


# A metric added through the registry alone ----------------------------------------------------------------------

def selection_rate_gap(y_true, y_pred, subgroups, *, distance_measure="diff", reduction="mean", reference="rest",
                       include_small=False, ci=None, n_boot=1000, random_state=0, adjust=None, sample_weight=None):
    """The largest gap in selection rates between the subgroups, from the confusion counts (a test's metric).

    ``max_g |s_g - s_rest|`` with s = (TP + FP) / N; see :func:`fairness_core.rate_disparity` for the parameters.

    Returns
    -------
    DisparityResult

    References
    ----------
    Dwork et al. (2012), "Fairness Through Awareness".
    """
    counts = fc.ConfusionCounts.compute(y_true, y_pred, subgroups, sample_weight=sample_weight,
                                        func="selection_rate_gap")
    return counts.disparity("statistical_parity", distance_measure=distance_measure, reduction=reduction,
                            reference=reference, include_small=include_small, ci=ci, n_boot=n_boot,
                            random_state=random_state, adjust=adjust)


NEW = registry.MetricSpec(
    "selection_rate_gap", "selection_rate_gap", __name__, "rates", registry.BINARY, ci=True, engine="confusion",
    direction="lower", kind="distance", rule=True, plain="selection rates (a test's metric)",
    subject="selection rate gap", label="Selection rate gap", anchor="selection-rate", scorer="pred",
    options=registry.DISPARITY_OPTIONS)


@pytest.fixture
def new_metric(monkeypatch):
    """The registry with one more row, and nothing else changed."""
    monkeypatch.setattr(registry, "SPECS", registry.SPECS + (NEW,))
    return NEW


def test_a_metric_added_through_the_registry_alone_shows_up_everywhere(new_metric, engine_rows, request):
    name = new_metric.name
    # the scorer: accepted, negated (lower is better), and the value of the function
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=200), "g": rng.choice(["a", "b"], 200)})
    y = (X["x"] + rng.normal(size=200) > 0).astype(int)

    class Threshold:
        def predict(self, frame):
            return (frame["x"] > 0.3).astype(int).to_numpy()

    scorer = fc.make_fairness_scorer(name, "g", reduction="max")
    want = selection_rate_gap(y, Threshold().predict(X), X[["g"]], reduction="max").value
    assert scorer.sign == -1 and scorer(Threshold(), X, y) == pytest.approx(-want, abs=1e-15) and want > 0
    assert name in sklearn_scorer.METRICS
    # the policy: a rule bounds it in the units of a distance; its label, verdict and plain name
    assert name in rules.METRICS and name in rules.DISTANCE_METRICS and name not in rules.SCORE_METRICS
    rule = fc.Rule(metric=name, distance_measure="diff", bound=0.05)
    assert rule.label == "Selection rate gap (difference) <= 0.05"
    with pytest.raises(ValueError, match="must be 'diff' or 'ratio'"):
        fc.Rule(metric=name, bound=0.05)
    verdict = fc.evaluate(rule, want)
    assert verdict.status == ("fail" if want > 0.05 else "pass")
    assert fc.rule_plain_name(rule) == "Gap in selection rates (a test's metric)"
    assert fc.bottom_line([verdict])[0].startswith(f"Fails 1 of 1 rule: the gap in selection rates (a test's "
                                                   f"metric) is {want:.3g}")
    # the dashboard's labels and definition link
    assert labels.metric_label(name) == "Selection rate gap" and definitions.metric_key(name) == "selection-rate"
    # the invariance suite: every check's parameters hold it, and each check passes on it
    checks = {"row_order": common.test_row_order_does_not_matter,
              "weights": common.test_integer_weights_equal_repeated_rows,
              "intervals": common.test_intervals_are_present_and_hold_the_estimate,
              "small_left_out": common.test_small_subgroups_are_left_out_of_reductions,
              "containers": lambda spec: common.test_inputs_as_lists_arrays_or_pandas(spec, "pandas"),
              "nan": lambda spec: common.test_nan_and_infinite_inputs_are_refused_with_the_librarys_messages(
                  spec, np.nan),
              "not_assessable": lambda spec: common.test_nothing_to_compare_is_nan_with_a_reason_and_not_assessable(
                  spec, "one subgroup"),
              "renamed_subgroups": lambda spec: (
                  common.test_renamed_or_permuted_subgroups_give_the_same_values_under_the_new_names(spec, "permuted"))}
    for test, check in checks.items():
        where = common.reduces if test in ("small_left_out", "not_assessable") else (lambda spec: True)
        params = common.cases(test, where)
        assert name in [p.id for p in params], test
        check(next(p.values[0] for p in params if p.id == name))
    common.test_engine_counts_equal_the_in_memory_counts(NEW, "duckdb", engine_rows, request)


def test_without_the_fixture_the_metric_is_unknown():
    assert "selection_rate_gap" not in registry.names()
    with pytest.raises(ValueError, match="'metric' parameter of make_fairness_scorer"):
        fc.make_fairness_scorer("selection_rate_gap", "g")
    with pytest.raises(ValueError, match="The 'metric' field of Rule must be one of"):
        fc.Rule(metric="selection_rate_gap", distance_measure="diff", bound=0.05)
