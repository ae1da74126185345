"""Count tables computed where the data lives: DuckDB (embedded, out of core), Spark (a cluster), polars
(streaming) or an ibis table's own backend (a SQL database).

Every metric of ``fairness_core`` is a function of small count tables (``ConfusionCounts``,
``CalibrationCounts``, ``AucCounts``). :func:`scored_counts` computes them with three kinds of
GROUP BY queries in the engine (see ``_sql``), so no row reaches Python: only one row per
(protected values, label, score level, calibration bin, prediction) comes back, and everything
after the counts is the in-memory library's own code.

``import fairness_core`` imports nothing from here; this package imports an engine only inside
the function that uses it (DuckDB, pyspark, polars, ibis and SQLGlot are optional extras:
``pip install duckdb sqlglot``, and ``pyspark``, ``polars`` or ``ibis-framework`` for those).
"""

from __future__ import annotations

import dataclasses
import glob as _glob
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import numpy as np
import pandas as pd

from .._metrics.auc_counts import AucCounts, bin_edges_of, uniform_score_bins
from .._stats.auc_bootstrap import _merged_levels
from .._stats.bootstrap import Atoms
from .._counts.binning import SUB_BINS, uniform_edges
from .._counts.calibration import CalibrationAtoms, CalibrationCounts
from .._counts.classes import ClassCounts
from .._counts.confusion import ConfusionCounts, base_rate_counts
from .._counts.patterns import over_patterns
from .._counts.scored_data import (LABEL_ALIKE, LABEL_TOO_FEW, LABEL_VALUES, MAX_SUBGROUPS, MISSING_SCORE,
    NO_ROWS_LEFT, POSITIVE_MISSING, PREDICTED_VALUES, ColumnMapping, _as_text, _check_roles, _predicted_positive,
    _same, _show)
from .._subgroups.subgroups import INDICATOR_RANGE_MESSAGE, Subgroups, quantile_edges_from_counts, quantiles_from_counts
from . import _sql

__all__ = ["ScoredCounts", "scored_counts", "preview", "read_source", "ENGINES"]

ENGINES = ("duckdb", "spark", "polars", "ibis")
MAX_CATEGORIES = 10          # a numeric protected attribute with more values is cut into quantile bins (as in memory)
MAX_HISTOGRAM = 5_000_000    # distinct values of such a column the engine may return to find its quantiles
CSV_TYPES = ["BIGINT", "DOUBLE", "DATE", "TIMESTAMP", "VARCHAR"]   # what DuckDB may guess for a CSV column
SOURCE_MESSAGE = (
    "scored_counts: cannot read {source!r}. Give a Parquet or CSV path or glob (e.g. 'logs/*.parquet'), "
    "a DuckDB relation, a table name with its DuckDB connection, or a pyspark DataFrame."
)
NO_FILES = "scored_counts: no file matches {source!r}. Tip: check the path or glob."
TOO_MANY_LEVELS = (
    "Exact AUC levels of {col!r} would keep each of its {n:,} distinct scores (more than {max:,}), a table nearly "
    "as large as the data. Tip: use score bins (auc_bins=10000: each AUC within its reported max binning error)."
)
QUANTILE_SCORES = (
    "Quantile calibration bins of {col!r} need its distinct scores, and it has {n:,}, more than scored_counts "
    "reads. Tip: choose uniform bins."
)
MAX_PATTERNS = 5_000          # membership patterns with_atoms accepts by default (each a stratum of the bootstrap)
TOO_MANY_PATTERNS = (
    "Intervals from count tables resample the counts of each membership pattern (a combination of subgroups and "
    "backgrounds: protected values and identity columns), and these rows have {n:,} patterns, more than {max:,}: "
    "a bootstrap over them would take minutes per table. Tip: choose fewer identity columns, or compute intervals "
    "on a random sample of the rows."
)
BINNED_PROTECTED = (
    "The protected attribute {col!r} is numeric with {n:,} distinct values, more than scored_counts reads to find "
    "its quantile bins. Tip: bin it where the data lives (e.g. a view with a CASE expression) or choose a "
    "categorical column."
)


