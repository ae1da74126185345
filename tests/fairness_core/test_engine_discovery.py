"""Subgroup discovery counted where the data lies (``engines.discover_subgroups_counted``): one GROUPING SETS query
per search, and the same table as ``discover_subgroups`` on the same rows and split."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._review.discovery import _holdout_rows
from fairness_core.engines import discover_subgroups_counted
from fairness_core.engines._buckets import bucket_of
from fairness_core.engines._sql import Plan
from fairness_core.engines._sql_discovery import HALVES, column_sets, discovery_query
from tests.fairness_core.test_engines import ibis_tables

N = 4000
FIELDS = ("quantity", "direction", "level", "holdout", "depth", "min_size", "top_k", "examined", "pruned",
          "search_rows", "estimate_rows", "columns")


def _frame(weights: bool = False) -> pd.DataFrame:
    """Rows with a planted subgroup (a=x & b=1 selected more), a missing value and a numeric column cut into bins."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.choice(["x", "y", "z"], N), "b": rng.integers(0, 4, N), "c": rng.normal(size=N),
                       "y": rng.integers(0, 2, N)})
    df.loc[rng.random(N) < 0.05, "a"] = None
    df["score"] = np.clip(rng.random(N) * 0.8 + np.where((df["a"] == "x") & (df["b"] == 1), 0.25, 0.0), 0.0, 1.0)
    df["held"] = _holdout_rows(N, 0.5, 0)   # the in-memory split of random_state=0, as a column
    if weights:
        df["w"] = rng.uniform(0.5, 2.0, N)
    return df


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    df = _frame(weights=True)
    path = tmp_path_factory.mktemp("discovery") / "rows.parquet"
    df.to_parquet(path)
    return df, str(path)


def _mapping(weight=None):
    return fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("a", "b", "c"), weight=weight)


def _in_memory(df, **kwargs):
    return fc.discover_subgroups(df["y"], (df["score"] >= 0.5).astype(int), df[["a", "b", "c"]], **kwargs)


def _same(expected, got, rtol=0.0):
    pd.testing.assert_frame_equal(expected.table, got.table, check_dtype=False, rtol=rtol, atol=0.0)
    for f in FIELDS:
        assert getattr(expected, f) == getattr(got, f), f


@pytest.mark.parametrize("quantity", ["selection_rate", "true_positive_rate", "false_positive_rate", "error_rate"])
@pytest.mark.parametrize("prune", [True, False])
def test_duckdb_equals_the_in_memory_search_on_the_same_split(data, quantity, prune):
    df, path = data
    expected = _in_memory(df, quantity=quantity, depth=3, min_size=20, prune=prune)
    got = discover_subgroups_counted(path, _mapping(), quantity=quantity, depth=3, min_size=20, prune=prune,
                                     split="held")
    _same(expected, got)
    # every intersection of a (3 values and missing), b (4 values) and c (4 bins) with a row, up to depth 3; the
    # bound prunes two intersections of the error rate, whose 7 children are then not counted
    assert (got.examined, got.pruned) == ((117, 2) if prune and quantity == "error_rate" else (124, 0))


def test_the_planted_subgroup_is_found_first_and_excludes_parity(data):
    df, path = data
    got = discover_subgroups_counted(path, _mapping(), depth=2, min_size=20, split="held", direction="higher")
    first = got.table.iloc[0]
    assert first["subgroup"] == "a=x & b=1"
    assert bool(first["excludes_parity"]) and first["ci_low"] > 0
    assert got.search_rows + got.estimate_rows == N and got.holdout == 0.5


def test_polars_equals_duckdb_and_the_in_memory_search(data):
    pl = pytest.importorskip("polars")
    df, path = data
    expected = _in_memory(df, depth=3, min_size=20)
    _same(expected, discover_subgroups_counted(pl.scan_parquet(path), _mapping(), depth=3, min_size=20, split="held"))


def test_an_ibis_table_counts_on_its_backend_as_duckdb_does(data, tmp_path):
    """DuckDB through ibis (GROUPING SETS transpiled), and SQLite (no GROUPING SETS: the atoms, summed here)."""
    df, path = data
    duck, lite = ibis_tables(df, path, tmp_path)
    for split in ("held", None):   # the column's split, and the hashed one (each backend numbers the rows)
        expected = discover_subgroups_counted(path, _mapping(), depth=3, min_size=20, split=split)
        for table in (duck, lite):
            got = discover_subgroups_counted(table, _mapping(), depth=3, min_size=20, split=split)
            pd.testing.assert_frame_equal(expected.table, got.table)


