"""Fast paths equal straightforward references written out here.

- ``Subgroups.from_attributes`` (factorized columns, mixed-radix codes) equals the former coding:
  sorted distinct values per column and ``np.unique(stacked, axis=0)`` over the rows.
- ``Subgroups.patterns`` (packed words, factorized) equals ``np.unique`` over the packed rows.
- ``Subgroups.crosstab`` of overlapping subgroups (one bincount over patterns) equals a masked
  bincount per subgroup.
- The AUC family (runs of the rows outside each background, in score order) equals
  ``roc_auc_score`` on the benchmark's masks, its DeLong intervals those of ``auc_interval`` on
  histograms of the masks, and the bootstrap replicates a literal per-replicate evaluation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

import fairness_core as fc
from fairness_core import MISSING, Subgroups
from fairness_core._metrics import auc_ranking as _auc_ranking
from fairness_core._subgroups import subgroups as _subgroups
from fairness_core._metrics.auc_ranking import _Ranked
from fairness_core._stats.auc_bootstrap import auc_replicates
from fairness_core._stats import bootstrap
from fairness_core._stats.bootstrap import Atoms
from fairness_core._stats.delong import auc_interval
from tests.support import examples

AUC_COLUMNS = ["subgroup_auc", "bpsn_auc", "bnsp_auc"]


# --------------------------------------------------------------------------------------------
# References, written literally
# --------------------------------------------------------------------------------------------


def reference_codes(values: pd.Series, n_bins: int, max_categories: int):
    """The former per-column coding: sorted distinct values (by text if unorderable), missing last."""
    missing = values.isna().to_numpy()
    present = values[~missing]
    if (pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
            and present.nunique() > max_categories):
        x = present.to_numpy(dtype=np.float64)
        edges = np.unique(np.quantile(x, np.linspace(0.0, 1.0, n_bins + 1)))
        labels = [f"{'[' if i == 0 else '('}{lo:g}, {hi:g}]" for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:]))]
        codes = np.full(len(values), len(labels), dtype=np.int64)
        codes[~missing] = np.searchsorted(edges[1:-1], x, side="left")
    else:
        uniques = pd.unique(present)
        try:
            order = sorted(uniques)
        except TypeError:
            order = sorted(uniques, key=str)
        labels = [_subgroups._value_label(v) for v in order]
        codes = np.full(len(values), len(labels), dtype=np.int64)
        if len(order):
            codes[~missing] = pd.Index(order).get_indexer(present)
    return codes, labels + [MISSING]


def reference_from_attributes(data, columns, *, intersect=True, n_bins=4, max_categories=10):
    """Names, membership and codes as the former ``np.unique(stacked, axis=0)`` coding gave them."""
    coded = [reference_codes(data[c], n_bins, max_categories) for c in columns]
    if intersect:
        stacked = np.column_stack([codes for codes, _ in coded])
        combos, inverse = np.unique(stacked, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        names = []
        for combo in combos:
            parts = [(col, labels[k]) for col, k, (_, labels) in zip(columns, combo, coded)]
            names.append(parts[0][1] if len(parts) == 1 else ", ".join(f"{c}={v}" for c, v in parts))
        return names, inverse[:, None] == np.arange(len(combos))[None, :], inverse
    names, masks = [], []
    for col, (codes, labels) in zip(columns, coded):
        for k in np.unique(codes):
            names.append(labels[k] if len(columns) == 1 else f"{col}={labels[k]}")
            masks.append(codes == k)
    codes = None
    if len(columns) == 1:
        codes = np.searchsorted(np.unique(coded[0][0]), coded[0][0])
    return names, np.column_stack(masks), codes


def reference_patterns(groups: Subgroups):
    """Membership patterns as ``np.unique`` over the packed [membership | background] rows."""
    bits = np.packbits(np.concatenate([groups.membership, groups.background], axis=1), axis=1)
    keys = np.ascontiguousarray(bits).view(np.dtype((np.void, bits.shape[1]))).reshape(-1)
    _, first, codes = np.unique(keys, return_index=True, return_inverse=True)
    return codes.reshape(-1), groups.membership[first], groups.background[first]


def masked_crosstab(groups: Subgroups, cell, n_cells, weights=None):
    """One masked bincount per subgroup, for members and for the background."""
    out = []
    for masks in (groups.membership, groups.background):
        out.append(np.array([np.bincount(cell[masks[:, j]], weights=None if weights is None else weights[masks[:, j]],
                                         minlength=n_cells) for j in range(len(groups.names))], dtype=float))
    return out


def sk_auc(y, s, mask):
    if mask.sum() == 0 or y[mask].min() == y[mask].max():
        return float("nan")
    return float(roc_auc_score(y[mask], s[mask]))


def reference_table(y, s, groups: Subgroups, level=None):
    """Per-subgroup AUCs with roc_auc_score on the benchmark's masks, counts from the masks, and the
    DeLong bounds of ``auc_interval`` on histograms of the masks (the former per-subgroup path)."""
    y = np.asarray(y).astype(bool)
    ranked = _Ranked.of(np.asarray(s, dtype=float))
    rows = []
    for j, name in enumerate(groups.names):
        m, b = groups.membership[:, j], groups.background[:, j]
        row = {"subgroup": name, "n_positive": int((m & y).sum()), "n_negative": int((m & ~y).sum()),
               "n_background_positive": int((b & y).sum()), "n_background_negative": int((b & ~y).sum()),
               "subgroup_auc": sk_auc(y, s, m), "bpsn_auc": sk_auc(y, s, (m & ~y) | (b & y)),
               "bnsp_auc": sk_auc(y, s, (m & y) | (b & ~y))}
        n_sp, n_sn, n_bp, n_bn = (row[c] for c in ("n_positive", "n_negative", "n_background_positive",
                                                    "n_background_negative"))
        notes = []
        if n_sp == 0 or n_sn == 0:
            why = "no rows" if n_sp == n_sn == 0 else "no positive examples" if n_sp == 0 else "no negative examples"
            notes.append(f"subgroup AUC undefined: {why}")
        if n_bp == 0 or n_sn == 0:
            notes.append("BPSN AUC undefined: " + ("no background positives" if n_bp == 0 else "no subgroup negatives"))
        if n_sp == 0 or n_bn == 0:
            notes.append("BNSP AUC undefined: " + ("no subgroup positives" if n_sp == 0 else "no background negatives"))
        if level is not None:
            sp, sn, bp, bn = (ranked.hist(mask) for mask in (m & y, m & ~y, b & y, b & ~y))
            low, high, why = auc_interval(np.stack([sp, bp, sp]), np.stack([sn, sn, bn]), level)
            for i, (col, label) in enumerate(zip(AUC_COLUMNS, ("subgroup", "BPSN", "BNSP"))):
                row[f"{col}_ci_low"], row[f"{col}_ci_high"] = low[i], high[i]
                if why[i] and not why[i].startswith("AUC undefined"):
                    notes.append(f"{label} AUC interval: {why[i]}")
        row["note"] = "; ".join(notes)
        rows.append(row)
    return pd.DataFrame(rows)


def assert_table_matches(table, expected, tol=1e-12):
    assert list(table["subgroup"]) == list(expected["subgroup"])
    assert list(table["note"]) == list(expected["note"])
    for col in ("n_positive", "n_negative", "n_background_positive", "n_background_negative"):
        np.testing.assert_array_equal(table[col].to_numpy(), expected[col].to_numpy(), err_msg=col)
    for col in expected.columns:
        if col.endswith("auc") or "_ci_" in col:
            got, want = table[col].to_numpy(dtype=float), expected[col].to_numpy(dtype=float)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=col)
            np.testing.assert_allclose(got[~np.isnan(want)], want[~np.isnan(want)], rtol=0, atol=tol, err_msg=col)


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def attribute_frame(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cat = pd.Categorical(rng.choice(["lo", "mid", "hi", None], n), categories=["hi", "unused", "lo", "mid"])
    return pd.DataFrame({
        "text": pd.Series(rng.choice(["b", "a", "c", None], n, p=[0.4, 0.3, 0.2, 0.1]), dtype=object),
        "str": pd.Series(rng.choice(["y", "x", None], n)).astype("str"),
        "int": rng.integers(0, 3, n),
        "few_floats": np.where(rng.random(n) < 0.1, np.nan, rng.integers(1, 4, n) / 2),
        "many_floats": np.where(rng.random(n) < 0.05, np.nan, rng.normal(size=n).round(1)),
        "flag": rng.random(n) < 0.3,
        "cat": cat,
        "mixed": pd.Series(rng.choice(np.array([1, "one", 2.5, None], dtype=object), n), dtype=object),
        "nullable": pd.array(np.where(rng.random(n) < 0.2, None, rng.integers(0, 4, n)), dtype="Int64"),
    })


def indicator_frame(seed: int, n: int, k: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"id{j}": np.where(rng.random(n) < 0.15, np.nan,
                                            np.where(rng.random(n) < rng.uniform(0.05, 0.5), rng.random(n) * 0.5 + 0.5,
                                                     rng.random(n) * 0.5)) for j in range(k)})


def scores_and_labels(seed: int, n: int, ties: bool):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.35).astype(int)
    s = rng.integers(0, 6, n) / 5.0 if ties else rng.normal(size=n) + y
    return y, s


# --------------------------------------------------------------------------------------------
# Subgroups
# --------------------------------------------------------------------------------------------


COLUMN_SETS = [["text"], ["str"], ["int"], ["few_floats"], ["many_floats"], ["flag"], ["cat"], ["mixed"],
               ["nullable"], ["text", "int"], ["cat", "flag", "few_floats"], ["many_floats", "str", "mixed"],
               ["nullable", "cat"]]


@pytest.mark.parametrize("columns", COLUMN_SETS, ids=["+".join(c) for c in COLUMN_SETS])
@pytest.mark.parametrize("intersect", [True, False])
def test_from_attributes_equals_the_unique_rows_coding(columns, intersect):
    frame = attribute_frame(1, 400)
    groups = Subgroups.from_attributes(frame, columns, intersect=intersect, max_categories=8)
    names, membership, codes = reference_from_attributes(frame, columns, intersect=intersect, max_categories=8)
    assert groups.names == names
    np.testing.assert_array_equal(groups.membership, membership)
    np.testing.assert_array_equal(groups.background, ~membership)
    if codes is None:
        assert groups.codes is None
    else:
        np.testing.assert_array_equal(groups.codes, codes)
    np.testing.assert_array_equal(groups.sizes, membership.sum(axis=0))


def test_from_attributes_one_row_and_first_rows_decide_binning():
    frame = attribute_frame(2, 1)
    for columns in COLUMN_SETS:
        groups = Subgroups.from_attributes(frame, columns)
        assert groups.names == reference_from_attributes(frame, columns)[0]
    # More distinct values than max_categories, but only after the first rows looked at.
    x = np.r_[np.ones(_subgroups._PEEK_ROWS), np.arange(40.0)]
    frame = pd.DataFrame({"x": x})
    assert Subgroups.from_attributes(frame, ["x"]).names == reference_from_attributes(frame, ["x"])[0]
    np.testing.assert_array_equal(Subgroups.from_attributes(frame, ["x"]).codes, reference_from_attributes(frame, ["x"])[2])


def test_hash_equal_values_keep_their_first_spelling():
    # 1 and True are one value for hashing; the label is that of the first row, as pd.unique gives.
    frame = pd.DataFrame({"v": pd.Series([True, 1, 0, False, None], dtype=object)})
    assert Subgroups.from_attributes(frame, ["v"]).names == reference_from_attributes(frame, ["v"])[0]


def test_many_combinations_are_compacted_without_overflow():
    rng = np.random.default_rng(3)
    n = 3000
    frame = pd.DataFrame({f"c{i}": rng.integers(0, 5000, n).astype(str) for i in range(4)})
    groups = Subgroups.from_attributes(frame, list(frame.columns), max_categories=10 ** 6)
    names, membership, codes = reference_from_attributes(frame, list(frame.columns), max_categories=10 ** 6)
    assert groups.names == names
    np.testing.assert_array_equal(groups.codes, codes)


@pytest.mark.parametrize("k", [1, 5, 33])
def test_patterns_equal_the_unique_packed_rows(k):
    groups = Subgroups.from_indicators(indicator_frame(4, 500, k), [f"id{j}" for j in range(k)])
    for got, want in zip(groups.patterns, reference_patterns(groups)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("force_loop", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_overlapping_crosstab_equals_masked_bincounts(monkeypatch, force_loop, weighted):
    if force_loop:  # the per-subgroup fallback for very many patterns
        monkeypatch.setattr(_subgroups, "MAX_PATTERN_CELLS", 0)
    rng = np.random.default_rng(5)
    n = 700
    groups = Subgroups.from_indicators(indicator_frame(5, n, 6), [f"id{j}" for j in range(6)])
    if force_loop:
        groups = Subgroups(groups.names, groups.membership[:3], groups.background[:3], groups.min_size)
        n = 3
    cell = rng.integers(0, 7, n)
    w = rng.random(n) if weighted else None
    member, background = groups.crosstab(cell, 7, w)
    exp_member, exp_background = masked_crosstab(groups, cell, 7, w)
    np.testing.assert_allclose(member, exp_member, rtol=0, atol=1e-12)
    np.testing.assert_allclose(background, exp_background, rtol=0, atol=1e-12)


def test_sizes_are_computed_once_and_read_only():
    groups = Subgroups.from_indicators(indicator_frame(6, 300, 4), [f"id{j}" for j in range(4)])
    assert groups.sizes is groups.sizes
    np.testing.assert_array_equal(groups.sizes, groups.membership.sum(axis=0))
    with pytest.raises(ValueError):
        groups.sizes[0] = 1


# --------------------------------------------------------------------------------------------
# AUC family
# --------------------------------------------------------------------------------------------


def subgroup_cases(seed: int, n: int):
    """Disjoint, overlapping attributes, indicators with missing values, tiny and one-class subgroups."""
    rng = np.random.default_rng(seed)
    frame = attribute_frame(seed, n)
    ind = indicator_frame(seed, n, 5)
    ind["one_row"] = np.where(np.arange(n) == n // 2, 1.0, 0.0)
    ind["all_missing_but_two"] = np.where(np.arange(n) < 2, 1.0, np.nan)
    tiny = pd.Series(np.where(rng.random(n) < 0.01, "rare", rng.choice(["p", "q"], n)))
    return {
        "intersections": Subgroups.from_attributes(frame, ["text", "cat"]),
        "one_attribute": Subgroups.from_attributes(pd.DataFrame({"t": tiny}), ["t"]),
        "overlapping_attributes": Subgroups.from_attributes(frame, ["text", "int"], intersect=False),
        "indicators": Subgroups.from_indicators(ind, list(ind.columns)),
    }


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("case", ["intersections", "one_attribute", "overlapping_attributes", "indicators"])
def test_auc_table_equals_roc_auc_score_on_masks(case, ties):
    y, s = scores_and_labels(7, 600, ties)
    groups = subgroup_cases(7, 600)[case]
    table = fc.bias_auc_table(y, s, groups)
    assert_table_matches(table, reference_table(y, s, groups))
    assert table.attrs["overall_auc"] == pytest.approx(roc_auc_score(y, s), abs=1e-12)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("case", ["intersections", "one_attribute", "overlapping_attributes", "indicators"])
def test_auc_intervals_equal_delong_on_the_mask_histograms(case, ties):
    y, s = scores_and_labels(8, 500, ties)
    groups = subgroup_cases(8, 500)[case]
    table = fc.bias_auc_table(y, s, groups, ci=0.9, n_boot=100)
    assert_table_matches(table, reference_table(y, s, groups, level=0.9))
    # A one-class or one-row subgroup: NaN with the benchmark's notes.
    for _, row in table.iterrows():
        if row["n_positive"] == 0 or row["n_negative"] == 0:
            assert np.isnan(row["subgroup_auc"]) and "subgroup AUC undefined" in row["note"]


@pytest.mark.parametrize("blocks", [False, True])
def test_both_listings_of_overlapping_subgroups_give_the_same_table(monkeypatch, blocks):
    # Overlapping subgroups are listed from the (subgroups, rows) table or pattern by pattern: the same
    # rows in the same order, so the same table to the last bit, with missing indicators and in blocks too.
    y, s = scores_and_labels(9, 400, True)
    groups = subgroup_cases(9, 400)["indicators"]
    if blocks:
        monkeypatch.setattr(_auc_ranking, "_BLOCK_ROWS", 50)
    tables = []
    for cells_per_row in (0, 10 ** 9):   # never / always from the table
        monkeypatch.setattr(_auc_ranking, "_DENSE_CELLS_PER_ROW", cells_per_row)
        tables.append(fc.bias_auc_table(y, s, groups, ci=0.95, n_boot=100))
    pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=True)
    assert_table_matches(tables[0], reference_table(y, s, groups, level=0.95))
    assert not (groups.membership | groups.background).all()   # a missing indicator: rows in neither mask


@pytest.mark.parametrize("case", ["intersections", "indicators"])
def test_blocks_of_subgroups_give_the_same_table(monkeypatch, case):
    y, s = scores_and_labels(9, 400, True)
    groups = subgroup_cases(9, 400)[case]
    whole = fc.bias_auc_table(y, s, groups, ci=0.95, n_boot=100)
    monkeypatch.setattr(_auc_ranking, "_BLOCK_ROWS", 50)  # one or two subgroups per block
    pd.testing.assert_frame_equal(fc.bias_auc_table(y, s, groups, ci=0.95, n_boot=100), whole)


def test_subgroup_without_rows_after_take_is_nan():
    y, s = scores_and_labels(10, 300, False)
    groups = subgroup_cases(10, 300)["one_attribute"]
    rows = ~groups.membership[:, groups.names.index("rare")]
    taken = groups.take(rows)
    table = fc.bias_auc_table(y[rows], s[rows], taken).set_index("subgroup")
    assert table.loc["rare", "size"] == 0 and table.loc["rare", "note"].startswith("subgroup AUC undefined: no rows")
    assert_table_matches(table.reset_index(), reference_table(y[rows], s[rows], taken))


def literal_replicates(y, level, n_levels, groups, exact, exact_overall, n_boot, rng):
    """The former bootstrap: merged levels by np.unique, every replicate through Atoms.tables."""
    counts = np.bincount(level, minlength=n_levels)
    if n_levels > 256:
        start = np.cumsum(counts) - counts
        group = np.minimum((start * 256) // max(len(level), 1), 255)
        _, group = np.unique(group, return_inverse=True)
        merged, n_merged = group[level], int(group.max()) + 1
    else:
        merged, n_merged = level, n_levels
    atoms = Atoms.of(groups, (2 * merged + y.astype(np.intp)).astype(np.intp), 2 * n_merged)

    def auc_of(pos, neg):
        n_pos, n_neg = pos.sum(axis=-1), neg.sum(axis=-1)
        below = np.cumsum(neg, axis=-1) - 0.5 * neg
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where((n_pos > 0) & (n_neg > 0), (pos * below).sum(axis=-1) / (n_pos * n_neg), np.nan)

    def stat(member, background, overall):
        m = member.reshape(*member.shape[:-1], n_merged, 2)
        b = background.reshape(*background.shape[:-1], n_merged, 2)
        o = overall.reshape(*overall.shape[:-1], n_merged, 2)
        aucs = np.stack([auc_of(m[..., 1], m[..., 0]), auc_of(b[..., 1], m[..., 0]), auc_of(m[..., 1], b[..., 0])], -1)
        return np.concatenate([aucs.reshape(len(aucs), -1), auc_of(o[..., 1], o[..., 0])[:, None]], axis=1)

    point = stat(*atoms.tables(atoms.counts[None]))[0]
    reps = np.concatenate([stat(*atoms.tables(block)) for block in atoms.replicates(n_boot, rng)])
    target = np.concatenate([np.asarray(exact, dtype=float).reshape(-1), [exact_overall]])
    return np.clip(reps + (target - point)[None, :], 0.0, 1.0)


@pytest.mark.parametrize("case", ["intersections", "indicators"])
@pytest.mark.parametrize("n", [300, 2000])  # 2000 untied scores: levels merged into 256 groups
def test_bootstrap_replicates_equal_the_literal_evaluation(case, n, monkeypatch):
    # the stratified bootstrap (the bucket bootstrap of many patterns: tests/fairness_core/test_many_identity_columns.py)
    monkeypatch.setattr(bootstrap, "BUCKET_PATTERNS", 10 ** 9)
    y, s = scores_and_labels(11, n, False)
    groups = subgroup_cases(11, n)[case]
    table = fc.bias_auc_table(y, s, groups)
    exact = table[AUC_COLUMNS].to_numpy(dtype=float)
    ranked = _Ranked.of(s.astype(float))
    yb = y.astype(bool)
    reps = auc_replicates(yb, ranked.level, np.diff(ranked.below), groups, exact, table.attrs["overall_auc"],
                          n_boot=120, rng=np.random.default_rng(3))
    expected = literal_replicates(yb, ranked.level, ranked.n_levels, groups, exact, table.attrs["overall_auc"],
                                  120, np.random.default_rng(3))
    k = len(groups.names)
    np.testing.assert_allclose(reps.aucs.reshape(120, 3 * k), expected[:, :3 * k], rtol=0, atol=1e-12)
    np.testing.assert_allclose(reps.overall, expected[:, 3 * k], rtol=0, atol=1e-12)


def test_ranked_levels_equal_np_unique():
    rng = np.random.default_rng(12)
    s = np.r_[rng.integers(-3, 3, 500) / 2.0, [-0.0, 0.0, 1e-300, -1e-300]]
    ranked = _Ranked.of(s)
    uniques, inverse = np.unique(s, return_inverse=True)
    assert ranked.n_levels == len(uniques)
    np.testing.assert_array_equal(ranked.level, inverse)
    np.testing.assert_array_equal(ranked.sorted_level, inverse[ranked.order])
    np.testing.assert_array_equal(np.diff(ranked.below), np.bincount(inverse))


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_auc_family_property(data):
    n = data.draw(st.integers(1, 40))
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    s = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), dtype=float)
    values = data.draw(st.lists(st.sampled_from([0.0, 1.0, np.nan]), min_size=2 * n, max_size=2 * n))
    ind = pd.DataFrame({"a": values[:n], "b": values[n:]})
    groups = Subgroups.from_indicators(ind, ["a", "b"])
    table = fc.bias_auc_table(y, s, groups, ci=0.95, n_boot=100)
    assert_table_matches(table, reference_table(y, s, groups, level=0.95))
    attrs = pd.DataFrame({"g": data.draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n))})
    assert_table_matches(fc.bias_auc_table(y, s, attrs), reference_table(y, s, Subgroups.from_attributes(attrs, ["g"])))
