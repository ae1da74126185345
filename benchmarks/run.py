# More than 500 lines: one concept (the benchmark against peer tools: its sections share one data set and one report).
"""Benchmark: fairness_core against the tools a user would pick instead, at 10^6 rows, in one run.

    python benchmarks/run.py [--rows 1000000] [--subgroups 20] [--repeats 3] [--out results.json] [--quick] [--targets]
                             [--skip side,import,intervals,audit,incremental,loading,memory,app]
    python benchmarks/run.py --engine duckdb|spark|polars [--rows 100000000] [engines.py options]

The peers are optional, benchmark-only dependencies: ``pip install '.[app,bench]'`` in an
environment of its own (see benchmarks/README.md).

One seeded data set (disjoint subgroups: race x sex, 8 of them; ``--subgroups`` overlapping identity
indicator columns; three score columns, untied, tied to two decimals and integer deciles; a binary
and a three-class label; two standardised features) feeds every section:

1. side by side: each metric computed by ours (called as a user calls it, with the raw attribute
   columns, and again with a prepared ``Subgroups``) and by its peer (the literal Jigsaw Unintended Bias benchmark code,
   guardian-ai, ``calibration_curve`` per mask, an ExFairness-style literal, audmetric, aif360,
   Fairlearn's ``MetricFrame``, a plain pandas groupby, scikit-lego); the implementations of a row
   run interleaved, each ``--repeats`` times, and the medians of CPU seconds (``time.process_time``:
   every thread of the process) and wall seconds are reported; ratio = peer / ours (CPU);
1b. the import: ``python -c "import fairness_core"`` against ``python -c "import pandas, numpy"``, fresh
   processes interleaved, both from compiled bytecode (see ``import_rows``);
2. intervals on every metric at 1,000 replicates (the metrics of ``benchmarks/intervals.py``);
3. the full audit: every number every page shows at default options, from a DataFrame;
4. the incremental cost of a threshold, p, distance, reduction, reference or n_bins change;
5. CSV and Parquet loading, with peak memory and bytes per row; the end-to-end peak (load + audit)
   in a fresh process;
6. the app: each page's first run and the rerun after each main control change on the uploaded
   file, through ``streamlit.testing.v1.AppTest`` (in a child process; wall seconds of the script).

The report ends with the library's speed targets (AUC family >= 50x the literal code, seven rates from raw columns >= 1.2x
a pandas groupby of the same counts, calibration >= 3x the calibration_curve loop, the import <= 0.7 s), each
as measured in this run, with the machine's load average at its start and end.

Before it reports, every pair of implementations is checked to agree (1e-9, or the documented
definitional difference applied explicitly); any disagreement prints what differs and exits with
status 1. Missing peers are skipped with a note. Peak memory is the resident set size: the peak is
reset before each step (``/proc/self/clear_refs``) and read from ``VmHWM``; where that is not
available only the child processes' ``ru_maxrss`` is reported.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import datetime
import gc
import io
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(HERE))

import fairness_core as fc  # noqa: E402
import intervals as interval_bench  # noqa: E402  (benchmarks/intervals.py)

TOL = 1e-9
LEVEL, N_BOOT = 0.95, 1000  # the app's default intervals
RACES, RACE_P = ["White", "Black", "Hispanic", "Asian"], [0.55, 0.2, 0.17, 0.08]
SEXES, SEX_P = ["Female", "Male"], [0.48, 0.52]
SCORES = ("score", "score_tied", "decile")
APP_COLUMNS = ["race", "sex", "y", "score", "score_tied", "decile", "pred", "x1", "x2"]
# The app's metric pages in navigation order (the Overview is timed apart: it shows every page's results).
PAGES = ["pages/subgroup_aucs.py", "pages/rate_disparities.py", "pages/calibration.py", "pages/classwise.py",
         "pages/dataset_metrics.py", "pages/definitions.py"]
OVERVIEW, RATE_PAGE = "pages/overview.py", "pages/rate_disparities.py"
CONSISTENCY_BUTTON = "Compute consistency"
PEER_DISTRIBUTIONS = ("fairlearn", "oracle-guardian-ai", "aif360", "audmetric", "scikit-lego")  # versions reported


# Data -------------------------------------------------------------------------------------------


def make_data(n: int, n_identity: int = 20, seed: int = 0) -> pd.DataFrame:
    """`n` seeded rows: race x sex (8 disjoint subgroups), `n_identity` overlapping identity indicators
    (0.0/1.0, prevalence 1 % to 20 %), a binary label ``y``, a probability ``score`` without ties, the
    same rounded to two decimals (``score_tied``) and as integer deciles 1-10 (``decile``), the
    predicted label ``pred`` (score >= 0.5), a three-class label ``cls`` with its prediction
    ``cls_pred``, and two features ``x1``, ``x2`` standardised exactly (mean 0, population sd 1).
    """
    rng = np.random.default_rng(seed)
    race = rng.choice(RACES, n, p=RACE_P)
    sex = rng.choice(SEXES, n, p=SEX_P)
    identity = rng.random((n, n_identity)) < np.geomspace(0.01, 0.2, n_identity)
    features = rng.standard_normal((n, 2))
    features = (features - features.mean(axis=0)) / features.std(axis=0)
    offset = (pd.Series(race).map({"White": 0.2, "Black": -0.3, "Hispanic": 0.0, "Asian": 0.4}).to_numpy()
              + np.where(sex == "Female", -0.1, 0.1) + identity @ np.linspace(-0.5, 0.5, n_identity))
    logit = offset + 0.8 * features[:, 0] - 0.5 * features[:, 1] + rng.normal(0.0, 1.0, n)
    score = 1.0 / (1.0 + np.exp(-logit))
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-(logit + rng.normal(0.0, 1.0, n))))).astype(np.int64)
    frame = pd.DataFrame({
        "race": race, "sex": sex, "y": y, "score": score, "score_tied": np.round(score, 2),
        "decile": np.clip(np.ceil(score * 10), 1, 10).astype(np.int64), "pred": (score >= 0.5).astype(np.int64),
        "cls": np.digitize(logit, [-0.5, 0.7]), "cls_pred": np.digitize(logit + rng.normal(0.0, 0.7, n), [-0.5, 0.7]),
        "x1": features[:, 0], "x2": features[:, 1]})
    for j in range(n_identity):
        frame[f"id_{j:02d}"] = identity[:, j].astype(np.float64)
    return frame


def identity_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c.startswith("id_")]


# Measurement ------------------------------------------------------------------------------------


def _status_kib(field_name: str) -> int | None:
    try:
        text = Path("/proc/self/status").read_text()
    except OSError:
        return None
    found = re.search(rf"^{field_name}:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) if found else None


def _release_free_memory() -> None:
    """Hand freed memory back to the system, so that the RSS before a step counts only live objects: glibc keeps
    freed heap pages resident (malloc_trim returns them), pyarrow keeps its pool's."""
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
    if "pyarrow" in sys.modules:
        sys.modules["pyarrow"].default_memory_pool().release_unused()


def _libc():
    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _libc()


def _reset_peak() -> bool:
    """Reset this process's peak RSS (Linux: write 5 to /proc/self/clear_refs); False where unsupported."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


@dataclass
class Run:
    """One timed call: its result, CPU and wall seconds, and the peak RSS above the RSS before it (MiB)."""

    result: Any
    cpu: float
    wall: float
    peak_mib: float | None


def timed(call: Callable[[], Any]) -> Run:
    """Run `call` once, measuring CPU (all threads), wall time and its peak resident memory."""
    _release_free_memory()
    has_peak = _reset_peak()
    before = _status_kib("VmRSS")
    c0, w0 = time.process_time(), time.perf_counter()
    result = call()
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    peak = _status_kib("VmHWM") if has_peak else None
    return Run(result, cpu, wall, None if peak is None or before is None else (peak - before) / 1024)


@dataclass
class Timing:
    cpu: list = field(default_factory=list)
    wall: list = field(default_factory=list)
    peak_mib: float | None = None
    result: Any = None

    def add(self, run: Run) -> None:
        if not self.cpu:
            self.result, self.peak_mib = run.result, run.peak_mib
        self.cpu.append(run.cpu)
        self.wall.append(run.wall)

    def summary(self) -> dict:
        return {"cpu": statistics.median(self.cpu), "wall": statistics.median(self.wall), "cpu_runs": self.cpu,
                "wall_runs": self.wall, "peak_mib": self.peak_mib}


def interleaved(calls: dict[str, Callable[[], Any]], repeats: int) -> dict[str, Timing]:
    """Run every call `repeats` times, rotating their order each round (so a noisy moment hits all)."""
    names = list(calls)
    timings = {name: Timing() for name in names}
    for r in range(repeats):
        for name in names[r % len(names):] + names[: r % len(names)]:
            timings[name].add(timed(calls[name]))
    return timings


@contextlib.contextmanager
def quiet():
    """Silence the peers' own warnings (deprecations, pandas copy-on-write notices): not ours to fix."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def peer(call: Callable[[], Any]) -> Callable[[], Any]:
    def run():
        with quiet():
            return call()
    return run


