# More than 500 lines: one concept (the coverage simulation: its settings, truths, intervals checked and report are read together).
"""Coverage of every interval the app shows, and error rates of its policy verdicts, by simulation.

    .venv/bin/python benchmarks/coverage.py                          # 7 settings x 300 data sets, n_boot 500
    .venv/bin/python benchmarks/coverage.py --out docs/coverage.md --json fairness_dashboard/measured_coverage.json   # + files
    .venv/bin/python benchmarks/coverage.py --quick                  # 20 data sets per setting (a smoke run)
    .venv/bin/python benchmarks/coverage.py --json-from docs/coverage.md   # only the app's table, from the report

Options: ``--datasets`` (per setting, default 300), ``--n-boot`` (bootstrap replicates of every
interval, default 500), ``--rows`` (rows per data set, default 2,000), ``--settings`` (a comma
list of the names below), ``--processes`` (default 2), ``--truth-rows`` (rows of the sample the
truth is checked against, default 10^6), ``--margin`` (see verdicts), ``--seed``, ``--out``.

What it does (the goal: "every interval the product shows covers 93-97 % at its
nominal 95 %, with misses on both sides"). Seven generating models, each known exactly:

1. ``disjoint``: four disjoint groups A, B, C, D (45, 32, 20, 3 % of rows; D has ~60 of 2,000),
   no true disparity: label ~ Bernoulli(0.4), score | label ~ Beta (the same in every group), a
   three-class label and its prediction (the same confusion in every group).
2. ``disparity``: the same groups with true disparities: D's false positive rate 0.15 higher, B's
   true positive rate lower, C's base rate 0.28; D's three-class predictions worse.
3. ``indicators``: four overlapping identity indicator columns (``Subgroups.from_indicators``),
   independent, prevalences 25, 12, 6 and 3 %; base rate, TPR and FPR shifted by membership.
4. ``calibrated``: four disjoint groups, score ~ Beta (different per group), label ~
   Bernoulli(score): every group is perfectly calibrated (every true ECE is 0).
5. ``miscalibrated``: as 4, but group C's labels ~ Bernoulli(expit(logit(score) + 0.6)).
6. ``identities``: 30 overlapping identity columns, madlibs-like (a row names none, one or two identities;
   prevalences about 1.6-7 %, the rarest ~30 of 2,000 rows; 466 patterns, a few hundred in a data set: the
   bootstrap then reweights buckets of rows, ``_stats.bootstrap``); the ``indicators`` law through four of
   the columns. Its truth sums the few laws' masses by the shares of each subgroup's patterns. Measured:
   rates, performance, disparities, Theil, AUCs, calibration, labels and adjusted comparisons (the model
   comparisons and correlation need a truth per pattern, class-wise bias a three-class label).
7. ``weighted``: the ``disparity`` population sampled with a known bias (group D's rows kept 4 times as often as
   the others', negatives 0.6 times as often as positives: D is about 11 % of the sample, its base rate higher)
   and weighted back (each row's weight 1 / its inclusion probability, ``sample_weight=`` on every call): the
   truth is the population's, so an unweighted analysis of these samples would miss it. Every family but
   consistency (whose truth is its value over the data set's own rows).

Predictions are ``score >= 0.5``. The truth of every quantity is computed from the model, not
from data: each membership pattern's joint distribution of (label, score) is integrated on a
grid of 10^5 score cells (Beta CDFs; a calibration curve at the cell midpoints), and every rate,
ℓ2 ECE, Brier score, AUC (subgroup, BPSN, BNSP, overall), power mean, Theil index, base rate,
smoothed EDF and class-wise F-score is computed from those masses with the library's
definitions. That truth is checked against the library's own point estimates on one sample of
``--truth-rows`` rows of the same model (reported in the header).

Then ``--datasets`` seeded data sets of ``--rows`` rows per setting; on each, every interval the
app shows is computed through the public API with ``ci=0.95`` (reference ``"rest"``, small
subgroups left out of reductions, seed 0, as the app does), and each interval is checked against
the truth. A reduction's truth is the same reduction of the true values over the comparisons the
estimate reduced (those not small and defined in that data set). A per-comparison disparity's
interval is the one shown: its low end is parity where parity is not excluded. Reductions: 'max'
for every disparity, 'mean' for the differences only (a ratio's mean is left out to save time).
Two more families: the differences between two models on the same rows (the score at 0.5 and at
0.6, ``compare_models``' paired bootstrap; the truth of the second model is the same grid with the
other threshold), and the correlation score of the predictions with a numeric attribute x | pattern
~ Normal(membership · (0.4, -0.3, 0.2, 0.6), 1) (its truth from the patterns' selection rates).
Then the AUC (paired DeLong) and ECE (paired bootstrap) differences from a second probability score,
score ** gamma with an exponent per membership pattern (the same ranking within a pattern, another
one across patterns, another calibration), its truth from each pattern's masses at the transformed
values.

Class-wise bias as its page shows it: recall, precision and F-score per subgroup and class, and each
reduction (std over subgroups; the signed and the absolute difference of the two largest subgroups,
the page's default pair, and of the largest and the small one) per class and averaged.
The comparison tables with a multiple-comparison adjustment, as each adjustment claims: Bonferroni's
intervals (Holm shows them too) hold every comparison's truth at once ("all comparisons at once":
one interval per data set, covered when every comparison's is), Benjamini-Hochberg's false-coverage
intervals among the starred comparisons (1 - false coverage rate: per data set the share of its starred
intervals that hold their truth, 1 with no star, averaged over data sets; a weighted row, its count in
data sets) and over every comparison. Rate disparities against the other references the page offers:
all rows ("overall") and the largest subgroup, by name (selection rate, FPR and FNR). Consistency on a
sample of 200 of the 2,000 rows, ± 1.96 standard errors, against its value over every row of the
data set (a finite population, as the Dataset metrics page states it).

Reported per quantity: coverage (share of intervals that contain the truth) with its binomial
standard error over the intervals pooled, and the shares of misses above (the interval entirely
above the truth) and below. Per policy rule (``fc.DEFAULT_RULES``, the Rate disparities page's
difference rules ``fc.rate_rules``, the calibration rule, ``fc.dataset_rule``): the verdicts'
shares and their errors: 'fail' where the truth passes by at least ``--margin`` (in the rule's
units), 'pass' where the truth fails.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import multiprocessing
import os
import platform
import re
import subprocess
import sys
import time
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import special, stats

ROOT = Path(__file__).resolve().parents[1]
MEASURED = ROOT / "fairness_dashboard" / "measured_coverage.json"   # the table the app's interval notes read
sys.path.insert(0, str(ROOT))

import fairness_core as fc  # noqa: E402

# --all-buckets: every bootstrap of counts of rows reweights BUCKETS buckets of rows, whatever the patterns: the
# law of the engines' per-bucket tables (fairness_core/engines/_bucket_atoms.py, rows dealt by a hash of their
# position) measured in memory, where the rows are dealt at random. Set in the environment, so the workers see it.
ALL_BUCKETS = "FAIRNESS_COVERAGE_ALL_BUCKETS"
if os.environ.get(ALL_BUCKETS):
    from fairness_core._stats import bootstrap as _bootstrap

    _bootstrap.BUCKET_PATTERNS = 0

LEVEL = 0.95
GRID = 100_000                      # score cells of the truth; 0.5 and every bin edge k/10 are cell edges
EDGES = np.arange(GRID + 1) / GRID
MID = (EDGES[:-1] + EDGES[1:]) / 2
HIGH = MID >= 0.5                   # predicted positive
N_BINS = 10                         # calibration bins (uniform), as the app's default
TOL = 1e-9                          # an end within this of the truth counts as containing it
ZERO = 1e-12                        # a true ECE or MCE below this is 0 (rounding of a calibrated population)

# Rate disparity metrics (rate_disparity's names) and the rate each compares.
METRICS = {"statistical_parity": "selection_rate", "true_positive_rate": "true_positive_rate",
           "false_positive_rate": "false_positive_rate", "false_negative_rate": "false_negative_rate",
           "false_omission_rate": "false_omission_rate", "false_discovery_rate": "false_discovery_rate",
           "error_rate": "error_rate"}
RATES = tuple(METRICS.values())
SHORT = {"selection_rate": "selection rate", "true_positive_rate": "TPR", "false_positive_rate": "FPR",
         "false_negative_rate": "FNR", "false_omission_rate": "FOR", "false_discovery_rate": "FDR",
         "error_rate": "error rate"}
# (numerator cells, denominator cells) of each rate, as fairness_core defines them.
RATE_CELLS = {"selection_rate": ("tp fp", "tn fp fn tp"), "true_positive_rate": ("tp", "tp fn"),
              "false_positive_rate": ("fp", "fp tn"), "false_negative_rate": ("fn", "fn tp"),
              "false_omission_rate": ("fn", "fn tn"), "false_discovery_rate": ("fp", "fp tp"),
              "error_rate": ("fp fn", "tn fp fn tp")}
CLASS_METRICS = ("recall", "precision", "fscore")
# The class-wise page's reductions (rows of the report) and the subgroup pairs a difference is measured on.
CLASS_REDUCTIONS = {"std": "std", "difference": "signed difference", "absolute_difference": "absolute difference"}
PAIRS = {"two largest": ("A", "B"), "with the small subgroup": ("A", "D")}
FAMILIES = ("rates", "performance", "disparities", "scores", "theil", "aucs", "calibration", "labels", "classwise",
            "models", "adjusted", "references", "consistency")


# =====================================================================================================
# Generating models
# =====================================================================================================

@dataclass(frozen=True)
class Model:
    """A generating model: membership patterns, each with its share of rows and its (label, score) law.

    ``kind="label"``: label ~ Bernoulli(base), score | label ~ Beta(pos) or Beta(neg).
    ``kind="score"``: score ~ Beta(beta), label ~ Bernoulli(expit(slope * logit(score) + shift)).
    ``classes`` (P, 3) and ``confusion`` (P, 3, 3): a three-class label and its prediction (optional).
    """

    name: str
    title: str
    subgroups: tuple
    member: np.ndarray          # (P, K) bool
    share: np.ndarray           # (P,)
    kind: str
    small: str                  # the small subgroup (about 3 % of rows)
    disjoint: bool
    base: np.ndarray = None     # (P,)
    pos: np.ndarray = None      # (P, 2)
    neg: np.ndarray = None      # (P, 2)
    beta: np.ndarray = None     # (P, 2)
    slope: np.ndarray = None    # (P,)
    shift: np.ndarray = None    # (P,)
    classes: np.ndarray = None
    confusion: np.ndarray = None
    families: tuple = None      # the families this setting measures (None: every one)
    inclusion: np.ndarray = None  # (P, 2): a biased sample's inclusion probability of a negative / positive row


GROUPS = ("A", "B", "C", "D")
GROUP_SHARE = np.array([0.45, 0.32, 0.20, 0.03])


def _confusion(diagonal: float) -> np.ndarray:
    c = np.full((3, 3), (1.0 - diagonal) / 2)
    np.fill_diagonal(c, diagonal)
    return c


def _beta_a_for_tail(b: float, tail: float) -> float:
    """The a of Beta(a, b) with P(score >= 0.5) = tail."""
    from scipy.optimize import brentq

    return brentq(lambda a: stats.beta.sf(0.5, a, b) - tail, 0.05, 50.0)


def make_models() -> dict:
    eye = np.eye(4, dtype=bool)
    classes = np.tile([0.5, 0.3, 0.2], (4, 1))
    models = {}
    base_fpr = stats.beta.sf(0.5, 2.0, 4.0)
    models["disjoint"] = Model(
        "disjoint", "4 disjoint groups, no disparity", GROUPS, eye, GROUP_SHARE, "label", "D", True,
        base=np.full(4, 0.4), pos=np.tile([4.0, 2.5], (4, 1)), neg=np.tile([2.0, 4.0], (4, 1)),
        classes=classes, confusion=np.stack([_confusion(0.75)] * 4))
    neg = np.tile([2.0, 4.0], (4, 1))
    neg[3, 0] = _beta_a_for_tail(4.0, base_fpr + 0.15)          # D: FPR + 0.15
    pos = np.tile([4.0, 2.5], (4, 1))
    pos[1, 0] = 3.4                                              # B: TPR lower
    models["disparity"] = Model(
        "disparity", "4 disjoint groups, true disparities", GROUPS, eye, GROUP_SHARE, "label", "D", True,
        base=np.array([0.4, 0.4, 0.28, 0.4]), pos=pos, neg=neg, classes=classes,
        confusion=np.stack([_confusion(0.75)] * 3 + [_confusion(0.6)]))
    names = ("id_a", "id_b", "id_c", "id_d")
    prevalence = np.array([0.25, 0.12, 0.06, 0.03])
    member = np.array([[(p >> j) & 1 for j in range(4)] for p in range(16)], dtype=bool)
    share = np.prod(np.where(member, prevalence, 1 - prevalence), axis=1)
    m = member.astype(float)
    models["indicators"] = Model(
        "indicators", "4 overlapping indicator columns", names, member, share, "label", "id_d", False,
        base=special.expit(special.logit(0.4) + m @ np.array([0.3, -0.4, 0.0, 0.2])),
        pos=np.column_stack([4.0 - 0.6 * m[:, 1], np.full(16, 2.5)]),
        neg=np.column_stack([2.0 + 0.6 * m[:, 2] + 1.0 * m[:, 3], np.full(16, 4.0)]))
    models["weighted"] = replace(
        models["disparity"], name="weighted", title="the disparity setting sampled with a bias and weighted back",
        inclusion=np.outer([0.25, 0.25, 0.25, 1.0], [0.6, 1.0]), families=WEIGHTED_FAMILIES)
    models["identities"] = identity_model()
    beta = np.array([[2.0, 3.0], [2.5, 2.5], [1.5, 3.0], [3.0, 2.0]])
    models["calibrated"] = Model(
        "calibrated", "4 groups, every one calibrated", GROUPS, eye, GROUP_SHARE, "score", "D", True,
        beta=beta, slope=np.ones(4), shift=np.zeros(4))
    models["miscalibrated"] = Model(
        "miscalibrated", "4 groups, C miscalibrated", GROUPS, eye, GROUP_SHARE, "score", "D", True,
        beta=beta, slope=np.ones(4), shift=np.array([0.0, 0.0, 0.6, 0.0]))
    return models


# The identities setting: many overlapping identity columns, as madlibs-like data (a sentence names none, one or
# two identities), so the rows have hundreds of membership patterns and the bootstrap uses buckets of rows.
N_IDENTITIES = 30
IDENTITY_EFFECTS = (0, 10, 20, 29)      # the columns whose members' label and scores differ
# The weighted setting measures every family whose intervals take sample weights.
WEIGHTED_FAMILIES = ("rates", "performance", "disparities", "scores", "theil", "aucs", "calibration", "labels",
                     "classwise", "models", "adjusted", "references")
IDENTITY_FAMILIES = ("rates", "performance", "disparities", "theil", "aucs", "calibration", "labels", "adjusted")


def identity_model(k: int = N_IDENTITIES) -> Model:
    """``identities``: `k` overlapping identity columns; every row names none (15 %), one (45 %) or two (40 %) of
    them, column j with weight 1.5 + 4.5 j / (k - 1) (prevalences about 1.6-7 %: the rarest has about 30 of 2,000
    rows); 1 + k + k (k - 1) / 2 patterns. The label and scores follow the ``indicators`` setting's law through the
    four columns ``IDENTITY_EFFECTS`` (base rate, TPR and FPR shifted by membership); every other column has no
    effect of its own."""
    weight = 1.5 + 4.5 * np.arange(k) / (k - 1)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    member = np.zeros((1 + k + len(pairs), k), dtype=bool)
    member[1 + np.arange(k), np.arange(k)] = True
    for row, (i, j) in enumerate(pairs, start=1 + k):
        member[row, [i, j]] = True
    pair_weight = np.array([weight[i] * weight[j] for i, j in pairs])
    share = np.concatenate([[0.15], 0.45 * weight / weight.sum(), 0.40 * pair_weight / pair_weight.sum()])
    m = member[:, list(IDENTITY_EFFECTS)].astype(float)
    n = len(share)
    names = tuple(f"id{j:02d}" for j in range(k))
    return Model(
        "identities", f"{k} overlapping identity columns", names, member, share, "label", names[0], False,
        base=special.expit(special.logit(0.4) + m @ np.array([0.3, -0.4, 0.0, 0.2])),
        pos=np.column_stack([4.0 - 0.6 * m[:, 1], np.full(n, 2.5)]),
        neg=np.column_stack([2.0 + 0.6 * m[:, 2] + 1.0 * m[:, 3], np.full(n, 4.0)]), families=IDENTITY_FAMILIES)


MODELS = make_models()


def _calibration(s: np.ndarray, slope, shift) -> np.ndarray:
    s = np.clip(s, 1e-12, 1 - 1e-12)
    return special.expit(slope * special.logit(s) + shift)


def _rows(model: Model, n: int, rng: np.random.Generator) -> tuple:
    """`n` rows of the model's population: (pattern, label, score)."""
    pattern = rng.choice(len(model.share), size=n, p=model.share / model.share.sum())
    if model.kind == "label":
        y = rng.random(n) < model.base[pattern]
        params = np.where(y[:, None], model.pos[pattern], model.neg[pattern])
        s = rng.beta(params[:, 0], params[:, 1])
    else:
        s = rng.beta(model.beta[pattern, 0], model.beta[pattern, 1])
        y = rng.random(n) < _calibration(s, model.slope[pattern], model.shift[pattern])
    return pattern, y, s


