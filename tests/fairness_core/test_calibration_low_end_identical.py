""":func:`calibrated_low` computes its nulls' debiased errors and variances without stacking them into calibration
sums (``_NullErrors``): the same floats as :func:`squared_errors` of the stacked sums, and the same low ends, from
the same draws, as the earlier code that stacked them (kept here as :func:`stacked_low`)."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

import fairness_core as fc
from fairness_core._disparity.calibration_errors import NULL_GRID, _NullErrors, calibrated_low, squared_errors


def sums(rng, n_groups: int, n_bins: int, rows: int, weighted: bool):
    """Calibration sums (n_groups, 4, n_bins) of groups with empty bins, bins of one row and miscalibrated bins,
    and the per-bin ratio of squared weights to weights (None without weights)."""
    stats = np.zeros((n_groups, 4, n_bins))
    squares = np.zeros((n_groups, n_bins))
    for g in range(n_groups):
        size = int(rng.integers(1, rows + 1))
        score = rng.beta(2.0, 3.0, size)
        y = rng.random(size) < np.clip(score + rng.normal(0.0, 0.15), 0.0, 1.0)
        bins = np.minimum((score * n_bins).astype(int), n_bins - 1)
        w = rng.uniform(0.2, 3.0, size) if weighted else np.ones(size)
        stats[g] = [np.bincount(bins, w, n_bins), np.bincount(bins, w * score, n_bins),
                    np.bincount(bins, w * y, n_bins), np.bincount(bins, w * (y - score) ** 2, n_bins)]
        squares[g] = np.bincount(bins, w * w, n_bins)
    if not weighted:
        return stats, None
    mass = stats[:, 0, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        return stats, np.where(mass > 0, squares / np.where(mass > 0, mass, 1.0), 0.0)


def stacked_low(stats, estimate, level, rng, ratio=None, n_draws=1000, t_low=None):
    """The earlier :func:`calibrated_low`: each null's labels stacked into calibration sums for squared_errors and
    fully sorted."""
    estimate = np.asarray(estimate, dtype=np.float64)
    low = np.full(estimate.shape, np.nan)
    todo = np.flatnonzero(~np.isnan(estimate))
    if not len(todo):
        return low
    stats = np.asarray(stats, dtype=np.float64)
    # (the earlier code indexed `stats` first, and raised with weights and a NaN estimate)
    ratio = None if ratio is None else np.broadcast_to(ratio, stats[:, 0, :].shape)[todo]
    stats = stats[todo]
    est = estimate[todo]
    t_low = np.full(estimate.shape, np.nan) if t_low is None else np.broadcast_to(t_low, estimate.shape)
    count, sum_p, sum_y = stats[:, 0, :], stats[:, 1, :], stats[:, 2, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        safe = np.where(count > 0, count, 1.0)
        p_bar = np.clip(sum_p / safe, 0.0, 1.0)
        gap = np.where(count > 0, np.clip(sum_y / safe, 0.0, 1.0) - p_bar, 0.0)
        rms = np.sqrt((count * gap ** 2).sum(axis=-1, keepdims=True) / count.sum(axis=-1, keepdims=True))
        shape = np.where(rms > 0, gap / np.where(rms > 0, rms, 1.0), 1.0)
        rows = count if ratio is None else count / np.where(ratio > 0, ratio, np.inf)
    trials = np.where(count > 0, np.maximum(np.rint(rows), 1.0), 0.0).astype(np.int64)
    alpha = 1.0 - level
    t_low = np.where(np.isnan(t_low[todo]), -NormalDist().inv_cdf(1.0 - alpha / 2.0), t_low[todo])
    top = np.maximum(est, 0.0)
    thetas = top[None, :] * (np.arange(NULL_GRID + 1)[:, None] / NULL_GRID) ** 2
    critical = np.empty_like(thetas)
    for j, theta in enumerate(thetas):
        rate = np.clip(p_bar + shape * np.sqrt(theta)[:, None], 0.0, 1.0)
        drawn = rng.binomial(trials, rate, size=(n_draws, *trials.shape)) / np.where(trials > 0, trials, 1)
        null = np.stack([np.broadcast_to(count, drawn.shape), np.broadcast_to(sum_p, drawn.shape), drawn * count,
                         np.zeros(drawn.shape)], axis=-2)
        d, _, v = squared_errors(null, 1, ratio)
        missed_high = np.mean(d - t_low * np.sqrt(np.maximum(v, 0.0)) < theta, axis=0) * (theta > 0)
        size = np.clip(alpha - missed_high, alpha / 2.0, alpha)
        ordered = np.sort(d, axis=0)
        at = (1.0 - size) * (n_draws - 1)
        below = np.floor(at).astype(np.int64)
        above = np.minimum(below + 1, n_draws - 1)
        cols = np.arange(len(est))
        critical[j] = ordered[below, cols] + (at - below) * (ordered[above, cols] - ordered[below, cols])
    critical = np.maximum.accumulate(critical, axis=0)
    kept = critical >= est[None, :]
    first = np.where(kept.any(axis=0), kept.argmax(axis=0), NULL_GRID)
    cols = np.arange(len(est))
    before = np.maximum(first - 1, 0)
    c0, c1 = critical[before, cols], critical[first, cols]
    t0, t1 = thetas[before, cols], thetas[first, cols]
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(c1 > c0, (est - c0) / (c1 - c0), 1.0)
    low[todo] = np.where(first == 0, 0.0, t0 + np.clip(step, 0.0, 1.0) * (t1 - t0))
    return low


# (groups, bins, rows per group at most, weighted, draws): one bin, fewer and more bins than numpy's 8-way summing
# unrolls, blocks of many draws and of one draw (more than _NullErrors.BLOCK elements per draw), a last partial block.
CASES = [(7, 1, 40, False, 300), (30, 3, 25, False, 200), (12, 8, 300, True, 150), (40, 10, 400, False, 250),
         (25, 17, 2000, True, 130), (1, 10, 5000, False, 200), (120, 300, 4000, False, 3)]


@pytest.mark.parametrize("n_groups, n_bins, rows, weighted, n_draws", CASES)
def test_the_nulls_errors_are_squared_errors_of_the_stacked_sums(n_groups, n_bins, rows, weighted, n_draws):
    rng = np.random.default_rng(n_groups * 1000 + n_bins)
    stats, ratio = sums(rng, n_groups, n_bins, rows, weighted)
    stats[0, :, :] = 0.0   # a group without rows: NaN
    count, sum_p = stats[:, 0, :], stats[:, 1, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        rows_n = count if ratio is None else count / np.where(ratio > 0, ratio, np.inf)
    trials = np.where(count > 0, np.maximum(np.rint(rows_n), 1.0), 0.0).astype(np.int64)
    drawn = rng.binomial(trials, rng.random(trials.shape), size=(n_draws, *trials.shape))
    d, v = _NullErrors(count, sum_p, rows_n, trials).errors(drawn)
    share = drawn / np.where(trials > 0, trials, 1)
    null = np.stack([np.broadcast_to(count, share.shape), np.broadcast_to(sum_p, share.shape), share * count,
                     np.zeros(share.shape)], axis=-2)
    expected, _, expected_v = squared_errors(null, 1, ratio)
    assert np.isnan(d[:, 0]).all() and not np.isnan(d[:, 1:]).any()
    np.testing.assert_array_equal(d, expected)
    np.testing.assert_array_equal(v, expected_v)


@pytest.mark.parametrize("n_groups, n_bins, rows, weighted, level, t_low", [
    (20, 10, 400, False, 0.95, None), (15, 4, 60, False, 0.9, "given"), (18, 12, 900, True, 0.95, "given"),
    (10, 1, 200, True, 0.8, None), (25, 7, 3000, False, 0.99, "some")])
def test_the_low_ends_and_draws_are_the_stacked_codes(n_groups, n_bins, rows, weighted, level, t_low):
    rng = np.random.default_rng(n_bins * 31 + rows)
    stats, ratio = sums(rng, n_groups, n_bins, rows, weighted)
    estimate = squared_errors(stats, 5, ratio)[0]
    estimate[1] = np.nan
    assert (estimate[~np.isnan(estimate)] > 0).any() and (estimate[~np.isnan(estimate)] <= 0).any()
    if t_low is not None:   # the data's studentized quantiles, NaN for some groups ("some": the normal's there)
        quantiles = -rng.uniform(1.0, 3.0, n_groups)
        if t_low == "some":
            quantiles[::3] = np.nan
        t_low = quantiles
    new_rng, old_rng = np.random.default_rng(11), np.random.default_rng(11)
    low = calibrated_low(stats, estimate, level, new_rng, ratio, 200, t_low=t_low)
    expected = stacked_low(stats, estimate, level, old_rng, ratio, 200, t_low=t_low)
    np.testing.assert_array_equal(low, expected)
    assert (low > 0).any() and (low == 0).any()
    # the same draws, in the same order: the generators are in the same state after
    assert new_rng.bit_generator.state == old_rng.bit_generator.state
    np.testing.assert_array_equal(new_rng.random(3), old_rng.random(3))


def test_weights_and_a_group_without_an_estimate():
    # A weighted subgroup below min_per_group has no estimate (NaN): the others' low ends are still found (the
    # per-group ratios were indexed after the groups and did not broadcast).
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 2, 400), rng.random(400)
    groups = np.where(np.arange(400) < 3, "tiny", np.where(np.arange(400) < 200, "a", "b"))
    table = fc.calibration_errors(y, p, groups, ci=0.9, n_boot=100, sample_weight=rng.uniform(0.5, 2.0, 400))
    low = table.set_index("subgroup")["squared_ce_ci_low"]
    assert np.isnan(low["tiny"]) and (low[["a", "b"]] >= 0).all()