@dataclass(frozen=True, eq=False)
class ScoredCounts:
    """The count tables of a mapped source, per score column, with the rows excluded and why.

    Attributes
    ----------
    mapping : ColumnMapping
    n_input : int
        Rows in the source.
    n_rows : int
        Rows kept (no missing label or score).
    exclusions : DataFrame
        Columns ``reason, rows``: the rows left out, counted by the first reason that applies, with
        the texts of ``ScoredData.exclusions``.
    threshold : float
        Decision threshold of ``confusion`` (``score >= threshold`` predicts positive).
    confusion : dict of str -> ConfusionCounts
        Per score column, at `threshold`.
    auc : dict of str -> AucCounts
        Per score column: exact levels or bins (see `auc_bins` of :func:`scored_counts`).
    calibration : dict of str -> CalibrationCounts or None
        Per score column (uniform bins); None when the scores leave [0, 1] (see ``calibration_notes``).
    calibration_notes : dict of str -> str
        Why a score column has no calibration counts ('' when it has).
    engine : str
    score_ranges : dict of str -> (float, float, bool)
        Per score column over the kept rows: smallest and largest score, and whether every score is a
        whole number (what ``default_threshold`` needs).
    label_values : tuple
        The label's two values as the source holds them.
    given : ConfusionCounts or None
        The confusion counts of the predicted label column, when one is mapped.
    classes : ClassCounts or None
        With ``all_classes`` and a predicted label column: true against predicted class per
        subgroup, every class (``ScoredData.class_counts()``).
    class_sizes : dict of str -> int
        With ``all_classes``: kept rows per class (the label's values as text).
    atoms : bool
        True when every table holds the atoms its bootstrap resamples (see :meth:`with_atoms`), so
        the library's intervals (``ci=``) work on it as on rows in memory.
    labels : ConfusionCounts or None
        With `atoms`: the labels counted against themselves, atoms included (:meth:`label_counts`).
    """

    mapping: ColumnMapping
    n_input: int
    n_rows: int
    exclusions: pd.DataFrame
    threshold: float
    confusion: dict
    auc: dict
    calibration: dict
    calibration_notes: dict
    engine: str
    score_ranges: dict = field(default_factory=dict)
    _requery: Optional[Callable] = field(default=None, repr=False)
    _recalibrate: Optional[Callable] = field(default=None, repr=False)
    label_values: tuple = ()
    given: Optional[ConfusionCounts] = None
    classes: Optional[ClassCounts] = None
    class_sizes: dict = field(default_factory=dict)
    atoms: bool = False
    labels: Optional[ConfusionCounts] = None
    _atom_queries: Optional["_AtomQueries"] = field(default=None, repr=False)

    def with_atoms(self, max_patterns: Optional[int] = MAX_PATTERNS) -> "ScoredCounts":
        """The same counts with the atoms of the bootstrap: what ``ci=`` needs on every table.

        The bootstrap of ``fairness_core`` resamples counts per (row membership pattern, cell), never
        rows (``_bootstrap``). The engine counts them with one more GROUP BY per table, over the
        protected values and each identity column's membership instead of per-subgroup sums: the
        confusion counts at ``threshold``, the labels, the predicted label column (and its class-wise
        counts), the AUC counts
        (score levels merged into at most 256 groups of about equal rows, as in memory) and the
        calibration counts (each bin in sub-bins, as in memory). Patterns are numbered as
        ``Subgroups.patterns`` numbers them, so a seed gives the in-memory library's intervals.
        Afterwards :meth:`confusion_at` and :meth:`calibration_at` count atoms too (one scan each).

        Parameters
        ----------
        max_patterns : int or None, default=MAX_PATTERNS
            Refuse rows with more membership patterns than this, before any pattern is read: the engine
            counts the distinct membership keys (``_sql.pattern_count_query``, one number; at least the
            patterns, and equal to them but where two keys give one pattern):
            the bootstrap's work grows with patterns x cells x replicates (many independent identity
            columns can give tens of thousands of patterns). None: no bound.

        Returns
        -------
        ScoredCounts
            With ``atoms=True``: equal counts (calibration sums up to summation order), and the
            atoms in ``ConfusionCounts.atoms``, ``CalibrationCounts.atoms`` and ``AucCounts.patterns``.

        Raises
        ------
        ValueError
            If this result has no engine to query again, or with more than `max_patterns` patterns
            (``TOO_MANY_PATTERNS``).
        """
        if self.atoms:
            return self
        q = self._atom_queries
        if q is None:
            raise ValueError("ScoredCounts.with_atoms: this result has no engine to query again.")
        if max_patterns is not None:   # one number counted where the data lies, before any pattern is read
            n_patterns = q.n_patterns()
            if n_patterns > max_patterns:
                raise ValueError(TOO_MANY_PATTERNS.format(n=n_patterns, max=max_patterns))
        labels = q.labels()
        return dataclasses.replace(
            self, atoms=True, labels=labels, given=None if self.given is None else q.given(),
            classes=None if self.classes is None else q.classes(),
            confusion={s: q.confusion(s, self.threshold) for s in self.confusion},
            auc={s: q.auc(s, counts) for s, counts in self.auc.items()},
            calibration={s: None if c is None else q.calibration(s, c.edges, c.strategy)
                         for s, c in self.calibration.items()})

    def confusion_at(self, score: str, threshold: float) -> ConfusionCounts:
        """The confusion counts of `score` at another threshold.

        Read off the AUC counts when they can answer exactly (exact levels, or a threshold on a bin
        edge); otherwise the engine runs the counts query of that score again. With :attr:`atoms`, the
        engine counts the atoms at this threshold (one GROUP BY).

        Raises
        ------
        KeyError
            If `score` is not a mapped score column.
        ValueError
            For a NaN threshold.
        """
        counts = self.auc[score]
        if np.isnan(float(threshold)):
            raise ValueError("ScoredCounts.confusion_at: the threshold is NaN. Tip: choose a number.")
        if self.atoms:   # the atoms of the bootstrap at this threshold: one GROUP BY of the patterns
            return self.confusion[score] if float(threshold) == self.threshold else \
                self._atom_queries.confusion(score, float(threshold))
        if counts.exact or float(threshold) in counts.edges[:-1] or not (
                counts.edges[0] < float(threshold) <= counts.edges[-1]):
            return counts.confusion_at(threshold)
        if self._requery is None:
            raise ValueError("ScoredCounts.confusion_at: this result has no engine to query again.")
        return self._requery(score, float(threshold))

    def calibration_at(self, score: str, n_bins: int, strategy: str = "uniform") -> Optional[CalibrationCounts]:
        """The calibration counts of `score` with `n_bins` uniform bins over [0, 1], or quantile bins.

        The counts already computed when `n_bins` and `strategy` are theirs; otherwise the engine
        runs the calibration query of that score again (one GROUP BY over the source; quantile bins
        first read the score's distinct values and counts, as for ``strategy`` of :func:`scored_counts`).

        Returns
        -------
        CalibrationCounts or None
            None when the score leaves [0, 1] (``calibration_notes`` says why).

        Raises
        ------
        KeyError
            If `score` is not a mapped score column.
        ValueError
            For `n_bins` not an integer >= 1, an unknown strategy, too many distinct scores for quantile
            bins, or a result with no engine to query again.
        """
        counts = self.calibration[score]
        if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
            raise ValueError(f"ScoredCounts.calibration_at: n_bins must be an integer >= 1. Got {n_bins!r} instead.")
        if strategy not in ("uniform", "quantile"):
            raise ValueError(f"ScoredCounts.calibration_at: strategy must be 'uniform' or 'quantile'. Got {strategy!r}.")
        if counts is None or (len(counts.edges) == int(n_bins) + 1 and counts.strategy == strategy):
            return counts
        if self._recalibrate is None:
            raise ValueError("ScoredCounts.calibration_at: this result has no engine to query again.")
        return self._recalibrate(score, int(n_bins), strategy, self.atoms)

    @property
    def class_names(self) -> list:
        """The label's values as text, sorted (``ScoredData.class_names``)."""
        return sorted(str(t) for t in _as_text(list(self.label_values)))

    @property
    def n_classes(self) -> int:
        """Classes of the label."""
        return len(self.label_values)

    def class_counts_at(self, score: Optional[str] = None, threshold: Optional[float] = None) -> ClassCounts:
        """The class-wise counts of `score` at `threshold` (None: of the predicted label column): true against
        predicted class per subgroup.

        Equal to ``ScoredData.class_counts(score, threshold)`` on the same rows: the two classes are
        the label's values as text, sorted, and ``score >= threshold`` (or the predicted label's
        positive value) predicts the positive one. With :attr:`atoms`, atoms included.

        Raises
        ------
        ValueError
            For ``score=None`` without a predicted label column.
        """
        if score is None and self.given is None:
            raise ValueError("No predicted label column is mapped; choose a score column and a threshold.")
        if score is None and self.classes is not None:
            return self.classes
        if len(self.label_values) != 2:
            raise ValueError(f"A score can only predict a label with two classes; this label has "
                             f"{len(self.label_values)}. Tip: map a predicted label column for a multi-class label.")
        c = self.given if score is None else self.confusion_at(score, threshold)
        labels = self.class_names
        positive = str(_as_text([self.mapping.positive_label])[0])
        # (true, predicted) of the sorted classes from TN, FP, FN, TP: positive second -> as is.
        order = [0, 1, 2, 3] if labels[1] == positive else [3, 2, 1, 0]

        def matrices(table: np.ndarray) -> np.ndarray:
            return np.asarray(table, dtype=np.float64)[..., order].reshape(*np.shape(table)[:-1], 2, 2)

        atoms = None if c.atoms is None else Atoms(c.atoms.counts[:, order], c.atoms.member, c.atoms.background)
        return ClassCounts(list(c.names), labels, matrices(c.member), matrices(c.overall),
                           np.zeros(len(c.names)), 0, c.min_size, atoms=atoms)

    def label_counts(self) -> ConfusionCounts:
        """The labels counted against themselves per subgroup (TN = negatives, TP = positives, no FP or FN).

        Their selection rate is the base rate, as ``confusion_counts(y_true, y_true, subgroups)``
        in memory (dataset statistical parity, base rates); with :attr:`atoms`, atoms included.
        """
        
        if self.labels is not None:
            return self.labels
        return base_rate_counts(self.confusion[self.mapping.scores[0]] if self.mapping.scores else self.given)


