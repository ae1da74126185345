"""Sources: files, folders and globs checked and read by DuckDB or Spark (read_source)."""

from __future__ import annotations

import glob as _glob
import os
import re
from typing import Callable, Optional

from ._limits import ENGINES, NO_FILES


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
NOT_READ_BY = (
    "{engine} does not read {scheme}:// URIs ({path!r}){reads}. Tip: give --engine spark (engine=\"spark\"; "
    "Spark reads any URI its Hadoop configuration knows, e.g. hdfs://, s3a://, abfss://, gs://){copy}.")
MISSING_IN_FILES = (
    "{n} of the {total} files read lack the column(s) {columns}, which Spark would read as missing (NULL) in their "
    "rows: {files}. Tip: give only files that have every mapped column, or add the column to those files.")
SPARK_FAILED = "Spark could not {what}: {why}. Tip: {tip}"
URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
# The URI schemes DuckDB reads with its httpfs/azure extensions (loaded on first use).
DUCKDB_SCHEMES = ("s3", "s3a", "s3n", "r2", "gcs", "gs", "http", "https", "hf", "az", "azure", "abfss")
NOT_LITERAL = ("{engine} reads {path!r} as a glob ({found}) and cannot read that file by its name alone. Tip: "
               "rename the file (or its folder) without *, ? or [ in its path.")


def _is_csv(path: str) -> bool:
    return path.lower().endswith(CSV_SUFFIXES)


def _local(path: str) -> str:
    """An absolute path for a local file (``~`` expanded, as the engines expand it); a URL as given."""
    return path if "://" in path else os.path.abspath(os.path.expanduser(path))


def _scheme(path) -> Optional[str]:
    """The URI scheme of `path` (``"hdfs"`` for ``hdfs://nn/logs``), lower case; None for a local path."""
    found = URI.match(os.fspath(path)) if isinstance(path, (str, os.PathLike)) else None
    return found.group(1).lower() if found else None


def _file_path(uri: str) -> str:
    """The local path of a ``file:`` URI (``file:///data/x.parquet`` -> ``/data/x.parquet``, %-escapes decoded)."""
    from urllib.parse import unquote, urlparse

    parsed = urlparse(uri)
    if parsed.netloc not in ("", "localhost"):
        raise ValueError(f"{uri!r} names a file on the host {parsed.netloc!r}; a file: URI of this machine is "
                         "file:///path (three slashes). Tip: give the path itself.")
    return unquote(parsed.path)


def _not_read_by(engine: str, path: str) -> ValueError:
    """ValueError ``NOT_READ_BY``: `engine` (DuckDB or polars) does not read the URI `path`."""
    scheme = _scheme(path)
    reads = (" (it reads s3://, gs://, https://, hf://, az:// and abfss:// with its httpfs and azure extensions)"
             if engine == "DuckDB" else " (here it reads local paths and file:// URIs)")
    copy = ", or copy the files to this machine" if engine == "DuckDB" else \
        ", or --engine duckdb for s3://, gs:// or https:// files, or copy the files to this machine"
    return ValueError(NOT_READ_BY.format(engine=engine, scheme=scheme, path=path, reads=reads, copy=copy))


def _python_glob(pattern: str) -> list:
    """The files (not folders) Python's glob finds for `pattern` (``**`` recursive), sorted."""
    return sorted(p for p in _glob.glob(os.path.expanduser(pattern), recursive=True) if os.path.isfile(p))


