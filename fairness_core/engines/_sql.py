"""The queries behind ``scored_counts``: written once (DuckDB's dialect) and transpiled by SQLGlot.

Three queries, each one scan of the source:

1. ``label_query``: rows per label value (to check the label and find the positive value);
2. ``profile_query``: rows per exclusion reason (the first that applies, in ``ScoredData``'s order),
   and over the kept rows each score's range, each identity column's range, and each numeric
   protected column's number of distinct values;
3. ``counts_query`` (one per score column): over the kept rows, GROUP BY the protected attributes,
   the label, the score level (a distinct score or a bin), the calibration bin and the prediction
   at the threshold, with the row count, sum of scores and of squared scores, and per identity
   column the same three sums over its members and over its rows with a missing value (the
   calibration sums in a second, cheaper query per score, by calibration bin and sub-bin).

Identifiers are quoted and literals written by SQLGlot: no column name or value from the data is spliced into SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Optional, Sequence

import numpy as np

from ._sql_weights import infinite, mapped_columns, total, weight_reasons, weight_sums

SOURCE = "__fc_source"
# The source with its rows' 0-based positions in ROW_INDEX (polars' with_row_index, streaming): ``_buckets`` reads it.
SOURCE_ROWS, ROW_INDEX = "__fc_source_rows", "__fc_row"
# The largest double: x BETWEEN -MAX AND MAX is false for NULL (after COALESCE), NaN and +-inf.
_MAX = repr(float(np.finfo(np.float64).max))


def ident(name: str) -> str:
    """A quoted identifier in DuckDB's dialect (SQLGlot escapes quotes inside the name)."""
    from sqlglot import exp

    return exp.to_identifier(str(name), quoted=True).sql("duckdb")


def literal(value: Any) -> str:
    """A SQL literal of a label value or a number (strings quoted and escaped by SQLGlot)."""
    from sqlglot import exp

    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return exp.Literal.string(str(value)).sql("duckdb")


def finite(expr: str) -> str:
    """SQL that is TRUE exactly when `expr` is a finite number (NULL, NaN and +-inf give FALSE)."""
    return f"COALESCE(CAST({expr} AS DOUBLE) BETWEEN -{_MAX} AND {_MAX}, FALSE)"


def transpile(sql: str, dialect: str) -> str:
    """`sql` (DuckDB dialect) in another engine's dialect ("duckdb" returns it unchanged)."""
    if dialect == "duckdb":
        return sql
    import sqlglot

    return sqlglot.transpile(sql, read="duckdb", write=dialect)[0]


@dataclass(frozen=True)
class Plan:
    """What the queries need to know: columns by role and the binning of one score.

    Attributes
    ----------
    label : str
    positive : any
        The label value that means positive (as the source stores it).
    scores : tuple of str
        Every mapped score column (a row missing any of them is excluded).
    protected : tuple of str
    indicators : tuple of str
    indicator_threshold : float
    predicted : str or None
        The predicted label column (a row missing it is excluded).
    predicted_positive : any
        Its value that means positive, as the source stores it (None: every prediction negative).
    binned : tuple of (str, tuple of float)
        Numeric protected attributes cut into quantile bins, with their edges: such a column's key
        is its bin number (``searchsorted(edges[1:-1], x, side="left")``), NULL when missing.
    weight : str or None
        The weight column (``ColumnMapping.weight``): a row missing it or of weight 0 is excluded, and
        every count becomes a sum of weights with the sum of squared weights beside it
        (``_sql_weights.weight_sums``).
    """

    label: str
    positive: Any
    scores: tuple
    protected: tuple
    indicators: tuple
    indicator_threshold: float
    predicted: Optional[str] = None
    predicted_positive: Any = None
    binned: tuple = ()
    weight: Optional[str] = None

    @property
    def weighted(self) -> bool:
        """True when the plan has a weight column."""
        return self.weight is not None


def weight_column(plan: Plan) -> list:
    """The kept rows' weight ``__fc_wt`` as a column of the first CTE (none without a weight column)."""
    return [f"CAST({ident(plan.weight)} AS DOUBLE) AS __fc_wt"] if plan.weighted else []