# Agreement ----------------------------------------------------------------------------------------


class Checks:
    """The agreement checks of the run: each is recorded, and the run fails if any did not pass."""

    def __init__(self) -> None:
        self.records: list[dict] = []

    def close(self, what: str, ours, theirs, *, note: str = "") -> None:
        a, b = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
        ok = a.shape == b.shape and bool(np.allclose(a, b, rtol=TOL, atol=TOL, equal_nan=True))
        difference = np.abs(a - b) if a.shape == b.shape else np.array([np.nan])
        finite = difference[np.isfinite(difference)]
        gap = float(finite.max()) if finite.size else (0.0 if ok else float("nan"))
        self.records.append({"check": what, "passed": ok, "max_abs_difference": gap, "note": note,
                             **({} if ok else {"ours": a.ravel()[:20].tolist(), "peer": b.ravel()[:20].tolist()})})

    def equal(self, what: str, ours, theirs, *, note: str = "") -> None:
        arrays = isinstance(ours, (np.ndarray, pd.Series)) or isinstance(theirs, (np.ndarray, pd.Series))
        ok = bool(np.array_equal(np.asarray(ours), np.asarray(theirs))) if arrays else ours == theirs
        self.records.append({"check": what, "passed": ok, "max_abs_difference": 0.0 if ok else float("nan"),
                             "note": note})

    @property
    def failed(self) -> list[dict]:
        return [r for r in self.records if not r["passed"]]


# The literal peer code ------------------------------------------------------------------------------
# Jigsaw bias-aware AUC, written from its definition: roc_auc_score per mask.


def seed_power_mean(scores, p=-5):
    scores = np.array(scores)
    return np.power(np.mean(np.power(scores, p)), 1 / p)


def seed_subgroup_auc(df, subgroup, label, pred):
    from sklearn.metrics import roc_auc_score
    subset = df[df[subgroup] >= 0.5]
    return roc_auc_score(subset[label] >= 0.5, subset[pred])


def seed_bpsn_auc(df, subgroup, label, pred):
    from sklearn.metrics import roc_auc_score
    mask = ((df[subgroup] >= 0.5) & (df[label] < 0.5)) | ((df[subgroup] < 0.5) & (df[label] >= 0.5))
    subset = df[mask]
    return roc_auc_score(subset[label] >= 0.5, subset[pred])


def seed_bnsp_auc(df, subgroup, label, pred):
    from sklearn.metrics import roc_auc_score
    mask = ((df[subgroup] >= 0.5) & (df[label] >= 0.5)) | ((df[subgroup] < 0.5) & (df[label] < 0.5))
    subset = df[mask]
    return roc_auc_score(subset[label] >= 0.5, subset[pred])


def seed_final_metric(df, identity_cols, label, pred, overall_weight=0.25):
    """The benchmark's final_metric, also returning the three per-subgroup AUC lists (for the agreement check)."""
    from sklearn.metrics import roc_auc_score
    overall = roc_auc_score(df[label] >= 0.5, df[pred])
    sub_aucs = [seed_subgroup_auc(df, c, label, pred) for c in identity_cols]
    bpsn_aucs = [seed_bpsn_auc(df, c, label, pred) for c in identity_cols]
    bnsp_aucs = [seed_bnsp_auc(df, c, label, pred) for c in identity_cols]
    bias = np.mean([seed_power_mean(sub_aucs), seed_power_mean(bpsn_aucs), seed_power_mean(bnsp_aucs)])
    return overall_weight * overall + (1 - overall_weight) * bias, sub_aucs, bpsn_aucs, bnsp_aucs


def seed_on_attributes(frame: pd.DataFrame, score: str):
    """The literal code on race x sex: one indicator column per combination (as a user must build them)."""
    combination = "race=" + frame["race"] + ", sex=" + frame["sex"]
    indicators = pd.get_dummies(combination, dtype=float)
    df = pd.concat([frame[["y", score]], indicators], axis=1)
    return seed_final_metric(df, list(indicators.columns), "y", score), list(indicators.columns)


def exfairness_calibration(probabilities, labels, sensitive, n_bins=10):
    """ExFairness.Metrics.Calibration.compute (ExFairness) transliterated: per group and bin a mask, ECE and MCE,
    disparity |ECE_A - ECE_B|. Bins [low, high) with the last closed, edges arange(n_bins + 1) / n_bins."""
    edges = np.arange(n_bins + 1) / n_bins
    out = {}
    for group in (0, 1):
        in_group = sensitive == group
        p, y = probabilities[in_group], labels[in_group]
        ece, mce = 0.0, 0.0
        for b in range(n_bins):
            upper = (p <= edges[b + 1]) if b == n_bins - 1 else (p < edges[b + 1])
            in_bin = (p >= edges[b]) & upper
            n_b = int(in_bin.sum())
            if n_b == 0:
                continue
            gap = abs(float(y[in_bin].mean()) - float(p[in_bin].mean()))
            ece += n_b / len(p) * gap
            mce = max(mce, gap)
        out[group] = (ece, mce)
    return abs(out[0][0] - out[1][0]), out


# Side by side ---------------------------------------------------------------------------------------


@dataclass
class Case:
    """One row of the side-by-side table.

    `setup(frame)` returns ``{"ours": call, "ours_prepared": call or None, "peer": call}`` (data bound,
    anything prepared built outside the timed calls); `check(results, checks)` compares their results.
    `needs` are the modules the peer imports (one missing: the row is skipped with a note).
    """

    operation: str
    peer: str
    needs: tuple
    setup: Callable[[pd.DataFrame], dict]
    check: Callable[[dict, Checks], None]


RATE_METRICS = {  # ours (rate_disparity's metric) -> guardian-ai function name
    "statistical_parity": "model_statistical_parity", "true_positive_rate": "true_positive_rate",
    "false_positive_rate": "false_positive_rate", "false_negative_rate": "false_negative_rate",
    "false_omission_rate": "false_omission_rate", "false_discovery_rate": "false_discovery_rate",
    "error_rate": "error_rate"}
THREE_RATES = ("selection_rate", "true_positive_rate", "false_positive_rate")  # group_rates' and MetricFrame's names
SEVEN_RATES = ["selection_rate", "true_positive_rate", "false_positive_rate", "false_negative_rate",
               "false_omission_rate", "false_discovery_rate", "error_rate"]
RATES_TARGET = "7 rates by race x sex from raw columns, one call"
# The library's speed targets: (side-by-side operation, or "import"; the smallest ratio peer / ours it asks for).
TARGETS = [("AUC family, {n} identity columns, untied scores", 50.0), (RATES_TARGET, 1.2),
           ("calibration per subgroup (race x sex), 10 uniform bins", 3.0)]
IMPORT_TARGET_SECONDS = 0.7


def _arrays(frame: pd.DataFrame, *names: str):
    return [frame[n].to_numpy() for n in names]


def auc_identity_case(n_identity: int) -> Case:
    def setup(frame):
        cols = identity_columns(frame)
        y, score = _arrays(frame, "y", "score")
        prepared = fc.Subgroups.from_indicators(frame, cols, min_size=1)
        return {"ours": lambda: fc.bias_auc_score(y, score, fc.Subgroups.from_indicators(frame, cols, min_size=1)),
                "ours_prepared": lambda: fc.bias_auc_score(y, score, prepared),
                "peer": peer(lambda: seed_final_metric(frame, cols, "y", "score"))}

    def check(results, checks):
        final, sub, bpsn, bnsp = results["peer"]
        for key in ("ours", "ours_prepared"):
            ours = results[key]
            checks.close(f"AUC, identity columns ({key}): bias AUC score", ours.value, final)
            checks.close(f"AUC, identity columns ({key}): subgroup/BPSN/BNSP AUCs",
                         ours.table[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy(),
                         np.column_stack([sub, bpsn, bnsp]))

    return Case(f"AUC family, {n_identity} identity columns, untied scores",
                "literal Jigsaw Unintended Bias benchmark code (roc_auc_score per mask)", ("sklearn.metrics",), setup, check)


def auc_attributes_case(score_column: str, words: str) -> Case:
    def setup(frame):
        y, score = _arrays(frame, "y", score_column)
        prepared = fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=1)
        return {"ours": lambda: fc.bias_auc_score(y, score, frame[["race", "sex"]]),
                "ours_prepared": lambda: fc.bias_auc_score(y, score, prepared),
                "peer": peer(lambda: seed_on_attributes(frame, score_column))}

    def check(results, checks):
        (final, sub, bpsn, bnsp), names = results["peer"]
        for key in ("ours", "ours_prepared"):
            table = results[key].table.set_index("subgroup").loc[names]
            checks.close(f"AUC, race x sex, {words} ({key}): bias AUC score", results[key].value, final)
            checks.close(f"AUC, race x sex, {words} ({key}): subgroup/BPSN/BNSP AUCs",
                         table[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy(), np.column_stack([sub, bpsn, bnsp]))

    return Case(f"AUC family, race x sex (8 subgroups), {words}", "literal Jigsaw Unintended Bias benchmark code (one-hot race x sex)",
                ("sklearn.metrics",), setup, check)


def rates_guardian_case() -> Case:
    def setup(frame):
        from guardian_ai.fairness import metrics as gm
        y, pred = _arrays(frame, "y", "pred")
        prepared = fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=1)

        def ours(groups):
            return lambda: [fc.rate_disparity(y, pred, groups, metric=m, reference="pairwise", reduction="mean")
                            for m in RATE_METRICS]

        def guardian():
            subgroups = frame[["race", "sex"]].astype("category")
            return [getattr(gm, name)(frame["y"], frame["pred"], subgroups) for name in RATE_METRICS.values()]

        return {"ours": ours(frame[["race", "sex"]]), "ours_prepared": ours(prepared), "peer": peer(guardian)}

    def check(results, checks):
        for key in ("ours", "ours_prepared"):
            checks.close(f"7 rate disparities, pairwise mean ({key})", [r.value for r in results[key]], results["peer"])

    return Case("7 rates x 8 subgroups, one call per rate (pairwise, diff, mean)", "guardian-ai (category dtype)",
                ("guardian_ai.fairness.metrics",), setup, check)


