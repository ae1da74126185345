"""Intervals of weighted counts past the bound on membership patterns: per-bucket sums of weights.

The per-bucket query sums w (and w², and counts the rows) per (bucket, protected key, label, cell) with each identity
column summed, as it counts rows without weights (tests/fairness_core/test_engine_buckets.py). The in-memory rows dealt
by the same ``bucket_of``, each with its weight (``BucketTables.of_rows(weight=)``), give the same tables, hence the same
replicates; the point tables are their buckets summed, equal to the weighted counts queries'.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._stats.bootstrap import BUCKETS, Atoms, BucketTables
from fairness_core.engines import _limits, scored_counts
from fairness_core.engines._buckets import bucket_of
from tests.fairness_core.test_engine_patterns import identity_frame

pytest.importorskip("duckdb")

IDENTITIES = ("id0", "id1", "id2", "id3")
MAPPING = fc.ColumnMapping(label="y", positive_label=1, scores=("s",), protected=("race",), indicators=IDENTITIES,
                           min_size=1, weight="w")
SIDES = ("member", "background", "overall")


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """3,000 weighted rows as Parquet: race with missing values, four overlapping identity columns (id0 with missing
    values), some scores missing and some weights 0 (rows left out: the buckets number every row of the source)."""
    frame = identity_frame(3_000, len(IDENTITIES), seed=7)
    frame["id0"] = frame["id0"].astype(float).where(frame.index % 53 != 0)
    frame["s"] = np.clip(0.6 * frame["s"] + 0.35 * frame["y"], 0, 1).where(frame.index % 41 != 0)
    frame["w"] = np.random.default_rng(3).uniform(0.2, 3.0, len(frame)) * (frame.index % 37 != 0)
    path = tmp_path_factory.mktemp("weighted_buckets") / "rows.parquet"
    frame.to_parquet(path, index=False)
    scored = fc.ScoredData.from_frame(frame, MAPPING)
    counted = scored_counts(str(path), MAPPING, auc_bins=500)
    return scored, str(path), counted, counted.with_atoms(max_patterns=1)


def _memory(scored, cell: np.ndarray, n_cells: int, weight: np.ndarray) -> BucketTables:
    """The in-memory per-bucket sums of `weight` of the kept rows in `cell`, dealt by ``bucket_of`` of their
    positions in the source, as the engines deal them."""
    groups = scored.subgroups
    return BucketTables.of_rows(groups.membership, groups.background, cell, n_cells,
                                bucket_of(scored.rows + 1, BUCKETS), BUCKETS, weight=weight)


def _assert_tables(got: BucketTables, want: BucketTables) -> None:
    for a, b in zip(got.tables, want.tables, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_of_rows_with_unit_weights_counts_the_rows(rows):
    scored = rows[0]
    cell = (2 * scored.y_true + scored.y_pred("s", 0.5)).astype(np.int64)
    groups, bucket = scored.subgroups, bucket_of(scored.rows + 1, BUCKETS)
    counted = BucketTables.of_rows(groups.membership, groups.background, cell, 4, bucket, BUCKETS)
    weighted = BucketTables.of_rows(groups.membership, groups.background, cell, 4, bucket, BUCKETS,
                                    weight=np.ones(len(cell)))
    for a, b in zip(counted.tables, weighted.tables, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_weighted_per_bucket_tables_equal_the_in_memory_rows_dealt_by_the_same_buckets(rows, engine):
    scored, path, counted, _ = rows
    if engine != "duckdb":
        counted = scored_counts(path, MAPPING, engine=engine, auc_bins=500)
    buckets = counted.with_atoms(max_patterns=1)
    assert buckets.atoms and len(buckets.not_computed) == len(counted.not_computed) + 1   # the bias AUC interval
    w = scored.weights
    cell = (2 * scored.y_true + scored.y_pred("s", 0.5)).astype(np.int64)
    confusion = buckets.confusion["s"]
    assert len(confusion.atoms.counts) == 0   # no pattern read
    _assert_tables(confusion.atoms.buckets, _memory(scored, cell, 4, w))
    _assert_tables(buckets.label_counts().atoms.buckets, _memory(scored, (3 * scored.y_true).astype(np.int64), 4, w))
    for side in SIDES:   # the point tables, weights and squared weights: the weighted counts queries'
        for table in (side, f"{side}_sq"):
            np.testing.assert_allclose(getattr(confusion, table), getattr(counted.confusion["s"], table),
                                       rtol=1e-12, atol=1e-12)
    # the replicates: those of the in-memory tables (the point tables alike)
    memory = dataclasses.replace(counted.confusion["s"], atoms=Atoms.of_buckets(_memory(scored, cell, 4, w)))
    for measure in ("false_positive_rate", "statistical_parity"):
        got, want = (c.replicates(measure, distance_measure="diff", reference="rest", n_boot=200, random_state=0)[0]
                     for c in (confusion, memory))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_weighted_calibration_tables_equal_the_in_memory_sums(rows):
    scored, _, counted, buckets = rows
    calibration = buckets.calibration["s"]
    edges, nb = calibration.edges, calibration.n_bins
    p, y, w = scored.scores["s"], scored.y_true.astype(np.float64), scored.weights
    b = np.clip(np.searchsorted(edges[1:-1], p, side="right"), 0, nb - 1)
    cell = (2 * b + scored.y_true).astype(np.int64)
    sums = [_memory(scored, cell, 2 * nb, w * x) for x in (np.ones(len(p)), p, (p - y) ** 2)]

    def per_bin(i: int) -> np.ndarray:   # as _BucketQueries.calibration lays out the four sums
        n, sp, sq = (t.tables[i].reshape(*t.tables[i].shape[:-1], nb, 2) for t in sums)
        return np.stack([n.sum(-1), sp.sum(-1), n[..., 1], sq.sum(-1)], axis=-2)

    _assert_tables(calibration.atoms.atoms.buckets, BucketTables(per_bin(0), per_bin(1), per_bin(2)))
    for side in SIDES:
        for table in (side, f"{side}_sq"):
            np.testing.assert_allclose(getattr(calibration, table), getattr(counted.calibration["s"], table),
                                       rtol=1e-12, atol=1e-12)
    # each bin's interval on its effective size truncated at its rows, as from the atoms per pattern
    patterns = counted.with_atoms()
    pd.testing.assert_frame_equal(calibration.reliability_table(ci=0.9),
                                  patterns.calibration["s"].reliability_table(ci=0.9), rtol=1e-12, atol=1e-12)


def test_a_weighted_review_past_the_bound_has_intervals_close_to_the_pattern_bootstrap(rows):
    _, _, counted, buckets = rows
    config = dataclasses.replace(fc.ReviewConfig(mapping=MAPPING), ci=0.95, n_boot=400)
    ours = fc.build_review_from_counts(buckets, config)
    theirs = fc.build_review_from_counts(counted.with_atoms(), config)
    assert ours.source["not_computed"] == theirs.source["not_computed"] + list(buckets.not_computed)
    assert len(buckets.not_computed) == 1   # the bias AUC score's interval, said (WEIGHTED_AUC_NOT_COMPUTED)
    mine, want = ours.models[0], theirs.models[0]
    for a, b in [(mine.rates[k], want.rates[k]) for k in want.rates] + [(mine.calibration, want.calibration)]:
        assert a.value == pytest.approx(b.value, rel=1e-9, abs=1e-12)
        width = b.ci_high - b.ci_low
        assert np.isfinite(a.ci_low) and np.isfinite(a.ci_high) and width > 0
        assert abs(a.ci_low - b.ci_low) <= 0.35 * width and abs(a.ci_high - b.ci_high) <= 0.35 * width
    pd.testing.assert_frame_equal(mine.auc_table, want.auc_table, rtol=1e-9, atol=1e-12)   # analytic intervals


def test_one_scan_of_many_rows_gives_the_same_weighted_tables(rows, monkeypatch):
    """Past ``MERGED_SCAN_ROWS`` kept rows (here every row count) a score's confusion, AUC and calibration tables come
    from one bucket query: the same weighted tables as the queries of each."""
    _, _, counted, buckets = rows
    monkeypatch.setattr(_limits, "MERGED_SCAN_ROWS", 0)
    merged = counted.with_atoms(max_patterns=1)
    for got, want in ((merged.confusion["s"].atoms.buckets, buckets.confusion["s"].atoms.buckets),
                      (merged.calibration["s"].atoms.atoms.buckets, buckets.calibration["s"].atoms.atoms.buckets)):
        _assert_tables(got, want)
    for side in SIDES:
        np.testing.assert_allclose(getattr(merged.calibration["s"], f"{side}_sq"),
                                   getattr(buckets.calibration["s"], f"{side}_sq"), rtol=1e-12, atol=1e-12)
    pd.testing.assert_frame_equal(merged.calibration["s"].reliability_table(ci=0.9),
                                  buckets.calibration["s"].reliability_table(ci=0.9), rtol=1e-12, atol=1e-12)


@pytest.mark.spark
def test_spark_weighted_per_bucket_tables_sum_to_the_weighted_counts(spark, rows, tmp_path):
    """Spark: the transpiled weighted per-bucket query (buckets of a hash of each row's mapped columns, deterministic
    across runs); its sums of weights and of squared weights, the buckets summed, are the weighted counts'."""
    _, path, _, _ = rows
    counted = scored_counts(spark.read.parquet(path), MAPPING, auc_bins=500)
    buckets, again = (counted.with_atoms(max_patterns=1) for _ in range(2))
    for got, want in ((buckets.confusion["s"], counted.confusion["s"]),
                      (buckets.calibration["s"], counted.calibration["s"])):
        for side in SIDES:
            for table in (side, f"{side}_sq"):
                np.testing.assert_allclose(getattr(got, table), getattr(want, table), rtol=1e-12, atol=1e-12)
    for a, b in zip(buckets.confusion["s"].atoms.buckets.tables, again.confusion["s"].atoms.buckets.tables,
                    strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
