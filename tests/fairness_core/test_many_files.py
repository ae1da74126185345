"""Many CSV files counted by DuckDB: read as one relation in a number of reads that does not grow with the files
(a read per file, and union_by_name's sniff of every file at every query, cost 10 times the CPU over 300 small
files), with the types of every file (a later file's 0.5 is never cast to an integer) and the same counts as the
rows in memory."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core import engines
from fairness_core.engines import _duckdb_files as _sources


def write(folder, n_files: int, rows: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for i in range(n_files):
        part = pd.DataFrame({"y": rng.integers(0, 2, rows), "score": rng.integers(0, 10, rows),
                             "race": rng.choice(["a", "b", "c"], rows), "flag": rng.choice(["true", "false"], rows)})
        if i == n_files - 1:
            part["score"] = part["score"] + 0.5   # the last file's scores are not whole numbers
        part.to_csv(folder / f"part-{i:03d}.csv", index=False)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


class CountingConnection:
    """A DuckDB connection that counts its read_csv calls."""

    def __init__(self):
        self.connection, self.reads = duckdb.connect(), 0

    def read_csv(self, *args, **kwargs):
        self.reads += 1
        return self.connection.read_csv(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.connection, name)


@pytest.mark.parametrize("n_files", [2, 60])
def test_files_with_the_same_columns_are_read_in_a_fixed_number_of_reads(tmp_path, n_files):
    rows = write(tmp_path, n_files)
    con = CountingConnection()
    relation = _sources._duckdb_files(con, sorted(str(p) for p in tmp_path.glob("*.csv")))
    assert con.reads == 3   # the types sniffed over every file, the typed read, the first file's boolean candidates
    assert [str(t) for t in relation.types] == ["BIGINT", "DOUBLE", "VARCHAR", "BOOLEAN"]
    got = relation.df()
    np.testing.assert_array_equal(got["score"].to_numpy(), rows["score"].to_numpy())   # 0.5 kept, row order kept
    assert got["flag"].tolist() == (rows["flag"] == "true").tolist()


def test_the_counts_of_many_files_equal_the_rows_in_memory(tmp_path):
    rows = write(tmp_path, 30, seed=1)
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("race",), min_size=5)
    counted = engines.scored_counts(str(tmp_path / "*.csv"), mapping, auc_bins="exact")
    scored = fc.ScoredData.from_frame(rows, mapping)
    assert counted.n_input == len(rows)
    want = fc.confusion_counts(scored.y_true, scored.y_pred("score", 4.5), scored.subgroups).table()
    got = counted.confusion_at("score", 4.5).table()
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True), check_dtype=False)


def test_files_with_columns_in_another_order_are_combined_by_name_and_others_refused(tmp_path):
    pd.DataFrame({"y": [0, 1], "score": [0.2, 0.7], "race": ["a", "b"]}).to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame({"race": ["c"], "y": [1], "score": [0.9]}).to_csv(tmp_path / "b.csv", index=False)
    relation = _sources._duckdb_files(duckdb.connect(), [str(tmp_path / "a.csv"), str(tmp_path / "b.csv")])
    assert relation.columns == ["y", "score", "race"] and relation.fetchall()[-1] == (1, 0.9, "c")
    pd.DataFrame({"y": [1], "score": [0.9]}).to_csv(tmp_path / "c.csv", index=False)
    with pytest.raises(ValueError, match=r"c\.csv' lacks 'race'"):
        _sources._duckdb_files(duckdb.connect(), [str(tmp_path / "a.csv"), str(tmp_path / "c.csv")])


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_parquet_files_of_different_integer_widths_are_widened_by_every_engine(tmp_path, engine):
    """Polars refused Int32 in one file against Int64 in another, which DuckDB widens."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"y": pa.array([0, 1, 1], pa.int32()), "score": [0.1, 0.9, 0.6], "g": ["a", "b", "a"]}),
                   tmp_path / "a.parquet")
    pq.write_table(pa.table({"y": pa.array([1, 0], pa.int64()), "score": pa.array([0.7, 0.2], pa.float32()),
                             "g": ["b", "a"]}), tmp_path / "b.parquet")
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("g",), min_size=1)
    counted = engines.scored_counts(str(tmp_path / "*.parquet"), mapping, engine=engine)
    rows = pd.concat([pd.read_parquet(tmp_path / "a.parquet"), pd.read_parquet(tmp_path / "b.parquet")],
                     ignore_index=True).astype({"y": "int64", "score": "float64"})
    scored = fc.ScoredData.from_frame(rows, mapping)
    want = fc.confusion_counts(scored.y_true, scored.y_pred("score", 0.5), scored.subgroups).table()
    pd.testing.assert_frame_equal(counted.confusion_at("score", 0.5).table().reset_index(drop=True),
                                  want.reset_index(drop=True), check_dtype=False)