def draw(model: Model, n: int, rng: np.random.Generator) -> dict:
    """One data set of `n` rows: labels, scores, predictions, subgroups (and a three-class label). With the
    model's ``inclusion``, the population's rows are kept with their inclusion probability until `n` are kept, and
    each carries the weight 1 / inclusion (``w``): a sample biased in a known way, weighted back."""
    if model.inclusion is None:
        pattern, y, s = _rows(model, n, rng)
        weights = None
    else:
        parts = []
        while sum(len(part[0]) for part in parts) < n:
            pattern, y, s = _rows(model, 2 * n, rng)
            keep = rng.random(len(y)) < model.inclusion[pattern, y.astype(int)]
            parts.append((pattern[keep], y[keep], s[keep]))
        pattern, y, s = (np.concatenate(column)[:n] for column in zip(*parts))
        weights = 1.0 / model.inclusion[pattern, y.astype(int)]
    out = {"y": y.astype(np.int8), "score": s, "pred": (s >= 0.5).astype(np.int8), "pattern": pattern, "w": weights}
    if model.disjoint:
        code = model.member[pattern].argmax(axis=1)
        frame = pd.DataFrame({"group": np.asarray(model.subgroups, dtype=object)[code]})
        out["groups"] = fc.Subgroups.from_attributes(frame, ["group"])
    else:
        frame = pd.DataFrame(model.member[pattern].astype(np.int8), columns=list(model.subgroups))
        out["groups"] = fc.Subgroups.from_indicators(frame, list(model.subgroups))
    if model.classes is not None:
        truth = (rng.random(n)[:, None] >= np.cumsum(model.classes[pattern], axis=1)[:, :2]).sum(axis=1)
        conf = model.confusion[pattern, truth]
        out["cls"] = truth
        out["cls_pred"] = (rng.random(n)[:, None] >= np.cumsum(conf, axis=1)[:, :2]).sum(axis=1)
    return out


# =====================================================================================================
# Truth, from the model
# =====================================================================================================

