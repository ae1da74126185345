"""Runners: one function per engine (DuckDB, Spark, polars, ibis) that runs the generated queries."""

from __future__ import annotations

import os
from typing import Callable

import numpy as np
import pandas as pd

from . import _sql
from ._duckdb_files import _duckdb_files
from ._limits import ENGINES, SOURCE_MESSAGE
from ._sources import (_check_columns, _is_csv, _looks_like_path, _python_glob, _source_files,
                       spark_error)


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def _runner(source, engine, connection, memory_limit, threads=None):
    """(run(sql) -> DataFrame, source column names, engine name) with the source as view ``__fc_source``.

    Paths are read by :func:`_duckdb_files` (or :func:`_polars_runner`): a list of files exactly as
    named, one string as a glob, several files combined by column name.
    """
    spark_df = type(source).__module__.startswith("pyspark")
    polars_frame = type(source).__module__.startswith("polars")
    ibis_table = type(source).__module__.startswith("ibis")
    engine = engine or ("spark" if spark_df else "polars" if polars_frame else "ibis" if ibis_table else "duckdb")
    if engine not in ENGINES:
        raise ValueError(f"The 'engine' parameter of scored_counts must be one of {ENGINES}. Got {engine!r} instead.")
    if engine == "polars":
        return _polars_runner(source, polars_frame)
    if engine == "ibis":
        if not ibis_table:
            raise ValueError("engine='ibis' needs an ibis table as the source (e.g. con.table('logs')).")
        return _ibis_runner(source)
    if engine == "spark":
        if isinstance(source, (str, os.PathLike, list, tuple)):   # a path or URI: read_source reads and checks it
            from ._sources import read_source

            source = read_source(source, "spark")
        elif not spark_df:
            raise ValueError("engine='spark' needs a pyspark DataFrame (spark.read.parquet(...)) or a path or URI as "
                             "the source.")
        source.createOrReplaceTempView(_sql.SOURCE)
        return _spark_run(source.sparkSession), list(source.columns), "spark"
    import duckdb

    con = connection
    if con is None:
        con = duckdb.connect()
        if memory_limit:
            con.execute(f"SET memory_limit = {_sql.literal(str(memory_limit))}")
        if threads:
            con.execute(f"SET threads = {int(threads)}")
    if isinstance(source, duckdb.DuckDBPyRelation):
        relation = source
    elif isinstance(source, str) and connection is not None and not _looks_like_path(source):
        relation = con.table(source)
        # A temporary view: the database may be attached read-only, where no view can be created in it.
        con.execute(f"CREATE OR REPLACE TEMP VIEW {_sql.SOURCE} AS SELECT * FROM {_sql.ident(source)}")
        return (lambda sql: con.execute(sql).df()), list(relation.columns), "duckdb"
    elif isinstance(source, (str, os.PathLike, list, tuple)):
        relation = _duckdb_files(con, source)
    else:
        raise ValueError(SOURCE_MESSAGE.format(source=type(source).__name__))
    relation.create_view(_sql.SOURCE, replace=True)
    return (lambda sql: con.execute(sql).df()), list(relation.columns), "duckdb"


def _spark_run(session) -> Callable:
    """run(sql) on a Spark session: the query transpiled by SQLGlot, its (small) result through Arrow; Spark's
    errors (a value that is not a number, a type it cannot compare) become a ValueError in words
    (:func:`spark_error`), and pyspark's own log of them is silenced while the query runs."""
    import logging

    def run(sql: str) -> pd.DataFrame:
        from pyspark.logger import PySparkLogger

        loggers = [PySparkLogger.getLogger(n) for n in ("SQLQueryContextLogger", "DataFrameQueryContextLogger")]
        levels = [logger.level for logger in loggers]
        for logger in loggers:
            logger.setLevel(logging.CRITICAL)
        try:
            # Arrow, not toPandas: the results are small, and pyspark's pandas bridge lags pandas 3.
            return session.sql(_sql.transpile(sql, "spark")).toArrow().to_pandas()
        except Exception as exc:
            error = spark_error(exc, "compute the counts")
            if error is None:
                raise
            raise error from None
        finally:
            for logger, level in zip(loggers, levels):
                logger.setLevel(level)

    return run


