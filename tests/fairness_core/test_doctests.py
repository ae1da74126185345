"""The examples in fairness_core's docstrings run and print what they say."""

import doctest
import importlib

import pytest

MODULES = ["_metrics.auc", "_metrics.calibration", "_disparity.compare", "_counts.classes", "_counts.thresholds", "_subgroups.slices", "_metrics.classwise", "_metrics.dataset", "_metrics.consistency", "_metrics.smoothed_edf", "_metrics.theil", "_metrics.ratio_scores",
           "_integrations.sklearn_scorer", "_stats.intervals", "_stats.delong", "_policy.rules", "_policy.rules_json", "_policy.verdicts", "_review.findings", "_review.finding", "_review.result_findings", "_review.auc_findings", "_metrics.explorer", "_metrics.performance", "_review.export",
           "_metrics.subgroup_thresholds", "_review.report_layout", "plotting._margins"]  # the modules whose docstrings hold examples


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"fairness_core.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