class Population:
    """The joint law of (label, score) of a set of rows, on the grid: absolute probability masses."""

    def __init__(self, mass: np.ndarray, high: np.ndarray = HIGH):
        self.mass = mass                              # (2, GRID): negatives, positives
        neg, pos = mass
        self.size = float(mass.sum())
        self.cells = {"tn": neg[~high].sum(), "fp": neg[high].sum(), "fn": pos[~high].sum(), "tp": pos[high].sum()}

    def at(self, high: np.ndarray) -> "Population":
        """The same rows predicted positive where `high` (another model's decisions, on the same grid)."""
        return Population(self.mass, high)

    def rate(self, name: str) -> float:
        num, den = (sum(self.cells[c] for c in part.split()) for part in RATE_CELLS[name])
        return num / den if den > 0 else np.nan

    @property
    def base_rate(self) -> float:
        return self.mass[1].sum() / self.size

    @property
    def benefit(self) -> float:
        """Mean benefit y_pred - y_true + 1 (the Theil index's)."""
        return 1.0 + (self.cells["fp"] - self.cells["fn"]) / self.size

    def performance(self, name: str) -> float:
        c = self.cells
        return {"accuracy": (c["tn"] + c["tp"]) / self.size, "precision": c["tp"] / (c["tp"] + c["fp"]),
                "f1": 2 * c["tp"] / (2 * c["tp"] + c["fp"] + c["fn"])}[name]

    def _bins(self):
        neg, pos = (m.reshape(N_BINS, -1) for m in self.mass)
        total = neg.sum(axis=1) + pos.sum(axis=1)
        sum_p = (MID.reshape(N_BINS, -1) * (neg + pos)).sum(axis=1)
        return total, pos.sum(axis=1), sum_p

    @property
    def ece(self) -> float:
        _, sum_y, sum_p = self._bins()
        ece = float(np.abs(sum_y - sum_p).sum() / self.size)
        return 0.0 if ece < ZERO else ece   # a calibrated population's gaps are rounding errors

    @property
    def squared_ce(self) -> float:
        """The binned squared calibration error Σ_b (n_b / n) gap_b² (what the debiased estimator estimates)."""
        total, sum_y, sum_p = self._bins()
        ok = total > 0
        squared = float(((sum_y - sum_p)[ok] ** 2 / total[ok]).sum() / self.size)
        return 0.0 if squared < ZERO ** 2 else squared

    @property
    def mce(self) -> float:
        total, sum_y, sum_p = self._bins()
        ok = total > 0
        mce = float((np.abs(sum_y - sum_p)[ok] / total[ok]).max())
        return 0.0 if mce < ZERO else mce

    @property
    def brier(self) -> float:
        neg, pos = self.mass
        return float((pos * (1 - MID) ** 2 + neg * MID ** 2).sum() / self.size)

    @property
    def fraction_positive(self) -> np.ndarray:
        total, sum_y, _ = self._bins()
        with np.errstate(invalid="ignore", divide="ignore"):
            return sum_y / total

    @property
    def individual_theil(self) -> float:
        p0, p2 = self.cells["fn"] / self.size, self.cells["fp"] / self.size
        p1 = 1 - p0 - p2
        mu = p1 + 2 * p2
        return p1 * (1 / mu) * np.log(1 / mu) + p2 * (2 / mu) * np.log(2 / mu)


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(score of a positive > score of a negative), ties 1/2, from masses on the grid."""
    below = np.cumsum(neg) - neg
    return float((pos * (below + 0.5 * neg)).sum() / (pos.sum() * neg.sum()))


def theil_two(n1, mu1, n2, mu2) -> float:
    """Between-group Theil index of two groups (shares n1, n2; mean benefits mu1, mu2)."""
    n = n1 + n2
    mu = (n1 * mu1 + n2 * mu2) / n
    return sum((ng / n) * (mg / mu) * np.log(mg / mu) for ng, mg in ((n1, mu1), (n2, mu2)) if mg > 0)


@dataclass
class Truth:
    """The true value of every quantity of one model."""

    model: Model
    member: dict = field(default_factory=dict)        # subgroup -> Population
    background: dict = field(default_factory=dict)
    overall: Population = None
    joint: dict = field(default_factory=dict)        # subgroup -> (3, 3) class joint law
    patterns: list = field(default_factory=list)     # Population of each membership pattern

    @classmethod
    def of(cls, model: Model) -> "Truth":
        if len(model.share) > 64:
            return cls._by_law(model)
        masses = []
        for p in range(len(model.share)):
            if model.kind == "label":
                pos = model.base[p] * np.diff(stats.beta.cdf(EDGES, *model.pos[p]))
                neg = (1 - model.base[p]) * np.diff(stats.beta.cdf(EDGES, *model.neg[p]))
            else:
                mass = np.diff(stats.beta.cdf(EDGES, *model.beta[p]))
                c = _calibration(MID, model.slope[p], model.shift[p])
                pos, neg = mass * c, mass * (1 - c)
            masses.append(model.share[p] * np.stack([neg, pos]))
        masses = np.stack(masses)
        truth = cls(model, overall=Population(masses.sum(axis=0)), patterns=[Population(m) for m in masses])
        for k, name in enumerate(model.subgroups):
            inside = model.member[:, k]
            truth.member[name] = Population(masses[inside].sum(axis=0))
            truth.background[name] = Population(masses[~inside].sum(axis=0))
            if model.classes is not None:
                truth.joint[name] = sum(model.share[p] * model.classes[p][:, None] * model.confusion[p]
                                        for p in np.flatnonzero(inside))
        return truth

    @classmethod
    def _by_law(cls, model: Model) -> "Truth":
        """The truth of a model with many patterns but few laws of (label, score): each subgroup's masses are the
        laws' unit masses weighted by the shares of its patterns of each law (no per-pattern populations)."""
        params = np.column_stack([model.base, model.pos, model.neg])
        laws, law_of = np.unique(params, axis=0, return_inverse=True)
        law_of = law_of.reshape(-1)
        unit = np.stack([np.stack([(1 - b) * np.diff(stats.beta.cdf(EDGES, *law[3:5])),
                                   b * np.diff(stats.beta.cdf(EDGES, *law[1:3]))])
                         for law in laws for b in [law[0]]])                    # (laws, 2, GRID)

        def population(inside: np.ndarray) -> Population:
            weights = np.bincount(law_of[inside], weights=model.share[inside], minlength=len(laws))
            return Population(np.tensordot(weights, unit, axes=1))

        truth = cls(model, overall=population(np.ones(len(model.share), dtype=bool)))
        for k, name in enumerate(model.subgroups):
            truth.member[name] = population(model.member[:, k])
            truth.background[name] = population(~model.member[:, k])
        return truth

    def at(self, high: np.ndarray) -> "Truth":
        """The truth of a second model whose positive predictions are the grid cells `high`."""
        return Truth(self.model, {k: p.at(high) for k, p in self.member.items()},
                     {k: p.at(high) for k, p in self.background.items()}, self.overall.at(high), self.joint,
                     [p.at(high) for p in self.patterns])

    # --- per subgroup -------------------------------------------------------------------------
    def rate(self, name, rate):
        return self.member[name].rate(rate)

    def aucs(self, name) -> dict:
        m, b = self.member[name].mass, self.background[name].mass
        return {"subgroup_auc": auc(m[1], m[0]), "bpsn_auc": auc(b[1], m[0]), "bnsp_auc": auc(m[1], b[0])}

    def class_scores(self, name) -> dict:
        j = self.joint[name]
        tp = np.diag(j)
        fn, fp = j.sum(axis=1) - tp, j.sum(axis=0) - tp
        return {"recall": tp / (tp + fn), "precision": tp / (tp + fp), "fscore": 2 * tp / (2 * tp + fp + fn)}

    # --- comparisons against the rest ---------------------------------------------------------
    def pair(self, name, value, reference="rest"):
        """(subgroup value, reference value) of `value(population)`."""
        ref = self.background[name] if reference == "rest" else self.member[reference]
        return value(self.member[name]), value(ref)

    def theil(self, name) -> float:
        m, b = self.member[name], self.background[name]
        return theil_two(m.size, m.benefit, b.size, b.benefit)

    @property
    def between_theil(self) -> float:
        mu = self.overall.benefit
        return sum(p.size * (p.benefit / mu) * np.log(p.benefit / mu) for p in self.member.values())


def distance(a, b, measure: str) -> float:
    return float(fc.distance(np.asarray([a]), np.asarray([b]), measure)[0])


def equalized_odds_truth(truth: "Truth", subgroups, measure: str) -> np.ndarray:
    """True equalized odds of each subgroup against the rest: the larger of its TPR and FPR distances."""
    return np.array([max(distance(*truth.pair(s, lambda p, r=r: p.rate(r)), measure)
                         for r in ("true_positive_rate", "false_positive_rate")) for s in subgroups])


def reduce_true(values, used, reduction: str) -> float:
    v = np.asarray(values, dtype=np.float64)[np.asarray(used, dtype=bool)]
    if not len(v):
        return np.nan
    return float(v.max() if reduction == "max" else v.min() if reduction == "min" else v.mean())


_TRUTHS: dict = {}


def truth_of(name: str) -> Truth:
    if name not in _TRUTHS:
        _TRUTHS[name] = Truth.of(MODELS[name])
    return _TRUTHS[name]


# =====================================================================================================
# One data set: every interval against its truth
# =====================================================================================================

class Collector:
    """Intervals (quantity, low, high, truth), verdicts and failures of one data set."""

    def __init__(self, small: str):
        self.small = small
        self.intervals: list = []
        self.verdicts: list = []
        self.errors: list = []

    def add(self, key, low, high, truth, weight=1.0):
        """Intervals [low, high] of `key` against their truths, each counting `weight` in the pooled coverage."""
        arrays = [np.atleast_1d(np.asarray(x, dtype=np.float64)).ravel() for x in (low, high, truth, weight)]
        n = max(len(a) for a in arrays)
        self.intervals.append((key, *(np.broadcast_to(a, (n,)).copy() for a in arrays)))

    def add_together(self, key, low, high, truth):
        """One interval per data set for a family of intervals that claims to hold every truth at once: covered
        when every defined interval holds its truth; a miss above when one lies above its truth (else below)."""
        low, high, truth = (np.asarray(x, dtype=np.float64) for x in (low, high, truth))
        shown = ~np.isnan(low) & ~np.isnan(high) & ~np.isnan(truth)
        if not shown.any():
            self.add(key, np.nan, np.nan, np.nan)
            return
        with np.errstate(invalid="ignore"):   # an infinite end against an infinite truth: no miss
            over = np.nan_to_num(low[shown] - truth[shown], nan=-np.inf).max()
            under = np.nan_to_num(high[shown] - truth[shown], nan=np.inf).min()
        self.add(key, over, under if over <= TOL else max(under, 0.0), 0.0)

    def add_rows(self, section, label, table, lo, hi, truth, small_col="subgroup"):
        """Every row of `table` (columns `lo`, `hi`), and its small subgroup's rows apart."""
        low, high = table[lo].to_numpy(dtype=np.float64), table[hi].to_numpy(dtype=np.float64)
        truth = np.asarray(truth, dtype=np.float64)
        self.add((section, label), low, high, truth)
        if small_col is not None:
            mine = table[small_col].to_numpy() == self.small
            if mine.any():
                self.add((section, f"{label}: small subgroup"), low[mine], high[mine], truth[mine])

    def verdict(self, rule, result, truth_value, margin):
        verdict = fc.evaluate_result(rule, result)
        if np.isnan(truth_value):
            status = "undefined"
        elif rule.direction == "max":
            status = "pass" if truth_value <= rule.bound - margin else "fail" if truth_value > rule.bound else "edge"
        else:
            status = "pass" if truth_value >= rule.bound + margin else "fail" if truth_value < rule.bound else "edge"
        self.verdicts.append((rule.name, rule.label, rule.bound, rule.direction, verdict.status, status,
                              float(truth_value)))


def _used(table, column="disparity", mean=False):
    d = table[column].to_numpy(dtype=np.float64)
    used = ~table["small"].to_numpy(dtype=bool) & ~np.isnan(d)
    return used & ~np.isinf(d) if mean else used


def _subgroup_truth(table, truth: Truth, value, reference="rest"):
    """(a, b) truths of the rows of a comparison table (columns subgroup, reference)."""
    pairs = [truth.pair(s, value, reference if r == "rest" else r)
             for s, r in zip(table["subgroup"], table["reference"])]
    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


def fam_rates(data, truth: Truth, c: Collector, n_boot, margin):
    counts = data["counts"]
    table = counts.table(ci=LEVEL)
    section = "Rates and shares (Wilson)"
    for rate in RATES:
        true = [truth.rate(s, rate) for s in table["subgroup"]]
        c.add_rows(section, f"{SHORT[rate]} per subgroup", table, f"{rate}_ci_low", f"{rate}_ci_high", true,
                   small_col=None)
    mine = table["subgroup"].to_numpy() == c.small
    lows = np.concatenate([table[f"{r}_ci_low"].to_numpy(dtype=float)[mine] for r in RATES])
    highs = np.concatenate([table[f"{r}_ci_high"].to_numpy(dtype=float)[mine] for r in RATES])
    true = np.concatenate([[truth.rate(c.small, r)] for r in RATES])
    c.add((section, "all 7 rates: small subgroup"), lows, highs, true)
    base = fc.base_rates(data["y"], data["groups"], ci=LEVEL, sample_weight=data["w"])
    c.add_rows(section, "base rate per subgroup", base, "base_rate_ci_low", "base_rate_ci_high",
               [truth.member[s].base_rate for s in base["subgroup"]])
    cal = data["calcounts"].reliability_table(ci=LEVEL)
    frac = {s: truth.member[s].fraction_positive for s in truth.member}
    true = [frac[s][int(b)] for s, b in zip(cal["subgroup"], cal["bin"])]
    c.add_rows(section, "reliability diagram: fraction positive per bin", cal, "fraction_positive_ci_low",
               "fraction_positive_ci_high", true)


def fam_performance(data, truth: Truth, c: Collector, n_boot, margin):
    table = fc.performance_table(data["counts"], ci=LEVEL, n_boot=n_boot, random_state=0)
    section = "Performance per subgroup"
    whole = table["scope"].to_numpy() == "overall"
    for name, how in (("accuracy", "Wilson"), ("precision", "Wilson"), ("f1", "bootstrap")):
        sub = table[~whole]
        c.add_rows(section, f"{name} ({how}) per subgroup", sub, f"{name}_ci_low", f"{name}_ci_high",
                   [truth.member[s].performance(name) for s in sub["subgroup"]])
        c.add((section, f"{name} ({how}), all rows"), table.loc[whole, f"{name}_ci_low"],
              table.loc[whole, f"{name}_ci_high"], truth.overall.performance(name))


def _disparity_rows(c, section, label, result, truth_disp, reductions):
    table = result.table
    c.add_rows(section, f"{label}, per comparison", table, "disparity_ci_low", "disparity_ci_high", truth_disp)
    for red, res in reductions:
        used = _used(res.table, mean=red == "mean")
        c.add((section, f"{label}, {red}"), res.ci_low, res.ci_high, reduce_true(truth_disp, used, red))


