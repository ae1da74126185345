"""Calibration intervals with sample weights: the reliability diagram's Wilson intervals on each
bin's effective size, the bootstrap of weighted rows behind the squared calibration error and Brier intervals and the
calibration disparity; each against an independent computation, and the coverage by simulation.

The simulations draw scores p ~ U(0, 1) and labels y ~ Bernoulli(p^k) with k = 2 in group a (over-confident) and 0.7
in group b, except in stratum 1 (20 % of the population, 50 % of the samples) where y ~ Bernoulli(p); the weights
0.2 / 0.5 and 0.8 / 0.5 correct the sampling, so the weighted statistics estimate the population's.
"""

from __future__ import annotations

import numpy as np
import pytest

import fairness_core as fc
from fairness_core._stats.intervals import weighted_wilson_interval, wilson_interval

EDGES = np.arange(11) / 10
POWER = {"a": 2.0, "b": 0.7}


def _moment(k: float, low, high):
    """E[p^k | low <= p < high] for p ~ U(0, 1)."""
    return (high ** (k + 1) - low ** (k + 1)) / ((k + 1) * (high - low))


def _rate(group: str, low, high):
    return 0.8 * _moment(POWER[group], low, high) + 0.2 * _moment(1.0, low, high)


def _ece(group: str) -> float:
    return float(sum(0.1 * abs(_rate(group, lo, hi) - _moment(1.0, lo, hi)) for lo, hi in zip(EDGES[:-1], EDGES[1:])))


def _squared(group: str) -> float:
    """The population's binned squared calibration error of `group` (ten bins of probability 0.1 each)."""
    return float(sum(0.1 * (_rate(group, lo, hi) - _moment(1.0, lo, hi)) ** 2 for lo, hi in zip(EDGES[:-1], EDGES[1:])))


def _brier(group: str) -> float:
    k = POWER[group]   # E p^2 - 2 E p y + E y
    return 1 / 3 - 2 * (0.8 / (k + 2) + 0.2 / 3) + (0.8 / (k + 1) + 0.2 / 2)


def _sample(rng, n: int, share_a: float = 0.3):
    group = np.where(rng.random(n) < share_a, "a", "b")
    stratum = rng.random(n) < 0.5
    p = rng.random(n)
    y = (rng.random(n) < p ** np.where(stratum, 1.0, np.where(group == "a", 2.0, 0.7))).astype(int)
    return y, p, group.reshape(-1, 1), np.where(stratum, 0.4, 1.6)


def _row_a(table):
    table = table.set_index("subgroup")
    return table.loc[next(s for s in table.index if str(s).endswith("a"))]


def test_weighted_reliability_intervals_are_wilsons_on_the_bins_effective_sizes():
    rng = np.random.default_rng(0)
    y, p, group, w = _sample(rng, 400)
    w = w * rng.lognormal(0, 0.5, 400)
    table = fc.reliability_diagram(y, p, group, ci=0.9, sample_weight=w)
    rows = table[table["subgroup"].astype(str).str.endswith("a")].set_index("bin")
    for b in (1, 5, 9):
        m = (group[:, 0] == "a") & (p >= EDGES[b]) & (p < EDGES[b + 1] if b < 9 else p <= 1)
        hit = m & (y == 1)
        want = weighted_wilson_interval(w[hit].sum(), w[m].sum(), (w[hit] ** 2).sum(), (w[m & (y == 0)] ** 2).sum(),
                                        0.9, rows=m.sum())
        got = rows.loc[b, ["fraction_positive_ci_low", "fraction_positive_ci_high"]].to_numpy(float)
        np.testing.assert_allclose(got, np.ravel(want), rtol=1e-12)
    plain = fc.reliability_diagram(y, p, group, ci=0.9)
    unit = fc.reliability_diagram(y, p, group, ci=0.9, sample_weight=np.ones(400))
    columns = ["fraction_positive_ci_low", "fraction_positive_ci_high"]
    np.testing.assert_allclose(unit[columns].to_numpy(float), plain[columns].to_numpy(float), rtol=0, atol=1e-12)


def test_a_few_light_successes_cannot_narrow_a_bins_interval_below_its_rows():
    """Three positives of weight 0.1 among 27 negatives of weight 1: the linearized variance gives an effective
    size of about 88 for 30 rows; truncated at 30, the interval is Wilson's of the weighted share on 30 rows."""
    w = np.r_[np.full(3, 0.1), np.ones(27)]
    low, high = weighted_wilson_interval(0.3, w.sum(), 0.03, 27.0, 0.95, rows=30)
    share = 0.3 / w.sum()
    want = wilson_interval(share * 30, 30, 0.95)
    assert (float(low), float(high)) == pytest.approx((float(want[0]), float(want[1])), rel=1e-12)
    assert float(weighted_wilson_interval(0.3, w.sum(), 0.03, 27.0, 0.95)[1]) < float(high)


def test_weighted_error_intervals_against_a_bootstrap_of_weighted_rows():
    """The Brier score's interval from the bucket bootstrap of weighted rows is that of a plain bootstrap of the rows
    with their weights (2,000 resamples, the weighted Brier of each) up to bootstrap noise."""
    rng = np.random.default_rng(3)
    y, p, group, w = _sample(rng, 1_500)
    row = _row_a(fc.calibration_errors(y, p, group, ci=0.9, n_boot=1_000, sample_weight=w))
    a = group[:, 0] == "a"
    ya, pa, wa = y[a], p[a], w[a]
    picks = rng.integers(0, a.sum(), size=(2_000, a.sum()))
    brier = (wa[picks] * (pa[picks] - ya[picks]) ** 2).sum(axis=1) / wa[picks].sum(axis=1)
    want = np.quantile(brier, [0.05, 0.95])
    width = want[1] - want[0]
    assert row["brier_score_ci_low"] == pytest.approx(want[0], abs=0.1 * width)
    assert row["brier_score_ci_high"] == pytest.approx(want[1], abs=0.1 * width)
    assert row["brier_score"] == pytest.approx(np.average((pa - ya) ** 2, weights=wa), rel=1e-12)
    assert row["squared_ce_ci_low"] <= row["squared_ce"] <= row["squared_ce_ci_high"]
    assert "mce_ci_low" not in row.index and not np.isnan(row["mce"])   # the MCE has no interval
    assert "ece_ci_low" not in row.index and not np.isnan(row["ece"])   # nor the plug-in ECE


