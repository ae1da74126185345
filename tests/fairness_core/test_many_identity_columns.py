"""Intervals whose cost does not grow with the membership patterns: many overlapping identity
columns switch the bootstrap from strata of patterns to buckets of rows (``_stats.bootstrap``, above
``BUCKET_PATTERNS`` patterns). Point estimates never depend on the bootstrap; the bucket intervals are close to the
stratified ones where both apply, reproducible with a seed, the same from an engine's atoms as in memory, and finite
on madlibs-like data with dozens of overlapping identity columns."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._stats import bootstrap
from fairness_core._stats.bootstrap import Atoms, BucketDraws, BucketSplit, replicate_stat


def identity_frame(n: int, k: int, seed: int = 0) -> pd.DataFrame:
    """`n` rows with `k` overlapping 0/1 identity columns (prevalences 3-25 %), a label and two scores in [0, 1]."""
    rng = np.random.default_rng(seed)
    prevalence = np.linspace(0.03, 0.25, k)
    member = rng.random((n, k)) < prevalence
    eta = -0.4 + member @ rng.normal(0, 0.3, k)
    y = rng.random(n) < 1 / (1 + np.exp(-eta))
    score = 1 / (1 + np.exp(-(eta + 1.5 * (y - 0.5) + rng.normal(0, 1, n))))
    frame = pd.DataFrame(member.astype(np.int8), columns=[f"id{j}" for j in range(k)])
    frame["label"] = y.astype(int)
    frame["score"] = score
    frame["score2"] = np.clip(score + rng.normal(0, 0.05, n), 0, 1)
    return frame


def mapping_of(frame: pd.DataFrame, **kw) -> fc.ColumnMapping:
    ids = tuple(c for c in frame.columns if c.startswith("id"))
    return fc.ColumnMapping(label="label", positive_label=1, scores=("score",), indicators=ids, **kw)


@pytest.fixture
def buckets(monkeypatch):
    """Force the bucket bootstrap whatever the patterns."""
    monkeypatch.setattr(bootstrap, "BUCKET_PATTERNS", 0)


def _tables(frame: pd.DataFrame, seed: int = 0, n_boot: int = 400):
    """The rate, AUC and calibration tables with intervals of `frame`."""
    mapping = mapping_of(frame)
    scored = fc.ScoredData.from_frame(frame, mapping)
    groups, y, s = scored.subgroups, scored.y_true, scored.scores["score"]
    kw = dict(ci=0.95, n_boot=n_boot, random_state=seed)
    rates = fc.confusion_counts(y, (s >= 0.5).astype(int), groups).disparity(
        "false_positive_rate", reduction=None, **kw)
    aucs = fc.bias_auc_table(y, s, groups, **kw)
    cal = fc.calibration_counts(y, s, groups).error_table(**kw)
    return rates, aucs, cal


def test_the_bucket_split_deals_every_row_once():
    rng = np.random.default_rng(0)
    counts = rng.poisson(0.7, size=(300, 6)).astype(float)
    counts[:3] = rng.poisson(500, size=(3, 6))   # large atoms take the multinomial path
    split = BucketSplit(counts, 50, np.random.default_rng(1))
    dealt = np.zeros_like(counts)
    np.add.at(dealt, (split.pattern, split.cell), split.count)
    np.testing.assert_array_equal(dealt, counts)
    assert len(np.unique(split.bucket * counts.size + split.pattern * 6 + split.cell)) == len(split.count)
    assert set(np.unique(split.bucket)) == set(range(50))


def test_bucket_tables_reweighted_equal_the_pattern_tables_of_the_same_rows():
    """A replicate of the bucket bootstrap is the tables of its rows: weights @ per-bucket tables."""
    rng = np.random.default_rng(2)
    member = rng.random((400, 5)) < 0.3
    background = ~member & (rng.random((400, 5)) < 0.9)
    atoms = Atoms(rng.poisson(2.0, size=(400, 4)).astype(float), member, background)
    split = BucketSplit(atoms.counts, 20, rng)
    weights = rng.multinomial(20, np.full(20, 0.05), size=3).astype(float)
    got = atoms.tables(BucketDraws(weights, split))
    per_bucket = np.zeros((20,) + atoms.counts.shape)
    np.add.at(per_bucket, (split.bucket, split.pattern, split.cell), split.count)
    want = atoms.tables(np.einsum("rb,bpc->rpc", weights, per_bucket))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-9)


def test_point_estimates_never_depend_on_the_bootstrap(buckets, monkeypatch):
    frame = identity_frame(3_000, 4)
    forced = _tables(frame)
    monkeypatch.setattr(bootstrap, "BUCKET_PATTERNS", 10 ** 9)
    stratified = _tables(frame)
    for got, want in zip(forced, stratified):
        estimates = [c for c in want.columns if not c.endswith(("_ci_low", "_ci_high")) and "undefined" not in c
                     and c not in ("excludes_parity", "p_value", "interval_note", "ci_note")]
        pd.testing.assert_frame_equal(got[estimates], want[estimates])


def test_bucket_intervals_are_close_to_the_stratified_ones_with_few_patterns(buckets, monkeypatch):
    frame = identity_frame(6_000, 4, seed=3)
    forced = _tables(frame, n_boot=1000)
    monkeypatch.setattr(bootstrap, "BUCKET_PATTERNS", 10 ** 9)
    stratified = _tables(frame, n_boot=1000)
    checked = 0
    for got, want in zip(forced, stratified):
        for low in [c for c in want.columns if c.endswith("_ci_low")]:
            high = low[:-len("_ci_low")] + "_ci_high"
            width_got, width_want = (np.asarray(t[high] - t[low], dtype=float) for t in (got, want))
            ok = np.isfinite(width_want) & (width_want > 0)
            # a bootstrap of 200 buckets estimates the spread within about 10 %, 1000 replicates add a few %
            np.testing.assert_allclose(width_got[ok], width_want[ok], rtol=0.3)
            centre_got, centre_want = (np.asarray(t[high] + t[low], dtype=float) / 2 for t in (got, want))
            np.testing.assert_array_less(np.abs(centre_got - centre_want)[ok], 0.3 * width_want[ok])
            checked += ok.sum()
    assert checked >= 20


def test_bucket_intervals_are_reproducible_with_a_seed(buckets):
    frame = identity_frame(2_000, 6, seed=4)
    first, again, other = _tables(frame, seed=7), _tables(frame, seed=7), _tables(frame, seed=8)
    for a, b in zip(first, again):
        pd.testing.assert_frame_equal(a, b)
    # the rate disparities and ECEs are bootstrapped (per-subgroup AUCs have DeLong intervals): another seed moves them
    for a, c in zip(first[::2], other[::2]):
        lows = [col for col in a.columns if col.endswith("_ci_low")]
        assert not a[lows].equals(c[lows])


def test_an_absent_subgroup_makes_its_replicate_undefined(buckets):
    """A subgroup of two rows is missing from some replicates: those are NaN and counted, not zeros."""
    rng = np.random.default_rng(5)
    member = np.zeros((1_000, 2), dtype=bool)
    member[:2, 0] = True
    member[2:500, 1] = True
    atoms = Atoms.of(fc.Subgroups.from_indicators(pd.DataFrame(member.astype(int), columns=["a", "b"]), ["a", "b"]),
                     rng.integers(0, 2, 1_000), 2)
    sizes = replicate_stat(atoms, lambda m, b, o: m.sum(axis=-1), 500, np.random.default_rng(0))
    assert (sizes[:, 0] == 0).sum() > 20 and np.all(sizes[:, 1] > 0)
    def share(m, b, o):
        with np.errstate(invalid="ignore"):
            return m[..., 1] / m.sum(axis=-1)

    rate = replicate_stat(atoms, share, 500, np.random.default_rng(0))
    low, high, undefined = bootstrap.percentile_interval(rate, 0.95)
    assert undefined[0] == (sizes[:, 0] == 0).sum() and undefined[1] == 0
    assert np.isfinite(low).all() and np.isfinite(high).all()


def test_madlibs_like_data_gets_finite_intervals_in_a_review():
    """30 overlapping identity columns: hundreds of patterns, the bucket bootstrap, finite intervals everywhere."""
    frame = identity_frame(4_000, 30, seed=6)
    mapping = mapping_of(frame, min_size=30)
    scored = fc.ScoredData.from_frame(frame, mapping)
    assert len(scored.subgroups.patterns[1]) > bootstrap.BUCKET_PATTERNS
    review = fc.build_review(frame, fc.ReviewConfig(mapping=mapping, ci=0.95, n_boot=200))
    model = review.models[0]
    assert np.isfinite([model.bias_auc.ci_low, model.bias_auc.ci_high]).all()
    auc = model.auc_table[~model.auc_table["small"]]
    assert np.isfinite(auc[["subgroup_auc_ci_low", "subgroup_auc_ci_high", "bpsn_auc_ci_low",
                            "bnsp_auc_ci_high"]].to_numpy(dtype=float)).all()
    assert (auc["subgroup_auc_ci_low"] <= auc["subgroup_auc"]).all()
    assert (auc["subgroup_auc"] <= auc["subgroup_auc_ci_high"]).all()
    table = model.calibration.table
    ece = table[table["subgroup_value_ci_low"].notna()]
    assert len(ece) >= 20 and (ece["subgroup_value_ci_low"] <= ece["subgroup_value_ci_high"]).all()
    assert np.isfinite(ece[["disparity_ci_low", "disparity_ci_high"]].to_numpy(dtype=float)).all()


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_an_engine_gives_the_in_memory_bucket_intervals(tmp_path, engine):
    """The engine's atoms are the in-memory ones, so the bucket split and replicates are too: the same intervals."""
    pytest.importorskip(engine)
    from fairness_core.engines import scored_counts

    frame = identity_frame(3_000, 12, seed=8)
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, index=False)
    mapping = mapping_of(frame, min_size=30)
    assert len(fc.ScoredData.from_frame(frame, mapping).subgroups.patterns[1]) > bootstrap.BUCKET_PATTERNS
    config = dataclasses.replace(fc.ReviewConfig(mapping=mapping), ci=0.9, n_boot=200,
                                 thresholds=(("score", 0.5),))
    memory = fc.build_review(frame, config)
    counted = fc.build_review_from_counts(scored_counts(str(path), mapping, auc_bins="exact", engine=engine)
                                          .with_atoms(), config)
    for got, want in zip(counted.models, memory.models):
        pd.testing.assert_frame_equal(got.rate_table, want.rate_table, rtol=1e-12)
        assert (got.bias_auc.ci_low, got.bias_auc.ci_high) == pytest.approx(
            (want.bias_auc.ci_low, want.bias_auc.ci_high), abs=1e-12)
        pd.testing.assert_frame_equal(got.calibration.table, want.calibration.table, rtol=1e-9)
        assert [v.status for v in got.verdicts] == [v.status for v in want.verdicts]


