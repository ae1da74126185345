"""More property-based tests (hypothesis), beside test_properties.py (which has: the AUC table's
row-order invariance, 1 - AUC for negated scores, ratio disparities >= 1, perfect predictions on TPR/FPR/
equalized odds, counts summing to sizes, ECE/MCE in [0, 1]) and test_bootstrap.py (fc.power_mean between
min and max for p in ±1e-15, ±1000, ±inf).

Added here: row-order invariance of rates, disparities and calibration; AUCs in [0, 1] and unchanged by a
strictly monotone transform of the scores; perfect predictions give no disparity on every error rate and
with the ratio distance; summarize_bias_auc's power means between the min and max of their AUCs for every
p; and random small tables, mappings, files and options raise nothing but ValueError or TypeError with a
message, raised by one of fairness_core's own raise statements (not a numpy or pandas error from inside). Examples are bounded (max_examples) and, in CI, derandomized (tests/conftest.py).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import fairness_core as fc
from fairness_core._disparity.compare import ALONE_NOTE
from tests.fairness_core.test_properties import METRICS, REFERENCES, labelled
from tests.support import examples

SETTINGS = settings(max_examples=examples(40), deadline=None)
ERROR_METRICS = ["false_negative_rate", "false_omission_rate", "false_discovery_rate", "error_rate"]
TRANSFORMS = {
    "affine": lambda s: 3.0 * s - 7.0,
    "cube": lambda s: s ** 3,
    "exp": np.exp,
    "log": lambda s: np.log(s + 1e-3),
    "arctan": lambda s: np.arctan(50.0 * s - 20.0),
    "reciprocal": lambda s: -1.0 / (s + 0.5),
}
EXTREME_P = [1e-15, -1e-15, 1000.0, -1000.0, np.inf, -np.inf]


def shuffled(perm, *arrays):
    return [np.asarray(a)[perm] for a in arrays]


def same_order(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether `b` orders (and ties) the values exactly as `a` does."""
    return bool((np.sign(np.subtract.outer(a, a)) == np.sign(np.subtract.outer(b, b))).all())


# Row-order invariance --------------------------------------------------------------------------------

@SETTINGS
@given(data=labelled(), bits=st.lists(st.integers(0, 1), min_size=60, max_size=60), order=st.randoms(use_true_random=False),
       metric=st.sampled_from(METRICS), reference=st.sampled_from(REFERENCES),
       distance=st.sampled_from(["diff", "ratio"]))
def test_rates_and_disparities_do_not_depend_on_row_order(data, bits, order, metric, reference, distance):
    y, s, g = data
    p = np.array(bits[: len(y)])
    perm = np.arange(len(y))
    order.shuffle(perm)
    counts = fc.confusion_counts(y, p, g)
    moved = fc.confusion_counts(*shuffled(perm, y, p, g))
    pd.testing.assert_frame_equal(counts.table(), moved.table(), check_exact=True)
    options = {"distance_measure": distance, "reference": reference}
    pd.testing.assert_frame_equal(counts.disparity(metric, reduction=None, **options),
                                  moved.disparity(metric, reduction=None, **options), check_exact=True)
    np.testing.assert_equal(counts.disparity(metric, reduction="max", include_small=True, **options).value,
                            moved.disparity(metric, reduction="max", include_small=True, **options).value)
    # and at a threshold on the score (the sorted threshold counts)
    pd.testing.assert_frame_equal(fc.threshold_counts(y, s, g).at(0.5).table(),
                                  fc.threshold_counts(*shuffled(perm, y, s, g)).at(0.5).table(), check_exact=True)


@SETTINGS
@given(data=labelled(), order=st.randoms(use_true_random=False), n_bins=st.integers(1, 12),
       strategy=st.sampled_from(["uniform", "quantile"]))
