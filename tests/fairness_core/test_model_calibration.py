"""compare_model_calibration: each model's ECE per subgroup and the paired bootstrap of its difference."""

import doctest

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._models import calibration as _model_calibration
from fairness_core._counts.binning import bin_edges, bin_index


def _data(n, seed):
    """Labels, two correlated probability columns (one overconfident) and overlapping indicator subgroups."""
    rng = np.random.default_rng(seed)
    truth = rng.beta(2, 3, n)
    y = (rng.random(n) < truth).astype(int)
    a = np.clip(truth + rng.normal(scale=0.05, size=n), 0, 1)
    b = np.clip(truth ** 0.7 + rng.normal(scale=0.05, size=n), 0, 1)
    frame = pd.DataFrame({"u": rng.random(n) < 0.3, "v": rng.random(n) < 0.5, "w": np.arange(n) < 3}).astype(float)
    frame.loc[rng.random(n) < 0.05, "v"] = np.nan
    return y, a, b, fc.Subgroups.from_indicators(frame, ["u", "v", "w"], min_size=10)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_eces_and_differences_equal_the_single_model_functions(strategy):
    y, a, b, groups = _data(800, 1)
    table = fc.compare_model_calibration(y, {"a": a, "b": b}, groups, baseline="b", n_bins=7, strategy=strategy,
                                         min_per_group=5, ci=0.9, n_boot=200)
    assert table["subgroup"].tolist() == [None, *groups.names] * 2
    single = {m: fc.calibration_errors(y, s, groups, n_bins=7, strategy=strategy) for m, s in (("a", a), ("b", b))}
    whole = {m: fc.expected_calibration_error(y, s, n_bins=7, strategy=strategy) for m, s in (("a", a), ("b", b))}
    for model in ("a", "b"):
        rows = table[table["model"] == model]
        np.testing.assert_allclose(rows["value"].to_numpy()[1:], single[model]["ece"].to_numpy(), rtol=0, atol=1e-14)
        assert rows["value"].iloc[0] == pytest.approx(whole[model], abs=1e-14)
        expected = np.r_[whole[model] - whole["b"], single[model]["ece"].to_numpy() - single["b"]["ece"].to_numpy()]
        np.testing.assert_allclose(rows["difference"].to_numpy(), expected, rtol=0, atol=1e-14)
        assert rows["size"].tolist() == [len(y), *groups.sizes.astype(int)]
    w = table[(table["model"] == "a") & (table["subgroup"] == "w")].iloc[0]      # 3 rows < min_per_group
    assert np.isnan(w["value"]) and np.isnan(w["difference_ci_low"]) and w["excludes_zero"] is None
    assert w["note"] == "fewer than min_per_group=5 rows" and w["small"]
    assert table.attrs == {"baseline": "b", "ci": 0.9, "n_boot": 200, "n_bins": 7, "strategy": strategy}


def test_replicate_of_the_original_counts_is_the_estimate():
    y, a, b, groups = _data(600, 2)
    table = fc.compare_model_calibration(y, {"a": a, "b": b}, groups, baseline="a", n_bins=5, ci=None)
    assert "difference_ci_low" not in table
    bins = tuple(bin_index(p, bin_edges(p, 5, "uniform")) for p in (b, a))
    cells = _model_calibration._PairedCells.of(groups.patterns, y, bins, (b, a), 5)
    model, baseline = cells.ece(cells.atoms.counts[None], 5)
    np.testing.assert_allclose(model[0], table.loc[table["model"] == "b", "value"], rtol=0, atol=1e-14)
    np.testing.assert_allclose(baseline[0], table.loc[table["model"] == "a", "value"], rtol=0, atol=1e-14)
    assert cells.atoms.counts.sum() == len(y) and cells.atoms.counts.shape[1] < 2 * 5 * 5


