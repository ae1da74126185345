"""Data on this machine: Parquet or CSV files, or a DuckDB table, counted by DuckDB where they lie.

The rows never enter pandas beyond a preview (the first rows, for the mapping widgets) or a random
sample the user asks for: ``fairness_core.engines.scored_counts`` returns the count tables, and the
pages read them through :class:`CountsData`, which answers what they read of ``ScoredData``.

A browser user must not read any file the server can: the source is offered only when the server
names the directories it may read in the environment variable ``FAIRNESS_LOCAL_DATA``, and every
file, after its links are resolved, must lie under one of them, when it is named and again before
each query (``fairness_dashboard.local_paths``, the boundary). DuckDB is given exactly the files checked, by their resolved paths, as a list, which the
engines read as named: glob characters in a name (``[``, ``*``, ``?``) are escaped, never
expanded again into other files. Several CSV files are combined by column name, and files without
the same columns are refused with a message. A DuckDB database is opened read-only with external
access off, so its views cannot read other files.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

import fairness_core as fc
from fairness_core.engines import TooManyPatterns

from . import escape, local_paths

MEMORY_ENV = "FAIRNESS_DUCKDB_MEMORY"   # DuckDB's memory_limit per query connection (it spills to disk beyond it)
PREVIEW_ROWS = 10_000   # rows read into pandas to fill the mapping widgets
SAMPLE_ROWS = 100_000   # rows of the random sample analysed in memory, on request
AUC_LEVELS = {"bins": 10_000, "exact": "exact"}
MAX_EXACT_LEVELS = 2_000_000   # distinct scores that exact AUC levels may bring into memory
MAX_PATTERNS = 50_000   # membership patterns whose atoms the intervals of counted data read (ScoredCounts.with_atoms'
                        # default: beyond it, reading them costs about as much as reading the rows)
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
BETWEEN_EDGES = (
    "The threshold {threshold} of {score} lies {where}: DuckDB counts {what} again at this threshold, a scan where "
    "the data lie. Choose a counted edge near it, such as {near}, for an instant answer from the count tables."
)
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
    """(path, size, modification time) of a file by its real path (from :func:`_real_inside`)."""
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
        """A DuckDB connection for this source's queries: read-only and without external access for a database
        (its views cannot read other files); for files, one that checks them again before each query
        (:class:`local_paths.CheckedConnection`); with ``FAIRNESS_DUCKDB_MEMORY``'s memory limit (default 1GB)."""
        import duckdb

        limit = os.environ.get(MEMORY_ENV, "1GB")
        if self.database is None:
            return local_paths.CheckedConnection(duckdb.connect(config={"memory_limit": limit}), self.files)
        return duckdb.connect(self.database, read_only=True,
                              config={"enable_external_access": False, "memory_limit": limit})

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


def with_atoms(source: LocalSource, counted) -> tuple:
    """(``ScoredCounts.with_atoms`` of counts from :func:`counts`, None), the atoms intervals need (one GROUP BY per
    table with identity columns; without, summed from the counts' own rows, no query); or (None, why) when the rows
    have too many membership patterns for a bootstrap. Raises ValueError when DuckDB cannot read the rows any more."""
    with _engine_errors(source, "count"):
        try:
            return counted.with_atoms(max_patterns=MAX_PATTERNS), None
        except TooManyPatterns as exc:
            return None, ("Intervals are off for this mapping. " + exc.reason + " Tip: map fewer identity columns, or "
                          "choose a random sample under Rows analysed (intervals then come from the rows in memory, "
                          "whatever the patterns).")


@contextlib.contextmanager
def _engine_errors(source: LocalSource, verb: str):
    """DuckDB's own errors (a file it cannot parse, a view that reads other files) as a ValueError that says so."""
    import duckdb

    try:
        yield
    except duckdb.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValueError(ENGINE_FAILED.format(verb=verb, label=source.label, reason=reason)) from exc


