"""Intervals of counts of rows past the bound on membership patterns: per-bucket tables counted where the rows live.

The engine deals each row into one of ``BUCKETS`` buckets by the hash of its position (``engines._buckets``) and
counts every table per (bucket, protected key, label, cell) with each identity column summed, so it returns
buckets x keys x cells rows whatever the patterns; the bootstrap reweights the buckets. The in-memory rows dealt by
the same ``bucket_of`` give the same tables, hence the same replicates.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import fairness_core as fc
from fairness_core._counts.confusion import ConfusionCounts
from fairness_core._stats.bootstrap import BUCKETS, Atoms, BucketTables
from fairness_core.engines import TooManyPatterns, _limits, scored_counts
from fairness_core.engines._buckets import bucket_of
from tests.fairness_core.test_engine_patterns import identity_frame

pytest.importorskip("duckdb")

IDENTITIES = ("id0", "id1", "id2", "id3")
MAPPING = fc.ColumnMapping(label="y", positive_label=1, scores=("s",), protected=("race",), indicators=IDENTITIES,
                           min_size=1)


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """3,000 rows as Parquet: race with missing values, four overlapping identity columns (id0 with missing values),
    some scores missing (rows left out: the buckets number every row of the source), scores tied with the label."""
    frame = identity_frame(3_000, len(IDENTITIES), seed=5)
    frame["id0"] = frame["id0"].astype(float).where(frame.index % 53 != 0)
    frame["s"] = np.clip(0.6 * frame["s"] + 0.35 * frame["y"], 0, 1).where(frame.index % 41 != 0)
    path = tmp_path_factory.mktemp("buckets") / "rows.parquet"
    frame.to_parquet(path, index=False)
    return frame, str(path), fc.ScoredData.from_frame(frame, MAPPING)


def _memory(scored, cell: np.ndarray) -> ConfusionCounts:
    """In-memory confusion counts of `cell` whose atoms are the per-bucket tables of the rows dealt by ``bucket_of``
    of their positions in the source, as the engines deal them."""
    groups = scored.subgroups
    counts = ConfusionCounts.of_atoms(list(groups.names), Atoms.of(groups, cell, 4), 1)
    tables = BucketTables.of_rows(groups.membership, groups.background, cell, 4, bucket_of(scored.rows + 1, BUCKETS),
                                  BUCKETS)
    return dataclasses.replace(counts, atoms=Atoms.of_buckets(tables))


def _brute(scored, cell: np.ndarray) -> tuple:
    """Per-bucket (member, background, overall) counts by one ``np.add.at`` per subgroup: the independent check."""
    groups, bucket = scored.subgroups, bucket_of(scored.rows + 1, BUCKETS)
    k = len(groups.names)
    member, background = np.zeros((BUCKETS, k, 4)), np.zeros((BUCKETS, k, 4))
    for j in range(k):
        for masks, out in ((groups.membership, member), (groups.background, background)):
            inside = np.asarray(masks[:, j], dtype=bool)
            np.add.at(out[:, j, :], (bucket[inside], cell[inside]), 1.0)
    overall = np.zeros((BUCKETS, 4))
    np.add.at(overall, (bucket, cell), 1.0)
    return member, background, overall


def _replicates(counts: ConfusionCounts) -> np.ndarray:
    return counts.replicates("false_positive_rate", distance_measure="diff", reference="rest", n_boot=200,
                             random_state=0)[0]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_per_bucket_tables_equal_the_in_memory_rows_dealt_by_the_same_buckets(rows, engine):
    frame, path, scored = rows
    counted = scored_counts(path, MAPPING, engine=engine)
    n_patterns = counted._atom_queries.n_patterns()
    buckets = counted.with_atoms(max_patterns=n_patterns - 1)
    atoms = buckets.confusion["s"].atoms
    assert buckets.atoms and atoms.buckets is not None and len(atoms.counts) == 0   # no pattern read
    cell = (2 * scored.y_true + scored.y_pred("s", 0.5)).astype(np.int64)
    for got, want in zip(atoms.buckets.tables, _brute(scored, cell), strict=True):
        np.testing.assert_array_equal(got, want)
    for table in ("member", "background", "overall"):   # the point tables: the counts query's
        np.testing.assert_array_equal(getattr(buckets.confusion["s"], table), getattr(counted.confusion["s"], table))
    np.testing.assert_allclose(_replicates(buckets.confusion["s"]), _replicates(_memory(scored, cell)),
                               rtol=0, atol=1e-12)
    # the adverse outcome reorders the buckets' cells as the counts' (TN <-> TP, FP <-> FN)
    np.testing.assert_allclose(_replicates(buckets.confusion["s"].favourable("adverse")),
                               _replicates(_memory(scored, 3 - cell)), rtol=0, atol=1e-12)
    labels = (3 * scored.y_true).astype(np.int64)
    for got, want in zip(buckets.label_counts().atoms.buckets.tables, _brute(scored, labels), strict=True):
        np.testing.assert_array_equal(got, want)
    at = buckets.confusion_at("s", 0.3)   # another threshold: one more bucket query
    assert at.atoms.buckets is not None
    np.testing.assert_allclose(_replicates(at), _replicates(_memory(scored, (2 * scored.y_true + scored.y_pred(
        "s", 0.3)).astype(np.int64))), rtol=0, atol=1e-12)


def test_duckdb_and_polars_deal_the_same_buckets(rows):
    _, path, _ = rows
    tables = []
    for engine in ("duckdb", "polars"):
        counted = scored_counts(path, MAPPING, engine=engine, auc_bins=500)
        done = counted.with_atoms(max_patterns=1)
        tables.append([done.confusion["s"].atoms.buckets.tables, done.auc["s"].patterns[0].buckets.tables,
                       done.calibration["s"].atoms.atoms.buckets.tables])
    for mine, theirs in zip(*tables, strict=True):
        for a, b in zip(mine, theirs, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-9)


def test_auc_and_calibration_tables_sum_to_the_counts(rows):
    _, path, _ = rows
    counted = scored_counts(path, MAPPING, auc_bins=500)
    patterns = counted.with_atoms()   # within the bound: atoms per pattern
    buckets = counted.with_atoms(max_patterns=1)
    (mine, n_mine), (theirs, n_theirs) = buckets.auc["s"].patterns, patterns.auc["s"].patterns
    assert n_mine == n_theirs and mine.buckets.n_buckets == BUCKETS
    for got, want in zip(mine.tables(), theirs.tables(), strict=True):   # per (subgroup, level group, label)
        np.testing.assert_array_equal(got, want)
    calibration = buckets.calibration["s"]
    for table in ("member", "background", "overall"):
        np.testing.assert_allclose(getattr(calibration, table), getattr(counted.calibration["s"], table),
                                   rtol=1e-12, atol=1e-9)
    other = buckets.calibration_at("s", 5, "quantile")   # other bins: per-bucket tables too
    assert other.atoms.atoms.buckets is not None
    np.testing.assert_allclose(other.member, counted.calibration_at("s", 5, "quantile").member, rtol=1e-12, atol=1e-9)


def test_a_review_from_per_bucket_tables_has_every_interval_close_to_the_pattern_bootstrap(rows):
    _, path, _ = rows
    counted = scored_counts(path, MAPPING, auc_bins=500)
    config = dataclasses.replace(fc.ReviewConfig(mapping=MAPPING), ci=0.95, n_boot=400)
    ours = fc.build_review_from_counts(counted.with_atoms(max_patterns=1), config)
    theirs = fc.build_review_from_counts(counted.with_atoms(), config)
    assert ours.source["not_computed"] == theirs.source["not_computed"]   # nothing more left out
    mine, want = ours.models[0], theirs.models[0]
    results = [(mine.rates[k], want.rates[k]) for k in want.rates] + [(mine.calibration, want.calibration),
                                                                      (mine.bias_auc, want.bias_auc)]
    for a, b in results:
        assert a.value == pytest.approx(b.value, rel=1e-9, abs=1e-12)
        width = b.ci_high - b.ci_low
        assert np.isfinite(a.ci_low) and np.isfinite(a.ci_high) and width > 0
        assert abs(a.ci_low - b.ci_low) <= 0.35 * width and abs(a.ci_high - b.ci_high) <= 0.35 * width
    for metric, (low, high) in want.bias_auc.power_mean_ci.items():
        got = mine.bias_auc.power_mean_ci[metric]
        assert abs(got[0] - low) <= 0.35 * (high - low) and abs(got[1] - high) <= 0.35 * (high - low)


def test_counts_over_the_bound_and_raise_are_refused_weighted_counts_get_buckets(rows):
    frame, path, _ = rows
    counted = scored_counts(path, MAPPING)
    with pytest.raises(TooManyPatterns):
        counted.with_atoms(max_patterns=1, too_many="raise")
    weighted = dataclasses.replace(MAPPING, weight="w")
    path_w = path.replace("rows.parquet", "weighted.parquet")
    frame.assign(w=np.linspace(0.5, 2.0, len(frame))).to_parquet(path_w, index=False)
    with pytest.raises(TooManyPatterns):
        scored_counts(path_w, weighted).with_atoms(max_patterns=1, too_many="raise")
    # per-bucket sums of weights (tests/fairness_core/test_engine_weighted_buckets.py)
    assert scored_counts(path_w, weighted).with_atoms(max_patterns=1).confusion["s"].atoms.buckets is not None


def test_the_command_line_reviews_with_intervals_over_the_pattern_bound(rows, tmp_path, capsys, monkeypatch):
    from fairness_core._cli import main

    _, path, _ = rows
    flags = ["--engine", "duckdb", "--label", "y", "--positive", "1", "--score", "s", "--protected", "race",
             *[f for c in IDENTITIES for f in ("--identity", c)]]
    monkeypatch.setattr(_limits, "MAX_PATTERNS", 3)
    out = tmp_path / "review.json"
    assert main(["metrics", path, *flags, "--out", str(out)]) in (0, 1)
    review = json.loads(out.read_text())
    assert not any("membership patterns" in s for s in review["context"]["source"]["not_computed"])
    verdicts = [v for m in review["models"] for v in m["verdicts"]]
    assert verdicts and all(v["ci_low"] is not None for v in verdicts if v["value"] is not None)


def test_ibis_tables_deal_the_duckdb_buckets(rows, tmp_path):
    """The per-bucket queries transpiled for an ibis table's backend (DuckDB through ibis, and SQLite): the rows
    numbered in the table's order, so the same tables as DuckDB's."""
    from tests.fairness_core.test_engines import ibis_tables

    frame, path, _ = rows
    want = scored_counts(path, MAPPING).with_atoms(max_patterns=1)
    for table in ibis_tables(frame, path, tmp_path):
        got = scored_counts(table, MAPPING).with_atoms(max_patterns=1)
        for a, b in zip(got.confusion["s"].atoms.buckets.tables, want.confusion["s"].atoms.buckets.tables,
                        strict=True):
            np.testing.assert_array_equal(a, b)


def test_thresholds_between_level_groups_are_read_off_the_per_bucket_auc_tables(rows):
    """A threshold that splits no merged level group needs no scan: each bucket's confusion cells are sums of its
    level groups, the very tables the per-bucket confusion query counts."""
    _, path, _ = rows
    buckets = scored_counts(path, MAPPING, auc_bins=500).with_atoms(max_patterns=1)
    edges = buckets.atom_thresholds("s")
    assert len(edges) > 10
    t = float(edges[len(edges) // 3])
    assert not buckets.needs_query("s", t)
    read = buckets.confusion_at("s", t)
    counted = buckets._atom_queries.confusion("s", t)
    for a, b in zip(read.atoms.buckets.tables, counted.atoms.buckets.tables, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(read.member, counted.member)


def test_one_scan_gives_a_scores_confusion_auc_and_calibration_tables_as_their_own_queries(rows, monkeypatch):
    """On many rows (``MERGED_SCAN_ROWS``, here every row count) with_atoms past the bound counts a score's confusion,
    AUC and calibration tables in one bucket query (the level groups and calibration bins as two more keys): the same
    per-bucket tables as the queries of each."""
    _, path, _ = rows
    counted = scored_counts(path, MAPPING, auc_bins=500)
    monkeypatch.setattr(_limits, "MERGED_SCAN_ROWS", 0)
    buckets = counted.with_atoms(max_patterns=1)
    q, n_patterns = buckets._atom_queries, counted._atom_queries.n_patterns()
    confusion, auc = q.confusion_and_auc("s", 0.5, counted.auc["s"], n_patterns)
    calibration = q.calibration("s", counted.calibration["s"].edges, "uniform")
    pairs = [(buckets.confusion["s"].atoms.buckets, confusion.atoms.buckets),
             (buckets.auc["s"].patterns[0].buckets, auc.patterns[0].buckets),
             (buckets.calibration["s"].atoms.atoms.buckets, calibration.atoms.atoms.buckets)]
    for got, want in pairs:
        for a, b in zip(got.tables, want.tables, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
