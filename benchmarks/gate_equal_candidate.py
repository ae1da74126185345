"""How often the release gate passes a candidate model that is as good as the baseline (equal in expectation).

A candidate gated on its change from the baseline (``fc.build_review`` with ``baseline=``, the command line's
``--baseline``) is judged for non-inferiority: every rate disparity, ratio score, subgroup/BPSN/BNSP AUC and
subgroup ECE may be worse than the baseline's by at most its tolerance (``max_worsening``, default 0.01, in the units
of a difference of rates: twice it for the p% and equal opportunity scores, ratios of rates). A candidate
drawn from the same model as the baseline is no worse, so a gate should pass it when the data allow, and fail it
rarely. Each data set: four subgroups (50, 30, 15 and 5 % of the rows, with different base rates), a latent risk x,
the label drawn from sigmoid(1.5 x - 0.5 + the subgroup's shift), and two scores sigmoid(1.5 (x + e) - 0.5 + shift)
whose noise e ~ N(0, 0.5^2) is e = s + d_m: a part s ~ N(0, 0.5^2 - d^2) both models share and a part
d_m ~ N(0, d^2) of each model's own. Both models are equally good whatever d; d sets how much they disagree: d = 0.5
is a model drawn afresh (independent noise: its scores correlate about 0.85 with the baseline's), d = 0.15 a
retrained model (about 0.99). Reported per size and d: the share of data sets whose gate on the changes passes (every
change passes), fails (some change fails) or is inconclusive, and the changes judged.

``--worse``: the candidate is worse, not equal: its scores in subgroup B (30 % of the rows) are shifted up on the
logit scale by the amount that raises its false positive rate disparity (B against the rest, the largest) by twice
the tolerance in the population (found by bisection on 10^6 rows whose models share all their noise, so that the
shift alone separates them; its other quantities' population changes are printed). The share of data sets whose
gate fails is then the gate's power; the share that passes its error.

Run: ``.venv/bin/python benchmarks/gate_equal_candidate.py [--runs 100] [--sizes 10000,100000] [--own 0.15,0.5]
[--shares 0.5,0.3,0.2] [--tolerance 0.01] [--worse] [--json benchmarks/results-gate.json]``;
``PYTHONPATH=<another checkout>`` measures another release.

Last run (2026-12-08, 2 vCPU shared with other jobs, load average 6-14; n_boot 1,000, subgroups of 50 / 30 / 20 %;
``benchmarks/results-gate.json``), at the default tolerance, 0.01 (0.02 for the ratio scores):

| candidate | rows | d | data sets | passes % | inconclusive % | fails % | changes passing % |
|---|---:|---:|---:|---:|---:|---:|---:|
| equal | 100,000 | 0.1 | 100 | 99.0 | 1.0 | 0.0 | 99.9 |
| equal | 10,000 | 0.1 | 100 | 5.0 | 95.0 | 0.0 | 76.5 |
| equal | 100,000 | 0.5 | 40 | 27.5 | 72.5 | 0.0 | 88.2 |
| worse by 2 x 0.01 | 100,000 | 0.1 | 40 | 0.0 | 0.0 | 100.0 | 64.7 |
| worse by 2 x 0.01 | 100,000 | 0.5 | 20 | 0.0 | 65.0 | 35.0 | 59.4 |

With four subgroups (50 / 30 / 15 / 5 %, the script's default shares; 21 changes), 40 data sets each: d = 0.15, 25.0 %
pass, 75.0 % inconclusive, 0 % fail; d = 0.5, 2.5 / 97.5 / 0 % (before, at a single 0.01 and d = 0.15: 17.5 % pass).
What stays inconclusive there is a reduced rate disparity (the maximum over the subgroups, the 5 % one's of 5,000
rows the noisiest: inconclusive in 3 of 4 data sets checked, high ends 0.0104-0.0112), a difference already at its
tolerance, and now and then the small subgroup's ECE: more rows or a larger --max-worsening decide them, no change of
units does.

(``--worse``: a logit shift of 0.083 in B, which worsens B's false positive rate disparity by 0.0198 in the population,
the p% score by 0.0210, the equal opportunity score by 0.0109.) Before, with one tolerance for every quantity
(records without ``ratio_tolerance`` in the JSON): an equal candidate at 10^5 rows and d = 0.1 passed in 70 % of 40 data
sets at 0.01 and 100 % at 0.02; at 10^4 rows 0 % and 30 %; the worse one failed in 100 % (0.01) and, at d = 0.5 and
0.02 (worse by 0.04), 95 %.

What kept an equal candidate from passing at a single 0.01 was not multiplicity: the pass side is already unadjusted
(the intersection-union principle), and the fails' low ends (joint one-sided max-t bounds) fail no equal candidate
either way. It was the ratio scores' units: at 10^5 rows and d = 0.1 the p% and equal opportunity scores' paired
changes have a standard deviation of 0.0031 and 0.0040 (the bootstrap's half-widths / 1.96 agree: 0.0032, 0.0040),
so a score as good as the baseline's passes 0.01 with a chance of about Phi(0.01 / sd - 1.96), 0.85 and 0.80, and
both about 0.70; the rate disparities' (sd 0.0018-0.0024), the AUCs' (0.0003-0.0005) and the ECEs' (0.0008-0.0010)
pass every time. A ratio of rates moves about 1 / r times as much as their difference at rate r, so the ratio scores'
tolerance is twice the differences' (``_review.change_levels.change_tolerance``): 0.02 is five of their standard
deviations, as 0.01 is of the disparities'. At 10^4 rows every standard deviation is about three times larger, and
most equal candidates stay inconclusive at the default.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
import time
from collections import Counter

import numpy as np
import pandas as pd

import fairness_core as fc
from fairness_core._review.change_levels import change_tolerance

SHARES = [0.5, 0.3, 0.15, 0.05]
SHIFTS = [0.0, 0.4, -0.3, 0.6]   # a fifth subgroup and more repeat them


def equal_candidates(n: int, seed: int, own: float = 0.5, worse: float = 0.0) -> pd.DataFrame:
    """A data set with a baseline score m1 and a candidate m2 as good as it, their noise's own part of sd `own`; with
    `worse`, m2's scores in subgroup B are shifted up by `worse` on the logit scale."""
    rng = np.random.default_rng(seed)
    group = rng.choice(len(SHARES), n, p=SHARES)
    shift = np.asarray(SHIFTS)[group]
    x = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-(1.5 * x - 0.5 + shift)))).astype(int)
    shared = rng.normal(0, np.sqrt(0.5 ** 2 - own ** 2), n)
    scores = {m: 1 / (1 + np.exp(-(1.5 * (x + shared + rng.normal(0, own, n)) - 0.5 + shift
                                   + (worse * (group == 1) if m == "m2" else 0.0))))
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


def population_changes(worse: float, rows: int = 1_000_000) -> dict:
    """Every change's value (worsening) on `rows` rows whose models share all their noise, m2 shifted by `worse`."""
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("m1", "m2"), protected=("g",))
    review = fc.build_review(equal_candidates(rows, 999, 0.0, worse),
                             fc.ReviewConfig(mapping=mapping, ci=None, baseline="m1"))
    return {(c.quantity, c.subgroup): c.worsening for c in review.changes}


