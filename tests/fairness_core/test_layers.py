"""fairness_core's modules form layers: imports run one way, nothing imports the package back.

Every module file of fairness_core is read with ``ast``; every ``import`` and ``from ... import``
counts, at top level and inside functions, relative and absolute. The tests assert:

(a) no import cycle among fairness_core's modules;
(b) no module imports the package itself (``fairness_core/__init__``), not even the command line;
(c) a module of layer i imports only from layers <= i (the table ``LAYERS`` below);
(d) every module has at most ``MAX_LINES`` lines, or says why not in a ``# More than 500 lines: ...``
    comment in its first lines.

A module's layer is the layer of its first component under ``fairness_core`` (a private subpackage
such as ``_counts``, or a top-level module such as ``_cli``). Replaces the older check in
test_speed_paths_counts.py, which only walked ``from .x import`` of the flat modules.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import fairness_core as fc

PACKAGE = Path(fc.__file__).resolve().parent
ROOT = "fairness_core"
MAX_LINES = 500
REASON = re.compile(r"^# More than 500 lines: \S")

# Lowest first. A module may import from its own layer and the layers before it.
LAYERS = [
    ("_version", "_registry", "_data"),  # version string; the metric registry; reading, CSV dialect, argument
                                         # checks, column mapping and its guess
    ("_subgroups",),         # Subgroups, membership patterns, attribute binning, slices
    ("_stats",),             # Wilson / MOVER intervals, DeLong, bootstrap helpers, AUC bootstrap
    ("_policy",),            # rules, verdicts and their evaluation, the default rules, rules as JSON
    ("_disparity",),         # per-subgroup values compared: distances, reductions, references, inequality,
                             # average bias and calibration errors of given tables; shared result base
    ("_counts",),            # the count tables, patterns of membership, calibration binning, row encoding, ScoredData
    ("_metrics",),           # one module per metric family
    ("_models",),            # comparing models
    ("plotting",),           # figures of result tables (imports no other fairness_core module)
    ("_review",),            # findings, conclusions, configuration, reviews, report, export
    ("_integrations", "engines", "_cli", "__main__"),  # scikit-learn scorer, SQL / dataframe engines, command line
    ("__init__",),           # the package: re-exports the public names
]
LAYER_OF = {name: i for i, names in enumerate(LAYERS) for name in names}


def module_names() -> list[str]:
    """Every module of fairness_core as a dotted name (packages by their ``__init__``'s package name)."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join([ROOT] + parts))
    return names


def _path_of(module: str) -> Path:
    parts = module.split(".")[1:]
    file = PACKAGE.joinpath(*parts).with_suffix(".py") if parts else PACKAGE / "__init__.py"
    return file if file.is_file() else PACKAGE.joinpath(*parts, "__init__.py")


def _is_package(module: str) -> bool:
    return _path_of(module).name == "__init__.py"


def _imports(module: str) -> set[str]:
    """The fairness_core modules ``module`` imports (a package's name stands for its ``__init__``)."""
    known = set(module_names())
    package = module if _is_package(module) else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(_path_of(module).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name == ROOT or a.name.startswith(ROOT + "."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target != ROOT and not target.startswith(ROOT + "."):
                continue
            submodules = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]
            found.update(submodules)
            if len(submodules) < len(node.names):  # a name from the module (or package) itself
                found.add(target)
    found.discard(module)
    return found


def import_graph() -> dict[str, set[str]]:
    return {name: _imports(name) for name in module_names()}


def _layer(module: str) -> int:
    parts = module.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    assert key in LAYER_OF, f"{module}: {key} is in no layer of LAYERS"
    return LAYER_OF[key]


def test_every_module_is_in_a_layer():
    for name in module_names():
        _layer(name)


def test_no_import_cycle():
    graph = import_graph()
    state, cycles = {}, []

    def visit(node, path):
        state[node] = "open"
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == "open":
                cycles.append(path[path.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, path + [dep])
        state[node] = "done"

    for module in graph:
        if module not in state:
            visit(module, [module])
    assert cycles == [], f"import cycles: {cycles}"


def test_no_module_imports_the_package_back():
    offenders = sorted(name for name, deps in import_graph().items() if name != ROOT and ROOT in deps)
    assert offenders == []


def test_imports_run_from_higher_layers_to_lower_ones():
    wrong = sorted((name, dep) for name, deps in import_graph().items() for dep in deps
                   if dep != ROOT and _layer(dep) > _layer(name))
    assert wrong == []


@pytest.mark.parametrize("module", module_names())
def test_module_is_short_or_says_why_not(module):
    lines = _path_of(module).read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES or any(REASON.match(line) for line in lines[:5]), (
        f"{module}: {len(lines)} lines and no '# More than 500 lines: <reason>' comment in its first lines")


def test_the_metric_modules_count_through_the_count_tables():
    graph = import_graph()
    for family in ("rates", "theil", "ratio_scores", "calibration", "classwise", "dataset"):
        deps = graph[f"{ROOT}._metrics.{family}"]
        assert any(dep.startswith(f"{ROOT}._counts.") for dep in deps), family
    # What the tables' methods compute with never imports a module that counts rows.
    for name, deps in graph.items():
        if name.startswith(f"{ROOT}._disparity."):
            assert not any(dep.startswith((f"{ROOT}._counts", f"{ROOT}._metrics")) for dep in deps), name


OUTSIDE = sorted(str(p.relative_to(PACKAGE.parent)) for folder in ("fairness_dashboard", "pages", "benchmarks")
                 for p in (PACKAGE.parent / folder).glob("**/*.py" if folder == "fairness_dashboard" else "*.py")) + ["app.py"]


@pytest.mark.parametrize("path", OUTSIDE)
def test_app_and_benchmark_modules_are_short_or_say_why_not(path):
    lines = (PACKAGE.parent / path).read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES or any(REASON.match(line) for line in lines[:5]), (
        f"{path}: {len(lines)} lines and no '# More than 500 lines: <reason>' comment in its first lines")
