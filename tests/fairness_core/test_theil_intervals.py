"""Intervals on the Theil indices and the correlation score.

Every expected number is computed here from the rows: the literal Theil formula on explicit
per-row benefits b = y_pred - y_true + 1, a row-level stratified bootstrap, numpy percentiles,
and Fisher's z interval written out with atanh / tanh.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from support import literal_simultaneous_level
from scipy.stats import ks_2samp, norm

import fairness_core as fc
from fairness_core._metrics.theil import theil_replicates

TOL = 1e-12
BENEFIT = np.array([1.0, 2.0, 0.0, 1.0])  # cells TN, FP, FN, TP


# --------------------------------------------------------------------------------------------
# Literal re-implementations on rows
# --------------------------------------------------------------------------------------------


def literal_theil(b) -> float:
    """T = mean((b / mu) ln(b / mu)) over the rows, 0 ln 0 = 0; NaN without rows or with mu = 0."""
    b = np.asarray(b, dtype=float)
    if len(b) == 0 or b.mean() == 0:
        return float("nan")
    r = b / b.mean()
    return float(np.mean([x * math.log(x) if x > 0 else 0.0 for x in r]))


def literal_between(parts) -> float:
    """Theil index of the rows after replacing each benefit by its part's mean."""
    parts = [np.asarray(p, dtype=float) for p in parts]
    if any(len(p) == 0 for p in parts):
        return float("nan")
    return literal_theil(np.concatenate([np.full(len(p), p.mean()) for p in parts]))


def percentile(samples, level):
    """(low, high) of numpy's linear-interpolation percentiles over the defined samples."""
    s = np.asarray(samples, dtype=float)
    s = s[~np.isnan(s)]
    alpha = (1 - level) / 2
    return float(np.quantile(s, alpha)), float(np.quantile(s, 1 - alpha))


def p_value(signed) -> float:
    s = np.asarray(signed, dtype=float)
    s = s[~np.isnan(s)]
    return min(1.0, 2 * (1 + min((s <= 0).sum(), (s >= 0).sum())) / (1 + len(s)))


def comparisons(names, reference):
    """(subgroup, reference) of every comparison, in the library's row order."""
    if reference in ("rest", "overall"):
        return [(g, reference) for g in names]
    if reference == "pairwise":
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    return [(g, reference) for g in names if g != reference]


def sides(benefit, member: dict, pair):
    """The two groups' benefit arrays of one comparison (member: subgroup -> boolean row mask)."""
    g, ref = pair
    own = benefit[member[g]]
    if ref == "rest":
        other = benefit[~member[g]]
    elif ref == "overall":
        other = benefit
    else:
        other = benefit[member[ref]]
    return own, other


def literal_table(benefit, member: dict, names, reference):
    """(mu1, mu2, T) of every comparison, from the rows."""
    out = []
    for pair in comparisons(names, reference):
        own, other = sides(benefit, member, pair)
        out.append((own.mean() if len(own) else np.nan, other.mean() if len(other) else np.nan,
                    literal_between([own, other])))
    return np.array(out, dtype=float).reshape(-1, 3)


