"""The fast paths of the count tables give what the plain computations give.

- one home for the count tables: every module imports alone (no cycle: test_layers.py);
- ``ThresholdCounts``: the confusion counts at any threshold equal ``confusion_counts(y, s >= t, g)``;
- comparisons and reductions built from arrays equal the DataFrame computations they replace;
- calibration counts from one bin index per row equal per-subgroup masked sums;
- class counts from factorized codes (categoricals, ``ScoredData.class_codes``) equal counting rows;
- ``as_binary`` without a sort accepts and refuses exactly what it did.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve

import fairness_core as fc
from tests.fairness_core.test_layers import module_names
from fairness_core._data.checks import BINARY_MESSAGE, as_binary
from fairness_core._disparity.compare import reduce_columns
from fairness_core._counts.binning import bin_index, uniform_edges

PACKAGE = Path(fc.__file__).resolve().parent
TOL = 1e-12
METRICS = ["statistical_parity", "true_positive_rate", "false_positive_rate", "false_negative_rate",
           "false_omission_rate", "false_discovery_rate", "error_rate"]


# --------------------------------------------------------------------------------------------
# Fixtures: small data with ties, small subgroups, overlapping and missing memberships
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(8)
    n = 4000
    frame = pd.DataFrame({
        "race": rng.choice(["A", "B", "C", "D"], n, p=[0.6, 0.3, 0.095, 0.005]),
        "sex": rng.choice(["F", "M"], n),
        "y": rng.integers(0, 2, n),
        "score": np.round(rng.random(n), 2),  # ties: at most 101 distinct scores
        "i1": (rng.random(n) < 0.2).astype(float),
        "i2": rng.random(n),
    })
    frame.loc[rng.random(n) < 0.05, "i2"] = np.nan  # rows in neither member nor background of i2
    return frame


def _groups(frame):
    return {
        "intersections": fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=50),
        "values, not intersected": fc.Subgroups.from_attributes(frame, ["race", "sex"], intersect=False),
        "indicators": fc.Subgroups.from_indicators(frame, ["i1", "i2"], threshold=0.5),
        "raw columns": frame[["race"]],
    }


# --------------------------------------------------------------------------------------------
# One home for the count tables: every module imports alone (the import graph, its cycles and
# layers are checked in test_layers.py)
# --------------------------------------------------------------------------------------------


# Each module is imported on its own, without the package __init__ (which imports everything and
# would hide an order that only works because another module was loaded first).
IMPORT_ALONE = """
import importlib, json, sys, types
root, names = sys.argv[1], json.loads(sys.argv[2])
failed = {}
for name in names:
    for key in [k for k in sys.modules if k == "fairness_core" or k.startswith("fairness_core.")]:
        del sys.modules[key]
    package = types.ModuleType("fairness_core")
    package.__path__ = [root]
    sys.modules["fairness_core"] = package
    try:
        importlib.import_module("fairness_core." + name)
    except Exception as error:
        failed[name] = repr(error)