def test_the_same_probabilities_differ_by_zero_with_zero_width():
    y, a, _, groups = _data(500, 3)
    table = fc.compare_model_calibration(y, {"a": a, "copy": a.copy()}, groups, baseline="a", n_boot=100)
    copy = table[(table["model"] == "copy") & table["value"].notna()]
    assert (copy["difference"] == 0).all()
    assert (copy["difference_ci_low"] == 0).all() and (copy["difference_ci_high"] == 0).all()
    assert copy["excludes_zero"].tolist() == [False] * len(copy)


def test_interval_is_a_paired_row_bootstrap():
    """The bootstrap's spread matches resampling rows (stratified by membership pattern) and recomputing both ECEs."""
    y, a, b, groups = _data(3000, 4)
    level = 0.8
    table = fc.compare_model_calibration(y, {"a": a, "b": b}, groups, baseline="b", n_bins=10, ci=level, n_boot=400,
                                         random_state=1)
    codes = groups.patterns[0]
    by_pattern = [np.flatnonzero(codes == p) for p in range(codes.max() + 1)]
    member = groups.membership[:, 0]
    rng = np.random.default_rng(0)
    overall, first = [], []
    ece = fc.expected_calibration_error
    for _ in range(300):   # rows resampled within each membership pattern, the same rows for both models
        rows = np.concatenate([rng.choice(r, len(r)) for r in by_pattern if len(r)])
        overall.append(ece(y[rows], a[rows]) - ece(y[rows], b[rows]))
        keep = rows[member[rows]]
        first.append(ece(y[keep], a[keep]) - ece(y[keep], b[keep]))
    rows = table[table["model"] == "a"]
    z = 1.2816   # the 80 % interval of a normal spans 2 x 1.2816 sd
    for row, draws in ((rows.iloc[0], overall), (rows.iloc[1], first)):
        width = row["difference_ci_high"] - row["difference_ci_low"]
        assert width / (2 * z) == pytest.approx(np.std(draws), rel=0.2)
        assert row["difference_ci_low"] < row["difference"] < row["difference_ci_high"]


def test_seeded_and_checked():
    y, a, b, groups = _data(300, 5)
    first, again = (fc.compare_model_calibration(y, {"a": a, "b": b}, groups, baseline="a", n_boot=100,
                                                 random_state=7) for _ in range(2))
    pd.testing.assert_frame_equal(first, again)
    with pytest.raises(ValueError, match="at least two models"):
        fc.compare_model_calibration(y, {"a": a}, groups, baseline="a")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fc.compare_model_calibration(y, {"a": a, "b": b * 10}, groups, baseline="a")
    with pytest.raises(ValueError, match="strategy"):
        fc.compare_model_calibration(y, {"a": a, "b": b}, groups, baseline="a", strategy="kmeans")


def test_madlibs_pair_of_models(madlibs):
    identities = [c for c in madlibs.columns if c not in ("template", "toxicity", "TOXICITY@1", "TOXICITY@6")]
    y = (madlibs["toxicity"] == "toxic").to_numpy().astype(int)
    probabilities = {name: madlibs[name].to_numpy() for name in ("TOXICITY@1", "TOXICITY@6")}
    groups = fc.Subgroups.from_indicators(madlibs, identities)
    table = fc.compare_model_calibration(y, probabilities, groups, baseline="TOXICITY@1", n_boot=200)
    overall = table[(table["model"] == "TOXICITY@6") & table["subgroup"].isna()].iloc[0]
    assert overall["value"] == pytest.approx(fc.expected_calibration_error(y, probabilities["TOXICITY@6"]), abs=1e-14)
    assert overall["difference"] == pytest.approx(0.0211, abs=5e-4) and overall["excludes_zero"]
    lesbian = table[(table["model"] == "TOXICITY@6") & (table["subgroup"] == "lesbian")].iloc[0]
    assert lesbian["difference"] == pytest.approx(-0.1179, abs=5e-4) and lesbian["difference_ci_high"] < -0.09


def test_docstring_example():
    result = doctest.testmod(_model_calibration, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