def data(n=400, seed=3, overlap=False):
    """Rows with labels, predictions and either disjoint subgroups or two overlapping indicators."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n, p=[0.55, 0.35, 0.10])
    y = rng.integers(0, 2, n)
    flip = rng.random(n) < np.where(g == "a", 0.3, 0.15)
    p = np.where(flip, 1 - y, y)
    if not overlap:
        return y, p, g, fc.Subgroups.from_attributes(pd.DataFrame({"g": g}), ["g"], min_size=10)
    frame = pd.DataFrame({"x": (rng.random(n) < 0.4).astype(int), "z": (rng.random(n) < 0.3).astype(int)})
    p = np.where(frame["x"].to_numpy() == 1, np.maximum(p, rng.random(n) < 0.2), p)
    return y, p, frame, fc.Subgroups.from_indicators(frame, ["x", "z"], min_size=10)


def masks_of(raw, groups):
    """subgroup name -> boolean row mask, from the raw attribute(s)."""
    if isinstance(raw, pd.DataFrame):
        return {name: (raw[name] == 1).to_numpy() for name in groups.names}
    return {name: np.asarray(raw) == name for name in groups.names}


def replicate_rows(counts, n_boot, seed):
    """The resampled atoms the library draws with `seed` (same Generator calls), shape (n_boot, P, 4)."""
    rng = np.random.default_rng(seed)
    return np.concatenate(list(counts.atoms.replicates(n_boot, rng)))


def rows_of_atoms(atoms_counts, member, background):
    """Explicit rows of a replicate: benefit per row and, per subgroup, member/background masks."""
    cells = np.concatenate([np.repeat(np.arange(4), atoms_counts[p].astype(int)) for p in range(len(atoms_counts))])
    pattern = np.concatenate([np.full(int(atoms_counts[p].sum()), p) for p in range(len(atoms_counts))])
    return BENEFIT[cells], member[pattern], background[pattern]


# --------------------------------------------------------------------------------------------
# Point estimates are unchanged and match the literal formula
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("overlap", [False, True])
@pytest.mark.parametrize("reference", ["rest", "overall", "pairwise", "b"])
def test_point_estimates_with_ci_match_literal_rows(reference, overlap):
    y, p, raw, groups = data(overlap=overlap)
    if overlap and reference == "b":
        reference = "z"
    benefit = (p - y + 1).astype(float)
    masks = masks_of(raw, groups)
    expected = literal_table(benefit, masks, groups.names, reference)
    table = fc.theil_index(y, p, groups, reduction=None, reference=reference, ci=0.95, n_boot=200)
    np.testing.assert_allclose(table["subgroup_value"], expected[:, 0], rtol=0, atol=TOL)
    np.testing.assert_allclose(table["reference_value"], expected[:, 1], rtol=0, atol=TOL)
    np.testing.assert_allclose(table["disparity"], expected[:, 2], rtol=0, atol=TOL)
    plain = fc.theil_index(y, p, groups, reduction=None, reference=reference)
    pd.testing.assert_frame_equal(table[plain.columns], plain)
    assert list(table.columns) == [
        "subgroup", "reference", "size", "reference_size", "subgroup_value", "subgroup_value_ci_low",
        "subgroup_value_ci_high", "reference_value", "reference_value_ci_low", "reference_value_ci_high",
        "disparity", "disparity_ci_low", "disparity_ci_high", "p_value", "excludes_parity", "small", "note"]
    assert (table["disparity_ci_low"] <= table["disparity"] + TOL).all()
    assert (table["disparity_ci_low"] >= 0).all()


# --------------------------------------------------------------------------------------------
# The bootstrap statistic: replicate by replicate, from explicit rows
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("overlap", [False, True])
@pytest.mark.parametrize("reference", ["rest", "overall", "pairwise"])
def test_intervals_equal_literal_theil_on_the_resampled_rows(reference, overlap):
    """Same seed, same multinomial draws: rebuild each replicate's rows and apply the literal formula."""
    y, p, raw, groups = data(n=300, overlap=overlap)
    counts = fc.confusion_counts(y, p, groups)
    level, n_boot = 0.9, 200
    atoms = counts.atoms
    names = list(counts.names)
    signed, theil, mu1, mu2 = [], [], [], []
    for rep in replicate_rows(counts, n_boot, seed=7):
        benefit, member, background = rows_of_atoms(rep, atoms.member, atoms.background)
        m = {name: member[:, j] for j, name in enumerate(names)}
        rows = []
        for pair in comparisons(names, reference):
            g, ref = pair
            own = benefit[m[g]]
            other = {"rest": benefit[background[:, names.index(g)]], "overall": benefit}.get(
                ref, benefit[m[ref]] if ref in m else None)
            rows.append((own.mean(), other.mean(), literal_between([own, other])))
        rows = np.array(rows)
        mu1.append(rows[:, 0])
        mu2.append(rows[:, 1])
        theil.append(rows[:, 2])
        signed.append(rows[:, 0] - rows[:, 1])
    signed, theil, mu1, mu2 = map(np.array, (signed, theil, mu1, mu2))

    result = counts.theil_index(reference=reference, reduction="max", include_small=True, ci=level, n_boot=n_boot,
                                random_state=7)
    table = result.table
    for j in range(len(table)):
        low, high = percentile(theil[:, j], level)
        s_low, s_high = percentile(signed[:, j], level)
        excludes = s_low > 0 or s_high < 0
        assert table["disparity_ci_high"].iloc[j] == pytest.approx(high, abs=TOL)
        assert table["disparity_ci_low"].iloc[j] == pytest.approx(low if excludes else 0.0, abs=TOL)
        assert bool(table["excludes_parity"].iloc[j]) is excludes
        assert table["p_value"].iloc[j] == pytest.approx(p_value(signed[:, j]), abs=TOL)
        for side, samples in (("subgroup_value", mu1[:, j]), ("reference_value", mu2[:, j])):
            low, high = percentile(samples, level)
            assert table[f"{side}_ci_low"].iloc[j] == pytest.approx(low, abs=TOL)
            assert table[f"{side}_ci_high"].iloc[j] == pytest.approx(high, abs=TOL)
    # The reduced max: the largest low end at the comparisons' simultaneous level (0 where the signed difference's
    # interval there holds 0) and the largest high end at the level itself, widened to the estimate.
    joint = literal_simultaneous_level(signed, level)
    lows, highs = [], []
    for j in range(theil.shape[1]):
        low, _ = percentile(theil[:, j], joint)
        s_low, s_high = percentile(signed[:, j], joint)
        lows.append(low if (s_low > 0 or s_high < 0) else 0.0)
        highs.append(percentile(theil[:, j], level)[1])
    lows, highs = np.array(lows), np.array(highs)
    assert result.ci_low == pytest.approx(min(lows.max(), result.value), abs=1e-6)
    assert result.ci_high == pytest.approx(max(highs.max(), result.value), abs=TOL)
    assert (result.level, result.n_boot, result.n_boot_undefined, result.adjust) == (level, n_boot, 0, None)
    # The mean: its low end the percentile of the replicates' mean with the comparisons that do not exclude parity at
    # the simultaneous level counted at 0; its high end the percentile of the replicates' plain mean.
    mean = counts.theil_index(reference=reference, reduction="mean", include_small=True, ci=level, n_boot=n_boot,
                              random_state=7)
    low_reps = np.where(lows > 0, theil, 0.0).mean(axis=1)
    assert mean.ci_low == pytest.approx(min(percentile(low_reps, level)[0], mean.value), abs=1e-6)
    assert mean.ci_high == pytest.approx(max(percentile(theil.mean(axis=1), level)[1], mean.value), abs=TOL)