def test_bucket_auc_replicates_equal_the_literal_evaluation_of_their_coarser_levels():
    """Many patterns: the AUC replicates are the AUCs of each replicate's tables (Atoms.tables of the bucket
    block) over at most BUCKET_LEVELS merged levels (level_groups: one merge of the levels into groups of about
    equal rows), shifted onto the exact AUCs."""
    from fairness_core._stats import auc_bootstrap

    frame = identity_frame(3_000, 12, seed=10)
    scored = fc.ScoredData.from_frame(frame, mapping_of(frame))
    groups, y, s = scored.subgroups, scored.y_true.astype(bool), scored.scores["score"]
    assert len(groups.patterns[1]) > bootstrap.BUCKET_PATTERNS
    table = fc.bias_auc_table(y.astype(int), s, groups)
    exact = table[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].to_numpy(dtype=float)
    levels, level = np.unique(s, return_inverse=True)
    counts = np.bincount(level)
    reps = auc_bootstrap.auc_replicates(y, level, counts, groups, exact, table.attrs["overall_auc"], n_boot=150,
                                        rng=np.random.default_rng(4))
    group = auc_bootstrap._merged_levels(counts, auc_bootstrap.BUCKET_LEVELS)
    n_levels = int(group[-1]) + 1
    coarse = Atoms.of(groups, (2 * group[level] + y).astype(np.intp), 2 * n_levels)
    assert reps.n_levels == n_levels == auc_bootstrap.BUCKET_LEVELS

    def auc_of(pos, neg):
        below = np.cumsum(neg, axis=-1) - 0.5 * neg
        with np.errstate(divide="ignore", invalid="ignore"):
            return (pos * below).sum(axis=-1) / (pos.sum(axis=-1) * neg.sum(axis=-1))

    def stat(m, b, o):
        m, b, o = (t.reshape(*t.shape[:-1], n_levels, 2) for t in (m, b, o))
        aucs = np.stack([auc_of(m[..., 1], m[..., 0]), auc_of(b[..., 1], m[..., 0]), auc_of(m[..., 1], b[..., 0])], -1)
        return np.concatenate([aucs.reshape(len(aucs), -1), auc_of(o[..., 1], o[..., 0])[:, None]], axis=1)

    point = stat(*coarse.tables(coarse.counts[None]))[0]
    literal = np.concatenate([stat(*coarse.tables(block)) for block in coarse.replicates(150, np.random.default_rng(4))])
    target = np.concatenate([exact.reshape(-1), [table.attrs["overall_auc"]]])
    literal = np.clip(literal + (target - point)[None], 0.0, 1.0)
    k = len(groups.names)
    np.testing.assert_allclose(reps.aucs.reshape(150, 3 * k), literal[:, :3 * k], rtol=0, atol=1e-12)
    np.testing.assert_allclose(reps.overall, literal[:, 3 * k], rtol=0, atol=1e-12)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_memberships_packed_in_several_words_give_the_in_memory_atoms(tmp_path, engine):
    """40 identity columns with missing values are 80 membership bits: two packed words per row in the pattern
    queries (``_sql.membership_bits``). Decoded, they give the in-memory patterns and atoms, cell for cell."""
    pytest.importorskip(engine)
    from fairness_core.engines import scored_counts
    from fairness_core.engines._sql import WORD_BITS, membership_bits

    frame = identity_frame(2_000, 40, seed=12)
    for j in range(40):   # a missing value in every column, at different rows
        frame[f"id{j}"] = frame[f"id{j}"].astype(float).where((frame.index + j) % 53 != 0)
    bits = membership_bits(40, [True] * 40)
    assert bits[30] == ((0, 60), (0, 61)) and bits[31] == ((1, 0), (1, 1)) and WORD_BITS == 62
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, index=False)
    mapping = mapping_of(frame, min_size=30)
    scored = fc.ScoredData.from_frame(frame, mapping)
    counted = scored_counts(str(path), mapping, threshold=0.5, engine=engine).with_atoms()
    want = fc.confusion_counts(scored.y_true, scored.y_pred("score", 0.5), scored.subgroups)
    got = counted.confusion["score"].atoms
    _, member, background = scored.subgroups.patterns
    assert len(got.counts) == len(member) > bootstrap.BUCKET_PATTERNS
    np.testing.assert_array_equal(got.member, member)
    np.testing.assert_array_equal(got.background, background)
    np.testing.assert_array_equal(got.counts, want.atoms.counts)


