"""Every example in fairness_core's docstrings runs and prints what it shows (doctest, one test per module).

Wrapped lines of an example's output compare equal to the one line printed (NORMALIZE_WHITESPACE), so
docstrings keep their width.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import fairness_core

MODULES = sorted(m.name for m in pkgutil.walk_packages(fairness_core.__path__, "fairness_core.")
                 if not m.name.endswith("__main__"))


# Modules whose docstrings must hold examples (each run once, by test_docstring_examples below).
WITH_EXAMPLES = ["_metrics.auc", "_metrics.calibration", "_disparity.compare", "_counts.classes", "_counts.thresholds",
                 "_subgroups.slices", "_metrics.classwise", "_metrics.dataset", "_metrics.consistency",
                 "_metrics.smoothed_edf", "_metrics.theil", "_metrics.ratio_scores", "_integrations.sklearn_scorer",
                 "_stats.intervals", "_stats.delong", "_policy.rules", "_policy.rules_json", "_policy.verdicts",
                 "_review.findings", "_review.finding", "_review.result_findings", "_review.auc_findings",
                 "_metrics.explorer", "_metrics.performance", "_review.export", "_metrics.subgroup_thresholds",
                 "_review.report_layout", "plotting._margins"]


def test_the_modules_are_found():
    assert "fairness_core._disparity.calibration_errors" in MODULES and len(MODULES) > 60


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_the_modules_with_examples_keep_them(name):
    module = importlib.import_module(f"fairness_core.{name}")
    assert f"fairness_core.{name}" in MODULES
    assert any(test.examples for test in doctest.DocTestFinder().find(module)), f"{name} lost its examples"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False,
                             report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} failed " \
                               f"(run: python -m pytest --doctest-modules {name.replace('.', '/')}.py)"