@pytest.mark.parametrize("overlap", [False, True])
def test_multinomial_bootstrap_has_the_distribution_of_a_row_level_stratified_bootstrap(overlap):
    """Resampling rows with replacement within each membership pattern gives the same distribution."""
    y, p, raw, groups = data(n=120, seed=11, overlap=overlap)
    counts = fc.confusion_counts(y, p, groups)
    names = list(counts.names)
    table = counts.theil_index(reduction=None, reference="rest")
    n_boot = 20000
    _, library, lib_mu1, _ = theil_replicates(counts.atoms, names, "rest", table, n_boot, np.random.default_rng(1))

    # Brute force: row indices drawn with replacement inside each pattern of memberships (n_boot x rows).
    benefit = (p - y + 1).astype(float)
    masks = masks_of(raw, groups)
    member = np.column_stack([masks[name] for name in names])
    _, pattern = np.unique(member, axis=0, return_inverse=True)
    strata = [np.flatnonzero(pattern == k) for k in np.unique(pattern)]
    rng = np.random.default_rng(2)
    idx = np.concatenate([rows[rng.integers(0, len(rows), size=(n_boot, len(rows)))] for rows in strata], axis=1)
    b, m = benefit[idx], member[idx]
    for j in range(len(names)):
        inside = m[:, :, j]
        n1, n2 = inside.sum(axis=1), (~inside).sum(axis=1)
        assert (n1 == n1[0]).all()  # stratifying by pattern keeps the subgroup's size
        mu1, mu2 = (b * inside).sum(axis=1) / n1, (b * ~inside).sum(axis=1) / n2
        mu = (n1 * mu1 + n2 * mu2) / (n1 + n2)
        # Two-group Theil index of the resampled rows: each row's benefit replaced by its group's mean.
        brute = sum(k / (n1 + n2) * (v / mu) * np.log(v / mu) for k, v in ((n1, mu1), (n2, mu2)))
        sd = brute.std()
        assert abs(library[:, j].mean() - brute.mean()) < 0.05 * sd
        # The distributions are discrete (a replicate's index depends on its counts only), so compare
        # distribution functions rather than quantiles: the two-sample Kolmogorov-Smirnov distance, and
        # the share of brute-force replicates inside the library's central 90 % range. Values are rounded
        # to 1e-14 first: the same counts give the same index up to the last bit of the two formulas.
        lib, brute = np.round(library[:, j], 14), np.round(brute, 14)
        test = ks_2samp(lib, brute)
        assert test.statistic < 0.025 and test.pvalue > 1e-3
        low, high = np.quantile(lib, [0.05, 0.95])
        assert np.mean((brute >= low) & (brute <= high)) == pytest.approx(np.mean((lib >= low) & (lib <= high)),
                                                                          abs=0.015)
        assert lib_mu1[:, j].std() == pytest.approx(mu1.std(), rel=0.03)
        if not overlap:  # one pattern per subgroup: the mean benefit's sd is that of a plain row bootstrap
            own = benefit[member[:, j]]
            assert mu1.std() == pytest.approx(own.std() / math.sqrt(len(own)), rel=0.03)


