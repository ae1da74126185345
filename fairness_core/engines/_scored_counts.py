"""scored_counts and preview: the count tables of a source computed by its engine (limits, messages, assembly)."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional, Union

import numpy as np
import pandas as pd

from . import _sql, _sql_counts
from .._counts.binning import uniform_edges, weighted_quantile_edges
from .._counts.calibration import CalibrationCounts
from .._counts.confusion import ConfusionCounts
from .._counts.scored_data import (LABEL_ALIKE, LABEL_TOO_FEW, LABEL_VALUES, MISSING_SCORE, MISSING_WEIGHT,
    NO_ROWS_LEFT, POSITIVE_MISSING, PREDICTED_VALUES, ZERO_WEIGHT, ColumnMapping, _as_text, _check_roles,
    _predicted_positive, _same, _show)
from .._metrics.auc_counts import bin_edges_of, uniform_score_bins
from .._subgroups.binning import quantile_edges_from_counts, quantiles_from_counts
from .._subgroups.subgroups import INDICATOR_RANGE_MESSAGE
from . import _atoms
from ._atoms import _AtomQueries, _Rows, _assemble, _calibration, _class_counts, _given_counts
from ._keys import _Keys
from ._result import ScoredCounts
from ._runners import _plain, _runner, _with_bins
from ._sources import check_spark_files
from ._weighted_atoms import _WeightedAtomQueries
from ._weights import check_weight_type, check_weight_values, first_row_query


MAX_CATEGORIES = 10          # a numeric protected attribute with more values is cut into quantile bins (as in memory)
MAX_HISTOGRAM = 5_000_000    # distinct values of such a column the engine may return to find its quantiles
TOO_MANY_LEVELS = (
    "Exact AUC levels of {col!r} would keep each of its {n:,} distinct scores (more than {max:,}), a table nearly "
    "as large as the data. Tip: use score bins (auc_bins=10000: each AUC within its reported max binning error)."
)
# What a review says instead when exact levels fall back to bins (levels_fallback; ScoredCounts.not_computed).
EXACT_NOT_COMPUTED = (
    "exact AUCs: {col!r} has {n:,} distinct scores, more than the limit of {max:,} (a table of its levels would be "
    "nearly as large as the data); every AUC is from {bins:,} score bins instead, each within its reported "
    "max_binning_error of the exact one"
)
QUANTILE_SCORES = (
    "Quantile calibration bins of {col!r} need its distinct scores, and it has {n:,}, more than scored_counts "
    "reads. Tip: choose uniform bins."
)
BINNED_PROTECTED = (
    "The protected attribute {col!r} is numeric with {n:,} distinct values, more than scored_counts reads to find "
    "its quantile bins. Tip: bin it where the data lives (e.g. a view with a CASE expression) or choose a "
    "categorical column."
)


def scored_counts(source: Any, mapping: ColumnMapping, *, threshold: float = 0.5, n_bins: int = 10,
                  strategy: str = "uniform", auc_bins: Union[int, str] = 10_000, engine: Optional[str] = None,
                  connection: Any = None, memory_limit: Optional[str] = None,
                  max_levels: Optional[int] = 2_000_000, levels_fallback: Optional[int] = None,
                  threads: Optional[int] = None) -> ScoredCounts:
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
        With ``engine="spark"`` a path, folder, glob or URI (``hdfs://``, ``s3a://``, ``file://``
        ...) is read by :func:`read_source` on the active session (or a new one). A URI is read by
        DuckDB for ``file://`` and its httpfs schemes (``s3://``, ``gs://``, ``https://``), by polars
        for ``file://``; another is refused with a message naming Spark.
    mapping : ColumnMapping
        As in memory: label and positive label, score columns, protected attributes (categorical, or
        numeric ones cut into quantile bins), identity columns, a predicted label column (its
        confusion counts are ``given``) and ``all_classes`` (binary metrics on the positive class
        against the rest; with a predicted label column the class-wise counts are ``classes``).
        With a ``weight`` column every table is weighted as in memory with ``sample_weight=``: each
        cell the sum of its rows' weights, SUM(w), with the sum of squared weights, SUM(w * w), beside
        it (``member_sq``, ``background_sq``, ``overall_sq``), both summed in the same GROUP BY that
        counts rows without weights, so sizes and the small flag are Kish's effective sizes
        (sum w)^2 / sum w^2. Rows with a missing weight or a weight of 0 are excluded and counted.
    threshold : float, default=0.5
        Decision threshold of the confusion counts.
    n_bins : int >= 1, default=10
        Calibration bins.
    strategy : {"uniform", "quantile"}, default="uniform"
        Calibration binning: equal bins over [0, 1], or quantiles of the kept rows' scores (found
        from the score's distinct values and counts, at most ``MAX_HISTOGRAM`` of them, with
        numpy's own interpolation, so the edges are the in-memory ones; with weights, the quantiles of
        the scores with frequency weights from each distinct score's sum of weights, as
        ``calibration_counts(strategy="quantile", sample_weight=)``). A numeric protected attribute's
        quantile bins are the rows' quantiles, weights or not, as ``ScoredData.from_frame`` cuts them.
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
    levels_fallback : int >= 2 or None, default=None
        With ``auc_bins="exact"`` and a score column over `max_levels`: None refuses (``TOO_MANY_LEVELS``); a
        number of bins counts every AUC with that many score bins instead, before any count table is scanned,
        and says so in ``ScoredCounts.not_computed`` (``EXACT_NOT_COMPUTED``), so the rest is still computed.
    threads : int or None
        DuckDB's ``threads`` for a connection opened here (None: DuckDB's default, every core).

    Returns
    -------
    ScoredCounts

    Raises
    ------
    ValueError
        For a missing column, a label without two values, a positive label that does not occur,
        identity values outside [0, 1], no rows left, too many subgroups, more distinct scores than
        `max_levels` with exact levels, an unsupported option, or a source that cannot be read; a
        weight column that is not numeric (``WEIGHT_TYPE``) or holds infinite or negative weights
        (``WEIGHT_VALUES``, with the first such row where the engine keeps the source's order: DuckDB,
        polars and ibis; the count alone on Spark). Messages follow ``ScoredData.from_frame``'s.
    ImportError
        If the engine's package (duckdb, pyspark) or sqlglot is not installed.

    Notes
    -----
    Exclusions are counted as ``ScoredData`` counts them: a missing label first, then a missing or
    infinite value in each score column in mapping order, a missing predicted label, a missing weight
    and a weight of 0. An identity value that is missing, NaN
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
    run, columns, name = _runner(source, engine, connection, memory_limit, threads)
    _check_roles(pd.DataFrame(columns=columns), m)   # ScoredData's checks: missing columns, clashes, no model
    if name == "spark":   # a column missing from some files would be NULL in their rows
        check_spark_files(source, [c for c in (m.label, *m.scores, *m.protected, *m.indicators, m.predicted_label,
                                               m.weight) if c is not None])

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
                     None if predicted_positive is None else _plain(predicted_positive), weight=m.weight)
    previewed = list(m.protected) + ([m.weight] if m.weight is not None else [])
    preview = run(f"SELECT {', '.join(_sql.ident(c) for c in previewed)} FROM {_sql.SOURCE} LIMIT 1000") \
        if previewed else pd.DataFrame()
    if m.weight is not None:
        check_weight_type(preview, m.weight)
    numeric = [c for c in m.protected if pd.api.types.is_numeric_dtype(preview[c])
               and not pd.api.types.is_bool_dtype(preview[c])]
    profile = run(_sql.profile_query(plan, numeric))
    # how rows get the bootstrap's buckets (``_buckets``): by their position where the engine keeps the source's order
    buckets = "hashed" if name in ("spark", "ibis (pyspark)") else "indexed" if name == "polars" else "ordered"
    if m.weight is not None:
        check_weight_values(profile, m.weight, None if buckets == "hashed" else (lambda condition: int(run(
            first_row_query(condition, indexed=buckets == "indexed"))["first"].iloc[0])))
    reasons = dict(zip(profile["reason"].astype(int), profile["n"].astype(np.int64)))
    n_input, n_rows = int(sum(reasons.values())), int(reasons.get(0, 0))
    texts = ["missing label"] + [MISSING_SCORE.format(col=s) for s in m.scores] + (
        [f"missing predicted label in {m.predicted_label!r}"] if m.predicted_label is not None else []) + (
        [MISSING_WEIGHT.format(col=m.weight), ZERO_WEIGHT.format(col=m.weight)] if m.weight is not None else [])
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
    not_computed = ()
    if auc_bins == "exact" and max_levels is not None:
        for score in m.scores:
            n_levels = int(run(_sql.distinct_query(plan, score))["n"].iloc[0])
            if n_levels > max_levels:
                if levels_fallback is None:
                    raise ValueError(TOO_MANY_LEVELS.format(col=score, n=n_levels, max=max_levels))
                not_computed = (EXACT_NOT_COMPUTED.format(col=score, n=n_levels, max=max_levels,
                                                          bins=int(levels_fallback)),)
                auc_bins = int(levels_fallback)   # every score's AUC from bins: one setting for every table
                break

    def query(score: str, t: float):
        i = m.scores.index(score)
        low, high = float(kept[f"score_min_{i}"]), float(kept[f"score_max_{i}"])
        in_unit = 0.0 <= low and high <= 1.0
        bins = None
        if auc_bins != "exact":
            start, step = uniform_score_bins(low, high, int(auc_bins))
            bins = (start, step, int(auc_bins), bin_edges_of(start, step, int(auc_bins), high))
        cal_edges = calibration_edges(score, int(n_bins), strategy) if in_unit else None
        frame = run(_sql_counts.counts_query(plan, score, threshold=t, cal_edges=None,
                                      bins=None if bins is None else bins[:3], with_missing=with_missing))
        cal_frame = None if cal_edges is None else run(_sql_counts.counts_query(
            plan, score, threshold=None, cal_edges=cal_edges, bins=None, with_missing=with_missing, by_level=False))
        return frame, cal_frame, bins, cal_edges, (low, high)

    def requery(score: str, t: float) -> ConfusionCounts:
        """Counts at a threshold inside bin b: those at the edge above it, plus the rows t <= score < edge."""
        counts = auc[score]
        b = min(int(np.searchsorted(counts.edges, t, side="right")) - 1, len(counts.levels) - 1)   # the last bin is closed
        last = b == len(counts.levels) - 1
        base = counts.confusion_at(np.inf if last else counts.edges[b + 1])
        band = run(_sql_counts.band_query(plan, score, low=t, high=None if last else float(counts.edges[b + 1]),
                                   with_missing=with_missing))
        sides = {"n": (base.member, base.background, base.overall)}
        if base.weighted:   # and the sums of squared weights alike
            sides["ss"] = (base.member_sq, base.background_sq, base.overall_sq)
        sides = {q: [np.array(a, dtype=np.float64) for a in tables] for q, tables in sides.items()}
        if len(band):
            moved = keys[score].tables(band, band["__fc_y"].to_numpy(dtype=np.int64), 2, _atoms._sums(band))
            for q, tables in sides.items():
                for total, delta in zip(tables, (d[q] for d in moved)):
                    total[..., [0, 2]] -= delta   # TN, FN of the rows that now reach the threshold ...
                    total[..., [1, 3]] += delta   # ... become FP, TP
        squares = {} if "ss" not in sides else dict(zip(("member_sq", "background_sq", "overall_sq"), sides["ss"]))
        return ConfusionCounts(list(base.names), *sides["n"], base.min_size, disjoint=base.disjoint, **squares)

    score_histograms = {}

    def calibration_edges(score: str, nb: int, how: str) -> np.ndarray:
        """Uniform edges, or numpy's quantiles of the kept rows' scores from their distinct values and counts."""
        if how == "uniform":
            return uniform_edges(nb)
        if score not in score_histograms:   # rows (or with weights, sums of weights) per distinct score
            histogram = run(_sql.histogram_query(plan, score, weighted=plan.weighted))
            if len(histogram) > MAX_HISTOGRAM:
                raise ValueError(QUANTILE_SCORES.format(col=score, n=len(histogram)))
            score_histograms[score] = histogram
        histogram = score_histograms[score]
        if plan.weighted:   # the scores with frequency weights, as calibration_counts(sample_weight=) cuts them
            return weighted_quantile_edges(histogram["v"].to_numpy(dtype=np.float64),
                                           histogram["n"].to_numpy(dtype=np.float64), nb)
        return quantiles_from_counts(histogram["v"], histogram["n"], np.linspace(0.0, 1.0, nb + 1))

    def recalibrate(score: str, nb: int, how: str = "uniform", atoms: bool = False) -> CalibrationCounts:
        cal_edges = calibration_edges(score, nb, how)
        if atoms:   # weighted: the bucketed atoms (_WeightedAtomQueries.calibration)
            return atom_queries.calibration(score, cal_edges, how)
        cal_frame = run(_sql_counts.counts_query(plan, score, threshold=None, cal_edges=cal_edges, bins=None,
                                          with_missing=with_missing, by_level=False))
        return _calibration(cal_frame, keys[score], cal_edges, how)

    keys, confusion, auc, calibration, notes = {}, {}, {}, {}, {}
    counted = {}   # the rows of these queries, from which with_atoms sums the atoms of a mapping without identity columns
    for score in m.scores:
        frame, cal_frame, bins, cal_edges, (low, high) = query(score, float(threshold))
        keys[score], confusion[score], auc[score], counted[("level", score)] = _assemble(frame, m, bins, binned,
                                                                                         float(threshold))
        calibration[score] = None
        if cal_frame is not None:
            cal_key = keys[score].index(cal_frame)
            calibration[score] = _calibration(cal_frame, keys[score], cal_edges, strategy, cal_key)
            counted[("cal", score)] = _Rows.of(keys[score], cal_key, cal_frame,
                                               ("__fc_y", "__fc_cal", "__fc_sub", "__fc_n", "__fc_sp", "__fc_sq"),
                                               cal_edges)
        notes[score] = "" if cal_edges is not None else (
            f"{score!r} ranges over [{low:g}, {high:g}], outside [0, 1]: calibration needs probabilities.")
    ranges = {s: (float(kept[f"score_min_{i}"]), float(kept[f"score_max_{i}"]),
                  int(kept[f"score_fractional_{i}"] or 0) == 0) for i, s in enumerate(m.scores)}
    given = None
    if m.predicted_label is not None:
        given, counted["given"] = _given_counts(run(_sql_counts.given_query(plan, with_missing)), m, binned)
    score_ranges = {s: (float(kept[f"score_min_{i}"]), float(kept[f"score_max_{i}"])) for i, s in enumerate(m.scores)}
    n_auc_bins = None if auc_bins == "exact" else int(auc_bins)
    atom_queries = _WeightedAtomQueries(run, plan, m, binned, with_missing, n_auc_bins, score_ranges, buckets) \
        if plan.weighted else _AtomQueries(run, plan, m, binned, with_missing, n_auc_bins, score_ranges, counted,
                                           buckets)
    classes = _class_counts(run(_sql_counts.classes_query(plan, with_missing)), m, binned) \
        if m.all_classes and m.predicted_label is not None else None
    counted_rows = []

    def count_rows() -> np.ndarray:
        """Kept rows per subgroup (one GROUP BY, once): what the tables of weighted counts, sums of weights, do not
        say."""
        if not counted_rows:
            frame = run(_sql_counts.rows_query(plan, with_missing))
            row_keys = _Keys(frame, m, binned)
            member, _, _ = row_keys.tables(frame, np.zeros(len(frame), dtype=np.int64), 1,
                                           {"n": frame["__fc_n"].to_numpy(dtype=np.float64)})
            counted_rows.append(member["n"][:, 0].astype(np.int64))
        return counted_rows[0].copy()

    class_sizes = {}
    if m.all_classes:
        sizes = run(_sql.kept_label_query(plan))
        class_sizes = dict(zip((str(t) for t in _as_text(sizes["v"].tolist())), sizes["n"].astype(int).tolist()))
    return ScoredCounts(m, n_input, n_rows, exclusions, float(threshold), confusion, auc, calibration, notes,
                        name, ranges, requery, recalibrate, tuple(_plain(v) for v in values), given, classes,
                        class_sizes, _atom_queries=atom_queries, _count_rows=count_rows, not_computed=not_computed)


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
    run, _, name = _runner(source, engine, connection, None, None)
    if not sample:
        return run(f"SELECT * FROM {_sql.SOURCE} LIMIT {int(n)}")
    if name != "duckdb":
        raise ValueError("preview(sample=True) draws its sample with DuckDB. Tip: use DataFrame.sample on Spark.")
    return run(f"SELECT * FROM {_sql.SOURCE} USING SAMPLE reservoir({int(n)} ROWS) REPEATABLE (0)")