def worse_shift(target: float) -> tuple[float, dict]:
    """The shift of m2's logits in subgroup B that worsens its false positive rate disparity by `target` in the
    population (bisection), and every change's population worsening at it."""
    low, high = 0.0, 2.0
    for _ in range(30):
        mid = (low + high) / 2
        if population_changes(mid)[("false_positive_rate", None)] < target:
            low = mid
        else:
            high = mid
        if high - low < 2e-3:
            break
    shift = (low + high) / 2
    return shift, population_changes(shift)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--tolerance", type=float, default=0.01)
    parser.add_argument("--own", default="0.15,0.5", help="sd of each model's own noise, d (at most 0.5)")
    parser.add_argument("--shares", default=",".join(map(str, SHARES)),
                        help="the subgroups' shares of the rows (their shifts: 0, 0.4, -0.3, 0.6, ...)")
    parser.add_argument("--worse", action="store_true",
                        help="a candidate worse by twice the tolerance in B's false positive rate disparity")
    parser.add_argument("--json", help="append the rows measured to this JSON file (a list of records)")
    args = parser.parse_args(argv)
    SHARES[:] = [float(x) for x in args.shares.split(",")]
    SHIFTS[:] = (SHIFTS * len(SHARES))[:len(SHARES)]
    shift = 0.0
    if args.worse:
        shift, truth = worse_shift(2 * args.tolerance)
        shown = ", ".join(f"{q}{'' if g is None else ' of ' + str(g)} {w:+.4f}" for (q, g), w in truth.items()
                          if abs(w) >= 0.001)
        print(f"Worse candidate: logit shift {shift:.3f} in B; population changes (|worsening| >= 0.001): {shown}")
    print(f"Subgroups' shares {SHARES}, tolerance {args.tolerance:g} (ratio scores "
          f"{change_tolerance('p_percent_score', args.tolerance):g}), n_boot {args.n_boot}; fairness_core "
          f"{fc.__version__} from {Path(fc.__file__).parent}\n")
    records = []
    print("| rows | d | score correlation | data sets | gate passes % | inconclusive % | fails % | "
          "changes judged per data set | changes passing % | changes failing % |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, own in itertools.product((int(s) for s in args.sizes.split(",")), (float(d) for d in args.own.split(","))):
        overall, changes, started, corr = Counter(), Counter(), time.perf_counter(), []
        for seed in range(args.runs):
            frame = equal_candidates(n, seed, own, shift)
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
        records.append({"shares": list(SHARES), "rows": n, "own": own, "tolerance": args.tolerance,
                        "ratio_tolerance": change_tolerance("p_percent_score", args.tolerance),
                        "date": time.strftime("%Y-%m-%d", time.gmtime()),
                        "candidate": "worse" if args.worse else "equal", "shift": shift, "runs": args.runs,
                        "n_boot": args.n_boot, "score_correlation": float(np.mean(corr)),
                        "passes": overall["pass"] / args.runs, "inconclusive": overall["inconclusive"] / args.runs,
                        "fails": overall["fail"] / args.runs, "changes_per_data_set": total / args.runs,
                        "changes_passing": changes["pass"] / total, "changes_failing": changes["fail"] / total})
    if args.json:
        path = Path(args.json)
        old = json.loads(path.read_text()) if path.exists() else []
        path.write_text(json.dumps(old + records, indent=1) + "\n")


if __name__ == "__main__":
    main()