def key_columns(plan: Plan) -> list:
    """The protected attributes as GROUP BY keys: the column itself, or a binned column's bin number."""
    edges = dict(plan.binned)
    out = []
    for c in plan.protected:
        if c not in edges:
            out.append(ident(c))
            continue
        x = f"CAST({ident(c)} AS DOUBLE)"
        # NaN is missing, as in pandas; no engine-neutral ISNAN, but NaN is the one value that is neither
        # finite nor an infinity (DuckDB and polars call NaN equal to itself, so x <> x does not find it).
        nan = f"(NOT {finite(ident(c))} AND NOT {x} = CAST('inf' AS DOUBLE) AND NOT {x} = CAST('-inf' AS DOUBLE))"
        code = " + ".join(f"CAST({x} > {literal(float(e))} AS INT)" for e in edges[c][1:-1]) or "0"
        out.append(f"CASE WHEN {ident(c)} IS NULL OR {nan} THEN NULL ELSE {code} END AS {ident(c)}")
    return out


def kept_label_query(plan: Plan) -> str:
    """Rows per label value among the kept rows (the classes' sizes of a multi-class label)."""
    return f"SELECT {ident(plan.label)} AS v, COUNT(*) AS n FROM {SOURCE} WHERE {reason_case(plan)} = 0 GROUP BY 1"


def distinct_query(plan: Plan, column: str) -> str:
    """The number of distinct values of a column among the kept rows."""
    return (f"SELECT COUNT(*) AS n FROM (SELECT DISTINCT CAST({ident(column)} AS DOUBLE) AS v FROM {SOURCE} "
            f"WHERE {reason_case(plan)} = 0) AS __fc_distinct")


def histogram_query(plan: Plan, column: str, weighted: bool = False) -> str:
    """Rows per distinct value of a numeric column among the kept rows (missing ones left out).

    Parameters
    ----------
    plan : Plan
    column : str
    weighted : bool, default=False
        ``n`` is the sum of the rows' weights (``plan.weight``), not their count: the frequency weights of
        the weighted quantiles (``weighted_quantile_edges``).

    Returns
    -------
    str
        SQL giving columns ``v`` (the value as DOUBLE) and ``n``.
    """
    n = f"SUM(CAST({ident(plan.weight)} AS DOUBLE))" if weighted else "COUNT(*)"
    return (f"SELECT CAST({ident(column)} AS DOUBLE) AS v, {n} AS n FROM {SOURCE} "
            f"WHERE {reason_case(plan)} = 0 AND {ident(column)} IS NOT NULL GROUP BY 1")


def label_query(label: str) -> str:
    """Rows per label value, NULL included."""
    return f"SELECT {ident(label)} AS v, COUNT(*) AS n FROM {SOURCE} GROUP BY {ident(label)}"


def reason_case(plan: Plan) -> str:
    """The exclusion reason of a row as a code: 0 kept, 1 missing label, 2 + i missing score i, then
    2 + len(scores) a missing predicted label, then (``_sql_weights.weight_reasons``) a missing weight and a weight of 0."""
    whens = [f"WHEN {ident(plan.label)} IS NULL THEN 1"]
    whens += [f"WHEN NOT {finite(ident(s))} THEN {i + 2}" for i, s in enumerate(plan.scores)]
    if plan.predicted is not None:
        whens.append(f"WHEN {ident(plan.predicted)} IS NULL THEN {len(plan.scores) + 2}")
    if plan.weighted:   # an infinite weight is refused before any count (profile_query counts them)
        missing, zero = weight_reasons(plan)
        whens += [f"WHEN NOT {finite(ident(plan.weight))} THEN {missing}",
                  f"WHEN CAST({ident(plan.weight)} AS DOUBLE) = 0 THEN {zero}"]
    return "CASE " + " ".join(whens) + " ELSE 0 END"


