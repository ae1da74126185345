"""The fast paths of the AUC family and the rate table give exactly the numbers of their definitions.

The AUC family sorts a score column once, as packed 64-bit keys (``_metrics.auc_order.score_order``), and counts
subgroups without tied scores from each subgroup's places in that order (``auc_ranking._untied_counts``); the rate
table is built in one piece. Each is checked here against an independent computation: ``np.sort`` and
``np.unique``, the Mann-Whitney count written literally over the rows of each mask (and scikit-learn's
``roc_auc_score`` on the same masks), and the confusion cells counted on masks. The AUCs are compared exactly
(the literal count and ours end in the same one division of exact integers), the rates exactly (the same division
of the same counts).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import fairness_core as fc
from fairness_core._metrics.auc_order import score_order
from fairness_core._metrics.auc_ranking import _Ranked
from fairness_core._subgroups import subgroups as subgroups_module
from fairness_core._subgroups.patterns import _indicator_bits, _text_codes


def _scores(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    raw = rng.random(n)
    return {
        "untied": raw,
        "tied": np.round(raw, 2),
        "deciles": np.ceil(raw * 10),
        # differences far below 2^-32: many scores share the packed key's high bits (the re-sorted runs)
        "close": 0.5 + (raw - 0.5) * 1e-12,
        "signed": np.where(raw < 0.3, -raw, raw) * 1e300,
        "zeros": np.where(raw < 0.3, -0.0, np.where(raw < 0.6, 0.0, raw)),
        "subnormal": (raw - 0.5) * 1e-310,
    }[kind]


KINDS = ["untied", "tied", "deciles", "close", "signed", "zeros", "subnormal"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 1000, 70_000])
def test_score_order_sorts_like_numpy(kind, n):
    scores = _scores(kind, n, np.random.default_rng(n))
    order, ordered = score_order(scores)
    assert np.array_equal(np.sort(order), np.arange(n))          # a permutation of the rows
    assert np.array_equal(scores[order], ordered)
    assert np.array_equal(ordered, np.sort(scores))              # in score order (ties in any order)


@pytest.mark.parametrize("kind", KINDS)
def test_ranked_levels_are_numpy_unique_inverse(kind):
    scores = _scores(kind, 20_000, np.random.default_rng(3))
    ranked = _Ranked.of(scores)
    values, inverse = np.unique(scores, return_inverse=True)
    assert ranked.n_levels == len(values)
    assert np.array_equal(ranked.level, inverse.reshape(-1))
    assert np.array_equal(np.diff(ranked.below), np.bincount(inverse.reshape(-1), minlength=len(values)))


def test_score_order_of_integer_scores_falls_back_to_argsort():
    scores = np.random.default_rng(0).integers(0, 50, 5000)
    order, ordered = score_order(scores)
    assert np.array_equal(ordered, np.sort(scores)) and np.array_equal(scores[order], ordered)


def _twice_u(y: np.ndarray, s: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> int:
    """2U = sum over positives of (2 x negatives scored lower + negatives scored equal), literally, over masks."""
    positives, negatives = np.sort(s[pos & (y == 1)]), np.sort(s[neg & (y == 0)])
    lower = np.searchsorted(negatives, positives, side="left")
    at_most = np.searchsorted(negatives, positives, side="right")
    return int((2 * lower + (at_most - lower)).sum())


def _literal_aucs(y, s, member, background):
    """Subgroup, BPSN and BNSP AUC of each subgroup column: 2U / (2 n_pos n_neg) on the Jigsaw masks."""
    out = []
    for j in range(member.shape[1]):
        m, b = member[:, j], background[:, j]
        row = []
        for pos, neg in ((m, m), (b, m), (m, b)):
            n_pos, n_neg = int((pos & (y == 1)).sum()), int((neg & (y == 0)).sum())
            row.append(float(_twice_u(y, s, pos, neg)) / float(2 * n_pos * n_neg) if n_pos and n_neg else np.nan)
        out.append(row)
    return np.array(out)


def _data(n: int, seed: int, missing: bool):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"id_{j}": (rng.random(n) < 0.03 * (j + 1)).astype(float) for j in range(7)})
    if missing:
        frame.loc[rng.random(n) < 0.05, "id_3"] = np.nan
    frame["race"] = rng.choice(["a", "b", "c"], n, p=[0.6, 0.3, 0.1])
    frame["sex"] = rng.choice(["F", "M"], n)
    y = (rng.random(n) < 0.35).astype(np.int64)
    return frame, y, rng


GROUPINGS = ["indicators", "indicators with missing values", "race x sex", "race, sex (overlapping)"]


def _groups(frame, grouping):
    if grouping.startswith("indicators"):
        return fc.Subgroups.from_indicators(frame, [c for c in frame if c.startswith("id_")], min_size=1)
    return fc.Subgroups.from_attributes(frame, ["race", "sex"], intersect=grouping == "race x sex", min_size=1)


@pytest.mark.parametrize("grouping", GROUPINGS)
@pytest.mark.parametrize("kind", ["untied", "tied", "deciles", "close"])
def test_auc_table_equals_the_literal_mann_whitney_count(grouping, kind):
    frame, y, rng = _data(4000, 11, "missing" in grouping)
    s = _scores(kind, len(y), rng)
    groups = _groups(frame, grouping)
    table = fc.bias_auc_table(y, s, groups)
    ours = table[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy()
    literal = _literal_aucs(y, s, groups.membership, groups.background)
    np.testing.assert_array_equal(ours, literal)
    members = groups.membership
    np.testing.assert_array_equal(table["n_positive"], (members & (y == 1)[:, None]).sum(axis=0))
    np.testing.assert_array_equal(table["n_background_negative"], (groups.background & (y == 0)[:, None]).sum(axis=0))
    assert table.attrs["overall_auc"] == float(_twice_u(y, s, np.ones(len(y), bool), np.ones(len(y), bool))) / float(
        2 * int(y.sum()) * int((1 - y).sum()))
    for j in range(members.shape[1]):   # and scikit-learn on the subgroup's rows
        m = members[:, j]
        assert ours[j, 0] == pytest.approx(roc_auc_score(y[m], s[m]), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("grouping", GROUPINGS)
def test_auc_table_with_intervals_keeps_the_same_aucs(grouping):
    # With ci the counts go through the run-by-run path (with variances); without, untied scores take the fast path.
    frame, y, rng = _data(3000, 5, "missing" in grouping)
    s = _scores("untied", len(y), rng)
    groups = _groups(frame, grouping)
    plain = fc.bias_auc_table(y, s, groups)
    with_ci = fc.bias_auc_table(y, s, groups, ci=0.9, n_boot=200)
    for column in ("n_positive", "n_negative", "n_background_positive", "n_background_negative", "subgroup_auc",
                   "bpsn_auc", "bnsp_auc"):
        np.testing.assert_array_equal(plain[column], with_ci[column])


def test_auc_from_raw_attribute_columns_equals_prepared_subgroups():
    frame, y, rng = _data(5000, 2, False)
    s = _scores("untied", len(y), rng)
    raw = fc.bias_auc_score(y, s, frame[["race", "sex"]])
    prepared = fc.bias_auc_score(y, s, fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=1))
    assert raw.value == prepared.value
    pd.testing.assert_frame_equal(raw.table, prepared.table, check_exact=True)


def test_weighted_auc_is_unchanged_by_the_fast_paths():
    frame, y, rng = _data(3000, 8, False)
    s = _scores("untied", len(y), rng)
    w = rng.gamma(2.0, 1.0, len(y))
    groups = _groups(frame, "race x sex")
    table = fc.bias_auc_table(y, s, groups, sample_weight=w)
    for j, name in enumerate(groups.names):
        m = groups.membership[:, j]
        assert table.loc[j, "subgroup"] == name
        assert table.loc[j, "subgroup_auc"] == pytest.approx(roc_auc_score(y[m], s[m], sample_weight=w[m]), rel=1e-12)


def test_nan_scores_are_refused_with_a_message():
    frame, y, rng = _data(500, 1, False)
    s = _scores("untied", len(y), rng)
    s[7] = np.nan
    with pytest.raises(ValueError, match="must be numeric and finite. Got 1 missing or infinite values"):
        fc.bias_auc_table(y, s, frame[["race"]])


def _cells(y, p, mask, w=None):
    w = np.ones(len(y)) if w is None else w
    return [w[mask & (y == a) & (p == b)].sum() for a, b in ((0, 0), (0, 1), (1, 0), (1, 1))]


@pytest.mark.parametrize("grouping", ["race x sex", "race, sex (overlapping)", "indicators"])
def test_group_rates_are_the_rates_of_the_cells_counted_on_masks(grouping):
    frame, y, rng = _data(6000, 4, False)
    pred = (rng.random(len(y)) < 0.4).astype(np.int64)
    groups = _groups(frame, grouping)
    table = fc.group_rates(y, pred, groups)
    assert list(table.columns) == ["subgroup", "size", "n_positive", "n_negative", "small", "tp", "fp", "tn", "fn",
                                   "selection_rate", "true_positive_rate", "false_positive_rate",
                                   "false_negative_rate", "false_omission_rate", "false_discovery_rate",
                                   "error_rate", "note"]
    for j, name in enumerate(groups.names):
        tn, fp, fn, tp = (int(c) for c in _cells(y, pred, groups.membership[:, j]))
        row = table.iloc[j]
        assert row["subgroup"] == name and (row["tn"], row["fp"], row["fn"], row["tp"]) == (tn, fp, fn, tp)
        n = tn + fp + fn + tp
        assert row["selection_rate"] == (tp + fp) / n and row["error_rate"] == (fp + fn) / n
        assert row["true_positive_rate"] == tp / (tp + fn) and row["false_positive_rate"] == fp / (fp + tn)
        assert row["false_negative_rate"] == fn / (fn + tp) and row["false_omission_rate"] == fn / (fn + tn)
        assert row["false_discovery_rate"] == fp / (fp + tp)
    assert table["tp"].dtype == np.int64 and table["small"].dtype == bool


def test_group_rates_note_an_empty_denominator_and_match_pandas_groupby():
    frame, y, rng = _data(3000, 6, False)
    pred = np.where(frame["race"] == "c", 0, (rng.random(len(y)) < 0.5)).astype(np.int64)  # no predicted positive
    table = fc.group_rates(y, pred, frame["race"])
    c = table.set_index("subgroup").loc["c"]
    assert np.isnan(c["false_discovery_rate"]) and "false discovery rate undefined" in c["note"]
    rows = pd.DataFrame({"race": frame["race"], "y": y, "pred": pred})
    expected = rows.groupby("race")["pred"].mean()
    np.testing.assert_array_equal(table.set_index("subgroup")["selection_rate"], expected.loc[table["subgroup"]])


def test_weighted_group_rates_and_intervals_keep_their_columns():
    frame, y, rng = _data(3000, 9, False)
    pred = (rng.random(len(y)) < 0.4).astype(np.int64)
    w = rng.gamma(2.0, 1.0, len(y))
    groups = _groups(frame, "race x sex")
    table = fc.group_rates(y, pred, groups, sample_weight=w, ci=0.9)
    assert list(table.columns[:4]) == ["subgroup", "size", "weight", "n_positive"]
    assert list(table.columns[-4:]) == ["error_rate", "error_rate_ci_low", "error_rate_ci_high", "note"]
    for j in range(len(groups.names)):
        tn, fp, fn, tp = _cells(y, pred, groups.membership[:, j], w)
        assert table.loc[j, "true_positive_rate"] == pytest.approx(tp / (tp + fn), rel=1e-12)
        assert table.loc[j, "weight"] == pytest.approx(tn + fp + fn + tp, rel=1e-12)
        assert table.loc[j, "error_rate_ci_low"] <= table.loc[j, "error_rate"] <= table.loc[j, "error_rate_ci_high"]


@pytest.mark.full
def test_auc_table_at_a_million_rows_equals_the_literal_count():
    # The benchmark's size: 2^20 rows use 20 bits of each packed key (runs re-sorted where scores differ below them).
    rng = np.random.default_rng(0)
    n = 1_000_000
    frame = pd.DataFrame({f"id_{j}": (rng.random(n) < 0.02 * (j + 1)).astype(float) for j in range(4)})
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = rng.random(n)
    groups = fc.Subgroups.from_indicators(frame, list(frame.columns), min_size=1)
    table = fc.bias_auc_table(y, s, groups)
    np.testing.assert_array_equal(table[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy(),
                                  _literal_aucs(y, s, groups.membership, groups.background))


# Subgroups from raw columns: text columns coded from their bytes' features, indicator columns in one chunked pass.


def _factorized(monkeypatch, build):
    """`build()` with Arrow text coded by factorizing (the definition), not from its bytes' features."""
    with monkeypatch.context() as patched:
        patched.setattr(subgroups_module, "_text_codes", lambda values: None)
        return build()