def calibration_curve_case() -> Case:
    def setup(frame):
        from sklearn.calibration import calibration_curve
        y, score = _arrays(frame, "y", "score")
        prepared = fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=1)

        def per_mask():
            race, sex = frame["race"].to_numpy(), frame["sex"].to_numpy()
            curves = {}
            for r in sorted(set(RACES)):
                for s in sorted(set(SEXES)):
                    mask = (race == r) & (sex == s)
                    curves[f"race={r}, sex={s}"] = calibration_curve(y[mask], score[mask], n_bins=10)
            return curves

        return {"ours": lambda: fc.reliability_diagram(y, score, frame[["race", "sex"]], n_bins=10),
                "ours_prepared": lambda: fc.reliability_diagram(y, score, prepared, n_bins=10),
                "peer": peer(per_mask)}

    def check(results, checks):
        curves = results["peer"]
        for key in ("ours", "ours_prepared"):
            table = results[key]
            table = table[table["count"] > 0]
            ours, theirs = [], []
            for name, (prob_true, prob_pred) in curves.items():
                rows = table[table["subgroup"] == name]
                ours.append(rows[["fraction_positive", "mean_predicted"]].to_numpy())
                theirs.append(np.column_stack([prob_true, prob_pred]))
            checks.close(f"reliability diagram per subgroup ({key})", np.concatenate(ours), np.concatenate(theirs),
                         note="untied scores: no score lies on an inner bin edge, where sklearn's bins put it in "
                              "the lower bin and ours (exact decimal edges) in the upper one")

    return Case("calibration per subgroup (race x sex), 10 uniform bins", "calibration_curve per mask",
                ("sklearn.calibration",), setup, check)


def calibration_two_groups_case() -> Case:
    def setup(frame):
        y, score = _arrays(frame, "y", "score")
        prepared = fc.Subgroups.from_attributes(frame, ["sex"], min_size=1)

        def literal():
            return exfairness_calibration(score, y, (frame["sex"] == "Female").to_numpy().astype(np.int64))

        return {"ours": lambda: fc.calibration_disparity(y, score, frame["sex"], n_bins=10, debias=False),
                "ours_prepared": lambda: fc.calibration_disparity(y, score, prepared, n_bins=10, debias=False),
                "peer": peer(literal)}

    def check(results, checks):
        disparity, groups = results["peer"]
        for key in ("ours", "ours_prepared"):
            errors = results[key].errors.set_index("subgroup")
            checks.close(f"calibration, two groups: |ECE_A - ECE_B| ({key})", results[key].value, disparity)
            checks.close(f"calibration, two groups: ECE and MCE per group ({key})",
                         errors.loc[["Male", "Female"], ["ece", "mce"]].to_numpy(),
                         [groups[0], groups[1]])

    return Case("calibration, two groups (sex): ECE, MCE, disparity", "ExFairness-style literal (masks per bin)",
                (), setup, check)


def uab_case() -> Case:
    def setup(frame):
        import audmetric
        cls, cls_pred = _arrays(frame, "cls", "cls_pred")
        prepared = fc.Subgroups.from_attributes(frame, ["race"], min_size=1)
        return {"ours": lambda: fc.unweighted_average_bias(cls, cls_pred, frame["race"]),
                "ours_prepared": lambda: fc.unweighted_average_bias(cls, cls_pred, prepared),
                "peer": peer(lambda: audmetric.unweighted_average_bias(frame["cls"], frame["cls_pred"],
                                                                      frame["race"]))}

    def check(results, checks):
        for key in ("ours", "ours_prepared"):
            checks.close(f"unweighted average bias ({key})", results[key].value, results["peer"])

    return Case("unweighted average bias by race (3 classes, F-score, std)", "audmetric", ("audmetric",), setup, check)


def edf_case() -> Case:
    def setup(frame):
        from guardian_ai.fairness.metrics import smoothed_edf
        y = frame["y"].to_numpy()
        prepared = fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=1)

        def guardian():
            # guardian-ai 1.3 maps attribute values to integers with an in-place replace that pandas 3's
            # copy-on-write turns into a no-op, so a user passes integer codes as categories.
            codes = frame[["race", "sex"]].apply(lambda c: pd.Series(pd.factorize(c, sort=True)[0], index=c.index))
            return smoothed_edf(frame["y"], codes.astype("category"))

        return {"ours": lambda: fc.smoothed_edf(y, frame[["race", "sex"]]),
                "ours_prepared": lambda: fc.smoothed_edf(y, prepared), "peer": peer(guardian)}

    def check(results, checks):
        for key in ("ours", "ours_prepared"):
            checks.close(f"smoothed EDF ({key})", results[key].value, results["peer"])

    return Case("smoothed EDF, race x sex", "guardian-ai (integer-coded categories)",
                ("guardian_ai.fairness.metrics",), setup, check)


def _aif360_dataset(frame: pd.DataFrame, label: np.ndarray, protected: str):
    from aif360.datasets import BinaryLabelDataset
    codes = pd.factorize(frame[protected], sort=True)[0]
    return BinaryLabelDataset(df=pd.DataFrame({protected: codes, "y": label}), label_names=["y"],
                              protected_attribute_names=[protected])


def theil_case() -> Case:
    def setup(frame):
        y, pred = _arrays(frame, "y", "pred")
        prepared = fc.Subgroups.from_attributes(frame, ["race"], min_size=1)

        def aif360():
            from aif360.metrics import ClassificationMetric
            truth = _aif360_dataset(frame, y, "race")
            predicted = truth.copy()
            predicted.labels = pred.reshape(-1, 1).astype(float)
            metric = ClassificationMetric(truth, predicted, unprivileged_groups=[{"race": 0}],
                                          privileged_groups=[{"race": 1}])
            return metric.between_all_groups_theil_index()

        return {"ours": lambda: fc.between_group_theil_index(y, pred, frame["race"]),
                "ours_prepared": lambda: fc.between_group_theil_index(y, pred, prepared), "peer": peer(aif360)}

    def check(results, checks):
        for key in ("ours", "ours_prepared"):
            checks.close(f"between-group Theil index ({key})", float(results[key]), results["peer"])

    return Case("between-group Theil index by race", "aif360 ClassificationMetric",
                ("aif360.datasets", "aif360.metrics"), setup, check)


def consistency_case(k: int = 5) -> Case:
    def setup(frame):
        y = frame["y"].to_numpy()

        def aif360():
            from aif360.datasets import BinaryLabelDataset
            from aif360.metrics import BinaryLabelDatasetMetric
            # aif360's features are every column but the label, protected attributes included: naming a feature
            # as the protected attribute keeps exactly x1, x2. Its k neighbours include the row itself.
            data = BinaryLabelDataset(df=pd.DataFrame({"x1": frame["x1"], "x2": frame["x2"], "y": y}),
                                      label_names=["y"], protected_attribute_names=["x1"])
            return BinaryLabelDatasetMetric(data).consistency(n_neighbors=k + 1)

        return {"ours": lambda: fc.consistency(frame[["x1", "x2"]], y, n_neighbors=k), "ours_prepared": None,
                "peer": peer(aif360)}

    def check(results, checks):
        checks.close("consistency (share of differing neighbours)", results["ours"].value,
                     (1 - float(np.squeeze(results["peer"]))) * (k + 1) / k,
                     note=f"aif360 with n_neighbors={k + 1} counts the row itself among its neighbours: its "
                          f"1 - mean|y - mean(y_nbrs)| equals 1 - share * {k}/{k + 1}; features are standardised "
                          "in the data, so ours' standardisation does not change the neighbours")

    return Case(f"consistency (2 features, k = {k})", f"aif360 consistency (n_neighbors = {k + 1}: self included)",
                ("aif360.datasets", "aif360.metrics"), setup, check)


def _by_race(table: pd.DataFrame, columns) -> np.ndarray:
    return table[list(columns)].to_numpy()


