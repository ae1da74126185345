"""The SQL every query of ``scored_counts`` shares: identifiers, literals, the plan, the kept rows and their columns.

Every query is written once (DuckDB's dialect) and transpiled by SQLGlot. By family:

1. here, the scans of the source before any count: ``label_query`` (rows per label value, to check the label and
   find the positive value) and ``profile_query`` (rows per exclusion reason, the first that applies in
   ``ScoredData``'s order, and over the kept rows each score's range, each identity column's range, and each numeric
   protected column's number of distinct values), with the histograms and distinct counts behind bins;
2. ``_sql_counts``: the counts queries (one per score column, GROUP BY the protected attributes, the label, the score
   level, the calibration bin and the prediction, each identity column summed) and the queries of the predicted
   label, the class-wise counts, the rows and a threshold's band;
3. ``_sql_patterns``: the bootstrap's atoms, GROUP BY each identity column's membership (packed as bits,
   :func:`membership_words`), and the number of membership keys;
4. ``_sql_buckets``: the bootstrap's per-bucket tables, each row's bucket one more GROUP BY key.

The columns of a kept row (:func:`row_columns`) and the CTEs that keep rows (:func:`kept_rows`, with each row's
bucket where asked) are written here once, for every family.

Identifiers are quoted and literals written by SQLGlot: no column name or value from the data is spliced into SQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from ._sql_weights import infinite, mapped_columns, weight_reasons

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


def row_columns(plan: Plan, score: Optional[str], with_missing: Sequence[bool] = (), *, given: bool = False,
                members: bool = True) -> list:
    """The columns of a kept row that the GROUP BY queries read (SELECT items of the first CTE).

    Parameters
    ----------
    plan : Plan
    score : str or None
        The score column, as ``__fc_p`` (DOUBLE); None for none.
    with_missing : sequence of bool, one per identity column
        Whether the column has missing values among the kept rows (only then is ``__fc_x{j}`` written).
    given : bool, default=False
        Also the predicted label column (with ``plan.predicted``): ``__fc_given`` (1 where it holds its positive
        value), and the label and the predicted label as stored, ``__fc_t`` and ``__fc_q``.
    members : bool, default=True
        Also each identity column j's membership ``__fc_m{j}`` (0/1: a finite value at or above the threshold)
        and, where it has missing values, its missing flag ``__fc_x{j}``.

    Returns
    -------
    list of str
        The protected keys (:func:`key_columns`), ``__fc_y`` (1 for the positive label), then the columns asked
        for, then the weight ``__fc_wt`` (:func:`weight_column`).
    """
    kept = key_columns(plan) + [f"CAST({ident(plan.label)} = {literal(plan.positive)} AS INT) AS __fc_y"]
    if score is not None:
        kept.append(f"CAST({ident(score)} AS DOUBLE) AS __fc_p")
    if given and plan.predicted is not None:
        kept.append(("0" if plan.predicted_positive is None else
                     f"CAST({ident(plan.predicted)} = {literal(plan.predicted_positive)} AS INT)") + " AS __fc_given")
        kept += [f"{ident(plan.label)} AS __fc_t", f"{ident(plan.predicted)} AS __fc_q"]
    if members:
        t = literal(float(plan.indicator_threshold))
        for j, tag in identity_tags(plan, with_missing):
            c = ident(plan.indicators[j])
            kept.append(f"CAST({finite(c)} AND CAST({c} AS DOUBLE) >= {t} AS INT) AS __fc_m{j}" if tag == "m"
                        else f"CAST(NOT {finite(c)} AS INT) AS __fc_x{j}")
    return kept + weight_column(plan)


def identity_tags(plan: Plan, with_missing: Sequence[bool] = ()) -> list:
    """The identity columns' flags in :func:`row_columns`' order, each summed per group by the GROUP BY queries.

    Parameters
    ----------
    plan : Plan
    with_missing : sequence of bool, one per identity column

    Returns
    -------
    list of (int, str)
        (j, "m") for each identity column j's membership (``__fc_m{j}``), followed by (j, "x") for its missing flag
        (``__fc_x{j}``) where it has missing values.
    """
    out = []
    for j in range(len(plan.indicators)):
        out.append((j, "m"))
        if j < len(with_missing) and with_missing[j]:
            out.append((j, "x"))
    return out


def kept_rows(plan: Plan, columns: Sequence[str], buckets: Optional[str] = None,
              n_buckets: Optional[int] = None) -> list:
    """The CTEs whose last, ``__fc_kept``, holds `columns` of the kept rows (reason 0 of :func:`reason_case`).

    Parameters
    ----------
    plan : Plan
    columns : sequence of str
        SELECT items over the source (:func:`row_columns`).
    buckets : {"ordered", "indexed", "hashed"} or None
        Also each row's bootstrap bucket ``__fc_b`` (``_buckets``): its identity taken before any row is left
        out (its position, numbered by ``ROW_NUMBER() OVER ()`` or read from ``SOURCE_ROWS``, or its mapped
        columns and rank among equal rows), then its bucket, then the kept rows.
    n_buckets : int or None
        The buckets K (None: ``_buckets.BUCKETS``, the buckets of weighted rows).

    Returns
    -------
    list of str
        CTEs (``name AS (SELECT ...)``), the last named ``__fc_kept``.
    """
    if buckets is None:
        return [f"__fc_kept AS (SELECT {', '.join(columns)} FROM {SOURCE} WHERE {reason_case(plan)} = 0)"]
    from ._buckets import BUCKETS, bucket_ctes, row_identity

    mapped = [ident(c) for c in mapped_columns(plan)]
    source = SOURCE_ROWS if buckets == "indexed" else SOURCE
    ctes = [f"__fc_rows AS (SELECT {', '.join(columns)}, {reason_case(plan)} AS __fc_reason, "
            f"{', '.join(row_identity(buckets, mapped, ROW_INDEX))} FROM {source})"]
    k = BUCKETS if n_buckets is None else n_buckets
    more, last = bucket_ctes(buckets != "hashed", len(mapped), "__fc_rows", k)
    return ctes + more + [f"__fc_kept AS (SELECT * FROM {last} WHERE __fc_reason = 0)"]


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


# Membership bits per packed word of the pattern queries: 62 keeps every word a positive BIGINT in any engine.
WORD_BITS = 62


def membership_words(plan: Plan, with_missing: Sequence[bool]) -> tuple[list, list]:
    """Each identity column's membership and missing flag, packed as bits of BIGINT words ``__fc_w{i}``.

    Grouping by a word or two, not by a column per bit, is what makes the pattern queries of many identity columns
    cheap: fewer keys to hash where the data lies, and fewer, narrower columns to read back.

    Parameters
    ----------
    plan : Plan
    with_missing : sequence of bool, one per identity column

    Returns
    -------
    (list of str, list of str)
        The SELECT items of the words and their names (:func:`membership_bits` says which bit is which).
    """
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
    """Where :func:`membership_words` packs identity column j: ((word, bit) of its membership, (word, bit) of its missing
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
