"""Sources: files, folders and globs checked and read by DuckDB or Spark (read_source)."""

from __future__ import annotations

import glob as _glob
import os
from typing import Callable

from ._limits import CSV_TYPES, ENGINES, NO_FILES


CSV_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".txt")
FOLDER_SUFFIXES = (".parquet", ".parq", ".pq") + CSV_SUFFIXES   # the files read of a folder given as the source
GLOB_CHARACTERS = "*?["       # what DuckDB and polars expand in a path (Spark's Hadoop also {, } and \)
NOT_A_FILE = ("{path!r} is not a file. A list of paths is read as named, without glob expansion. Tip: give "
              "existing files in the list, or one glob string such as 'logs/*.parquet'.")
FILE_AND_GLOB = ("{path!r} names a file, but as a glob it also matches {others}. Tip: pass it in a list, "
                 "[{path!r}], to read that file alone (a list is read as named), or rename the file without "
                 "*, ? or [ in its name.")
MIXED_TYPES = ("The files mix CSV and Parquet ({csv!r} and {other!r}). Tip: give files of one type, e.g. "
               "'logs/*.parquet'.")
COLUMNS_DIFFER = ("The files read together do not have the same columns: {path!r} {difference} compared with "
                  "{first!r}. They are combined by column name, so every file needs the same columns. Tip: give "
                  "files with the same column names (rename or drop the others), or read them separately.")
NOT_LITERAL = ("{engine} reads {path!r} as a glob ({found}) and cannot read that file by its name alone. Tip: "
               "rename the file (or its folder) without *, ? or [ in its path.")


def _is_csv(path: str) -> bool:
    return path.lower().endswith(CSV_SUFFIXES)


def _local(path: str) -> str:
    """An absolute path for a local file (``~`` expanded, as the engines expand it); a URL as given."""
    return path if "://" in path else os.path.abspath(os.path.expanduser(path))


def _python_glob(pattern: str) -> list:
    """The files (not folders) Python's glob finds for `pattern` (``**`` recursive), sorted."""
    return sorted(p for p in _glob.glob(os.path.expanduser(pattern), recursive=True) if os.path.isfile(p))


def _source_files(source, expand: Callable[[str], list]) -> list:
    """The files a path source names, each to be read exactly as named (absolute paths, or URLs).

    A list or tuple is taken literally: each item must be an existing file, and glob characters in
    it are part of its name (the files an application checked are the files read). One string or
    path is a glob expanded by `expand` (the engine's own glob), or a folder (its Parquet and CSV
    files, not hidden ones or ``_*``); a string that names a file is that file, refused when as a
    glob it also matches other files (``FILE_AND_GLOB``). The files must be all CSV or all Parquet.

    Raises
    ------
    ValueError
        For a list item that is not a file, a glob matching nothing, a file that is also a glob of
        other files, or files of both types.
    """
    if isinstance(source, (list, tuple)):
        files = [os.fspath(p) for p in source]
        for path in files:
            if not os.path.isfile(os.path.expanduser(path)):
                raise ValueError(NOT_A_FILE.format(path=path))
    else:
        pattern = os.fspath(source)
        named = os.path.expanduser(pattern)
        if os.path.isdir(named):
            files = sorted(entry.path for entry in os.scandir(named) if entry.is_file()
                           and not entry.name.startswith((".", "_")) and entry.name.lower().endswith(FOLDER_SUFFIXES))
        else:
            files = expand(pattern)
            if os.path.isfile(named):
                others = [p for p in files if _local(p) != _local(pattern)]
                if others:
                    raise ValueError(FILE_AND_GLOB.format(path=pattern, others=", ".join(map(repr, others))))
                files = [pattern]
    files = [_local(p) for p in files]
    if not files:
        raise ValueError(NO_FILES.format(source=source))
    if len({_is_csv(p) for p in files}) > 1:
        raise ValueError(MIXED_TYPES.format(csv=next(p for p in files if _is_csv(p)),
                                            other=next(p for p in files if not _is_csv(p))))
    return files


def _check_columns(files: list, columns_of: Callable[[int], list]) -> None:
    """ValueError ``COLUMNS_DIFFER`` unless every file has the columns of the first, in any order (``columns_of(i)``:
    the column names of ``files[i]``)."""
    if len(files) < 2:
        return
    first = list(columns_of(0))
    for i in range(1, len(files)):
        columns = list(columns_of(i))
        extra, missing = [c for c in columns if c not in first], [c for c in first if c not in columns]
        if extra or missing:
            parts = ([f"has {', '.join(map(repr, extra))}"] if extra else []) + \
                ([f"lacks {', '.join(map(repr, missing))}"] if missing else [])
            raise ValueError(COLUMNS_DIFFER.format(path=files[i], difference=" and ".join(parts), first=files[0]))