def test_weighted_counts_equal_the_in_memory_weighted_search(data):
    df, path = data
    expected = _in_memory(df, quantity="true_positive_rate", min_size=20, sample_weight=df["w"])
    for source in (path, pytest.importorskip("polars").scan_parquet(path)):
        got = discover_subgroups_counted(source, _mapping("w"), quantity="true_positive_rate", min_size=20,
                                         split="held")
        _same(expected, got, rtol=1e-9)   # sums of weights up to summation order
    assert got.table["n"].iloc[0] != got.table["size"].iloc[0]   # sums of weights, not rows


def test_without_a_holdout_the_search_values_are_reported(data):
    df, path = data
    expected = _in_memory(df, min_size=20, holdout=0)
    got = discover_subgroups_counted(path, _mapping(), min_size=20, holdout=0)
    _same(expected, got)
    assert got.level is None and got.estimate_rows == 0 and got.table["ci_low"].isna().all()


def test_the_hashed_split_is_the_row_numbers_bucket_in_every_engine(data, tmp_path):
    df, _ = data
    df = df.drop(columns="held").assign(hashed=bucket_of(np.arange(1, N + 1), HALVES) < HALVES // 2)
    path = str(tmp_path / "hashed.parquet")
    df.to_parquet(path)
    by_hash = discover_subgroups_counted(path, _mapping(), min_size=20)
    by_column = discover_subgroups_counted(path, _mapping(), min_size=20, split="hashed")
    pd.testing.assert_frame_equal(by_hash.table, by_column.table)
    assert by_hash.estimate_rows == int(df["hashed"].sum()) == 1950 and by_hash.holdout == 0.5
    pl = pytest.importorskip("polars")
    pd.testing.assert_frame_equal(by_hash.table, discover_subgroups_counted(pl.scan_parquet(path), _mapping(),
                                                                            min_size=20).table)


def test_one_grouping_sets_query_covers_every_set_up_to_the_depth():
    plan = Plan("y", 1, ("score",), ("a", "b", "c"), (), 0.5)
    assert column_sets(3, 2) == [(), (0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]
    sql = discovery_query(plan, "score", 0.5, 2, split="held")
    # the rows grouped once (the atoms), every set then summed from the atoms
    assert sql.count("GROUP BY") == 2 and sql.count("GROUPING SETS") == 1 and "ROW_NUMBER" not in sql
    assert "ROW_NUMBER() OVER ()" in discovery_query(plan, "score", 0.5, 2)   # the hashed split: row positions


def test_a_score_quantity_is_refused_in_words(data):
    _, path = data
    with pytest.raises(ValueError, match="not a rate"):
        discover_subgroups_counted(path, _mapping(), quantity="subgroup_auc")
    with pytest.raises(ValueError, match="not among the source's columns"):
        discover_subgroups_counted(path, _mapping(), columns=["a", "nope"])


def test_the_benchmark_runs_and_reports_each_step(tmp_path):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "discovery_engine.py"
    spec = importlib.util.spec_from_file_location("discovery_engine_benchmark", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "results.json"
    results = bench.main(["--rows", "20000", "--repeats", "1", "--identities", "2", "--depth", "2",
                          "--data", str(tmp_path), "--out", str(out)])
    size = results["sizes"]["20000"]
    assert set(size) >= {"counts_scan", "review_counts", "discovery", "discovery_no_holdout",
                         "discovery_over_review_counts_cpu"}
    found = size["discovery"]["value"]
    assert found["search_rows"] + found["estimate_rows"] == 20_000
    assert size["discovery_no_holdout"]["value"]["estimate_rows"] == 0 and out.exists()


def test_identity_columns_define_only_their_members_as_in_memory(data, tmp_path):
    df, _ = data
    rng = np.random.default_rng(2)
    df = df.assign(gay=(rng.random(N) < 0.2).astype(float), prob=rng.random(N))
    df.loc[rng.random(N) < 0.03, "gay"] = np.nan
    path = str(tmp_path / "identities.parquet")
    df.to_parquet(path)
    m = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("a", "b"),
                         indicators=("gay", "prob"))
    expected = fc.discover_subgroups(df["y"], (df["score"] >= 0.5).astype(int), df[["a", "b", "gay", "prob"]],
                                     depth=2, min_size=20, top_k=30, indicators=["gay", "prob"])
    for source in (path, pytest.importorskip("polars").scan_parquet(path)):
        got = discover_subgroups_counted(source, m, depth=2, min_size=20, top_k=30, split="held")
        _same(expected, got)
    names = " & ".join(got.table["subgroup"])
    assert "gay=1" in names and "gay=0" not in names and "prob=0" not in names and got.pruned == 0
    with pytest.raises(ValueError, match="must be among the columns searched"):
        discover_subgroups_counted(path, m, columns=["a", "b"], indicators=["gay"])


def test_no_row_left_is_said_in_words(data, tmp_path):
    df, _ = data
    path = str(tmp_path / "no_scores.parquet")
    df.assign(score=np.nan).to_parquet(path)
    with pytest.raises(ValueError, match="no row is left"):
        discover_subgroups_counted(path, _mapping())
