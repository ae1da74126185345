"""Sources beyond this machine: URIs (Spark reads any, DuckDB and polars the ones they know), the Spark master,
files lacking a column, Spark's errors in words, and CSV booleans read alike by every engine."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core import _cli
from fairness_core.engines import _sources, read_source, scored_counts
from tests.support import ROOT

MAPPING = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("race",), indicators=("id_a",))
FLAGS = ["--label", "y", "--positive", "1", "--score", "score", "--protected", "race", "--identity", "id_a",
         "--no-intervals"]


def _frame(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(np.int64)
    return pd.DataFrame({"y": y, "score": np.clip(rng.random(n) * 0.7 + 0.3 * y, 0, 1),
                         "race": rng.choice(["A", "B", "C"], n), "id_a": (rng.random(n) < 0.2).astype(float)})


def _same_counts(a, b) -> None:
    assert (a.n_input, a.n_rows) == (b.n_input, b.n_rows)
    np.testing.assert_array_equal(a.confusion["score"].member, b.confusion["score"].member)
    np.testing.assert_array_equal(a.confusion["score"].background, b.confusion["score"].background)


@pytest.fixture
def folder(tmp_path):
    path = tmp_path / "logs"
    path.mkdir()
    frame = _frame(600)
    frame.iloc[:300].to_parquet(path / "part-0.parquet", index=False)
    frame.iloc[300:].to_parquet(path / "part-1.parquet", index=False)
    return path, frame


# --- URIs with DuckDB and polars (no Spark) ---

@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_file_uri_is_read_as_its_path_by_duckdb_and_polars(folder, engine):
    path, _ = folder
    local = scored_counts(str(path / "*.parquet"), MAPPING, engine=engine)
    uri = scored_counts(f"file://{path}/*.parquet", MAPPING, engine=engine)
    listed = scored_counts([f"file://{path}/part-0.parquet", f"file://{path}/part-1.parquet"], MAPPING, engine=engine)
    _same_counts(local, uri)
    _same_counts(local, listed)


@pytest.mark.parametrize("engine,source", [("duckdb", "hdfs://namenode/logs/"), ("polars", "hdfs://namenode/logs/"),
                                           ("polars", "s3://bucket/logs/*.parquet"),
                                           ("duckdb", ["wasbs://c@a.blob.core.windows.net/x.parquet"])])
def test_a_uri_the_engine_does_not_read_names_spark(engine, source):
    with pytest.raises(ValueError, match=r"does not read (hdfs|s3|wasbs):// URIs .*--engine spark"):
        scored_counts(source, MAPPING, engine=engine)


def test_the_command_line_names_spark_for_an_hdfs_uri_with_duckdb(capsys):
    assert _cli.main(["metrics", "hdfs://namenode/logs/", "--engine", "duckdb", *FLAGS]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: DuckDB does not read hdfs:// URIs") and "--engine spark" in err
    assert "\n" not in err


# --- URIs with Spark, the file system mocked (no HDFS here) ---

class _FakeFrame:
    def __init__(self, files):
        self._files = files

    def inputFiles(self):
        return list(self._files)


class _FakeSpark:
    """What read_source asks of a session for Parquet URIs: read.parquet(*uris) and the files it lists."""

    def __init__(self, listing):
        self.listing, self.read_uris = listing, []
        self.read = self

    def parquet(self, *uris):
        self.read_uris.extend(uris)
        return _FakeFrame(self.listing)


def test_spark_gets_a_uri_without_a_local_check(monkeypatch):
    files = ["hdfs://namenode/logs/part-0.parquet", "hdfs://namenode/logs/part-1.parquet"]
    spark = _FakeSpark(files)
    monkeypatch.setattr(_sources, "spark_session", lambda master=None: spark)
    monkeypatch.setattr(_sources, "_python_glob", lambda p: pytest.fail(f"a local glob of {p!r}"))
    monkeypatch.setattr(_sources.os.path, "isdir", lambda p: pytest.fail(f"a local check of {p!r}"))
    monkeypatch.setattr(_sources, "_parquet_columns", lambda s, f: ["y", "score", "race"])
    frame = read_source("hdfs://namenode/logs/", "spark")
    assert spark.read_uris == ["hdfs://namenode/logs/"] and frame.inputFiles() == files
    # a file of the folder without a column: refused, naming it (Spark would read the column as NULL there)
    monkeypatch.setattr(_sources, "_parquet_columns", lambda s, f: ["y", "score"] + (["race"] if "0" in f else []))
    with pytest.raises(ValueError, match=r"'hdfs://namenode/logs/part-1.parquet' lacks 'race'"):
        read_source("hdfs://namenode/logs/", "spark")


def test_the_command_line_gives_spark_the_uri_and_the_master(monkeypatch, capsys):
    seen = {}

    def fake_read_source(path, engine, master=None):
        seen.update(path=path, engine=engine, master=master)
        raise ValueError("stop here")

    class Session:   # the session the command line starts (to quiet Spark's logs) before reading
        class sparkContext:
            @staticmethod
            def setLogLevel(level):
                seen["level"] = level

    def fake_session(master=None):
        seen["session_master"] = master
        return Session

    monkeypatch.setattr(_sources, "spark_session", fake_session)
    monkeypatch.setattr(_sources, "read_source", fake_read_source)
    for uri in ("hdfs://namenode/logs/", "file:///data/logs/"):
        assert _cli.main(["metrics", uri, "--engine", "spark", "--spark-master", "spark://127.0.0.1:7077",
                          *FLAGS]) == 2
        assert seen == {"path": uri, "engine": "spark", "master": "spark://127.0.0.1:7077",
                        "session_master": "spark://127.0.0.1:7077", "level": "FATAL"}
        assert capsys.readouterr().err == "error: stop here\n"


def test_the_spark_master_flag_needs_the_spark_engine(capsys, tmp_path):
    assert _cli.main(["metrics", str(tmp_path / "x.parquet"), "--engine", "duckdb", "--spark-master", "yarn",
                      *FLAGS]) == 2
    assert "--spark-master URL sets the master of the Spark session" in capsys.readouterr().err


def test_the_help_documents_the_spark_master():
    out = subprocess.run([sys.executable, "-m", "fairness_core", "report", "--help"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60).stdout
    assert "--spark-master URL" in out and "SPARK_MASTER" in out and "hdfs://" in out


def test_the_cluster_script_has_help():
    out = subprocess.run([sys.executable, "benchmarks/spark_cluster.py", "--help"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and "--rows" in out.stdout and "spark-submit" in out.stdout


# --- CSV booleans ---

@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_csv_true_false_columns_are_booleans_for_every_engine(tmp_path, engine):
    """A true/false label and identity column: DuckDB (which reads them as text without BOOLEAN guesses) and
    polars count what the in-memory reader counts; yes/no words in another column stay text."""
    frame = _frame(400, seed=4)
    text = pd.DataFrame({"y": np.where(frame["y"] == 1, "true", "false"), "score": frame["score"],
                         "race": frame["race"], "id_a": np.where(frame["id_a"] == 1, "True", "False"),
                         "note": np.where(frame["score"] > 0.5, "yes", "no")})
    path = tmp_path / "logs.csv"
    text.to_csv(path, index=False)
    rows = fc.read_table(path)
    assert rows["y"].dtype == bool and rows["note"].dtype != bool
    mapping = fc.ColumnMapping(label="y", positive_label=True, scores=("score",), protected=("race", "note"),
                               indicators=("id_a",))
    scored = fc.ScoredData.from_frame(rows, mapping)
    result = scored_counts(str(path), mapping, engine=engine)
    assert result.n_rows == scored.n_rows
    ref = fc.confusion_counts(scored.y_true, scored.y_pred("score", 0.5), scored.subgroups)
    assert result.confusion["score"].names == ref.names
    np.testing.assert_array_equal(result.confusion["score"].member, ref.member)
    np.testing.assert_array_equal(result.confusion["score"].background, ref.background)


# --- Spark in local mode ---



@pytest.mark.spark
def test_spark_reads_a_file_uri_as_duckdb_reads_the_folder(spark, folder, capsys):
    path, _ = folder
    duck = scored_counts(str(path), MAPPING)
    frame = read_source(f"file://{path}", "spark")
    assert sorted(frame.inputFiles()) == [f"file://{path}/part-0.parquet", f"file://{path}/part-1.parquet"]
    _same_counts(scored_counts(f"file://{path}/*.parquet", MAPPING, engine="spark"), duck)   # read_source inside
    csv = path.parent / "csv"   # CSV files under a URI glob: each read alone, combined by column name
    csv.mkdir()
    small = _frame(30)
    small.to_csv(csv / "a.csv", index=False)
    small[["race", "y", "score", "id_a"]].to_csv(csv / "b.csv", index=False)
    both = read_source(f"file://{csv}/*.csv", "spark").select("race").collect()
    assert sorted(r.race for r in both) == sorted(list(small["race"]) * 2)
    out = path.parent / "review.json"   # the command line, on the active session
    assert _cli.main(["metrics", f"file://{path}/*.parquet", "--engine", "spark", *FLAGS, "--out", str(out)]) in (0, 1)
    assert "models" in json.loads(out.read_text())


@pytest.mark.spark
def test_spark_refuses_files_lacking_a_mapped_column(spark, folder):
    path, frame = folder
    frame.iloc[:100].drop(columns="race").to_parquet(path / "part-2.parquet", index=False)
    with pytest.raises(ValueError, match=r"part-2\.parquet' lacks 'race'"):
        read_source(f"file://{path}", "spark")
    with pytest.raises(ValueError, match=r"1 of the 3 files read lack the column\(s\) 'race'.*part-2\.parquet"):
        scored_counts(spark.read.parquet(str(path)), MAPPING)
    scored_counts(spark.read.parquet(str(path)).select("y", "score", "race", "id_a"), MAPPING)   # not a plain read


@pytest.mark.spark
def test_spark_errors_are_said_in_words(spark, tmp_path, capsys):
    frame = _frame(50).astype({"score": str})
    frame.loc[7, "score"] = "n/a"
    frame.to_parquet(tmp_path / "text.parquet", index=False)
    with pytest.raises(ValueError, match=r"the column 'score' holds the value 'n/a' of type \"STRING\", which is not "
                                         r"a number .*Tip: a score or identity column must hold numbers"):
        scored_counts(spark.read.parquet(str(tmp_path / "text.parquet")), MAPPING)
    assert _cli.main(["metrics", str(tmp_path / "text.parquet"), "--engine", "spark", *FLAGS]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Spark could not compute the counts: the column 'score'") and err.count("\n") == 1
    with pytest.raises(ValueError, match=r"Spark could not read .*PATH_NOT_FOUND.*Tip: check the path"):
        read_source(f"file://{tmp_path}/absent/", "spark")


def test_a_spark_error_without_a_condition_is_said_with_a_tip_for_its_file_system():
    class Py4JJavaError(Exception):   # as py4j raises it when pyspark does not convert the Java exception
        java_exception = None

    Py4JJavaError.__module__ = "py4j.protocol"
    error = _sources.spark_error(Py4JJavaError("java.lang.ClassNotFoundException: Class "
                                               "org.apache.hadoop.fs.s3a.S3AFileSystem not found"), "read 's3a://b/x/'")
    assert str(error).startswith("Spark could not read 's3a://b/x/': java.lang.ClassNotFoundException")
    assert "no file system for s3a://" in str(error) and "hadoop-aws" in str(error)
    assert _sources.spark_error(KeyError("x"), "read") is None   # not Spark's: raised as it is
