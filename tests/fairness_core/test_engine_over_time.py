"""Fairness over time counted by an engine (``engines.counts_over_time``): one GROUP BY over (period, membership
pattern, label, predictions) in DuckDB, polars or ibis gives every period's tables, and the verdicts, values,
intervals, periods, subgroups and exclusions equal ``fc.over_time`` on the same rows; the command line's ``--time``
with ``--engine duckdb`` writes the same ``over_time`` as without ``--engine``."""

from __future__ import annotations

import functools
import json
import warnings

import duckdb
import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core._cli import main
from fairness_core.engines import counts_over_time, scored_counts
from fairness_core.engines._sql_periods import period_key

ZONE = "America/New_York"


def frame_of(n: int = 4000, seed: int = 3) -> pd.DataFrame:
    """Rows over about seven months: two scores, a predicted label, a binned numeric attribute, identity columns (one
    with missing values), times as naive timestamps, zoned timestamps, ISO text and dates, some times missing."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    women = rng.random(n) < 0.5
    t = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 210 * 24 * 3600, n), unit="s")
    frame = pd.DataFrame({
        "y": y, "p": np.clip(0.4 + 0.25 * y - 0.1 * women + rng.normal(0, 0.15, n), 0, 1).round(3),
        "q": rng.integers(1, 11, n), "pred": rng.integers(0, 2, n), "sex": np.where(women, "F", "M"),
        "age": rng.integers(18, 80, n).astype(float), "idw": rng.random(n),
        "idb": rng.choice([0.0, 1.0, np.nan], n), "t": t})
    frame.loc[::53, "t"] = pd.NaT
    frame["tz"] = frame["t"].dt.tz_localize("UTC").dt.tz_convert(ZONE)
    frame["text"] = frame["t"].dt.strftime("%Y-%m-%dT%H:%M:%S").where(frame["t"].notna(), None)
    return frame


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return frame_of()


def rows_for(frame: pd.DataFrame, period: str) -> pd.DataFrame:
    """The rows a period's test reads: for days, the first three weeks and the rows without a time (21 reviews of
    about 19 rows a day, not 210: each day is a review of its own, and what is checked does not need more)."""
    if period != "day":
        return frame
    return frame.loc[(frame["t"] < pd.Timestamp("2024-01-22")) | frame["t"].isna()].reset_index(drop=True)


@functools.lru_cache(maxsize=None)
def in_memory(column: str, period: str):
    """``fc.over_time`` of :func:`frame_of`'s rows for a period (computed once for every engine compared)."""
    config = fc.ReviewConfig(mapping=mapping(column), ci=0.9, n_boot=100)
    return fc.over_time(rows_for(frame_of(), period), config, period=period)


def mapping(time: str, **kw) -> fc.ColumnMapping:
    return fc.ColumnMapping(label="y", positive_label=1, scores=("p", "q"), protected=("sex", "age"),
                            indicators=("idw", "idb"), predicted_label="pred", time=time, min_size=20, **kw)


def assert_same(memory, counted) -> None:
    """Every table of two OverTime results equal (values and intervals exactly), and their periods' reviews."""
    for name in ("verdicts", "periods", "subgroups", "exclusions"):
        pd.testing.assert_frame_equal(getattr(memory, name), getattr(counted, name), check_exact=True)
    assert (memory.period, memory.time_zone, memory.thresholds) == (counted.period, counted.time_zone,
                                                                      counted.thresholds)
    assert list(memory.models) == list(counted.models)
    for name, reviews in memory.models.items():
        for a, b in zip(reviews, counted.models[name]):
            assert (a is None) == (b is None)
            if a is not None:
                pd.testing.assert_frame_equal(a.rate_table, b.rate_table, check_exact=True)


def counts_of(frame: pd.DataFrame, m: fc.ColumnMapping, engine: str, folder=None):
    if engine == "polars":
        import polars as pl

        return scored_counts(pl.from_pandas(frame), m)
    if engine == "ibis":
        import ibis

        path = folder / "rows.parquet"
        frame.to_parquet(path)
        with warnings.catch_warnings():   # ibis 12's own DuckDB backend calls an API DuckDB 2.0 deprecates
            warnings.filterwarnings("ignore", "fetch_arrow_table", DeprecationWarning)
            table = ibis.duckdb.connect().read_parquet(str(path))
        return scored_counts(table, m, engine="ibis")
    con = duckdb.connect()
    return scored_counts(con.from_df(frame), m, connection=con)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("period", ["day", pytest.param("week", marks=pytest.mark.full), "month", "quarter"])
def test_every_period_equals_over_time_in_memory(frame, engine, period):
    config = fc.ReviewConfig(mapping=mapping("t"), ci=0.9, n_boot=100)
    rows = rows_for(frame, period)
    counted = counts_over_time(counts_of(rows, config.mapping, engine), config, period=period)
    assert_same(in_memory("t", period), counted)
    assert counted.exclusions.set_index("reason")["rows"]["no time"] == rows["t"].isna().sum() > 0
    assert counted.periods["rows"].sum() == rows["t"].notna().sum()
    assert len(counted.periods) == {"day": 21, "week": 30, "month": 7, "quarter": 3}[period]