def scored_counts(source: Any, mapping: ColumnMapping, *, threshold: float = 0.5, n_bins: int = 10,
                  strategy: str = "uniform", auc_bins: Union[int, str] = 10_000, engine: Optional[str] = None,
                  connection: Any = None, memory_limit: Optional[str] = None,
                  max_levels: Optional[int] = 2_000_000) -> ScoredCounts:
    """Compute every count table of `mapping` where the data lives.

    Parameters
    ----------
    source : str, os.PathLike, DuckDB relation, table name, pyspark DataFrame, polars LazyFrame or ibis table
        A Parquet or CSV file, directory-free glob (``"logs/*.parquet"``) or a list of such paths
        (read by DuckDB out of core, or with ``engine="polars"`` by polars' streaming engine); a
        ``duckdb.DuckDBPyRelation``; a table or view name in `connection` (a
        ``duckdb.DuckDBPyConnection``); a ``pyspark.sql.DataFrame`` (computed by its Spark session,
        e.g. on a cluster); a ``polars.LazyFrame`` / ``DataFrame``; or an ibis table (computed by
        its backend: any SQL database ibis reaches, e.g. PostgreSQL, Snowflake, BigQuery, SQLite).
    mapping : ColumnMapping
        As in memory: label and positive label, score columns, protected attributes (categorical, or
        numeric ones cut into quantile bins), identity columns, a predicted label column (its
        confusion counts are ``given``) and ``all_classes`` (binary metrics on the positive class
        against the rest; with a predicted label column the class-wise counts are ``classes``).
    threshold : float, default=0.5
        Decision threshold of the confusion counts.
    n_bins : int >= 1, default=10
        Calibration bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Calibration binning: equal bins over [0, 1], or quantiles of the kept rows' scores (found
        from the score's distinct values and counts, at most ``MAX_HISTOGRAM`` of them, with
        numpy's own interpolation, so the edges are the in-memory ones).
    auc_bins : int >= 2 or "exact", default=10000
        Score levels of the AUC counts: B equal bins between the smallest and largest score (each
        AUC then within its ``max_binning_error`` of the exact value; the count table is at most
        rows(keys) x 2 x B), or "exact" (one level per distinct score: equal to the in-memory AUCs,
        but the result grows with the distinct scores).
    engine : {"duckdb", "spark", "polars", "ibis"} or None
        None picks Spark for a pyspark DataFrame, polars for a polars frame, ibis for an ibis table
        and DuckDB otherwise. The same SQL runs on each: DuckDB's dialect as written, transpiled by
        SQLGlot for Spark and for an ibis table's backend, and as written by polars' SQL context.
    connection : duckdb.DuckDBPyConnection or None
        DuckDB connection to use (a table name needs one); None opens an in-memory database.
    memory_limit : str or None
        DuckDB's ``memory_limit`` for a connection opened here, e.g. ``"2GB"`` (DuckDB spills to
        disk beyond it).
    max_levels : int or None, default=2000000
        With ``auc_bins="exact"``: refuse a score column with more distinct values than this
        (counted first, one more scan; ``TOO_MANY_LEVELS``), whose exact levels would bring a table
        as large as the data back into memory (10⁷ distinct scores took 7.5 GB). None: no check.

    Returns
    -------
    ScoredCounts

    Raises
    ------
    ValueError
        For a missing column, a label without two values, a positive label that does not occur,
        identity values outside [0, 1], no rows left, too many subgroups, more distinct scores than
        `max_levels` with exact levels, an unsupported option, or a source that cannot be read.
        Messages follow ``ScoredData.from_frame``'s.
    ImportError
        If the engine's package (duckdb, pyspark) or sqlglot is not installed.

    Notes
    -----
    Exclusions are counted as ``ScoredData`` counts them: a missing label first, then a missing or
    infinite value in each score column in mapping order. An identity value that is missing, NaN
    or infinite leaves the row out of that subgroup and its background. Every count equals the
    in-memory library's on the same rows (sums of scores up to floating-point summation order).
    """
    func = "scored_counts"
    m = mapping
    if strategy not in ("uniform", "quantile"):
        raise ValueError(f"The 'strategy' parameter of {func} must be 'uniform' or 'quantile'. Got {strategy!r} instead.")
    if not isinstance(auc_bins, str) and (isinstance(auc_bins, bool) or not isinstance(auc_bins, (int, np.integer))
                                          or auc_bins < 2):
        raise ValueError(f'The \'auc_bins\' parameter of {func} must be "exact" or an integer >= 2. Got {auc_bins!r} instead.')
    if isinstance(auc_bins, str) and auc_bins != "exact":
        raise ValueError(f'The \'auc_bins\' parameter of {func} must be "exact" or an integer >= 2. Got {auc_bins!r} instead.')
    run, columns, name = _runner(source, engine, connection, memory_limit)
    _check_roles(pd.DataFrame(columns=columns), m)   # ScoredData's checks: missing columns, clashes, no model

    labels = run(_sql.label_query(m.label))
    counts = {v: int(n) for v, n in zip(labels["v"], labels["n"]) if not pd.isna(v)}
    values = list(counts)
    if len(values) < 2:
        raise ValueError(LABEL_TOO_FEW.format(col=m.label, n=len(values), values=_show(values)))
    if len(values) != 2 and not m.all_classes:
        raise ValueError(LABEL_VALUES.format(col=m.label, n=len(values), values=_show(values)))
    if len({str(v) for v in values}) < 2:
        raise ValueError(LABEL_ALIKE.format(col=m.label, values=_show(values)))
    matches = [v for v in values if _same(v, m.positive_label)]
    if not matches:
        raise ValueError(POSITIVE_MISSING.format(value=m.positive_label, col=m.label, values=_show(values)))

    predicted_positive = None
    if m.predicted_label is not None:   # its values and positive one, found as ScoredData finds them
        col = m.predicted_label
        given_values = [v for v in run(_sql.label_query(col))["v"] if not pd.isna(v)]
        if m.all_classes:   # the predicted class that is the label's positive one, if it occurs
            predicted_positive = next((v for v in given_values if _same(v, matches[0])), None)
        elif len(given_values) > 2:
            raise ValueError(PREDICTED_VALUES.format(col=col, n=len(given_values), values=_show(given_values)))
        else:
            predicted_positive = _predicted_positive(given_values, m.positive_label, col)
    plan = _sql.Plan(m.label, _plain(matches[0]), tuple(m.scores), tuple(m.protected), tuple(m.indicators),
                     float(m.indicator_threshold), m.predicted_label,
                     None if predicted_positive is None else _plain(predicted_positive))
    preview = run(f"SELECT {', '.join(_sql.ident(c) for c in m.protected)} FROM {_sql.SOURCE} LIMIT 1000") \
        if m.protected else pd.DataFrame()
    numeric = [c for c in m.protected if pd.api.types.is_numeric_dtype(preview[c])
               and not pd.api.types.is_bool_dtype(preview[c])]
    profile = run(_sql.profile_query(plan, numeric))
    reasons = dict(zip(profile["reason"].astype(int), profile["n"].astype(np.int64)))
    n_input, n_rows = int(sum(reasons.values())), int(reasons.get(0, 0))
    texts = ["missing label"] + [MISSING_SCORE.format(col=s) for s in m.scores] + (
        [f"missing predicted label in {m.predicted_label!r}"] if m.predicted_label is not None else [])
    left_out = pd.Series({texts[r - 1]: n for r, n in reasons.items() if r}, dtype=np.int64).sort_values(ascending=False)
    exclusions = pd.DataFrame({"reason": left_out.index.astype(str), "rows": left_out.to_numpy()})
    if n_rows == 0:
        raise ValueError(NO_ROWS_LEFT.format(reasons=", ".join(
            f"{n:,} rows with {r}" for r, n in zip(exclusions["reason"], exclusions["rows"]))))
    kept = profile[profile["reason"].astype(int) == 0].iloc[0]
    for i, c in enumerate(m.indicators):
        low, high = kept[f"id_min_{i}"], kept[f"id_max_{i}"]
        low, high = (0.0 if pd.isna(low) else float(low)), (0.0 if pd.isna(high) else float(high))
        if low < 0 or high > 1:
            raise ValueError(INDICATOR_RANGE_MESSAGE.format(col=c, low=low, high=high))
    binned = {}   # numeric protected attributes with many values: quantile bins, edges from their histograms
    for i, c in enumerate(numeric):
        if int(kept[f"distinct_{i}"]) > MAX_CATEGORIES:
            histogram = run(_sql.histogram_query(plan, c))
            if len(histogram) > MAX_HISTOGRAM:
                raise ValueError(BINNED_PROTECTED.format(col=c, n=len(histogram)))
            binned[c] = quantile_edges_from_counts(histogram["v"], histogram["n"], m.n_bins)
    if binned:
        plan = dataclasses.replace(plan, binned=tuple((c, tuple(map(float, e))) for c, e in binned.items()))
        run = _with_bins(run, binned)

    with_missing = [int(kept[f"id_missing_{i}"] or 0) > 0 for i in range(len(m.indicators))]
    if auc_bins == "exact" and max_levels is not None:
        for score in m.scores:
            n_levels = int(run(_sql.distinct_query(plan, score))["n"].iloc[0])
            if n_levels > max_levels:
                raise ValueError(TOO_MANY_LEVELS.format(col=score, n=n_levels, max=max_levels))

    def query(score: str, t: float):
        i = m.scores.index(score)
        low, high = float(kept[f"score_min_{i}"]), float(kept[f"score_max_{i}"])
        in_unit = 0.0 <= low and high <= 1.0
        bins = None
        if auc_bins != "exact":
            start, step = uniform_score_bins(low, high, int(auc_bins))
            bins = (start, step, int(auc_bins), bin_edges_of(start, step, int(auc_bins), high))
        cal_edges = calibration_edges(score, int(n_bins), strategy) if in_unit else None
        frame = run(_sql.counts_query(plan, score, threshold=t, cal_edges=None,
                                      bins=None if bins is None else bins[:3], with_missing=with_missing))
        cal_frame = None if cal_edges is None else run(_sql.counts_query(
            plan, score, threshold=None, cal_edges=cal_edges, bins=None, with_missing=with_missing, by_level=False))
        return frame, cal_frame, bins, cal_edges, (low, high)

    def requery(score: str, t: float) -> ConfusionCounts:
        """Counts at a threshold inside bin b: those at the edge above it, plus the rows t <= score < edge."""
        counts = auc[score]
        b = min(int(np.searchsorted(counts.edges, t, side="right")) - 1, len(counts.levels) - 1)   # the last bin is closed
        last = b == len(counts.levels) - 1
        base = counts.confusion_at(np.inf if last else counts.edges[b + 1])
        band = run(_sql.band_query(plan, score, low=t, high=None if last else float(counts.edges[b + 1]),
                                   with_missing=with_missing))
        member, background, overall = (np.array(a, dtype=np.float64) for a in (base.member, base.background,
                                                                                base.overall))
        if len(band):
            moved = keys[score].tables(band, band["__fc_y"].to_numpy(dtype=np.int64), 2,
                                       {"n": band["__fc_n"].to_numpy(dtype=np.float64)})
            for total, delta in zip((member, background, overall), (d["n"] for d in moved)):
                total[..., [0, 2]] -= delta   # TN, FN of the rows that now reach the threshold ...
                total[..., [1, 3]] += delta   # ... become FP, TP
        return ConfusionCounts(list(base.names), member, background, overall, base.min_size, disjoint=base.disjoint)

    score_histograms = {}

    def calibration_edges(score: str, nb: int, how: str) -> np.ndarray:
        """Uniform edges, or numpy's quantiles of the kept rows' scores from their distinct values and counts."""
        if how == "uniform":
            return uniform_edges(nb)
        if score not in score_histograms:
            histogram = run(_sql.histogram_query(plan, score))
            if len(histogram) > MAX_HISTOGRAM:
                raise ValueError(QUANTILE_SCORES.format(col=score, n=len(histogram)))
            score_histograms[score] = histogram
        histogram = score_histograms[score]
        return quantiles_from_counts(histogram["v"], histogram["n"], np.linspace(0.0, 1.0, nb + 1))

    def recalibrate(score: str, nb: int, how: str = "uniform", atoms: bool = False) -> CalibrationCounts:
        cal_edges = calibration_edges(score, nb, how)
        if atoms:
            return atom_queries.calibration(score, cal_edges, how)
        cal_frame = run(_sql.counts_query(plan, score, threshold=None, cal_edges=cal_edges, bins=None,
                                          with_missing=with_missing, by_level=False))
        return _calibration(cal_frame, keys[score], cal_edges, how)

    atom_queries = _AtomQueries(run, plan, m, binned, with_missing, None if auc_bins == "exact" else int(auc_bins),
                                {s: (float(kept[f"score_min_{i}"]), float(kept[f"score_max_{i}"]))
                                 for i, s in enumerate(m.scores)})
    keys, confusion, auc, calibration, notes = {}, {}, {}, {}, {}
    for score in m.scores:
        frame, cal_frame, bins, cal_edges, (low, high) = query(score, float(threshold))
        keys[score], confusion[score], auc[score] = _assemble(frame, m, bins, binned)
        calibration[score] = None if cal_frame is None else _calibration(cal_frame, keys[score], cal_edges, strategy)
        notes[score] = "" if cal_edges is not None else (
            f"{score!r} ranges over [{low:g}, {high:g}], outside [0, 1]: calibration needs probabilities.")
    ranges = {s: (float(kept[f"score_min_{i}"]), float(kept[f"score_max_{i}"]),
                  int(kept[f"score_fractional_{i}"] or 0) == 0) for i, s in enumerate(m.scores)}
    given = _given_counts(run(_sql.given_query(plan, with_missing)), m, binned) \
        if m.predicted_label is not None else None
    classes = _class_counts(run(_sql.classes_query(plan, with_missing)), m, binned) \
        if m.all_classes and m.predicted_label is not None else None
    class_sizes = {}
    if m.all_classes:
        sizes = run(_sql.kept_label_query(plan))
        class_sizes = dict(zip((str(t) for t in _as_text(sizes["v"].tolist())), sizes["n"].astype(int).tolist()))
    return ScoredCounts(m, n_input, n_rows, exclusions, float(threshold), confusion, auc, calibration, notes,
                        name, ranges, requery, recalibrate, tuple(_plain(v) for v in values), given, classes,
                        class_sizes, _atom_queries=atom_queries)


