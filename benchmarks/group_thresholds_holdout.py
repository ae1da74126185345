"""Per-subgroup thresholds on rows they were not fitted on, against Fairlearn's ThresholdOptimizer.

    .venv/bin/python benchmarks/group_thresholds_holdout.py                 # 20 halvings per data set
    .venv/bin/python benchmarks/group_thresholds_holdout.py --halvings 5
    .venv-bench/bin/python benchmarks/group_thresholds_holdout.py --json benchmarks/results-group-thresholds.json

For each data set and constraint (demographic parity, equal opportunity, equalized odds; tolerance 0.05), 20 random
halvings: ``fc.group_thresholds`` is fitted on one half and judged on the other: the largest difference between two
subgroups' constrained rates there (the held-out gap), whether it is within the tolerance, and the balanced accuracy
of all held-out rows. Beside it, Fairlearn's ``ThresholdOptimizer`` (the same objective and constraint, its
randomised thresholds fitted on the same half, predictions with a fixed seed) on the same held-out half. Printed:
the share of halvings whose held-out gap is within the tolerance, the mean held-out gap, the gap
``group_thresholds`` said to expect on new rows (its ``expected_gap``, the 80th percentile), and the mean balanced
accuracy of each. The goal is the held-out gap within the tolerance in at least 80 % of halvings, and a
balanced accuracy no worse than Fairlearn's minus 0.01.

Data sets (the project's own sample and two of ``../shared/data`` or ``$FAIRNESS_TEST_DATA``): the credit sample's
``score_logistic`` by ``sex``; COMPAS's ``decile_score / 10`` by ``sex`` (all 7,214 rows); the law school data's
``LSAT`` (scaled to [0, 1]) predicting the first-year pass, by ``sex``; then two with three or four smaller subgroups
(the credit sample by ``age_group``, COMPAS by ``age_cat``), where keeping 0.05 on new rows with four chances in
five costs much of the balanced accuracy or cannot be done, and ``group_thresholds`` says so (``kept`` False, its
``expected_gap``). The column "kept" counts the halvings in which it could. ``--json`` writes the rows, with
``accepted`` (both goals met), to a results file (``benchmarks/results-group-thresholds.json``).

Last run (2026-12-08, 2 vCPU, 20 halvings, Fairlearn 0.14): the goals are met on the credit sample by sex
(demographic parity, equal opportunity), COMPAS by sex (equal opportunity) and the law school data by sex
(demographic parity, equal opportunity); not for equalized odds anywhere (the held-out gap is kept in 85-95 % of
halvings, but deterministic thresholds reach a balanced accuracy 0.02-0.08 below Fairlearn's randomised ones,
which mix two thresholds per subgroup), nor for COMPAS's demographic parity by sex (ten score levels: no pair of
deterministic thresholds leaves room for the sampling error in most halvings; within in 65 %), nor on the
smaller subgroups. The margins' z is the smallest of a ladder whose thresholds keep the tolerance in the
simulation of new rows (Bonferroni's z over the pairs before): the law school's equalized odds 0.6281 -> 0.6405,
the credit sample's by age group kept in 100 % of halvings (was 0 %, within 0 % -> 85 %), at a balanced accuracy
of 0.52 (was 0.66): the price of keeping the tolerance on subgroups of a few hundred rows; COMPAS's equalized odds
by sex kept in 85 % (was 15 %), within 85 % (was 95 %, mostly with thresholds fitted to the rows alone, whose
simulated gap of 0.070 said they would not keep it) at 0.5667 (was 0.6325).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fairness_core as fc  # noqa: E402
from fairness_core._review.group_thresholds import CONSTRAINTS as GROUP_CONSTRAINTS  # noqa: E402

DATA = Path(os.environ.get("FAIRNESS_TEST_DATA", ROOT.parent / "shared" / "data"))
CONSTRAINTS = {"demographic_parity": "demographic_parity", "equal_opportunity": "true_positive_rate_parity",
               "equalized_odds": "equalized_odds"}
TOLERANCE = 0.05


def datasets() -> dict:
    """name -> (labels, scores, groups) of each data set."""
    credit = pd.read_csv(ROOT / "sample_data" / "credit_decisions.csv")
    compas = pd.read_csv(DATA / "compas" / "compas-scores-two-years.csv")
    law = pd.read_csv(DATA / "law_school" / "law_data.csv")
    lsat = law["LSAT"].to_numpy(dtype=float)
    def groups(column):
        return column.fillna("(missing)").astype(str).to_numpy(dtype=object)

    credit_y, credit_s = credit["repaid"].to_numpy(), credit["score_logistic"].to_numpy()
    compas_y, compas_s = compas["two_year_recid"].to_numpy(), compas["decile_score"].to_numpy() / 10.0
    data = {
        "credit sample (sex)": (credit_y, credit_s, groups(credit["sex"])),
        "COMPAS (sex)": (compas_y, compas_s, groups(compas["sex"])),
        "law school (sex)": (law["first_pf"].to_numpy(), (lsat - lsat.min()) / (lsat.max() - lsat.min()),
                             groups(law["sex"])),
        # smaller subgroups: three or four of 300-2,000 rows in a half
        "credit sample (age_group)": (credit_y, credit_s, groups(credit["age_group"])),
        "COMPAS (age_cat)": (compas_y, compas_s, groups(compas["age_cat"])),
    }
    # rows without a group (the credit sample leaves some out) have no threshold of their own: left out
    return {name: tuple(x[g != "(missing)"] for x in (y, s, g)) for name, (y, s, g) in data.items()}


def rates(y, pred, g, names) -> dict:
    """Selection rate, TPR and FPR of each subgroup."""
    out = {"selection_rate": [], "true_positive_rate": [], "false_positive_rate": []}
    for name in names:
        m = g == name
        out["selection_rate"].append(pred[m].mean())
        out["true_positive_rate"].append(pred[m & (y == 1)].mean() if (m & (y == 1)).any() else np.nan)
        out["false_positive_rate"].append(pred[m & (y == 0)].mean() if (m & (y == 0)).any() else np.nan)
    return {k: np.array(v) for k, v in out.items()}


def gap(y, pred, g, names, constraint) -> float:
    """The largest difference between two subgroups' constrained rates."""
    r = rates(y, pred, g, names)
    return float(max(np.nanmax(r[c]) - np.nanmin(r[c]) for c in GROUP_CONSTRAINTS[constraint]))