def rates_metricframe_case() -> Case:
    def setup(frame):
        from fairlearn.metrics import MetricFrame, false_positive_rate, selection_rate, true_positive_rate
        y, pred = _arrays(frame, "y", "pred")
        prepared = fc.Subgroups.from_attributes(frame, ["race"], min_size=1)
        functions = {"selection_rate": selection_rate, "true_positive_rate": true_positive_rate,
                     "false_positive_rate": false_positive_rate}

        def metric_frame():
            return MetricFrame(metrics=functions, y_true=frame["y"], y_pred=frame["pred"],
                               sensitive_features=frame["race"]).by_group

        return {"ours": lambda: fc.group_rates(y, pred, frame["race"]),
                "ours_prepared": lambda: fc.group_rates(y, pred, prepared), "peer": peer(metric_frame)}

    def check(results, checks):
        theirs = results["peer"].sort_index()
        for key in ("ours", "ours_prepared"):
            checks.close(f"3 rates by race vs MetricFrame ({key})", _by_race(results[key], THREE_RATES),
                         theirs[list(THREE_RATES)].to_numpy())

    return Case("3 rates by race, one call", "fairlearn MetricFrame", ("fairlearn.metrics",), setup, check)


def rates_pandas_case() -> Case:
    def setup(frame):
        y, pred = _arrays(frame, "y", "pred")
        prepared = fc.Subgroups.from_attributes(frame, ["race"], min_size=1)

        def groupby():
            rows = frame[["race", "y", "pred"]]
            return pd.DataFrame({
                "selection_rate": rows.groupby("race")["pred"].mean(),
                "true_positive_rate": rows[rows["y"] == 1].groupby("race")["pred"].mean(),
                "false_positive_rate": rows[rows["y"] == 0].groupby("race")["pred"].mean()})

        return {"ours": lambda: fc.group_rates(y, pred, frame["race"]),
                "ours_prepared": lambda: fc.group_rates(y, pred, prepared), "peer": peer(groupby)}

    def check(results, checks):
        theirs = results["peer"].sort_index()
        for key in ("ours", "ours_prepared"):
            checks.close(f"3 rates by race vs pandas groupby ({key})", _by_race(results[key], THREE_RATES),
                         theirs.to_numpy())

    return Case("3 rates by race, one call", "plain pandas groupby", (), setup, check)


def rates_counts_case() -> Case:
    """The seven rates by race x sex from raw columns, against one pandas groupby of the same counts."""
    def setup(frame):
        y, pred = _arrays(frame, "y", "pred")
        prepared = fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=1)

        def groupby():
            cells = frame.groupby(["race", "sex", "y", "pred"]).size().unstack(["y", "pred"], fill_value=0)
            tn, fp, fn, tp = (cells.get((a, b), 0) for a, b in ((0, 0), (0, 1), (1, 0), (1, 1)))
            n = tn + fp + fn + tp
            return pd.DataFrame({"selection_rate": (tp + fp) / n, "true_positive_rate": tp / (tp + fn),
                                 "false_positive_rate": fp / (fp + tn), "false_negative_rate": fn / (fn + tp),
                                 "false_omission_rate": fn / (fn + tn), "false_discovery_rate": fp / (fp + tp),
                                 "error_rate": (fp + fn) / n})

        return {"ours": lambda: fc.group_rates(y, pred, frame[["race", "sex"]]),
                "ours_prepared": lambda: fc.group_rates(y, pred, prepared), "peer": peer(groupby)}

    def check(results, checks):
        theirs = results["peer"].sort_index()
        for key in ("ours", "ours_prepared"):
            checks.close(f"7 rates by race x sex vs pandas groupby ({key})", results[key][SEVEN_RATES].to_numpy(),
                         theirs[SEVEN_RATES].to_numpy())

    return Case(RATES_TARGET, "plain pandas groupby of the same counts", (), setup, check)


def ratio_scores_case() -> Case:
    class Predictions:
        """An 'estimator' whose predictions are given: scikit-lego's scores take (estimator, X, y)."""

        def __init__(self, pred):
            self.pred = pred

        def predict(self, X):
            return self.pred

    def setup(frame):
        from sklego.metrics import equal_opportunity_score, p_percent_score
        y, pred = _arrays(frame, "y", "pred")

        def ours():
            female = (frame["sex"] == "Female").to_numpy()
            return (fc.p_percent_score(pred, female).value, fc.equal_opportunity_score(y, pred, female).value)

        def sklego():
            X = pd.DataFrame({"female": (frame["sex"] == "Female").astype(int)})
            model = Predictions(pred)
            return (p_percent_score("female")(model, X), equal_opportunity_score("female")(model, X, y))

        return {"ours": ours, "ours_prepared": None, "peer": peer(sklego)}

    def check(results, checks):
        checks.close("p% and equal opportunity scores", results["ours"], results["peer"])

    return Case("p% and equal opportunity scores, sex", "scikit-lego", ("sklego.metrics",), setup, check)


def subgroups_case() -> Case:
    def setup(frame):
        return {"ours": lambda: fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=1),
                "ours_prepared": None, "peer": peer(lambda: frame.groupby(["race", "sex"]).ngroup().to_numpy())}

    def check(results, checks):
        groups = results["ours"]
        codes = groups.codes if groups.codes is not None else groups.membership.argmax(axis=1)
        checks.equal("subgroup of every row, race x sex", codes, results["peer"])

    return Case("Subgroups.from_attributes, race x sex", "pandas groupby(...).ngroup()", (), setup, check)


def cases(n_identity: int) -> list[Case]:
    return [auc_identity_case(n_identity), auc_attributes_case("score", "untied scores"),
            auc_attributes_case("score_tied", "tied scores (2 decimals)"), rates_guardian_case(),
            calibration_curve_case(), calibration_two_groups_case(), uab_case(), edf_case(), theil_case(),
            consistency_case(), rates_metricframe_case(), rates_pandas_case(), rates_counts_case(), ratio_scores_case(),
            subgroups_case()]


def available(modules: tuple) -> str | None:
    """None when every module imports, else the reason one does not (imported here, with its warnings silenced)."""
    for module in modules:
        try:
            with quiet():
                __import__(module)
        except Exception as exc:  # ImportError, or a peer broken against this environment
            return f"{module} is not importable ({type(exc).__name__}: {exc})"[:300]
    return None


def side_by_side(frame: pd.DataFrame, n_identity: int, repeats: int, checks: Checks, log,
                 warm: bool = True, only_targets: bool = False) -> list[dict]:
    rows = []
    warm_frame = frame.head(min(len(frame), 3000)).reset_index(drop=True)
    goals = {operation.format(n=n_identity) for operation, _ in TARGETS}
    for case in cases(n_identity):
        if only_targets and case.operation not in goals:
            continue
        missing = available(case.needs)
        if missing:
            log(f"  skipped: {case.operation} vs {case.peer}: {missing}")
            rows.append({"operation": case.operation, "peer": case.peer, "skipped": missing})
            continue
        for call in case.setup(warm_frame).values() if warm else ():  # warm-up (imports, lazy set-up), small data
            if call is not None:
                call()
        calls = {k: v for k, v in case.setup(frame).items() if v is not None}
        timings = interleaved(calls, repeats)
        n_checks = len(checks.records)
        case.check({k: t.result for k, t in timings.items()}, checks)
        summary = {k: t.summary() for k, t in timings.items()}
        ours, theirs = summary["ours"], summary["peer"]
        row = {"operation": case.operation, "peer": case.peer, "ours": ours, "peer_timing": theirs,
               "ours_prepared": summary.get("ours_prepared"), "ratio": theirs["cpu"] / max(ours["cpu"], 1e-9),
               "ratio_wall": theirs["wall"] / max(ours["wall"], 1e-9),
               "agreement_checks": len(checks.records) - n_checks}
        if "ours_prepared" in summary:
            row["ratio_prepared"] = theirs["cpu"] / max(summary["ours_prepared"]["cpu"], 1e-9)
        rows.append(row)
        log(f"  {case.operation} vs {case.peer}: ours {ours['cpu']:.3f} s, peer {theirs['cpu']:.3f} s, "
            f"{row['ratio']:.2f}x")
    return rows


# Intervals ---------------------------------------------------------------------------------------------


def _value(result) -> float:
    return float(getattr(result, "value", result))


def interval_rows(frame: pd.DataFrame, repeats: int, ref_boot: int, checks: Checks, log) -> list[dict]:
    """Every metric of benchmarks/intervals.py with ci=0.95 and 1,000 replicates, against a row bootstrap
    (the metric's point estimate on `ref_boot` resamples of rows, scaled to 1,000)."""
    view = pd.DataFrame({"y": frame["y"], "prob": frame["score"], "pred": frame["pred"], "cls": frame["cls"],
                         "cls_pred": frame["cls_pred"]})
    groups = fc.Subgroups.from_attributes(frame, ["race", "sex"], intersect=True, min_size=30)
    rng = np.random.default_rng(1)
    rows = []
    for name, call in interval_bench.metrics(view, groups):
        point = call(None, None)  # also the warm-up
        timing = interleaved({"ours": lambda: call(None, LEVEL)}, repeats)["ours"]
        checks.close(f"intervals do not move the estimate: {name}", _value(timing.result), _value(point))
        reference = [timed(lambda: call(interval_bench.stratified_rows(groups.codes, rng), None))
                     for _ in range(ref_boot)]
        scaled_cpu = statistics.mean(r.cpu for r in reference) * N_BOOT
        summary = timing.summary()
        rows.append({"metric": name, "ours": summary, "row_bootstrap_cpu_scaled": scaled_cpu,
                     "row_bootstrap_wall_scaled": statistics.mean(r.wall for r in reference) * N_BOOT,
                     "ratio": scaled_cpu / max(summary["cpu"], 1e-9)})
        log(f"  intervals: {name}: {summary['cpu']:.3f} s")
    return rows