def preview(source: Any, n: int = 10_000, *, engine: Optional[str] = None, connection: Any = None,
            sample: bool = False) -> pd.DataFrame:
    """The first `n` rows of `source`, or a random sample of `n` rows, as a DataFrame (never the whole source).

    Parameters
    ----------
    source, engine, connection
        As :func:`scored_counts`.
    n : int, default=10000
    sample : bool, default=False
        A seeded random sample (DuckDB's reservoir sample with seed 0, so the same rows each time)
        instead of the first rows; DuckDB only.

    Returns
    -------
    DataFrame of at most `n` rows

    Raises
    ------
    ValueError
        For ``sample=True`` with Spark.
    """
    run, _, name = _runner(source, engine, connection, None)
    if not sample:
        return run(f"SELECT * FROM {_sql.SOURCE} LIMIT {int(n)}")
    if name != "duckdb":
        raise ValueError("preview(sample=True) draws its sample with DuckDB. Tip: use DataFrame.sample on Spark.")
    return run(f"SELECT * FROM {_sql.SOURCE} USING SAMPLE reservoir({int(n)} ROWS) REPEATABLE (0)")


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


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def _runner(source, engine, connection, memory_limit):
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
        if not spark_df:
            raise ValueError("engine='spark' needs a pyspark DataFrame as the source (spark.read.parquet(...)).")
        source.createOrReplaceTempView(_sql.SOURCE)
        session = source.sparkSession
        # Arrow, not toPandas: the results are small, and pyspark's pandas bridge lags pandas 3.
        return (lambda sql: session.sql(_sql.transpile(sql, "spark")).toArrow().to_pandas()), list(source.columns), \
            "spark"
    import duckdb

    con = connection
    if con is None:
        con = duckdb.connect()
        if memory_limit:
            con.execute(f"SET memory_limit = {_sql.literal(str(memory_limit))}")
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