# --------------------------------------------------------------------------------------------
# Reproducibility, options, edge cases
# --------------------------------------------------------------------------------------------


def test_same_seed_same_intervals_other_seed_others():
    y, p, _, groups = data()
    kw = dict(reduction="max", reference="pairwise", ci=0.95, n_boot=300)
    a, b = fc.theil_index(y, p, groups, random_state=5, **kw), fc.theil_index(y, p, groups, random_state=5, **kw)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    c = fc.theil_index(y, p, groups, random_state=6, **kw)
    assert not np.array_equal(a.table["disparity_ci_high"], c.table["disparity_ci_high"])
    for f in (lambda s: fc.individual_theil_index(y, p, ci=0.9, random_state=s),
              lambda s: fc.individual_theil_index(y, p, subgroups=groups, ci=0.9, random_state=s),
              lambda s: fc.between_group_theil_index(y, p, groups, ci=0.9, random_state=s)):
        assert f(3) == f(3)
        assert f(3) != f(4)


def test_excludes_parity_on_a_clear_disparity_and_not_on_none():
    rng = np.random.default_rng(0)
    n = 4000
    g = rng.choice(["a", "b"], n)
    y = rng.integers(0, 2, n)
    p = np.where(g == "a", 1, y)  # a: every negative is a false positive (benefit 2)
    table = fc.theil_index(y, p, g, reduction=None, ci=0.95)
    assert table["excludes_parity"].tolist() == [True, True]
    assert (table["disparity_ci_low"] > 0).all() and (table["p_value"] < 0.01).all()
    # Perfect predictions: every replicate's index is 0; the interval is [0, 0] and parity is not excluded.
    perfect = fc.theil_index(y, y, g, reduction=None, ci=0.95)
    assert (perfect[["disparity_ci_low", "disparity_ci_high"]] == 0).all().all()
    assert perfect["excludes_parity"].tolist() == [False, False]