# DuckDB's in the check tier; polars and ibis (about 15 s each: thirty weekly reviews) in the full tier.
@pytest.mark.parametrize("engine", ["duckdb", pytest.param("polars", marks=pytest.mark.full),
                                    pytest.param("ibis", marks=pytest.mark.full)])
@pytest.mark.parametrize("column", ["tz", "text"])
def test_zoned_times_and_iso_text_cut_the_same_calendar(frame, engine, column, tmp_path):
    """Zoned times on their zone's wall clock (DuckDB keeps instants only: the zone given), ISO text parsed."""
    config = fc.ReviewConfig(mapping=mapping(column), ci=0.9, n_boot=100)
    memory = in_memory(column, "week")
    zone = ZONE if column == "tz" and engine != "polars" else None
    counted = counts_over_time(counts_of(frame, config.mapping, engine, tmp_path), config, period="week",
                               time_zone=zone)
    assert_same(memory, counted)
    assert counted.time_zone == (ZONE if column == "tz" else None)


def test_models_and_verdicts_only_as_in_memory(frame):
    config = fc.ReviewConfig(mapping=mapping("t"), ci=0.9, n_boot=100)
    counts = counts_of(frame, config.mapping, "duckdb")
    for kw in (dict(models="pred", verdicts_only=True, labels=False), dict(models=("q",), verdicts_only=True)):
        assert_same(fc.over_time(frame, config, period="month", **kw),
                    counts_over_time(counts, config, period="month", **kw))


def test_dates_without_time_of_day(frame):
    days = frame.assign(d=frame["t"].dt.date)
    config = fc.ReviewConfig(mapping=mapping("d"), ci=None)
    assert_same(fc.over_time(days, config, period="month"),
                counts_over_time(counts_of(days, config.mapping, "duckdb"), config, period="month"))


def test_week_ends_on_sunday():
    assert period_key("t", "week", "naive") == "CAST(DATE_TRUNC('week', \"t\") AS DATE)"
    con = duckdb.connect()
    sunday, monday = con.execute("SELECT CAST(DATE_TRUNC('week', TIMESTAMP '2024-01-07 23:59') AS DATE), "
                                 "CAST(DATE_TRUNC('week', TIMESTAMP '2024-01-08 00:00') AS DATE)").fetchone()
    assert (str(pd.Period(sunday, "W")), str(pd.Period(monday, "W"))) == ("2024-01-01/2024-01-07",
                                                                          "2024-01-08/2024-01-14")


@pytest.mark.parametrize("kw, message", [
    (dict(period=["2024-01-01", "2024-03-01"]), "cuts calendar periods"),
    (dict(period=None), "cuts calendar periods"),
    (dict(models="nope"), "No model 'nope'"),
])
def test_refusals(frame, kw, message):
    config = fc.ReviewConfig(mapping=mapping("t"), ci=None)
    with pytest.raises(ValueError, match=message):
        counts_over_time(counts_of(frame, config.mapping, "duckdb"), config, **kw)


def test_weighted_and_offsets_are_refused(frame):
    weighted = fc.ReviewConfig(mapping=mapping("t", weight="w"), ci=None)
    with pytest.raises(ValueError, match="is unweighted"):
        counts_over_time(counts_of(frame.assign(w=2.0), weighted.mapping, "duckdb"), weighted)
    offsets = frame.assign(text=frame["text"].where(frame["text"].isna(), frame["text"] + "+02:00"))
    config = fc.ReviewConfig(mapping=mapping("text"), ci=None)
    with pytest.raises(ValueError, match="UTC offsets"):
        counts_over_time(counts_of(offsets, config.mapping, "duckdb"), config)
    untimed = fc.ReviewConfig(mapping=mapping(None), ci=None)
    with pytest.raises(ValueError, match="time column"):
        counts_over_time(counts_of(frame, untimed.mapping, "duckdb"), untimed)


def test_command_line_over_time_with_duckdb_equals_in_memory(tmp_path, frame, capsys):
    data = tmp_path / "data.csv"
    frame.drop(columns=["tz"]).to_csv(data, index=False)
    flags = ["--label", "y", "--positive", "1", "--score", "p", "--predicted", "pred", "--protected", "sex",
             "--identity", "idw", "--threshold", "p=0.55", "--outcome", "favourable", "--time", "text", "--period",
             "week", "--gate-period", "latest"]
    written = {}
    for name, extra in (("memory", []), ("duckdb", ["--engine", "duckdb"])):
        out = tmp_path / f"{name}.json"
        written[name] = (main(["metrics", str(data), *flags, *extra, "--out", str(out)]),
                         json.loads(out.read_text(encoding="utf-8")))
    capsys.readouterr()
    (status, memory), (engine_status, engine) = written["memory"], written["duckdb"]
    assert status == engine_status and memory["gate"] == engine["gate"]
    assert memory["over_time"] == engine["over_time"] and len(engine["over_time"]["periods"]["rows"]) > 20