def _duckdb_literal(con, path: str) -> str:
    """`path` as DuckDB reads that file alone: glob characters escaped as ``glob.escape`` escapes them (``[[]``,
    ``[*]``, ``[?]``: DuckDB's glob honours them, a backslash it does not), and the escaped pattern checked to match
    exactly that file (ValueError ``NOT_LITERAL`` otherwise)."""
    if not any(ch in path for ch in GLOB_CHARACTERS):
        return path   # DuckDB globs nothing in it
    escaped = _glob.escape(path)
    found = [row[0] for row in con.execute("SELECT file FROM glob(?)", [escaped]).fetchall()]
    if [_local(f) for f in found] != [path]:
        raise ValueError(NOT_LITERAL.format(engine="DuckDB", path=path,
                                            found=f"it matches {', '.join(map(repr, found)) or 'nothing'}"))
    return escaped


def _duckdb_files(con, source):
    """A DuckDB relation of exactly the files `source` names (:func:`_source_files`; a string globbed by DuckDB's
    ``glob``), several combined by column name (``union_by_name``: CSV columns in another order, Parquet types
    widened), once :func:`_check_columns` found the same columns in each."""
    files = _source_files(source, lambda p: sorted(row[0] for row in con.execute(
        "SELECT file FROM glob(?)", [os.path.expanduser(p)]).fetchall()))
    where = [_duckdb_literal(con, p) for p in files]

    def read(paths: list):
        many = {"union_by_name": True} if len(paths) > 1 else {}
        target = paths if len(paths) > 1 else paths[0]
        if _is_csv(files[0]):
            # No BOOLEAN guess: DuckDB's sniffer reads yes/no as booleans, which would rename the label's values.
            return con.read_csv(target, auto_type_candidates=CSV_TYPES, **many)
        return con.read_parquet(target, **many)

    _check_columns(files, lambda i: read([where[i]]).columns)
    return read(where)


def _spark_escape(path: str) -> str:
    r"""`path` with Hadoop's glob characters escaped by a backslash (``\[``, ``\*``, ``\{`` ...), which Spark
    honours."""
    return "".join("\\" + ch if ch in "\\{}[]*?" else ch for ch in path)


def read_source(path, engine: str = "duckdb"):
    """A Parquet or CSV path, glob or list of files as a source of `engine`: the path itself for DuckDB and polars
    (:func:`scored_counts` reads it), a DataFrame for Spark.

    For Spark, the active session is used (``spark-submit`` sets the cluster's), else a local one is
    started (``local[*]``).

    Parameters
    ----------
    path : str, os.PathLike, or list of them
        One string: a file, a folder (its Parquet or CSV files) or a glob (``"logs/*.parquet"``),
        expanded by Python's glob for Spark and by the engine's own otherwise. A list or tuple:
        files read exactly as named (glob characters in a name are part of it), e.g. the files an
        application checked.
    engine : {"duckdb", "polars", "spark"}, default="duckdb"

    Returns
    -------
    str, list or pyspark.sql.DataFrame
        For Spark, exactly the files named (checked with ``DataFrame.inputFiles``), combined by
        column name (CSV files read one by one, then ``unionByName``).

    Raises
    ------
    ValueError
        If no file matches `path`, a list item is not a file, the files mix CSV and Parquet or do not
        have the same columns, Spark would read other files than those named, or for an unknown engine.
    """
    if engine in ("duckdb", "polars"):
        return path
    if engine != "spark":
        raise ValueError(f"The engine must be one of {ENGINES}. Got {engine!r} instead.")
    from functools import reduce
    from urllib.parse import unquote, urlparse

    from pyspark.sql import SparkSession

    files = _source_files(path, _python_glob)
    spark = SparkSession.builder.master(os.environ.get("SPARK_MASTER", "local[*]")).getOrCreate() \
        if SparkSession.getActiveSession() is None else SparkSession.getActiveSession()
    escaped = [_spark_escape(p) for p in files]
    if _is_csv(files[0]):   # one by one: Spark matches the columns of several CSV files by position
        parts = [spark.read.csv(p, header=True, inferSchema=True) for p in escaped]
        _check_columns(files, lambda i: parts[i].columns)
        frame = reduce(lambda a, b: a.unionByName(b), parts)
    else:
        _check_columns(files, lambda i: spark.read.parquet(escaped[i]).columns)
        frame = spark.read.parquet(*escaped)

    def real(p: str) -> str:
        return os.path.realpath(unquote(urlparse(p).path) if p.startswith("file:") else p)

    read, named = sorted({real(u) for u in frame.inputFiles()}), sorted({real(p) for p in files})
    if read != named:
        other = sorted(set(named) - set(read)) or sorted(set(read) - set(named))
        raise ValueError(NOT_LITERAL.format(engine="Spark", path=other[0],
                                            found=f"it reads {', '.join(map(repr, read))}"))
    return frame


def _looks_like_path(text: str) -> bool:
    return any(ch in text for ch in "/\\*?") or "." in os.path.basename(text)