def test_weighted_calibration_disparity_takes_intervals():
    rng = np.random.default_rng(4)
    y, p, group, w = _sample(rng, 800)
    for debias in (True, False):
        result = fc.calibration_disparity(y, p, group, ci=0.95, n_boot=200, sample_weight=w, debias=debias)
        assert result.ci_low <= result.value <= result.ci_high
        assert result.errors["squared_ce_ci_low"].notna().all() and result.table["disparity_ci_high"].notna().all()
    again = fc.calibration_disparity(y, p, group, ci=0.95, n_boot=200, sample_weight=w, debias=False)
    assert (again.ci_low, again.ci_high) == (result.ci_low, result.ci_high)
    # a subgroup under min_per_group effective rows has no ECE and no interval, weighted or not
    small = fc.calibration_errors(y, p, group, ci=0.95, n_boot=200, sample_weight=w, min_per_group=10_000)
    assert small["ece"].isna().all() and small["squared_ce"].isna().all() and small["squared_ce_ci_low"].isna().all()
    assert small["brier_score_ci_low"].notna().all()


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
def test_weighted_reliability_intervals_cover_the_population():
    """1,000 samples of 1,000 rows (group a: 300 rows, about 30 per bin): the observed rate of a's bins 2 (population
    0.101, a rare outcome) and 8 (0.749) covered in 93-99 %. Longer runs (2,000 samples): bins 0, 2, 5, 8 (rates
    0.013, 0.101, 0.353, 0.749) 96.7, 97.2, 94.0, 93.7 %; with a at 6 % (about 6 rows a bin) 95.3, 95.4, 94.8,
    95.2 %. Without the truncation at the bin's rows, bin 2 measured 86.2 % in 400 samples (96.8 % truncated)."""
    truth = {b: _rate("a", EDGES[b], EDGES[b + 1]) for b in (2, 8)}
    rng = np.random.default_rng(5)
    misses = {b: [0, 0] for b in truth}
    for _ in range(1_000):
        y, p, group, w = _sample(rng, 1_000)
        table = fc.reliability_diagram(y, p, group, ci=0.95, sample_weight=w)
        rows = table[table["subgroup"].astype(str).str.endswith("a")].set_index("bin")
        for b, value in truth.items():
            misses[b][0] += rows.loc[b, "fraction_positive_ci_low"] > value
            misses[b][1] += rows.loc[b, "fraction_positive_ci_high"] < value
    for b, (above, below) in misses.items():
        assert 0.93 <= 1 - (above + below) / 1_000 <= 0.99, misses
    assert sum(m[0] for m in misses.values()) > 5 and sum(m[1] for m in misses.values()) > 5, misses


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
@pytest.mark.parametrize("share_a", [0.3, 0.06])
def test_weighted_calibration_errors_cover_the_population(share_a):
    """150 samples of 1,000 rows: group a's Brier score and debiased squared calibration error covered with misses on
    both sides, and with a at 30 % the excess ℓ2 ECE against b too. Longer runs (300-800 samples, n_boot 400): a at
    30 % (300 rows), Brier 94.8 % weighted (95.1 % unweighted); a at 6 % (60 rows), Brier 92.8 % (93.2 %); 3,000
    rows (a: 900), Brier 95.7 % (94.7 %). The debiased squared error's studentized interval is taken on each bin's
    effective size (the plug-in ECE's interval, shifted by the bootstrap's bias, covered 80.5 % at 60 rows)."""
    truth = {"squared_ce": _squared("a"), "brier_score": _brier("a"),
             "disparity": float(np.sqrt(abs(_squared("a") - _squared("b"))))}
    rng = np.random.default_rng(int(share_a * 100))
    misses = {name: [0, 0] for name in truth}
    for _ in range(150):
        y, p, group, w = _sample(rng, 1_000, share_a)
        result = fc.calibration_disparity(y, p, group, ci=0.95, n_boot=200, sample_weight=w, include_small=True,
                                          random_state=rng)
        ends = {name: (_row_a(result.errors)[f"{name}_ci_low"], _row_a(result.errors)[f"{name}_ci_high"])
                for name in ("squared_ce", "brier_score")}
        ends["disparity"] = (_row_a(result.table)["disparity_ci_low"], _row_a(result.table)["disparity_ci_high"])
        for name, (low, high) in ends.items():
            misses[name][0] += low > truth[name]
            misses[name][1] += high < truth[name]
    covered = {name: 1 - sum(m) / 150 for name, m in misses.items()}
    print(f"\nshare {share_a}: covered {covered}, misses (above, below) {misses}")
    assert {0.3: 0.90, 0.06: 0.86}[share_a] <= covered["brier_score"] <= 0.99, (covered, misses)
    assert misses["brier_score"][0] > 0 and misses["brier_score"][1] > 0, misses
    assert 0.88 <= covered["squared_ce"] <= 0.99, (covered, misses)
    if share_a == 0.3:
        assert covered["disparity"] >= 0.90, (covered, misses)