print(json.dumps(failed))
"""


def test_every_module_imports_alone_in_a_fresh_interpreter():
    names = sorted(name.split(".", 1)[1] for name in module_names() if "." in name)
    env = dict(os.environ, PYTHONPATH=str(PACKAGE.parent))
    proc = subprocess.run([sys.executable, "-W", "error", "-c", IMPORT_ALONE, str(PACKAGE), json.dumps(names)],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {}


def test_the_count_tables_are_the_same_objects_everywhere():
    from fairness_core._counts import calibration, classes, confusion, thresholds
    from fairness_core._metrics import calibration as _calibration, classwise as _classwise, rates as _rates

    assert fc.ConfusionCounts is confusion.ConfusionCounts is _rates.ConfusionCounts
    assert fc.CalibrationCounts is calibration.CalibrationCounts is _calibration.CalibrationCounts
    assert fc.ClassCounts is classes.ClassCounts is _classwise.ClassCounts
    assert fc.ThresholdCounts is thresholds.ThresholdCounts


# --------------------------------------------------------------------------------------------
# ThresholdCounts: the confusion counts at any threshold
# --------------------------------------------------------------------------------------------


def _same_counts(a: fc.ConfusionCounts, b: fc.ConfusionCounts) -> None:
    assert a.names == b.names and a.min_size == b.min_size and a.disjoint == b.disjoint
    for name in ("member", "background", "overall"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    for name in ("counts", "member", "background"):
        np.testing.assert_array_equal(getattr(a.atoms, name), getattr(b.atoms, name), err_msg=f"atoms.{name}")


def _thresholds(score):
    levels = np.unique(score)
    return np.concatenate([levels, (levels[:-1] + levels[1:]) / 2, np.nextafter(levels, -np.inf),
                           [levels[0] - 1, levels[-1] + 1, -np.inf, np.inf, 0.0, 1.0, 0.5]])


@pytest.mark.parametrize("kind", ["intersections", "values, not intersected", "indicators", "raw columns"])
def test_threshold_counts_equal_confusion_counts_at_every_threshold(data, kind):
    y, score = data["y"].to_numpy(), data["score"].to_numpy()
    groups = _groups(data)[kind]
    counts = fc.threshold_counts(y, score, groups)
    np.testing.assert_array_equal(counts.levels, np.unique(score))
    for t in _thresholds(score):
        _same_counts(counts.at(t), fc.confusion_counts(y, score >= t, groups))
    # NaN is no threshold (score >= nan would silently predict no row positive).
    for call in (lambda: counts.at(np.nan), lambda: counts.counts_at([0.5, np.nan])):
        with pytest.raises(ValueError, match="threshold is NaN"):
            call()


def test_threshold_counts_of_untied_scores_and_a_single_subgroup():
    rng = np.random.default_rng(1)
    y, score = rng.integers(0, 2, 500), rng.normal(size=500)  # any scale, no ties
    groups = np.zeros(500, dtype=int)
    counts = fc.threshold_counts(y, score, groups)
    for t in _thresholds(score)[::7]:
        _same_counts(counts.at(t), fc.confusion_counts(y, score >= t, groups))


def test_threshold_counts_give_the_same_intervals_and_metrics(data):
    y, score = data["y"].to_numpy(), data["score"].to_numpy()
    groups = _groups(data)["intersections"]
    fast = fc.threshold_counts(y, score, groups).at(0.37)
    slow = fc.confusion_counts(y, score >= 0.37, groups)
    for metric in ("false_positive_rate", "statistical_parity"):
        a = fast.disparity(metric, reference="pairwise", reduction="max", ci=0.9, n_boot=200, random_state=3)
        b = slow.disparity(metric, reference="pairwise", reduction="max", ci=0.9, n_boot=200, random_state=3)
        assert (a.value, a.ci_low, a.ci_high) == (b.value, b.ci_low, b.ci_high)
        pd.testing.assert_frame_equal(a.table, b.table)
    pd.testing.assert_frame_equal(fast.table(), slow.table())
    assert fast.between_group_theil_index() == slow.between_group_theil_index()


def test_counts_at_many_thresholds_are_the_counts_at_each(data):
    y, score = data["y"].to_numpy(), data["score"].to_numpy()
    counts = fc.threshold_counts(y, score, _groups(data)["indicators"])
    thresholds, member, background, overall = counts.counts_at()  # every level
    np.testing.assert_array_equal(thresholds, counts.levels)
    grid = np.array([-1.0, 0.0, 0.255, 0.5, 0.99, 1.0, 2.0])
    for ts in (thresholds, grid):
        got = counts.counts_at(ts)
        for t, m, b, o in zip(ts, *got[1:]):
            at = counts.at(t)
            np.testing.assert_array_equal(m, at.member)
            np.testing.assert_array_equal(b, at.background)
            np.testing.assert_array_equal(o, at.overall)
    assert member.shape == (len(thresholds), 2, 4) and overall.shape == (len(thresholds), 4)
    sizes = counts.at(0.5).member.sum(axis=1)  # the threshold moves rows between cells, not subgroups
    np.testing.assert_array_equal(member.sum(axis=2), np.broadcast_to(sizes, (len(thresholds), 2)))


def test_sums_over_patterns_in_blocks_equal_masked_sums(monkeypatch, data):
    from fairness_core._counts import patterns as _counts

    rng = np.random.default_rng(0)
    masks, values = rng.random((1000, 7)) < 0.3, rng.integers(0, 50, (1000, 3, 2)).astype(float)
    expected = np.stack([values[masks[:, j]].sum(axis=0) for j in range(7)])
    whole = _counts.over_patterns(masks, values)
    monkeypatch.setattr(_counts, "PATTERN_BLOCK", 20)  # 2 patterns per block
    np.testing.assert_array_equal(_counts.over_patterns(masks, values), expected)
    np.testing.assert_array_equal(whole, expected)
    y, pred = data["y"].to_numpy(), (data["score"].to_numpy() > 0.4).astype(int)
    groups = _groups(data)["indicators"]
    counts = fc.confusion_counts(y, pred, groups)
    for j in range(2):
        for masks_, table in ((groups.membership, counts.member), (groups.background, counts.background)):
            np.testing.assert_array_equal(table[j], np.bincount(2 * y[masks_[:, j]] + pred[masks_[:, j]], minlength=4))


def test_threshold_counts_refuse_what_confusion_counts_refuse():
    with pytest.raises(ValueError, match="y_true"):
        fc.threshold_counts([0, 2], [0.1, 0.2], ["a", "b"])
    with pytest.raises(ValueError, match="missing or infinite"):
        fc.threshold_counts([0, 1], [0.1, np.nan], ["a", "b"])
    with pytest.raises(ValueError, match="rows but y_true has"):
        fc.threshold_counts([0, 1], [0.1, 0.2, 0.3], ["a", "b"])


# --------------------------------------------------------------------------------------------
# Comparisons and reductions from arrays
# --------------------------------------------------------------------------------------------


def _pandas_reduction(table: pd.DataFrame, reduction: str, include_small: bool):
    """The reduction as it was written with DataFrame filters (the literal it replaces)."""
    used = table if include_small else table[~table["small"].astype(bool)]
    defined = used[used["disparity"].notna()]
    infinite = np.isinf(defined["disparity"].to_numpy(dtype=np.float64))
    worst = None
    if defined.empty:
        value = float("nan")
    elif reduction == "max":
        row = defined.loc[defined["disparity"].idxmax()]
        value, worst = float(row["disparity"]), (row["subgroup"], row["reference"])
    else:
        finite = defined["disparity"][~infinite]
        value = float(finite.mean()) if len(finite) else float("nan")
    n_used = len(defined) - (int(infinite.sum()) if reduction == "mean" else 0)
    return value, worst, n_used, len(used) - len(defined), len(table) - len(used), int(infinite.sum())


@pytest.mark.parametrize("seed", range(25))
def test_reductions_from_arrays_equal_the_dataframe_reductions(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 12))
    disparity = rng.choice([0.1, 0.2, 0.5, np.nan, np.inf, 0.2], m) * rng.choice([1.0, 1.0, 0.5], m)
    table = pd.DataFrame({"subgroup": [f"g{i}" for i in range(m)], "reference": rng.choice(["rest", "g0"], m),
                          "disparity": disparity, "small": rng.random(m) < 0.3})
    for reduction in ("max", "mean"):
        for include_small in (False, True):
            got = fc.reduce_disparities(table, reduction, distance_measure="ratio", reference="rest",
                                        include_small=include_small)
            value, worst, n_used, n_undefined, n_small, n_inf = _pandas_reduction(table, reduction, include_small)
            assert (got.value == value) or (np.isnan(got.value) and np.isnan(value))
            assert (got.worst, got.n_used, got.n_undefined, got.n_small_excluded, got.n_infinite) == (
                worst, n_used, n_undefined, n_small, n_inf)
            columns = {name: table[name].to_numpy() for name in table.columns}
            again = reduce_columns(table, columns, reduction, distance_measure="ratio", reference="rest",
                                   include_small=include_small)
            assert again.worst == got.worst and (again.value == got.value or np.isnan(got.value))


@pytest.mark.parametrize("kind", ["intersections", "indicators"])
def test_the_comparison_table_is_the_compare_table_with_the_rate_columns(data, kind):
    y, pred = data["y"].to_numpy(), (data["score"].to_numpy() >= 0.6).astype(int)
    counts = fc.confusion_counts(y, pred, _groups(data)[kind])
    from fairness_core._disparity.compare import TABLE_COLUMNS, compare
    from fairness_core._counts.rates import _fraction, _rate

    for metric, rate in (("false_positive_rate", "false_positive_rate"), ("statistical_parity", "selection_rate")):
        for reference in ("rest", "overall", "pairwise", counts.names[1]):
            table = counts.disparity(metric, distance_measure="ratio", reference=reference, reduction=None)
            assert list(table.columns) == ["subgroup", "reference", "size", "reference_size", "numerator",
                                           "denominator", "reference_numerator", "reference_denominator",
                                           "subgroup_value", "reference_value", "disparity", "small", "note",
                                           "small_reason"]
            values, notes = _rate(counts.member, rate)
            rest, rest_notes = _rate(counts.background, rate)
            plain = compare(counts.names, counts.sizes.astype(np.int64), values, rest,
                            counts.background.sum(axis=1).astype(np.int64), float(_rate(counts.overall, rate)[0]),
                            int(counts.overall.sum()), counts.small, distance_measure="ratio", reference=reference,
                            func="test", notes=notes, rest_notes=rest_notes)
            pd.testing.assert_frame_equal(table[[c for c in TABLE_COLUMNS if c != "small"]],
                                          plain[[c for c in TABLE_COLUMNS if c != "small"]])
            assert table["numerator"].dtype == np.int64 and table["small"].dtype == bool
            num, den = _fraction(counts.member, rate)
            first = table.iloc[0]
            i = counts.names.index(first["subgroup"])
            assert (first["numerator"], first["denominator"]) == (num[i], den[i])


# --------------------------------------------------------------------------------------------
# Calibration: one bin index per row, one count per (pattern, atom)
# --------------------------------------------------------------------------------------------


def test_uniform_bin_index_equals_the_binary_search_on_and_next_to_every_edge():
    rng = np.random.default_rng(0)
    for n_bins in (2, 3, 7, 10, 13, 100, 1000):
        edges = uniform_edges(n_bins)
        p = np.clip(np.concatenate([rng.random(20_000), edges, np.nextafter(edges, 2.0), np.nextafter(edges, -1.0),
                                    np.arange(10_001) / 10_000, np.round(rng.random(2_000), 2)]), 0.0, 1.0)
        np.testing.assert_array_equal(bin_index(p, edges), np.searchsorted(edges[1:-1], p, side="right"))


def _masked_sums(y, p, mask, edges):
    """(4, n_bins): count, sum p, sum y, sum (p - y)^2 of the rows in `mask`, one mask per bin."""
    out = np.zeros((4, len(edges) - 1))
    for b in range(len(edges) - 1):
        upper = p <= edges[b + 1] if b == len(edges) - 2 else p < edges[b + 1]
        rows = mask & (p >= edges[b]) & upper
        out[:, b] = rows.sum(), p[rows].sum(), y[rows].sum(), ((p[rows] - y[rows]) ** 2).sum()
    return out


@pytest.mark.parametrize("kind", ["intersections", "values, not intersected", "indicators"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_counts_equal_sums_over_masks(data, kind, strategy):
    rng = np.random.default_rng(2)
    y = data["y"].to_numpy()
    p = np.concatenate([data["score"].to_numpy()[:-200], rng.random(200)])  # ties on edges, and untied
    groups = _groups(data)[kind]
    counts = fc.calibration_counts(y, p, groups, n_bins=10, strategy=strategy)
    edges = counts.edges
    for j in range(len(groups.names)):
        np.testing.assert_allclose(counts.member[j], _masked_sums(y, p, groups.membership[:, j], edges),
                                   rtol=TOL, atol=TOL)
        np.testing.assert_allclose(counts.background[j], _masked_sums(y, p, groups.background[:, j], edges),
                                   rtol=TOL, atol=TOL)
    np.testing.assert_allclose(counts.overall, _masked_sums(y, p, np.ones(len(y), bool), edges), rtol=TOL, atol=TOL)


def test_reliability_diagram_equals_calibration_curve_per_mask(data):
    rng = np.random.default_rng(4)
    y, p = data["y"].to_numpy(), rng.random(len(data))  # untied: no score on an inner edge
    groups = _groups(data)["intersections"]
    table = fc.reliability_diagram(y, p, groups, n_bins=10)
    for j, name in enumerate(groups.names):
        mask = groups.membership[:, j]
        prob_true, prob_pred = calibration_curve(y[mask], p[mask], n_bins=10)
        rows = table[(table["subgroup"] == name) & (table["count"] > 0)]
        np.testing.assert_allclose(rows["fraction_positive"], prob_true, rtol=TOL, atol=TOL)
        np.testing.assert_allclose(rows["mean_predicted"], prob_pred, rtol=TOL, atol=TOL)


# --------------------------------------------------------------------------------------------
# Class-wise: factorized codes, categoricals and ScoredData's class codes
# --------------------------------------------------------------------------------------------


def _literal_class_counts(truth, prediction, groups, labels):
    """Per-subgroup K x K matrices counted row by row over Python objects."""
    k = len(labels)
    out = np.zeros((len(groups.names), k, k))
    position = {label: i for i, label in enumerate(labels)}
    for row, (t, p) in enumerate(zip(truth, prediction)):
        if pd.isna(t) or pd.isna(p) or t not in position or p not in position:
            continue
        for j in np.flatnonzero(groups.membership[row]):
            out[j, position[t], position[p]] += 1
    return out


def _inputs():
    rng = np.random.default_rng(9)
    n = 600
    a, b = rng.choice(["x", "y", "z"], n), rng.choice(["x", "y", "w"], n)
    ints, floats = rng.integers(0, 3, n), rng.integers(0, 4, n).astype(float)
    floats[::11] = np.nan
    mixed = np.array([1, "1", 2.5, True, None, "q"], dtype=object)[rng.integers(0, 6, n)]
    with_none = pd.Series(a, dtype=object)
    with_none[::7] = None
    return {
        "numpy strings": (a, b), "lists": (list(a), list(b)), "string series": (pd.Series(a), pd.Series(b)),
        "categoricals": (pd.Categorical(a, categories=["z", "y", "x", "unused"]), pd.Series(b, dtype="category")),
        "ints and floats with NaN": (ints, floats), "booleans": (ints > 0, floats > 1),
        "mixed objects": (mixed, mixed[::-1].copy()), "object series with None": (with_none, pd.Series(b)),
    }


@pytest.mark.parametrize("name", list(_inputs()))
@pytest.mark.parametrize("labels", [None, ["y", "x"], [0, 1, 2]])
def test_class_counts_from_codes_equal_counting_rows(name, labels):
    truth, prediction = _inputs()[name]
    groups = fc.Subgroups.from_indicators(pd.DataFrame({"g": np.arange(len(truth)) % 3 == 0,
                                                        "h": np.arange(len(truth)) % 2 == 0}), ["g", "h"])
    counts = fc.class_counts(truth, prediction, groups, labels=labels)
    objects = [list(np.asarray(v, dtype=object)) for v in (truth, prediction)]
    if labels is None:
        seen = pd.unique(np.array([v for v in objects[0] + objects[1] if not pd.isna(v)], dtype=object))
        try:
            expected = sorted(seen)
        except TypeError:
            expected = sorted(seen, key=str)
    else:
        expected = labels
    assert counts.labels == list(expected)
    np.testing.assert_array_equal(counts.member, _literal_class_counts(*objects, groups, counts.labels))
    # The same values as a list of objects give the same table.
    pd.testing.assert_frame_equal(counts.table(), fc.class_counts(*objects, groups, labels=labels).table())


@pytest.mark.parametrize("mapping", [
    dict(label="cls", positive_label="late", predicted_label="cls_pred", all_classes=True),
    dict(label="yb", positive_label=1, scores=("s",), predicted_label="pb"),
    dict(label="yb", positive_label=1.0, scores=("s",)),
])
def test_scored_data_class_counts_from_codes_equal_class_counts_of_the_texts(mapping):
    rng = np.random.default_rng(6)
    n = 2000
    frame = pd.DataFrame({"cls": rng.choice(["late", "on_time", 2.0, "default"], n),
                          "cls_pred": rng.choice(["late", "on_time", 2, "other"], n),
                          "yb": rng.choice([0.0, 1.0], n), "pb": rng.choice([True, False], n),
                          "s": rng.random(n), "g": rng.choice(["a", "b", "c"], n)})
    frame.loc[::13, "cls_pred"] = None
    data = fc.ScoredData.from_frame(frame, fc.ColumnMapping(protected=("g",), **mapping))
    assert list(data.class_labels) == sorted(data.class_labels)
    np.testing.assert_array_equal(np.asarray(data.class_labels, dtype=object)[data.class_codes], data.classes)
    if data.predicted_classes is not None:
        np.testing.assert_array_equal(np.asarray(data.class_labels, dtype=object)[data.predicted_class_codes],
                                      data.predicted_classes)
    assert data.class_names == sorted(pd.unique(data.classes))
    choices = ([(None, None)] if mapping.get("predicted_label") else []) + [("s", t) for t in (0.2, 0.5, 0.9)
                                                                            if mapping.get("scores")]
    for score, threshold in choices:
        fast = data.class_counts(score, threshold)
        slow = fc.class_counts(data.classes, data.class_predictions(score, threshold), data.subgroups)
        assert fast.labels == slow.labels
        np.testing.assert_array_equal(fast.member, slow.member)
        assert fast.n_excluded == slow.n_excluded
        pd.testing.assert_frame_equal(fast.table(), slow.table())
        assert fast.unweighted_average_bias().value == slow.unweighted_average_bias().value


# --------------------------------------------------------------------------------------------
# as_binary without a sort
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("values", [np.array([0, 1, 1], np.int64), np.array([1, 1], np.uint8), np.array([0.0, 1.0]),
                                    np.array([True, False]), np.array([], np.int64), np.array([], float),
                                    pd.Series([0, 1, 0]), [0, 1, True], np.array([[0, 1], [1, 0]])])
def test_as_binary_accepts_zeros_and_ones_of_any_numeric_type(values):
    got = as_binary(values, "y_true", "f")
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, np.asarray(values).reshape(-1).astype(np.int8))


@pytest.mark.parametrize("values, shown", [
    (np.array([0, 2, 1]), "0, 1, 2"), (np.array([-1, 0]), "-1, 0"), (np.array([0.0, 0.5, np.nan]), "0.0, 0.5, nan"),
    (np.array([0, 1], dtype=object), "0, 1"), (np.array(["0", "1"]), "'0', '1'"),
    (np.arange(10), "0, 1, 2, 3, 4, 5, ..."),
])
def test_as_binary_refuses_and_names_the_values_as_before(values, shown):
    with pytest.raises(ValueError) as error:
        as_binary(values, "y_true", "f")
    assert str(error.value) == BINARY_MESSAGE.format(param="y_true", func="f", got=shown)
