"""How often the release gate passes a candidate model that is as good as the baseline (equal in expectation).

A candidate gated on its change from the baseline (``fc.build_review`` with ``baseline=``, the command line's
``--baseline``) is judged for non-inferiority: every rate disparity, ratio score, subgroup/BPSN/BNSP AUC and
subgroup ECE may be worse than the baseline's by at most the tolerance (``max_worsening``, default 0.01). A candidate
drawn from the same model as the baseline is no worse, so a gate should pass it when the data allow, and fail it
rarely. Each data set: four subgroups (50, 30, 15 and 5 % of the rows, with different base rates), a latent risk x,
the label drawn from sigmoid(1.5 x - 0.5 + the subgroup's shift), and two scores sigmoid(1.5 (x + e) - 0.5 + shift)
whose noise e ~ N(0, 0.5^2) is e = s + d_m: a part s ~ N(0, 0.5^2 - d^2) both models share and a part
d_m ~ N(0, d^2) of each model's own. Both models are equally good whatever d; d sets how much they disagree: d = 0.5
is a model drawn afresh (independent noise: its scores correlate about 0.85 with the baseline's), d = 0.15 a
retrained model (about 0.99). Reported per size and d: the share of data sets whose gate on the changes passes (every
change passes), fails (some change fails) or is inconclusive, and the changes judged.

Run: ``.venv/bin/python benchmarks/gate_equal_candidate.py [--runs 100] [--sizes 10000,100000] [--own 0.15,0.5]
[--shares 0.5,0.3,0.2]``; ``PYTHONPATH=<another checkout>`` measures another release.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
import time
from collections import Counter

import numpy as np
import pandas as pd

import fairness_core as fc

SHARES = [0.5, 0.3, 0.15, 0.05]
SHIFTS = [0.0, 0.4, -0.3, 0.6]   # a fifth subgroup and more repeat them


def equal_candidates(n: int, seed: int, own: float = 0.5) -> pd.DataFrame:
    """A data set with a baseline score m1 and a candidate m2 as good as it, their noise's own part of sd `own`."""
    rng = np.random.default_rng(seed)
    group = rng.choice(len(SHARES), n, p=SHARES)
    shift = np.asarray(SHIFTS)[group]
    x = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(1.5 * x - 0.5 + shift)))).astype(int)
    shared = rng.normal(0, np.sqrt(0.5 ** 2 - own ** 2), n)
    scores = {m: 1 / (1 + np.exp(-(1.5 * (x + shared + rng.normal(0, own, n)) - 0.5 + shift)))
              for m in ("m1", "m2")}
    return pd.DataFrame({"y": y, "g": np.array(list("ABCD"))[group], **scores})


def gate_of(frame: pd.DataFrame, n_boot: int, tolerance: float) -> tuple[str, Counter]:
    """('pass' | 'inconclusive' | 'fail', the changes' statuses) of the gate on the changes from m1."""
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("m1", "m2"), protected=("g",))
    review = fc.build_review(frame, fc.ReviewConfig(mapping=mapping, n_boot=n_boot, baseline="m1",
                                                    max_worsening=tolerance))
    statuses = Counter(c.status for c in review.changes)
    overall = "fail" if statuses["fail"] else "pass" if set(statuses) <= {"pass"} else "inconclusive"
    return overall, statuses


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--tolerance", type=float, default=0.01)
    parser.add_argument("--own", default="0.15,0.5", help="sd of each model's own noise, d (at most 0.5)")
    parser.add_argument("--shares", default=",".join(map(str, SHARES)),
                        help="the subgroups' shares of the rows (their shifts: 0, 0.4, -0.3, 0.6, ...)")
    args = parser.parse_args(argv)
    SHARES[:] = [float(x) for x in args.shares.split(",")]
    SHIFTS[:] = (SHIFTS * len(SHARES))[:len(SHARES)]
    print(f"Subgroups' shares {SHARES}, tolerance {args.tolerance:g}, n_boot {args.n_boot}; fairness_core "
          f"{fc.__version__} from {Path(fc.__file__).parent}\n")
    print("| rows | d | score correlation | data sets | gate passes % | inconclusive % | fails % | "
          "changes judged per data set | changes passing % | changes failing % |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, own in itertools.product((int(s) for s in args.sizes.split(",")), (float(d) for d in args.own.split(","))):
        overall, changes, started, corr = Counter(), Counter(), time.perf_counter(), []
        for seed in range(args.runs):
            frame = equal_candidates(n, seed, own)
            corr.append(np.corrcoef(frame["m1"], frame["m2"])[0, 1])
            verdict, statuses = gate_of(frame, args.n_boot, args.tolerance)
            overall[verdict] += 1
            changes.update(statuses)
        total = sum(changes.values())
        print(f"| {n:,} | {own:g} | {np.mean(corr):.3f} | {args.runs} | {100 * overall['pass'] / args.runs:.1f} | "
              f"{100 * overall['inconclusive'] / args.runs:.1f} | {100 * overall['fail'] / args.runs:.1f} | "
              f"{total / args.runs:.0f} | {100 * changes['pass'] / total:.1f} | {100 * changes['fail'] / total:.1f} |",
              flush=True)
        print(f"  ({time.perf_counter() - started:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
