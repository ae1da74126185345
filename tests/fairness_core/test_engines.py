"""fairness_core.engines: count tables computed by DuckDB and Spark equal the in-memory ones."""

import dataclasses
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._metrics.auc_counts import auc_counts
from fairness_core.engines import scored_counts

N = 100_000
IDS = ("id_a", "id_b", "id_c")
MAPPING = fc.ColumnMapping(label="label", positive_label="yes", scores=("score", "coarse"),
                           protected=("race", "sex"), indicators=IDS, min_size=30)
AUCS = ["subgroup_auc", "bpsn_auc", "bnsp_auc"]


def _frame(n: int, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    race = rng.choice(["Black", "White", "Asian", "O'Neil \"quoted\"", None], n, p=[0.3, 0.4, 0.15, 0.1, 0.05])
    y = rng.random(n) < 0.25 + 0.15 * (race == "Black")
    frame = pd.DataFrame({
        "race": race, "sex": rng.choice([1, 2], n),
        "label": np.where(y, "yes", "no").astype(object),
        "score": np.clip(rng.beta(2, 4, n) + 0.2 * y, 0, 1).astype(np.float32),
        "coarse": np.round(rng.random(n) * 0.6 + 0.3 * y, 2),   # heavy ties
    })
    for j, col in enumerate(IDS):
        frame[col] = (rng.random(n) < 0.1 * (j + 1)).astype(float)
    frame.loc[rng.random(n) < 0.02, "id_b"] = np.nan
    frame.loc[rng.random(n) < 0.01, "label"] = None
    frame.loc[rng.random(n) < 0.01, "score"] = np.nan
    frame.loc[rng.random(n) < 0.005, "coarse"] = np.inf
    return frame


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """The same 10^5 rows in memory and as two Parquet files (read through a glob)."""
    frame = _frame(N)
    folder = tmp_path_factory.mktemp("logs")
    half = N // 2
    frame.iloc[:half].to_parquet(folder / "part-0.parquet", index=False)
    frame.iloc[half:].to_parquet(folder / "part-1.parquet", index=False)
    return frame, str(folder / "*.parquet"), fc.ScoredData.from_frame(frame, MAPPING)


def _assert_counts_equal(result, scored, threshold: float = 0.5) -> None:
    """Every count table of `result` equals the in-memory library's on `scored` (sums to 1e-12 relative)."""
    assert result.n_rows == scored.n_rows
    assert dict(zip(result.exclusions["reason"], result.exclusions["rows"])) == dict(
        zip(scored.exclusions["reason"], scored.exclusions["rows"]))
    for score in MAPPING.scores:
        ref = fc.confusion_counts(scored.y_true, scored.y_pred(score, threshold), scored.subgroups)
        got = result.confusion[score]
        assert got.names == ref.names
        for side in ("member", "background", "overall"):
            np.testing.assert_array_equal(getattr(got, side), getattr(ref, side))
        np.testing.assert_allclose(got.table()["false_positive_rate"], ref.table()["false_positive_rate"],
                                   rtol=1e-12, equal_nan=True)
        cal = fc.calibration_counts(scored.y_true, scored.scores[score], scored.subgroups, n_bins=10)
        got_cal = result.calibration[score]
        for side in ("member", "background", "overall"):
            np.testing.assert_allclose(getattr(got_cal, side), getattr(cal, side), rtol=1e-12, atol=0)
        np.testing.assert_allclose(got_cal.error_table()["ece"], cal.error_table()["ece"], rtol=1e-12,
                                   equal_nan=True)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_exact_counts_equal_the_in_memory_library(logs, engine):
    frame, glob, scored = logs
    result = scored_counts(glob, MAPPING, threshold=0.5, auc_bins="exact", engine=engine)
    assert result.engine == engine and result.n_input == N
    _assert_counts_equal(result, scored)
    for score in MAPPING.scores:
        ref = fc.bias_auc_table(scored.y_true, scored.scores[score], scored.subgroups)
        table = result.auc[score].table()
        for column in AUCS:
            np.testing.assert_allclose(table[column], ref[column], rtol=0, atol=1e-12)
        assert table.attrs["overall_auc"] == pytest.approx(ref.attrs["overall_auc"], abs=1e-12)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_binned_aucs_equal_the_in_memory_bins_and_lie_within_their_bound(logs, engine):
    frame, glob, scored = logs
    result = scored_counts(glob, MAPPING, auc_bins=1000, engine=engine)
    for score in MAPPING.scores:
        memory = auc_counts(scored.y_true, scored.scores[score], scored.subgroups, bins=1000)
        got = result.auc[score]
        np.testing.assert_array_equal(got.edges, memory.edges)
        assert (got.member != memory.member).nnz == 0 and (got.background != memory.background).nnz == 0
        exact = fc.bias_auc_table(scored.y_true, scored.scores[score], scored.subgroups)
        table = got.table()
        for column in AUCS:
            assert ((table[column] - exact[column]).abs() <= table[f"{column}_max_binning_error"] + 1e-12).all()


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_threshold_change_is_read_off_the_counts_or_queried_again(logs, engine):
    frame, glob, scored = logs
    result = scored_counts(glob, MAPPING, auc_bins=200, engine=engine)
    edges = result.auc["score"].edges
    # On a bin edge (read off the AUC counts); between edges, in the last bin and at the largest score (the
    # counts at the edge above, plus the rows between the threshold and that edge, counted by the engine).
    for t in (float(edges[57]), 0.4321, float(edges[-2]) + 1e-9, float(edges[-1]), -5.0, 7.0):
        ref = fc.confusion_counts(scored.y_true, scored.y_pred("score", t), scored.subgroups)
        np.testing.assert_array_equal(result.confusion_at("score", t).member, ref.member)


def test_a_duckdb_relation_a_table_name_and_a_polars_frame_are_sources(logs):
    import duckdb

    frame, glob, scored = logs
    con = duckdb.connect()
    con.execute(f"CREATE TABLE logs AS SELECT * FROM read_parquet('{glob}')")
    by_name = scored_counts("logs", MAPPING, connection=con, auc_bins="exact")
    by_relation = scored_counts(con.table("logs"), MAPPING, connection=con, auc_bins="exact")
    import polars as pl

    by_lazy_frame = scored_counts(pl.scan_parquet(glob), MAPPING, auc_bins="exact")   # polars picked for it
    assert by_lazy_frame.engine == "polars"
    for result in (by_name, by_relation, by_lazy_frame):
        np.testing.assert_array_equal(result.confusion["score"].member,
                                      fc.confusion_counts(scored.y_true, scored.y_pred("score", 0.5),
                                                          scored.subgroups).member)


@pytest.mark.parametrize("change, message", [
    (dict(label="nope"), "Column 'nope' (the label) is not in the data"),
    (dict(positive_label="maybe"), "The positive label 'maybe' does not occur in the label column 'label'"),
    (dict(label="race", positive_label="Black", protected=("sex",)), "must have exactly two values"),
    (dict(predicted_label="score_id"), "The predicted label column 'score_id' must have two values"),
    (dict(predicted_label="decision"), "Cannot tell which value of the predicted label column 'decision'"),
])
def test_bad_mappings_get_the_in_memory_messages(tmp_path, change, message):
    frame = _frame(3000)
    frame["score_id"] = np.arange(3000) % 1000
    frame["decision"] = np.where(np.arange(3000) % 3 == 0, "approve", "deny")
    frame.to_parquet(tmp_path / "x.parquet", index=False)
    mapping = fc.ColumnMapping(**{**MAPPING.__dict__, **change})
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        scored_counts(str(tmp_path / "x.parquet"), mapping)


def test_identity_values_outside_the_unit_interval_are_refused(tmp_path):
    frame = _frame(500)
    frame.loc[3, "id_a"] = 2.0
    frame.to_parquet(tmp_path / "x.parquet", index=False)
    with pytest.raises(ValueError, match="id_a"):
        scored_counts(str(tmp_path / "x.parquet"), MAPPING)


def test_a_glob_matching_nothing_says_so(tmp_path):
    with pytest.raises(ValueError, match="no file matches"):
        scored_counts(str(tmp_path / "*.parquet"), MAPPING)


def test_import_fairness_core_loads_no_engine():
    import subprocess
    import sys

    code = ("import sys, fairness_core; "
            "print(sorted(m for m in ('duckdb', 'pyspark', 'polars', 'sqlglot', 'fairness_core.engines') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


@pytest.mark.spark
def test_spark_local_mode_counts_equal_the_in_memory_library(spark, logs, tmp_path):
    from fairness_core.engines import read_source

    frame, glob, scored = logs
    result = scored_counts(spark.read.parquet(glob.rsplit("/", 1)[0]), MAPPING, auc_bins="exact")
    assert result.engine == "spark"
    _assert_counts_equal(result, scored)
    ref = fc.bias_auc_table(scored.y_true, scored.scores["score"], scored.subgroups)
    np.testing.assert_allclose(result.auc["score"].table()["bpsn_auc"], ref["bpsn_auc"], rtol=0, atol=1e-12)
    # the transpiled SQL of binned numeric attributes (infinities, NaN), a predicted label, quantile bins
    rng = np.random.default_rng(8)
    rich = frame.iloc[:5_000].reset_index(drop=True)   # a few rows: this checks the SQL, the rest checks counts
    rich = rich.assign(age=rng.integers(18, 90, len(rich)).astype(float),
                       decision=np.where(rng.random(len(rich)) < 0.4, "yes", "no").astype(object))
    rich.loc[:3, "age"] = [np.inf, -np.inf, np.nan, np.inf]
    mapping = dataclasses.replace(MAPPING, protected=("race", "age"), predicted_label="decision")
    rows = fc.ScoredData.from_frame(rich, mapping)
    rich.to_parquet(tmp_path / "rich.parquet", index=False)   # (createDataFrame warns about pandas 3)
    result = scored_counts(spark.read.parquet(str(tmp_path / "rich.parquet")), mapping, auc_bins="exact",
                           strategy="quantile")
    assert result.confusion["score"].names == rows.subgroups.names
    np.testing.assert_array_equal(result.given.member,
                                  fc.confusion_counts(rows.y_true, rows.y_pred(), rows.subgroups).member)
    cal = fc.calibration_counts(rows.y_true, rows.scores["score"], rows.subgroups, strategy="quantile")
    np.testing.assert_array_equal(result.calibration["score"].edges, cal.edges)
    atoms = result.with_atoms()   # the transpiled pattern queries: the bootstrap's atoms, pattern for pattern
    _assert_atoms_equal(atoms.confusion["score"].atoms,
                        fc.confusion_counts(rows.y_true, rows.y_pred("score", 0.5), rows.subgroups).atoms)
    _assert_atoms_equal(atoms.auc["score"].patterns[0],
                        auc_counts(rows.y_true, rows.scores["score"], rows.subgroups).patterns[0])
    _assert_atoms_equal(atoms.calibration["score"].atoms.atoms, cal.atoms.atoms)
    # read_source: exactly the files named ('a[1]' beside 'a1', '*' in a name, a folder 'lin[k]_out' beside a
    # link 'link_out' out of it), and CSV files combined by column name
    (tmp_path / "names" / "lin[k]_out").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    parts = {"a1.parquet": rich.iloc[:100], "a[1].parquet": rich.iloc[100:400], "b*.parquet": rich.iloc[400:470],
             "bz.parquet": rich.iloc[:9], "lin[k]_out/x.parquet": rich.iloc[:3], "../outside/x.parquet": rich}
    for name, part in parts.items():
        part.to_parquet(tmp_path / "names" / name, index=False)
    (tmp_path / "names" / "link_out").symlink_to(tmp_path / "outside", target_is_directory=True)
    read = read_source([str(tmp_path / "names" / n) for n in list(parts)[:3] + ["lin[k]_out/x.parquet"]], "spark")
    assert read.count() == 473
    small = pd.DataFrame({"y": [1, 0, 1], "race": ["A", "B", "A"], "sex": ["F", "M", "M"]})
    small.to_csv(tmp_path / "p1.csv", index=False)
    small[["y", "sex", "race"]].to_csv(tmp_path / "p2.csv", index=False)
    rows = read_source(str(tmp_path / "p*.csv"), "spark").select("y", "race", "sex").collect()
    assert sorted(tuple(r) for r in rows) == sorted([tuple(r) for r in small.itertuples(index=False)] * 2)
    small.rename(columns={"sex": "gender"}).to_csv(tmp_path / "p2.csv", index=False)
    with pytest.raises(ValueError, match=r"p2\.csv' has 'gender' and lacks 'sex' compared with '.*p1\.csv'"):
        read_source([str(tmp_path / "p1.csv"), str(tmp_path / "p2.csv")], "spark")


@pytest.mark.parametrize("ci", [None, 0.9])
def test_a_review_from_engine_counts_equals_the_in_memory_review(logs, ci):
    """Without intervals from the counts; with them (ci) from the counts' atoms: the same intervals, seed 0."""
    frame, glob, scored = logs
    # the configuration's own minimum size and calibration bins apply, not the counts'
    min_size = int(np.median(scored.subgroups.sizes)) + 1
    config = dataclasses.replace(fc.ReviewConfig(mapping=dataclasses.replace(MAPPING, min_size=min_size)), ci=ci,
                                 n_boot=200, thresholds=(("score", 0.4),), cal_n_bins=7)
    memory = fc.build_review(frame, config)
    counts = scored_counts(glob, MAPPING, threshold=0.4, auc_bins="exact")
    engine = fc.build_review_from_counts(counts.with_atoms() if ci else counts, config)
    assert (engine.config.ci == ci) and any("confidence intervals" in n for n in engine.source["not_computed"]) != bool(ci)
    assert memory.subgroups["small"].any() and not memory.subgroups["small"].all()
    assert [m.name for m in engine.models] == [m.name for m in memory.models]
    for got, want in zip(engine.models, memory.models):
        assert got.threshold == want.threshold
        pd.testing.assert_frame_equal(got.rate_table, want.rate_table, rtol=1e-12)
        pd.testing.assert_frame_equal(got.performance, want.performance, rtol=1e-12)
        for column in AUCS:
            np.testing.assert_allclose(got.auc_table[column], want.auc_table[column], rtol=0, atol=1e-12)
        assert got.bias_auc.value == pytest.approx(want.bias_auc.value, abs=1e-12)
        assert (got.bias_auc.ci_low, got.bias_auc.ci_high) == pytest.approx(
            (want.bias_auc.ci_low, want.bias_auc.ci_high), abs=1e-12, nan_ok=True)
        pd.testing.assert_frame_equal(got.calibration.table, want.calibration.table, rtol=1e-9)
        assert [v.status for v in got.verdicts] == [v.status for v in want.verdicts]
        assert got.findings == want.findings
    assert engine.dataset_findings == memory.dataset_findings
    assert engine.base_rate[0] == pytest.approx(memory.base_rate[0], abs=1e-15)
    pd.testing.assert_frame_equal(engine.subgroups, memory.subgroups, check_dtype=False)
    assert "kNN consistency" in engine.source["not_computed"]
    if memory.edf is None:   # overlapping subgroups: no EDF either way
        assert engine.edf is None
    else:
        assert engine.edf.value == pytest.approx(memory.edf.value, abs=1e-12)
        pd.testing.assert_frame_equal(engine.edf.table, memory.edf.table, check_dtype=False)


def test_the_command_line_writes_the_report_from_a_parquet_glob_with_duckdb(logs, tmp_path):
    from fairness_core._cli import main

    frame, glob, scored = logs
    out = tmp_path / "review.html"
    status = main(["report", glob, "--engine", "duckdb", "--label", "label", "--positive", "yes", "--score", "score",
                   "--protected", "race", "--identity", "id_a", "--threshold", "0.4", "--out", str(out)])
    assert status in (0, 1)
    html = out.read_text(encoding="utf-8")
    assert "plotly" in html.lower() and "id_a" in html and "O&#x27;Neil" in html
    assert "Computed by</th><td>duckdb, from count tables" in html and "not computed: kNN consistency" in html
    not_computed = re.search(r"not computed: ([^<]*)", html).group(1)
    assert "intervals" not in not_computed and "95 % CI" in html   # intervals from the counts' atoms
    assert main(["metrics", glob, "--engine", "duckdb", "--label", "nope", "--score", "score",
                 "--protected", "race"]) == 2
    polars_out = tmp_path / "review-polars.html"
    assert main(["report", glob, "--engine", "polars", "--label", "label", "--positive", "yes", "--score", "score",
                 "--protected", "race", "--identity", "id_a", "--threshold", "0.4", "--no-intervals",
                 "--out", str(polars_out)]) in (0, 1)
    html = polars_out.read_text(encoding="utf-8")
    assert "Computed by</th><td>polars, from count tables" in html and "confidence intervals (the counts" in html
    assert 'class="note">no interval was available' not in html   # said once, in each verdict's sentence
    import duckdb

    database = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute(f"CREATE TABLE predictions AS SELECT * FROM read_parquet('{glob}')")
    table_out = tmp_path / "review-table.json"
    assert main(["metrics", str(database), "--table", "predictions", "--engine", "duckdb", "--label", "label",
                 "--positive", "yes", "--score", "score", "--protected", "race", "--out", str(table_out)]) in (0, 1)
    assert '"name": "warehouse.duckdb: predictions"' in table_out.read_text(encoding="utf-8")
    assert main(["metrics", str(database), "--table", "nope", "--engine", "duckdb", "--label", "label",
                 "--score", "score", "--protected", "race"]) == 2   # an unknown table: bad input, not a defect


def test_counts_the_app_reads_equal_the_in_memory_ones(logs):
    """What the pages of "Data on this machine" read: label counts (base rates, smoothed EDF), calibration at
    other bins, class-wise counts at a threshold, and the preview and random sample."""
    frame, glob, scored = logs
    result = scored_counts(glob, MAPPING, auc_bins=50)
    labels = fc.confusion_counts(scored.y_true, scored.y_true, scored.subgroups)
    got = result.label_counts()
    for side in ("member", "background", "overall"):
        np.testing.assert_array_equal(getattr(got, side), getattr(labels, side))
    pd.testing.assert_frame_equal(fc.base_rates_from_counts(got, ci=0.9),
                                  fc.base_rates(scored.y_true, scored.subgroups, ci=0.9))
    with pytest.raises(ValueError, match="overlap"):   # identity columns: the counts cannot say who is shared
        fc.smoothed_edf_from_counts(got)
    disjoint = dataclasses.replace(MAPPING, indicators=())
    rows = fc.ScoredData.from_frame(frame, disjoint)
    plain = scored_counts(glob, disjoint)
    edf = fc.smoothed_edf_from_counts(plain.label_counts(), concentration=2.0)
    want = fc.smoothed_edf(rows.y_true, rows.subgroups, concentration=2.0)
    assert (edf.value, edf.pair, edf.outcome) == (pytest.approx(want.value, abs=1e-12), want.pair, want.outcome)
    pd.testing.assert_frame_equal(edf.table, want.table)
    with pytest.raises(ValueError, match="counts per membership pattern"):   # intervals need the atoms
        fc.smoothed_edf_from_counts(plain.label_counts(), ci=0.9)
    kw = dict(ci=0.9, n_boot=300, random_state=5)
    edf, want = (fc.smoothed_edf_from_counts(plain.with_atoms().label_counts(), **kw),
                 fc.smoothed_edf(rows.y_true, rows.subgroups, **kw))
    assert (edf.value, edf.ci_low, edf.ci_high) == pytest.approx((want.value, want.ci_low, want.ci_high), abs=1e-12)
    with pytest.raises(ValueError, match="labels counted against themselves"):
        fc.base_rates_from_counts(result.confusion["score"])

    for bins in (10, 7):   # the counts' own bins, then counted again by the engine
        cal = result.calibration_at("score", bins)
        ref = fc.calibration_counts(scored.y_true, scored.scores["score"], scored.subgroups, n_bins=bins)
        np.testing.assert_array_equal(cal.edges, ref.edges)
        np.testing.assert_allclose(cal.member, ref.member, rtol=1e-12, atol=1e-9)
    assert result.calibration_at("coarse", 7) is not None
    with pytest.raises(ValueError, match="n_bins"):
        result.calibration_at("score", 0)

    for threshold in (0.3, 0.42):
        got = result.class_counts_at("score", threshold)
        want = scored.class_counts("score", threshold)
        assert (got.names, got.labels) == (want.names, want.labels)
        np.testing.assert_array_equal(got.member, want.member)
        pd.testing.assert_frame_equal(got.table(), want.table())
    assert result.class_names == scored.class_names == ["no", "yes"]
    negative_first = dataclasses.replace(MAPPING, positive_label="no")   # the positive class sorts first
    got = scored_counts(glob, negative_first).class_counts_at("score", 0.42)
    want = fc.ScoredData.from_frame(frame, negative_first).class_counts("score", 0.42)
    np.testing.assert_array_equal(got.member, want.member)
    np.testing.assert_array_equal(got.overall, want.overall)

    first = fc.engines.preview(glob, 100)
    sample = fc.engines.preview(glob, 1_000, sample=True)
    assert len(first) == 100 and len(sample) == 1_000 and list(sample.columns) == list(frame.columns)
    pd.testing.assert_frame_equal(sample, fc.engines.preview(glob, 1_000, sample=True))   # seeded: the same rows
    assert not sample["score"].head(100).equals(first["score"])   # not the first rows


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_csv_source_is_read_as_the_in_memory_reader_reads_it(tmp_path, engine):
    """yes/no labels stay text (DuckDB's sniffer would make them booleans); quotes and missing values as in memory."""
    frame = _frame(5_000, seed=3)
    path = tmp_path / "logs.csv"
    frame.to_csv(path, index=False)
    rows = fc.ScoredData.from_frame(fc.read_table(path), MAPPING)
    result = scored_counts(str(path), MAPPING, auc_bins="exact", engine=engine)
    _assert_counts_equal(result, rows)
    assert set(result.label_values) == {"no", "yes"}


def ibis_tables(frame, glob: str, tmp_path) -> tuple:
    """(the Parquet files through ibis' DuckDB backend, `frame` as an ibis SQLite table): an ibis table on two
    backends. A missing ibis fails under CI (the test extra installs it) and skips elsewhere."""
    import sqlite3

    from tests.support import fail_or_skip

    try:
        import ibis
    except ImportError:   # an optional extra that make test installs: CI must run this, not skip it
        fail_or_skip("ibis is not installed (pyproject.toml's test extra installs ibis-framework[duckdb]).")
    with warnings.catch_warnings():   # ibis 12's own DuckDB backend calls an API DuckDB 2.0 deprecates
        warnings.filterwarnings("ignore", "fetch_arrow_table", DeprecationWarning)
        duck = ibis.duckdb.connect().read_parquet(glob)
    database = tmp_path / "logs.sqlite"
    with sqlite3.connect(database) as raw:
        frame.to_sql("logs", raw, index=False)
    return duck, ibis.sqlite.connect(str(database)).table("logs")


def test_an_ibis_table_is_counted_by_its_own_backend(logs, tmp_path):
    """The same SQL, transpiled by SQLGlot to the ibis backend's dialect: DuckDB through ibis, and SQLite."""
    frame, glob, scored = logs
    duck, lite = ibis_tables(frame, glob, tmp_path)
    for table, name in ((duck, "ibis (duckdb)"), (lite, "ibis (sqlite)")):
        result = scored_counts(table, MAPPING, auc_bins="exact")
        assert result.engine == name
        _assert_counts_equal(result, scored)
        ref = fc.bias_auc_table(scored.y_true, scored.scores["score"], scored.subgroups)
        np.testing.assert_allclose(result.auc["score"].table()["bpsn_auc"], ref["bpsn_auc"], rtol=0, atol=1e-12)


def test_a_predicted_label_column_is_counted_as_in_memory(logs, tmp_path):
    """Its positive value found as ScoredData finds it, rows missing it excluded after the scores, its confusion
    and class-wise counts, and the review's model of it; also a mapping with no score column at all."""
    frame, _, _ = logs
    rng = np.random.default_rng(5)
    frame = frame.assign(decision=np.where(rng.random(len(frame)) < 0.4, "yes", "no").astype(object))
    frame.loc[rng.random(len(frame)) < 0.01, "decision"] = None
    path = tmp_path / "decisions.parquet"
    frame.to_parquet(path, index=False)
    for mapping in (dataclasses.replace(MAPPING, predicted_label="decision"),
                    dataclasses.replace(MAPPING, predicted_label="decision", scores=())):
        rows = fc.ScoredData.from_frame(frame, mapping)
        result = scored_counts(str(path), mapping, auc_bins="exact")
        assert dict(zip(result.exclusions["reason"], result.exclusions["rows"])) == dict(
            zip(rows.exclusions["reason"], rows.exclusions["rows"]))
        want = fc.confusion_counts(rows.y_true, rows.y_pred(), rows.subgroups)
        for side in ("member", "background", "overall"):
            np.testing.assert_array_equal(getattr(result.given, side), getattr(want, side))
            np.testing.assert_array_equal(getattr(result.label_counts(), side),
                                          getattr(fc.confusion_counts(rows.y_true, rows.y_true, rows.subgroups), side))
        np.testing.assert_array_equal(result.class_counts_at().member, rows.class_counts().member)
        config = dataclasses.replace(fc.ReviewConfig(mapping=mapping), ci=None)
        memory, engine = fc.build_review(frame, config), fc.build_review_from_counts(result, config)
        assert [m.name for m in engine.models] == [m.name for m in memory.models]
        pd.testing.assert_frame_equal(engine.models[-1].rate_table, memory.models[-1].rate_table, rtol=1e-12)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_numeric_protected_attributes_are_cut_into_the_in_memory_quantile_bins(tmp_path, engine):
    """Quantile edges from the engine's histogram equal numpy's on the rows (ties, a missing value, NaN and
    infinities included), so names, order and every count are the in-memory ones; intersected with race."""
    frame = _frame(20_000, seed=8)
    rng = np.random.default_rng(8)
    frame["age"] = rng.integers(18, 90, len(frame)).astype(float)
    frame.loc[rng.random(len(frame)) < 0.01, "age"] = np.nan
    frame.loc[:3, "age"] = [np.inf, -np.inf, 1e9, np.inf]
    frame["income"] = np.round(rng.lognormal(10, 0.6, len(frame)), 2)
    path = tmp_path / "ages.parquet"
    frame.to_parquet(path, index=False)
    for protected, n_bins in ((("age",), 4), (("race", "income"), 3)):
        mapping = dataclasses.replace(MAPPING, protected=protected, n_bins=n_bins, indicators=("id_a",))
        rows = fc.ScoredData.from_frame(frame, mapping)
        result = scored_counts(str(path), mapping, auc_bins="exact", engine=engine)
        assert result.confusion["score"].names == rows.subgroups.names
        _assert_counts_equal(result, rows)
        if protected == ("age",):   # the infinities widen the outer bins, the missing ages are their own subgroup
            assert rows.subgroups.names[0].startswith("[-inf, ") and rows.subgroups.names[3].endswith(", inf]")
            assert rows.subgroups.names[4] == "(missing)"
    edges = fc._subgroups.binning.quantile_edges_from_counts([3.0, 1.0, 2.0, np.nan, np.inf], [2, 5, 1, 4, 1], 4)
    values = np.array([3.0] * 2 + [1.0] * 5 + [2.0])
    np.testing.assert_array_equal(edges, np.concatenate([np.unique(np.quantile(values, np.linspace(0, 1, 5)))[:-1],
                                                         [np.inf]]))


def test_a_numeric_attribute_with_too_many_values_to_read_is_refused(tmp_path, monkeypatch):
    import fairness_core.engines._scored_counts as engines

    frame = _frame(3000)
    frame["score_id"] = np.arange(3000) % 1000
    frame.to_parquet(tmp_path / "x.parquet", index=False)
    monkeypatch.setattr(engines, "MAX_HISTOGRAM", 999)
    with pytest.raises(ValueError, match="'score_id' is numeric with 1,000 distinct values, more than scored_counts"):
        scored_counts(str(tmp_path / "x.parquet"), dataclasses.replace(MAPPING, protected=("score_id",)))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_quantile_calibration_bins_equal_the_in_memory_ones(logs, engine):
    frame, glob, scored = logs
    result = scored_counts(glob, MAPPING, n_bins=7, strategy="quantile", engine=engine)
    for bins, counts in ((7, result.calibration["coarse"]), (5, result.calibration_at("score", 5, "quantile"))):
        score = "coarse" if bins == 7 else "score"
        ref = fc.calibration_counts(scored.y_true, scored.scores[score], scored.subgroups, n_bins=bins,
                                    strategy="quantile")
        np.testing.assert_array_equal(counts.edges, ref.edges)   # ties: "coarse" has few distinct scores
        for side in ("member", "background", "overall"):
            np.testing.assert_allclose(getattr(counts, side), getattr(ref, side), rtol=1e-12, atol=1e-9)
        assert counts.strategy == "quantile"
    assert result.calibration_at("score", 10, "uniform").strategy == "uniform"


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_multi_class_label_is_counted_as_in_memory(tmp_path, engine):
    """all_classes: binary metrics on the positive class against the rest, class-wise counts of every class
    against the predicted label column, the classes' sizes, and the review's class-wise bias."""
    frame = _frame(20_000, seed=4)
    rng = np.random.default_rng(4)
    frame["grade"] = rng.choice(["A", "B", "C", "D"], len(frame), p=[0.4, 0.3, 0.2, 0.1]).astype(object)
    frame["grade_hat"] = np.where(rng.random(len(frame)) < 0.7, frame["grade"],
                                  rng.choice(["A", "B", "C", "E"], len(frame))).astype(object)
    frame.loc[rng.random(len(frame)) < 0.01, "grade_hat"] = None
    path = tmp_path / "grades.parquet"
    frame.to_parquet(path, index=False)
    mapping = dataclasses.replace(MAPPING, label="grade", positive_label="A", all_classes=True,
                                  predicted_label="grade_hat")
    rows = fc.ScoredData.from_frame(frame, mapping)
    result = scored_counts(str(path), mapping, auc_bins="exact", engine=engine)
    _assert_counts_equal(result, rows)
    want = rows.class_counts()
    got = result.class_counts_at()
    assert (got.names, list(got.labels)) == (want.names, list(want.labels)) and len(got.labels) == 5
    np.testing.assert_array_equal(got.member, want.member)
    np.testing.assert_array_equal(got.overall, want.overall)
    assert result.class_sizes == pd.Series(rows.classes).value_counts().to_dict()
    with pytest.raises(ValueError, match="two classes"):
        result.class_counts_at("score", 0.5)
    config = dataclasses.replace(fc.ReviewConfig(mapping=mapping), ci=None)
    memory, engine_review = fc.build_review(frame, config), fc.build_review_from_counts(result, config)
    assert engine_review.models[-1].classwise.value == pytest.approx(memory.models[-1].classwise.value, abs=1e-12)
    pd.testing.assert_frame_equal(engine_review.models[-1].classwise.table, memory.models[-1].classwise.table)
    atoms = result.with_atoms().class_counts_at()   # the class-wise bootstrap's atoms, pattern for pattern
    _assert_atoms_equal(atoms.atoms, want.atoms)
    kw = dict(ci=0.9, n_boot=200, random_state=1)
    pd.testing.assert_frame_equal(atoms.table(**kw), want.table(**kw))


def test_exact_levels_of_too_many_distinct_scores_are_refused_before_they_are_read(logs):
    frame, glob, scored = logs
    n_distinct = len(np.unique(scored.scores["score"]))
    assert scored_counts(glob, MAPPING, auc_bins="exact", max_levels=n_distinct).auc["score"].exact
    with pytest.raises(ValueError, match=f"{n_distinct:,} distinct scores"):
        scored_counts(glob, MAPPING, auc_bins="exact", max_levels=n_distinct - 1)
    assert scored_counts(glob, MAPPING, auc_bins=100, max_levels=10).auc["score"].edges is not None   # bins: no check


def _assert_atoms_equal(got, ref) -> None:
    """The same patterns in the same order (so a seed draws the same replicates) with the same counts."""
    np.testing.assert_array_equal(got.member, ref.member)
    np.testing.assert_array_equal(got.background, ref.background)
    np.testing.assert_array_equal(got.counts, ref.counts)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("auc_bins", ["exact", 1000])
@pytest.mark.parametrize("identity", [IDS, ()], ids=["identity columns", "protected only"])
def test_atoms_give_the_in_memory_intervals(logs, engine, auc_bins, identity):
    """with_atoms(): every table holds the in-memory atoms, pattern for pattern, so the bootstrap intervals of
    disparities, AUC power means, ECE and base rates equal the in-memory library's with the same seed; a new
    threshold and new calibration bins are counted with their atoms. With identity columns the atoms come from
    pattern queries; without, a pattern is a protected key and they are summed from the counts queries' rows."""
    frame, glob, scored = logs
    mapping = dataclasses.replace(MAPPING, predicted_label="given", indicators=identity)
    with_given = frame.assign(given=np.where(frame["coarse"] >= 0.5, "yes", "no"))
    folder = glob.rsplit("/", 1)[0] + f"/../given-{engine}-{auc_bins}-{len(identity)}"
    import os
    os.makedirs(folder, exist_ok=True)
    with_given.to_parquet(f"{folder}/part.parquet", index=False)
    scored = fc.ScoredData.from_frame(with_given, mapping)
    plain = scored_counts(f"{folder}/*.parquet", mapping, threshold=0.4, auc_bins=auc_bins, engine=engine)
    result = plain.with_atoms()
    assert result.atoms and not plain.atoms and result.with_atoms() is result
    kw = dict(ci=0.9, n_boot=200, random_state=3)
    for score in mapping.scores:
        ref = fc.confusion_counts(scored.y_true, scored.y_pred(score, 0.4), scored.subgroups)
        got = result.confusion[score]
        _assert_atoms_equal(got.atoms, ref.atoms)
        pd.testing.assert_frame_equal(got.disparity("false_positive_rate", reduction=None, **kw),
                                      ref.disparity("false_positive_rate", reduction=None, **kw))
        moved = result.confusion_at(score, 0.61)
        _assert_atoms_equal(moved.atoms, fc.confusion_counts(scored.y_true, scored.y_pred(score, 0.61),
                                                             scored.subgroups).atoms)
        mem_auc = auc_counts(scored.y_true, scored.scores[score], scored.subgroups,
                             bins=auc_bins if auc_bins == "exact" else int(auc_bins))
        _assert_atoms_equal(result.auc[score].patterns[0], mem_auc.patterns[0])
        assert result.auc[score].patterns[1] == mem_auc.patterns[1]
        got_sum, ref_sum = (c.summarize(**kw) for c in (result.auc[score], mem_auc))
        assert got_sum.power_mean_ci == ref_sum.power_mean_ci and (got_sum.ci_low, got_sum.ci_high) == (
            ref_sum.ci_low, ref_sum.ci_high)
        for n_bins, strategy in ((10, "uniform"), (7, "quantile")):
            cal = fc.calibration_counts(scored.y_true, scored.scores[score], scored.subgroups, n_bins=n_bins,
                                        strategy=strategy)
            got_cal = result.calibration_at(score, n_bins, strategy)
            _assert_atoms_equal(got_cal.atoms.atoms, cal.atoms.atoms)
            np.testing.assert_allclose(got_cal.atoms.mean_p, cal.atoms.mean_p, rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(got_cal.member, cal.member, rtol=1e-12, atol=1e-12)
            pd.testing.assert_frame_equal(got_cal.error_table(**kw), cal.error_table(**kw), rtol=1e-9)
    got_classes, want_classes = result.class_counts_at("score", 0.4), scored.class_counts("score", 0.4)
    _assert_atoms_equal(got_classes.atoms, want_classes.atoms)
    labels = fc.confusion_counts(scored.y_true, scored.y_true, scored.subgroups)
    _assert_atoms_equal(result.label_counts().atoms, labels.atoms)
    got, ref = (c.disparity("statistical_parity", **kw) for c in (result.label_counts(), labels))
    assert (got.value, got.ci_low, got.ci_high) == (ref.value, ref.ci_low, ref.ci_high)
    _assert_atoms_equal(result.given.atoms, fc.confusion_counts(scored.y_true, scored.y_pred(), scored.subgroups).atoms)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_scores_on_the_edges_of_calibration_sub_bins_fall_in_the_in_memory_parts(tmp_path, engine):
    # Scores on a 3-decimal grid hit every part's edge (0.075 = 0 + 3 x 0.1 / 4): polars once evaluated
    # (p - low) / width * 4 in another order and put 0.075 in part 3 where numpy puts it in part 2, which moved the
    # calibration intervals by up to 0.2 % at 10^6 rows. Both now compare scores with the same edge literals.
    rng = np.random.default_rng(5)
    n = 20_000
    p = np.round(rng.integers(0, 1001, n) / 1000, 3)
    frame = pd.DataFrame({"label": np.where(rng.random(n) < p, "yes", "no"), "score": p,
                          "race": rng.choice(["a", "b", "c"], n)})
    mapping = fc.ColumnMapping(label="label", positive_label="yes", scores=("score",), protected=("race",))
    frame.to_parquet(tmp_path / "edges.parquet", index=False)
    scored = fc.ScoredData.from_frame(frame, mapping)
    result = scored_counts(str(tmp_path / "edges.parquet"), mapping, engine=engine).with_atoms()
    kw = dict(ci=0.95, n_boot=200, random_state=0)
    for n_bins in (10, 20, 7):
        cal = fc.calibration_counts(scored.y_true, scored.scores["score"], scored.subgroups, n_bins=n_bins)
        got = result.calibration_at("score", n_bins, "uniform")
        _assert_atoms_equal(got.atoms.atoms, cal.atoms.atoms)
        pd.testing.assert_frame_equal(got.error_table(**kw), cal.error_table(**kw), rtol=1e-12)


def test_a_score_on_a_sub_bin_edge_is_in_the_part_it_starts():
    from fairness_core._counts.binning import SUB_BINS, sub_bin_edges, sub_bin_index

    edges = np.arange(11) / 10
    inner = sub_bin_edges(edges)
    assert inner.shape == (10, SUB_BINS - 1) and inner[0] == pytest.approx([0.025, 0.05, 0.075], abs=1e-15)
    # 3 x 0.1 / 4 is 0.07500000000000001 in float64: the score 0.075 lies below that edge, in part 2.
    p = np.array([0.0, 0.025, 0.0499999, 0.05, 0.075, inner[0, 2], 0.0999, 0.1, 1.0])
    cell = np.minimum((p * 10).astype(int), 9)
    assert sub_bin_index(p, cell, edges).tolist() == [0, 1, 1, 2, 2, 3, 3, 0, 3]
    flat = np.array([0.0, 0.5, 0.5, 1.0])   # a bin of no width: every score in part 0
    assert sub_bin_index(np.array([0.5]), np.array([1]), flat).tolist() == [0]


@pytest.mark.spark
def test_spark_per_bucket_tables_over_the_pattern_bound(spark, tmp_path):
    """Spark: the transpiled per-bucket queries (buckets of a hash of each row's mapped columns, deterministic across
    runs); their tables sum to the counts, and a review from them has the intervals of the pattern bootstrap."""
    from tests.fairness_core.test_engine_patterns import identity_frame

    frame = identity_frame(3_000, 3, seed=11)
    frame["s"] = np.clip(0.6 * frame["s"] + 0.35 * frame["y"], 0, 1)
    frame.to_parquet(tmp_path / "ids.parquet", index=False)
    mapping = fc.ColumnMapping(label="y", positive_label=1, scores=("s",), protected=("race",),
                               indicators=("id0", "id1", "id2"), min_size=1)
    counted = scored_counts(spark.read.parquet(str(tmp_path / "ids.parquet")), mapping, auc_bins=200)
    buckets, again = (counted.with_atoms(max_patterns=1) for _ in range(2))
    tables = buckets.confusion["s"].atoms.buckets.tables
    np.testing.assert_array_equal(tables[0].sum(axis=0), counted.confusion["s"].member)
    np.testing.assert_array_equal(tables[1].sum(axis=0), counted.confusion["s"].background)
    for a, b in zip(tables, again.confusion["s"].atoms.buckets.tables, strict=True):
        np.testing.assert_array_equal(a, b)
    config = dataclasses.replace(fc.ReviewConfig(mapping=mapping), ci=0.95, n_boot=200)
    ours = fc.build_review_from_counts(buckets, config).models[0]
    want = fc.build_review_from_counts(counted.with_atoms(), config).models[0]
    for a, b in [(ours.rates[k], want.rates[k]) for k in want.rates] + [(ours.bias_auc, want.bias_auc)]:
        width = b.ci_high - b.ci_low
        assert abs(a.ci_low - b.ci_low) <= 0.4 * width and abs(a.ci_high - b.ci_high) <= 0.4 * width