def test_a_bucket_split_kept_with_the_atoms_gives_the_replicates_of_a_fresh_one():
    """Atoms.memo keeps the last bucket split: a second statistic from the same seed reuses it, and the generator
    ends where a fresh split's draws leave it, so every replicate equals the one of atoms drawn afresh."""
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 30, size=(500, 4)).astype(float)
    member = rng.random((500, 6)) < 0.3

    def stat(m, b, o):
        return m[..., 1] / np.maximum(m.sum(-1), 1)

    atoms = Atoms(counts, member, ~member)
    first = replicate_stat(atoms, stat, 300, np.random.default_rng(0))
    split = atoms.memo["split"][2]
    reused_rng = np.random.default_rng(0)
    reused = replicate_stat(atoms, stat, 300, reused_rng)
    assert atoms.memo["split"][2] is split   # the same split, not drawn again
    fresh_rng = np.random.default_rng(0)
    fresh = replicate_stat(Atoms(counts, member, ~member), stat, 300, fresh_rng)
    np.testing.assert_array_equal(first, fresh)
    np.testing.assert_array_equal(reused, fresh)
    assert reused_rng.random() == fresh_rng.random()
    other = replicate_stat(atoms, stat, 300, np.random.default_rng(5))   # another seed: another split
    assert atoms.memo["split"][2] is not split and not np.array_equal(other, fresh)


