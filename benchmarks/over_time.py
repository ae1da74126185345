"""Fairness over time: the false alarms and power of the trend and change tests, and the time of fc.over_time.

    .venv/bin/python benchmarks/over_time.py            # 2,000 simulated series of 24 periods; 10^6 rows x 24 months
    .venv/bin/python benchmarks/over_time.py --quick    # 200 series; 20,000 rows (a smoke run)

Options: ``--reps`` (simulated series per setting), ``--rows`` (rows of the timed over_time), ``--n-boot``
(its bootstrap replicates, default 1000 as the review's), ``--seed``.

1. **Tests of change** (``fc.period_trend``, ``fc.period_changes``): per setting, series of 24 periods of a
   selection-rate difference of two subgroups of 300 rows each with its MOVER interval, the distance the rules
   read (|a - b|, the interval folded at parity) or signed (a - b). Without change the share of series where the
   trend (p < 0.05), the equality across periods (Cochran's Q, p < 0.05) or any period's change from the first
   (Holm over 23 comparisons at 5 %) alarms is the false-alarm rate, which should be at most 5 %; with a planted
   change (the difference from 0.1 to 0.18 at period 12, a step, or growing by 0.004 per period, a drift) it
   is the power. Monte Carlo error of a rate p over R series: sqrt(p (1 - p) / R) (0.5 % at 5 % and R = 2,000).
2. **Time of fc.over_time**: the rate and label verdicts of every period, with intervals, of `--rows` rows over
   24 months (three subgroups, two scores and a predicted label), against one ``fc.build_review`` of the same rows;
   then what the app's Over time page computes: one model and the labels, verdicts only
   (``models=("score",), verdicts_only=True``), per month and per quarter, with a check that its verdicts are
   those of the full call. CPU seconds (``time.process_time``), with the 1-minute load average beside each.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fairness_core as fc  # noqa: E402
from fairness_core._stats.intervals import mover_disparity, mover_interval  # noqa: E402

PERIODS, ROWS_PER_SIDE = 24, 300
SETTINGS = {   # name: (b's rate per period, folded)
    "no change, parity, distance": (np.full(PERIODS, 0.3), True),
    "no change, difference 0.1, distance": (np.full(PERIODS, 0.2), True),
    "no change, difference 0.1, signed": (np.full(PERIODS, 0.2), False),
    "step 0.1 -> 0.18 at period 12, distance": (np.where(np.arange(PERIODS) < 12, 0.2, 0.12), True),
    "drift 0.1 + 0.004 per period, distance": (0.2 - 0.004 * np.arange(PERIODS), True),
}


def alarms(rates_b: np.ndarray, folded: bool, reps: int, rng: np.random.Generator) -> dict:
    """The share of `reps` simulated series where each test alarms at 5 %."""
    k1 = rng.binomial(ROWS_PER_SIDE, 0.3, size=(reps, PERIODS))
    k2 = rng.binomial(ROWS_PER_SIDE, rates_b, size=(reps, PERIODS))
    if folded:
        low, high = mover_disparity(k1, ROWS_PER_SIDE, k2, ROWS_PER_SIDE, 0.95, "diff")
        values = np.abs(k1 - k2) / ROWS_PER_SIDE
    else:
        low, high = mover_interval(k1, ROWS_PER_SIDE, k2, ROWS_PER_SIDE, 0.95, "diff")
        values = (k1 - k2) / ROWS_PER_SIDE
    trends = [fc.period_trend(v, lo, hi) for v, lo, hi in zip(values, low, high)]
    changes = [fc.period_changes(v, lo, hi)["changed"].any() for v, lo, hi in zip(values, low, high)]
    return {"trend": np.mean([t.p_value < 0.05 for t in trends]),
            "equality": np.mean([t.heterogeneity_p < 0.05 for t in trends]), "changes": float(np.mean(changes))}


def frame(rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """`rows` rows over 24 months (UTC), subgroups a, b, c, two scores and a predicted label; b's scores lower
    from month 13."""
    when = pd.Timestamp("2023-01-01", tz="UTC") + pd.to_timedelta(rng.integers(0, 730 * 24, rows), unit="h")
    group = rng.choice(np.array(["a", "b", "c"]), rows)
    y = (rng.random(rows) < 0.4).astype(np.int8)
    score = np.clip(0.3 * y + 0.7 * rng.random(rows), 0, 1)
    score[(group == "b") & (when >= pd.Timestamp("2024-01-01", tz="UTC"))] *= 0.8
    other = np.clip(score + rng.normal(0, 0.1, rows), 0, 1)
    return pd.DataFrame({"when": when, "group": group, "y": y, "score": score, "other": other,
                         "approved": (other >= 0.5).astype(np.int8)})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int)
    parser.add_argument("--rows", type=int)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    reps = args.reps or (200 if args.quick else 2000)
    rows = args.rows or (20_000 if args.quick else 1_000_000)
    rng = np.random.default_rng(args.seed)

    print(f"Tests of change over {PERIODS} periods, {ROWS_PER_SIDE} rows per subgroup, {reps} series each "
          f"(Monte Carlo error at 5 %: {np.sqrt(0.05 * 0.95 / reps):.3f})")
    print(f"{'setting':45s} {'trend':>7s} {'equality':>9s} {'changes':>8s}")
    for name, (rates_b, folded) in SETTINGS.items():
        found = alarms(rates_b, folded, reps, rng)
        print(f"{name:45s} {found['trend']:7.3f} {found['equality']:9.3f} {found['changes']:8.3f}")

    data = frame(rows, rng)
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("score", "other"), predicted_label="approved",
                               protected=("group",), time="when")
    config = fc.ReviewConfig(mapping=mapping, thresholds=(("score", 0.5), ("other", 0.5)), n_boot=args.n_boot)
    start = time.process_time()
    result = fc.over_time(data, config, period="month")
    over = time.process_time() - start
    load = os.getloadavg()[0]
    start = time.process_time()
    fc.build_review(data, config)
    one = time.process_time() - start
    print(f"\nfc.over_time of {rows:,} rows x {len(result.periods)} months, every model (n_boot {args.n_boot}): "
          f"{over:.1f} s CPU (load {load:.2f}); one build_review of the same rows: {one:.1f} s CPU "
          f"(load {os.getloadavg()[0]:.2f})")
    print(f"four-fifths rule: first failure {result.first_failure('four_fifths')}, "
          f"equality across months p = {result.trend('four_fifths').heterogeneity_p:.2g}")
    for period in ("month", "quarter"):
        start = time.process_time()
        page = fc.over_time(data, config, period=period, models=("score",), verdicts_only=True)
        spent = time.process_time() - start
        full = result if period == "month" else fc.over_time(data, config, period=period, models=("score",))
        kept = full.verdicts.loc[full.verdicts["model"].isin(["score", "labels"])].reset_index(drop=True)
        same = page.verdicts.equals(kept)
        print(f"the page's call per {period} (one model and the labels, verdicts only, {len(page.periods)} periods): "
              f"{spent:.2f} s CPU (load {os.getloadavg()[0]:.2f}); verdicts equal the full call's: {same}")
        if not same:
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
