"""Data on this machine: the source (Parquet or CSV files, or a DuckDB table) and DuckDB's reads and counts of it.

The rows never enter pandas beyond a preview (the first rows, for the mapping widgets) or a random
sample the user asks for: :func:`counts` returns ``fairness_core.engines.scored_counts``' count tables,
which the pages read through ``fairness_dashboard.data.counted_data.CountsData`` (the counts facade).

Which files may be read is decided by ``fairness_dashboard.local_paths`` (the boundary): a
:class:`LocalSource` holds only files it checked, by their resolved paths, and reads them through the
connection it gives (:func:`fairness_dashboard.local_paths.connect`). DuckDB is given exactly those files, as a
list, which the engines read as named: glob characters in a name (``[``, ``*``, ``?``) are escaped, never
expanded again into other files. Several CSV files are combined by column name, and files without
the same columns are refused with a message.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
from dataclasses import dataclass, replace

import pandas as pd

import fairness_core as fc

from .. import local_paths
from ..presentation import escape

MEMORY_ENV = "FAIRNESS_DUCKDB_MEMORY"   # DuckDB's memory_limit per query connection (it spills to disk beyond it)
PREVIEW_ROWS = 10_000   # rows read into pandas to fill the mapping widgets
SAMPLE_ROWS = 100_000   # rows of the random sample analysed in memory, on request
AUC_LEVELS = {"bins": 10_000, "exact": "exact"}
MAX_EXACT_LEVELS = 2_000_000   # distinct scores that exact AUC levels may bring into memory
MAX_PATTERNS = 50_000   # membership patterns whose atoms the intervals of counted data read (ScoredCounts.with_atoms'
                        # bound); beyond it counts of rows get per-bucket tables (a cost independent of the patterns),
                        # weighted counts no intervals
FILE_TYPES = {".parquet": "parquet", ".csv": "csv", ".tsv": "csv", ".csv.gz": "csv", ".txt": "csv"}
DATABASE_TYPES = (".duckdb", ".db", ".ddb")

NO_MATCH = ("No Parquet or CSV file matches {pattern!r} under {roots}. Tip: give a path relative to that directory, "
            "a folder, or a glob such as 'logs/*.parquet'.")
MIXED = ("{pattern!r} matches files of more than one type ({types}). Tip: narrow the glob to one type, e.g. "
         "'*.parquet'.")
NOT_DATABASE = ("{path!r} is not a DuckDB database file (expected a name ending in {types}). Tip: give the path of "
                "the .duckdb file under {roots}.")
NO_TABLES = "The DuckDB database {path!r} has no table or view. Tip: check the file."
ENGINE_FAILED = ("DuckDB could not {verb} the rows of {label!r}: {reason}. Tip: check that every file has the same "
                 "columns and a readable format, or choose other files.")
CHANGED = ("The files of {label} changed since they were read: a file was rewritten, added or removed. Open the "
           "**Data** page to read them again.")
FIRST_MAPPING = "local:first_mapping"   # session key: set when a source is read, so its first mapping is counted at once
MAPPING_FIELDS = {"label": "label", "positive_label": "positive label value", "positive_outcome": "positive outcome",
                  "scores": "score columns", "predicted_label": "predicted label column",
                  "protected": "protected attributes", "indicators": "identity columns",
                  "all_classes": "keep all classes", "intersect": "intersections", "n_bins": "bins per attribute",
                  "weight": "weight column"}
NEEDS_ROWS = (
    "{what} needs the rows themselves, which stay where they lie: this page shows what the count tables "
    "give. To see it, choose **a random sample of {n:,} rows** under *Rows analysed* on the Data page: every "
    "page then works on that sample in memory."
)


def missing_packages() -> list[str]:
    """The optional packages this source needs that are not installed (DuckDB and SQLGlot)."""
    return [name for name in ("duckdb", "sqlglot") if importlib.util.find_spec(name) is None]


def _kind(path: str) -> str | None:
    name = path.lower()
    return next((kind for suffix, kind in FILE_TYPES.items() if name.endswith(suffix)), None)


def _fingerprint(*parts) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


def _stat(real: str) -> tuple:
    """(path, size, modification time) of a file by its real path (from :func:`local_paths.real_inside`)."""
    info = os.stat(real)
    return real, info.st_size, info.st_mtime_ns


@dataclass(frozen=True)
class LocalSource:
    """Files or a DuckDB table on the server, checked to lie under the allowed directories.

    Attributes
    ----------
    label : str
        What the user gave: the path or glob, or ``database: table``.
    files : tuple of str
        The Parquet or CSV files (real paths); empty for a DuckDB table.
    database, table : str or None
        The DuckDB database file (real path) and the table or view in it.
    fingerprint : str
        Changes when any file's path, size or modification time does (part of every cache key).
    n_bytes : int
        The files' (or the database's) size on disk.
    """

    label: str
    files: tuple = ()
    database: str | None = None
    table: str | None = None
    fingerprint: str = ""
    n_bytes: int = 0

    @classmethod
    def from_files(cls, pattern: str) -> "LocalSource":
        """The Parquet or CSV files a path, folder or glob names under the allowed directories.

        Each match is resolved once to its real path, which is both what is checked and what the
        engine reads (``files``: a list, read as named, never globbed again).

        Raises
        ------
        ValueError
            When the source is switched off, nothing matches, a match lies outside the allowed
            directories, or the matches mix Parquet and CSV.
        """
        allowed = local_paths.allowed()
        files = [p for p in local_paths.candidates(pattern, allowed) if _kind(p)]
        if not files:
            raise ValueError(NO_MATCH.format(pattern=pattern, roots=local_paths.roots_text(allowed)))
        real = [local_paths.real_inside(p, allowed) for p in files]
        kinds = sorted({_kind(p) for p in files})
        if len(kinds) > 1:
            raise ValueError(MIXED.format(pattern=pattern, types=", ".join(kinds)))
        stats = [_stat(p) for p in real]
        return cls(pattern.strip(), tuple(s[0] for s in stats), fingerprint=_fingerprint(*stats),
                   n_bytes=sum(s[1] for s in stats))

    @classmethod
    def database_file(cls, path: str) -> str:
        """The real path of a DuckDB database file under the allowed directories (ValueError otherwise)."""
        allowed = local_paths.allowed()
        matches = local_paths.candidates(path, allowed)
        if len(matches) != 1 or not matches[0].lower().endswith(DATABASE_TYPES):
            raise ValueError(NOT_DATABASE.format(path=path, types=", ".join(DATABASE_TYPES),
                                                 roots=local_paths.roots_text(allowed)))
        return local_paths.real_inside(matches[0], allowed)

    @classmethod
    def from_table(cls, database: str, table: str) -> "LocalSource":
        """Table (or view) `table` of the DuckDB database file `database` (from :meth:`database_file`)."""
        real, size, mtime = _stat(database)
        return cls(f"{os.path.basename(real)}: {table}", (), real, table, _fingerprint(real, size, mtime, table), size)

    def connection(self):
        """A DuckDB connection for this source's queries (:func:`local_paths.connect`: the files checked again
        before each query, a database read-only without external access), with ``FAIRNESS_DUCKDB_MEMORY``'s
        memory limit (default 1GB)."""
        return local_paths.connect(self.files, self.database, os.environ.get(MEMORY_ENV, "1GB"))

    def engine_source(self):
        """(source, connection) for ``fairness_core.engines``: the checked files as a list, which the engines read
        exactly as named (no glob expansion), or the table's name with a connection to its database."""
        con = self.connection()
        return (list(self.files) if self.database is None else self.table), con