def _assert_same_subgroups(ours, reference):
    assert ours.names == reference.names and ours.min_size == reference.min_size
    for name in ("membership", "background", "codes"):
        a, b = getattr(ours, name), getattr(reference, name)
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == b.dtype and a.flags.c_contiguous == b.flags.c_contiguous
            np.testing.assert_array_equal(a, b)
    for a, b in zip(ours.patterns, reference.patterns):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


TEXT_VALUES = {
    "lengths differ": ["Female", "Male"],
    "first bytes differ": ["White", "Black", "Hispanic", "Asian"],
    "last bytes differ": ["xa", "xb", "xc"],
    "length and first byte": ["ab", "b", "ba", "abc"],
    "length and last byte": ["ab", "ba", "cb", "a", "abc"],
    "first and last byte": ["axb", "ayc", "bxb", "bzzc"],
    "all three": ["aa", "ab", "ba", "bb", "aab", "bba"],
    "only factorizing tells": ["abca", "acba", "b"],
    "the empty text": ["", "a", "bb"],
    "the empty text, lengths clash": ["", "a", "b"],
    "non-ASCII": ["é", "e", "ü", "名前", "x", "名"],
    "the missing label as a value": ["(missing)", "a", "1"],
    "one value": ["only"],
    "many values": [f"v{i}" for i in range(300)],
}


