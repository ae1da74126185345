"""The interval of a max or mean over comparisons: nominal coverage, narrower than the Bonferroni
join it replaced, in simulation against a known truth (the full benchmark is benchmarks/coverage.py)."""

import zlib

import numpy as np
import pytest

import fairness_core as fc

LEVEL, N_BOOT, ROWS, DATA_SETS = 0.95, 300, 2_000, 200
SHARES = [0.45, 0.3, 0.2, 0.05]


def draw(rng, rates):
    """Labels and predictions of four disjoint groups whose selection rates are `rates` (the truth is known)."""
    g = rng.choice(4, ROWS, p=SHARES)
    y = rng.integers(0, 2, ROWS)
    return y, rng.random(ROWS) < np.asarray(rates)[g], np.array(list("ABCD"))[g]


def truth_of(rates, reduction):
    """Each group's |rate - rate of the rest| (the rest's rate is the share-weighted mean of the others), reduced."""
    rates, shares = np.asarray(rates), np.asarray(SHARES)
    rest = np.array([(np.dot(rates, shares) - rates[i] * shares[i]) / (1 - shares[i]) for i in range(4)])
    d = np.abs(rates - rest)
    return d.max() if reduction == "max" else d.mean()


@pytest.mark.full   # a coverage simulation: make test only (tests/tiers.py)
@pytest.mark.parametrize("rates", [[0.4, 0.4, 0.4, 0.4], [0.3, 0.4, 0.5, 0.4], [0.3, 0.45, 0.4, 0.6]],
                         ids=["parity", "disparities", "one-small-group-far"])
@pytest.mark.parametrize("reduction", ["max", "mean"])
def test_a_reduced_disparity_interval_covers_near_nominal_and_is_narrower_than_the_bonferroni_join(rates, reduction):
    rng = np.random.default_rng(zlib.crc32(repr((rates, reduction)).encode()))   # the same draws in every process
    truth = truth_of(rates, reduction)
    covered, above, widths, joined = 0, 0, [], []
    for _ in range(DATA_SETS):
        y, pred, g = draw(rng, rates)
        counts = fc.confusion_counts(y, pred, g)
        result = counts.disparity("statistical_parity", reduction=reduction, ci=LEVEL, n_boot=N_BOOT, include_small=True)
        covered += result.ci_low <= truth <= result.ci_high
        above += result.ci_low > truth
        widths.append(result.ci_high - result.ci_low)
        # the join it replaced: every comparison's interval at the Bonferroni level, [max (mean) of lows and highs]
        wide = counts.disparity("statistical_parity", reduction=None, ci=1 - (1 - LEVEL) / 4, n_boot=N_BOOT)
        reduce = np.max if reduction == "max" else np.mean
        joined.append(max(reduce(wide["disparity_ci_high"]), result.value) - min(reduce(wide["disparity_ci_low"]),
                                                                                   result.value))
    coverage = covered / DATA_SETS
    # 200 data sets: a binomial standard error of about 1.5 points at 95 %. Where comparisons tie for the max, or
    # some sit at parity inside a mean, the interval stays above nominal (97-99 % measured: the high end of a max
    # misses only if every tied comparison's does; a mean counts a comparison at parity at 0 in its low end); the
    # Bonferroni join covered 99-100 % in each of these settings and is 9-14 % wider here.
    assert 0.91 <= coverage <= 0.995, (coverage, above)
    assert np.mean(widths) <= 0.92 * np.mean(joined), (np.mean(widths), np.mean(joined))