def changed(source: LocalSource | None) -> bool:
    """Whether `source` no longer holds the rows it was read with (a file rewritten, added or removed).

    A glob and a few ``stat`` calls: every page checks it, so counts of other rows are never shown as
    these files' (the Data page then reads them again).
    """
    if source is None:
        return False
    try:
        now = (LocalSource.from_files(source.label) if source.database is None
               else LocalSource.from_table(source.database, source.table))
    except (ValueError, OSError):
        now = None
    return now is None or now.fingerprint != source.fingerprint


def tables_of(database: str) -> list[str]:
    """Tables and views of a DuckDB database file, by name."""
    con = LocalSource(database, (), database).connection()
    try:
        names = con.execute("SELECT table_name FROM information_schema.tables ORDER BY table_name").fetchall()
    finally:
        con.close()
    if not names:
        raise ValueError(NO_TABLES.format(path=os.path.basename(database)))
    return [n[0] for n in names]


def rows_of(source: LocalSource, n: int, *, sample: bool) -> pd.DataFrame:
    """The first `n` rows of the source (``sample=False``) or a seeded random sample of `n` rows (DuckDB's
    reservoir sample, the same rows every time). Raises ValueError with DuckDB's reason when it cannot read them."""
    from fairness_core import engines

    with _engine_errors(source, "read"):
        where, con = source.engine_source()
        try:
            return engines.preview(where, n, connection=con, sample=sample)
        finally:
            con.close()