def _polars_runner(source, polars_frame: bool):
    """The same SQL run by polars' SQL context on a lazy scan, collected with its streaming engine.

    Paths as :func:`_source_files` names them, each scanned with ``glob=False`` (read as named); CSV
    files one scan each, combined by name (``diagonal_relaxed``, once their columns are the same).
    """
    import polars as pl

    if polars_frame:
        frame = source.lazy()
    elif isinstance(source, (str, os.PathLike, list, tuple)):
        files = _source_files(source, _python_glob)   # each read as named: glob=False
        if _is_csv(files[0]):   # one scan per file, combined by name (polars' own scan matches them by position)
            scans = [pl.scan_csv(p, glob=False, infer_schema_length=10_000) for p in files]
            _check_columns(files, lambda i: scans[i].collect_schema().names())
            frame = scans[0] if len(scans) == 1 else pl.concat(scans, how="diagonal_relaxed")
        else:
            _check_columns(files, lambda i: pl.scan_parquet(files[i], glob=False).collect_schema().names())
            frame = pl.scan_parquet(files, glob=False)
    else:
        raise ValueError("engine='polars' needs a Parquet or CSV path or glob, or a polars (Lazy)DataFrame.")
    context = pl.SQLContext({_sql.SOURCE: frame})
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


class _AtomQueries:
    """The pattern queries behind :meth:`ScoredCounts.with_atoms`: each table's counts per (membership pattern,
    cell), numbered as ``Subgroups.patterns`` numbers the patterns of rows in memory."""

    def __init__(self, run: Callable, plan: _sql.Plan, m: ColumnMapping, binned: dict, with_missing: list,
                 auc_bins: Optional[int], ranges: dict):
        self.run, self.plan, self.m, self.binned, self.with_missing = run, plan, m, binned, with_missing
        self.auc_bins, self.ranges = auc_bins, ranges

    def _atoms(self, score: Optional[str], cells: list, cell: Callable, **kw):
        """(keys, Atoms, sums) of one pattern query: `cell` maps its frame to (each row's cell, number of cells);
        ``sums(column)`` adds up another column of the result per (pattern, cell)."""
        frame = self.run(_sql.pattern_query(self.plan, score, cells, with_missing=self.with_missing, **kw))
        keys = _Keys(frame, self.m, self.binned)
        n = len(frame)
        member, background = [np.zeros((n, 0), dtype=bool)], [np.zeros((n, 0), dtype=bool)]
        if keys.prot is not None:
            key = keys.index(frame)
            member.append(np.asarray(keys.prot.membership, dtype=bool)[key])
            background.append(np.asarray(keys.prot.background, dtype=bool)[key])
        for j in range(len(self.m.indicators)):
            inside = frame[f"__fc_m{j}"].to_numpy(dtype=np.int64) == 1
            missing = (frame[f"__fc_x{j}"].to_numpy(dtype=np.int64) == 1) if f"__fc_x{j}" in frame else False
            member.append(inside[:, None])
            background.append((~inside & ~missing)[:, None])
        member, background = np.hstack(member), np.hstack(background)
        if keys.disjoint:   # a pattern per subgroup, in subgroup order (Subgroups.patterns)
            present, pattern = np.unique(np.argmax(member, axis=1), return_inverse=True)
            eye = np.eye(len(keys.names), dtype=bool)[present]
            masks = (eye, ~eye)
        else:               # the distinct [member | background] bit rows, in increasing order (Subgroups.patterns)
            bits, pattern = np.unique(np.hstack([member, background]), axis=0, return_inverse=True)
            k = member.shape[1]
            masks = (bits[:, :k], bits[:, k:])
        pattern = pattern.reshape(-1)
        n_patterns = len(masks[0])
        cell_of_row, n_cells = cell(frame)
        index = pattern * n_cells + cell_of_row

        def summed(column: str) -> np.ndarray:
            return np.bincount(index, weights=frame[column].to_numpy(dtype=np.float64),
                               minlength=n_patterns * n_cells).reshape(n_patterns, n_cells)

        return keys, Atoms(summed("__fc_n"), *masks), summed

    def _confusion(self, score: Optional[str], cells: list, cell: Callable) -> ConfusionCounts:
        keys, atoms, _ = self._atoms(score, cells, lambda f: (cell(f), 4))
        return ConfusionCounts.of_atoms(keys.names, atoms, self.m.min_size, disjoint=keys.disjoint)

    def classes(self) -> ClassCounts:
        """Class-wise counts of the label against the predicted label column (:func:`_class_counts`), atoms
        included."""
        found = {}

        def cell(f: pd.DataFrame):
            true, predicted = (np.asarray(_as_text(f[c].tolist()), dtype=object) for c in ("__fc_c0", "__fc_c1"))
            found["labels"] = vocabulary = sorted(set(true.tolist()) | set(predicted.tolist()))
            position = {text: i for i, text in enumerate(vocabulary)}
            k = len(vocabulary)
            return np.array([position[t] * k + position[p] for t, p in zip(true, predicted)], dtype=np.int64), k * k

        keys, atoms, _ = self._atoms(None, ["__fc_t", "__fc_q"], cell)
        k = len(found["labels"])
        member = over_patterns(atoms.member, atoms.counts).reshape(-1, k, k)
        return ClassCounts(keys.names, found["labels"], member, atoms.counts.sum(axis=0).reshape(k, k),
                           np.zeros(len(keys.names)), 0, self.m.min_size, atoms=atoms)

    @staticmethod
    def _y(frame: pd.DataFrame) -> np.ndarray:
        return frame["__fc_y"].to_numpy(dtype=np.int64)

    def confusion(self, score: str, threshold: float) -> ConfusionCounts:
        """Confusion counts of ``score >= threshold``, atoms included."""
        return self._confusion(score, [f"CAST(__fc_p >= {_sql.literal(float(threshold))} AS INT)"],
                               lambda f: 2 * self._y(f) + f["__fc_c0"].to_numpy(dtype=np.int64))

    def n_patterns(self) -> int:
        """The distinct membership keys of the kept rows (``_sql.pattern_count_query``): at least the patterns."""
        frame = self.run(_sql.pattern_count_query(self.plan, with_missing=self.with_missing))
        return int(frame["__fc_n"].iloc[0])

    def labels(self) -> ConfusionCounts:
        """The labels counted against themselves (TN = negatives, TP = positives), atoms included."""
        return self._confusion(None, [], lambda f: 3 * self._y(f))

    def given(self) -> ConfusionCounts:
        """Confusion counts of the predicted label column, atoms included."""
        return self._confusion(None, ["__fc_given"], lambda f: 2 * self._y(f) + f["__fc_c0"].to_numpy(dtype=np.int64))

    def auc(self, score: str, counts: AucCounts) -> AucCounts:
        """`counts` with its ``patterns``: per pattern, label and group of merged levels (``_auc_boot``)."""
        group = _merged_levels(counts.overall.sum(axis=0))
        n_merged = int(group[-1]) + 1 if len(group) else 0
        starts = np.flatnonzero(np.diff(group)) + 1   # the first level of each group but the first
        bins = None
        if counts.exact:
            expr, bounds = "__fc_p", counts.levels[starts]
        else:
            low, high = self.ranges[score]
            start, step = uniform_score_bins(low, high, self.auc_bins)
            bins, expr, bounds = (start, step, self.auc_bins), "__fc_level", starts
        _, atoms, _ = self._atoms(score, [_sql.count_at_or_below(expr, bounds)],
                                  lambda f: (2 * f["__fc_c0"].to_numpy(dtype=np.int64) + self._y(f), 2 * n_merged),
                                  bins=bins)
        return dataclasses.replace(counts, patterns=(atoms, n_merged))

    def calibration(self, score: str, edges: np.ndarray, strategy: str) -> CalibrationCounts:
        """Calibration counts with `edges`, atoms included: per pattern, bin, sub-bin and label."""
        nb = len(edges) - 1

        def cell(f: pd.DataFrame):
            return ((f["__fc_c0"].to_numpy(dtype=np.int64) * SUB_BINS + f["__fc_c1"].to_numpy(dtype=np.int64)) * 2
                    + self._y(f)), nb * SUB_BINS * 2

        keys, atoms, summed = self._atoms(score, ["__fc_cal", _sql.sub_bin(edges, SUB_BINS)], cell, cal_edges=edges)
        sum_p, sum_sq = summed("__fc_sp"), summed("__fc_sq")
        return CalibrationCounts.of_atoms(keys.names, np.asarray(edges, dtype=np.float64), strategy,
                                          CalibrationAtoms.of_sums(atoms, sum_p, sum_sq, nb), sum_p, sum_sq,
                                          self.m.min_size)