@pytest.mark.parametrize("name", sorted(TEXT_VALUES))
@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]"])
@pytest.mark.parametrize("missing", [False, True])
def test_text_codes_are_the_factorized_codes(monkeypatch, name, dtype, missing):
    rng = np.random.default_rng(len(name))
    values = rng.choice(np.array(TEXT_VALUES[name], dtype=object), 3000)
    if missing:
        values[rng.random(len(values)) < 0.1] = None
    column = pd.Series(values, dtype=dtype)
    for series in (column, column.iloc[41:2900].reset_index(drop=True),
                   pd.concat([column.iloc[:700], column.iloc[1000:]], ignore_index=True)):   # sliced, in chunks
        fast = subgroups_module._codes(series, 4, 10)
        reference = _factorized(monkeypatch, lambda: subgroups_module._codes(series, 4, 10))
        assert fast[0].dtype == reference[0].dtype and fast[1] == reference[1]
        np.testing.assert_array_equal(fast[0], reference[0])
    coded = _text_codes(column)
    if name in ("only factorizing tells", "the empty text, lengths clash"):
        assert coded is None       # no byte feature tells these apart: factorized
    elif name != "many values":
        assert coded is not None   # the byte features were used


def test_text_codes_read_every_chunk_and_offset():
    import pyarrow as pa

    chunks = [pa.array(["x", "yy", None, "zzz"], pa.large_string()).slice(1),
              pa.array(["zzz", "x", "x"], pa.large_string()), pa.array([None, "yy"], pa.large_string())]
    series = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(chunks)))
    codes, uniques = _text_codes(series)
    assert uniques == ["x", "yy", "zzz"]
    np.testing.assert_array_equal(codes, [1, 3, 2, 2, 0, 0, 3, 1])
    assert _text_codes(pd.Series(["a", "b"], dtype=object)) is None
    assert _text_codes(pd.Series([1.0, 2.0])) is None


