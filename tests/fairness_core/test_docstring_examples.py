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


def test_the_modules_are_found():
    assert "fairness_core._disparity.calibration_errors" in MODULES and len(MODULES) > 60


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False,
                             report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} failed " \
                               f"(run: python -m pytest --doctest-modules {name.replace('.', '/')}.py)"
