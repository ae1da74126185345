"""Benchmark: the cost of sample weights. The same review with and without a weight column, at 10^6 rows.

    python benchmarks/weights.py [--rows 1000000] [--repeats 3] [--out benchmarks/results-weights.json] [--quick]

One seeded data set (``run.make_data``: race x sex and 4 identity columns, a probability score, a
predicted label) with a column of log-normal weights (sigma 0.5). Each step runs unweighted and weighted,
interleaved, ``--repeats`` times, in this process; the medians of CPU seconds (every thread) and wall
seconds are reported with the ratio weighted / unweighted (the issue's target: 1.5). The steps:

1. the count tables of one score (threshold counts, AUC counts, calibration counts) and the label counts;
2. the review without intervals (``build_review``, ``ci=None``): every number every page shows;
3. the review with intervals (``ci=0.95``, 1,000 replicates): every interval and verdict.

Before it reports it checks the weighted review against the unweighted one with unit weights (equal
numbers), so the two paths compute the same thing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fairness_core as fc  # noqa: E402
from run import make_data  # noqa: E402

TARGET = 1.5


def _mapping(weight):
    return fc.ColumnMapping(label="y", positive_label=1, scores=("score",), predicted_label="pred",
                            protected=("race", "sex"), indicators=("id_00", "id_01", "id_02", "id_03"), weight=weight)


def _steps(frame):
    """name -> {"unweighted": call, "weighted": call}."""
    def counts(weight):
        def call():
            scored = fc.ScoredData.from_frame(frame, _mapping(weight))
            w, y, s, g = scored.weights, scored.y_true, scored.scores["score"], scored.subgroups
            fc.threshold_counts(y, s, g, sample_weight=w).at(0.5)
            fc.auc_counts(y, s, g, sample_weight=w).table()
            fc.calibration_counts(y, s, g, sample_weight=w).error_table()
            fc.confusion_counts(y, y, g, sample_weight=w)
        return call

    def review(weight, ci):
        return lambda: fc.build_review(frame, fc.ReviewConfig(mapping=_mapping(weight), ci=ci))

    return {"count tables of one score": {"unweighted": counts(None), "weighted": counts("w")},
            "review without intervals": {"unweighted": review(None, None), "weighted": review("w", None)},
            "review with intervals (1,000 replicates)": {"unweighted": review(None, 0.95),
                                                         "weighted": review("w", 0.95)}}


def _check(frame) -> None:
    """Unit weights give the unweighted review's numbers (the weighted path computes the same thing)."""
    plain = fc.build_review(frame, fc.ReviewConfig(mapping=_mapping(None), ci=None))
    unit = fc.build_review(frame.assign(w=1.0), fc.ReviewConfig(mapping=_mapping("w"), ci=None))
    for a, b in zip(plain.models, unit.models):
        np.testing.assert_allclose(a.rate_table["selection_rate"], b.rate_table["selection_rate"], rtol=1e-12)
        if a.bias_auc is not None:
            assert abs(a.bias_auc.value - b.bias_auc.value) < 1e-12


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(Path(__file__).with_name("results-weights.json")))
    parser.add_argument("--quick", action="store_true", help="20,000 rows, one repeat (the smoke test)")
    args = parser.parse_args(argv)
    rows, repeats = (20_000, 1) if args.quick else (args.rows, args.repeats)
    frame = make_data(rows, n_identity=4)
    frame["w"] = np.random.default_rng(1).lognormal(0.0, 0.5, rows)
    _check(frame.iloc[: min(rows, 50_000)])
    results = []
    for name, calls in _steps(frame).items():
        runs = {kind: [] for kind in calls}
        for _ in range(repeats):
            for kind, call in calls.items():   # interleaved
                cpu, wall = time.process_time(), time.perf_counter()
                call()
                runs[kind].append((time.process_time() - cpu, time.perf_counter() - wall))
        med = {kind: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs))
               for kind, rs in runs.items()}
        ratio = med["weighted"][0] / med["unweighted"][0]
        results.append({"step": name, "unweighted_cpu_s": med["unweighted"][0], "unweighted_wall_s": med["unweighted"][1],
                        "weighted_cpu_s": med["weighted"][0], "weighted_wall_s": med["weighted"][1],
                        "ratio_cpu": ratio, "ratio_wall": med["weighted"][1] / med["unweighted"][1],
                        "within_target": ratio <= TARGET})
        print(f"{name:45s} unweighted {med['unweighted'][0]:6.2f} CPU-s {med['unweighted'][1]:6.2f} s   "
              f"weighted {med['weighted'][0]:6.2f} CPU-s {med['weighted'][1]:6.2f} s   ratio {ratio:4.2f}x", flush=True)
    report = {"rows": rows, "repeats": repeats, "quick": args.quick, "target_ratio": TARGET,
              "load_average": list(__import__("os").getloadavg()), "steps": results}
    if not args.quick:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n")
    else:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
