"""Benchmark: intervals on every metric at 10^6 rows and 1,000 bootstrap replicates.

For each metric, `fairness_core` is called once with ``ci=0.95, n_boot=1000`` (counting the rows
and resampling their sufficient statistics) and compared with the reference way of bootstrapping
a fairness metric, the one Fairlearn's ``MetricFrame(n_boot=...)`` and most notebooks use:
resample the *rows* (here stratified by subgroup, as ours is) and recompute the metric on each
resample. The reference runs the same library's point estimate (``ci=None``) on each resampled
row set, so the ratio isolates the cost of resampling rows instead of counts. It is timed on
``--ref-boot`` replicates and scaled to ``--boot`` (its cost is linear in the replicates).
With ``fairlearn`` installed, Fairlearn's own ``MetricFrame(n_boot=...)`` is timed the same way
for the false positive rate.

Reported: our seconds, the reference's (scaled) seconds, their ratio, and our peak memory from
``tracemalloc`` (numpy allocations). Nothing is asserted: run it and read the table.

    .venv/bin/python benchmarks/intervals.py            # 10^6 rows, 1,000 replicates
    .venv/bin/python benchmarks/intervals.py --rows 100000 --ref-boot 10
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fairness_core as fc  # noqa: E402


def make_data(n: int, seed: int = 0) -> pd.DataFrame:
    """n rows: 16 subgroups (4 x 4 attribute values, sizes from 0.4 % to 20 %), a probability score
    with subgroup offsets, labels drawn from it, a 0.5 threshold and a three-class label."""
    rng = np.random.default_rng(seed)
    a = rng.choice(list("ABCD"), size=n, p=[0.5, 0.3, 0.15, 0.05])
    b = rng.choice(["w", "x", "y", "z"], size=n, p=[0.4, 0.3, 0.2, 0.1])
    offset = (pd.Series(a).map({"A": 0.0, "B": 0.3, "C": -0.2, "D": 0.5}).to_numpy()
              + pd.Series(b).map({"w": 0.0, "x": -0.1, "y": 0.2, "z": 0.1}).to_numpy())
    logit = rng.normal(offset, 1.2)
    prob = 1 / (1 + np.exp(-logit))
    y = (rng.random(n) < 1 / (1 + np.exp(-(logit + rng.normal(0, 0.8, n))))).astype(int)
    cls = np.digitize(logit, [-0.5, 0.7])
    cls_pred = np.digitize(logit + rng.normal(0, 0.7, n), [-0.5, 0.7])
    return pd.DataFrame({"a": a, "b": b, "y": y, "prob": prob, "pred": (prob >= 0.5).astype(int),
                         "cls": cls, "cls_pred": cls_pred})


def metrics(frame: pd.DataFrame, groups: fc.Subgroups):
    """(name, call) pairs: call(rows, ci) computes the metric on the rows `rows` of frame (None: all)."""
    def pick(rows, col):
        values = frame[col].to_numpy()
        return values if rows is None else values[rows]

    def sub(rows):
        return groups if rows is None else fc.Subgroups(groups.names, groups.membership[rows],
                                                        groups.background[rows], groups.min_size,
                                                        None if groups.codes is None else groups.codes[rows])

    def counts(rows):
        return fc.confusion_counts(pick(rows, "y"), pick(rows, "pred"), sub(rows))

    return [
        ("false positive rate disparity (max, diff)", lambda rows, ci: fc.rate_disparity(
            pick(rows, "y"), pick(rows, "pred"), sub(rows), metric="false_positive_rate", reduction="max", ci=ci)),
        ("equalized odds (max, ratio)", lambda rows, ci: fc.equalized_odds(
            pick(rows, "y"), pick(rows, "pred"), sub(rows), distance_measure="ratio", reduction="max", ci=ci)),
        ("p% score (min over subgroups)", lambda rows, ci: counts(rows).ratio_scores("selection_rate", ci=ci)),
        ("Theil index (mean)", lambda rows, ci: fc.theil_index(pick(rows, "y"), pick(rows, "pred"), sub(rows), ci=ci)),
        ("bias AUC score (AUCs, power means)", lambda rows, ci: fc.summarize_bias_auc(fc.bias_auc_table(
            pick(rows, "y"), pick(rows, "prob"), sub(rows), ci=ci))),
        ("ECE disparity (max)", lambda rows, ci: fc.calibration_disparity(
            pick(rows, "y"), pick(rows, "prob"), sub(rows), ci=ci)),
        ("unweighted average bias (3 classes)", lambda rows, ci: fc.unweighted_average_bias(
            pick(rows, "cls"), pick(rows, "cls_pred"), sub(rows), ci=ci)),
        ("dataset statistical parity (mean)", lambda rows, ci: fc.dataset_statistical_parity(
            pick(rows, "y"), sub(rows), ci=ci)),
        ("smoothed EDF", lambda rows, ci: fc.smoothed_edf(pick(rows, "y"), sub(rows), ci=ci)),
    ]


def stratified_rows(codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Row indices of one resample with replacement within each subgroup (disjoint `codes`)."""
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    sorted_codes = codes[order]
    draw = starts[sorted_codes] + np.floor(rng.random(len(codes)) * sizes[sorted_codes]).astype(np.intp)
    return order[draw]