def _mean(measure, call):
    """[("mean", result)] for a difference; nothing for a ratio (its mean is not measured, to save time)."""
    return [("mean", call())] if measure == "diff" else []


def fam_disparities(data, truth: Truth, c: Collector, n_boot, margin):
    counts = data["counts"]
    boot = dict(ci=LEVEL, n_boot=n_boot, random_state=0)
    section = "Rate disparities (vs rest)"
    results = {}
    for metric, rate in METRICS.items():
        for measure in ("diff", "ratio"):
            res = counts.disparity(metric, distance_measure=measure, reduction="max", **boot)
            a, b = _subgroup_truth(res.table, truth, lambda p: p.rate(rate))
            true = np.array([distance(x, y, measure) for x, y in zip(a, b)])
            results[(metric, measure)] = (res, true)
            _disparity_rows(c, section, f"{SHORT[rate]} {measure}", res, true, [("max", res)] + _mean(
                measure, lambda: counts.disparity(metric, distance_measure=measure, reduction="mean", **boot)))
            if measure == "diff":
                c.add((section, "rest rates in the comparisons (Wilson), all 7"),
                      res.table["reference_value_ci_low"], res.table["reference_value_ci_high"], b)
    if truth.model.disjoint:
        res = counts.disparity("false_positive_rate", distance_measure="diff", reduction="max", reference="pairwise",
                               **boot)
        true = np.array([abs(truth.rate(s, "false_positive_rate") - truth.rate(r, "false_positive_rate"))
                         for s, r in zip(res.table["subgroup"], res.table["reference"])])
        small = (res.table["subgroup"] == c.small) | (res.table["reference"] == c.small)
        tab = res.table.assign(_small=np.where(small, c.small, ""))
        c.add_rows(section, "FPR diff, pairwise, per comparison", tab, "disparity_ci_low", "disparity_ci_high",
                   true, small_col="_small")
        c.add((section, "FPR diff, pairwise, max"), res.ci_low, res.ci_high, reduce_true(true, _used(res.table), "max"))
    # Verdicts: the ratio rules of DEFAULT_RULES and the Rate disparities page's difference rules (max, rest).
    for rule in fc.rate_rules(("false_positive_rate", "false_negative_rate"), "ratio", 0.1) + [
            r for r in fc.rate_rules(("false_positive_rate", "false_negative_rate"), "diff", 0.1)
            if r.metric != "equalized_odds"]:
        res, true = results[(rule.metric, rule.distance_measure)]
        c.verdict(rule, res, reduce_true(true, _used(res.table), "max"), margin)


def fam_scores(data, truth: Truth, c: Collector, n_boot, margin):
    counts = data["counts"]
    boot = dict(ci=LEVEL, n_boot=n_boot, random_state=0)
    section = "Equalized odds, p% and equal opportunity scores"
    for measure in ("diff", "ratio"):
        res = counts.equalized_odds(distance_measure=measure, reduction="max", **boot)
        true = equalized_odds_truth(truth, res.table["subgroup"], measure)
        _disparity_rows(c, section, f"equalized odds {measure}", res, true, [("max", res)] + _mean(
            measure, lambda: counts.equalized_odds(distance_measure=measure, reduction="mean", **boot)))
        if measure == "diff":
            rule = next(r for r in fc.rate_rules(("false_positive_rate",), "diff", 0.1) if r.metric == "equalized_odds")
            c.verdict(rule, res, reduce_true(true, _used(res.table), "max"), margin)
    rules = {r.metric: r for r in fc.DEFAULT_RULES}
    for rate, name in (("selection_rate", "p% score"), ("true_positive_rate", "equal opportunity score")):
        res = counts.ratio_scores(rate, ci=LEVEL, n_boot=n_boot, random_state=0)
        a, b = _subgroup_truth(res.table.assign(reference="rest"), truth, lambda p: p.rate(rate))
        true = np.minimum(a / b, b / a)
        c.add_rows(section, f"{name} per subgroup", res.table, "score_ci_low", "score_ci_high", true)
        used = ~res.table["small"].to_numpy(dtype=bool) & res.table["score"].notna().to_numpy()
        value = reduce_true(true, used, "min")
        c.add((section, f"{name} (min)"), res.ci_low, res.ci_high, value)
        c.verdict(rules["p_percent_score" if rate == "selection_rate" else "equal_opportunity_score"], res, value,
                  margin)


def fam_theil(data, truth: Truth, c: Collector, n_boot, margin):
    counts = data["counts"]
    boot = dict(ci=LEVEL, n_boot=n_boot, random_state=0)
    section = "Theil index"
    res = counts.theil_index(reduction="max", **boot)
    mean = counts.theil_index(reduction="mean", **boot)
    table = res.table
    true = np.array([truth.theil(s) for s in table["subgroup"]])
    _disparity_rows(c, section, "two-group Theil index vs rest", res, true, [("max", res), ("mean", mean)])
    c.add_rows(section, "mean benefit per subgroup", table, "subgroup_value_ci_low", "subgroup_value_ci_high",
               [truth.member[s].benefit for s in table["subgroup"]])
    ind = counts.individual_theil_index(**boot)
    c.add((section, "individual Theil index"), ind.ci_low, ind.ci_high, truth.overall.individual_theil)
    if truth.model.disjoint:
        between = counts.between_group_theil_index(**boot)
        c.add((section, "between-group Theil index"), between.ci_low, between.ci_high, truth.between_theil)


POWER_LABELS = {"subgroup_auc": "subgroup AUCs", "bpsn_auc": "BPSN AUCs", "bnsp_auc": "BNSP AUCs"}


def fam_aucs(data, truth: Truth, c: Collector, n_boot, margin):
    table = fc.bias_auc_table(data["y"], data["score"], data["groups"], ci=LEVEL, n_boot=n_boot, random_state=0,
                               sample_weight=data["w"])
    section = "AUCs (DeLong) and the bias AUC score (bootstrap)"
    true = {s: truth.aucs(s) for s in table["subgroup"]}
    for column, label in (("subgroup_auc", "subgroup AUC"), ("bpsn_auc", "BPSN AUC"), ("bnsp_auc", "BNSP AUC")):
        c.add_rows(section, label, table, f"{column}_ci_low", f"{column}_ci_high", [true[s][column] for s in true])
    om = truth.overall.mass
    overall = auc(om[1], om[0])
    c.add((section, "overall AUC"), *table.attrs["overall_auc_ci"], overall)
    result = fc.summarize_bias_auc(table)
    keep = ~table["small"].to_numpy(dtype=bool)
    means = {}
    for column in ("subgroup_auc", "bpsn_auc", "bnsp_auc"):
        ok = keep & table[column].notna().to_numpy()
        means[column] = fc.power_mean(np.array([true[s][column] for s in table["subgroup"]])[ok], result.p)
        low, high = result.power_mean_ci[column]
        c.add((section, f"power mean (p = {result.p:g}) of the {POWER_LABELS[column]}"), low, high, means[column])
    score = result.overall_weight * overall + (1 - result.overall_weight) * np.mean(list(means.values()))
    c.add((section, "bias AUC score"), result.ci_low, result.ci_high, score)


def fam_calibration(data, truth: Truth, c: Collector, n_boot, margin):
    counts = data["calcounts"]
    boot = dict(ci=LEVEL, n_boot=n_boot, random_state=0)
    section = "Calibration (ℓ2 ECE, Brier; calibration disparity)"
    res = counts.disparity(reduction="max", **boot)
    errors = res.errors
    # The plug-in ECE and the MCE have no interval any more (they lie above their truth by the bins' noise).
    for column, label in (("l2_ece", "ℓ2 ECE"), ("brier_score", "Brier score")):
        value = {"l2_ece": lambda p: np.sqrt(p.squared_ce), "brier_score": lambda p: p.brier}[column]
        c.add_rows(section, f"{label} per subgroup", errors, f"{column}_ci_low", f"{column}_ci_high",
                   [value(truth.member[s]) for s in errors["subgroup"]])
    table = res.disparity.table
    a, b = _subgroup_truth(table, truth, lambda p: p.squared_ce)
    c.add((section, "ℓ2 ECE of the rest (comparison table)"), table["reference_value_ci_low"],
          table["reference_value_ci_high"], np.sqrt(b))
    true = np.sqrt(np.abs(np.asarray(a) - np.asarray(b)))   # the excess ℓ2 ECE
    mean = counts.disparity(reduction="mean", **boot)
    _disparity_rows(c, section, "excess ℓ2 ECE diff", res.disparity, true, [("max", res.disparity),
                                                                          ("mean", mean.disparity)])
    if res.verdict is not None:
        c.verdict(res.rule, res.disparity, reduce_true(true, _used(table), "max"), margin)
    # A ratio of ECEs has no interval any more (``calibration_errors.NO_RATIO_INTERVAL_NOTE``: its bootstrap
    # interval covered 0-92 %), so it has no row here.


def fam_labels(data, truth: Truth, c: Collector, n_boot, margin):
    y, groups = data["y"], data["groups"]
    boot = dict(ci=LEVEL, n_boot=n_boot, random_state=0)
    section = "Labels: dataset statistical parity, smoothed EDF"
    for measure in ("diff", "ratio"):
        res = fc.dataset_statistical_parity(y, groups, distance_measure=measure, reduction="max", sample_weight=data["w"], **boot)
        a, b = _subgroup_truth(res.table, truth, lambda p: p.base_rate)
        true = np.array([distance(x, z, measure) for x, z in zip(a, b)])
        _disparity_rows(c, section, f"base rate {measure}", res, true, [("max", res)] + _mean(
            measure, lambda: fc.dataset_statistical_parity(y, groups, distance_measure=measure, reduction="mean",
                                                           sample_weight=data["w"], **boot)))
        c.verdict(fc.dataset_rule(measure, 0.1), res, reduce_true(true, _used(res.table), "max"), margin)
    if truth.model.disjoint:
        edf = fc.smoothed_edf(y, groups, sample_weight=data["w"], **boot)
        used = edf.table["used"].to_numpy(dtype=bool)
        names = edf.table["subgroup"].to_numpy()[used]
        p = np.array([truth.member[s].base_rate for s in names])
        logs = np.log(np.stack([p, 1 - p]))
        value = float((logs.max(axis=1) - logs.min(axis=1)).max()) if len(names) >= 2 else np.nan
        c.add((section, "smoothed EDF"), edf.ci_low, edf.ci_high, value)


def _classwise_truth(scores: dict, metric: str, reduction: str, names) -> list:
    """The true per-class reduced value of `metric` over subgroups `names` (in order)."""
    values = np.array([scores[s][metric] for s in names])        # (subgroups, classes)
    if reduction == "std":
        return list(values.std(axis=0))
    signed = values[0] - values[1]
    return list(signed if reduction == "difference" else np.abs(signed))


