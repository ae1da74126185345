"""Rows needed to decide": an inconclusive verdict says about how many times the rows would
decide it at its current estimate, and at that many rows, were the truth the current estimate, the verdict is
decided in at least half of the samples."""

from __future__ import annotations

import math

import numpy as np
import pytest

import fairness_core as fc

RULE = fc.Rule(name="selection_diff", metric="statistical_parity", distance_measure="diff", bound=0.05,
               label="Selection rate: difference <= 0.05")


def _draw(rng, rates, n):
    """Predictions of two groups of `n` rows each, selected with `rates`."""
    g = np.repeat(np.array(["a", "b"]), n)
    pred = (rng.random(2 * n) < np.repeat(rates, n)).astype(int)
    return pred, g


def _verdict(pred, g, n_boot=300):
    result = fc.rate_disparity(pred, pred, g, metric="statistical_parity", ci=0.95, n_boot=n_boot)
    return fc.evaluate_result(RULE, result), result


def test_an_inconclusive_verdict_says_how_many_rows_would_decide_it():
    rng = np.random.default_rng(4)
    pred, g = _draw(rng, [0.5, 0.4], 150)
    verdict, result = _verdict(pred, g)
    assert verdict.status == "inconclusive"
    value, high, low = result.value, result.ci_high, result.ci_low
    # The larger half of the interval must shrink below the gap to the bound, with a margin of 1.3.
    assert verdict.rows_factor == pytest.approx(max(1.0, (1.3 * max(high - value, value - low) / abs(value - 0.05)) ** 2))
    assert verdict.smallest == 150
    times = f"{verdict.rows_factor:.1f}" if verdict.rows_factor < 10 else f"{verdict.rows_factor:,.0f}"
    assert (f"At this estimate about {times} times the rows would decide it (the smallest subgroup compared, 150 "
            f"rows, about {150 * verdict.rows_factor:,.0f})." in verdict.sentence)
    # Decided verdicts carry no factor; on the bound no number of rows decides.
    decided = fc.evaluate(RULE, 0.2, ci_low=0.1, ci_high=0.3)
    assert decided.status == "fail" and math.isnan(decided.rows_factor) and "would decide" not in decided.sentence
    on_bound = fc.evaluate(RULE, 0.05, ci_low=0.0, ci_high=0.1)
    assert math.isinf(on_bound.rows_factor) and "no number of rows decides it" in on_bound.sentence
    # A ratio's factor is taken on the log scale: the larger half ln(1.9 / 1.5) against ln(1.5 / 1.25).
    ratio = fc.Rule(name="r", metric="statistical_parity", distance_measure="ratio", bound=1.25)
    assert fc.rows_factor(ratio, 1.5, 1.2, 1.9) == pytest.approx((1.3 * math.log(1.9 / 1.5) / math.log(1.5 / 1.25)) ** 2)


@pytest.mark.full   # a simulation: make test only (tests/tiers.py)
@pytest.mark.parametrize("rates", [[0.5, 0.4], [0.45, 0.42]])
def test_at_the_rows_it_names_the_verdict_is_decided_in_at_least_half_of_the_samples(rates):
    """From an inconclusive data set of 150 rows a group, 200 samples of the size its verdict names, drawn with the
    observed rates as the truth: measured 65 % and 71 % decided (both estimates lie above the bound: fail), the rest
    inconclusive."""
    rng = np.random.default_rng(11)
    for _ in range(50):
        pred, g = _draw(rng, rates, 150)
        verdict, result = _verdict(pred, g)
        if verdict.status == "inconclusive" and verdict.rows_factor < 40:
            break
    assert verdict.status == "inconclusive"
    observed = [pred[g == name].mean() for name in ("a", "b")]
    n = int(math.ceil(150 * verdict.rows_factor))
    expected = "fail" if result.value > RULE.bound else "pass"
    statuses = [_verdict(*_draw(rng, observed, n), n_boot=200)[0].status for _ in range(200)]
    decided = statuses.count(expected) / len(statuses)
    print(f"\nrates {observed}, estimate {result.value:.3f}, factor {verdict.rows_factor:.2f}: {n} rows a group, "
          f"{100 * decided:.1f} % {expected}, {statuses.count('inconclusive')} inconclusive")
    assert decided >= 0.5, (decided, statuses.count("inconclusive"))