# The full audit and incremental changes ----------------------------------------------------------------

MAPPING = fc.ColumnMapping(label="y", positive_label=1, scores=SCORES, predicted_label="pred",
                           protected=("race", "sex"))
CI = dict(ci=LEVEL, n_boot=N_BOOT, random_state=0)
RATE_PAGE_METRICS = ("false_positive_rate", "false_negative_rate")  # fairness_dashboard.results.summaries.DEFAULTS["rates:metrics"]


def _option_kw(distance="diff", reduction="max", reference="rest", ci=CI):
    return dict(distance_measure=distance, reduction=reduction, reference=reference, include_small=False,
                adjust=None, **(ci or {"ci": None}))


def rate_page(counts: fc.ConfusionCounts, ci=CI, **options) -> dict:
    """What the Rate disparities page shows from its confusion counts (at defaults unless `options` say)."""
    kw = _option_kw(ci=ci, **options)
    shown = {"rates": counts.table(ci=kw["ci"])}
    shown.update({m: counts.disparity(m, **kw) for m in RATE_PAGE_METRICS})
    shown["equalized_odds"] = counts.equalized_odds(**kw)
    theil_kw = {k: v for k, v in kw.items() if k != "distance_measure"}
    shown["theil"] = counts.theil_index(**theil_kw)
    if ci:
        shown["findings"] = fc.rate_findings(counts, RATE_PAGE_METRICS, reference=kw["reference"], adjust=None,
                                             include_small=False, limit=3, **CI)
    # The findings name the driver of each rate's max (the app caches it: the same result at reduction max).
    shown["drivers"] = [fc.reduction_finding(shown[m] if kw["reduction"] == "max"
                                             else counts.disparity(m, **{**kw, "reduction": "max"}), m)
                        for m in RATE_PAGE_METRICS]
    return shown


def full_audit(frame: pd.DataFrame, *, with_consistency: bool = False) -> dict:
    """Every number every page shows at default options (intervals on: 95 %, 1,000 resamples, seed 0), from a
    DataFrame: what pages/ compute through fairness_dashboard/data.py and fairness_dashboard/summaries.py, called on fairness_core directly."""
    scored = fc.ScoredData.from_frame(frame, MAPPING)
    groups, y, score = scored.subgroups, scored.y_true, MAPPING.scores[0]
    probability = scored.scores[score]
    shown: dict[str, Any] = {}
    # Data page and the Overview's header
    shown["subgroups"] = scored.subgroup_table()
    shown["exclusions"] = scored.exclusions
    shown["base_rate"] = (scored.base_rate, fc.wilson_interval(int(y.sum()), len(y), LEVEL))
    shown["small_rows"] = groups.n_rows_small
    shown["score_ranges"] = [(float(v.min()), float(v.max())) for v in scored.scores.values()]
    # Subgroup AUCs
    table = fc.bias_auc_table(y, probability, groups, **CI)
    shown["auc"] = fc.summarize_bias_auc(table, p=-5.0, overall_weight=0.25)
    shown["auc_findings"] = fc.auc_findings(table)
    # Rate disparities (threshold 0.5 on the score) with the policy verdicts and the correlation score
    y_pred = scored.y_pred(score, 0.5)
    counts = fc.confusion_counts(y, y_pred, groups)
    rates = rate_page(counts)
    rules = {rule.name: rule for rule in fc.DEFAULT_RULES}
    p_percent, opportunity = (counts.ratio_scores(r, include_small=False, **CI)
                              for r in ("selection_rate", "true_positive_rate"))
    shown["verdicts"] = ([fc.evaluate_result(rules["four_fifths"], p_percent),
                          fc.evaluate_result(rules["equal_opportunity"], opportunity)]
                         + [fc.evaluate_result(fc.Rule(metric=m, distance_measure="diff", bound=0.1),
                                               rates[m]) for m in RATE_PAGE_METRICS + ("equalized_odds",)])
    shown["theil_indices"] = (counts.individual_theil_index(**CI), counts.between_group_theil_index(**CI))
    column = frame["x1"].to_numpy(dtype=float)[scored.rows]
    shown["correlation"] = fc.correlation_score(y_pred, column, ci=LEVEL)
    # Calibration
    calibration = fc.calibration_counts(y, probability, groups, n_bins=10, strategy="uniform")
    result = calibration.disparity(threshold=0.1, min_per_group=5, **_option_kw())
    shown["calibration"] = (result, calibration.reliability_table(ci=LEVEL),
                            fc.disparity_findings(result.disparity, "expected calibration error"))
    # Class-wise bias (predictions from the score at 0.5, as the page's default)
    classes = fc.class_counts(scored.classes, scored.class_predictions(score, 0.5), groups)
    uab = classes.unweighted_average_bias(metric="fscore", reduction="std", subgroups=None, include_small=False,
                                          **CI)
    shown["classwise"] = (uab, fc.classwise_findings(uab))
    # Dataset metrics
    labels = fc.confusion_counts(y, y, groups)
    parity = labels.disparity("statistical_parity", func="dataset_statistical_parity", **_option_kw())
    shown["dataset"] = (parity, fc.disparity_findings(parity, "base rate", percent=True),
                        fc.evaluate_result(fc.Rule(metric="dataset_statistical_parity", distance_measure="diff",
                                                   bound=0.1), parity),
                        fc.base_rates(y, groups, ci=LEVEL),
                        fc.smoothed_edf(y, groups, concentration=1.0, include_small=False, **CI))
    if with_consistency:
        shown["consistency"] = fc.consistency(frame.iloc[scored.rows][["x1", "x2"]], y, n_neighbors=5)
    return shown


def audit_rows(frame: pd.DataFrame, repeats: int, checks: Checks, log, warm: bool = True) -> list[dict]:
    if warm:
        full_audit(frame.head(3000))
    rows = []
    for name, kw in (("full audit: every page at default options, from a DataFrame", {}),
                     ("full audit including consistency (k = 5, every row)", {"with_consistency": True})):
        timing = interleaved({"ours": lambda: full_audit(frame, **kw)}, repeats)["ours"]
        rows.append({"step": name, "ours": timing.summary(),
                     "bytes_per_row": None if timing.peak_mib is None else timing.peak_mib * 2 ** 20 / len(frame)})
        log(f"  {name}: {timing.summary()['cpu']:.3f} s")
    shown = timing.result
    direct = fc.bias_auc_score(frame["y"].to_numpy(), frame["score"].to_numpy(),
                               fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=30))
    checks.close("full audit: bias AUC score equals the direct call", shown["auc"].value, direct.value)
    return rows