def test_calibration_does_not_depend_on_row_order(data, order, n_bins, strategy):
    y, s, g = data
    perm = np.arange(len(y))
    order.shuffle(perm)
    options = {"n_bins": n_bins, "strategy": strategy}
    before = fc.calibration_errors(y, s, g, min_per_group=1, **options)
    after = fc.calibration_errors(*shuffled(perm, y, s, g), min_per_group=1, **options)
    pd.testing.assert_frame_equal(before, after, check_exact=False, rtol=1e-12, atol=1e-15)
    pd.testing.assert_frame_equal(fc.reliability_diagram(y, s, g, **options),
                                  fc.reliability_diagram(*shuffled(perm, y, s, g), **options),
                                  check_exact=False, rtol=1e-12, atol=1e-15)
    assert fc.expected_calibration_error(y, s, **options) == pytest.approx(
        fc.expected_calibration_error(y[perm], s[perm], **options), rel=1e-12, abs=1e-15)


# AUCs --------------------------------------------------------------------------------------------------

@SETTINGS
@given(data=labelled(), transform=st.sampled_from(sorted(TRANSFORMS)))
def test_aucs_lie_in_the_unit_interval_and_ignore_monotone_transforms(data, transform):
    y, s, g = data
    t = TRANSFORMS[transform](s)
    assume(np.isfinite(t).all() and same_order(s, t))   # strictly monotone on these floats (no merged ties)
    table = fc.bias_auc_table(y, s, g)
    moved = fc.bias_auc_table(y, t, g)
    columns = ["subgroup_auc", "bpsn_auc", "bnsp_auc"]
    values = table[columns].to_numpy()
    defined = ~np.isnan(values)
    assert ((values[defined] >= 0) & (values[defined] <= 1)).all()
    np.testing.assert_allclose(moved[columns].to_numpy(), values, rtol=0, atol=1e-12)   # NaN where NaN
    np.testing.assert_allclose(moved.attrs["overall_auc"], table.attrs["overall_auc"], rtol=0, atol=1e-12)


# Perfect predictions ---------------------------------------------------------------------------------

@SETTINGS
@given(data=labelled(), metric=st.sampled_from(ERROR_METRICS + ["true_positive_rate", "false_positive_rate"]),
       reference=st.sampled_from(REFERENCES))
def test_perfect_predictions_give_no_disparity_on_any_error_rate(data, metric, reference):
    y, _, g = data
    for distance, none in (("diff", 0.0), ("ratio", 1.0)):
        table = fc.rate_disparity(y, y, g, metric=metric, distance_measure=distance, reduction=None,
                                  reference=reference)
        d = table["disparity"].to_numpy(dtype=float)
        # (an error rate of perfect predictions is 0 everywhere: its ratio, 0 to 0, is undefined, NaN)
        assert (d[~np.isnan(d)] == none).all()
        if distance == "diff":   # defined wherever both rates are, but for a subgroup holding every row (no second
            # group to compare it with, ALONE_NOTE)
            undefined = (table["subgroup_value"].isna() | table["reference_value"].isna()
                         | (table["note"] == ALONE_NOTE))
            np.testing.assert_array_equal(np.isnan(d), undefined.to_numpy())


# Power means of the summary --------------------------------------------------------------------------

auc_values = st.one_of(st.floats(0.0, 1.0, allow_nan=False), st.just(0.0), st.just(1.0), st.just(np.nan))


@settings(max_examples=examples(150), deadline=None)
@given(aucs=st.lists(st.tuples(auc_values, auc_values, auc_values), min_size=1, max_size=8),
       p=st.one_of(st.sampled_from(EXTREME_P), st.floats(-1e6, 1e6, allow_nan=False)),
       weight=st.floats(0.0, 1.0))
def test_summary_power_means_lie_between_the_smallest_and_largest_auc(aucs, p, weight):
    table = pd.DataFrame(aucs, columns=["subgroup_auc", "bpsn_auc", "bnsp_auc"])
    table.insert(0, "subgroup", [f"g{i}" for i in range(len(table))])
    table["size"], table["small"] = 100, False
    table.attrs["overall_auc"] = 0.7
    result = fc.summarize_bias_auc(table, p=p, overall_weight=weight, include_small=True)
    for column, mean in (("subgroup_auc", result.subgroup_power_mean), ("bpsn_auc", result.bpsn_power_mean),
                         ("bnsp_auc", result.bnsp_power_mean)):
        values = table[column].dropna()
        if values.empty:
            assert np.isnan(mean)
        else:
            assert values.min() - 1e-12 <= mean <= values.max() + 1e-12, (column, p, values.tolist(), mean)
    if not np.isnan(result.value):
        assert 0.0 <= result.value <= 1.0