def _looks_like_path(text: str) -> bool:
    return any(ch in text for ch in "/\\*?") or "." in os.path.basename(text)


class _Keys:
    """The distinct protected-attribute values of the kept rows and their subgroups (the in-memory rules).

    The subgroups are built by ``Subgroups.from_attributes`` on one row per distinct combination of
    values, so names, order and missing values follow the in-memory library exactly; identity columns
    follow as subgroups of their own.
    """

    def __init__(self, frame: pd.DataFrame, m: ColumnMapping, bins: Optional[dict] = None):
        self.m = m
        self.prot = None
        self.frame = pd.DataFrame(index=[0])
        if m.protected:
            key = frame.groupby(list(m.protected), dropna=False, sort=False).ngroup().to_numpy()
            first = pd.Series(np.arange(len(key))).groupby(key).first().to_numpy()
            self.frame = frame.loc[first, list(m.protected)].reset_index(drop=True)
            self.prot = Subgroups.from_attributes(self.frame, list(m.protected), intersect=m.intersect, bin_edges=bins,
                                                  min_size=m.min_size, n_bins=m.n_bins,
                                                  max_subgroups=MAX_SUBGROUPS - len(m.indicators))
        self.names = (list(self.prot.names) if self.prot is not None else []) + list(m.indicators)
        if len(self.names) > MAX_SUBGROUPS:
            from .._subgroups.subgroups import TOO_MANY_MESSAGE
            raise ValueError(TOO_MANY_MESSAGE.format(n=len(self.names), max=MAX_SUBGROUPS))
        self.disjoint = self.prot is not None and self.prot.codes is not None and not m.indicators

    def index(self, frame: pd.DataFrame) -> np.ndarray:
        """The key number of each row of a query result (its protected values among ``self.frame``'s)."""
        if self.prot is None:
            return np.zeros(len(frame), dtype=np.int64)
        cols = list(self.m.protected)
        numbered = self.frame.assign(__fc_key=np.arange(len(self.frame)))
        merged = frame[cols].merge(numbered, on=cols, how="left", sort=False)
        return merged["__fc_key"].to_numpy(dtype=np.int64)

    def tables(self, frame: pd.DataFrame, cell: np.ndarray, n_cells: int, weights: dict) -> tuple[dict, dict, dict]:
        """Per quantity q of `weights`: member (k, n_cells), background (k, n_cells) and overall (n_cells,) sums.

        Protected subgroups: the sums per key times the membership (background) masks of the keys.
        Identity column j: its member sums ``__fc_m{q}{j}``; its background is every row minus the
        members minus the rows where it is missing (``__fc_x{q}{j}``).
        """
        from scipy import sparse

        key = self.index(frame)
        member, background, overall = {}, {}, {}
        for q, w in weights.items():
            by_key = sparse.csr_matrix((w, (key, cell)), shape=(len(self.frame), n_cells))
            total = np.asarray(by_key.sum(axis=0)).reshape(-1)
            rows_m, rows_b = [], []
            if self.prot is not None:
                rows_m.append((sparse.csr_matrix(self.prot.membership.T.astype(np.float64)) @ by_key).toarray())
                rows_b.append((sparse.csr_matrix(self.prot.background.T.astype(np.float64)) @ by_key).toarray())
            for j in range(len(self.m.indicators)):
                mem = np.bincount(cell, weights=frame[f"__fc_m{q}{j}"].to_numpy(dtype=np.float64), minlength=n_cells)
                missing = f"__fc_x{q}{j}"
                mis = (np.bincount(cell, weights=frame[missing].to_numpy(dtype=np.float64), minlength=n_cells)
                       if missing in frame else 0.0)
                rows_m.append(mem[None])
                rows_b.append((total - mem - mis)[None])
            member[q] = np.vstack(rows_m) if rows_m else np.zeros((0, n_cells))
            background[q] = np.vstack(rows_b) if rows_b else np.zeros((0, n_cells))
            overall[q] = total
        return member, background, overall