def profile_query(plan: Plan, numeric_protected: Sequence[str]) -> str:
    """Rows per exclusion reason; over the kept group (reason 0) the ranges and distinct counts."""
    parts = [f"{reason_case(plan)} AS reason", "COUNT(*) AS n"]
    for i, s in enumerate(plan.scores):
        value = f"CAST({ident(s)} AS DOUBLE)"
        parts += [f"MIN({value}) AS score_min_{i}", f"MAX({value}) AS score_max_{i}",
                  f"SUM(CAST({value} % 1 <> 0 AS INT)) AS score_fractional_{i}"]  # FLOOR(inf) overflows in Spark
    for i, c in enumerate(plan.indicators):
        value = f"CAST({ident(c)} AS DOUBLE)"
        kept = f"CASE WHEN {finite(ident(c))} THEN {value} END"
        parts += [f"MIN({kept}) AS id_min_{i}", f"MAX({kept}) AS id_max_{i}",
                  f"SUM(CAST(NOT {finite(ident(c))} AS INT)) AS id_missing_{i}"]
    parts += [f"COUNT(DISTINCT {ident(c)}) AS distinct_{i}" for i, c in enumerate(numeric_protected)]
    if plan.weighted:   # over every row, whatever its reason (ScoredData checks the whole column)
        w = f"CAST({ident(plan.weight)} AS DOUBLE)"
        parts += [f"SUM(CAST({infinite(w)} AS INT)) AS weight_infinite", f"SUM(CAST({w} < 0 AS INT)) AS weight_negative"]
        parts += [f"{f}(CASE WHEN {w} > 0 THEN {w} END) AS weight_{n}" for f, n in (("MIN", "low"), ("MAX", "high"))]
    return f"SELECT {', '.join(parts)} FROM {SOURCE} GROUP BY 1"


def counts_query(plan: Plan, score: str, *, threshold: Optional[float], cal_edges: Optional[np.ndarray],
                 bins: Optional[tuple], with_missing: Sequence[bool] = (), by_level: bool = True) -> str:
    """Sufficient statistics of one score column (see the module docstring).

    Parameters
    ----------
    plan : Plan
    score : str
    threshold : float
        Predicted positive when ``score >= threshold``.
    cal_edges : ndarray of shape (n_bins + 1,) or None
        Calibration bin edges; the bin is ``searchsorted(edges[1:-1], score, side="right")`` as in
        memory. None: no calibration bin and no sums of scores (scores outside [0, 1]).
    bins : (low, step, n_bins) or None
        Uniform score bins of ``_metrics.auc_counts.score_bin``; None keeps each distinct score as its level.
    with_missing : sequence of bool, one per identity column
        Whether the column has missing values among the kept rows (only then are they counted).
    by_level : bool, default=True
        False groups by the calibration bin only (level and prediction 0, `threshold` unused): the
        calibration sums need no more, and a GROUP BY of a few hundred groups is several times
        cheaper than one over every score level. With `cal_edges`, each bin is also split in its
        sub-bins (``__fc_sub``, :func:`sub_bin`) and the squared errors ``(score - label) ** 2`` are
        summed (``__fc_sq``): a few more groups, from which ``ScoredCounts.with_atoms`` sums the
        calibration atoms of a mapping without identity columns, with no second scan.

    Notes
    -----
    Memberships are computed once per row as 0/1 integers in the first CTE, and every aggregate is a
    plain ``SUM`` of products: several times cheaper in DuckDB than ``FILTER`` or ``CASE`` inside
    the aggregate. With a weight column (``plan.weight``) each sum is weighted in the same query:
    ``__fc_n`` = SUM(w), ``__fc_sp`` = SUM(w p), ``__fc_spp`` = SUM(w p²), ``__fc_sq`` = SUM(w (p - y)²),
    and ``__fc_ss`` = SUM(w²), per identity column too (``__fc_mss{j}``, ...; ``_sql_weights.weight_sums``).
    """
    t = literal(float(plan.indicator_threshold))
    keys = [ident(c) for c in plan.protected]
    kept = key_columns(plan) + [f"CAST({ident(plan.label)} = {literal(plan.positive)} AS INT) AS __fc_y",
                   f"CAST({ident(score)} AS DOUBLE) AS __fc_p"] + weight_column(plan)
    for j, c in enumerate(plan.indicators):
        kept.append(f"CAST({finite(ident(c))} AND CAST({ident(c)} AS DOUBLE) >= {t} AS INT) AS __fc_m{j}")
        if j < len(with_missing) and with_missing[j]:
            kept.append(f"CAST(NOT {finite(ident(c))} AS INT) AS __fc_x{j}")
    ctes = [f"__fc_kept AS (SELECT {', '.join(kept)} FROM {SOURCE} WHERE {reason_case(plan)} = 0)"]
    if not by_level:
        level, last = "0", "__fc_kept"
    else:
        level, last = _level(ctes, bins)
    cal = "0" if cal_edges is None else count_at_or_below("__fc_p", cal_edges[1:-1])
    sub = []
    if cal_edges is not None and not by_level:   # the bin computed once per row, then its sub-bin from it
        from .._counts.binning import SUB_BINS

        ctes.append(f"__fc_bins AS (SELECT *, {cal} AS __fc_cal FROM {last})")
        cal, last, sub = "__fc_cal", "__fc_bins", [f"{sub_bin(cal_edges, SUB_BINS)} AS __fc_sub"]
    sums = weight_sums(plan, {"n": "", "sp": " * __fc_p", "spp": " * __fc_p * __fc_p"} if cal_edges is not None
                       else {"n": ""})
    select = keys + ["__fc_y", f"{level} AS __fc_level", f"{cal} AS __fc_cal",
                     (f"CAST(__fc_p >= {literal(float(threshold))} AS INT)" if by_level else "0") + " AS __fc_pred",
                     *sub] + [f"{total(factor)} AS __fc_{q}" for q, factor in sums.items()]
    if sub:
        w = " * __fc_wt" if plan.weighted else ""
        select.append(f"SUM((__fc_p - __fc_y) * (__fc_p - __fc_y){w}) AS __fc_sq")
    for j in range(len(plan.indicators)):
        tags = ["m"] + (["x"] if j < len(with_missing) and with_missing[j] else [])
        for tag in tags:
            select += [f"SUM(__fc_{tag}{j}{factor}) AS __fc_{tag}{q}{j}" for q, factor in sums.items()]
    n_keys = len(keys) + 4 + len(sub)  # the protected attributes, label, level, calibration bin, prediction, sub-bin
    group = ", ".join(str(i) for i in range(1, n_keys + 1))
    return f"WITH {', '.join(ctes)} SELECT {', '.join(select)} FROM {last} GROUP BY {group}"