@dataclass(frozen=True)
class CountsSubgroups:
    """What the pages read of ``Subgroups``, from count tables: names, sizes and the small flags.

    ``codes`` is None (there are no rows); ``n_rows_small`` is None when the subgroups overlap,
    since marginal counts cannot say how many rows lie in at least one small subgroup.
    """

    names: list
    sizes: np.ndarray
    min_size: int
    disjoint: bool
    n_samples: int
    codes = None

    @property
    def small(self) -> np.ndarray:
        """Boolean flag per subgroup: fewer rows than ``min_size``."""
        return self.sizes < self.min_size

    @property
    def n_rows_small(self) -> int | None:
        """Rows in small subgroups when the subgroups are disjoint, else None."""
        return int(self.sizes[self.small].sum()) if self.disjoint else None

    def with_min_size(self, min_size: int) -> "CountsSubgroups":
        """The same subgroups with another small-subgroup threshold."""
        return CountsSubgroups(self.names, self.sizes, int(min_size), self.disjoint, self.n_samples)


@dataclass(frozen=True, eq=False)
class CountsData:
    """What the pages read of ``ScoredData``, answered from an engine's count tables.

    Attributes
    ----------
    counts : fairness_core.engines.ScoredCounts
    labels : ConfusionCounts
        The labels counted against themselves (``ScoredCounts.label_counts``).
    subgroups : CountsSubgroups
    """

    counts: object
    labels: fc.ConfusionCounts
    subgroups: CountsSubgroups

    @classmethod
    def of(cls, counts, min_size: int) -> "CountsData":
        """The facade of `counts` with subgroups flagged small below `min_size`."""
        labels = counts.label_counts()
        sizes = labels.member[:, [0, 3]].sum(axis=1)
        return cls(counts, labels, CountsSubgroups(list(labels.names), sizes, int(min_size), bool(labels.disjoint),
                                                   int(counts.n_rows)))

    mapping = property(lambda self: self.counts.mapping, doc="The column mapping.")
    predicted = property(lambda self: self.counts.given,
                         doc="The predicted label column's confusion counts, or None when none is mapped.")
    n_input = property(lambda self: self.counts.n_input, doc="Rows in the source.")
    n_rows = property(lambda self: self.counts.n_rows, doc="Rows kept.")
    exclusions = property(lambda self: self.counts.exclusions, doc="Rows left out, by reason.")
    score_ranges = property(lambda self: self.counts.score_ranges,
                            doc="Per score column: (smallest, largest, every score whole).")

    @property
    def scores(self) -> dict:
        """The mapped score columns (their values stay in the source: read ranges with ``score_ranges``)."""
        return {s: None for s in self.counts.mapping.scores}

    weights = None   # the rows' weights stay where they lie; ``weighted`` says whether the counts sum them (as
    # ScoredData's ``weights``, ``weighted``, ``weight_total`` and ``effective_rows``, which the pages read of both)

    @property
    def weighted(self) -> bool:
        """Whether the counts are sums of sample weights (the mapping names a weight column)."""
        return bool(self.labels.weighted)

    @property
    def base_rate(self) -> float:
        """Share of positive labels among the kept rows (with weights: of the total weight)."""
        negatives, positives = float(self.labels.overall[0]), float(self.labels.overall[3])
        return positives / (negatives + positives) if negatives + positives else float("nan")

    def base_rate_interval(self, level: float) -> tuple[float, float]:
        """As ``ScoredData.base_rate_interval``: Wilson's interval of the base rate, on the effective sample size
        with weights."""
        positives, n = self.labels.overall[3], self.labels.overall.sum()
        if not self.weighted:
            low, high = fc.wilson_interval(int(positives), int(n), level)
        else:
            squares = self.labels.overall_sq
            low, high = fc.weighted_wilson_interval(positives, n, squares[3], squares[0], level)
        return float(np.asarray(low).reshape(-1)[0]), float(np.asarray(high).reshape(-1)[0])

    @property
    def effective_rows(self) -> float:
        """Kish's effective sample size of the kept rows; the rows without weights."""
        if not self.weighted:
            return float(self.n_rows)
        return float(fc.effective_size(self.labels.overall.sum(), self.labels.overall_sq.sum()))

    @property
    def weight_total(self) -> float:
        """The kept rows' sum of weights (the rows without weights)."""
        return float(self.labels.overall.sum())

    @property
    def class_names(self) -> list:
        """The label's two values as text, sorted (the engines count no multi-class label)."""
        return self.counts.class_names

    def subgroup_table(self) -> pd.DataFrame:
        """As ``ScoredData.subgroup_table``: ``subgroup, size, share, n_positive, n_negative, small`` (with weights
        the effective sizes, shares of the weight, sums of weights, then ``rows`` and ``weight``)."""
        member = self.labels.member
        if self.weighted:
            total = member.sum(axis=1)
            sizes = fc.effective_size(total, self.labels.member_sq.sum(axis=1))
            return pd.DataFrame({
                "subgroup": self.subgroups.names, "size": sizes, "share": total / max(self.weight_total, 1e-300),
                "n_positive": member[:, 3], "n_negative": member[:, 0], "small": sizes < self.subgroups.min_size,
                "rows": self.counts.subgroup_rows(), "weight": total})
        sizes = self.subgroups.sizes.astype(np.int64)
        return pd.DataFrame({
            "subgroup": self.subgroups.names, "size": sizes, "share": sizes / max(self.n_rows, 1),
            "n_positive": member[:, 3].astype(np.int64), "n_negative": member[:, 0].astype(np.int64),
            "small": self.subgroups.small,
        })


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


