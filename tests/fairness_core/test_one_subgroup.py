"""Data that allows no comparison — one subgroup, an attribute entirely missing, every subgroup small — is answered
"not assessable" by every metric, the review and the command line (exit 0, or 1 under --strict), never an error.

A one-valued attribute made the calibration errors' intervals index past their end (IndexError, exit 3), and a
subgroup that holds every row was compared with the overall population — itself — and passed.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairness_core as fc
from fairness_core._disparity.compare import ALONE_NOTE
from tests.support import ROOT, examples


def degenerate(kind: str, n: int, seed: int) -> pd.DataFrame:
    """A label, a probability score and a ``region`` attribute of `kind` ('one', 'missing' or 'small')."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    score = np.round(np.clip(rng.normal(0.35 + 0.3 * label, 0.2), 0, 1), 3)
    region = {"one": np.full(n, "north", dtype=object), "missing": np.full(n, None, dtype=object),
              "small": np.array([f"r{i // 3}" for i in range(n)], dtype=object)}[kind]
    return pd.DataFrame({"label": label, "score": score, "region": region})


@pytest.mark.parametrize("reference", ["rest", "overall"])
@pytest.mark.parametrize("ci", [None, 0.9])
def test_a_subgroup_holding_every_row_is_not_compared(reference, ci):
    frame = degenerate("one", 400, 1)
    y, p = frame["label"].to_numpy(), frame["score"].to_numpy()
    cal = fc.calibration_disparity(y, p, frame["region"], reference=reference, ci=ci, n_boot=200)
    assert cal.verdict.status == "not_assessable" and np.isnan(cal.value)
    assert cal.disparity.table["note"].tolist() == [ALONE_NOTE]
    assert ALONE_NOTE in cal.interpretation
    if ci is not None:   # the errors table still has each subgroup's own intervals
        errors = cal.errors.iloc[0]
        assert errors["l2_ece_ci_low"] <= errors["l2_ece"] <= errors["l2_ece_ci_high"]
        assert cal.disparity.table["p_value"].isna().all()
    rates = fc.rate_disparity(y, (p >= 0.5).astype(int), frame["region"], metric="false_positive_rate",
                              reference=reference, ci=ci, n_boot=200)
    assert np.isnan(rates.value) and rates.n_used == 0 and rates.table["note"].tolist() == [ALONE_NOTE]


def test_the_undefined_replicate_counts_are_those_of_their_own_subgroups():
    # `~False` is -1 in Python: the mask of defined estimates became an index array of 1s, so every count read the
    # second subgroup's (and one subgroup raised IndexError). Here only the first subgroup has undefined replicates.
    from fairness_core._disparity.calibration_errors import _with_error_intervals

    rng = np.random.default_rng(2)
    samples = rng.random((200, 2, 6)) * 0.1   # ECE, MCE, Brier, debiased squared error, its plug-in, its variance
    samples[:7, 0, :] = np.nan   # 7 replicates of the first subgroup undefined, none of the second
    table = pd.DataFrame({"subgroup": ["a", "b"], "ece": [0.05, 0.05], "l2_ece": [0.1, 0.1],
                          "squared_ce": [0.01, 0.01], "mce": [0.08, 0.08], "brier_score": [0.2, 0.2]})
    plug_in, variance = np.array([0.012, 0.012]), np.array([1e-4, 1e-4])
    out = _with_error_intervals(table, samples, 0.9, 200, plug_in, variance)   # (no ECE or MCE interval)
    assert out.attrs["n_boot_undefined"] == {"l2_ece": 7, "squared_ce": 7, "brier_score": 7}
    one = _with_error_intervals(table.iloc[:1], samples[:, :1, :], 0.9, 200, plug_in[:1], variance[:1])
    assert one.attrs["n_boot_undefined"] == {"l2_ece": 7, "squared_ce": 7, "brier_score": 7}
    assert "mce_ci_low" not in out.columns and "ece_ci_high" not in out.columns
    assert out["squared_ce_ci_low"].notna().all() and out["brier_score_ci_high"].notna().all()


@settings(deadline=None, max_examples=examples(12))
@given(kind=st.sampled_from(["one", "missing", "small"]), n=st.integers(40, 300), seed=st.integers(0, 10 ** 6),
       reference=st.sampled_from(["rest", "overall", "pairwise"]), ci=st.sampled_from([None, 0.95]))
def test_a_review_of_data_without_comparisons_judges_nothing(kind, n, seed, reference, ci):
    frame = degenerate(kind, n, seed)
    mapping = fc.ColumnMapping(label="label", positive_label=1, scores=("score",), protected=("region",))
    config = fc.ReviewConfig(mapping=mapping, ci=ci, n_boot=200, rate_reference=reference, cal_reference=reference,
                             dataset_reference=reference)
    review = fc.build_review(frame, config, source={"name": f"{kind}.csv"})
    statuses = {v.status for model in review.models for v in model.verdicts}
    assert statuses == {"not_assessable"}, [(v.rule.name, v.status, v.sentence) for m in review.models
                                            for v in m.verdicts]


@pytest.mark.parametrize("kind", ["one", "missing", "small"])
def test_the_command_line_answers_data_without_comparisons(kind, tmp_path):
    path = tmp_path / f"{kind}.csv"
    degenerate(kind, 300, 4).to_csv(path, index=False)
    flags = ["--label", "label", "--positive", "1", "--score", "score", "--protected", "region"]
    for strict, expected in (([], 0), (["--strict"], 1)):
        done = subprocess.run([sys.executable, "-m", "fairness_core", "metrics", str(path), *flags, *strict,
                               "--out", str(tmp_path / "review.json")], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == expected, done.stderr
        assert "Traceback" not in done.stderr
        assert "model 6 not assessable" in done.stderr, done.stderr