def incremental_rows(frame: pd.DataFrame, repeats: int, log, warm: bool = True) -> list[dict]:
    """What a control change costs given what the app caches (ScoredData, count tables, the AUC table)."""
    scored = fc.ScoredData.from_frame(frame, MAPPING)
    groups, y, score = scored.subgroups, scored.y_true, MAPPING.scores[0]
    counts = fc.confusion_counts(y, scored.y_pred(score, 0.5), groups)
    table = fc.bias_auc_table(y, scored.scores[score], groups, **CI)

    sorted_scores = fc.threshold_counts(y, scored.scores[score], groups)   # what the app keeps per score column
    grid = fc.explorer_thresholds(sorted_scores, 101)

    def threshold_counts():
        """As the app answers a threshold change: array lookups in the sorted scores, no pass over the rows."""
        return sorted_scores.at(0.6)

    def rows_again():
        return fc.confusion_counts(y, scored.y_pred(score, 0.6), groups)

    def calibration(ci):
        cal = fc.calibration_counts(y, scored.scores[score], groups, n_bins=20, strategy="uniform")
        return (cal.disparity(threshold=0.1, min_per_group=5, **_option_kw(ci=ci)),
                cal.reliability_table(ci=None if ci is None else LEVEL))

    # The comparison row walks the page's whole verdicts per threshold; a quick run (no warm-up, a smoke test) walks
    # every tenth of the grid, and the row's name says how many.
    page_grid = grid if warm else grid[::10]

    def page_verdicts(ci):
        """What a suggestion cost before its verdict-only path: the page's verdicts, tables and all, per threshold."""
        return [fc.rate_conclusions(sorted_scores.at(float(t)), MAPPING, **(ci or {"ci": None})).verdicts
                for t in page_grid]

    changes = {
        "threshold change: confusion counts from the sorted scores (ThresholdCounts.at)": (threshold_counts,
                                                                                          threshold_counts),
        "threshold change: confusion counts by a pass over the rows (for comparison)": (rows_again, rows_again),
        "threshold explorer: 3 rates x every subgroup at 101 thresholds (one sort)": (
            lambda: fc.threshold_curves(sorted_scores, THREE_RATES, grid),
            lambda: fc.threshold_curves(sorted_scores, THREE_RATES, grid)),
        "threshold change: the Rate disparities page": (lambda: rate_page(threshold_counts(), ci=None),
                                                        lambda: rate_page(threshold_counts())),
        "p change: power means and bias AUC score from the AUC table": (
            lambda: fc.summarize_bias_auc(table.drop(columns=[c for c in table if "_ci_" in c]), p=-2.0),
            lambda: fc.summarize_bias_auc(table, p=-2.0)),
        "distance change (ratio): the Rate disparities page": (lambda: rate_page(counts, ci=None, distance="ratio"),
                                                               lambda: rate_page(counts, distance="ratio")),
        "reduction change (mean): the Rate disparities page": (lambda: rate_page(counts, ci=None, reduction="mean"),
                                                               lambda: rate_page(counts, reduction="mean")),
        "reference change (overall): the Rate disparities page": (
            lambda: rate_page(counts, ci=None, reference="overall"), lambda: rate_page(counts, reference="overall")),
        "reference change (pairwise): the Rate disparities page": (
            lambda: rate_page(counts, ci=None, reference="pairwise"), lambda: rate_page(counts, reference="pairwise")),
        "n_bins change (20): calibration counts, ECE disparity, reliability": (lambda: calibration(None),
                                                                               lambda: calibration(CI)),
        "threshold suggestion: the rate rules' verdicts at 101 thresholds (suggest_threshold)": (
            lambda: fc.suggest_threshold(sorted_scores, thresholds=grid, ci=None),
            lambda: fc.suggest_threshold(sorted_scores, thresholds=grid, **CI)),
        f"{len(page_grid)} of the same thresholds through the Rate disparities page's whole verdicts (for comparison)": (
            lambda: page_verdicts(None), lambda: page_verdicts(CI)),
    }
    rows = []
    for name, (off, on) in changes.items():
        if warm:
            off(), on()
        timings = interleaved({"intervals_off": off, "intervals_on": on}, repeats)
        rows.append({"change": name, **{k: t.summary() for k, t in timings.items()}})
        log(f"  {name}: {rows[-1]['intervals_off']['cpu']:.3f} s / {rows[-1]['intervals_on']['cpu']:.3f} s")
    return rows


# Loading ---------------------------------------------------------------------------------------------------


def loading_rows(frame: pd.DataFrame, repeats: int, checks: Checks, log) -> tuple[list[dict], bytes]:
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    app_frame = frame[APP_COLUMNS]
    csv = app_frame.to_csv(index=False).encode()
    buffer = io.BytesIO()
    app_frame.to_parquet(buffer, index=False)
    parquet = buffer.getvalue()
    rows = []
    for fmt, data, name, readers in (
            ("CSV", csv, "data.csv", {"pandas.read_csv": lambda d: pd.read_csv(io.BytesIO(d)),
                                      "pyarrow.csv": lambda d: pacsv.read_csv(io.BytesIO(d)).to_pandas()}),
            ("Parquet", parquet, "data.parquet",
             {"pandas.read_parquet": lambda d: pd.read_parquet(io.BytesIO(d)),
              "pyarrow.parquet": lambda d: pq.read_table(io.BytesIO(d)).to_pandas()})):
        calls = {"ours": lambda d=data, n=name: fc.read_table(d, name=n),
                 **{k: (lambda f=f, d=data: f(d)) for k, f in readers.items()}}
        timings = interleaved(calls, repeats)
        ours = timings["ours"].result
        for reader in readers:
            theirs = timings[reader].result
            checks.equal(f"{fmt}: read_table and {reader} give the same columns", list(ours.columns),
                         list(theirs.columns))
            for column in APP_COLUMNS:
                if pd.api.types.is_numeric_dtype(app_frame[column]):
                    checks.close(f"{fmt}: {column} via read_table and {reader}", ours[column], theirs[column])
                else:
                    checks.equal(f"{fmt}: {column} via read_table and {reader}", ours[column].astype(str).to_numpy(),
                                 theirs[column].astype(str).to_numpy())
        summary = {k: t.summary() for k, t in timings.items()}
        rows.append({"format": fmt, "file_bytes": len(data), "file_bytes_per_row": len(data) / len(frame),
                     **summary,
                     "bytes_per_row": (None if summary["ours"]["peak_mib"] is None
                                       else summary["ours"]["peak_mib"] * 2 ** 20 / len(frame))})
        log(f"  {fmt}: read_table {summary['ours']['cpu']:.3f} s")
    return rows, csv


# Child processes: end-to-end peak memory, and the app through AppTest ---------------------------------------


def _peak_rss_mib() -> float:
    """This process's peak RSS: VmHWM (Linux; ru_maxrss would carry the parent's peak over the fork and exec)."""
    peak = _status_kib("VmHWM")
    if peak is not None:
        return peak / 1024
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2 ** 20 if sys.platform == "darwin" else rss / 1024


def child_audit(path: str) -> dict:
    """In a fresh process: read the CSV, then run the full audit; the process's peak RSS in each stage, and
    the baseline after the imports (MiB)."""
    full_audit(make_data(1000, 1))  # imports and warm-up on tiny data
    _release_free_memory()
    _reset_peak()
    baseline = _status_kib("VmRSS")
    start = time.perf_counter()
    frame = fc.read_table(Path(path).read_bytes(), name=Path(path).name)
    read = time.perf_counter() - start
    read_peak = _peak_rss_mib()
    _release_free_memory()
    _reset_peak()
    full_audit(frame)
    return {"seconds": time.perf_counter() - start, "read_seconds": read, "read_peak_rss_mib": read_peak,
            "audit_peak_rss_mib": _peak_rss_mib(), "peak_rss_mib": max(read_peak, _peak_rss_mib()),
            "baseline_rss_mib": None if baseline is None else baseline / 1024, "rows": len(frame)}


def _widget(at, kind: str, label: str):
    found = [w for w in getattr(at, kind) if w.label == label]
    if not found:
        raise LookupError(f"no {kind} labelled {label!r}")
    return found[0]


def child_app(path: str, repeats: int, quick: bool) -> dict:
    """Drive the app through AppTest on the uploaded file: CPU and wall seconds of each script run (the first
    run of every page, and the rerun after each main control change), medians over `repeats` rounds of two
    fresh sessions (the pages in navigation order, then the Overview alone after the Data page)."""
    import logging

    import streamlit as st
    from streamlit.testing.v1 import AppTest

    os.environ.setdefault("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS", "full")
    for name in ("streamlit.runtime.scriptrunner_utils.script_run_context", "streamlit.runtime.caching.cache_data_api"):
        logging.getLogger(name).setLevel(logging.ERROR)
    from fairness_dashboard.presentation import labels
    from fairness_dashboard.session import state

    data = Path(path).read_bytes()
    steps: dict[str, list] = {}
    errors: dict[str, str] = {}
    shown_errors: dict[str, list] = {}  # st.error messages a page showed (a wrong mapping would show one)
    loaded: dict[str, Any] = {}

    def step(name: str, at, change=None):
        if name in errors:
            return
        try:
            if change is not None:
                change(at)
            c0, w0 = time.process_time(), time.perf_counter()
            at.run()
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        except Exception as exc:  # a timeout or a missing widget: reported, the run goes on
            errors[name] = f"{type(exc).__name__}: {exc}"[:300]
            return
        if at.exception:
            errors[name] = str(at.exception[0].value)[:300]
        if at.error:
            shown_errors[name] = [str(e.value)[:300] for e in at.error]
        steps.setdefault(name, []).append({"wall": wall, "cpu": cpu})

    def page(name):
        return lambda at: at.switch_page(name)

    def set_value(kind, label, value):
        return lambda at: _widget(at, kind, label).set_value(value)

    def open_upload():
        """A fresh session (caches cleared) with the file uploaded and mapped on the Data page."""
        st.cache_data.clear()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        step("app start (bundled sample)", at)
        step("Data page", at, page("pages/data.py"))
        step("choose Upload", at, set_value("radio", "Source", "upload"))
        step("upload and parse the CSV", at, lambda at: at.file_uploader[0].set_value(
            (Path(path).name, data, "text/csv")))
        step("map the score columns", at, set_value("multiselect", labels.SCORE_COLUMN, list(SCORES)))
        step("add a protected attribute (race, sex)", at, set_value("multiselect", labels.PROTECTED, ["race", "sex"]))
        step("map the predicted label column", at, set_value("selectbox", labels.PREDICTED_COLUMN, "pred"))
        frame, mapping = at.session_state[state.FRAME], at.session_state[state.MAPPING]
        loaded.update(rows=None if frame is None else len(frame),
                      protected=None if mapping is None else list(mapping.protected),
                      scores=None if mapping is None else list(mapping.scores),
                      predicted=None if mapping is None else mapping.predicted_label)
        return at

    def on(page_name, kind, label, value):
        """Open `page_name` (an untimed run), then set a widget: the timed rerun is the change's."""
        return lambda at: (at.switch_page(page_name).run(), _widget(at, kind, label).set_value(value))

    for _ in range(repeats):
        # Session 1: every metric page's first run in navigation order, the Overview after them, then changes.
        at = open_upload()
        for name in PAGES:
            step(f"first run: {name}", at, page(name))
        step(f"first run: {OVERVIEW} (after every other page)", at, page(OVERVIEW))
        step("Rate disparities: threshold change", at, on(RATE_PAGE, "number_input", labels.THRESHOLD, 0.6))
        if not quick:
            step("Rate disparities: distance change", at, set_value("selectbox", labels.DISTANCE, "ratio"))
            step("Rate disparities: reduction change", at, set_value("selectbox", labels.REDUCTION, "mean"))
            step("Rate disparities: reference change", at, set_value("selectbox", labels.REFERENCE, "overall"))
            step("Subgroup AUCs: p change", at, on("pages/subgroup_aucs.py", "number_input", labels.POWER_P, -2.0))
            step("Calibration: n_bins change", at, on("pages/calibration.py", "slider", labels.N_BINS, 20))
            at.switch_page("pages/dataset_metrics.py").run()
            if any(b.label == CONSISTENCY_BUTTON for b in at.button):  # the page runs kNN when asked
                step("Dataset metrics: Compute consistency (button)", at,
                     lambda at: _widget(at, "button", CONSISTENCY_BUTTON).click())
            step("Dataset metrics: k change", at, set_value("number_input", "Neighbours (k)", 6))
            step("sidebar: minimum subgroup size change", at, set_value("number_input", labels.MIN_SIZE, 50))
            step("sidebar: slice by sex (choose the column)", at, set_value("multiselect", labels.SLICE_BY, ["sex"]))
            step("sidebar: slice keeps Female only", at, set_value("multiselect", "sex", ["Female"]))
        # Session 2: the Overview straight after the Data page, as its place in the navigation suggests.
        at = open_upload()
        step(f"first run: {OVERVIEW} (straight after the Data page)", at, page(OVERVIEW))
    return {"steps": [{"step": k, "wall": statistics.median(r["wall"] for r in v),
                       "cpu": statistics.median(r["cpu"] for r in v), "runs": len(v)} for k, v in steps.items()],
            "errors": errors, "shown_errors": shown_errors, "loaded": loaded, "peak_rss_mib": _peak_rss_mib()}