def fam_classwise(data, truth: Truth, c: Collector, n_boot, margin):
    """Class-wise bias as the Class-wise page shows it: every metric and reduction (a difference on the two largest
    subgroups, the page's default pair, and on the largest and the small one), per class and averaged."""
    if "cls" not in data:
        return
    section = "Class-wise (3 classes): recall, precision, F-score and the unweighted average bias"
    scores = {s: truth.class_scores(s) for s in truth.joint}
    for metric in CLASS_METRICS:
        for reduction, words in CLASS_REDUCTIONS.items():
            for pair, names in ({"": None} if reduction == "std" else PAIRS).items():
                res = fc.unweighted_average_bias(data["cls"], data["cls_pred"], data["groups"], metric=metric, sample_weight=data["w"],
                                                 reduction=reduction, subgroups=None if names is None else list(names),
                                                 ci=LEVEL, n_boot=n_boot, random_state=0)
                if reduction == "std":
                    table = res.table
                    true = [scores[s][metric][int(k)] for s, k in zip(table["subgroup"], table["class"])]
                    c.add_rows(section, f"{metric} per subgroup and class", table, f"{metric}_ci_low",
                               f"{metric}_ci_high", true)
                    used = table[table["used"].astype(bool) & table["score"].notna()]
                    per_true = [_classwise_truth(scores, metric, reduction,
                                                 list(used.loc[used["class"] == k, "subgroup"]))[k]
                                if (used["class"] == k).sum() >= 2 else np.nan for k in range(3)]
                else:
                    per_true = _classwise_truth(scores, metric, reduction, names)
                where = f", {pair}" if pair else ""
                pc = res.per_class
                c.add((section, f"per-class {words} of {metric}{where}"), pc["value_ci_low"], pc["value_ci_high"],
                      [per_true[int(k)] for k in pc["class"]])
                defined = [v for v, est in zip(per_true, pc["value"]) if not np.isnan(est)]
                c.add((section, f"unweighted average bias ({words}) of {metric}{where}"), res.ci_low, res.ci_high,
                      np.mean(defined) if defined else np.nan)


REFERENCES = {"overall": "vs all rows", "largest": "vs the largest subgroup"}
# Three of the seven rates (the same code path serves all seven; three keep the run's time in bounds).
REFERENCE_METRICS = {m: METRICS[m] for m in ("statistical_parity", "false_positive_rate", "false_negative_rate")}


def fam_references(data, truth: Truth, c: Collector, n_boot, margin):
    """Rate disparities against the page's other references: all rows ("overall") and a named subgroup (the largest,
    the page's first choice): selection rate, FPR and FNR, each distance, per comparison and their max."""
    if truth.model.kind != "label":
        return
    counts = data["counts"]
    boot = dict(ci=LEVEL, n_boot=n_boot, random_state=0)
    section = "Rate disparities (vs all rows, vs the largest subgroup)"
    largest = truth.model.subgroups[int(np.argmax(truth.model.share @ truth.model.member))]
    for name, words in REFERENCES.items():
        reference = "overall" if name == "overall" else fc.named_reference(largest)
        other = truth.overall if name == "overall" else truth.member[largest]
        for metric, rate in REFERENCE_METRICS.items():
            for measure in ("diff", "ratio"):
                res = counts.disparity(metric, distance_measure=measure, reduction="max", reference=reference, **boot)
                true = np.array([distance(truth.rate(s, rate), other.rate(rate), measure)
                                 for s in res.table["subgroup"]])
                _disparity_rows(c, section, f"{SHORT[rate]} {measure} {words}", res, true, [("max", res)])

ADJUSTED = {"max_t": "Simultaneous (max-t)", "bonferroni": "Bonferroni or Holm", "fdr_bh": "Benjamini–Hochberg"}


def _adjusted_rows(c: Collector, section: str, label: str, adjust: str, table, truth) -> None:
    """An adjusted comparison table against its truth, as its adjustment claims: Bonferroni's (and Holm's, which
    shows Bonferroni's intervals) hold every comparison's truth at once with probability 95 %; Benjamini-Hochberg's
    false-coverage-rate intervals miss among the starred comparisons at most 5 % on average, and each interval is
    at least a 95 % interval."""
    low, high = (table[col].to_numpy(dtype=np.float64) for col in ("disparity_ci_low", "disparity_ci_high"))
    truth = np.asarray(truth, dtype=np.float64)
    name = ADJUSTED[adjust]
    if adjust in ("max_t", "bonferroni"):
        c.add_together((section, f"{name}: {label}, all comparisons at once"), low, high, truth)
        return
    # 1 - false coverage rate: per data set, the share of its R starred intervals that hold their truth (1 when
    # R = 0), averaged over data sets (each starred interval weighs 1 / R). A star where the truth is parity misses
    # it, so this also bounds the share of false stars (the false discovery rate) the sidebar's help promises.
    starred = table["excludes_parity"].fillna(False).to_numpy(dtype=bool) & ~np.isnan(truth)
    key = (section, f"{name}: {label}, starred comparisons (1 - false coverage rate)")
    if starred.any():
        c.add(key, low[starred], high[starred], truth[starred], 1.0 / starred.sum())
    else:
        c.add(key, 0.0, 0.0, 0.0)
    c.add((section, f"{name}: {label}, every comparison"), low, high, truth)


def fam_adjusted(data, truth: Truth, c: Collector, n_boot, margin):
    """The comparison tables with a multiple-comparison adjustment (the sidebar's "Multiple comparisons"): rate
    disparities, equalized odds, the labels' base rates and the ECE comparisons, each distance, against the rest."""
    boot = dict(ci=LEVEL, n_boot=n_boot, random_state=0)
    section = "Adjusted for multiple comparisons (vs rest)"
    for adjust in ADJUSTED:
        if truth.model.kind == "label":
            counts = data["counts"]
            for metric, rate in METRICS.items():
                for measure in ("diff", "ratio"):
                    res = counts.disparity(metric, distance_measure=measure, reduction="max", adjust=adjust, **boot)
                    a, b = _subgroup_truth(res.table, truth, lambda p: p.rate(rate))
                    _adjusted_rows(c, section, f"{SHORT[rate]} {measure}", adjust, res.table,
                                   [distance(x, y, measure) for x, y in zip(a, b)])
            for measure in ("diff", "ratio"):
                res = counts.equalized_odds(distance_measure=measure, reduction="max", adjust=adjust, **boot)
                _adjusted_rows(c, section, f"equalized odds {measure}", adjust, res.table,
                               equalized_odds_truth(truth, res.table["subgroup"], measure))
                res = fc.dataset_statistical_parity(data["y"], data["groups"], sample_weight=data["w"], distance_measure=measure,
                                                    reduction="max", adjust=adjust, **boot)
                a, b = _subgroup_truth(res.table, truth, lambda p: p.base_rate)
                _adjusted_rows(c, section, f"base rate {measure}", adjust, res.table,
                               [distance(x, y, measure) for x, y in zip(a, b)])
        else:   # a ratio of ECEs has no interval (see fam_calibration)
            res = data["calcounts"].disparity(distance_measure="diff", reduction="max", adjust=adjust, **boot)
            table = res.disparity.table
            a, b = _subgroup_truth(table, truth, lambda p: p.squared_ce)
            _adjusted_rows(c, section, "excess ℓ2 ECE diff", adjust, table,
                           np.sqrt(np.abs(np.asarray(a) - np.asarray(b))))


CONSISTENCY_SAMPLE = 200   # of 2,000 rows: the app samples 20,000 rows of a larger table


def fam_consistency(data, truth: Truth, c: Collector, n_boot, margin):
    """Consistency on a random sample of rows, ± 1.96 standard errors (the Dataset metrics page's statement): its
    truth is the value over every row of the data set (a finite population), features the score and a numeric
    attribute."""
    x = attribute(truth.model, data["pattern"], data["rng"])
    features = pd.DataFrame({"score": data["score"], "x": x})
    every = fc.consistency(features, data["y"]).value
    sampled = fc.consistency(features, data["y"], sample_size=CONSISTENCY_SAMPLE,
                             random_state=int(data["rng"].integers(2 ** 31)))
    half = 1.96 * sampled.std_error
    c.add(("Consistency (sampled rows)", "consistency ± 1.96 standard errors"), sampled.value - half,
          sampled.value + half, every)

HIGH_B = MID >= 0.6                 # a second model's decisions: the same score at threshold 0.6
X_EFFECT = np.array([0.4, -0.3, 0.2, 0.6])   # a numeric attribute's mean shift per subgroup membership
MODEL_QUANTITIES = {"false_positive_rate": "FPR diff, max", "false_negative_rate": "FNR diff, max",
                    "equalized_odds": "equalized odds diff, max", "p_percent_score": "p% score (min)",
                    "accuracy": "accuracy", "selection_rate": "selection rate, all rows"}


def second_score(model: Model, values: np.ndarray, pattern: np.ndarray) -> np.ndarray:
    """A second model's probability score: ``score ** gamma`` with an exponent per membership pattern (in [0, 1],
    monotone within a pattern, so it ranks rows across patterns differently and is calibrated differently)."""
    gamma = 1.0 + model.member.astype(float) @ np.array([0.0, 0.5, -0.3, 0.4])
    return values ** gamma[pattern]


def _auc_of_points(pos_at, pos_mass, neg_at, neg_mass) -> float:
    """P(score of a positive > score of a negative), ties 1/2, for masses at arbitrary score values."""
    order = np.argsort(neg_at, kind="stable")
    at, cum = neg_at[order], np.cumsum(neg_mass[order])
    low, high = np.searchsorted(at, pos_at, side="left"), np.searchsorted(at, pos_at, side="right")
    below = np.where(low > 0, cum[np.maximum(low - 1, 0)], 0.0)
    upto = np.where(high > 0, cum[np.maximum(high - 1, 0)], 0.0)
    return float((pos_mass * (below + 0.5 * (upto - below))).sum() / (pos_mass.sum() * neg_mass.sum()))


def second_truth(truth: Truth) -> dict:
    """The true AUCs and ECEs of the second score (:func:`second_score`), from each pattern's masses moved to its
    transformed grid values: {("overall_auc", None), (kind, subgroup), ("ece", subgroup or None)}: value."""
    model = truth.model
    values = second_score(model, np.tile(MID, (len(model.share), 1)), np.arange(len(model.share))[:, None])
    masses = np.stack([p.mass for p in truth.patterns])                      # (P, 2, GRID)

    def auc_of(pos_patterns, neg_patterns) -> float:
        return _auc_of_points(values[pos_patterns].ravel(), masses[pos_patterns, 1].ravel(),
                              values[neg_patterns].ravel(), masses[neg_patterns, 0].ravel())

    def ece_of(patterns) -> float:
        v, m = values[patterns].ravel(), masses[patterns].sum(axis=1).ravel()
        cell = np.minimum((v * N_BINS).astype(int), N_BINS - 1)
        sum_y = np.bincount(cell, masses[patterns, 1].ravel(), N_BINS)
        sum_p = np.bincount(cell, v * m, N_BINS)
        ece = float(np.abs(sum_y - sum_p).sum() / m.sum())
        return 0.0 if ece < ZERO else ece

    every = np.arange(len(model.share))
    out = {("overall_auc", None): auc_of(every, every), ("ece", None): ece_of(every)}
    for k, name in enumerate(model.subgroups):
        inside, outside = np.flatnonzero(model.member[:, k]), np.flatnonzero(~model.member[:, k])
        out |= {("subgroup_auc", name): auc_of(inside, inside), ("bpsn_auc", name): auc_of(outside, inside),
                ("bnsp_auc", name): auc_of(inside, outside), ("ece", name): ece_of(inside)}
    return out


_SECOND: dict = {}


def second_truth_of(name: str) -> dict:
    if name not in _SECOND:
        _SECOND[name] = second_truth(truth_of(name))
    return _SECOND[name]


AUC_LABELS = {"overall_auc": "overall AUC", "subgroup_auc": "subgroup AUC", "bpsn_auc": "BPSN AUC",
              "bnsp_auc": "BNSP AUC"}


def _first_truth(truth: Truth, kind: str, subgroup) -> float:
    if kind == "ece":
        return (truth.overall if subgroup is None else truth.member[subgroup]).ece
    if kind == "overall_auc":
        return auc(truth.overall.mass[1], truth.overall.mass[0])
    return truth.aucs(subgroup)[kind]


