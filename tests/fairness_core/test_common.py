"""The invariance suite: every public metric of the metric registry checked for the same properties, in the
spirit of scikit-learn's sklearn/metrics/tests/test_common.py.

Every check is parametrised from the registry (``fairness_core._registry.specs()``: one ``MetricSpec`` per public
metric, its inputs in ``roles``), so a metric gets all of them by its registry row alone:

- row-order invariance (estimates and, with ``ci=``, the seeded intervals), and the order of tied scores;
- binary labels given as integers, floats or booleans; where the API takes a positive label, labels as strings,
  numbers or booleans with that label named; multi-class labels as strings or numbers;
- inputs as lists, numpy arrays or pandas objects (with an index that is neither 0..n-1 nor in row order);
- relabelled and permuted subgroup labels: the same values under the new names;
- intervals with ``ci=``: present, and finite low <= estimate <= high wherever the estimate is defined;
- integer sample weights: the values of the rows repeated that many times;
- NaN and infinite inputs refused by fairness_core's own checks;
- undefined values (a subgroup without positives) as NaN with a note, and left out of a reduction;
- small subgroups left out of every reduction (the same value as without the small subgroup at all);
- one subgroup, every subgroup missing, every subgroup small: NaN with the reason, "not assessable" for a rule;
- empty input: a ValueError from fairness_core's own checks, or an empty table / NaN that says why;
- an engine's count table (DuckDB, polars; Spark in the full tier) equal to the in-memory one.

Where a metric cannot satisfy an invariance, its row's ``limits`` says why; the check then asserts that the
reason is given and still true, so neither a silent skip nor a stale reason passes.
``test_every_public_metric_is_registered`` fails when a public function is neither registered nor listed in
``NOT_METRICS`` with the reason it is not a metric.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
from typing import Callable

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core import _registry as registry
from fairness_core._registry import MetricSpec
from tests.fairness_core.test_properties_extra import raise_site

TOL = 1e-12
LEVEL = 0.95
N_BOOT = 200
# New names that sort in another order, and the same names permuted among the subgroups.
RENAMES = {"renamed": {"a": "zeta", "b": "alpha", "c": "mu (renamed)"}, "permuted": {"a": "b", "b": "c", "c": "a"}}
NUMERIC_ROLES = ("y_true", "y_pred", "y_score", "X")

# Public functions that are not metrics of scored data, and why. A new public function must go in REGISTRY or here.
NOT_METRICS = {
    # data, mapping and subgroups
    "read_table": "reads a file", "guess_mapping": "guesses a column mapping", "guess_positive": "guesses a label",
    "guess_outcome": "words for a label", "numbers_as_text": "finds numeric columns that are codes",
    "subset_score": "applies any registered metric to a slice of rows",
    # count tables: what the registered metrics are computed from (and what an engine computes)
    "auc_counts": "count table", "confusion_counts": "count table", "threshold_counts": "count table",
    "calibration_counts": "count table", "class_counts": "count table",
    "base_rates_from_counts": "base_rates from an engine's count table (tests/fairness_core/test_engines.py)",
    "smoothed_edf_from_counts": "smoothed_edf from an engine's count table (tests/fairness_core/test_engines.py)",
    # building blocks and summaries of given numbers
    "power_mean": "a summary of given values (tests/fairness_core/test_bootstrap.py)",
    "effective_size": "Kish's effective size of given sums of weights (tests/fairness_core/test_sample_weights.py)",
    "weighted_wilson_interval": "an interval of given sums of weights (tests/fairness_core/test_weighted_intervals.py)",
    "summarize_bias_auc": "bias_auc_score's summary of a given AUC table",
    "distance": "the distance of two given rates", "reduce_disparities": "a reduction of a given table",
    "named_reference": "names a reference subgroup", "reference_keyword": "reads a reference option",
    "calibration_rule": "a rule", "wilson_interval": "an interval of given counts",
    "delong_variance": "a variance of given histograms", "auc_interval": "an interval of given histograms",
    # rules, verdicts, findings, conclusions
    "evaluate": "a verdict", "evaluate_result": "a verdict", "summarize_verdicts": "a table of verdicts",
    "rows_factor": "how many times the rows would decide a verdict",
    "rules_to_json": "serialisation", "rules_from_json": "serialisation", "classwise_findings": "sentences",
    "disparity_findings": "sentences", "rate_findings": "sentences", "reduction_finding": "sentences",
    "findings_table": "a table of findings", "auc_findings": "sentences", "direction_warning": "a sentence",
    "outcome_words": "words for outcomes", "outcome_phrases": "words for outcomes", "outcome_rule": "a rule labelled for the outcome",
    "rate_rules": "rules", "dataset_rule": "a rule",
    "no_auc_finding": "a sentence", "auc_conclusions": "findings and verdicts of a page",
    "rate_conclusions": "findings and verdicts of a page", "calibration_conclusions": "findings and verdicts of a page",
    "dataset_conclusions": "findings and verdicts of a page",
    "classwise_conclusions": "findings and verdicts of a page",
    "bottom_line": "sentences summing up verdicts", "rule_plain_name": "words for a rule",
    "result_subject": "words for whom a result is about",
    # thresholds and curves over a count table
    "explorer_thresholds": "candidate thresholds", "threshold_curves": "rates over thresholds of a count table",
    "disparity_curve": "a disparity over thresholds of a count table", "rule_band": "a rule over thresholds",
    "subgroup_threshold_effect": "the effect of per-subgroup thresholds on a count table",
    "default_threshold": "a threshold", "threshold_for_range": "a threshold",
    # model comparisons: differences of the registered metrics between models (test_compare_models.py and others)
    "compare_models": "differences between models", "compare_model_aucs": "differences between models",
    "compare_model_calibration": "differences between models",
    "discover_subgroups": "a search over intersections for a rate or the subgroup AUC (tests/fairness_core/test_discovery.py)",
    # scikit-learn scorer, export, review
    "make_fairness_scorer": "wraps a registered metric as a scikit-learn scorer",
    "neutralize_formulas": "export", "table_to_csv": "export", "table_to_json": "export",
    "table_from_json": "export", "export_name": "export", "render_report": "report",
    "build_review": "a whole review", "build_review_from_counts": "a whole review",
    "group_thresholds": "chooses a threshold per subgroup (a decision aid)",
    "suggest_threshold": "assesses the rate rules at every threshold (a review's decision aid)",
    "model_changes": "judges a review's differences from a baseline (the release gate)",
    "changes_by_rule": "matches the release gate's changes to the rules of a scorecard",
    "over_time": "a whole review per period (tests/fairness_core/test_over_time.py)",
    "review_history": "saved reviews side by side in time (tests/fairness_core/test_history.py)",
    "period_trend": "a trend test of given per-period estimates", "period_changes": "changes of given per-period estimates",
}

# (test, metric name) -> why that metric is known to fail that check: marked xfail(strict=True), so a fix removes it.
KNOWN_FAILURES: dict = {}


def function(spec: MetricSpec) -> Callable:
    """The function of a registry row, from the module it names (a row a test registers lives in the test)."""
    return getattr(importlib.import_module(spec.module), spec.function)


def takes(spec: MetricSpec, parameter: str) -> bool:
    return parameter in inspect.signature(function(spec)).parameters


def reduces(spec: MetricSpec) -> bool:
    """Reduces over subgroups: small subgroups are left out unless ``include_small=True``."""
    return takes(spec, "include_small")


def cases(test: str, where: Callable[[MetricSpec], bool] = lambda spec: True) -> list:
    """The registered metrics as pytest parameters (read from the registry now: a row registered later is in);
    a known failure is xfail(strict=True) for this test only."""
    out = []
    for spec in registry.specs():
        if not where(spec):
            continue
        reason = KNOWN_FAILURES.get((test, spec.name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(spec, id=spec.name, marks=marks))
    return out


# Data ---------------------------------------------------------------------------------------------------

def make_data(seed: int = 0, sizes=(("a", 150), ("b", 120), ("c", 90))) -> dict:
    """Seeded rows: binary labels drawn from probability scores, predictions at 0.5, three-class labels, two
    features, and the subgroup of each row (sizes as given, rows shuffled)."""
    rng = np.random.default_rng(seed)
    groups = np.concatenate([[name] * size for name, size in sizes]).astype(object)
    rng.shuffle(groups)
    n = len(groups)
    shift = pd.Series(groups).map({"a": 0.0, "b": 0.1, "c": -0.1, "d": 0.2}).to_numpy()
    score = np.clip(rng.beta(2, 2, n) + shift, 0.001, 0.999).round(3)
    y_true = (rng.uniform(0, 1, n) < score).astype(int)
    y_pred = (score >= 0.5).astype(int)
    truth = rng.choice(np.array(["x", "y", "z"], dtype=object), n, p=[0.5, 0.3, 0.2])
    prediction = np.where(rng.uniform(0, 1, n) < 0.7, truth, rng.choice(np.array(["x", "y", "z"], dtype=object), n))
    X = np.column_stack([score + rng.normal(0, 0.2, n), rng.normal(0, 1, n) + y_true])
    return {"y_true": y_true, "y_score": score, "y_pred": y_pred, "groups": groups, "truth": truth,
            "prediction": prediction, "X": X}


DATA = make_data()


def inputs(data: dict, role: str):
    """The input of `role`; ``subgroups`` is ``data["subgroups"]`` (a Subgroups) when given, else the labels."""
    if role == "subgroups":
        return data.get("subgroups", data["groups"])
    if role == "member":
        return np.asarray(data["groups"]) == data.get("member_name", "a")
    if role == "sensitive":
        return (np.asarray(data["groups"]) == data.get("sensitive_name", "c")).astype(int)
    if role == "confusion_counts":
        return fc.confusion_counts(data["y_true"], data["y_pred"], inputs(data, "subgroups"))
    return data[role]


def run(spec: MetricSpec, data: dict, *, ci=None, **options):
    args = [inputs(data, role) for role in spec.roles]
    kwargs = {**dict(spec.fixed), **options}
    if ci is not None:
        kwargs["ci"] = ci
        if takes(spec, "n_boot"):
            kwargs["n_boot"] = N_BOOT
    return function(spec)(*args, **kwargs)


def permuted(data: dict, perm: np.ndarray) -> dict:
    return {k: (v[perm] if isinstance(v, np.ndarray) else v) for k, v in data.items()}


def as_container(data: dict, kind: str) -> dict:
    """The row inputs as lists, arrays, or pandas objects sharing an index that is neither 0..n-1 nor sorted."""
    n = len(data["y_true"])
    index = pd.Index(np.random.default_rng(5).permutation(n) * 3 + 100)
    out = dict(data)
    for key, value in data.items():
        if not isinstance(value, np.ndarray):
            continue
        if kind == "list":
            out[key] = value.tolist()
        elif kind == "pandas":
            out[key] = pd.DataFrame(value, index=index, columns=["f0", "f1"]) if value.ndim == 2 else pd.Series(
                value, index=index, name=key)
    return out


def binary_as(data: dict, kind: str) -> dict:
    convert = {"int": lambda v: v.astype(int), "float": lambda v: v.astype(float), "bool": lambda v: v.astype(bool),
               "int8": lambda v: v.astype(np.int8)}[kind]
    return {**data, "y_true": convert(data["y_true"]), "y_pred": convert(data["y_pred"])}


def renamed(data: dict, rename: dict) -> dict:
    return {**data, "groups": np.array([rename.get(g, g) for g in data["groups"]], dtype=object),
            "member_name": rename["a"], "sensitive_name": rename["c"]}


def subgroups(groups, min_size: int = 1) -> fc.Subgroups:
    return fc.Subgroups.from_attributes(pd.DataFrame({"g": groups}), ["g"], min_size=min_size)


# Comparing results ------------------------------------------------------------------------------------------

def parts(result) -> dict:
    """A result's numbers: a float as {"value": x}; a table as itself; a result object as its numeric fields and
    its tables (nested results flattened with a dotted name)."""
    if isinstance(result, pd.DataFrame):
        return {"table": result}
    if isinstance(result, (float, int, np.floating, np.integer)):
        return {"value": float(result)}
    assert dataclasses.is_dataclass(result), type(result)
    out = {}
    for field in dataclasses.fields(result):
        value = getattr(result, field.name)
        if isinstance(value, (bool, np.bool_)):
            out[field.name] = bool(value)
        elif isinstance(value, (int, float, np.integer, np.floating)):
            out[field.name] = float(value)
        elif isinstance(value, pd.DataFrame):
            out[field.name] = value
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            out.update({f"{field.name}.{k}": v for k, v in parts(value).items()})
    return out


def tables(result) -> list:
    return [v for v in parts(result).values() if isinstance(v, pd.DataFrame)]


def rename_back(frame: pd.DataFrame, rename: dict) -> pd.DataFrame:
    back = {new: old for old, new in rename.items()}
    frame = frame.copy()
    for column in ("subgroup", "reference"):
        if column in frame:
            frame[column] = frame[column].map(lambda v: back.get(v, v))
    keys = [c for c in ("subgroup", "reference", "class", "bin", "scope") if c in frame]
    return frame.sort_values(keys, kind="stable").reset_index(drop=True) if keys else frame


def assert_same(got, want, *, rename: dict | None = None, skip=(), what: str = ""):
    """The same numbers and tables; `skip`: keys and columns left out (those of one side only are left out too)."""
    got, want = parts(got), parts(want)
    if not skip:
        assert got.keys() == want.keys(), what
    for key in [k for k in want if k in got and k.rsplit(".", 1)[-1] not in skip]:
        a, b = got[key], want[key]
        if isinstance(b, pd.DataFrame):
            if rename:
                a, b = rename_back(a, rename), rename_back(b, {})
            if skip:
                columns = [c for c in b.columns if c in a.columns and c not in skip]
                a, b = a[columns], b[columns]
            pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_exact=False,
                                          rtol=1e-9, atol=TOL, check_dtype=False, obj=f"{what} {key}")
        else:
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=TOL), (what, key, a, b)


def said_why(result) -> bool:
    """Whether an undefined result says why: its note, reason or interpretation, or in every row of its tables a
    note, a reason it is small, or its small flag."""
    for name in ("note", "reason", "interpretation"):
        if str(getattr(result, name, "") or "").strip():
            return True

    def why(table: pd.DataFrame) -> pd.Series:
        said = pd.Series(False, index=table.index)
        for column in ("note", "small_reason"):
            if column in table:
                said |= table[column].fillna("").astype(str).str.strip().astype(bool)
        return said | table["small"].astype(bool) if "small" in table else said

    frames = [t for t in tables(result) if len(t)]
    return bool(frames) and all(why(t).all() for t in frames)


def rule_for(spec: MetricSpec) -> fc.Rule:
    """A rule on a metric a rule may bound, in the units the checks compute it in (differences)."""
    distance, bound = {"score": (None, 0.8), "index": (None, 0.1)}.get(spec.kind, ("diff", 0.1))
    return fc.Rule(metric=spec.name, distance_measure=distance, bound=bound)


# The registry is complete ------------------------------------------------------------------------------------

def test_every_public_metric_is_registered():
    functions = sorted(name for name in fc.__all__ if inspect.isfunction(getattr(fc, name)))
    registered = [spec.function for spec in registry.specs()]
    assert len(registered) == len(set(registered)), "a metric is registered twice"
    assert not set(registered) & set(NOT_METRICS), "a name is both a metric and not a metric"
    assert sorted((set(registered) | set(NOT_METRICS)) - set(functions)) == [], "a listed name is not public"
    forgotten = [name for name in functions if name not in registered and name not in NOT_METRICS]
    assert forgotten == [], f"register these in fairness_core/_registry.py (or list them in NOT_METRICS): {forgotten}"


@pytest.mark.parametrize("spec", cases("signature"))
def test_registered_kinds_match_the_signatures(spec):
    parameters = inspect.signature(function(spec)).parameters
    positional = [p for p in parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert len(positional) >= len(spec.roles) and set(spec.roles) <= set(registry.ROLES), spec.name
    assert ("ci" in parameters) == spec.ci, spec.name
    assert set(dict(spec.fixed)) <= set(parameters), spec.name
    assert ("sample_weight" in parameters) or spec.limit("weights"), f"{spec.name}: no sample_weight and no reason"


# The common checks ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", cases("row_order"))
def test_row_order_does_not_matter(spec):
    perm = np.random.default_rng(1).permutation(len(DATA["y_true"]))
    ci = LEVEL if spec.ci else None
    assert_same(run(spec, permuted(DATA, perm), ci=ci), run(spec, DATA, ci=ci), what=spec.name)


@pytest.mark.parametrize("spec", cases("score_ties", lambda spec: "y_score" in spec.roles))
def test_the_order_of_tied_scores_does_not_matter(spec):
    """Scores with many ties (one decimal): the rows of a tie first to last, or last to first, give the same."""
    data = {**DATA, "y_score": DATA["y_score"].round(1)}
    n = len(data["y_score"])
    assert len(np.unique(data["y_score"])) <= 11 < n   # every score is tied with many others
    forward = np.lexsort((np.arange(n), data["y_score"]))
    backward = np.lexsort((-np.arange(n), data["y_score"]))
    ci = LEVEL if spec.ci else None
    assert_same(run(spec, permuted(data, backward), ci=ci), run(spec, permuted(data, forward), ci=ci), what=spec.name)


@pytest.mark.parametrize("kind", ["float", "bool", "int8"])
@pytest.mark.parametrize("spec", cases("binary_labels", lambda spec: bool({"y_true", "y_pred"} & set(spec.roles))))
def test_binary_labels_as_integers_floats_or_booleans(spec, kind):
    assert_same(run(spec, binary_as(DATA, kind)), run(spec, DATA), what=spec.name)


@pytest.mark.parametrize("spec", cases("positive_label", lambda spec: takes(spec, "positive_target")))
def test_positive_label_as_string_number_or_boolean(spec):
    want = run(spec, DATA)
    for yes, no in (("yes", "no"), (1, 0), (True, False), (2.5, -1.0)):
        def coded(v):
            return np.where(v == 1, yes, no) if not isinstance(yes, bool) else v.astype(bool)
        data = {**DATA, "y_true": coded(DATA["y_true"]), "y_pred": coded(DATA["y_pred"])}
        assert_same(run(spec, data, positive_target=yes), want, what=f"{spec.name} {yes!r}")
    # the other label named as the favourable one: the same as the labels flipped
    flipped = {**DATA, "y_true": 1 - DATA["y_true"], "y_pred": 1 - DATA["y_pred"]}
    assert_same(run(spec, DATA, positive_target=0), run(spec, flipped), what=f"{spec.name} flipped")


@pytest.mark.parametrize("codes", [{"x": 0, "y": 1, "z": 2}, {"x": 2.5, "y": -1.0, "z": 0.0},
                                   {"x": "z", "y": "x", "z": "y"}], ids=["int", "float", "permuted-str"])
@pytest.mark.parametrize("spec", cases("class_labels", lambda spec: "truth" in spec.roles))
def test_class_labels_as_strings_or_numbers(spec, codes):
    """Multi-class labels: recoded classes give the same values under the new class names."""
    data = {**DATA, "truth": np.array([codes[v] for v in DATA["truth"]]),
            "prediction": np.array([codes[v] for v in DATA["prediction"]])}
    got, want = parts(run(spec, data)), parts(run(spec, DATA))
    back = {str(new): old for old, new in codes.items()}
    for key, table in got.items():
        if isinstance(table, pd.DataFrame) and "class" in table:
            table = table.assign(**{"class": table["class"].map(lambda v: back[str(v)])})
            keys = [c for c in ("subgroup", "class") if c in table]
            got[key] = table.sort_values(keys).reset_index(drop=True)
            want[key] = want[key].sort_values(keys).reset_index(drop=True)
    for key in want:
        if isinstance(want[key], pd.DataFrame):
            pd.testing.assert_frame_equal(got[key], want[key], check_dtype=False, rtol=1e-9, atol=TOL, obj=key)
        else:
            assert got[key] == pytest.approx(want[key], rel=1e-9, abs=TOL, nan_ok=True), key


@pytest.mark.parametrize("kind", ["list", "pandas"])
@pytest.mark.parametrize("spec", cases("containers"))
def test_inputs_as_lists_arrays_or_pandas(spec, kind):
    assert_same(run(spec, as_container(DATA, kind)), run(spec, DATA), what=f"{spec.name} {kind}")


@pytest.mark.parametrize("how", sorted(RENAMES))
@pytest.mark.parametrize("spec", cases("renamed_subgroups"))
def test_renamed_or_permuted_subgroups_give_the_same_values_under_the_new_names(spec, how):
    rename = RENAMES[how]
    got, want = run(spec, renamed(DATA, rename)), run(spec, DATA)
    new_only = set(rename.values()) - set(rename)
    for table in tables(want):
        if "subgroup" in table:
            assert set(table["subgroup"]) & set(rename), spec.name   # the tables name the subgroups
    for table in tables(got):
        if "subgroup" in table and new_only:
            assert not set(table["subgroup"]) & set(rename), spec.name   # ... by their new names only
    assert_same(got, want, rename=rename, what=spec.name)


@pytest.mark.parametrize("spec", cases("intervals", lambda spec: spec.ci))
def test_intervals_are_present_and_hold_the_estimate(spec):
    result = run(spec, DATA, ci=LEVEL)
    found = 0
    for table in tables(result):
        for column in [c for c in table.columns if f"{c}_ci_low" in table]:
            estimate = table[column].to_numpy(dtype=float)
            low = table[f"{column}_ci_low"].to_numpy(dtype=float)
            high = table[f"{column}_ci_high"].to_numpy(dtype=float)
            defined = np.isfinite(estimate)
            found += int(defined.sum())
            assert np.isfinite(low[defined]).all() and not np.isnan(high[defined]).any(), (spec.name, column)
            assert (low[defined] <= estimate[defined] + TOL).all(), (spec.name, column)
            assert (estimate[defined] <= high[defined] + TOL).all(), (spec.name, column)
    numbers = parts(result)
    for key in [k for k in numbers if k.endswith("ci_low") and not isinstance(numbers[k], pd.DataFrame)]:
        value_key = key[: -len("ci_low")] + "value"
        value = numbers.get(value_key)
        if value is not None and np.isfinite(value):
            found += 1
            low, high = numbers[key], numbers[key[: -len("low")] + "high"]
            assert np.isfinite(low) and not np.isnan(high), (spec.name, key, low, high)
            assert low - TOL <= value <= high + TOL, (spec.name, key, low, value, high)
    assert found > 0, f"{spec.name}(ci={LEVEL}) gave no interval"


# Integer weights: the rows repeated -------------------------------------------------------------------------

# What integer weights change although the values do not: sizes are Kish's effective sizes (not the repeated
# rows' count), a weighted table has a weight column, notes and small flags follow the effective sizes.
SIZES = ("size", "reference_size", "size_0", "size_1", "weight", "small", "note", "small_reason")


def weighted_data() -> tuple[dict, np.ndarray, dict]:
    """Rows with integer weights 0-3, and the same rows repeated as many times as their weights. Each subgroup
    keeps rows of both labels and both predictions by construction (no example is drawn and then discarded)."""
    data = make_data(3, sizes=(("a", 60), ("b", 45), ("c", 35)))
    n = len(data["y_true"])
    weights = np.random.default_rng(4).integers(0, 4, n)
    for g in "abc":
        for column in ("y_true", "y_pred"):
            for value in (0, 1):
                rows = np.flatnonzero((data["groups"] == g) & (data[column] == value))
                weights[rows[:2]] = np.maximum(weights[rows[:2]], 1)
    repeated = permuted(data, np.repeat(np.arange(n), weights))
    return ({**data, "subgroups": subgroups(data["groups"])}, weights,
            {**repeated, "subgroups": subgroups(repeated["groups"])})


WEIGHTED, WEIGHTS, REPEATED = weighted_data()


@pytest.mark.parametrize("spec", cases("weights"))
def test_integer_weights_equal_repeated_rows(spec):
    reason = spec.limit("weights")
    if not takes(spec, "sample_weight"):
        assert reason.strip(), f"{spec.name} takes no sample_weight: its registry row must say why"
        return
    got, want = run(spec, WEIGHTED, sample_weight=WEIGHTS), run(spec, REPEATED)
    if reason:   # a known limit: it must still hold, or the reason is stale
        with pytest.raises(AssertionError):
            assert_same(got, want, skip=SIZES, what=spec.name)
        return
    assert_same(got, want, skip=SIZES, what=spec.name)


# NaN and infinite inputs ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [np.nan, np.inf], ids=["nan", "inf"])
@pytest.mark.parametrize("spec", cases("nan", lambda spec: bool(set(NUMERIC_ROLES) & set(spec.roles))
                                       or bool(spec.limit("nan"))))
def test_nan_and_infinite_inputs_are_refused_with_the_librarys_messages(spec, bad):
    reason = spec.limit("nan")
    refused = []
    for role in [r for r in spec.roles if r in NUMERIC_ROLES]:
        values = np.array(DATA[role], dtype=float)
        values.flat[7] = bad
        try:
            run(spec, {**DATA, role: values})
            refused.append((role, None))
        except ValueError as exc:
            refused.append((role, raise_site(exc)))
    if reason:   # a known limit: it must still hold, or the reason is stale
        assert reason.strip() and (not refused or any(site is None for _, site in refused)), spec.name
        return
    assert refused and all(site is not None for _, site in refused), f"{spec.name}: {refused}"


# Undefined, small, not assessable, empty -----------------------------------------------------------------------

def _no_positives_in_c() -> dict:
    data = dict(DATA)
    data["y_true"] = np.where(DATA["groups"] == "c", 0, DATA["y_true"])
    return data


@pytest.mark.parametrize("spec", cases("undefined", lambda spec: bool(spec.undefined)))
def test_undefined_values_are_nan_with_a_note(spec):
    result = run(spec, _no_positives_in_c())
    if spec.undefined == "value":
        assert math.isnan(result.value) and result.note.strip(), (spec.name, result)
        return
    (table,) = [t for t in tables(result) if spec.undefined in t]
    rows = table[table["subgroup"] == "c"]
    assert len(rows) >= 1 and rows[spec.undefined].isna().all(), (spec.name, rows)
    assert rows["note"].str.strip().astype(bool).all(), (spec.name, rows["note"].tolist())
    defined = table[table["subgroup"].isin(["a", "b"])]
    assert defined[spec.undefined].notna().all(), spec.name   # only the subgroup without positives
    if reduces(spec):
        assert np.isfinite(result.value), f"{spec.name}: the undefined subgroup is left out of the reduction"


def _with_small(indicators: list) -> dict:
    data = make_data(2, sizes=(("a", 150), ("b", 120), ("c", 90), ("d", 12)))
    # d's labels are the opposite of what its scores say: it would change every reduction it took part in
    data["y_true"] = np.where(data["groups"] == "d", 1 - data["y_true"], data["y_true"])
    data["truth"] = np.where(data["groups"] == "d", "z", data["truth"])
    frame = pd.DataFrame({name: (data["groups"] == name).astype(int) for name in indicators})
    return {**data, "subgroups": fc.Subgroups.from_indicators(frame, indicators, min_size=30)}


@pytest.mark.parametrize("spec", cases("small_left_out", reduces))
def test_small_subgroups_are_left_out_of_reductions(spec):
    # Subgroup d (12 rows, minimum 30) is small: the reduction is the one without d at all (its rows kept, in
    # no subgroup, so that every other subgroup's rest and the whole population are unchanged).
    with_small = run(spec, _with_small(["a", "b", "c", "d"]))
    without = run(spec, _with_small(["a", "b", "c"]))
    small = [t for t in tables(with_small) if "small" in t and "subgroup" in t]
    assert small and all(t.loc[t["subgroup"] == "d", "small"].all() for t in small), spec.name
    assert with_small.value == pytest.approx(without.value, rel=1e-9, abs=TOL), spec.name
    included = run(spec, _with_small(["a", "b", "c", "d"]), include_small=True)
    assert not included.value == pytest.approx(with_small.value, rel=1e-9, abs=TOL), \
        f"{spec.name}: include_small=True should let the small subgroup change the value here"


def _situation(name: str) -> dict:
    n = len(DATA["groups"])
    if name == "one subgroup":
        return {**DATA, "groups": np.full(n, "a", dtype=object)}
    if name == "every subgroup missing":
        return {**DATA, "groups": np.full(n, None, dtype=object)}
    return {**DATA, "subgroups": subgroups(DATA["groups"], min_size=1000)}   # every subgroup small


@pytest.mark.parametrize("situation", ["one subgroup", "every subgroup missing", "every subgroup small"])
@pytest.mark.parametrize("spec", cases("not_assessable", reduces))
def test_nothing_to_compare_is_nan_with_a_reason_and_not_assessable(spec, situation):
    result = run(spec, _situation(situation))
    assert math.isnan(result.value), (spec.name, situation, result.value)
    assert said_why(result), f"{spec.name} ({situation}): NaN without a reason"
    if spec.rule:
        verdict = fc.evaluate_result(rule_for(spec), result)
        assert verdict.status == "not_assessable" and verdict.note.strip(), (spec.name, situation, verdict)


@pytest.mark.parametrize("spec", cases("one_attribute_value", lambda spec: "sensitive" in spec.roles))
def test_one_value_of_the_attribute_is_nan_with_a_reason(spec):
    result = run(spec, {**DATA, "sensitive_name": "nobody"})   # every row on the same side
    if isinstance(result, float):   # a float (scikit-lego's API) has no place for a reason
        assert math.isnan(result), spec.name
        return
    assert math.isnan(result.value) and said_why(result), (spec.name, result)
    if spec.rule:
        assert fc.evaluate_result(rule_for(spec), result).status == "not_assessable", spec.name


@pytest.mark.parametrize("spec", cases("empty_input"))
def test_empty_input_is_refused_or_empty_with_a_reason(spec):
    """No rows: a ValueError raised by fairness_core's own checks (a message template), or a result that says
    there is nothing: an empty table, or NaN with a note or reason (a float result has no place for one)."""
    try:
        result = run(spec, {k: v[:0] for k, v in DATA.items()})
    except ValueError as exc:
        assert raise_site(exc) is not None, f"{spec.name}: not fairness_core's own error: {exc!r}"
        assert spec.function in str(exc) or "'" in str(exc), f"{spec.name}: the message names no parameter: {exc}"
        return
    if isinstance(result, pd.DataFrame):   # no rows, or only rows that say why they are empty (an "All rows" row)
        assert len(result.columns) > 0 and (result.empty or result["note"].str.strip().astype(bool).all()), \
            spec.name
        return
    if isinstance(result, (float, np.floating)):
        assert math.isnan(result), spec.name
        return
    assert math.isnan(result.value), spec.name
    said = getattr(result, "note", None) or getattr(result, "reason", None)
    if said is None:   # a disparity result: its (empty) table says there is nothing
        assert all(t.empty for t in tables(result)), spec.name
    else:
        assert said.strip(), spec.name


# Engines: the count tables where the data lives ----------------------------------------------------------------

ENGINE_MAPPING = fc.ColumnMapping(label="grade", positive_label="x", scores=("score",), protected=("g",),
                                  predicted_label="grade_hat", all_classes=True, min_size=30)


@pytest.fixture(scope="module")
def engine_rows(tmp_path_factory):
    """DATA as a Parquet file (labels x/y/z, x positive; its class predictions) and its in-memory count tables."""
    frame = pd.DataFrame({"g": DATA["groups"], "grade": np.where(DATA["y_true"] == 1, "x", DATA["truth"]),
                          "grade_hat": DATA["prediction"], "score": DATA["y_score"]})
    frame["grade"] = np.where((DATA["y_true"] == 0) & (frame["grade"] == "x"), "y", frame["grade"])
    path = tmp_path_factory.mktemp("engine") / "rows.parquet"
    frame.to_parquet(path, index=False)
    rows = fc.ScoredData.from_frame(frame, ENGINE_MAPPING)
    y, score, groups = rows.y_true, rows.scores["score"], rows.subgroups
    memory = {"confusion": fc.confusion_counts(y, rows.y_pred("score", 0.5), groups).table(),
              "auc": fc.auc_counts(y, score, groups).table(),
              "calibration": fc.calibration_counts(y, score, groups, n_bins=10).error_table(),
              "labels": fc.confusion_counts(y, y, groups).table(),
              "classes": rows.class_counts().table()}
    return str(path), memory


def engine_tables(source, engine: str) -> dict:
    from fairness_core.engines import scored_counts

    counts = scored_counts(source, ENGINE_MAPPING, threshold=0.5, auc_bins="exact", engine=engine)
    return {"confusion": counts.confusion["score"].table(), "auc": counts.auc["score"].table(),
            "calibration": counts.calibration["score"].error_table(), "labels": counts.label_counts().table(),
            "classes": counts.class_counts_at().table()}


_ENGINE_CACHE: dict = {}


@pytest.mark.parametrize("engine", ["duckdb", "polars", pytest.param("spark", marks=pytest.mark.spark)])
@pytest.mark.parametrize("spec", cases("engines"))
def test_engine_counts_equal_the_in_memory_counts(spec, engine, engine_rows, request):
    reason = spec.limit("engines")
    if not spec.engine:
        assert reason.strip(), f"{spec.name}: no engine table and no reason"
        return
    path, memory = engine_rows
    if engine not in _ENGINE_CACHE:   # one query per engine, whatever the number of metrics
        source = request.getfixturevalue("spark").read.parquet(path) if engine == "spark" else path
        _ENGINE_CACHE[engine] = engine_tables(source, engine)
    got = _ENGINE_CACHE[engine][spec.engine]
    pd.testing.assert_frame_equal(got, memory[spec.engine], check_exact=False, rtol=1e-12, atol=1e-12,
                                  obj=f"{spec.name}: the {spec.engine} counts of {engine}")