def test_adjustment_widens_intervals_and_is_recorded():
    y, p, _, groups = data(n=2000)
    plain = fc.theil_index(y, p, groups, reduction=None, reference="pairwise", ci=0.9, n_boot=500)
    bonf = fc.theil_index(y, p, groups, reduction=None, reference="pairwise", ci=0.9, n_boot=500, adjust="bonferroni")
    assert bonf.attrs["adjust"] == "bonferroni" and bonf.attrs["n_comparisons"] == 3
    assert (bonf["disparity_ci_high"] >= plain["disparity_ci_high"]).all()
    np.testing.assert_array_equal(bonf["p_value"], plain["p_value"])
    assert bonf["excludes_parity"].tolist() == (bonf["p_value"] * 3 < 0.1).tolist()


def test_undefined_comparisons_and_indices_are_counted():
    # All false negatives: mean benefit 0 everywhere, so every index and every replicate is undefined.
    y, p, g = [1] * 6, [0] * 6, ["a"] * 3 + ["b"] * 3
    result = fc.theil_index(y, p, g, ci=0.95, n_boot=100)
    assert math.isnan(result.value) and math.isnan(result.ci_low) and result.n_boot_undefined == 100
    assert result.table["excludes_parity"].isna().all()
    for r in (fc.individual_theil_index(y, p, ci=0.95, n_boot=100),
              fc.between_group_theil_index(y, p, g, ci=0.95, n_boot=100)):
        assert isinstance(r, fc.TheilResult) and math.isnan(r.value) and math.isnan(r.ci_low)
        assert r.n_boot_undefined == 100 and "mean benefit is 0" in r.note
    # One subgroup: its rest has no rows, so the comparison is undefined, with no interval.
    table = fc.theil_index([0, 1, 1], [1, 1, 0], ["a"] * 3, reduction=None, ci=0.95, n_boot=100)
    assert math.isnan(table["disparity_ci_high"].iloc[0]) and table["excludes_parity"].isna().all()
    # No rows at all.
    empty = fc.individual_theil_index([], [], ci=0.95, n_boot=100)
    assert math.isnan(empty.value) and empty.n_boot_undefined == 100


def test_option_errors():
    y, p, g = [0, 1, 1, 0], [1, 1, 0, 0], ["a", "a", "b", "b"]
    for f in (lambda **k: fc.theil_index(y, p, g, **k), lambda **k: fc.individual_theil_index(y, p, **k),
              lambda **k: fc.between_group_theil_index(y, p, g, **k)):
        with pytest.raises(ValueError, match="'ci' parameter"):
            f(ci=1.5)
        with pytest.raises(ValueError, match="'n_boot' parameter"):
            f(ci=0.9, n_boot=10)
    with pytest.raises(ValueError, match="'adjust' parameter of theil_index"):
        fc.theil_index(y, p, g, ci=0.9, adjust="sidak")
    # Counts built by hand have no atoms: intervals are refused with a tip.
    counts = fc.confusion_counts(y, p, g)
    plain = fc.ConfusionCounts(counts.names, counts.member, counts.background, counts.overall, counts.min_size,
                               disjoint=True)
    with pytest.raises(ValueError, match="Tip: build them with confusion_counts"):
        plain.theil_index(ci=0.9)
    with pytest.raises(ValueError, match="Tip: build them with confusion_counts"):
        plain.between_group_theil_index(ci=0.9)


# --------------------------------------------------------------------------------------------
# Individual and between-group indices
# --------------------------------------------------------------------------------------------


def test_individual_and_between_return_floats_without_ci_and_results_with():
    y, p, raw, groups = data()
    benefit = (p - y + 1).astype(float)
    masks = masks_of(raw, groups)
    assert type(fc.individual_theil_index(y, p)) is float
    assert type(fc.between_group_theil_index(y, p, groups)) is float
    between = literal_between([benefit[masks[name]] for name in groups.names])
    for r, expected in ((fc.individual_theil_index(y, p, ci=0.95), literal_theil(benefit)),
                        (fc.individual_theil_index(y, p, subgroups=groups, ci=0.95), literal_theil(benefit)),
                        (fc.between_group_theil_index(y, p, groups, ci=0.95), between)):
        assert isinstance(r, fc.TheilResult)
        assert r.value == pytest.approx(expected, abs=TOL) and float(r) == r.value
        assert r.ci_low <= r.value <= r.ci_high and r.ci_low < r.ci_high
        assert (r.level, r.n_boot, r.n_boot_undefined, r.note) == (0.95, 1000, 0, "")