def counts(source: LocalSource, mapping: fc.ColumnMapping, auc_bins):
    """``fairness_core.engines.scored_counts`` of the source under `mapping` (its connection stays open for
    threshold and calibration changes). Raises ValueError for a bad mapping or when DuckDB cannot read the rows."""
    from fairness_core import engines

    with _engine_errors(source, "count"):
        where, con = source.engine_source()
        return engines.scored_counts(where, mapping, auc_bins=auc_bins, connection=con, max_levels=MAX_EXACT_LEVELS)


def with_atoms(source: LocalSource, counted):
    """``ScoredCounts.with_atoms`` of counts from :func:`counts`: the atoms intervals need (one GROUP BY per table with
    identity columns; without, summed from the counts' own rows, no query; over ``MAX_PATTERNS`` membership
    patterns, per-bucket tables whatever the patterns, weighted or not; what they cannot give, the weighted bias AUC
    score's interval, is in its ``not_computed``). Raises ValueError when DuckDB cannot read the rows any more."""
    with _engine_errors(source, "count"):
        return counted.with_atoms(max_patterns=MAX_PATTERNS, too_many="buckets")


@contextlib.contextmanager
def _engine_errors(source: LocalSource, verb: str):
    """DuckDB's own errors (a file it cannot parse, a view that reads other files) as a ValueError that says so."""
    import duckdb

    try:
        yield
    except duckdb.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(ENGINE_FAILED.format(verb=verb, label=source.label, reason=reason)) from exc


def recounts(applied: fc.ColumnMapping | None, mapping: fc.ColumnMapping) -> bool:
    """Whether `mapping` needs a count of its own rather than `applied`'s (every field but the minimum size, which
    only flags subgroups); True when nothing is applied."""
    if applied is None:
        return True
    base = fc.ColumnMapping.min_size
    return repr(replace(applied, min_size=base)) != repr(replace(mapping, min_size=base))


def mapping_changes(applied: fc.ColumnMapping | None, mapping: fc.ColumnMapping) -> list[str]:
    """The edits from `applied` to `mapping` in words, Markdown-safe: "identity columns: + a, + b, − c",
    "label: y → z" (every field of ``MAPPING_FIELDS`` that differs)."""
    if applied is None:
        return []
    changes = []
    for name, words in MAPPING_FIELDS.items():
        old, new = getattr(applied, name), getattr(mapping, name)
        if repr(old) == repr(new):
            continue
        if isinstance(old, tuple) and isinstance(new, tuple):
            added = [f"+ {escape.md(c)}" for c in new if c not in old]
            removed = [f"− {escape.md(c)}" for c in old if c not in new]
            parts = added + removed or ["a new order"]
            changes.append(f"{words}: " + ", ".join(parts))
        else:
            changes.append(f"{words}: {escape.md('none' if old is None else old)} → "
                           f"{escape.md('none' if new is None else new)}")
    return changes


def counting_label(source: LocalSource, atoms: bool) -> str:
    """The progress message of a count (Markdown-safe): what is counted, where, and how big it is."""
    files = f"{len(source.files):,} file{'s' if len(source.files) != 1 else ''}, " if source.files else ""
    return (f"Counting every row of {escape.md(source.label)} with DuckDB where it lies ({files}"
            f"{_size_text(source.n_bytes)} on disk): one scan per score column"
            + (", then the counts per membership pattern that the intervals resample" if atoms else "") + " ...")


def _size_text(n_bytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{int(n_bytes)} bytes"
