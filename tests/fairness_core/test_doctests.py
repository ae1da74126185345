"""The examples in fairness_core's docstrings run and print what they say."""

import doctest
import importlib

import pytest

MODULES = ["_auc", "_calibration", "_compare", "_counts", "_slices", "_classwise", "_dataset", "_theil", "_ratio_scores",
           "_scorer", "_intervals", "_delong", "_policy", "_findings", "_explorer", "_performance", "_export",
           "_subgroup_thresholds"]  # the modules whose docstrings hold examples


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"fairness_core.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