def _assemble(frame: pd.DataFrame, m: ColumnMapping, bins, attribute_bins: Optional[dict] = None):
    """The keys, ConfusionCounts and AucCounts from the rows of the counts query."""
    from scipy import sparse

    y = frame["__fc_y"].to_numpy(dtype=np.int64)
    n = frame["__fc_n"].to_numpy(dtype=np.float64)
    keys = _Keys(frame, m, attribute_bins)
    cm, cb, co = keys.tables(frame, 2 * y + frame["__fc_pred"].to_numpy(dtype=np.int64), 4, {"n": n})
    confusion = ConfusionCounts(keys.names, cm["n"], cb["n"], co["n"], m.min_size, disjoint=keys.disjoint)
    if bins is None:   # exact levels: the distinct scores
        levels, level = np.unique(frame["__fc_level"].to_numpy(dtype=np.float64), return_inverse=True)
        edges = None
    else:
        edges = bins[3]
        levels, level = edges[:-1], frame["__fc_level"].to_numpy(dtype=np.int64)
    n_levels = len(levels)
    am, ab, ao = keys.tables(frame, y * n_levels + level.reshape(-1), 2 * n_levels, {"n": n})
    auc = AucCounts(keys.names, levels, edges, sparse.csr_matrix(am["n"].astype(np.int64)),
                    sparse.csr_matrix(ab["n"].astype(np.int64)), ao["n"].reshape(2, n_levels).astype(np.int64),
                    m.min_size, disjoint=keys.disjoint)
    return keys, confusion, auc