# Random tables, mappings, files and options: only documented errors ----------------------------------

cells = st.one_of(st.none(), st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
                  st.sampled_from(["a", "b", "1", "yes", "", "(missing)", "rest", "=1+1", "0,5", "73 %"]),
                  st.booleans())


@st.composite
def tables(draw):
    n = draw(st.integers(0, 12))
    columns = {}
    for name in ("y", "s", "p", "g", "h"):
        kind = draw(st.sampled_from(["cells", "binary", "float", "int", "text", "nullable"]))
        if kind == "cells":
            values = draw(st.lists(cells, min_size=n, max_size=n))
            columns[name] = pd.Series(values, dtype=object)
        elif kind == "binary":
            columns[name] = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        elif kind == "float":
            columns[name] = np.array(draw(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64),
                                                   min_size=n, max_size=n)), dtype=float)
        elif kind == "int":
            columns[name] = draw(st.lists(st.integers(-2 ** 63, 2 ** 63 - 1), min_size=n, max_size=n))
        elif kind == "text":
            columns[name] = draw(st.lists(st.text(max_size=4), min_size=n, max_size=n))
        else:
            columns[name] = pd.array(draw(st.lists(st.one_of(st.none(), st.integers(0, 1)), min_size=n, max_size=n)),
                                     dtype="Int64")
    return pd.DataFrame(columns)


@functools.lru_cache(maxsize=None)
def _raise_spans(filename: str) -> tuple:
    """The (first line, last line) of every ``raise`` statement in a source file."""
    tree = ast.parse(Path(filename).read_text(encoding="utf-8"))
    return tuple((node.lineno, node.end_lineno) for node in ast.walk(tree) if isinstance(node, ast.Raise))


def raise_site(exc: BaseException) -> str | None:
    """Where `exc` was raised, when that is a ``raise`` statement of fairness_core's own code (else None).

    The innermost frame of the traceback is where the exception was created: a numpy, pandas or scipy
    function that fails inside a fairness_core call leaves its own frame there (so it is not documented), and
    an error raised in C by a builtin called from fairness_core (``float('x')``) leaves fairness_core's frame
    on a line that is not a raise statement.
    """
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return None
    module = tb.tb_frame.f_globals.get("__name__", "")
    if module.split(".")[0] != "fairness_core":
        return None
    line = tb.tb_lineno
    if not any(first <= line <= last for first, last in _raise_spans(tb.tb_frame.f_code.co_filename)):
        return None
    return f"{module}:{line}"


def documented(call):
    """Run `call`; an exception must be a ValueError or TypeError with a message, raised by one of
    fairness_core's own ``raise`` statements (its checks and message templates), not by numpy, pandas or a
    builtin deep inside. Returns the result or None."""
    try:
        return call()
    except (ValueError, TypeError) as exc:
        assert str(exc).strip(), f"{type(exc).__name__} without a message"
        if raise_site(exc) is None:
            raise AssertionError(f"{type(exc).__name__} not raised by fairness_core's own checks: {exc}") from exc
        return None


@settings(max_examples=examples(120), deadline=None)
@given(frame=tables(), positive=cells, scores=st.sampled_from([(), ("s",), ("s", "h")]),
       predicted=st.sampled_from([None, "p"]), protected=st.sampled_from([(), ("g",), ("g", "h")]),
       indicators=st.sampled_from([(), ("h",)]), intersect=st.booleans(), all_classes=st.booleans(),
       n_bins=st.integers(1, 6), min_size=st.integers(1, 40))
