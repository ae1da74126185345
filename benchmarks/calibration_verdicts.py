"""Calibration estimates and verdicts against a known truth: bias, coverage, false passes and false fails.

    .venv/bin/python benchmarks/calibration_verdicts.py                  # 200 data sets a setting, n_boot 1,000
    .venv/bin/python benchmarks/calibration_verdicts.py --datasets 50 --n-boot 300

**Miscalibrated groups.** Each data set: a group ``a`` of 60, 300 or 1,000 rows and a calibrated group ``b`` of
5,000 rows; scores ~ Beta(2, 3); ``b``'s labels ~ Bernoulli(score), ``a``'s ~ Bernoulli(expit(logit(score) + δ))
with δ = 0 (calibrated), 0.5 or 1 logit. The truth is the population's binned squared calibration error of ``a``
(10 uniform bins, from 4·10⁶ rows: 0, 0.0110 and 0.0436, so ℓ2 ECEs of 0, 0.105 and 0.209), ``b``'s is 0.
Per data set, ``fc.calibration_disparity`` with the app's defaults (difference, max, against the rest, bound 0.1,
95 % intervals, seed 0). Printed per setting: the mean of the debiased squared errors (``a``'s, and the
difference the rule judges) against their truth, the mean of the excess ℓ2 ECE shown, the coverage of ``a``'s
comparison interval (misses below and above), and the shares of verdicts pass / inconclusive / fail with
intervals and on the point estimate alone. A false pass is a pass where the truth breaks the bound by more than
0.02; a false fail, a fail where the truth meets it with that margin (δ = 0.5 lies within 0.02 of the bound, so it
has neither). The goal: a mean within 10 % of the truth (0.01 below 0.05) and ≤ 2.5 % of each.

**Perfectly calibrated model at 2,000 rows.** Four groups of 60, 400, 700 and 840 rows, all calibrated, at 10 and 20
bins: the shares of data sets whose rule passes and fails, whose comparison table stars a comparison, and whose
verdict goes from pass or inconclusive at 10 bins to fail at 20; the plug-in ECE (``debias=False``) for contrast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.special import expit, logit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fairness_core as fc  # noqa: E402

SIZES = (60, 400, 700, 840)
GROUP_SIZES = (60, 300, 1000)
SHIFTS = (0.0, 0.5, 1.0)
REST = 5000
BOUND, MARGIN = 0.1, 0.02


def true_squared_error(shift: float, n_bins: int = 10, rows: int = 4_000_000) -> float:
    """The population's binned squared calibration error of scores ~ Beta(2, 3) shifted by `shift` logits."""
    rng = np.random.default_rng(12345)
    p = rng.beta(2, 3, rows)
    b = np.searchsorted(np.arange(n_bins + 1)[1:-1] / n_bins, p, side="right")
    count = np.bincount(b, minlength=n_bins)
    gap = (np.bincount(b, expit(logit(p) + shift), n_bins) - np.bincount(b, p, n_bins)) / np.maximum(count, 1)
    return float((count / rows * gap ** 2).sum())


def shifted(seed: int, n: int, shift: float):
    """(labels, scores, groups) of one data set: `n` rows of ``a`` shifted by `shift` logits, ``b`` calibrated."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.array(["a", "b"]), [n, REST])
    p = rng.beta(2, 3, len(g))
    truth = np.where(g == "a", expit(logit(p) + shift), p)
    return (rng.random(len(g)) < truth).astype(int), p, g


def miscalibrated(datasets: int, n_boot: int) -> list[dict]:
    """One row of results per (size, shift)."""
    rows = []
    for shift in SHIFTS:
        truth = true_squared_error(shift)
        excess_truth = np.sqrt(truth)
        for n in GROUP_SIZES:
            squared, judged, shown, verdicts, points = [], [], [], [], []
            below = above = 0
            for seed in range(datasets):
                y, p, g = shifted(1000 * n + seed, n, shift)
                result = fc.calibration_disparity(y, p, g, ci=0.95, n_boot=n_boot, random_state=0)
                row = result.table.set_index("subgroup").loc["a"]
                squared.append(result.errors.set_index("subgroup").loc["a", "squared_ce"])
                judged.append(row["subgroup_squared"] - row["reference_squared"])
                shown.append(row["disparity"])
                below += excess_truth < row["disparity_ci_low"]
                above += excess_truth > row["disparity_ci_high"]
                verdicts.append(result.verdict.status)
                points.append("pass" if result.value <= BOUND else "fail")
            share = {s: 100 * verdicts.count(s) / datasets for s in ("pass", "inconclusive", "fail")}
            point = {s: 100 * points.count(s) / datasets for s in ("pass", "fail")}
            fails_truly, passes_truly = excess_truth > BOUND + MARGIN, excess_truth < BOUND - MARGIN
            rows.append({
                "n": n, "shift": shift, "truth": truth, "mean_squared": float(np.mean(squared)),
                "mean_judged": float(np.mean(judged)), "excess_truth": excess_truth,
                "mean_shown": float(np.mean(shown)), "coverage": 100 * (1 - (below + above) / datasets),
                "miss_below": 100 * below / datasets, "miss_above": 100 * above / datasets, **share,
                "point_pass": point["pass"], "point_fail": point["fail"],
                "false_pass": share["pass"] if fails_truly else 0.0, "false_fail": share["fail"] if passes_truly else 0.0,
            })
    return rows


def calibrated(seed: int):
    """(labels, scores, groups) of one perfectly calibrated data set of four groups."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.array(["a", "b", "c", "d"]), SIZES)
    p = rng.beta(2, 3, len(g))
    return (rng.random(len(g)) < p).astype(int), p, g