@pytest.mark.parametrize("stratified", [False, True])
def test_individual_interval_equals_literal_theil_on_resampled_rows(stratified):
    y, p, raw, groups = data(n=250, overlap=True)
    level, n_boot = 0.95, 300
    if stratified:
        counts = fc.confusion_counts(y, p, groups)
        draws = replicate_rows(counts, n_boot, seed=9)
        result = fc.individual_theil_index(y, p, subgroups=groups, ci=level, n_boot=n_boot, random_state=9)
    else:  # one stratum: a plain multinomial over the four cells of all rows
        cells = np.bincount(2 * y + p, minlength=4).astype(float)
        draws = np.random.default_rng(9).multinomial(int(cells.sum()), cells / cells.sum(), size=(n_boot, 1))
        result = fc.individual_theil_index(y, p, ci=level, n_boot=n_boot, random_state=9)
    values = [literal_theil(np.repeat(BENEFIT, rep.sum(axis=0).astype(int))) for rep in draws]
    low, high = percentile(values, level)
    assert result.ci_low == pytest.approx(min(low, result.value), abs=TOL)
    assert result.ci_high == pytest.approx(max(high, result.value), abs=TOL)


def test_between_interval_equals_literal_on_resampled_rows_and_contains_the_estimate():
    y, p, raw, groups = data(n=250)
    counts = fc.confusion_counts(y, p, groups)
    level, n_boot = 0.95, 300
    draws = replicate_rows(counts, n_boot, seed=4)
    values = []
    for rep in draws:
        benefit, member, _ = rows_of_atoms(rep, counts.atoms.member, counts.atoms.background)
        values.append(literal_between([benefit[member[:, j]] for j in range(member.shape[1])]))
    result = counts.between_group_theil_index(ci=level, n_boot=n_boot, random_state=4)
    low, high = percentile(values, level)
    assert result.ci_low == pytest.approx(min(low, result.value), abs=TOL)
    assert result.ci_high == pytest.approx(max(high, result.value), abs=TOL)
    assert result.ci_low <= result.value <= result.ci_high
    # Perfect predictions: every replicate is 0.
    zero = fc.between_group_theil_index(y, y, groups, ci=level, n_boot=n_boot)
    assert (zero.value, zero.ci_low, zero.ci_high) == (0.0, 0.0, 0.0)


def test_between_group_with_ci_refuses_overlap():
    y, p, raw, groups = data(overlap=True)
    with pytest.raises(ValueError, match="needs disjoint subgroups"):
        fc.between_group_theil_index(y, p, groups, ci=0.95)


def test_compas_theil_intervals(compas):
    y = compas["two_year_recid"].to_numpy()
    p = (compas["decile_score"] >= 5).astype(int).to_numpy()
    groups = fc.Subgroups.from_attributes(compas, ["race"], min_size=30)
    result = fc.theil_index(y, p, groups, reduction="max", ci=0.95)
    benefit = (p - y + 1).astype(float)
    race = compas["race"].to_numpy()
    aa = race == "African-American"
    assert result.worst == ("African-American", "rest")
    assert result.value == pytest.approx(literal_between([benefit[aa], benefit[~aa]]), abs=TOL)
    assert result.ci_low <= result.value <= result.ci_high
    row = result.table.set_index("subgroup").loc["African-American"]
    assert bool(row["excludes_parity"]) is True and row["disparity_ci_low"] > 0
    # Native American (18 rows) is small: listed with its interval, left out of the max.
    native = result.table.set_index("subgroup").loc["Native American"]
    assert bool(native["small"]) and native["disparity_ci_high"] >= native["disparity"]
    individual = fc.individual_theil_index(y, p, subgroups=groups, ci=0.95)
    assert individual.value == pytest.approx(literal_theil(benefit), abs=TOL)
    assert individual.ci_low < individual.value < individual.ci_high
    between = fc.between_group_theil_index(y, p, groups, ci=0.95)
    assert between.ci_low <= between.value <= between.ci_high


