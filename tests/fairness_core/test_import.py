"""The package imports without the UI stack, and its public surface is documented."""

from __future__ import annotations

import importlib
import inspect
import json
import operator
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fairness_core as fc

PROJECT_ROOT = Path(__file__).resolve().parents[2]

# Loaded in a fresh interpreter, so modules imported by other tests cannot hide or fake a result.
IMPORT_PROBE = """
import json, sys
import fairness_core
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly', 'scipy', 'sklearn', 'jinja2'))
print(json.dumps({'loaded': 'fairness_core' in sys.modules, 'heavy': heavy}))
"""


def test_import_loads_neither_streamlit_nor_plotly():
    # Nor scipy, scikit-learn or Jinja2: each is imported inside the functions that need it, so a
    # command-line run or a release gate pays only for pandas and numpy before its first computation.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c", IMPORT_PROBE],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["loaded"] is True
    assert result["heavy"] == []


def test_all_is_unique_and_every_name_exists():
    assert len(fc.__all__) == len(set(fc.__all__))
    missing = [name for name in fc.__all__ if not hasattr(fc, name)]
    assert missing == []


def _documented_objects():
    return [name for name in fc.__all__ if inspect.isclass(getattr(fc, name)) or callable(getattr(fc, name))]


@pytest.mark.parametrize("name", _documented_objects())
def test_public_callables_and_classes_have_numpydoc_docstrings(name):
    obj = getattr(fc, name)
    doc = obj.__doc__
    assert doc is not None and doc.strip(), f"{name} has no docstring"
    # A dataclass without a docstring gets an auto-generated signature such as "Name(a: int, ...)".
    assert not doc.strip().startswith(f"{name}("), f"{name} only has the auto-generated dataclass docstring"
    lines = inspect.cleandoc(doc).splitlines()
    summary = lines[0]
    assert summary.strip() and summary.rstrip().endswith("."), f"{name}: one-line summary ending in '.' expected"
    assert len(lines) == 1 or lines[1].strip() == "", f"{name}: the summary must be one line followed by a blank line"
    if inspect.isclass(obj):
        assert re.search(r"^(Attributes|Parameters)\n-{3,}$", inspect.cleandoc(doc), re.MULTILINE), (
            f"{name}: a class docstring needs an Attributes or Parameters section")


def test_missing_constant_is_the_documented_label():
    assert fc.MISSING == "(missing)"
    assert fc.MISSING in fc.Subgroups.from_attributes.__doc__


@pytest.mark.parametrize("module", ["_data.checks", "_subgroups.subgroups", "_metrics.auc", "_metrics.auc_table", "_disparity.compare", "_metrics.rates", "_metrics.calibration", "_data.reading",
                                    "_counts.scored_data", "_subgroups.slices", "_metrics.theil", "_metrics.ratio_scores", "_integrations.sklearn_scorer", "_metrics.classwise",
                                    "_metrics.dataset"])
def test_private_modules_are_not_shadowed_by_package_attributes(module):
    # `import fairness_core._x as m` resolves the package attribute first; the message-template
    # constants that tests assert against must be reachable this way.
    imported = importlib.import_module(f"fairness_core.{module}")
    assert operator.attrgetter(module)(fc) is imported  # dotted since the modules live in subpackages
    assert inspect.ismodule(operator.attrgetter(module)(fc))