@pytest.mark.parametrize("intersect", [True, False])
def test_subgroups_from_text_columns_equal_the_factorized_ones(monkeypatch, intersect):
    frame, _, rng = _data(4000, 12, False)
    frame["race_missing"] = pd.Series(np.where(rng.random(len(frame)) < 0.05, None, frame["race"].to_numpy()),
                                      dtype="str")
    frame["city"] = pd.Series(rng.choice(["Lyon", "Nice", "Paris", "Metz"], len(frame)), dtype="string[pyarrow]")
    frame["obj"] = pd.Series(rng.choice(["u", "vv"], len(frame)), dtype=object)
    frame["age"] = rng.integers(18, 90, len(frame))
    for columns in (["race", "sex"], ["race_missing", "sex"], ["sex"], ["city", "race_missing", "obj"],
                    ["age", "race"], ["race_missing"]):
        def build(columns=columns):
            return fc.Subgroups.from_attributes(frame, columns, intersect=intersect, min_size=3)
        _assert_same_subgroups(build(), _factorized(monkeypatch, build))


def test_intersections_are_numbered_as_pandas_groupby():
    frame, y, rng = _data(5000, 13, False)
    frame.loc[rng.random(len(frame)) < 0.05, "race"] = None
    groups = fc.Subgroups.from_attributes(frame, ["race", "sex"], min_size=1)
    keys = frame[["race", "sex"]].fillna({"race": "~"})   # missing sorts last, as "~" does after a, b, c
    np.testing.assert_array_equal(groups.codes, keys.groupby(["race", "sex"]).ngroup().to_numpy())
    assert groups.names == [f"race={r if r != '~' else fc.MISSING}, sex={s}"
                            for r, s in keys.drop_duplicates().sort_values(["race", "sex"]).itertuples(index=False)]
    np.testing.assert_array_equal(groups.membership, np.eye(len(groups.names), dtype=bool)[groups.codes])