def perfectly_calibrated(datasets: int, n_boot: int, debias: bool) -> dict:
    """Counts over `datasets` data sets: passes, fails and stars at 10 and 20 bins, and changes to fail."""
    out = {"pass_10": 0, "pass_20": 0, "fail_10": 0, "fail_20": 0, "starred_10": 0, "starred_20": 0, "to_fail": 0}
    for seed in range(datasets):
        y, p, g = calibrated(seed)
        status = {}
        for bins in (10, 20):
            result = fc.calibration_disparity(y, p, g, n_bins=bins, ci=0.95, n_boot=n_boot, random_state=0,
                                              debias=debias)
            status[bins] = result.verdict.status
            out[f"pass_{bins}"] += status[bins] == "pass"
            out[f"fail_{bins}"] += status[bins] == "fail"
            out[f"starred_{bins}"] += bool(result.table["excludes_parity"].fillna(False).astype(bool).any())
        out["to_fail"] += status[10] in ("pass", "inconclusive") and status[20] == "fail"
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", type=int, default=200)
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args(argv)
    print(f"Group a miscalibrated by δ logits beside a calibrated group of {REST:,} rows; {args.datasets} data sets "
          f"a setting, n_boot {args.n_boot}; shares in %.")
    print("| rows of a | δ | true squared error | mean estimate (a) | mean judged (a - b) | true excess ℓ2 ECE "
          "| mean shown | coverage (below / above) | pass / inconclusive / fail | point: pass / fail "
          "| false pass | false fail |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|")
    for r in miscalibrated(args.datasets, args.n_boot):
        print(f"| {r['n']:,} | {r['shift']:g} | {r['truth']:.4f} | {r['mean_squared']:.4f} | {r['mean_judged']:.4f} "
              f"| {r['excess_truth']:.3f} | {r['mean_shown']:.3f} | {r['coverage']:.1f} ({r['miss_below']:.1f} / "
              f"{r['miss_above']:.1f}) | {r['pass']:.1f} / {r['inconclusive']:.1f} / {r['fail']:.1f} "
              f"| {r['point_pass']:.1f} / {r['point_fail']:.1f} | {r['false_pass']:.1f} | {r['false_fail']:.1f} |")
    print(f"\n{args.datasets} perfectly calibrated data sets (groups of {', '.join(map(str, SIZES))} rows); shares in %:")
    print("| errors compared | passes at 10 bins | at 20 | fails at 10 | at 20 | starred at 10 | at 20 "
          "| pass/inconclusive -> fail |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for debias, name in ((True, "debiased squared (the app's)"), (False, "plug-in ECE (ExFairness)")):
        c = perfectly_calibrated(args.datasets, args.n_boot, debias)
        pct = {k: 100 * v / args.datasets for k, v in c.items()}
        print(f"| {name} | {pct['pass_10']:.1f} | {pct['pass_20']:.1f} | {pct['fail_10']:.1f} | {pct['fail_20']:.1f} "
              f"| {pct['starred_10']:.1f} | {pct['starred_20']:.1f} | {pct['to_fail']:.1f} |")


if __name__ == "__main__":
    main()