def _level(ctes: list, bins: Optional[tuple]) -> tuple[str, str]:
    """(level expression, last CTE) of the kept rows' scores ``__fc_p``: the score itself (exact levels), or its
    uniform bin (``_metrics.auc_counts.score_bin``: a floor, then one step down or up where rounding put it off),
    appending the CTEs that needs to `ctes`."""
    if bins is None:
        return "__fc_p", "__fc_kept"
    low, step, n_bins = (literal(float(bins[0])), literal(float(bins[1])), int(bins[2]))
    guess = f"LEAST(GREATEST(CAST(FLOOR((__fc_p - {low}) / {step}) AS BIGINT), 0), {n_bins - 1})"
    ctes.append(f"__fc_g0 AS (SELECT *, {guess} AS __fc_g0 FROM __fc_kept)")
    ctes.append("__fc_g1 AS (SELECT *, __fc_g0 - CASE WHEN __fc_g0 > 0 AND "
                f"__fc_p < {low} + __fc_g0 * {step} THEN 1 ELSE 0 END AS __fc_g1 FROM __fc_g0)")
    level = (f"__fc_g1 + CASE WHEN __fc_g1 < {n_bins - 1} AND __fc_p >= {low} + (__fc_g1 + 1) * {step} "
             "THEN 1 ELSE 0 END")
    return level, "__fc_g1"


def count_at_or_below(expr: str, starts: Sequence[float]) -> str:
    """``#{i : starts[i] <= expr}`` for increasing `starts`, as a binary tree of CASE expressions (depth
    log2(len(starts)) + 1: a few comparisons per row, where a sum of comparisons would take one per start)."""
    def tree(lo: int, hi: int) -> str:
        if lo == hi:
            return str(lo)
        mid = (lo + hi) // 2
        return f"CASE WHEN {expr} >= {literal(float(starts[mid]))} THEN {tree(mid + 1, hi)} ELSE {tree(lo, mid)} END"
    return tree(0, len(starts))


