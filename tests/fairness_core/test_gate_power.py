"""The release gate's statistics: the one-sided joint (max-t) low ends that decide its fails, checked against a brute
force, and, by simulation, how often it passes a candidate as good as the baseline and fails a worse one
(benchmarks/gate_equal_candidate.py measures both at full size)."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._review.change_levels import joint_low_ends
from fairness_core._stats.simultaneous import simultaneous_level


def literal_low_level(samples, level: float) -> float:
    """The one-sided simultaneous level by brute force: of the levels 1 - 2 i / (n - 1), the smallest at which numpy's
    lower percentile of every column is at or below the replicate in a share `level` of the replicates at once,
    clipped to [1 - 2 (1 - level), Bonferroni's 1 - 2 (1 - level) / m]."""
    x = np.asarray(samples, dtype=float)
    n, m = x.shape
    for i in range(n // 2, -1, -1):   # from the narrowest tail outward
        t = i / (n - 1)
        inside = np.ones(n, dtype=bool)
        for k in range(m):
            inside &= x[:, k] >= np.quantile(x[:, k], t) - 1e-12
        if inside.mean() >= level - 1e-12:
            return float(min(max(1 - 2 * t, 1 - 2 * (1 - level)), 1 - 2 * (1 - level) / m))
    return 1 - 2 * (1 - level) / m


@pytest.mark.parametrize("case", ["copies", "independent", "correlated"])
def test_the_one_sided_joint_level_is_the_brute_forces(case):
    rng = np.random.default_rng(5)
    z = rng.normal(size=(800, 1))
    x = {"copies": np.hstack([z, z, z]), "independent": rng.normal(size=(800, 4)),
         "correlated": z + 0.6 * rng.normal(size=(800, 3))}[case]
    level = 0.99
    found = simultaneous_level(x, level, side="low")
    assert found == pytest.approx(literal_low_level(x, level), abs=1e-8)
    if case == "copies":   # columns that move together: each low end unadjusted (one-sided 1 %: two-sided 98 %)
        assert found == pytest.approx(0.98, abs=1e-8)
    # the two-sided reading holds both ends: never below the one-sided one at the same error in each tail
    assert simultaneous_level(x, level) >= found - 1e-8
    # low ends at the level found hold a share `level` of the replicates in every column at once
    t = (1 - found) / 2
    assert (x >= np.quantile(x, t, axis=0) - 1e-12).all(axis=1).mean() >= level - 1e-12
    with pytest.raises(ValueError, match="side must be 'both' or 'low'"):
        simultaneous_level(x, level, side="high")


def test_joint_low_ends_split_the_error_between_the_families():
    """Rates with replicates get their family's max-t level; AUCs (no replicates) Bonferroni's over every change,
    with DeLong's Wald interval; each low end is the flipped percentile end of the differences' replicates."""
    rng = np.random.default_rng(2)
    common = rng.normal(size=(1000, 1))
    draws = 0.01 * (common + 0.3 * rng.normal(size=(1000, 3)))   # three rate changes that move together
    table = pd.DataFrame({
        "model": ["m2"] * 5, "quantity": ["false_positive_rate", "equalized_odds", "p_percent_score", "subgroup_auc",
                                         "bpsn_auc"],
        "subgroup": [None, None, None, "A", "A"], "worsening": [0.001, 0.002, -0.003, 0.004, -0.001],
        "ci_low": [-0.01] * 5, "ci_high": [0.02] * 5, "kind": ["rates"] * 3 + ["aucs"] * 2,
        "sign": [1.0, 1.0, -1.0, -1.0, -1.0], "se": [np.nan] * 3 + [0.002, 0.003]})
    replicates = {"rates": {"m2": [(("false_positive_rate", "equalized_odds", "p_percent_score"), draws)]}}
    low, levels = joint_low_ends(table, replicates, 0.95)
    m, error = 5, 0.025
    rates_level = literal_low_level(draws * np.array([1.0, 1.0, -1.0]), 1 - error * 3 / m)
    assert levels[:3] == pytest.approx([rates_level] * 3, abs=1e-8)
    assert 1 - 2 * error * 3 / m < rates_level < 1 - 2 * error / m   # between unadjusted and Bonferroni's
    t = (1 - levels[0]) / 2
    expected = [np.quantile(draws[:, 0], t), np.quantile(draws[:, 1], t), -np.quantile(draws[:, 2], 1 - t)]
    assert low[:3] == pytest.approx(expected, abs=1e-6)   # a hair (1e-9 in level) outside the replicates
    from scipy.stats import norm

    bonferroni = 1 - 0.05 / m
    z = norm.ppf(1 - (1 - bonferroni) / 2)
    assert levels[3:] == pytest.approx([bonferroni] * 2)
    # an AUC's worsening is baseline - candidate: its low end is -(difference + z se), difference = -worsening
    assert low[3:] == pytest.approx([-(-0.004 + z * 0.002), -(0.001 + z * 0.003)])
    assert joint_low_ends(table, replicates, None)[0] == pytest.approx(table["ci_low"].to_numpy())


def candidates(n: int, seed: int, shift: float = 0.0) -> pd.DataFrame:
    """benchmarks/gate_equal_candidate.py's data at d = 0.1 (a retrained model whose scores correlate about 0.99 with
    the baseline's): three subgroups (50, 30, 20 %), m2 as good as m1; with `shift`, m2's logits in subgroup B moved
    up by it (0.09 worsens its false positive rate disparity by 0.022 in the population, on 10^6 rows whose models share
    their noise: a little over twice the tolerance 0.01; the benchmark's bisection finds 0.083 for 0.020)."""
    rng = np.random.default_rng(seed)
    group = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    base = np.array([0.0, 0.4, -0.3])[group]
    x = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(1.5 * x - 0.5 + base)))).astype(int)
    shared = rng.normal(0, np.sqrt(0.25 - 0.01), n)
    scores = {m: 1 / (1 + np.exp(-(1.5 * (x + shared + rng.normal(0, 0.1, n)) - 0.5 + base
                                   + (shift * (group == 1) if m == "m2" else 0.0)))) for m in ("m1", "m2")}
    return pd.DataFrame({"y": y, "g": np.array(list("ABC"))[group], **scores})


