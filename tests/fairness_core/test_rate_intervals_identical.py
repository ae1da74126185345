"""The vectorised MOVER intervals, p-value search and comparison tables give the numbers of their literal forms.

``MoverInterval`` computes the level-free parts of the MOVER interval once and evaluates many levels of many
comparisons in one call; ``interval_p_value`` walks its bisection a few steps per call, from every midpoint those
steps could visit; the rate disparities, equalized odds and ratio scores build each table once from numpy
columns. Each is checked here, bit for bit, against the code it replaced, written out below: Wilson's interval
and the MOVER interval one level at a time, the bisection one step at a time, the tables copied and widened
column by column and the ratio scores read back from a DataFrame.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._disparity.compare import (PARITY, add_intervals, finish_disparity, reduce_disparities,
                                              reduce_with_interval)
from fairness_core._counts.rates import DISPARITY_METRICS, _rate
from fairness_core._disparity.compare import RatioScoresResult, join_notes, ratio_rule
from fairness_core._stats.bootstrap import rng_of
from fairness_core._stats.intervals import MoverInterval, interval_p_value, mover_disparity, mover_interval


# The replaced code, literally -----------------------------------------------------------------------------------

def _literal_wilson(k, n, z):
    k, n, z = (np.asarray(x, dtype=np.float64) for x in (k, n, z))
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = (k + z2 / 2.0) / (n + z2)
        half = z / (n + z2) * np.sqrt(np.maximum(k * (n - k) / n, 0.0) + z2 / 4.0)
        low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    low = np.where((n > 0) & (k == 0), 0.0, low)
    high = np.where((n > 0) & (k == n), 1.0, high)
    return low, high


def _literal_mover_interval(k1, n1, k2, n2, level, distance_measure):
    from scipy.special import ndtri

    level = np.asarray(level, dtype=np.float64)
    z = np.asarray(ndtri(1.0 - (1.0 - level) / 2.0), dtype=np.float64)
    k1, n1, k2, n2 = (np.asarray(x, dtype=np.float64) for x in (k1, n1, k2, n2))
    with np.errstate(divide="ignore", invalid="ignore"):
        a, b = k1 / n1, k2 / n2
        l1, u1 = _literal_wilson(k1, n1, z)
        l2, u2 = _literal_wilson(k2, n2, z)
        if distance_measure == "ratio":
            ab = a * b
            low = (ab - np.sqrt(np.maximum(ab * ab - l1 * u2 * (2 * a - l1) * (2 * b - u2), 0.0))) / (u2 * (2 * b - u2))
            high = (ab + np.sqrt(np.maximum(ab * ab - u1 * l2 * (2 * a - u1) * (2 * b - l2), 0.0))) / (l2 * (2 * b - l2))
            low = np.where(np.isnan(low) & (a == 0), 0.0, low)
            high = np.where(np.isnan(high) | (l2 == 0), np.inf, high)
        else:
            d = a - b
            low = d - np.sqrt((a - l1) ** 2 + (u2 - b) ** 2)
            high = d + np.sqrt((u1 - a) ** 2 + (b - l2) ** 2)
    undefined = (n1 <= 0) | (n2 <= 0) | np.isnan(n1) | np.isnan(n2)
    return np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)


def _literal_mover_disparity(k1, n1, k2, n2, level, distance_measure):
    low, high = _literal_mover_interval(k1, n1, k2, n2, level, distance_measure)
    parity = {"diff": 0.0, "ratio": 1.0}[distance_measure]
    with np.errstate(divide="ignore", invalid="ignore"):
        inverted = (1.0 / high, 1.0 / low) if distance_measure == "ratio" else (-high, -low)
        above, below = low > parity, high < parity
        out_low = np.where(above, low, np.where(below, inverted[0], parity))
        out_high = np.where(above, high, np.where(below, inverted[1], np.fmax(inverted[1], high)))
    return np.where(np.isnan(low), np.nan, out_low), np.where(np.isnan(low), np.nan, out_high)


def _literal_p_value(interval, parity, shape, steps=24):
    lo, hi = np.zeros(shape), np.ones(shape)
    low, _ = interval(np.full(shape, 1.0 - 1e-12))
    undefined = np.isnan(low)
    for _ in range(steps):
        mid = (lo + hi) / 2.0
        low, _ = interval(1.0 - mid)
        excluded = low > parity
        hi = np.where(excluded, mid, hi)
        lo = np.where(excluded, lo, mid)
    return np.where(undefined, np.nan, hi)


def _literal_sides(counts, distance_measure):
    return lambda levels: _literal_mover_disparity(*counts, levels, distance_measure)


def _literal_value_intervals(table, counts, level):
    table = table.copy()
    k1, n1, k2, n2 = counts
    for side, k, n in (("subgroup_value", k1, n1), ("reference_value", k2, n2)):
        low, high = fc.wilson_interval(k, n, level)
        at = table.columns.get_loc(side) + 1
        table.insert(at, f"{side}_ci_low", low)
        table.insert(at + 1, f"{side}_ci_high", high)
    return table


def _literal_disparity(counts, metric, *, distance_measure, reduction, reference, include_small, ci, n_boot,
                       adjust, func="rate_disparity"):
    """ConfusionCounts.disparity with intervals as it was: the table built, copied and widened, the sides one
    level at a time, every column read back from the DataFrames."""
    columns = counts._comparison_columns(metric, distance_measure, reference, func)
    table = pd.DataFrame(columns)
    side_counts = counts._side_counts(columns, DISPARITY_METRICS[metric], reference)
    plain = _literal_value_intervals(table, side_counts, ci)
    signed, disparity = counts.replicates(metric, distance_measure=distance_measure, reference=reference,
                                          n_boot=n_boot, random_state=0, func=func)
    sides = _literal_sides(side_counts, distance_measure)
    full = add_intervals(plain, signed, disparity, distance_measure=distance_measure, level=ci, adjust=adjust,
                         func=func, sides=sides)
    return reduce_with_interval(full.copy(), plain, signed, disparity, distance_measure=distance_measure,
                                reduction=reduction, reference=reference, include_small=include_small, level=ci,
                                n_boot=n_boot, func=func, sides=sides)


def _literal_ratio_scores(counts, rate, *, include_small, ci, n_boot):
    metric = "statistical_parity" if rate == "selection_rate" else rate
    ratio = counts.disparity(metric, distance_measure="ratio", reference="rest",
                             reduction=None if ci is None else "max", include_small=include_small, ci=ci,
                             n_boot=n_boot, random_state=0, func="ConfusionCounts.ratio_scores")
    ratio_table = ratio if ci is None else ratio.table
    a, a_notes = _rate(counts.member, rate)
    b, b_notes = _rate(counts.background, rate)
    score, notes = ratio_rule(a, b, rate)
    table = pd.DataFrame({
        "subgroup": list(counts.names),
        "size": counts.sizes if counts.weighted else counts.sizes.astype(np.int64),
        "reference_size": (counts.background_sizes if counts.weighted
                           else counts.background.sum(axis=1).astype(np.int64)),
        "subgroup_value": a, "reference_value": b, "score": score,
        "small": ratio_table["small"].to_numpy(dtype=bool),
        "note": [join_notes(x, f"rest: {y}" if y else "", z) for x, y, z in zip(a_notes, b_notes, notes)],
        "small_reason": ratio_table["small_reason"].to_numpy(dtype=object),
    })
    extra = {}
    if ci is not None:
        with np.errstate(divide="ignore"):
            low = 1.0 / ratio_table["disparity_ci_high"].to_numpy(dtype=np.float64)
            high = 1.0 / ratio_table["disparity_ci_low"].to_numpy(dtype=np.float64)
        at = table.columns.get_loc("score") + 1
        table.insert(at, "score_ci_low", low)
        table.insert(at + 1, "score_ci_high", high)
        table.insert(at + 2, "excludes_parity", ratio_table["excludes_parity"].to_numpy())
        table.attrs.update(ratio_table.attrs)
        with np.errstate(divide="ignore"):
            extra = dict(ci_low=1.0 / ratio.ci_high, ci_high=1.0 / ratio.ci_low, level=ratio.level,
                         n_boot=ratio.n_boot, n_boot_undefined=ratio.n_boot_undefined)
    used = table if include_small else table[~table["small"]]
    defined = used[used["score"].notna()]
    if defined.empty:
        value, worst = float("nan"), None
    else:
        row = defined.loc[defined["score"].idxmin()]
        value, worst = float(row["score"]), row["subgroup"]
    return RatioScoresResult(value=value, rate=rate, table=table, worst=worst, n_used=len(defined),
                             n_undefined=len(used) - len(defined), n_small_excluded=len(table) - len(used), **extra)


# Comparisons ------------------------------------------------------------------------------------------------------

def _same_array(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert np.array_equal(ours, theirs, equal_nan=True)
    if ours.dtype.kind == "f":
        assert np.array_equal(np.signbit(ours), np.signbit(theirs))   # -0.0 stays -0.0


def _same_frame(ours: pd.DataFrame, theirs: pd.DataFrame):
    pd.testing.assert_frame_equal(ours, theirs, check_exact=True)
    assert list(ours.dtypes) == list(theirs.dtypes)
    assert ours.attrs == theirs.attrs
    for column in ours.columns:
        if ours[column].dtype == np.float64:
            _same_array(ours[column].to_numpy(), theirs[column].to_numpy())


def _same_result(ours, theirs):
    if isinstance(ours, pd.DataFrame):
        _same_frame(ours, theirs)
        return
    assert type(ours) is type(theirs)
    for name in ours.__dataclass_fields__:
        a, b = getattr(ours, name), getattr(theirs, name)
        if isinstance(a, pd.DataFrame):
            _same_frame(a, b)
        elif isinstance(a, float):
            _same_array(a, b)
        else:
            assert a == b, name


def _side_counts(m: int, rng: np.random.Generator, kind: str):
    """Counts of m comparisons: whole counts, effective (fractional) counts, or edge cases (empty sides, all or
    none of a side's rows, NaN trials)."""
    if kind == "effective":
        n1, n2 = rng.random(m) * 60, rng.random(m) * 40
        k1, k2 = rng.random(m) * n1, rng.random(m) * n2
    else:
        n1, n2 = rng.integers(0, 80, m).astype(float), rng.integers(0, 80, m).astype(float)
        k1, k2 = np.floor(rng.random(m) * (n1 + 1)), np.floor(rng.random(m) * (n2 + 1))
    if kind == "edges":
        k1[rng.random(m) < 0.25] = 0
        full = rng.random(m) < 0.25
        k2[full] = n2[full]
        n1[rng.random(m) < 0.1] = np.nan
        n2[rng.random(m) < 0.1] = 0
    return k1, n1, k2, n2


@pytest.mark.parametrize("kind", ["whole", "effective", "edges"])
@pytest.mark.parametrize("distance_measure", ["diff", "ratio"])
def test_mover_intervals_are_the_literal_ones(kind, distance_measure):
    rng = np.random.default_rng(len(kind) + len(distance_measure))
    for m in (1, 3, 40):
        counts = _side_counts(m, rng, kind)
        prepared = MoverInterval(*counts, distance_measure)
        for level in (0.95, 0.5, 1.0 - 1e-12, rng.random(m), 1.0 - rng.random((5, m)) ** 4):
            expected = _literal_mover_disparity(*counts, level, distance_measure)
            for ours in (mover_disparity(*counts, level, distance_measure), prepared(level)):
                _same_array(ours[0], expected[0])
                _same_array(ours[1], expected[1])
            expected = _literal_mover_interval(*counts, level, distance_measure)
            for ours in (mover_interval(*counts, level, distance_measure), prepared.signed(level)):
                _same_array(ours[0], expected[0])
                _same_array(ours[1], expected[1])


def test_mover_intervals_broadcast_like_the_literal_ones():
    """Counts of shape (series, periods) against a scalar number of trials (``benchmarks/over_time.py``)."""
    rng = np.random.default_rng(7)
    k1, k2 = rng.binomial(300, 0.3, size=(20, 24)), rng.binomial(300, 0.2, size=(20, 24))
    for distance_measure in ("diff", "ratio"):
        for ours, theirs in ((mover_disparity(k1, 300, k2, 300, 0.95, distance_measure),
                              _literal_mover_disparity(k1, 300, k2, 300, 0.95, distance_measure)),
                             (mover_interval(k1, 300, k2, 300, 0.95, distance_measure),
                              _literal_mover_interval(k1, 300, k2, 300, 0.95, distance_measure))):
            _same_array(ours[0], theirs[0])
            _same_array(ours[1], theirs[1])


@pytest.mark.parametrize("kind", ["whole", "effective", "edges"])
@pytest.mark.parametrize("distance_measure", ["diff", "ratio"])
@pytest.mark.parametrize("m", [0, 1, 3, 17, 400])   # few comparisons take many steps per call, many take one
def test_p_value_search_is_the_step_by_step_bisection(kind, distance_measure, m):
    counts = _side_counts(m, np.random.default_rng(m), kind)
    parity = PARITY[distance_measure]
    for steps in (24, 0, 1, 7, 13):
        expected = _literal_p_value(_literal_sides(counts, distance_measure), parity, (m,), steps)
        _same_array(interval_p_value(MoverInterval(*counts, distance_measure), parity, (m,), steps=steps), expected)


def test_p_value_search_follows_a_non_monotone_interval_step_by_step():
    """The bisection's result depends on its path when exclusion is not monotone in the level: walked from every
    midpoint of the next steps, the path is the same."""
    rng = np.random.default_rng(11)
    for m in (1, 5, 60):
        frequency, missing = rng.random(m) * 60, rng.random(m) < 0.1

        def interval(levels):
            low = np.sin(frequency * (1.0 - levels) * 40.0)
            return np.where(missing, np.nan, low), low

        for steps in (24, 30, 5):
            _same_array(interval_p_value(interval, 0.0, (m,), steps=steps),
                        _literal_p_value(interval, 0.0, (m,), steps))
    interval = lambda levels: (np.sin(7.0 * (1.0 - levels)), None)  # noqa: E731
    _same_array(interval_p_value(interval, 0.3, ()), _literal_p_value(interval, 0.3, ()))
    assert interval_p_value(interval, 0.3, (2, 3)).shape == (2, 3)


def _counts(kind: str, seed: int):
    rng = np.random.default_rng(seed)
    n = {"plain": 1500, "small": 90, "weighted": 500, "intersections": 800, "zeros": 60}[kind]
    frame = pd.DataFrame({"g": rng.choice(["a", "b", "c", "d"], n, p=[0.5, 0.3, 0.17, 0.03]),
                          "h": rng.choice(["x", "y"], n)})
    y = (rng.random(n) < 0.35).astype(int)
    pred = (rng.random(n) < 0.3 + 0.15 * (frame["g"] == "a")).astype(int)
    if kind == "zeros":   # no positive predictions in one subgroup: a ratio of 0, infinite ratios, NaN rates
        pred[frame["g"].to_numpy() == "b"] = 0
        y[frame["g"].to_numpy() == "c"] = 0
    weights = rng.gamma(2.0, 1.0, n) if kind == "weighted" else None
    groups = (fc.Subgroups.from_attributes(frame, ["g", "h"], min_size=25, intersect=True)
              if kind == "intersections" else fc.Subgroups.from_attributes(frame, ["g"], min_size=25))
    return fc.confusion_counts(y, pred, groups, sample_weight=weights)


KINDS = ["plain", "small", "weighted", "intersections", "zeros"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("distance_measure", ["diff", "ratio"])
def test_rate_disparity_with_intervals_is_the_literal_one(kind, distance_measure):
    counts = _counts(kind, 1)
    for metric, reference in (("statistical_parity", "rest"), ("true_positive_rate", "overall"),
                              ("false_positive_rate", "pairwise"), ("statistical_parity", counts.names[0])):
        for reduction, adjust, include_small in ((None, None, False), ("max", None, False), ("mean", None, True),
                                                 ("max", "holm", False), ("max", "fdr_bh", True),
                                                 ("mean", "max_t", False)):
            kw = dict(distance_measure=distance_measure, reduction=reduction, reference=reference,
                      include_small=include_small, ci=0.9, n_boot=100, adjust=adjust)
            fresh = _counts(kind, 1)   # no replicates or tables kept from an earlier call
            _same_result(fresh.disparity(metric, random_state=0, **kw), _literal_disparity(fresh, metric, **kw))
            # again, from what the first call kept
            _same_result(fresh.disparity(metric, random_state=0, **kw), _literal_disparity(fresh, metric, **kw))


@pytest.mark.parametrize("kind", KINDS)
def test_rate_disparity_without_intervals_is_the_table_of_its_columns(kind):
    counts = _counts(kind, 2)
    for distance_measure in ("diff", "ratio"):
        columns = counts._comparison_columns("false_negative_rate", distance_measure, "rest", "rate_disparity")
        table = counts.disparity("false_negative_rate", distance_measure=distance_measure, reduction=None)
        _same_frame(table, pd.DataFrame(columns))
        for reduction in ("max", "mean"):
            _same_result(counts.disparity("false_negative_rate", distance_measure=distance_measure,
                                          reduction=reduction),
                         reduce_disparities(pd.DataFrame(columns), reduction, distance_measure=distance_measure,
                                            reference="rest", func="rate_disparity"))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rate", ["selection_rate", "true_positive_rate"])
def test_ratio_scores_are_the_literal_ones(kind, rate):
    for ci in (None, 0.95):
        for include_small in (False, True):
            ours = _counts(kind, 3).ratio_scores(rate, include_small=include_small, ci=ci, n_boot=150)
            theirs = _literal_ratio_scores(_counts(kind, 3), rate, include_small=include_small, ci=ci, n_boot=150)
            _same_result(ours, theirs)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("distance_measure", ["diff", "ratio"])
def test_equalized_odds_with_intervals_is_the_literal_one(kind, distance_measure):
    for reference in ("rest", "pairwise"):
        for reduction, adjust in ((None, None), ("max", None), ("mean", "holm"), ("max", "bonferroni")):
            counts = _counts(kind, 4)
            ours = counts.equalized_odds(distance_measure=distance_measure, reduction=reduction, reference=reference,
                                         ci=0.95, n_boot=150, random_state=0, adjust=adjust)
            tpr, fpr, values, small = counts._odds_columns(distance_measure, reference, "equalized_odds")
            signed, disparity, _ = counts._odds_draws(tpr, fpr, distance_measure, reference, 150,
                                                      rng_of(0, "equalized_odds"), "equalized_odds")
            tpr_sides, fpr_sides = (_literal_sides(counts._side_counts(c, rate, reference), distance_measure)
                                    for c, rate in ((tpr, "true_positive_rate"), (fpr, "false_positive_rate")))

            def sides(levels):
                (t_low, t_high), (f_low, f_high) = tpr_sides(levels), fpr_sides(levels)
                return np.fmax(t_low, f_low), np.fmax(t_high, f_high)

            ours_table = ours if reduction is None else ours.table
            table = pd.DataFrame({name: ours_table[name] for name in ("subgroup", "reference", "size",
                                                                      "reference_size", "tpr_disparity",
                                                                      "fpr_disparity", "disparity", "small", "note",
                                                                      "small_reason")})
            theirs = finish_disparity(table, signed, disparity, distance_measure=distance_measure,
                                      reduction=reduction, reference=reference, include_small=False, level=0.95,
                                      n_boot=150, adjust=adjust, func="equalized_odds", sides=sides)
            _same_result(ours, theirs)


def test_a_changed_table_leaves_the_next_result_unchanged():
    counts = _counts("plain", 5)
    kw = dict(distance_measure="diff", reduction="max", ci=0.95, n_boot=150, random_state=0)
    first = counts.disparity("false_positive_rate", **kw)
    expected = first.table.copy()
    first.table.loc[:, "disparity_ci_low"] = -1.0
    first.table.attrs["ci"] = 0.5
    _same_frame(counts.disparity("false_positive_rate", **kw).table, expected)
    scores = counts.ratio_scores("selection_rate", ci=0.95, n_boot=150)
    scores.table.loc[:, "small"] = True
    again = counts.ratio_scores("selection_rate", ci=0.95, n_boot=150)
    _same_result(again, _literal_ratio_scores(_counts("plain", 5), "selection_rate", include_small=False,
                                              ci=0.95, n_boot=150))


def test_add_intervals_from_columns_is_the_widened_copy():
    counts = _counts("zeros", 6)
    for distance_measure in ("diff", "ratio"):
        columns = counts._comparison_columns("true_positive_rate", distance_measure, "pairwise", "rate_disparity")
        signed, disparity = counts.replicates("true_positive_rate", distance_measure=distance_measure,
                                              reference="pairwise", n_boot=150)
        sides = MoverInterval(*counts._side_counts(columns, "true_positive_rate", "pairwise"), distance_measure)
        table = pd.DataFrame(columns)
        table.attrs["kept"] = "yes"
        for adjust in (None, "holm", "fdr_bh", "max_t", "bonferroni"):
            kw = dict(distance_measure=distance_measure, level=0.95, adjust=adjust, func="rate_disparity")
            widened = add_intervals(table, signed, disparity, sides=sides, **kw)
            assert widened.attrs["kept"] == "yes"
            built = add_intervals(table, signed, disparity, sides=sides, columns=columns, **kw)
            _same_frame(built, widened)
            _same_frame(add_intervals(table, signed, disparity, **kw),
                        add_intervals(table, signed, disparity, columns=columns, **kw))