def _source_files(source, expand: Callable[[str], list], engine: str = "duckdb") -> list:
    """The files a path source names, each to be read exactly as named (absolute paths, or URLs).

    A ``file:`` URI is its local path. Another URI (``s3://``, ``hdfs://``) is read only by DuckDB,
    for the schemes its extensions know (``DUCKDB_SCHEMES``; a string expanded by DuckDB's glob,
    a list taken as named, without a local check); any other is refused with ``NOT_READ_BY``,
    which names Spark (:func:`read_source` gives Spark every URI unchecked).

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
    def plain(path) -> str:
        path = os.fspath(path)
        scheme = _scheme(path)
        if scheme == "file":
            return _file_path(path)
        if scheme is not None and not (engine == "duckdb" and scheme in DUCKDB_SCHEMES):
            raise _not_read_by({"duckdb": "DuckDB", "polars": "polars"}.get(engine, engine), path)
        return path

    if isinstance(source, (list, tuple)):
        files = [plain(p) for p in source]
        for path in files:
            if _scheme(path) is None and not os.path.isfile(os.path.expanduser(path)):
                raise ValueError(NOT_A_FILE.format(path=path))
    else:
        pattern = plain(source)
        named = os.path.expanduser(pattern)
        if _scheme(pattern) is not None:   # a remote glob: the engine lists it
            files = expand(pattern)
        elif os.path.isdir(named):
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


def _spark_escape(path: str) -> str:
    r"""`path` with Hadoop's glob characters escaped by a backslash (``\[``, ``\*``, ``\{`` ...), which Spark
    honours."""
    return "".join("\\" + ch if ch in "\\{}[]*?" else ch for ch in path)


def read_source(path, engine: str = "duckdb", *, master: Optional[str] = None):
    """A Parquet or CSV path, glob or list of files as a source of `engine`: the path itself for DuckDB and polars
    (:func:`scored_counts` reads it), a DataFrame for Spark.

    For Spark, the active session is used (``spark-submit`` sets the cluster's), else one is
    started on `master`.

    Parameters
    ----------
    path : str, os.PathLike, or list of them
        One string: a file, a folder (its Parquet or CSV files) or a glob (``"logs/*.parquet"``),
        expanded by Python's glob for Spark and by the engine's own otherwise. A list or tuple:
        files read exactly as named (glob characters in a name are part of it), e.g. the files an
        application checked. For Spark, a URI (``hdfs://``, ``s3a://``, ``abfss://``, ``gs://``,
        ``file://`` ...: anything with a scheme) is given to Spark as it is, without a local check:
        a folder (read as Parquet unless its name ends in ``.csv``), a file or a Hadoop glob.
    engine : {"duckdb", "polars", "spark"}, default="duckdb"
    master : str or None
        Spark only, when no session is active: the master URL of the session started here
        (``spark://host:7077``, ``yarn``, ``local[4]``); None reads the ``SPARK_MASTER``
        environment variable, else ``local[*]``.

    Returns
    -------
    str, list or pyspark.sql.DataFrame
        For Spark, exactly the files named (checked with ``DataFrame.inputFiles``), combined by
        column name (CSV files read one by one, then ``unionByName``), once each file's columns
        were read (Parquet footers; a CSV file's header) and found the same.

    Raises
    ------
    ValueError
        If no file matches `path`, a list item is not a file, the files mix CSV and Parquet or do not
        have the same columns (``COLUMNS_DIFFER``, naming the file), Spark would read other files
        than those named or cannot read the path (its error said in words), or for an unknown engine.
    """
    if engine in ("duckdb", "polars"):
        return path
    if engine != "spark":
        raise ValueError(f"The engine must be one of {ENGINES}. Got {engine!r} instead.")
    spark = spark_session(master)
    items = list(path) if isinstance(path, (list, tuple)) else [path]
    uris = [os.fspath(p) for p in items if _scheme(p) is not None]
    if uris and len(uris) < len(items):
        raise ValueError(f"The paths mix URIs ({uris[0]!r}) and local paths. Tip: give every file as a URI, "
                         "e.g. file:///data/x.parquet.")
    try:
        frame = _spark_uris(spark, path) if uris else _spark_local(spark, path)
    except ValueError:
        raise
    except Exception as exc:
        error = spark_error(exc, f"read {path!r}")
        if error is None:
            raise
        raise error from None
    frame._fc_files_checked = True   # scored_counts need not read the footers again
    return frame


def spark_session(master: Optional[str] = None):
    """The Spark session to run on.

    The active session if there is one; else, under ``spark-submit`` (whose driver has
    ``PYSPARK_GATEWAY_PORT`` set), a session on the master it was given (``--master``) unless
    `master` is; else a new session on `master`, the ``SPARK_MASTER`` environment variable or
    ``local[*]``.

    Parameters
    ----------
    master : str or None
        A master URL (``spark://host:7077``, ``yarn``, ``local[4]``).

    Returns
    -------
    pyspark.sql.SparkSession
    """
    import warnings

    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.appName("fairness_core")
    if master is not None or "PYSPARK_GATEWAY_PORT" not in os.environ:   # else spark-submit's driver: its --master
        builder = builder.master(master or os.environ.get("SPARK_MASTER") or "local[*]")
    with warnings.catch_warnings():   # pyspark's check of pandas: the engine reads its results through Arrow
        warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
        return builder.getOrCreate()


def _spark_local(spark, path):
    """The DataFrame of local files, exactly those :func:`_source_files` names (glob characters escaped)."""
    from functools import reduce

    files = _source_files(path, _python_glob, "spark")
    escaped = [_spark_escape(p) for p in files]
    if _is_csv(files[0]):   # one by one: Spark matches the columns of several CSV files by position
        parts = [spark.read.csv(p, header=True, inferSchema=True) for p in escaped]
        _check_columns(files, lambda i: parts[i].columns)
        frame = reduce(lambda a, b: a.unionByName(b), parts)
    else:
        _check_columns(files, lambda i: _parquet_columns(spark, files[i]))
        frame = spark.read.parquet(*escaped)

    def real(p: str) -> str:
        return os.path.realpath(_file_path(p) if p.startswith("file:") else p)   # Spark names them file:/...

    read, named = sorted({real(u) for u in frame.inputFiles()}), sorted({real(p) for p in files})
    if read != named:
        other = sorted(set(named) - set(read)) or sorted(set(read) - set(named))
        raise ValueError(NOT_LITERAL.format(engine="Spark", path=other[0],
                                            found=f"it reads {', '.join(map(repr, read))}"))
    return frame


def _spark_uris(spark, path):
    """The DataFrame of URIs as Spark reads them (Hadoop lists a folder and expands a glob; a list is read as
    named), each file's columns checked (``COLUMNS_DIFFER``). CSV when the names end in a CSV suffix (each file
    read alone, then combined by name), else Parquet."""
    from functools import reduce

    listed = isinstance(path, (list, tuple))
    uris = [_spark_escape(os.fspath(p)) for p in path] if listed else [os.fspath(path)]
    if _is_csv(uris[0].rstrip("/")):
        files = spark.read.text(*uris).inputFiles()
        if not files:
            raise ValueError(NO_FILES.format(source=path))
        parts = [spark.read.csv(_spark_escape(f), header=True, inferSchema=True) for f in files]
        _check_columns(files, lambda i: parts[i].columns)
        return reduce(lambda a, b: a.unionByName(b), parts)
    frame = spark.read.parquet(*uris)
    files = sorted(frame.inputFiles())
    if not files:
        raise ValueError(NO_FILES.format(source=path))
    _check_columns(files, lambda i: _parquet_columns(spark, files[i]))
    return frame


def _parquet_columns(spark, path: str) -> list:
    """The column names in the footer of one Parquet file: read by pyarrow when the file is on this machine, else
    by the Parquet reader in Spark's JVM on the driver (any Hadoop file system; no Spark job), else by Spark."""
    scheme = _scheme(path)
    local = path if scheme is None else _file_path(path) if scheme == "file" else None
    if local is not None and os.path.isfile(local):
        import pyarrow.parquet as pq

        return list(pq.read_schema(local).names)
    try:
        jvm = spark._jvm
        reader = jvm.org.apache.parquet.hadoop.ParquetFileReader.open(
            jvm.org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(jvm.org.apache.hadoop.fs.Path(path),
                                                                        spark._jsc.hadoopConfiguration()))
        try:
            fields = reader.getFooter().getFileMetaData().getSchema().getFields()
            return [fields.get(i).getName() for i in range(fields.size())]
        finally:
            reader.close()
    except Exception:   # no JVM on this side (Spark Connect), or a file the reader does not know
        return list(spark.read.parquet(_spark_escape(path)).columns)


def check_spark_files(frame, columns) -> None:
    """ValueError ``MISSING_IN_FILES`` when some Parquet files under a Spark DataFrame read from files lack one of
    `columns` (Spark reads a column missing from a file as NULL in its rows, silently).

    Only a DataFrame that is a plain read of files (``spark.read.parquet(folder)``) is checked, from each
    file's footer (:func:`_parquet_columns`); one made by :func:`read_source` was checked when read, and a
    transformed one (a select, a join) is taken as it is. Names are compared without case, as Spark does.
    """
    if getattr(frame, "_fc_files_checked", False):
        return
    try:
        plan = frame._jdf.queryExecution().analyzed()
        if plan.getClass().getSimpleName() != "LogicalRelation":
            return
        files = [f for f in frame.inputFiles() if f.lower().endswith((".parquet", ".parq", ".pq"))]
    except Exception:   # Spark Connect: no plan to look at
        return
    if len(files) < 2:
        return
    spark = frame.sparkSession
    wanted = {str(c).lower(): c for c in columns}
    lacking = {}
    for f in sorted(files):
        have = {c.lower() for c in _parquet_columns(spark, f)}
        missing = [c for key, c in wanted.items() if key not in have]
        if missing:
            lacking[f] = missing
    if lacking:
        shown = [f"{f!r} (lacks {', '.join(map(repr, m))})" for f, m in list(lacking.items())[:5]]
        more = f" and {len(lacking) - 5} more" if len(lacking) > 5 else ""
        raise ValueError(MISSING_IN_FILES.format(
            n=len(lacking), total=len(files), columns=", ".join(map(repr, sorted({c for m in lacking.values()
                                                                                   for c in m}))),
            files="; ".join(shown) + more))


SPARK_TIPS = {
    "CAST_INVALID_INPUT": "a score or identity column must hold numbers; clean it, or map a view that casts it "
                          "(try_cast(col AS DOUBLE) gives NULL for a value that is not a number, excluded and counted)",
    "PATH_NOT_FOUND": "check the path, and that the cluster's Hadoop configuration reaches its file system",
    "UNRESOLVED_COLUMN": "check the column names of the mapping against the data's",
}
READ_TIP = "check the path, and that Spark reaches its file system (the cluster's Hadoop configuration)"
NO_FILE_SYSTEM = ("Spark has no file system for {scheme}:// here: add its Hadoop connector to the session (e.g. "
                  "for s3a:// spark-submit --packages org.apache.hadoop:hadoop-aws:<Spark's Hadoop version>), or "
                  "give a URI of a file system the cluster is configured for")
SPARK_TIP = ("check the mapping's column types (scores and identity columns numeric; label, protected attributes "
             "and predicted label numbers, text or booleans)")


def spark_error(exc: BaseException, what: str) -> Optional[ValueError]:
    """A ValueError saying in words what Spark's error `exc` means (the column, the value and type, what to do),
    or None when `exc` is not Spark's (a pyspark ``PySparkException`` or py4j's ``Py4JJavaError``).

    Parameters
    ----------
    exc : BaseException
    what : str
        What Spark was doing, e.g. ``"compute the counts"``.

    Returns
    -------
    ValueError or None
    """
    module = type(exc).__module__.split(".")[0]
    if module not in ("pyspark", "py4j"):
        return None
    condition, params, fragment = None, {}, ""
    try:
        condition = exc.getCondition()
        params = exc.getMessageParameters() or {}
        contexts = exc.getQueryContext()
        fragment = contexts[0].fragment() if contexts else ""
        text = exc.getMessage()
    except Exception:
        java = getattr(exc, "java_exception", None)
        text = str(exc)
        while java is not None:   # the deepest cause says what went wrong ("An error occurred while calling ...")
            text = java.toString()
            java = java.getCause()
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    why = re.sub(r"\s*SQLSTATE: \w+\s*$", "", lines[0] if lines else type(exc).__name__)
    column = re.search(r"`((?:[^`]|``)+)`", fragment or "")
    if condition == "CAST_INVALID_INPUT":
        name = f"the column {column.group(1).replace('``', '`')!r}" if column else "a column"
        why = (f"{name} holds the value {params.get('expression', '?')} of type {params.get('sourceType', '?')}, "
               f"which is not a number ({params.get('targetType', 'DOUBLE')}) [CAST_INVALID_INPUT]")
    elif column and column.group(1) not in why:
        why = f"{why} (in {fragment.strip()})"
    base = (condition or "").split(".")[0]
    tip = SPARK_TIPS.get(base, READ_TIP if what.startswith("read") else SPARK_TIP)
    scheme = re.search(r"No FileSystem for scheme \"?(\w+)|hadoop\.fs\.(\w+)\.\w*FileSystem not found", why)
    if scheme:
        tip = NO_FILE_SYSTEM.format(scheme=scheme.group(1) or scheme.group(2))
    return ValueError(SPARK_FAILED.format(what=what, why=why.rstrip("."), tip=tip + "."))


def _looks_like_path(text: str) -> bool:
    return any(ch in text for ch in "/\\*?") or "." in os.path.basename(text)