def run_child(kind: str, path: Path, *extra: str) -> dict:
    """Run this script as a child (`kind` = audit or app) and read its JSON result."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", kind, "--file", str(path), *extra]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": (done.stderr or done.stdout).strip().splitlines()[-1:] or ["failed"]}
    return json.loads(done.stdout.strip().splitlines()[-1])


# Import time and targets --------------------------------------------------------------------------------


def import_rows(repeats: int, log) -> dict:
    """Seconds of ``python -c "import fairness_core"`` and of ``python -c "import pandas, numpy"`` in fresh
    processes, interleaved (wall seconds, and the child's CPU seconds from its resource usage): the import every
    command-line run and release gate pays, against the floor of its two dependencies.

    Both import compiled bytecode, as an installed package does: the children write and read it in a
    temporary cache (``PYTHONPYCACHEPREFIX``), filled by the first, untimed round, even where the
    environment sets ``PYTHONDONTWRITEBYTECODE`` (which would otherwise make every run compile
    fairness_core's modules from source, while pandas and numpy come with theirs compiled)."""
    with tempfile.TemporaryDirectory() as cache:
        return _import_rows(repeats, log, cache)


def _import_rows(repeats: int, log, cache: str) -> dict:
    code = {"fairness_core": "import fairness_core", "pandas_numpy": "import pandas, numpy"}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)

    def child(source):
        def run():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, "-c", source], cwd=ROOT, env=env, check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return run

    timings = {name: Timing() for name in code}
    for r in range(max(repeats, 3) + 1):   # one round more: the first compiles the bytecode and warms the file cache
        for name in (list(code) if r % 2 else list(code)[::-1]):
            w0 = time.perf_counter()
            cpu = child(code[name])()
            if r:
                timings[name].add(Run(None, cpu, time.perf_counter() - w0, None))
    out = {name: t.summary() for name, t in timings.items()}
    out["ratio_wall"] = out["fairness_core"]["wall"] / max(out["pandas_numpy"]["wall"], 1e-9)
    log(f"  import fairness_core {out['fairness_core']['wall']:.3f} s, import pandas, numpy "
        f"{out['pandas_numpy']['wall']:.3f} s (wall)")
    return out


def load_average() -> list | None:
    """The machine's 1-, 5- and 15-minute load averages (None where the platform has none)."""
    with contextlib.suppress(OSError, AttributeError):
        return [round(x, 2) for x in os.getloadavg()]
    return None


def targets(results: dict) -> list[dict]:
    """The library's speed targets, each with the ratio this run measured (peer / ours, CPU) and whether it is met."""
    rows = {r["operation"]: r for r in results.get("side_by_side", []) if "skipped" not in r}
    out = []
    for operation, goal in TARGETS:
        operation = operation.format(n=results["meta"]["identity_columns"])
        if operation in rows:
            ratio = rows[operation]["ratio"]
            out.append({"target": f"{operation} vs {rows[operation]['peer']}", "goal": f">= {goal:g}x",
                        "measured": f"{ratio:.2f}x", "met": ratio >= goal})
    imports = results.get("import")
    if imports:
        seconds = imports["fairness_core"]["wall"]
        out.append({"target": 'python -c "import fairness_core" (wall s; ratio to "import pandas, numpy")',
                    "goal": f"<= {IMPORT_TARGET_SECONDS:g} s",
                    "measured": f"{seconds:.3f} s ({imports['ratio_wall']:.2f}x)",
                    "met": seconds <= IMPORT_TARGET_SECONDS})
    return out


# Report ----------------------------------------------------------------------------------------------------


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        found = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = found.group(1) if found else cpu
    versions = {}
    for dist in ("numpy", "pandas", "scipy", "scikit-learn", "pyarrow", "streamlit", *PEER_DISTRIBUTIONS):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[dist] = metadata.version(dist)
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
            "versions": versions}


def _s(value) -> str:
    return "" if value is None else f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _x(value) -> str:
    return "" if value is None else f"{value:.2f}x" if value < 10 else f"{value:.0f}x"


def _mib(value) -> str:
    return "" if value is None else f"{max(value, 0):.0f}"