@pytest.mark.parametrize("patterns_said", [None, 10 ** 6])
def test_one_query_gives_a_scores_confusion_and_auc_atoms(tmp_path, patterns_said):
    """with_atoms counts a score's confusion and AUC atoms in one GROUP BY (prediction and level group); they equal
    the two queries' atoms. When the pattern count it was given (at least the patterns) would choose other level
    groups than the patterns read, the AUC atoms are counted again with the right ones."""
    pytest.importorskip("duckdb")
    from fairness_core._stats import auc_bootstrap
    from fairness_core.engines import scored_counts

    frame = identity_frame(3_000, 5, seed=13)   # 32 patterns: 256 level groups
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, index=False)
    counted = scored_counts(str(path), mapping_of(frame, min_size=30), threshold=0.4, auc_bins=1000, engine="duckdb")
    q, auc = counted._atom_queries, counted.auc["score"]
    n = q.n_patterns()
    confusion, with_levels = q.confusion_and_auc("score", 0.4, auc, n if patterns_said is None else patterns_said)
    want_confusion, want_auc = q.confusion("score", 0.4), q.auc("score", auc, n)
    np.testing.assert_array_equal(confusion.atoms.counts, want_confusion.atoms.counts)
    np.testing.assert_array_equal(confusion.atoms.member, want_confusion.atoms.member)
    np.testing.assert_array_equal(confusion.member, want_confusion.member)
    atoms, n_merged = with_levels.patterns
    assert n_merged == want_auc.patterns[1] == auc_bootstrap.MAX_LEVELS
    np.testing.assert_array_equal(atoms.counts, want_auc.patterns[0].counts)
