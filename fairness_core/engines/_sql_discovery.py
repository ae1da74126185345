"""The query of subgroup discovery where the data lies: every intersection of up to `depth` searched columns counted in
one GROUP BY GROUPING SETS, per half of the rows (search or held out) and confusion cell.

Written once in DuckDB's dialect, as the other queries of ``_sql`` (transpiled by SQLGlot for Spark and an ibis
table's backend). The rows are grouped once by every searched column (the atoms),
and the sets summed from the atoms. polars' SQL context has no GROUPING SETS: it returns the atoms
(:func:`atoms_query`), and the sets are summed in memory.

A row's half is either a column of the source (``split``: true where the row is held out) or a hash of its identity
(``_buckets``: the row's position where the engine keeps the source's order), held out where its bucket among
``HALVES`` is below ``round(holdout * HALVES)``; ``_buckets.bucket_of(row, HALVES)`` computes the same buckets in
numpy from the 1-based row numbers.
"""

from __future__ import annotations

from itertools import combinations
from typing import Optional

from ._sql import Plan, finite, ident, kept_rows, literal, row_columns

HALVES = 1_000_000   # hash buckets behind the held-out share (its resolution: 1e-6)
SPLIT = "__fc_s"


def column_sets(n_columns: int, depth: int) -> list:
    """Every set of up to `depth` of the columns' indices (the empty set first, then by size, in order)."""
    return [c for d in range(0, min(depth, n_columns) + 1) for c in combinations(range(n_columns), d)]


def _rows(plan: Plan, score: str, threshold: float, *, split: Optional[str], holdout: float, buckets: str) -> list:
    """The CTEs whose last, ``__fc_d``, holds each kept row's keys, half ``__fc_half`` (1: held out), confusion cell
    ``__fc_cell`` (2 label + prediction at `threshold`) and weight."""
    columns = row_columns(plan, score, members=False)
    if split is not None:
        columns.append(f"CAST(COALESCE(CAST({ident(split)} AS BOOLEAN), FALSE) AS INT) AS {SPLIT}")
    hashed = split is None and holdout > 0
    ctes = kept_rows(plan, columns, buckets if hashed else None, HALVES if hashed else None)
    half = (SPLIT if split is not None else
            f"CAST(__fc_b < {int(round(holdout * HALVES))} AS INT)" if hashed else "0")
    keys = [_member(plan, c) if c in plan.indicators else ident(c) for c in plan.protected]
    weight = [", __fc_wt"] if plan.weighted else [""]
    ctes.append(f"__fc_d AS (SELECT {''.join(k + ', ' for k in keys)}{half} AS __fc_half, "
                f"__fc_y * 2 + CAST(__fc_p >= {literal(float(threshold))} AS INT) AS __fc_cell{weight[0]} "
                f"FROM __fc_kept)")
    return ctes


def _member(plan: Plan, column: str) -> str:
    """An identity column as a key: 1 where the row is a member (a value at least the threshold, +inf included), 0
    elsewhere (missing or NaN too), as ``discover_subgroups(indicators=)`` flags it."""
    x = f"CAST({ident(column)} AS DOUBLE)"
    known = f"({finite(ident(column))} OR {x} = (CAST(1e308 AS DOUBLE) * 10))"
    return f"CAST(COALESCE({known} AND {x} >= {literal(plan.indicator_threshold)}, FALSE) AS INT) AS {ident(column)}"


def _sums(plan: Plan, atoms: bool = False) -> list:
    """The aggregates of a group: rows, and with weights the sums of weights and of squared weights and the
    smallest weight; of the rows themselves, or (`atoms`) of the atoms' own sums."""
    names = ["__fc_n"] + (["__fc_w", "__fc_ss", "__fc_wmin"] if plan.weighted else [])
    if atoms:
        return [f"{'MIN' if n == '__fc_wmin' else 'SUM'}({n}) AS {n}" for n in names]
    return ["COUNT(*) AS __fc_n"] + (["SUM(__fc_wt) AS __fc_w", "SUM(__fc_wt * __fc_wt) AS __fc_ss",
                                      "MIN(__fc_wt) AS __fc_wmin"] if plan.weighted else [])