def _polars_runner(source, polars_frame: bool):
    """The same SQL run by polars' SQL context on a lazy scan, collected with its streaming engine.

    Paths as :func:`_source_files` names them, each scanned with ``glob=False`` (read as named); CSV
    files one scan each, combined by name (``diagonal_relaxed``, once their columns are the same), and
    Parquet files too when their types differ (each column then of its supertype).
    """
    import polars as pl

    if polars_frame:
        frame = source.lazy()
    elif isinstance(source, (str, os.PathLike, list, tuple)):
        files = _source_files(source, _python_glob, "polars")   # each read as named: glob=False
        if _is_csv(files[0]):   # one scan per file, combined by name (polars' own scan matches them by position)
            scans = [pl.scan_csv(p, glob=False, infer_schema_length=10_000) for p in files]
            _check_columns(files, lambda i: scans[i].collect_schema().names())
            frame = scans[0] if len(scans) == 1 else pl.concat(scans, how="diagonal_relaxed")
        else:
            scans = [pl.scan_parquet(p, glob=False) for p in files]
            schemas = [scan.collect_schema() for scan in scans]
            _check_columns(files, lambda i: schemas[i].names())
            # Files whose types differ (Int32 in one, Int64 in another) combined with each column's supertype, as
            # DuckDB widens them; polars' one scan of them all refuses them.
            frame = (pl.scan_parquet(files, glob=False) if all(x == schemas[0] for x in schemas)
                     else pl.concat(scans, how="diagonal_relaxed"))
    else:
        raise ValueError("engine='polars' needs a Parquet or CSV path or glob, or a polars (Lazy)DataFrame.")
    context = pl.SQLContext({_sql.SOURCE: frame, _sql.SOURCE_ROWS: frame.with_row_index(_sql.ROW_INDEX)})
    return (lambda sql: context.execute(sql).collect(engine="streaming").to_pandas()), \
        list(frame.collect_schema().names()), "polars"


def _ibis_runner(table):
    """The same SQL run by the ibis table's own backend (any SQL database ibis reaches).

    Each query is parsed in DuckDB's dialect, the source view replaced by the table's own SQL (ibis
    compiles it) as a subquery, written by SQLGlot in the backend's dialect and run as raw SQL; the
    rows come back through the DB-API cursor.
    """
    import ibis
    import sqlglot
    from sqlglot import exp

    backend = table.get_backend()
    dialect = {"pyspark": "spark"}.get(backend.name, backend.name)
    inner = sqlglot.parse_one(ibis.to_sql(table, dialect=dialect), read=dialect)

    def as_source(node):
        if isinstance(node, exp.Table) and node.name == _sql.SOURCE:
            return exp.Subquery(this=inner.copy(), alias=exp.TableAlias(this=exp.to_identifier(_sql.SOURCE)))
        return node

    def run(sql: str) -> pd.DataFrame:
        cursor = backend.raw_sql(sqlglot.parse_one(sql, read="duckdb").transform(as_source).sql(dialect=dialect))
        try:
            return pd.DataFrame(cursor.fetchall(), columns=[c[0] for c in cursor.description])
        finally:
            if cursor is not getattr(backend, "con", None):   # DuckDB's backend returns its connection itself
                cursor.close()

    return run, list(table.columns), f"ibis ({backend.name})"


def _with_bins(run: Callable, binned: dict) -> Callable:
    """`run` whose results carry, for each binned column, a value of the bin (its upper edge) instead of the bin
    number, so that ``Subgroups.from_attributes`` (given the edges) names and orders the bins as in memory."""
    def run_binned(sql: str) -> pd.DataFrame:
        frame = run(sql)
        for c, edges in binned.items():
            if c in frame.columns:
                code = pd.to_numeric(frame[c]).to_numpy(dtype=np.float64, na_value=np.nan)
                known = ~np.isnan(code)
                value = np.full(len(code), np.nan)
                value[known] = np.asarray(edges)[np.minimum(code[known].astype(np.int64) + 1, len(edges) - 1)]
                frame[c] = value
        return frame

    return run_binned