def test_random_tables_and_mappings_raise_only_documented_errors(frame, positive, scores, predicted, protected,
                                                                   indicators, intersect, all_classes, n_bins,
                                                                   min_size):
    mapping = fc.ColumnMapping(label="y", positive_label=positive, scores=scores, predicted_label=predicted,
                               protected=protected, indicators=indicators, intersect=intersect,
                               all_classes=all_classes, n_bins=n_bins, min_size=min_size)
    data = documented(lambda: fc.ScoredData.from_frame(frame, mapping))
    documented(lambda: fc.guess_mapping(frame))
    documented(lambda: fc.numbers_as_text(frame))
    if data is None:
        return
    assert data.n_rows + int(data.exclusions["rows"].sum()) == data.n_input == len(frame)
    for score in data.scores:
        table = documented(lambda: fc.bias_auc_table(data.y_true, data.scores[score], data.subgroups))
        if table is not None:
            documented(lambda: fc.summarize_bias_auc(table, p=-5.0))
        documented(lambda: fc.calibration_errors(data.y_true, data.scores[score], data.subgroups))
        counts = documented(lambda: fc.threshold_counts(data.y_true, data.scores[score], data.subgroups))
        if counts is not None:
            documented(lambda: counts.at(fc.default_threshold(data.scores[score])).disparity("false_positive_rate"))
    if data.predicted is not None:
        counts = documented(lambda: fc.confusion_counts(data.y_true, data.predicted, data.subgroups))
        if counts is not None:
            for metric in METRICS:
                documented(lambda: counts.disparity(metric, reference="pairwise", reduction="max"))


@settings(max_examples=examples(60), deadline=None)
@given(data=labelled(), metric=st.one_of(st.sampled_from(METRICS), st.text(max_size=6)),
       distance=st.one_of(st.sampled_from(["diff", "ratio"]), st.text(max_size=4)),
       reduction=st.one_of(st.sampled_from([None, "max", "mean", "min", "median"]), st.text(max_size=4)),
       reference=st.one_of(st.sampled_from(REFERENCES), st.text(max_size=3), st.integers()),
       n_bins=st.one_of(st.integers(-2, 30), st.floats(allow_nan=True), st.text(max_size=2)),
       strategy=st.one_of(st.sampled_from(["uniform", "quantile"]), st.text(max_size=3)),
       p=st.one_of(st.floats(allow_nan=True), st.text(max_size=2), st.booleans()),
       weight=st.one_of(st.floats(allow_nan=True), st.integers(-2, 2)))
def test_random_options_raise_only_documented_errors(data, metric, distance, reduction, reference, n_bins, strategy,
                                                     p, weight):
    y, s, g = data
    documented(lambda: fc.rate_disparity(y, (s >= 0.5).astype(int), g, metric=metric, distance_measure=distance,
                                         reduction=reduction, reference=reference))
    documented(lambda: fc.calibration_errors(y, s, g, n_bins=n_bins, strategy=strategy))
    table = fc.bias_auc_table(y, s, g)
    documented(lambda: fc.summarize_bias_auc(table, p=p, overall_weight=weight))
    documented(lambda: fc.power_mean(table["subgroup_auc"], p))


@settings(max_examples=examples(150), deadline=None)
@given(payload=st.one_of(
    st.binary(max_size=300),
    st.lists(st.lists(st.sampled_from(["a", "1", "0.5", "", '"', '"x,y"', "é", "0,5", "\r", "PAR1"]), max_size=5),
             max_size=6).map(lambda rows: "\n".join(",".join(r) for r in rows).encode()),
    st.text(max_size=200).map(lambda t: t.encode("utf-8")),
))
def test_random_files_are_read_or_refused_with_a_message(payload):
    frame = documented(lambda: fc.read_table(payload, name="random.csv"))
    if frame is not None:
        assert len(frame) > 0


def test_documented_accepts_only_fairness_cores_own_errors():
    y, p, g = np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0]), np.array(["a", "a", "b", "b"])
    assert documented(lambda: fc.rate_disparity(y, p, g, metric="no such rate")) is None   # _checks' template
    with pytest.raises(AssertionError, match="not raised by fairness_core"):
        documented(lambda: np.asarray(["a"]).astype(float))   # numpy's own error
    with pytest.raises(AssertionError, match="not raised by fairness_core"):
        documented(lambda: int("x"))   # a builtin's error, raised in C
    with pytest.raises(AssertionError, match="not raised by fairness_core"):
        documented(lambda: pd.Series(["x"]).astype(float))   # pandas' own error