def timed(call, *args):
    start = time.perf_counter()
    call(*args)
    return time.perf_counter() - start


def peak_memory(call, *args) -> float:
    tracemalloc.start()
    call(*args)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2 ** 20


def fairlearn_reference(frame: pd.DataFrame, n_boot: int):
    """Seconds of Fairlearn's MetricFrame(n_boot=...) on the false positive rate, or None without fairlearn."""
    try:
        from fairlearn.metrics import MetricFrame, false_positive_rate
    except ImportError:
        return None
    sensitive = frame["a"] + "|" + frame["b"]
    start = time.perf_counter()
    MetricFrame(metrics=false_positive_rate, y_true=frame["y"], y_pred=frame["pred"], sensitive_features=sensitive,
                n_boot=n_boot, ci_quantiles=[0.025, 0.975], random_state=0)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--boot", type=int, default=1000)
    parser.add_argument("--ref-boot", type=int, default=5, help="replicates the row bootstrap is timed on")
    args = parser.parse_args()

    frame = make_data(args.rows)
    groups = fc.Subgroups.from_attributes(frame, ["a", "b"], intersect=True, min_size=30)
    rng = np.random.default_rng(1)
    print(f"{args.rows:,} rows, {len(groups.names)} subgroups, {args.boot:,} replicates "
          f"(row bootstrap timed on {args.ref_boot} and scaled)\n")
    print("| metric | ours (s) | row bootstrap (s, scaled) | ratio | our peak memory (MiB) |")
    print("|---|---:|---:|---:|---:|")
    for name, call in metrics(frame, groups):
        call(None, 0.95)  # warm-up (imports, caches)
        ours = timed(lambda: call(None, 0.95))
        memory = peak_memory(lambda: call(None, 0.95))
        per = np.mean([timed(lambda: call(stratified_rows(groups.codes, rng), None)) for _ in range(args.ref_boot)])
        reference = per * args.boot
        print(f"| {name} | {ours:.2f} | {reference:.1f} | {reference / ours:.0f}x | {memory:.0f} |", flush=True)
    fairlearn = fairlearn_reference(frame, args.ref_boot)
    if fairlearn is not None:
        ours = timed(lambda: metrics(frame, groups)[0][1](None, 0.95))
        scaled = fairlearn / args.ref_boot * args.boot
        print(f"\nFairlearn MetricFrame(n_boot) on the false positive rate per subgroup: {scaled:.1f} s scaled to "
              f"{args.boot:,} replicates; ours (disparity with every interval) {ours:.2f} s: {scaled / ours:.0f}x.")


if __name__ == "__main__":
    main()