def _given_counts(frame: pd.DataFrame, m: ColumnMapping, binned: dict) -> ConfusionCounts:
    """ConfusionCounts of the predicted label column from the rows of the given-predictions query."""
    keys = _Keys(frame, m, binned)
    cell = 2 * frame["__fc_y"].to_numpy(dtype=np.int64) + frame["__fc_pred"].to_numpy(dtype=np.int64)
    member, background, overall = keys.tables(frame, cell, 4, {"n": frame["__fc_n"].to_numpy(dtype=np.float64)})
    return ConfusionCounts(keys.names, member["n"], background["n"], overall["n"], m.min_size, disjoint=keys.disjoint)


def _class_counts(frame: pd.DataFrame, m: ColumnMapping, binned: dict) -> ClassCounts:
    """ClassCounts from the rows of the classes query: classes are the kept rows' label and predicted values as
    text, sorted (``ScoredData``'s vocabulary), each cell ``true * K + predicted``."""
    true, predicted = (np.asarray(_as_text(frame[c].tolist()), dtype=object) for c in ("__fc_t", "__fc_q"))
    vocabulary = sorted(set(true.tolist()) | set(predicted.tolist()))
    position = {text: i for i, text in enumerate(vocabulary)}
    k = len(vocabulary)
    cell = np.array([position[t] * k + position[p] for t, p in zip(true, predicted)], dtype=np.int64)
    keys = _Keys(frame, m, binned)
    member, _, overall = keys.tables(frame, cell, k * k, {"n": frame["__fc_n"].to_numpy(dtype=np.float64)})
    return ClassCounts(keys.names, vocabulary, member["n"].reshape(-1, k, k), overall["n"].reshape(k, k),
                       np.zeros(len(keys.names)), 0, m.min_size)


def _calibration(frame: pd.DataFrame, keys: _Keys, cal_edges: np.ndarray, strategy: str) -> CalibrationCounts:
    """CalibrationCounts from the rows of the calibration query (grouped by calibration bin and label)."""
    y = frame["__fc_y"].to_numpy(dtype=np.int64)
    cal = frame["__fc_cal"].to_numpy(dtype=np.int64)
    nb = len(cal_edges) - 1
    sums = {q: frame[f"__fc_{q}"].to_numpy(dtype=np.float64) for q in ("n", "sp", "spp")}
    tables = keys.tables(frame, 2 * cal + y, 2 * nb, sums)

    def stats(t: dict) -> np.ndarray:   # (..., 2 * n_bins) by (bin, label) -> (..., 4, n_bins)
        cnt, s1, s2 = (t[q].reshape(*t[q].shape[:-1], nb, 2) for q in ("n", "sp", "spp"))
        sq = s2.sum(-1) - 2 * s1[..., 1] + cnt[..., 1]   # sum of (p - y)^2 = sum p^2 - 2 sum_{y=1} p + n_{y=1}
        return np.stack([cnt.sum(-1), s1.sum(-1), cnt[..., 1], sq], axis=-2)

    return CalibrationCounts(keys.names, np.asarray(cal_edges, dtype=np.float64), strategy,
                             *(stats(t) for t in tables), keys.m.min_size)