MAPPING = fc.ColumnMapping(label="y", positive_label=1, scores=("m1", "m2"), protected=("g",))


def gate_outcome(frame: pd.DataFrame, tolerance: Optional[float] = None) -> str:
    """The gate's outcome on the changes from m1, at `tolerance` (None: the default, 0.01 for a difference of rates,
    an AUC or an ECE and 0.02 for the ratio scores)."""
    tolerances = {} if tolerance is None else {"max_worsening": tolerance}
    review = fc.build_review(frame, fc.ReviewConfig(mapping=MAPPING, baseline="m1", **tolerances))
    statuses = {c.status for c in review.changes}
    return "fail" if "fail" in statuses else "pass" if statuses == {"pass"} else "inconclusive"


@pytest.mark.full   # 16 reviews of 10^5 rows (about 30 CPU-s)
def test_an_equal_candidate_passes_at_the_default_tolerance():
    """The product's goal: at the default tolerance an equal candidate on 10^5 rows passes in at least 80 % of data
    sets and fails in at most 2.5 %. At 10^5 rows the ratio scores' paired changes have a sampling sd of 0.003-0.004
    (d = 0.1), the rate disparities' 0.0018-0.0024: the default tolerance in each quantity's units, 0.02 for the
    ratio scores and 0.01 for the rest, is five or more of them, and benchmarks/gate_equal_candidate.py measured the
    gate passing such a candidate in 99 of 100 data sets (a single 0.01 for every quantity: 70 % of 40). At least 13
    of 16 passes (81 %) are asserted: with a true pass rate of 0.95, 12 or fewer has a chance of 0.7 %. An equal
    candidate fails some change with a chance of at most 2.5 % per data set, so at most one fail of 16 (a chance of
    at least 94 % when the goal holds)."""
    outcomes = [gate_outcome(candidates(100_000, seed)) for seed in range(16)]
    assert outcomes.count("pass") >= 13 and outcomes.count("fail") <= 1, outcomes


@pytest.mark.full   # 8 reviews of 10^5 rows (about 15 CPU-s)
def test_a_candidate_worse_by_twice_the_tolerance_fails():
    """Worse by about 0.02 in B's false positive rate disparity (twice its default tolerance, 0.01, a difference of
    rates; its ratio score and equalized odds worsen too): the FPR disparity's paired interval at 10^5 rows is about
    +-0.005 at the joint level, so its low end lies above 0.01 in nearly every data set
    (benchmarks/gate_equal_candidate.py --worse measured 100 % of data sets failing). At least 6 of 8 are asserted,
    and none passes."""
    outcomes = [gate_outcome(candidates(100_000, seed, shift=0.09)) for seed in range(8)]
    assert outcomes.count("fail") >= 6 and outcomes.count("pass") == 0, outcomes