def pattern_query(plan: Plan, score: Optional[str], cells: Sequence[str], *, bins: Optional[tuple] = None,
                  cal_edges: Optional[np.ndarray] = None, with_missing: Sequence[bool] = (),
                  buckets: Optional[str] = None) -> str:
    """Rows per (membership pattern, label, `cells`) of the kept rows: the atoms the bootstrap resamples.

    A pattern is the protected values (the GROUP BY keys of :func:`key_columns`) with each identity
    column's membership and, where it has missing values, its missing flag, packed as bits of the words
    ``__fc_w{i}`` (:func:`membership_bits`): rows of one pattern are members and background of the same
    subgroups. Where :func:`counts_query`
    sums the identity columns per group, this groups by them, so the result has a row per pattern and
    cell (a few per pattern: ask it only for coarse cells).

    Parameters
    ----------
    plan : Plan
    score : str or None
        The score column (``__fc_p``); None for cells of the label and the predicted label alone.
    cells : sequence of str
        SQL expressions over ``__fc_y``, ``__fc_p``, ``__fc_level`` (the AUC level of `bins`),
        ``__fc_cal`` (the calibration bin of `cal_edges`), ``__fc_given`` (1 where the predicted
        label column holds its positive value) and ``__fc_t``, ``__fc_q`` (the label and the predicted
        label as stored), each returned as ``__fc_c{i}``.
    bins : (low, step, n_bins) or None
        The AUC bins behind ``__fc_level`` (None: the score itself).
    cal_edges : ndarray of shape (n_bins + 1,) or None
        Calibration edges behind ``__fc_cal``; with them the result also holds ``__fc_sp`` (sum of
        scores) and ``__fc_sq`` (sum of squared errors (score - label) ** 2) per group.
    with_missing : sequence of bool, one per identity column
    buckets : {"ordered", "indexed", "hashed"} or None
        Also group by each row's bootstrap bucket ``__fc_b`` (``_buckets``: a hash of the row's position,
        numbered by ``ROW_NUMBER() OVER ()`` or read from ``SOURCE_ROWS``, or of its mapped columns and rank among
        equal rows), the last key after the cells.

    With a weight column (``plan.weight``) every sum is weighted: ``__fc_n`` is the sum of weights, ``__fc_ss``
    the sum of squared weights (``_sql_weights.weight_sums``), and with `buckets` ``__fc_r`` counts the rows.
    """
    keys = [ident(c) for c in plan.protected]
    kept = key_columns(plan) + [f"CAST({ident(plan.label)} = {literal(plan.positive)} AS INT) AS __fc_y"]
    if score is not None:
        kept.append(f"CAST({ident(score)} AS DOUBLE) AS __fc_p")
    if plan.predicted is not None:
        kept.append(("0" if plan.predicted_positive is None else
                     f"CAST({ident(plan.predicted)} = {literal(plan.predicted_positive)} AS INT)") + " AS __fc_given")
        kept += [f"{ident(plan.label)} AS __fc_t", f"{ident(plan.predicted)} AS __fc_q"]
    expressions, bits = _membership(plan, with_missing)
    kept += expressions + weight_column(plan)
    if buckets is None:
        ctes = [f"__fc_kept AS (SELECT {', '.join(kept)} FROM {SOURCE} WHERE {reason_case(plan)} = 0)"]
    else:   # each row's identity before any row is left out, its bucket, then the kept rows
        from ._buckets import bucket_ctes, row_identity

        mapped = [ident(c) for c in mapped_columns(plan)]
        ctes = [f"__fc_rows AS (SELECT {', '.join(kept)}, {reason_case(plan)} AS __fc_reason, "
                f"{', '.join(row_identity(buckets, mapped, ROW_INDEX))} FROM {SOURCE_ROWS if buckets == 'indexed' else SOURCE})"]
        more, last = bucket_ctes(buckets != "hashed", len(mapped), "__fc_rows")
        ctes += more + [f"__fc_kept AS (SELECT * FROM {last} WHERE __fc_reason = 0)"]
    level, last = _level(ctes, bins) if score is not None else ("0", "__fc_kept")
    cal = "0" if cal_edges is None else (" + ".join(
        f"CAST(__fc_p >= {literal(float(e))} AS INT)" for e in cal_edges[1:-1]) or "0")
    ctes.append(f"__fc_cells AS (SELECT *, {level} AS __fc_level, {cal} AS __fc_cal FROM {last})")
    by = keys + bits + ["__fc_y"] + [f"{c} AS __fc_c{i}" for i, c in enumerate(cells)] + (
        ["__fc_b"] if buckets is not None else [])
    sums = weight_sums(plan, {"n": ""})
    select = by + [f"{total(factor)} AS __fc_{q}" for q, factor in sums.items()]
    select += ["COUNT(*) AS __fc_r"] if buckets is not None and plan.weighted else []   # rows behind an entry
    if cal_edges is not None:
        w = " * __fc_wt" if plan.weighted else ""
        select += [f"SUM(__fc_p{w}) AS __fc_sp", f"SUM((__fc_p - __fc_y) * (__fc_p - __fc_y){w}) AS __fc_sq"]
    group = ", ".join(str(i) for i in range(1, len(by) + 1))
    return f"WITH {', '.join(ctes)} SELECT {', '.join(select)} FROM __fc_cells GROUP BY {group}"