def nearest_edges(counts, score: str, threshold: float) -> list[float]:
    """The thresholds nearest `threshold` (one below, one above, when there are) that `counts`
    (``fairness_core.engines.ScoredCounts``) answer without a scan (``ScoredCounts.atom_thresholds``)."""
    edges = counts.atom_thresholds(score)
    if not len(edges):
        return []
    i = int(np.searchsorted(edges, float(threshold)))
    return [float(edges[j]) for j in (i - 1, i) if 0 <= j < len(edges)]


def counted_edges(data, score: str):
    """The thresholds of `score` that data counted where they lie answer from their counted atoms without a scan
    (``ScoredCounts.atom_thresholds``), or None when `data` are rows in memory or counts without atoms (every
    threshold is then cheap)."""
    counts = getattr(data, "counts", None) if isinstance(data, CountsData) else None
    if counts is None or not counts.atoms:
        return None
    return np.asarray(counts.atom_thresholds(score), dtype=np.float64)


def scans(counts, score: str, threshold: float) -> bool:
    """Whether the confusion counts of `score` at `threshold` need a scan of the source (``ScoredCounts.needs_query``:
    neither read off the AUC counts nor, with atoms, off their atoms)."""
    return bool(counts.needs_query(score, float(threshold)))


def threshold_note(counts, score: str, threshold: float) -> str | None:
    """Why a threshold on data counted where it lies costs a scan and which thresholds nearby do not (Markdown-safe),
    or None when the count tables answer it (``BETWEEN_EDGES``)."""
    if threshold is None or not scans(counts, score, threshold):
        return None
    near = " or ".join(f"{t:.6g}" for t in nearest_edges(counts, score, threshold)) or "another threshold"
    if counts.atoms:
        where = "between the edges of the score groups that the intervals' counts were taken at"
        what = "every row per membership pattern"
    else:
        where, what = "inside a score bin of the count tables", "the rows between its bin edges"
    return BETWEEN_EDGES.format(threshold=escape.md(f"{float(threshold):g}"), score=escape.md(repr(score)),
                                where=where, what=what, near=escape.md(near))