@pytest.mark.parametrize("chunk", [1, 7, 1000, 30_000])
@pytest.mark.parametrize("n_columns", [1, 8, 9, 33, 63])
def test_indicator_bits_are_the_masks_and_keys_of_their_definition(chunk, n_columns):
    rng = np.random.default_rng(n_columns)
    n = 2500
    arrays = [np.where(rng.random(n) < 0.05, np.nan, rng.random(n) * (j % 3 == 0) + (rng.random(n) < 0.2))
              .clip(0, 1) for j in range(n_columns)]
    membership, low, high, key = _indicator_bits(arrays, 0.5, chunk)
    expected = np.column_stack([a >= 0.5 for a in arrays])
    assert membership.dtype == bool and membership.flags.c_contiguous
    np.testing.assert_array_equal(membership, expected)
    np.testing.assert_array_equal(low, [np.min(a, initial=0.0) for a in arrays])
    np.testing.assert_array_equal(high, [np.max(a, initial=0.0) for a in arrays])
    if n_columns >= 63:
        assert key is None
    else:
        bits = expected.astype(np.int64) << np.arange(n_columns - 1, -1, -1, dtype=np.int64)
        np.testing.assert_array_equal(key, bits.sum(axis=1))


@pytest.mark.parametrize("missing", [False, True])
def test_indicator_patterns_are_the_distinct_rows_in_bit_order(missing):
    frame, _, rng = _data(6000, 14, missing)
    columns = [c for c in frame if c.startswith("id_")]
    groups = fc.Subgroups.from_indicators(frame, columns, min_size=1)
    values = frame[columns].to_numpy()
    np.testing.assert_array_equal(groups.membership, values >= 0.5)
    np.testing.assert_array_equal(groups.background, values < 0.5)
    rows = np.hstack([groups.membership, groups.background])
    distinct, inverse = np.unique(rows, axis=0, return_inverse=True)   # False < True: bit order
    codes, member, background = groups.patterns
    np.testing.assert_array_equal(codes, inverse.reshape(-1))
    np.testing.assert_array_equal(np.hstack([member, background]), distinct)


def test_indicator_errors_keep_their_column_order():
    frame = pd.DataFrame({"a": [0.0, 1.0], "b": [0.0, 2.0], "t": ["x", "y"], "c": [-0.5, 1.0]})
    with pytest.raises(ValueError, match="'b' holds values from 0 to 2"):
        fc.Subgroups.from_indicators(frame, ["a", "b", "t"])
    with pytest.raises(ValueError, match="'t' must be numeric"):
        fc.Subgroups.from_indicators(frame, ["a", "t", "b"])
    with pytest.raises(ValueError, match="'c' holds values from -0.5 to 1"):
        fc.Subgroups.from_indicators(frame.assign(b=[np.nan, 1.0]), ["b", "c"])