def balanced_accuracy(y, pred) -> float:
    from sklearn.metrics import balanced_accuracy_score

    return float(balanced_accuracy_score(y, pred))


def _scores_estimator():
    """A fitted 'estimator' whose predictions are the score column itself (for Fairlearn's prefit mode)."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Scores(BaseEstimator, ClassifierMixin):
        def fit(self, X, y):
            return self

        def predict(self, X):
            return np.asarray(X)[:, 0]

    return Scores()


def fairlearn_predictions(y, s, g, fit, held, constraint, seed) -> np.ndarray:
    from fairlearn.postprocessing import ThresholdOptimizer

    optimizer = ThresholdOptimizer(estimator=_scores_estimator(), constraints=CONSTRAINTS[constraint],
                                   objective="balanced_accuracy_score", prefit=True, predict_method="predict")
    import warnings

    with warnings.catch_warnings():   # Fairlearn's own warnings, not ours
        warnings.simplefilter("ignore")
        optimizer.fit(pd.DataFrame({"s": s[fit]}), y[fit], sensitive_features=g[fit])
        return np.asarray(optimizer.predict(pd.DataFrame({"s": s[held]}), sensitive_features=g[held],
                                            random_state=seed)).astype(int)


def run(halvings: int) -> list[dict]:
    out = []
    for name, (y, s, g) in datasets().items():
        names = sorted(set(g))
        for constraint in CONSTRAINTS:
            rng = np.random.default_rng(0)
            row = {"data": name, "constraint": constraint, "within": 0, "gaps": [], "expected": [], "ba": [],
                   "fl_within": 0, "fl_gaps": [], "fl_ba": [], "kept": 0}
            for i in range(halvings):
                fit = rng.random(len(y)) < 0.5
                held = ~fit
                found = fc.group_thresholds(fc.threshold_counts(y[fit], s[fit], g[fit]), constraint,
                                            tolerance=TOLERANCE)
                if not found.thresholds:
                    continue
                t = np.array([found.thresholds[x] for x in g[held]])
                pred = (s[held] >= t).astype(int)
                row["gaps"].append(gap(y[held], pred, g[held], names, constraint))
                row["within"] += row["gaps"][-1] <= TOLERANCE + 1e-12
                row["expected"].append(found.expected_gap)
                row["kept"] += found.kept
                row["ba"].append(balanced_accuracy(y[held], pred))
                fl = fairlearn_predictions(y, s, g, fit, held, constraint, i)
                row["fl_gaps"].append(gap(y[held], fl, g[held], names, constraint))
                row["fl_within"] += row["fl_gaps"][-1] <= TOLERANCE + 1e-12
                row["fl_ba"].append(balanced_accuracy(y[held], fl))
            row["n"] = len(row["gaps"])
            out.append(row)
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--halvings", type=int, default=20)
    parser.add_argument("--json", help="write the rows measured to this JSON file")
    args = parser.parse_args(argv)
    records = []
    print(f"Tolerance {TOLERANCE}; {args.halvings} random halvings each (fit on one half, judged on the other).")
    print("| data | constraint | kept | within the tolerance held out | mean held-out gap | expected gap (80 %) "
          "| balanced accuracy | Fairlearn: within | Fairlearn: mean gap | Fairlearn: balanced accuracy |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in run(args.halvings):
        n = max(r["n"], 1)
        records.append({"data": r["data"], "constraint": r["constraint"], "tolerance": TOLERANCE, "halvings": r["n"],
                        "kept": r["kept"] / n, "within": r["within"] / n, "mean_gap": float(np.mean(r["gaps"])),
                        "expected_gap": float(np.nanmean(r["expected"])) if r["expected"] else None,
                        "balanced_accuracy": float(np.mean(r["ba"])), "fairlearn_within": r["fl_within"] / n,
                        "fairlearn_mean_gap": float(np.mean(r["fl_gaps"])),
                        "fairlearn_balanced_accuracy": float(np.mean(r["fl_ba"])),
                        "accepted": bool(r["within"] / n >= 0.8
                                         and np.mean(r["ba"]) >= np.mean(r["fl_ba"]) - 0.01)})
        print(f"| {r['data']} | {r['constraint']} | {100 * r['kept'] / n:.0f} % | {100 * r['within'] / n:.0f} % "
              f"| {np.mean(r['gaps']):.3f} "
              f"| {np.nanmean(r['expected']) if r['expected'] else float('nan'):.3f} | {np.mean(r['ba']):.4f} "
              f"| {100 * r['fl_within'] / n:.0f} % | {np.mean(r['fl_gaps']):.3f} | {np.mean(r['fl_ba']):.4f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"halvings": args.halvings, "tolerance": TOLERANCE,
                                               "fairness_core": fc.__version__, "rows": records}, indent=1) + "\n")


if __name__ == "__main__":
    main()
