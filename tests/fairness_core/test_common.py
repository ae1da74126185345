"""Common invariance tests for every public metric, in the spirit of scikit-learn's metrics/tests/test_common.py.

Each metric of ``fairness_core.__all__`` is registered once in ``REGISTRY`` with its kind: the inputs it takes
(in order), whether it takes ``ci=``, which per-subgroup column a subgroup without positive labels leaves
undefined, whether it reduces over subgroups, and whether it takes a positive label. Every registered metric is
then checked for:

- row-order invariance (estimates and, with ``ci=``, the seeded intervals);
- binary labels given as integers, floats or booleans; and where the API takes a positive label, labels as
  strings, numbers or booleans with that label named; multi-class labels as strings or numbers;
- inputs as lists, numpy arrays or pandas objects (with an index that is neither 0..n-1 nor in row order);
- relabelled subgroups: the same values under the new names;
- intervals with ``ci=``: present, and finite low <= estimate <= high wherever the estimate is defined;
- undefined values (a subgroup without positives) as NaN with a note, and left out of a reduction;
- small subgroups left out of every reduction (the same value as without the small subgroup at all);
- empty input: a ValueError from fairness_core's own checks, or an empty table / NaN that says why.

A new metric gets all of these by being registered; ``test_every_public_metric_is_registered`` fails when a
public function is neither registered nor listed in ``NOT_METRICS`` with the reason it is not a metric.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from tests.fairness_core.test_properties_extra import raise_site

TOL = 1e-12
LEVEL = 0.95
N_BOOT = 200
RENAME = {"a": "zeta", "b": "alpha", "c": "mu (renamed)"}   # the new names sort in another order


@dataclasses.dataclass(frozen=True)
class Metric:
    """A registered metric: its public name and kind.

    roles : the positional inputs, in order: ``y_true``, ``y_score`` (probabilities in [0, 1]), ``y_pred``,
        ``subgroups``, ``member`` (a boolean mask of subgroup "a"), ``sensitive`` (1 for subgroup "c", else 0),
        ``X`` (features), ``truth`` / ``prediction`` (multi-class labels), ``confusion_counts`` (the
        confusion counts of y_true, y_pred and subgroups).
    ci : takes ``ci=`` (and ``n_boot=`` when its signature has it).
    undefined : the column of its per-subgroup table that a subgroup without positive labels leaves NaN (with a
        note); ``"value"`` when the summary itself is then undefined (a binary ``sensitive`` split).
    reduces : reduces over subgroups (small subgroups are left out unless ``include_small=True``).
    positive_target : takes the favourable label (``positive_target=``).
    options : fixed keyword arguments for every call.
    """

    name: str
    roles: tuple
    ci: bool = False
    undefined: Optional[str] = None
    reduces: bool = False
    positive_target: bool = False
    options: dict = dataclasses.field(default_factory=dict)

    def __str__(self) -> str:
        return self.name

    @property
    def func(self) -> Callable:
        return getattr(fc, self.name)


BINARY = ("y_true", "y_pred", "subgroups")
SCORED = ("y_true", "y_score", "subgroups")
RATE_SHORTCUTS = ["model_statistical_parity", "true_positive_rate_disparity", "false_positive_rate_disparity",
                  "false_negative_rate_disparity", "false_omission_rate_disparity", "false_discovery_rate_disparity",
                  "error_rate_disparity"]
UNDEFINED_WITHOUT_POSITIVES = {"true_positive_rate_disparity": "disparity", "false_negative_rate_disparity": "disparity"}

REGISTRY = [
    # AUCs (ARCHITECTURE §5.1)
    Metric("subgroup_auc", ("y_true", "y_score", "member")),
    Metric("bpsn_auc", ("y_true", "y_score", "member")),
    Metric("bnsp_auc", ("y_true", "y_score", "member")),
    Metric("bias_auc_table", SCORED, ci=True, undefined="subgroup_auc"),
    Metric("bias_auc_score", SCORED, ci=True, undefined="subgroup_auc", reduces=True),
    # rates and disparities (§5.2)
    Metric("group_rates", BINARY, ci=True, undefined="true_positive_rate"),
    Metric("rate_disparity", BINARY, ci=True, undefined="disparity", reduces=True,
           options={"metric": "true_positive_rate"}),
    *[Metric(name, BINARY, ci=True, undefined=UNDEFINED_WITHOUT_POSITIVES.get(name), reduces=True)
      for name in RATE_SHORTCUTS],
    Metric("equalized_odds", BINARY, ci=True, reduces=True),
    Metric("theil_index", BINARY, ci=True, reduces=True),
    Metric("individual_theil_index", ("y_true", "y_pred"), ci=True),
    Metric("between_group_theil_index", BINARY, ci=True),
    Metric("p_percent_score", ("y_pred", "sensitive"), positive_target=True),
    Metric("equal_opportunity_score", ("y_true", "y_pred", "sensitive"), undefined="value", positive_target=True),
    Metric("correlation_score", ("y_score", "sensitive"), ci=True),
    Metric("performance_table", ("confusion_counts",), ci=True, undefined="recall"),
    # calibration (§5.3)
    Metric("reliability_diagram", SCORED, ci=True),
    Metric("expected_calibration_error", ("y_true", "y_score")),
    Metric("maximum_calibration_error", ("y_true", "y_score")),
    Metric("calibration_errors", SCORED, ci=True),
    Metric("calibration_disparity", SCORED, ci=True, reduces=True),
    # class-wise bias (§5.4)
    Metric("unweighted_average_bias", ("truth", "prediction", "subgroups"), ci=True, reduces=True),
    # dataset metrics (§5.5)
    Metric("dataset_statistical_parity", ("y_true", "subgroups"), ci=True, reduces=True),
    Metric("base_rates", ("y_true", "subgroups"), ci=True),
    Metric("smoothed_edf", ("y_true", "subgroups"), ci=True, reduces=True),
    Metric("consistency", ("X", "y_true")),
]

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
    # scikit-learn scorer, export, review
    "make_fairness_scorer": "wraps a registered metric as a scikit-learn scorer",
    "neutralize_formulas": "export", "table_to_csv": "export", "table_to_json": "export",
    "table_from_json": "export", "export_name": "export", "render_report": "report",
    "build_review": "a whole review", "build_review_from_counts": "a whole review",
    "group_thresholds": "chooses a threshold per subgroup (a decision aid)",
    "suggest_threshold": "assesses the rate rules at every threshold (a review's decision aid)",
    "model_changes": "judges a review's differences from a baseline (the release gate)",
    "changes_by_rule": "matches the release gate's changes to the rules of a scorecard",
}

# Known failures of an invariance, reported (not hidden): (test name, metric name) -> reason.
# (test, metric name) -> why that metric is known to fail that check: marked xfail(strict=True), so a fix removes it.
KNOWN_FAILURES: dict = {}


def cases(test: str, metrics=None):
    """The registered metrics as pytest parameters; a known failure is xfail(strict=True) for this test only."""
    out = []
    for metric in (REGISTRY if metrics is None else metrics):
        reason = KNOWN_FAILURES.get((test, metric.name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(metric, id=metric.name, marks=marks))
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
    if role == "subgroups":
        return data["groups"]
    if role == "member":
        return np.asarray(data["groups"]) == data.get("member_name", "a")
    if role == "sensitive":
        return (np.asarray(data["groups"]) == data.get("sensitive_name", "c")).astype(int)
    if role == "confusion_counts":
        return fc.confusion_counts(data["y_true"], data["y_pred"], data["groups"])
    return data[role]


def run(metric: Metric, data: dict, *, ci: Optional[float] = None, **options):
    args = [inputs(data, role) for role in metric.roles]
    kwargs = {**metric.options, **options}
    if ci is not None:
        kwargs["ci"] = ci
        if "n_boot" in inspect.signature(metric.func).parameters:
            kwargs["n_boot"] = N_BOOT
    return metric.func(*args, **kwargs)


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


def renamed(data: dict) -> dict:
    return {**data, "groups": np.array([RENAME.get(g, g) for g in data["groups"]], dtype=object),
            "member_name": RENAME["a"], "sensitive_name": RENAME["c"]}


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


def rename_back(frame: pd.DataFrame) -> pd.DataFrame:
    back = {new: old for old, new in RENAME.items()}
    frame = frame.copy()
    for column in ("subgroup", "reference"):
        if column in frame:
            frame[column] = frame[column].map(lambda v: back.get(v, v))
    keys = [c for c in ("subgroup", "reference", "class", "bin", "scope") if c in frame]
    return frame.sort_values(keys, kind="stable").reset_index(drop=True) if keys else frame


def assert_same(got, want, *, renamed_subgroups: bool = False, what: str = ""):
    got, want = parts(got), parts(want)
    assert got.keys() == want.keys(), what
    for key in want:
        a, b = got[key], want[key]
        if isinstance(b, pd.DataFrame):
            if renamed_subgroups:
                a, b = rename_back(a), rename_back(b)
            pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_exact=False,
                                          rtol=1e-9, atol=TOL, check_dtype=False, obj=f"{what} {key}")
        else:
            assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=TOL), (what, key, a, b)


# The registry is complete ------------------------------------------------------------------------------------

def test_every_public_metric_is_registered():
    functions = sorted(name for name in fc.__all__ if inspect.isfunction(getattr(fc, name)))
    registered = [m.name for m in REGISTRY]
    assert len(registered) == len(set(registered)), "a metric is registered twice"
    assert not set(registered) & set(NOT_METRICS), "a name is both a metric and not a metric"
    assert sorted((set(registered) | set(NOT_METRICS)) - set(functions)) == [], "a listed name is not public"
    forgotten = [name for name in functions if name not in registered and name not in NOT_METRICS]
    assert forgotten == [], f"register these in REGISTRY (or list them in NOT_METRICS with a reason): {forgotten}"


def test_registered_kinds_match_the_signatures():
    for metric in REGISTRY:
        parameters = inspect.signature(metric.func).parameters
        assert ("ci" in parameters) == metric.ci, metric.name
        assert ("positive_target" in parameters) == metric.positive_target, metric.name
        assert ("include_small" in parameters) == metric.reduces, metric.name
        assert set(metric.options) <= set(parameters), metric.name


# The common checks ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("metric", cases("row_order"))
def test_row_order_does_not_matter(metric):
    perm = np.random.default_rng(1).permutation(len(DATA["y_true"]))
    ci = LEVEL if metric.ci else None
    assert_same(run(metric, permuted(DATA, perm), ci=ci), run(metric, DATA, ci=ci), what=metric.name)


@pytest.mark.parametrize("kind", ["float", "bool", "int8"])
@pytest.mark.parametrize("metric", cases("binary_labels", [m for m in REGISTRY
                                                           if {"y_true", "y_pred"} & set(m.roles)]))
def test_binary_labels_as_integers_floats_or_booleans(metric, kind):
    assert_same(run(metric, binary_as(DATA, kind)), run(metric, DATA), what=metric.name)


@pytest.mark.parametrize("metric", cases("positive_label", [m for m in REGISTRY if m.positive_target]))
def test_positive_label_as_string_number_or_boolean(metric):
    want = run(metric, DATA)
    for yes, no in (("yes", "no"), (1, 0), (True, False), (2.5, -1.0)):
        def coded(v):
            return np.where(v == 1, yes, no) if not isinstance(yes, bool) else v.astype(bool)
        data = {**DATA, "y_true": coded(DATA["y_true"]), "y_pred": coded(DATA["y_pred"])}
        assert_same(run(metric, data, positive_target=yes), want, what=f"{metric.name} {yes!r}")
    # the other label named as the favourable one: the same as the labels flipped
    flipped = {**DATA, "y_true": 1 - DATA["y_true"], "y_pred": 1 - DATA["y_pred"]}
    assert_same(run(metric, DATA, positive_target=0), run(metric, flipped), what=f"{metric.name} flipped")


@pytest.mark.parametrize("codes", [{"x": 0, "y": 1, "z": 2}, {"x": 2.5, "y": -1.0, "z": 0.0},
                                   {"x": "z", "y": "x", "z": "y"}], ids=["int", "float", "permuted-str"])
@pytest.mark.parametrize("metric", cases("class_labels", [m for m in REGISTRY if "truth" in m.roles]))
def test_class_labels_as_strings_or_numbers(metric, codes):
    """Multi-class labels: recoded classes give the same values under the new class names."""
    data = {**DATA, "truth": np.array([codes[v] for v in DATA["truth"]]),
            "prediction": np.array([codes[v] for v in DATA["prediction"]])}
    got, want = parts(run(metric, data)), parts(run(metric, DATA))
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
@pytest.mark.parametrize("metric", cases("containers"))
def test_inputs_as_lists_arrays_or_pandas(metric, kind):
    assert_same(run(metric, as_container(DATA, kind)), run(metric, DATA), what=f"{metric.name} {kind}")


@pytest.mark.parametrize("metric", cases("renamed_subgroups"))
def test_renamed_subgroups_give_the_same_values_under_the_new_names(metric):
    got, want = run(metric, renamed(DATA)), run(metric, DATA)
    for table in tables(want):
        if "subgroup" in table:
            assert set(table["subgroup"]) & set(RENAME), metric.name   # the tables name the subgroups
    for table in tables(got):
        if "subgroup" in table:
            assert not set(table["subgroup"]) & set(RENAME), metric.name   # ... by their new names only
    assert_same(got, want, renamed_subgroups=True, what=metric.name)


@pytest.mark.parametrize("metric", cases("intervals", [m for m in REGISTRY if m.ci]))
def test_intervals_are_present_and_hold_the_estimate(metric):
    result = run(metric, DATA, ci=LEVEL)
    found = 0
    for table in tables(result):
        for column in [c for c in table.columns if f"{c}_ci_low" in table]:
            estimate = table[column].to_numpy(dtype=float)
            low = table[f"{column}_ci_low"].to_numpy(dtype=float)
            high = table[f"{column}_ci_high"].to_numpy(dtype=float)
            defined = np.isfinite(estimate)
            found += int(defined.sum())
            assert np.isfinite(low[defined]).all() and not np.isnan(high[defined]).any(), (metric.name, column)
            assert (low[defined] <= estimate[defined] + TOL).all(), (metric.name, column)
            assert (estimate[defined] <= high[defined] + TOL).all(), (metric.name, column)
    numbers = parts(result)
    for key in [k for k in numbers if k.endswith("ci_low") and not isinstance(numbers[k], pd.DataFrame)]:
        value_key = key[: -len("ci_low")] + "value"
        value = numbers.get(value_key)
        if value is not None and np.isfinite(value):
            found += 1
            low, high = numbers[key], numbers[key[: -len("low")] + "high"]
            assert np.isfinite(low) and not np.isnan(high), (metric.name, key, low, high)
            assert low - TOL <= value <= high + TOL, (metric.name, key, low, value, high)
    assert found > 0, f"{metric.name}(ci={LEVEL}) gave no interval"


def _no_positives_in_c() -> dict:
    data = dict(DATA)
    data["y_true"] = np.where(DATA["groups"] == "c", 0, DATA["y_true"])
    return data


@pytest.mark.parametrize("metric", cases("undefined", [m for m in REGISTRY if m.undefined]))
def test_undefined_values_are_nan_with_a_note(metric):
    result = run(metric, _no_positives_in_c())
    if metric.undefined == "value":
        assert math.isnan(result.value) and result.note.strip(), (metric.name, result)
        return
    (table,) = [t for t in tables(result) if metric.undefined in t]
    rows = table[table["subgroup"] == "c"]
    assert len(rows) >= 1 and rows[metric.undefined].isna().all(), (metric.name, rows)
    assert rows["note"].str.strip().astype(bool).all(), (metric.name, rows["note"].tolist())
    defined = table[table["subgroup"].isin(["a", "b"])]
    assert defined[metric.undefined].notna().all(), metric.name   # only the subgroup without positives
    if metric.reduces:
        assert np.isfinite(result.value), f"{metric.name}: the undefined subgroup is left out of the reduction"


def _with_small(indicators: list) -> dict:
    data = make_data(2, sizes=(("a", 150), ("b", 120), ("c", 90), ("d", 12)))
    # d's labels are the opposite of what its scores say: it would change every reduction it took part in
    data["y_true"] = np.where(data["groups"] == "d", 1 - data["y_true"], data["y_true"])
    data["truth"] = np.where(data["groups"] == "d", "z", data["truth"])
    frame = pd.DataFrame({name: (data["groups"] == name).astype(int) for name in indicators})
    return {**data, "groups": fc.Subgroups.from_indicators(frame, indicators, min_size=30)}


@pytest.mark.parametrize("metric", cases("small_left_out", [m for m in REGISTRY if m.reduces]))
def test_small_subgroups_are_left_out_of_reductions(metric):
    # Subgroup d (12 rows, minimum 30) is small: the reduction is the one without d at all (its rows kept, in
    # no subgroup, so that every other subgroup's rest and the whole population are unchanged).
    with_small = run(metric, _with_small(["a", "b", "c", "d"]))
    without = run(metric, _with_small(["a", "b", "c"]))
    small = [t for t in tables(with_small) if "small" in t and "subgroup" in t]
    assert small and all(t.loc[t["subgroup"] == "d", "small"].all() for t in small), metric.name
    assert with_small.value == pytest.approx(without.value, rel=1e-9, abs=TOL), metric.name
    included = run(metric, _with_small(["a", "b", "c", "d"]), include_small=True)
    assert not included.value == pytest.approx(with_small.value, rel=1e-9, abs=TOL), \
        f"{metric.name}: include_small=True should let the small subgroup change the value here"


def _empty(metric: Metric) -> dict:
    empty = {k: v[:0] for k, v in DATA.items()}
    return empty


@pytest.mark.parametrize("metric", cases("empty_input"))
def test_empty_input_is_refused_or_empty_with_a_reason(metric):
    """No rows: a ValueError raised by fairness_core's own checks (a message template), or a result that says
    there is nothing: an empty table, or NaN with a note or reason (a float result has no place for one)."""
    try:
        result = run(metric, _empty(metric))
    except ValueError as exc:
        assert raise_site(exc) is not None, f"{metric.name}: not fairness_core's own error: {exc!r}"
        assert metric.name in str(exc) or "'" in str(exc), f"{metric.name}: the message names no parameter: {exc}"
        return
    if isinstance(result, pd.DataFrame):   # no rows, or only rows that say why they are empty (an "All rows" row)
        assert len(result.columns) > 0 and (result.empty or result["note"].str.strip().astype(bool).all()), \
            metric.name
        return
    if isinstance(result, (float, np.floating)):
        assert math.isnan(result), metric.name
        return
    assert math.isnan(result.value), metric.name
    said = getattr(result, "note", None) or getattr(result, "reason", None)
    if said is None:   # a disparity result: its (empty) table says there is nothing
        assert all(t.empty for t in tables(result)), metric.name
    else:
        assert said.strip(), metric.name
