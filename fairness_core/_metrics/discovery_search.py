"""The search behind subgroup discovery: every intersection of attribute values up to a depth, counted from one
contingency table and pruned as SliceLine prunes.

Rows are first reduced to atoms, one per observed (combination of every column's code, confusion cell), with their
rows and their sum of weights. The counts of the intersections of a set of columns are then one ``np.bincount``
of the atoms on the columns' mixed-radix key: no loop over rows, no loop over values.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from .._counts.rates import RATES
from .._stats.delong import _delong

# The quantities searched besides the rates: the subgroup AUC (Borkan et al. 2019) against the AUC of the rest.
AUC_QUANTITIES = ("subgroup_auc",)

# A candidate beats the k-th best only when its bound is not below it by more than this (rounding).
TOLERANCE = 1e-12


@dataclass(frozen=True)
class Candidates:
    """Every candidate the search counted (an intersection with enough rows), best first.

    Attributes
    ----------
    columns, codes : ndarray of int, shape (m, depth)
        The columns (indices) and their values' codes of each candidate; -1 past the candidate's depth.
    rows : ndarray of int, shape (m,)
        Rows of the candidate.
    weight, num, den, rest_num, rest_den : ndarray of float, shape (m,)
        Its sum of weights, the rate's numerator and denominator (sums of weights), and the same of the rest.
    value, rest, difference, score : ndarray of float, shape (m,)
        Its rate, the rest's rate, value - rest, and the ranking score (the difference signed so that higher
        is worse, or its absolute value).
    examined : int
        Intersections counted (with at least one row), small ones included.
    pruned : int
        Intersections with enough rows that were not expanded: their bound could not beat the k-th best.
    """

    columns: np.ndarray
    codes: np.ndarray
    rows: np.ndarray
    weight: np.ndarray
    num: np.ndarray
    den: np.ndarray
    rest_num: np.ndarray
    rest_den: np.ndarray
    value: np.ndarray
    rest: np.ndarray
    difference: np.ndarray
    score: np.ndarray
    examined: int
    pruned: int


def atoms(codes: list[np.ndarray], cards: list[int], cell: np.ndarray, weight: np.ndarray | None):
    """Rows reduced to atoms, one per observed (codes of every column, confusion cell), when there are few enough
    combinations for that to pay (else the rows themselves, each its own atom).

    Returns
    -------
    codes : list of ndarray of int32, shape (n_atoms,) each
    cell : ndarray of int32, shape (n_atoms,)
    rows : ndarray of float, shape (n_atoms,), or None (one row each)
    weight : ndarray of float, shape (n_atoms,), or None (no weights: the rows)
    """
    codes = [c.astype(np.int32, copy=False) for c in codes]
    cell = cell.astype(np.int32, copy=False)
    if 4 * float(np.prod(cards, dtype=np.float64)) > len(cell) / 4:   # most rows would be their own atom
        return codes, cell, None, weight
    key = cell.astype(np.int64)
    for c, k in zip(codes, cards):
        key = key * k + c
    inverse, uniques = pd.factorize(key)
    first = np.empty(len(uniques), dtype=np.intp)
    first[inverse[::-1]] = np.arange(len(inverse) - 1, -1, -1)   # each atom's first row
    rows = np.bincount(inverse, minlength=len(uniques)).astype(np.float64)
    w = None if weight is None else np.bincount(inverse, weights=weight, minlength=len(uniques))
    return [c[first] for c in codes], cell[first], rows, w


def search(atom_codes: list[np.ndarray], cards: list[int], cell: np.ndarray, rows, weight, quantity: str, *,
           depth: int, min_size: int, top_k: int, direction: str, prune: bool, min_weight: float,
           level: np.ndarray | None = None, n_levels: int = 1) -> Candidates:
    """Every intersection of up to `depth` columns with at least `min_size` rows and `min_size` rows in the rate's
    denominator, ranked by its score; a parent whose bound cannot beat the current k-th best is not expanded.

    The bound (SliceLine's upper bound on a slice's score from its parent's statistics; Sagadeeva & Boehm 2021,
    section 4.2): a child S of a parent P with at least m rows in the denominator (weights at least `min_weight`,
    so a denominator weight D >= m * min_weight = d, and D <= den_P) has k = num_S <= min(num_P, D), and its
    difference k / D - (NUM - k) / (DEN - D) (NUM, DEN: all rows) is at most its value at k = min(num_P, D),
    D = num_P clipped to [d, den_P]; the lowest difference is the same with the failures (den - num) in place
    of the numerator, negated. The score's bound follows the direction. Every intersection of depth j + 1 is
    counted only when each of its j + 1 parents is kept (SliceLine's candidate generation), after every depth-j
    intersection has been scored, so the k-th best used to prune is that of all shallower candidates.

    Parameters
    ----------
    atom_codes : list of ndarray of int32, shape (n_atoms,) each
        Each column's code of each atom (:func:`atoms`).
    cards : list of int
        Number of codes of each column (at most 101: every key of 3 columns and a cell fits an int32).
    cell : ndarray of int32, shape (n_atoms,)
        Confusion cell (2 y_true + y_pred) of each atom.
    rows, weight : ndarray of float, shape (n_atoms,), or None
        Rows and sum of weights of each atom (None: one row each; no weights).
    quantity : str
        A rate of ``_counts.rates.RATES``.
    depth, min_size, top_k : int
    direction : {'higher', 'lower', 'either'}
        Which side of the rest is worse: the score is the difference, its negative, or its absolute value.
    prune : bool
        Whether to prune by the bound. A parent too small is never expanded either way (its children are
        smaller); its rows are only left out of a count when another parent was pruned by the bound.
    min_weight : float
        The smallest weight of a row (1 without weights).
    level : ndarray of int32, shape (n_atoms,), optional
        For the subgroup AUC: each atom's score level (0 .. `n_levels` - 1, in increasing score order). A
        candidate then needs `min_size` positives and `min_size` negatives, its value is the AUC of its rows
        (ties count one half; DeLong's placements, ``_stats.delong``), the rest's the AUC of every other row,
        and nothing is pruned but by size (no bound).
    n_levels : int

    Returns
    -------
    Candidates

    References
    ----------
    Sagadeeva, S. & Boehm, M. (2021). SliceLine: Fast, linear-algebra-based slice finding for ML model
    debugging. SIGMOD 2021, 2290-2299.
    """
    auc = quantity in AUC_QUANTITIES
    num_cells, den_cells, _ = RATES["true_positive_rate" if auc else quantity]
    fail_cells = [c for c in den_cells if c not in num_cells]
    n_levels = n_levels if auc else 1
    lowest = np.zeros(len(cell), dtype=np.int32) if level is None else level
    totals = np.bincount(cell * np.int32(n_levels) + lowest, weights=weight if weight is not None else rows,
                         minlength=4 * n_levels).astype(np.float64, copy=False).reshape(4, n_levels)
    NUM, DEN = float(totals[list(num_cells)].sum()), float(totals[list(den_cells)].sum())
    FAIL = DEN - NUM
    if auc:
        NUM, DEN = float(totals[2:].sum()), float(totals.sum())   # positives, rows
    d = min_size * min_weight
    kept: dict[tuple, np.ndarray] = {}     # columns -> which of their cells may be expanded
    cut: dict[tuple, bool] = {}            # columns -> whether the bound pruned any of their cells
    found, scores = [], np.zeros(0)
    examined = pruned = 0
    prefix = ((), cell)                    # the last prefix of columns and its key (the cell most significant)
    for depth_j in range(1, depth + 1):
        bounds = {}
        for cols in combinations(range(len(cards)), depth_j):
            parents = list(combinations(cols, depth_j - 1)) if depth_j > 1 else []
            if any(not kept[p].any() for p in parents):
                continue
            size = int(np.prod([cards[c] for c in cols]))
            if prefix[0] != cols[:-1]:
                prefix = (cols[:-1], _key(cell, atom_codes, cards, cols[:-1]))
            key = prefix[1] * np.int32(cards[cols[-1]]) + atom_codes[cols[-1]]
            if auc:
                key = key * np.int32(n_levels) + level
            select = None
            for p in parents:
                if cut[p]:   # only a parent the bound pruned removes rows (a small parent's children are small)
                    ok = kept[p][_key(None, atom_codes, cards, p)]
                    select = ok if select is None else select & ok
            pick = (lambda a: a) if select is None else (lambda a: None if a is None else a[select])
            k, r, w = pick(key), pick(rows), pick(weight)
            shape = (4, size, n_levels)
            row_table = np.bincount(k, weights=r, minlength=4 * size * n_levels).astype(np.float64, copy=False)
            row_table = row_table.reshape(shape)
            table = row_table if w is None else np.bincount(k, weights=w, minlength=4 * size * n_levels).reshape(shape)
            n_rows = row_table.sum(axis=(0, 2))
            examined += int(np.count_nonzero(n_rows))
            if auc:
                pos, neg = table[2] + table[3], table[0] + table[1]
                big = ((n_rows >= min_size) & (row_table[2:].sum(axis=(0, 2)) >= min_size)
                       & (row_table[:2].sum(axis=(0, 2)) >= min_size))
                num, den = pos.sum(axis=1), pos.sum(axis=1) + neg.sum(axis=1)
                value = _delong(pos, neg)[0]
                rest = _delong(totals[2] + totals[3] - pos, totals[0] + totals[1] - neg)[0]
            else:
                table, row_table = table[..., 0].T, row_table[..., 0].T
                den_rows = row_table[:, list(den_cells)].sum(axis=1)
                num, den = table[:, list(num_cells)].sum(axis=1), table[:, list(den_cells)].sum(axis=1)
                big = (n_rows >= min_size) & (den_rows >= min_size)
                with np.errstate(divide="ignore", invalid="ignore"):
                    value, rest = num / den, (NUM - num) / (DEN - den)
            valid = big & (den > 0) & (DEN - den > 0) & np.isfinite(value) & np.isfinite(rest)
            ids = np.flatnonzero(valid)
            if len(ids):
                weights = table.sum(axis=(0, 2)) if auc else table.sum(axis=1)
                found.append(_scored(cols, cards, ids, n_rows, weights, num, den, value, rest, NUM, DEN, direction))
                scores = np.concatenate([scores, found[-1]["score"]])
            if depth_j < depth:
                bound = (np.full(size, np.inf) if auc else
                         _bound(num, table[:, fail_cells].sum(axis=1), NUM, FAIL, DEN, d, direction))
                bounds[cols] = (big, bound)
        kth = np.partition(scores, len(scores) - top_k)[len(scores) - top_k] if len(scores) >= top_k else -np.inf
        for cols, (big, bound) in bounds.items():
            kept[cols] = big & (bound >= kth - TOLERANCE) if prune else big
            cut[cols] = bool(np.any(big & ~kept[cols]))
            pruned += int(np.count_nonzero(big & ~kept[cols]))
    return _ranked(found, len(cards), depth, examined, pruned)


def _key(cell, atom_codes: list, cards: list[int], cols: tuple) -> np.ndarray:
    """Mixed-radix key (int32) of the atoms' codes on `cols`, the first column most significant, below the cell
    when `cell` is given (key = cell * size + the columns' key)."""
    key = cell if cell is not None else np.zeros(len(atom_codes[0]), dtype=np.int32)
    for c in cols:
        key = key * np.int32(cards[c]) + atom_codes[c]
    return key


def _bound(num, fail, NUM, FAIL, DEN, d, direction):
    """The upper bound on the score of any child (see :func:`search`)."""
    den = num + fail
    hi = _highest_difference(num, den, NUM, DEN, d)
    lo = -_highest_difference(fail, den, FAIL, DEN, d)   # rate = 1 - failure rate: the lowest difference
    return {"higher": hi, "lower": -lo, "either": np.maximum(hi, -lo)}[direction]


def _highest_difference(num, den, NUM, DEN, d):
    """The largest k / D - (NUM - k) / (DEN - D) over k <= min(num, D), d <= D <= den: at k = min(num, D), the
    difference falls with D beyond num and rises with D below it, so D = num clipped to [d, den]."""
    D = np.clip(num, d, np.maximum(den, d))
    k = np.minimum(num, D)
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = np.where(DEN - D > 0, (NUM - k) / np.where(DEN - D > 0, DEN - D, 1.0), 0.0)
        value = np.where(D > 0, k / np.where(D > 0, D, 1.0), 1.0)
    return value - rest


def _scored(cols, cards, ids, n_rows, weight, num, den, value, rest, NUM, DEN, direction) -> dict:
    """The valid cells `ids` of the intersections of `cols`, with their counts, values and scores."""
    codes = np.full((len(ids), 3), -1, dtype=np.int64)
    rest_key = ids.copy()
    for j in range(len(cols) - 1, -1, -1):     # the key's digits, least significant last column first
        codes[:, j] = rest_key % cards[cols[j]]
        rest_key //= cards[cols[j]]
    columns = np.full((len(ids), 3), -1, dtype=np.int64)
    columns[:, :len(cols)] = cols
    value, rest = value[ids], rest[ids]
    rest_num, rest_den = NUM - num[ids], DEN - den[ids]
    diff = value - rest
    score = {"higher": diff, "lower": -diff, "either": np.abs(diff)}[direction]
    return {"columns": columns, "codes": codes, "rows": n_rows[ids].astype(np.int64), "weight": weight[ids],
            "num": num[ids], "den": den[ids], "rest_num": rest_num, "rest_den": rest_den, "value": value,
            "rest": rest, "difference": diff, "score": score}


def _ranked(found: list, n_columns: int, depth: int, examined: int, pruned: int) -> Candidates:
    """The candidates best first: score descending, then depth, then columns and values in their order."""
    fields = ["columns", "codes", "rows", "weight", "num", "den", "rest_num", "rest_den", "value", "rest",
              "difference", "score"]
    if not found:
        empty = {f: (np.zeros((0, 3), np.int64) if f in ("columns", "codes") else np.zeros(0)) for f in fields}
        return Candidates(**empty, examined=examined, pruned=pruned)
    merged = {f: np.concatenate([part[f] for part in found]) for f in fields}
    cand_depth = (merged["columns"] >= 0).sum(axis=1)
    keys = [merged["codes"][:, j] for j in (2, 1, 0)] + [merged["columns"][:, j] for j in (2, 1, 0)]
    order = np.lexsort(keys + [cand_depth, -merged["score"]])
    return Candidates(**{f: merged[f][order] for f in fields}, examined=examined, pruned=pruned)