# --------------------------------------------------------------------------------------------
# Correlation score: Fisher's z interval
# --------------------------------------------------------------------------------------------


def fisher(x, z, level):
    """Fisher's z interval of Pearson's r written out, and its image under r -> -|r|."""
    x, z = np.asarray(x, float), np.asarray(z, float)
    n = len(x)
    r = float(np.sum((x - x.mean()) * (z - z.mean())) / math.sqrt(np.sum((x - x.mean()) ** 2)
                                                                     * np.sum((z - z.mean()) ** 2)))
    if n <= 3:
        lo, hi = -1.0, 1.0
    else:
        half = norm.ppf(0.5 + level / 2) / math.sqrt(n - 3)
        lo, hi = math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)
    if lo <= 0 <= hi:
        score = (-max(abs(lo), abs(hi)), 0.0)
    else:
        score = (-max(abs(lo), abs(hi)), -min(abs(lo), abs(hi)))
    return r, lo, hi, score


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
@pytest.mark.parametrize("case", ["positive", "negative", "straddles", "tiny"])
def test_correlation_interval_is_fishers_z(case, level):
    rng = np.random.default_rng(1)
    n = {"tiny": 3}.get(case, 60)
    x = rng.integers(0, 2, n).astype(float)
    x[:2] = [0, 1]
    noise = rng.normal(size=n)
    z = {"positive": 2 * x + noise, "negative": -2 * x + noise, "straddles": 0.05 * x + noise,
         "tiny": np.array([0.3, 1.1, 0.2])}[case]
    r, lo, hi, (s_low, s_high) = fisher(x, z, level)
    got = fc.correlation_score(x, z, ci=level)
    assert isinstance(got, fc.CorrelationScoreResult)
    assert got.value == pytest.approx(-abs(r), abs=TOL) and float(got) == got.value
    assert got.value == fc.correlation_score(x, z)
    assert (got.r, got.r_ci_low, got.r_ci_high) == pytest.approx((r, lo, hi), abs=TOL)
    assert (got.ci_low, got.ci_high) == pytest.approx((s_low, s_high), abs=TOL)
    assert got.ci_low <= got.value <= got.ci_high and (got.level, got.n) == (level, n)
    if case == "straddles":
        assert got.ci_high == 0.0
    if case in ("positive", "negative"):
        assert got.ci_high < 0
    if case == "tiny":
        assert (got.ci_low, got.ci_high) == (-1.0, 0.0)


def test_correlation_interval_edge_cases():
    undefined = fc.correlation_score([1, 1, 1, 1], [0, 1, 2, 3], ci=0.95)
    assert all(math.isnan(v) for v in (undefined.value, undefined.r, undefined.ci_low, undefined.ci_high))
    perfect = fc.correlation_score([0, 1, 0, 1, 1], [0, 2, 0, 2, 2], ci=0.95)
    assert (perfect.value, perfect.ci_low, perfect.ci_high) == (-1.0, -1.0, -1.0)
    with pytest.raises(ValueError, match="'ci' parameter of correlation_score"):
        fc.correlation_score([0, 1, 0], [1, 2, 3], ci=95)
    assert type(fc.correlation_score([0, 1, 0, 1], [1, 2, 3, 3])) is float


def test_compas_correlation_interval(compas):
    p = (compas["decile_score"] >= 5).astype(float).to_numpy()
    age = compas["age"].to_numpy(dtype=float)
    r, lo, hi, score = fisher(p, age, 0.95)
    got = fc.correlation_score(p, age, ci=0.95)
    assert got.r == pytest.approx(r, abs=1e-12) and r < 0  # younger people are flagged more often
    assert (got.ci_low, got.ci_high) == pytest.approx(score, abs=1e-12)
    assert got.ci_high < 0