def atoms_query(plan: Plan, score: str, threshold: float, *, split: Optional[str] = None, holdout: float = 0.5,
                buckets: str = "ordered") -> str:
    """Rows (and sums of weights) per (values of every protected column, half, confusion cell): the atoms, one
    GROUP BY. :func:`discovery_query` sums them per set of columns where the data lies; an engine without
    GROUPING SETS (polars) returns them, and their sets are summed in memory.

    Parameters
    ----------
    plan, score, threshold, split, holdout, buckets
        As :func:`discovery_query`.

    Returns
    -------
    str
        SQL with columns: the protected keys, ``__fc_half``, ``__fc_cell``, ``__fc_n`` and with weights ``__fc_w``,
        ``__fc_ss``, ``__fc_wmin``.
    """
    ctes = _rows(plan, score, threshold, split=split, holdout=holdout, buckets=buckets)
    return f"WITH {', '.join(ctes)} {_atoms_select(plan)}"


def _atoms_select(plan: Plan) -> str:
    by = [ident(c) for c in plan.protected] + ["__fc_half", "__fc_cell"]
    return (f"SELECT {', '.join(by + _sums(plan))} FROM __fc_d "
            f"GROUP BY {', '.join(str(i) for i in range(1, len(by) + 1))}")


def discovery_query(plan: Plan, score: str, threshold: float, depth: int, *, split: Optional[str] = None,
                    holdout: float = 0.5, buckets: str = "ordered") -> str:
    """Rows (and sums of weights) per (half, confusion cell, values of a set of up to `depth` protected columns),
    every set in one GROUP BY GROUPING SETS over the atoms (:func:`atoms_query`).

    The rows are grouped once, by every searched column, the half and the cell (the atoms: one hash table, as one
    counts scan); the sets are then sums of the atoms, whose number is bounded by the columns' values, not the rows.

    Parameters
    ----------
    plan : Plan
        ``plan.protected`` are the searched columns (numeric ones with many values binned, ``plan.binned``).
    score : str
        The score column; a row is predicted positive where ``score >= threshold``.
    threshold : float
    depth : int
        The most columns of a set.
    split : str or None
        A column of the source, true where the row is held out (NULL: searched); None hashes each row's identity.
    holdout : float in [0, 1)
        The held-out share of the hashed split (0: every row in half 0).
    buckets : {"ordered", "indexed", "hashed"}
        How a row's identity is read (``_buckets.row_identity``).

    Returns
    -------
    str
        SQL with columns: the protected keys (NULL where the set leaves the column out, or where it is missing),
        ``__fc_half``, ``__fc_cell``, ``__fc_set`` (bit ``len(keys) - 1 - j`` set where the set leaves column j out),
        ``__fc_n`` and with weights ``__fc_w``, ``__fc_ss``, ``__fc_wmin``.
    """
    ctes = _rows(plan, score, threshold, split=split, holdout=holdout, buckets=buckets)
    ctes.append(f"__fc_a AS ({_atoms_select(plan)})")
    keys = [ident(c) for c in plan.protected]
    sets = ", ".join("(" + ", ".join(["__fc_half", "__fc_cell"] + [keys[j] for j in s]) + ")"
                     for s in column_sets(len(keys), depth))
    # one GROUPING per key (the form every engine knows), as the bits of one number
    grouping = " + ".join(f"GROUPING({k}) * {2 ** (len(keys) - 1 - j)}" for j, k in enumerate(keys))
    select = keys + ["__fc_half", "__fc_cell", f"{grouping} AS __fc_set"] + _sums(plan, atoms=True)
    return f"WITH {', '.join(ctes)} SELECT {', '.join(select)} FROM __fc_a GROUP BY GROUPING SETS ({sets})"


def counts_query(plan: Plan, score: str, threshold: float) -> str:
    """One counts scan of the same rows for comparison: rows per (protected keys, label, prediction)."""
    keys = [ident(c) for c in plan.protected]
    ctes = kept_rows(plan, row_columns(plan, score, members=False))
    by = keys + ["__fc_y", f"CAST(__fc_p >= {literal(float(threshold))} AS INT)"]
    return (f"WITH {', '.join(ctes)} SELECT {', '.join(by)}, COUNT(*) AS __fc_n FROM __fc_kept "
            f"GROUP BY {', '.join(str(i) for i in range(1, len(by) + 1))}")