# Membership bits per packed word of the pattern queries: 62 keeps every word a positive BIGINT in any engine.
WORD_BITS = 62


def _membership(plan: Plan, with_missing: Sequence[bool]) -> tuple[list, list]:
    """(SQL expressions, their names): each identity column's membership and missing flag, packed as bits of BIGINT
    words ``__fc_w{i}`` (:func:`membership_bits` says which bit is which).

    Grouping by a word or two, not by a column per bit, is what makes the pattern queries of many identity columns
    cheap: fewer keys to hash where the data lies, and fewer, narrower columns to read back."""
    t = literal(float(plan.indicator_threshold))
    terms: list[list[str]] = []

    def add(condition: str) -> None:
        if not terms or len(terms[-1]) == WORD_BITS:
            terms.append([])
        bit = len(terms[-1])
        terms[-1].append(f"CAST({condition} AS BIGINT)" + (f" * {2 ** bit}" if bit else ""))

    for j, c in enumerate(plan.indicators):
        add(f"{finite(ident(c))} AND CAST({ident(c)} AS DOUBLE) >= {t}")
        if j < len(with_missing) and with_missing[j]:
            add(f"NOT {finite(ident(c))}")
    names = [f"__fc_w{i}" for i in range(len(terms))]
    return [f"({' + '.join(word)}) AS {name}" for word, name in zip(terms, names)], names


Bit = tuple[int, int]   # (word, bit) of a packed membership word


def membership_bits(n_indicators: int, with_missing: Sequence[bool]) -> list[tuple[Bit, Optional[Bit]]]:
    """Where :func:`_membership` packs identity column j: ((word, bit) of its membership, (word, bit) of its missing
    flag or None), one entry per identity column."""
    out, word, bit = [], 0, 0

    def take() -> tuple[int, int]:
        nonlocal word, bit
        if bit == WORD_BITS:
            word, bit = word + 1, 0
        bit += 1
        return word, bit - 1

    for j in range(n_indicators):
        member = take()
        out.append((member, take() if j < len(with_missing) and with_missing[j] else None))
    return out


def pattern_count_query(plan: Plan, with_missing: Sequence[bool] = ()) -> str:
    """The number of distinct membership keys of the kept rows (column ``__fc_n``): the protected values (binned as
    in :func:`key_columns`) with each identity column's membership and missing flag, as :func:`pattern_query`
    groups them. It is the number of membership patterns, or more where two keys give one pattern: one number,
    counted where the data lies, so a bound on patterns is checked before any pattern is read."""
    expressions, bits = _membership(plan, with_missing)
    kept = key_columns(plan) + expressions
    if not kept:
        return f"SELECT CAST(COUNT(*) > 0 AS INT) AS __fc_n FROM {SOURCE} WHERE {reason_case(plan)} = 0"
    names = [ident(c) for c in plan.protected] + bits
    return (f"WITH __fc_kept AS (SELECT {', '.join(kept)} FROM {SOURCE} WHERE {reason_case(plan)} = 0) "
            f"SELECT COUNT(*) AS __fc_n FROM (SELECT DISTINCT {', '.join(names)} FROM __fc_kept) AS __fc_keys")