def markdown(results: dict) -> str:
    meta = results["meta"]
    out = [f"{meta['rows']:,} rows, {meta['identity_columns']} identity columns, median of {meta['repeats']} "
           f"interleaved runs; {meta['machine']['cpu']}, {meta['machine']['cores']} cores, Python "
           f"{meta['machine']['python']}; {meta['date']}.", "",
           "CPU seconds (all threads); ratio = peer / ours (CPU); 'ours' is called as a user calls it, with the raw "
           "attribute columns; 'prepared' reuses a Subgroups built beforehand.", "",
           "| operation | peer | ours (s) | ours, prepared (s) | peer (s) | ratio | ours wall (s) | peer wall (s) "
           "| ours peak (MiB) |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in results["side_by_side"]:
        if "skipped" in row:
            out.append(f"| {row['operation']} | {row['peer']} | | | | skipped | | | |")
            continue
        prepared = row.get("ours_prepared")
        out.append(f"| {row['operation']} | {row['peer']} | {_s(row['ours']['cpu'])} | "
                   f"{_s(prepared['cpu']) if prepared else ''} | {_s(row['peer_timing']['cpu'])} | "
                   f"{_x(row['ratio'])} | {_s(row['ours']['wall'])} | {_s(row['peer_timing']['wall'])} | "
                   f"{_mib(row['ours']['peak_mib'])} |")
    if results.get("intervals"):
        out += ["", f"Intervals, {N_BOOT:,} replicates (ci = {LEVEL}); the reference resamples rows and recomputes "
                    "the point estimate (timed on a few replicates, scaled):", "",
                "| metric | ours (s) | ours wall (s) | row bootstrap (s, scaled) | ratio | ours peak (MiB) |",
                "|---|---:|---:|---:|---:|---:|"]
        for row in results["intervals"]:
            out.append(f"| {row['metric']} | {_s(row['ours']['cpu'])} | {_s(row['ours']['wall'])} | "
                       f"{_s(row['row_bootstrap_cpu_scaled'])} | {_x(row['ratio'])} | "
                       f"{_mib(row['ours']['peak_mib'])} |")
        total = sum(r["ours"]["cpu"] for r in results["intervals"])
        out.append(f"| **all of them** | **{_s(total)}** | | | | |")
    if results.get("audit"):
        out += ["", "| step | CPU (s) | wall (s) | peak (MiB) | bytes per row |", "|---|---:|---:|---:|---:|"]
        for row in results["audit"]:
            bpr = row.get("bytes_per_row")
            out.append(f"| {row['step']} | {_s(row['ours']['cpu'])} | {_s(row['ours']['wall'])} | "
                       f"{_mib(row['ours']['peak_mib'])} | {'' if bpr is None else f'{bpr:.0f}'} |")
        end = results.get("end_to_end") or {}
        if "seconds" in end:
            def growth(peak):
                base = end.get("baseline_rss_mib")
                return "" if base is None else f"{(peak - base) * 2 ** 20 / end['rows']:.0f}"

            out.append(f"| a fresh process: read_table(CSV) | | {_s(end['read_seconds'])} | "
                       f"{_mib(end['read_peak_rss_mib'])} (process) | {growth(end['read_peak_rss_mib'])} |")
            out.append(f"| a fresh process: read_table(CSV), then the full audit | | {_s(end['seconds'])} | "
                       f"{_mib(end['peak_rss_mib'])} (process) | {growth(end['peak_rss_mib'])} |")
        elif end.get("error"):
            out.append(f"| a fresh process: read_table(CSV), then the full audit | error: {end['error']} | | | |")
    if results.get("incremental"):
        out += ["", "Incremental cost of a control change, from what the app caches (CPU s):", "",
                "| change | intervals off (s) | intervals on (s) |", "|---|---:|---:|"]
        for row in results["incremental"]:
            out.append(f"| {row['change']} | {_s(row['intervals_off']['cpu'])} | {_s(row['intervals_on']['cpu'])} |")
    if results.get("loading"):
        out += ["", "Loading the app's columns of the data set (CPU s / wall s; peak: RSS growth while reading):", "",
                "| format | file (bytes/row) | read_table (s) | peers (s, peak) | ratio (fastest peer / ours, CPU) "
                "| read_table peak (MiB) | bytes per row |", "|---|---:|---:|---|---:|---:|---:|"]
        for row in results["loading"]:
            peers = {k: v for k, v in row.items() if isinstance(v, dict) and k != "ours"}
            fastest = min(v["cpu"] for v in peers.values())
            bpr = row["bytes_per_row"]
            out.append(f"| {row['format']} | {row['file_bytes_per_row']:.0f} | {_s(row['ours']['cpu'])} / "
                       f"{_s(row['ours']['wall'])} | "
                       + ", ".join(f"{k} {_s(v['cpu'])} / {_s(v['wall'])} ({_mib(v['peak_mib'])} MiB)"
                                   for k, v in peers.items())
                       + f" | {_x(fastest / max(row['ours']['cpu'], 1e-9))} | {_mib(row['ours']['peak_mib'])} | "
                       f"{'' if bpr is None else f'{bpr:.0f}'} |")
    app = results.get("app") or {}
    if app.get("steps") or app.get("errors") or app.get("error"):
        out += ["", f"The app through AppTest on the uploaded {meta['rows']:,}-row CSV (script run, wall s, median "
                    f"over {meta['app_repeats']} repeat(s); process peak RSS "
                    f"{_mib(app.get('peak_rss_mib'))} MiB):", "", "| step | wall (s) | CPU (s) |", "|---|---:|---:|"]
        for row in app.get("steps", []):
            out.append(f"| {row['step']} | {_s(row['wall'])} | {_s(row['cpu'])} |")
        for name, error in (app.get("errors") or {}).items():
            out.append(f"| {name} | error: {error} | |")
        for name, shown in (app.get("shown_errors") or {}).items():
            out.append(f"| {name} | the page showed an error: {' / '.join(shown)} | |")
        if app.get("error"):
            out.append(f"| (app) | error: {app['error']} | |")
    if results.get("targets"):
        out += ["", f"Targets of the library's speed, measured in this run; load average (1, 5, 15 min) at its start "
                    f"{meta.get('load_start')}, at its end {meta.get('load_end')}:", "",
                "| target | goal | measured | met |", "|---|---|---|---|"]
        for row in results["targets"]:
            out.append(f"| {row['target']} | {row['goal']} | {row['measured']} | {'yes' if row['met'] else 'no'} |")
    checks = results["agreement"]
    out += ["", f"Agreement: {sum(c['passed'] for c in checks)} of {len(checks)} checks passed (tolerance {TOL:g})."]
    for note in results["notes"]:
        out.append(f"Note: {note}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark; returns the results (also written as JSON). Exits with status 1 on a disagreement."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--subgroups", type=int, default=20, help="overlapping identity indicator columns")
    parser.add_argument("--repeats", type=int, default=None, help="runs per implementation (default 3; 1 with --quick)")
    parser.add_argument("--out", default=str(HERE / "results.json"), help="where to write the JSON results")
    parser.add_argument("--quick", action="store_true",
                        help="one run each without warm-up, one row-bootstrap replicate, the app's page visits "
                             "and one control change")
    parser.add_argument("--skip", default="", help="comma-separated sections to leave out: "
                                                  "side,import,intervals,audit,incremental,loading,memory,app")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--targets", action="store_true",
                        help="side by side, only the rows of the speed targets (with --skip for the other sections)")
    parser.add_argument("--engine", choices=["duckdb", "spark", "polars"],
                        help="instead: the engine benchmark (benchmarks/engines.py) with this engine; "
                             "--rows then defaults to 10^8 and other options go to engines.py")
    parser.add_argument("--child", choices=["audit", "app"], help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args(argv)
    if args.engine:
        import engines

        given = argv if argv is not None else sys.argv[1:]
        shared = [item for flag, value in (("--rows", args.rows), ("--out", args.out)) if flag in given
                  for item in (flag, str(value))]
        return engines.main(["--engine", args.engine, *shared, *rest])
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    repeats = args.repeats or (1 if args.quick else 3)
    warm = not args.quick  # a warm-up call before timing (imports, lazy set-up); --quick does without

    if args.child == "audit":
        print(json.dumps(child_audit(args.file)))
        return {}
    if args.child == "app":
        print(json.dumps(child_app(args.file, repeats, args.quick)))
        return {}

    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f} s] {message}", file=sys.stderr, flush=True)

    checks = Checks()
    notes: list[str] = []
    results: dict[str, Any] = {"meta": {
        "date": datetime.date.today().isoformat(), "rows": args.rows, "identity_columns": args.subgroups,
        "repeats": repeats, "app_repeats": 1 if args.quick else repeats, "quick": args.quick, "seed": args.seed,
        "targets_only": args.targets,
        "command": " ".join(["python benchmarks/run.py", *(argv if argv is not None else sys.argv[1:])]),
        "machine": machine(), "load_start": load_average()}, "notes": notes}
    log(f"generating {args.rows:,} rows ...")
    frame = make_data(args.rows, args.subgroups, args.seed)
    if "side" not in skip:
        log("side by side ...")
        results["side_by_side"] = side_by_side(frame, args.subgroups, repeats, checks, log, warm, args.targets)
        notes += [f"skipped {r['operation']} vs {r['peer']}: {r['skipped']}" for r in results["side_by_side"]
                  if "skipped" in r]
        if any(r["peer"].startswith("guardian-ai (integer") and "skipped" not in r for r in results["side_by_side"]):
            notes.append("guardian-ai is given integer-coded categories for the smoothed EDF: with pandas 3, its "
                         "in-place replace of attribute values by codes is a no-op under copy-on-write, and string "
                         "categories then fail inside aif360")
    else:
        results["side_by_side"] = []
    if "import" not in skip:
        log("import time ...")
        results["import"] = import_rows(repeats, log)
    if "intervals" not in skip:
        log("intervals ...")
        results["intervals"] = interval_rows(frame, repeats, 1 if args.quick else 2, checks, log)
    if "audit" not in skip:
        log("full audit ...")
        results["audit"] = audit_rows(frame, repeats, checks, log, warm)
    if "incremental" not in skip:
        log("incremental changes ...")
        results["incremental"] = incremental_rows(frame, repeats, log, warm)
    with tempfile.TemporaryDirectory() as tmp:
        csv_path = Path(tmp) / f"generated_{args.rows}.csv"
        if not skip >= {"loading", "memory", "app"}:
            log("loading ...")
            results["loading"], csv = loading_rows(frame, repeats, checks, log)
            csv_path.write_bytes(csv)
            del csv
        if "memory" not in skip and "loading" in results:
            log("end to end in a fresh process ...")
            results["end_to_end"] = run_child("audit", csv_path)
        if "app" not in skip and "loading" in results:
            log("the app through AppTest ...")
            results["app"] = app = run_child("app", csv_path, "--repeats", str(results["meta"]["app_repeats"]),
                                             *(["--quick"] if args.quick else []))
            loaded = app.get("loaded", {})
            checks.equal("app: the uploaded file is the data analysed (rows, protected attributes, scores, "
                          "predicted label)", [loaded.get("rows"), loaded.get("protected"), loaded.get("scores"),
                                               loaded.get("predicted")],
                          [args.rows, ["race", "sex"], list(SCORES), "pred"])
    results["agreement"] = checks.records
    results["meta"]["load_end"] = load_average()
    results["targets"] = targets(results)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    if checks.failed:
        print("AGREEMENT FAILED: the implementations disagree, so no timing is reported.", file=sys.stderr)
        for record in checks.failed:
            print(json.dumps(record, default=str), file=sys.stderr)
        raise SystemExit(1)
    print(markdown(results))
    return results


if __name__ == "__main__":
    main()