def attribute(model: Model, pattern: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A numeric attribute of each row: x | pattern ~ Normal(membership · X_EFFECT, 1)."""
    return (model.member.astype(float) @ X_EFFECT)[pattern] + rng.normal(size=len(pattern))


def true_correlation(truth: Truth) -> float:
    """The true correlation score -|r| of the predictions (score >= 0.5) with :func:`attribute`: x and the
    prediction are independent given the pattern, so Cov = Σ w_p s_p mu_p - (Σ w_p s_p)(Σ w_p mu_p)."""
    mu = truth.model.member.astype(float) @ X_EFFECT
    w = np.array([p.size for p in truth.patterns])
    w = w / w.sum()
    selected = np.array([p.rate("selection_rate") for p in truth.patterns])
    pi, mean_x = w @ selected, w @ mu
    r = (w @ (selected * mu) - pi * mean_x) / np.sqrt(pi * (1 - pi) * (1 + w @ mu ** 2 - mean_x ** 2))
    return -abs(float(r))


def _model_truth(truth: Truth, counts, quantity: str) -> float:
    """The true value of `compare_models`' `quantity` (difference, max, against the rest) for a model whose truth
    is `truth`, reduced over the comparisons its own `counts` use (as the library reduces them)."""
    if quantity == "accuracy":
        return truth.overall.performance("accuracy")
    if quantity == "selection_rate":
        return truth.overall.rate("selection_rate")
    if quantity == "p_percent_score":
        res = counts.ratio_scores("selection_rate", ci=None)
        a, b = _subgroup_truth(res.table.assign(reference="rest"), truth, lambda p: p.rate("selection_rate"))
        used = ~res.table["small"].to_numpy(dtype=bool) & res.table["score"].notna().to_numpy()
        return reduce_true(np.minimum(a / b, b / a), used, "min")
    if quantity == "equalized_odds":
        res = counts.equalized_odds(distance_measure="diff", reduction="max", ci=None)
        true = [max(distance(*truth.pair(s, lambda p: p.rate("true_positive_rate")), "diff"),
                    distance(*truth.pair(s, lambda p: p.rate("false_positive_rate")), "diff"))
                for s in res.table["subgroup"]]
        return reduce_true(true, _used(res.table), "max")
    res = counts.disparity(quantity, distance_measure="diff", reduction="max", ci=None)
    a, b = _subgroup_truth(res.table, truth, lambda p: p.rate(quantity))
    return reduce_true(np.abs(a - b), _used(res.table), "max")


def fam_models(data, truth: Truth, c: Collector, n_boot, margin):
    """Differences between two models (the score at 0.5 and at 0.6: ``compare_models``' paired bootstrap), and the
    correlation score of the predictions with a numeric attribute (Fisher's z interval)."""
    y, groups = data["y"], data["groups"]
    pred_b = (data["score"] >= 0.6).astype(np.int8)
    table = fc.compare_models(y, {"A": data["pred"], "B": pred_b}, groups, baseline="A",
                              quantities=tuple(MODEL_QUANTITIES), ci=LEVEL, n_boot=n_boot, random_state=0, sample_weight=data["w"])
    row = table[table["model"] == "B"].set_index("quantity")
    truth_b, counts_b = truth.at(HIGH_B), fc.confusion_counts(y, pred_b, groups, sample_weight=data["w"])
    for quantity, label in MODEL_QUANTITIES.items():
        true = _model_truth(truth_b, counts_b, quantity) - _model_truth(truth, data["counts"], quantity)
        c.add(("Differences between two models (paired bootstrap)", f"difference between models: {label}"),
              row.loc[quantity, "difference_ci_low"], row.loc[quantity, "difference_ci_high"], true)
    # AUCs (paired DeLong) and ECEs (paired bootstrap) of a second score that ranks and calibrates differently.
    second = second_score(truth.model, data["score"], data["pattern"])
    true_b = second_truth_of(truth.model.name)
    section = "Differences between two models (paired DeLong, paired bootstrap)"
    aucs = fc.compare_model_aucs(y, {"A": data["score"], "B": second}, groups, baseline="A", ci=LEVEL, sample_weight=data["w"])
    aucs = aucs[(aucs["model"] == "B") & ~aucs["small"].fillna(False).astype(bool)]
    for kind, label in AUC_LABELS.items():
        rows = aucs[aucs["auc"] == kind]
        if kind == "subgroup_auc" and truth.model.disjoint:
            continue   # the same ranking within a disjoint group: a difference of 0 with no variance
        subs = [None if pd.isna(sub) else sub for sub in rows["subgroup"]]
        true = [true_b[kind, sub] - _first_truth(truth, kind, sub) for sub in subs]
        c.add_rows(section, f"difference between models: {label}", rows.assign(subgroup=[str(x) for x in subs]),
                   "difference_ci_low", "difference_ci_high", true)
    eces = fc.compare_model_calibration(y, {"A": data["score"], "B": second}, groups, baseline="A", n_bins=N_BINS,
                                        ci=LEVEL, n_boot=n_boot, random_state=0, sample_weight=data["w"])
    eces = eces[(eces["model"] == "B") & ~eces["small"].fillna(False).astype(bool)]
    subs = [None if pd.isna(sub) else sub for sub in eces["subgroup"]]
    true = [true_b["ece", sub] - _first_truth(truth, "ece", sub) for sub in subs]
    c.add_rows(section, "difference between models: ECE (plug-in)", eces.assign(subgroup=[str(x) for x in subs]),
               "difference_ci_low", "difference_ci_high", true)
    x = attribute(truth.model, data["pattern"], data["rng"])
    res = fc.correlation_score(data["pred"], x, ci=LEVEL, sample_weight=data["w"])
    c.add(("Correlation score", "correlation score (Fisher's z)"), res.ci_low, res.ci_high, true_correlation(truth))


FAMILY_FUNCTIONS = {"rates": fam_rates, "performance": fam_performance, "disparities": fam_disparities,
                    "scores": fam_scores, "theil": fam_theil, "aucs": fam_aucs, "calibration": fam_calibration,
                    "labels": fam_labels, "classwise": fam_classwise, "models": fam_models, "adjusted": fam_adjusted,
                    "references": fam_references, "consistency": fam_consistency}


def evaluate_dataset(task) -> Collector:
    """Draw data set `index` of `setting` and collect every interval of `families` against its truth."""
    setting, index, rows, n_boot, families, margin, seed = task
    model, truth = MODELS[setting], truth_of(setting)
    rng = np.random.default_rng([seed, list(MODELS).index(setting), index])
    data = draw(model, rows, rng)
    data["rng"] = rng   # for what a family draws besides (after draw, so the data sets stay the same)
    c = Collector(model.small)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data["counts"] = fc.confusion_counts(data["y"], data["pred"], data["groups"], sample_weight=data["w"])
        data["calcounts"] = fc.calibration_counts(data["y"], data["score"], data["groups"], n_bins=N_BINS,
                                                  sample_weight=data["w"])
        for family in families:
            if model.families is not None and family not in model.families:
                continue
            try:
                FAMILY_FUNCTIONS[family](data, truth, c, n_boot, margin)
            except Exception as exc:   # noqa: BLE001 - counted and reported, never hidden
                c.errors.append(f"{family}: {type(exc).__name__}: {str(exc)[:160]}")
    c.errors += [f"warning {w.category.__name__}: {str(w.message)[:160]}" for w in caught]
    return c


# =====================================================================================================
# Truth check: the library's point estimates on one large sample against the truth
# =====================================================================================================

def check_truth(setting: str, rows: int, seed: int = 12345) -> dict:
    """Largest |library estimate on `rows` rows - truth|, per kind of quantity (and the worst quantity)."""
    model, truth = MODELS[setting], truth_of(setting)
    data = draw(model, rows, np.random.default_rng([seed, list(MODELS).index(setting)]))
    y, groups, w = data["y"], data["groups"], {"sample_weight": data["w"]}
    out = {}

    def note(kind, what, estimate, true):
        diff = np.atleast_1d(np.abs(np.asarray(estimate, dtype=float) - np.asarray(true, dtype=float)))
        if np.all(np.isnan(diff)):
            return
        at = int(np.nanargmax(diff))
        if kind not in out or diff[at] > out[kind][0]:
            out[kind] = (float(diff[at]), what if np.ndim(what) == 0 else list(what)[at])

    table = fc.group_rates(y, data["pred"], groups, **w)
    for rate in RATES:
        note("rates", [f"{SHORT[rate]} {s}" for s in table["subgroup"]], table[rate],
             [truth.rate(s, rate) for s in table["subgroup"]])
    aucs = fc.bias_auc_table(y, data["score"], groups, **w)
    for column in ("subgroup_auc", "bpsn_auc", "bnsp_auc"):
        note("AUCs", [f"{column} {s}" for s in aucs["subgroup"]], aucs[column],
             [truth.aucs(s)[column] for s in aucs["subgroup"]])
    note("AUCs", "overall AUC", aucs.attrs["overall_auc"], auc(truth.overall.mass[1], truth.overall.mass[0]))
    errors = fc.calibration_errors(y, data["score"], groups, n_bins=N_BINS, **w)
    for column, value in (("ece", lambda p: p.ece), ("brier_score", lambda p: p.brier)):
        note("calibration", [f"{column} {s}" for s in errors["subgroup"]], errors[column],
             [value(truth.member[s]) for s in errors["subgroup"]])
    theil = fc.theil_index(y, data["pred"], groups, reduction=None, **w)
    note("Theil", [f"Theil {s}" for s in theil["subgroup"]], theil["disparity"],
         [truth.theil(s) for s in theil["subgroup"]])
    note("Theil", "individual Theil", fc.individual_theil_index(y, data["pred"], **w), truth.overall.individual_theil)
    base = fc.base_rates(y, groups, **w)
    note("base rates", [f"base rate {s}" for s in base["subgroup"]], base["base_rate"],
         [truth.member[s].base_rate for s in base["subgroup"]])
    if model.families is not None and "models" not in model.families:
        return out   # the model comparisons' truth needs a population per pattern
    pred_b = (data["score"] >= 0.6).astype(np.int8)
    table = fc.compare_models(y, {"A": data["pred"], "B": pred_b}, groups, baseline="A",
                              quantities=tuple(MODEL_QUANTITIES), ci=None, **w)
    row = table[table["model"] == "B"].set_index("quantity")
    counts_a, counts_b = fc.confusion_counts(y, data["pred"], groups, **w), fc.confusion_counts(y, pred_b, groups, **w)
    for quantity, label in MODEL_QUANTITIES.items():
        note("model differences", f"B - A: {label}", row.loc[quantity, "difference"],
             _model_truth(truth.at(HIGH_B), counts_b, quantity) - _model_truth(truth, counts_a, quantity))
    second, true_b = second_score(model, data["score"], data["pattern"]), second_truth_of(setting)
    aucs = fc.compare_model_aucs(y, {"A": data["score"], "B": second}, groups, baseline="A", ci=None, **w)
    aucs = aucs[aucs["model"] == "B"]
    note("model differences", [f"B - A: {k} {s}" for k, s in zip(aucs["auc"], aucs["subgroup"])], aucs["difference"],
         [true_b[k, None if pd.isna(s) else s] - _first_truth(truth, k, None if pd.isna(s) else s)
          for k, s in zip(aucs["auc"], aucs["subgroup"])])
    eces = fc.compare_model_calibration(y, {"A": data["score"], "B": second}, groups, baseline="A", n_bins=N_BINS,
                                        ci=None, **w)
    eces = eces[eces["model"] == "B"]
    note("model differences", [f"B - A: ECE {s}" for s in eces["subgroup"]], eces["difference"],
         [true_b["ece", None if pd.isna(s) else s] - _first_truth(truth, "ece", None if pd.isna(s) else s)
          for s in eces["subgroup"]])
    x = attribute(model, data["pattern"], np.random.default_rng(seed))
    note("correlation", "correlation score", fc.correlation_score(data["pred"], x, **w), true_correlation(truth))
    if "cls" in data:
        uab = fc.unweighted_average_bias(data["cls"], data["cls_pred"], groups, **w)
        est = uab.table
        note("class-wise", [f"F-score {s} class {k}" for s, k in zip(est["subgroup"], est["class"])], est["fscore"],
             [truth.class_scores(s)["fscore"][int(k)] for s, k in zip(est["subgroup"], est["class"])])
    return out


# =====================================================================================================
# Summaries and the Markdown report
# =====================================================================================================

def summarize(collectors) -> tuple[dict, dict, Counter]:
    """(intervals, verdicts, problems) of many data sets' collectors.

    intervals: key -> dict(n, covered, above, below, no_interval, coverage, se, share_above, share_below);
    verdicts: rule name -> dict(label, bound, counts of (verdict, truth status), truths).
    """
    pooled = defaultdict(lambda: [[], [], [], []])
    verdicts: dict = {}
    problems: Counter = Counter()
    for col in collectors:
        for key, *arrays in col.intervals:
            for store, values in zip(pooled[key], arrays):
                store.append(values)
        for name, label, bound, direction, status, truth_status, value in col.verdicts:
            v = verdicts.setdefault(name, {"label": label, "bound": bound, "direction": direction,
                                           "counts": Counter(), "truths": []})
            v["counts"][(status, truth_status)] += 1
            v["truths"].append(value)
        problems.update(col.errors)
    intervals = {}
    for key, (low, high, true, weight) in pooled.items():
        low, high, true, weight = (np.concatenate(x) for x in (low, high, true, weight))
        defined = ~np.isnan(true)
        shown = defined & ~np.isnan(low) & ~np.isnan(high)
        lo, hi, tr, w = low[shown], high[shown], true[shown], weight[shown]
        above = lo > tr + TOL
        below = hi < tr - TOL
        total = float(w.sum())
        n = int(round(total))   # intervals (or, for weighted rows, data sets)
        effective = total ** 2 / float((w * w).sum()) if total else 0.0   # Kish's effective number of intervals
        share = (lambda mask: float(w[mask].sum()) / total) if total else (lambda mask: np.nan)
        coverage = 1.0 - share(above) - share(below) if total else np.nan   # 279 / 300 is exactly 0.93
        with np.errstate(invalid="ignore"):   # inf - inf: an interval of an infinite ratio has no width
            span = hi - lo
        finite = np.isfinite(span) & (w > 0)
        width = float(np.average(span[finite], weights=w[finite])) if finite.any() else np.nan
        intervals[key] = {"n": n, "no_interval": int((defined & ~shown).sum()), "coverage": coverage,
                          "se": float(np.sqrt(coverage * (1 - coverage) / effective)) if total else np.nan,
                          "above": share(above), "below": share(below), "width": width}
    return intervals, verdicts, problems


def simulate(setting: str, datasets: int, *, rows: int = 2000, n_boot: int = 500, families=FAMILIES,
             margin: float = 0.01, seed: int = 0, pool=None, progress=None):
    """The core: `datasets` data sets of `setting`, each with every interval of `families` (summarize's output).

    In this process, or in `pool` (a ``multiprocessing`` pool: its workers imported fairness_core when it started).
    """
    tasks = [(setting, i, rows, n_boot, tuple(families), margin, seed) for i in range(datasets)]
    results = map(evaluate_dataset, tasks) if pool is None else pool.imap(evaluate_dataset, tasks, chunksize=2)
    collectors = []
    for i, col in enumerate(results):
        collectors.append(col)
        if progress:
            progress(i + 1)
    return summarize(collectors)


def within_band(coverage: float) -> bool:
    """Coverage within 93-97 %, to rounding."""
    return 0.93 - 1e-12 <= coverage <= 0.97 + 1e-12


def _cell(s: dict | None) -> str:
    if s is None or not s["n"]:
        return "–"
    flag = "" if within_band(s["coverage"]) else "**"
    return (f"{flag}{100 * s['coverage']:.1f}{flag} ±{100 * s['se']:.1f} "
            f"({100 * s['above']:.1f}/{100 * s['below']:.1f})")


def _width_cell(now: dict | None, before: dict | None) -> str:
    if now is None or not now["n"] or not np.isfinite(now.get("width", np.nan)):
        return "–"
    text = f"{now['width']:.3g}"
    if before and before.get("width") and np.isfinite(before["width"]) and before["width"] > 0:
        text += f" ({now['width'] / before['width']:.2f}×)"
    return text


def _power(counts: Counter) -> str:
    """Right verdicts where the truth is clear: passes where it passes, fails where it fails (by the margin)."""
    clear = {t: sum(n for (_, truth), n in counts.items() if truth == t) for t in ("pass", "fail")}
    right = counts[("pass", "pass")] + counts[("fail", "fail")]
    total = clear["pass"] + clear["fail"]
    return f"{100 * right / total:.1f}" if total else "–"


def findings(results: dict) -> list[str]:
    """Every (quantity, setting) whose coverage is outside 93-97 %."""
    lines = []
    for setting, (intervals, _, _) in results.items():
        for (section, label), s in intervals.items():
            if s["n"] and not within_band(s["coverage"]):
                lines.append((section, label, setting, s))
    lines.sort(key=lambda x: (x[0], x[1]))
    return [f"| {section} | {label} | {setting} | {100 * s['coverage']:.1f} ±{100 * s['se']:.1f} | "
            f"{100 * s['above']:.1f} | {100 * s['below']:.1f} | {s['n']:,} |" for section, label, setting, s in lines]


def report(results: dict, args, header: list[str]) -> str:
    settings = list(results)
    keys = []
    for intervals, _, _ in results.values():
        keys += [k for k in intervals if k not in keys]
    sections = list(dict.fromkeys(k[0] for k in keys))
    out = header + [""]
    out += ["## Coverage of the 95 % intervals", "",
            "Each cell: coverage in % (**bold** outside 93–97 %) ± its binomial standard error over the intervals "
            "pooled, then (misses above / misses below) in %: an interval entirely above the truth, entirely below "
            "it. '– ' : not computed in that setting. Per-subgroup and per-comparison rows pool every subgroup "
            "(or comparison with the rest) of every data set; ': small subgroup' rows are the ~3 % group alone "
            "(D, or id_d).", ""]
    out.append("| quantity | " + " | ".join(settings) + " |")
    out.append("|---|" + "---:|" * len(settings))
    for section in sections:
        out.append(f"| **{section}** |" + " |" * len(settings))
        for key in (k for k in keys if k[0] == section):
            out.append(f"| {key[1]} | " + " | ".join(_cell(results[s][0].get(key)) for s in settings) + " |")
    previous = getattr(args, "previous_data", None)
    out += ["", "## Width of the intervals", "",
            "Each cell: the mean width of the intervals (finite ones; for a ratio, in its units), then"
            + (f" its ratio to the previous run's ({args.previous.name}: {previous['run']})." if previous else ".")
            + " An interval's width is what decides between 'inconclusive' and a verdict.", ""]
    out.append("| quantity (mean width) | " + " | ".join(settings) + " |")
    out.append("|---|" + "---:|" * len(settings))
    for section in sections:
        out.append(f"| **{section}** |" + " |" * len(settings))
        for key in (k for k in keys if k[0] == section):
            cells = []
            for s in settings:
                now = results[s][0].get(key)
                before = (previous or {}).get("settings", {}).get(s, {}).get("intervals", {}).get(f"{key[0]} | {key[1]}")
                cells.append(_width_cell(now, before))
            out.append(f"| {key[1]} | " + " | ".join(cells) + " |")
    out += ["", "## Quantities outside 93–97 %", "",
            "| section | quantity | setting | coverage % ± SE | misses above % | misses below % | intervals |",
            "|---|---|---|---:|---:|---:|---:|"]
    out += findings(results) or ["| none | | | | | | |"]
    out += ["", "## Policy verdicts", "",
            f"Per rule and setting: the true value (its range where the comparisons reduced vary between data sets), "
            f"the share of data sets with each verdict, and the wrong verdicts: 'fail' where the truth passes by at "
            f"least the margin ({args.margin:g} in the rule's units), 'pass' where the truth fails. 'edge': truth "
            "within the margin of the bound (no verdict counts as wrong). Power: the share of data sets given the "
            "right verdict where the truth passes or fails by at least the margin"
            + (", and the previous run's beside it." if previous else "."), "",
            "| setting | rule | truth | truth status | data sets | pass % | inconclusive % | fail % | undefined % | "
            "wrong verdicts % | power % |" + (" previous power % |" if previous else ""),
            "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if previous else "")]
    for setting in settings:
        for name, v in results[setting][1].items():
            counts = v["counts"]
            total = sum(counts.values())
            by_verdict = Counter()
            by_truth = Counter()
            for (status, truth_status), k in counts.items():
                by_verdict[status] += k
                by_truth[truth_status] += k
            wrong = counts[("fail", "pass")] + counts[("pass", "fail")]
            judged = by_truth["pass"] + by_truth["fail"]
            truths = np.array(v["truths"], dtype=float)
            lo, hi = np.nanmin(truths), np.nanmax(truths)
            rng_text = f"{lo:.3f}" if np.isclose(lo, hi, atol=5e-4) else f"{lo:.3f}–{hi:.3f}"
            status = ", ".join(f"{k} {100 * n / total:.0f} %" if 100 * n / total >= 0.5 else f"{k} <1 %"
                               for k, n in by_truth.most_common())
            shares = " | ".join(f"{100 * by_verdict[k] / total:.1f}" for k in ("pass", "inconclusive", "fail",
                                                                                "undefined"))
            wrong_text = f"{100 * wrong / judged:.1f}" if judged else "–"
            row = (f"| {setting} | {v['label']} | {rng_text} ({'≤' if v['direction'] == 'max' else '≥'} "
                   f"{v['bound']:g}) | {status} | {total} | {shares} | {wrong_text} | {_power(counts)} |")
            if previous:
                before = previous.get("settings", {}).get(setting, {}).get("verdicts", {}).get(name)
                row += (f" {_power(Counter({(a, b): n for a, b, n in before['counts']}))} |" if before else " – |")
            out.append(row)
    problems = Counter()
    for _, _, p in results.values():
        problems.update(p)
    if problems:
        out += ["", "## Errors and warnings raised by the library (counted, not hidden)", ""]
        out += [f"- {n} × {text}" for text, n in problems.most_common(20)]
    return "\n".join(out) + "\n"


def measured(report_text: str) -> dict:
    """The coverage table of a report (:func:`report`'s Markdown) as data, for the app's notes.

    Returns ``{"run": the report's "Run ..." line, "settings": [names], "rows": [{"section", "quantity",
    "coverage": {setting: % or None}, "above": {...}, "below": {...}}]}``: what ``fairness_dashboard/measured_coverage.json``
    holds (``--json PATH`` writes it; ``--json-from REPORT`` rebuilds it from a saved report).
    """
    lines = report_text.splitlines()
    run = next((line for line in lines if line.startswith("Run ")), "")
    start = lines.index(next(line for line in lines if line.startswith("| quantity |")))
    settings = [cell.strip() for cell in lines[start].strip("|").split("|")[1:]]
    rows, section = [], ""
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0].startswith("**"):
            section = cells[0].strip("*")
            continue
        row = {"section": section, "quantity": cells[0], "coverage": {}, "above": {}, "below": {}}
        for setting, cell in zip(settings, cells[1:]):
            found = re.match(r"\**([\d.]+)\**\s+±[\d.]+\s+\(([\d.]+)/([\d.]+)\)", cell)
            for key, group in (("coverage", 1), ("above", 2), ("below", 3)):
                row[key][setting] = float(found.group(group)) if found else None
        rows.append(row)
    return {"run": run, "settings": settings, "rows": rows}


def _git(*args) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30).stdout.rstrip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def source_digest() -> str:
    """SHA-256 (first 12 hex digits) of fairness_core's .py files as they are on disk (uncommitted edits included)."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "fairness_core").rglob("*.py")):
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


# Subgroup discovery --------------------------------------------------------------------------------------------
# fc.discover_subgroups' goals are measured by benchmarks/discovery.py (its simulation: 10 attributes, 10^5 rows);
# this section sets them beside the intervals above, from a run made now or from its saved results.
DISCOVERY_RESULTS = ROOT / "benchmarks" / "results-discovery.json"


def discovery_rows(runs: int = 0, first_seed: int = 0) -> list:
    """The discovery goals and what was measured: ``[(goal, measured share, runs, met)]``.

    With `runs` > 0, ``benchmarks/discovery.py``'s simulation is run now (`runs` runs per setting, seeds
    `first_seed` ...); otherwise its saved results (``benchmarks/results-discovery.json``) are read, every block of
    seeds pooled. Goals: with no true disparity at most 5 % of runs report any discovery; a planted disparity (a 2 %
    intersection of depth 2 among 10 attributes, 10^5 rows) in the top 3 in at least 80 % of runs; the top
    subgroup's interval covers its truth 93-97 % (each setting); and, for the BPSN and BNSP AUCs and the calibration
    error of a calibrated score with no disparity (``score_null``), the same two goals on the null."""
    import importlib.util
    import json

    if runs > 0:
        spec = importlib.util.spec_from_file_location("discovery_benchmark", ROOT / "benchmarks" / "discovery.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        blocks = [module.simulation(runs, 100_000, 0.10, first_seed)]
        scores = module.score_null(runs, 100_000, first_seed)
    else:
        results = json.loads(DISCOVERY_RESULTS.read_text())
        saved, scores = results["simulation"], results.get("scores", {})
        blocks = [saved] if "null" in saved else [b for b in saved.values() if "null" in b and "planted" in b]

    def pooled(setting: str, key: str) -> tuple:
        n = sum(b[setting]["runs"] for b in blocks)
        return sum(b[setting][key] * b[setting]["runs"] for b in blocks) / n, n

    rows = []
    share, n = pooled("null", "any_discovery")
    rows.append(("no true disparity: runs reporting any discovery ≤ 5 %", share, n, share <= 0.05))
    share, n = pooled("planted", "planted_in_top_3")
    rows.append(("planted disparity (2 % of rows, depth 2, effect +0.10): in the top 3 ≥ 80 %", share, n,
                 share >= 0.80))
    for setting in ("null", "planted"):
        share, n = pooled(setting, "top_coverage")
        rows.append((f"top subgroup's 95 % interval covers its truth ({setting}): 93–97 %", share, n,
                     within_band(share)))
    for quantity, r in scores.items():   # a calibrated score, no disparity: every true difference is 0
        rows.append((f"{quantity}, no true disparity: runs reporting any discovery ≤ 5 %", r["any_discovery"],
                     r["runs"], r["any_discovery"] <= 0.05))
        rows.append((f"{quantity}, no true disparity: top subgroup's interval covers 0: 93–97 %", r["top_coverage"],
                     r["runs"], within_band(r["top_coverage"])))
    return rows


def discovery_section(runs: int = 0, first_seed: int = 0) -> str:
    """The report's section on subgroup discovery (Markdown): :func:`discovery_rows` as a table."""
    source = (f"run now, {runs} runs per setting from seed {first_seed}" if runs > 0 else
              f"read from {DISCOVERY_RESULTS.relative_to(ROOT)}, every block of seeds pooled")
    out = ["## Subgroup discovery", "",
           "`fc.discover_subgroups` (the Discover subgroups page) searches on one half of the rows and estimates on "
           "the other; `benchmarks/discovery.py` simulates 10 independent attributes (2 to 10 values), 10⁵ rows and a "
           "selection rate of 0.30, searched at depth 2 (minimum size 30, top 10, holdout 0.5, 95 %); for the "
           "quantities of a score, a score ~ Uniform(0, 1) and a label ~ Bernoulli(score) in every row (no "
           f"disparity). Results {source}.", "",
           "| goal | measured | runs | met |", "|---|---:|---:|---|"]
    for goal, share, n, met in discovery_rows(runs, first_seed):
        out.append(f"| {goal} | {100 * share:.1f} % | {n} | {'yes' if met else '**no**'} |")
    return "\n".join(out)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", type=int, default=300, help="data sets per setting")
    parser.add_argument("--quick", action="store_true", help="20 data sets per setting")
    parser.add_argument("--discovery-runs", type=int, default=0,
                        help="run benchmarks/discovery.py's simulation with this many runs per setting for the "
                             "discovery section (default 0: read benchmarks/results-discovery.json)")
    parser.add_argument("--n-boot", type=int, default=500)
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--settings", default=",".join(MODELS))
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--truth-rows", type=int, default=1_000_000)
    parser.add_argument("--margin", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--all-buckets", action="store_true",
                        help="every bootstrap by the engines' per-bucket tables' law (BUCKETS buckets of rows)")
    parser.add_argument("--out", type=Path, default=None, help="also write the Markdown report here")
    parser.add_argument("--json", type=Path, default=None,
                        help=f"also write its coverage table as JSON here (the app reads {MEASURED.relative_to(ROOT)})")
    parser.add_argument("--raw", type=Path, default=None,
                        help="also write every summary (coverage, misses, mean width, verdict counts) as JSON here")
    parser.add_argument("--previous", type=Path, default=None, metavar="RAW",
                        help="an earlier run's --raw file: its widths and power are set beside this run's")
    parser.add_argument("--json-from", type=Path, default=None, metavar="REPORT",
                        help="only write --json (default: the app's file) from a saved report")
    args = parser.parse_args(argv)
    if args.json_from is not None:
        _write_measured(args.json_from.read_text(), args.json or MEASURED)
        return
    args.previous_data = None
    if args.previous is not None:
        import json

        args.previous_data = json.loads(args.previous.read_text())
    if args.quick:
        args.datasets = min(args.datasets, 20)
        args.truth_rows = min(args.truth_rows, 200_000)
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    unknown = [s for s in settings if s not in MODELS] + [f for f in families if f not in FAMILY_FUNCTIONS]
    if unknown:
        parser.error(f"unknown setting(s) or families {unknown}; settings: {list(MODELS)}; families: {list(FAMILIES)}")

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")   # inherited by the worker processes: they are the parallelism
    if args.all_buckets and not os.environ.get(ALL_BUCKETS):   # this process (imported already) and the workers
        from fairness_core._stats import bootstrap as _bootstrap

        os.environ[ALL_BUCKETS] = "1"
        _bootstrap.BUCKET_PATTERNS = 0
    load_start = os.getloadavg()[1]
    started = time.perf_counter()
    command = " ".join([".venv/bin/python benchmarks/coverage.py", *(sys.argv[1:] if argv is None else argv)])
    commit = _git("rev-parse", "--short", "HEAD")
    dirty = [line[3:] for line in _git("status", "--porcelain", "--", "fairness_core").splitlines() if line.strip()]
    # One pool for the whole run, started now: every setting is measured on the library as it is at this moment,
    # even if its files change during the run (this process and the workers import fairness_core once).
    pool = multiprocessing.get_context("spawn").Pool(args.processes) if args.processes > 1 else None
    digest = source_digest()
    checks, results = {}, {}
    for setting in settings:
        checks[setting] = check_truth(setting, args.truth_rows)
    for setting in settings:
        t0 = time.perf_counter()

        def progress(done, setting=setting, t0=t0):
            if done % 25 == 0 or done == args.datasets:
                rate = (time.perf_counter() - t0) / done
                print(f"  {setting}: {done}/{args.datasets} data sets, {rate:.2f} s each, "
                      f"{rate * (args.datasets - done):.0f} s left", file=sys.stderr, flush=True)

        results[setting] = simulate(setting, args.datasets, rows=args.rows, n_boot=args.n_boot, families=families,
                                    margin=args.margin, seed=args.seed, pool=pool, progress=progress)
    if pool is not None:
        pool.close()
        pool.join()
    elapsed = time.perf_counter() - started
    changed = source_digest() != digest

    header = [
        "# Coverage of the intervals and error rates of the verdicts", "",
        "Reproduce with:", "", "```bash", command.strip(), "```", "",
        f"Run {_dt.datetime.now().strftime('%Y-%m-%d %H:%M')}, commit {commit}"
        + (f" with uncommitted changes to {', '.join(dirty)}" if dirty else "")
        + f" (fairness_core sources sha256 {digest}"
        + (", changed on disk during the run: measured as they were at its start" if changed else "")
        + f"); Python {platform.python_version()}, numpy "
          f"{np.__version__}, pandas {pd.__version__}; {os.cpu_count()} CPUs, {args.processes} processes; "
          f"{elapsed / 60:.1f} min (5-minute load average {load_start:.1f} at the start, "
          f"{os.getloadavg()[1]:.1f} at the end: other processes share the CPUs).", "",
        f"{args.datasets} data sets of {args.rows:,} rows per setting; every interval at 95 % with "
        f"n_boot = {args.n_boot} (the app's default is 1,000), bootstrap seed 0, reference 'rest', small "
        f"subgroups (min_size 30, by rows or by a rate's denominator) left out of reductions, as the app does. "
        f"Predictions: score ≥ 0.5; calibration: {N_BINS} uniform bins. The module docstring of "
        "`benchmarks/coverage.py` describes the settings and how the truth is computed.", "",
        "Settings: " + "; ".join(f"**{s}**: {MODELS[s].title}" for s in settings) + ".", "",
        f"Truth check (the library's point estimates on one sample of {args.truth_rows:,} rows against the truth "
        "computed from the model; the differences are sampling error of that sample): "
        + "; ".join(f"{s}: " + ", ".join(f"{k} {v[0]:.4f} ({v[1]})" for k, v in c.items()) for s, c in checks.items())
        + ".",
    ]
    text = report(results, args, header) + "\n\n" + discovery_section(args.discovery_runs) + "\n"
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
        print(f"written to {args.out}", file=sys.stderr)
    if args.json is not None:
        _write_measured(text, args.json)
    if args.raw is not None:
        write_raw(results, args.raw, next(line for line in header if line.startswith("Run ")))


def write_raw(results: dict, path: Path, run: str) -> None:
    """Every setting's summaries as JSON: ``{"run": the report's "Run ..." line, "settings": {setting: {"intervals":
    {"section | quantity": stats}, "verdicts": {rule: {"label", "bound", "direction", "counts": [[verdict, truth
    status, n], ...]}}}}}``,
    read back by ``--previous`` to set this run's widths and verdicts beside an earlier one's."""
    import json

    out = {"run": run, "settings": {}}
    for setting, (intervals, verdicts, _) in results.items():
        out["settings"][setting] = {
            "intervals": {f"{k[0]} | {k[1]}": v for k, v in intervals.items()},
            "verdicts": {name: {"label": v["label"], "bound": v["bound"], "direction": v["direction"],
                                "counts": [[a, b, n] for (a, b), n in v["counts"].items()]}
                         for name, v in verdicts.items()}}
    path.write_text(json.dumps(out, indent=0, default=float) + "\n")
    print(f"written to {path}", file=sys.stderr)


def _write_measured(report_text: str, path: Path) -> None:
    import json

    path.write_text(json.dumps(measured(report_text), indent=1, ensure_ascii=False) + "\n")
    print(f"written to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