def sub_bin(cal_edges: np.ndarray, sub_bins: int) -> str:
    """The calibration sub-bin of ``__fc_p`` in its bin ``__fc_cal`` (``_counts.binning.sub_bin_index``): how many of the
    bin's inner part edges (``_counts.binning.sub_bin_edges``, written as exact literals) the score reaches, so every
    engine puts a score on a part's edge in the same part as numpy does (0 in a bin of no width)."""
    from .._counts.binning import sub_bin_edges

    inner = sub_bin_edges(np.asarray(cal_edges, dtype=np.float64))
    if inner.shape[1] != sub_bins - 1:
        raise ValueError(f"sub_bins must be {inner.shape[1] + 1}, the library's SUB_BINS.")
    whens = []
    for b, row in enumerate(inner):
        parts = [f"CAST(__fc_p >= {literal(float(e))} AS INT)" for e in row if np.isfinite(e)]
        whens.append(f"WHEN {b} THEN {' + '.join(parts) if parts else '0'}")
    return f"CASE __fc_cal {' '.join(whens)} ELSE 0 END"


def given_query(plan: Plan, with_missing: Sequence[bool] = ()) -> str:
    """Rows per (protected values, label, given prediction) of the kept rows: the confusion counts of the
    predicted label column (``__fc_pred`` is 1 where it holds the positive value)."""
    positive = ("0" if plan.predicted_positive is None else
                f"CAST({ident(plan.predicted)} = {literal(plan.predicted_positive)} AS INT)")
    return _grouped(plan, [f"{positive} AS __fc_pred"], f"{reason_case(plan)} = 0", with_missing)


def classes_query(plan: Plan, with_missing: Sequence[bool] = ()) -> str:
    """Rows per (protected values, label, true class, predicted class) of the kept rows: the class-wise counts
    of a multi-class label against the predicted label column (``__fc_t``, ``__fc_q``: the values as stored)."""
    return _grouped(plan, [f"{ident(plan.label)} AS __fc_t", f"{ident(plan.predicted)} AS __fc_q"],
                    f"{reason_case(plan)} = 0", with_missing)


def rows_query(plan: Plan, with_missing: Sequence[bool] = ()) -> str:
    """Rows (counted, weights or not) per (protected values, label) of the kept rows, per identity column too."""
    return _grouped(replace(plan, weight=None), [], f"{reason_case(plan)} = 0", with_missing)


def band_query(plan: Plan, score: str, *, low: float, high: Optional[float], with_missing: Sequence[bool] = ()) -> str:
    """Rows per (protected values, label) whose score is in [low, high) (no upper bound when `high` is None).

    With the AUC counts at the bin edge above a threshold t, these rows (t <= score < edge, all inside
    one bin) are what moves from predicted negative to predicted positive when the threshold goes
    down from the edge to t: a threshold between edges costs one filtered scan, not a full count.
    """
    p = f"CAST({ident(score)} AS DOUBLE)"
    band = f"{p} >= {literal(float(low))}" + ("" if high is None else f" AND {p} < {literal(float(high))}")
    return _grouped(plan, [], f"{reason_case(plan)} = 0 AND {band}", with_missing)


def _grouped(plan: Plan, extra: list, where: str, with_missing: Sequence[bool]) -> str:
    """Rows per (protected values, label, `extra` columns) where `where` holds, with the identity columns'
    members (and missing rows) per group: one scan, no per-row output."""
    t = literal(float(plan.indicator_threshold))
    keys = key_columns(plan)
    w = f"CAST({ident(plan.weight)} AS DOUBLE)" if plan.weighted else ""
    sums = {"n": ""} if not plan.weighted else {"n": f" * {w}", "ss": f" * {w} * {w}"}
    select = keys + [f"CAST({ident(plan.label)} = {literal(plan.positive)} AS INT) AS __fc_y", *extra] + [
        f"{total(factor)} AS __fc_{q}" for q, factor in sums.items()]
    for j, c in enumerate(plan.indicators):
        for q, factor in sums.items():
            select.append(f"SUM(CAST({finite(ident(c))} AND CAST({ident(c)} AS DOUBLE) >= {t} AS INT){factor}) "
                          f"AS __fc_m{q}{j}")
            if j < len(with_missing) and with_missing[j]:
                select.append(f"SUM(CAST(NOT {finite(ident(c))} AS INT){factor}) AS __fc_x{q}{j}")
    group = ", ".join(str(i) for i in range(1, len(keys) + 2 + len(extra)))
    return f"SELECT {', '.join(select)} FROM {SOURCE} WHERE {where} GROUP BY {group}"
