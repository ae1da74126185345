"""Calibration verdicts of a perfectly calibrated model, at 10 and at 20 bins (issue 19's acceptance).

    .venv/bin/python benchmarks/calibration_verdicts.py               # 200 data sets, n_boot 1,000 (the app's)
    .venv/bin/python benchmarks/calibration_verdicts.py --datasets 50 --n-boot 300

Each data set: four disjoint groups of 60, 400, 700 and 840 rows (2,000; the smallest 3 %), scores ~ Beta(2, 3),
labels ~ Bernoulli(score), so every group is perfectly calibrated and every true ECE disparity is 0. Per data set,
``fc.calibration_disparity`` with the app's defaults (difference, max, against the rest, bound 0.1, 95 %
intervals, seed 0) at 10 and at 20 uniform bins. Printed: the share of data sets whose calibration rule fails,
whose comparison table stars a comparison ("interval excludes parity"), and whose verdict goes from pass or
inconclusive at 10 bins to fail at 20; the same for the plug-in ECE (``debias=False``, seed 001's definition) for
contrast. ARCHITECTURE §5.3 asks for at most 2.5 % fails, at most 5 % starred and no such change.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fairness_core as fc  # noqa: E402

SIZES = (60, 400, 700, 840)


def calibrated(seed: int):
    """(labels, scores, groups) of one perfectly calibrated data set."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.array(["a", "b", "c", "d"]), SIZES)
    p = rng.beta(2, 3, len(g))
    return (rng.random(len(g)) < p).astype(int), p, g


def run(datasets: int, n_boot: int, debias: bool) -> dict:
    """Counts over `datasets` data sets: fails and stars at 10 and 20 bins, and changes to fail."""
    out = {"fail_10": 0, "fail_20": 0, "starred_10": 0, "starred_20": 0, "to_fail": 0}
    for seed in range(datasets):
        y, p, g = calibrated(seed)
        status = {}
        for bins in (10, 20):
            result = fc.calibration_disparity(y, p, g, n_bins=bins, ci=0.95, n_boot=n_boot, random_state=0,
                                              debias=debias)
            status[bins] = result.verdict.status
            out[f"fail_{bins}"] += status[bins] == "fail"
            out[f"starred_{bins}"] += bool(result.table["excludes_parity"].fillna(False).astype(bool).any())
        out["to_fail"] += status[10] in ("pass", "inconclusive") and status[20] == "fail"
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args(argv)
    print(f"{args.datasets} perfectly calibrated data sets (groups of {', '.join(map(str, SIZES))} rows), "
          f"n_boot {args.n_boot}; shares of data sets in %:")
    print("| ECE compared | fails at 10 bins | fails at 20 | starred at 10 | starred at 20 | pass/inconclusive -> fail |")
    print("|---|---:|---:|---:|---:|---:|")
    for debias, name in ((True, "bias-corrected (the app's)"), (False, "plug-in (seed 001)")):
        c = run(args.datasets, args.n_boot, debias)
        pct = {k: 100 * v / args.datasets for k, v in c.items()}
        print(f"| {name} | {pct['fail_10']:.1f} | {pct['fail_20']:.1f} | {pct['starred_10']:.1f} | "
              f"{pct['starred_20']:.1f} | {pct['to_fail']:.1f} |")


if __name__ == "__main__":
    main()
