"""Subgroup discovery where the data lies: :func:`discover_subgroups_counted`, the search and estimates of
``discover_subgroups`` for the rates, from the counts of one GROUPING SETS query (``_sql_discovery``)."""

from __future__ import annotations

import dataclasses
from itertools import combinations
from typing import Any, Optional

import numpy as np
import pandas as pd

from .._counts.rates import DISPARITY_METRICS, RATE_NAMES, RATES
from .._counts.scored_data import LABEL_TOO_FEW, POSITIVE_MISSING, ColumnMapping, _same, _show
from .._data.checks import check_option
from .._metrics.discovery_search import TOLERANCE, Candidates, _bound, _ranked, _scored
from .._review.discovery import (DIRECTIONS, INDICATOR_MESSAGE, MANY_VALUES_MESSAGE, MAX_VALUES, SubgroupDiscovery,
                                 _judged, _name, _only_members, _search_values, rate_estimates,
                                 search_options)
from .._review.sentences import higher_is_adverse
from .._stats.intervals import effective_counts
from .._subgroups.binning import _cut, quantile_edges_from_counts
from .._subgroups.patterns import MISSING
from .._subgroups.subgroups import _distinct_labels
from . import _sql
from ._runners import _plain, _runner
from ._sql_discovery import atoms_query, column_sets, discovery_query

FUNC = "discover_subgroups_counted"
WITHOUT_GROUPING_SETS = ("polars", "ibis (sqlite)")   # engines whose SQL has no GROUPING SETS
NOT_A_RATE = ("discover_subgroups_counted: the quantity {quantity!r} is not a rate. Counts where the data lies "
              "serve the rates ({rates}); the AUC and calibration quantities need each row's score. Tip: "
              "fairness_core.discover_subgroups on the rows (or a sample of them).")
NO_SCORE = ("discover_subgroups_counted: the mapping has no score column to predict from (a row is predicted positive "
            "where its score is at least the threshold).")


def discover_subgroups_counted(source: Any, mapping: ColumnMapping, *, columns=None, quantity: str = "selection_rate",
                               score: Optional[str] = None, threshold: float = 0.5, depth: int = 2,
                               min_size: int = 30, top_k: int = 10, positive_outcome: str = "favourable",
                               direction: Optional[str] = None, ci=0.95, holdout: float = 0.5,
                               split: Optional[str] = None, n_bins: int = 4, max_categories: int = 10,
                               prune: bool = True, indicators=None, indicator_threshold: Optional[float] = None,
                               engine: Optional[str] = None, connection: Any = None,
                               memory_limit: Optional[str] = None, threads: Optional[int] = None) -> SubgroupDiscovery:
    """:func:`fairness_core.discover_subgroups` for a rate, counted where the data lies (one GROUPING SETS query).

    The engine returns, per half of the rows (searched or held out) and confusion cell, the rows (and sums of
    weights) of every intersection of up to `depth` of the `columns`; the search (SliceLine's pruning, the same
    bound and candidate generation) and the held-out estimates (Newcombe's MOVER intervals, Benjamini-Hochberg)
    then run on those counts alone. Given the same rows and split, values, intervals, p-values and ranking equal
    ``discover_subgroups``' (sums of weights up to summation order).

    Parameters
    ----------
    source : str, os.PathLike, DuckDB relation, table name, polars frame, pyspark DataFrame or ibis table
        As :func:`fairness_core.engines.scored_counts`.
    mapping : ColumnMapping
        The label and its positive value, the score column (``mapping.scores[0]`` unless `score` is given), the
        protected attributes and identity columns (searched unless `columns` is given) and the weight column.
    columns : sequence of str, optional
        The columns to search (default: ``mapping.protected`` and ``mapping.indicators``). A missing value is its
        own value; a numeric column with more than `max_categories` distinct values is cut into `n_bins` quantile
        bins of the kept rows, as in memory.
    quantity : str, default='selection_rate'
        A rate (or its disparity metric's name); the AUC and calibration quantities are refused.
    score : str, optional
        The score column of the prediction.
    threshold : float, default=0.5
        A row is predicted positive where its score is at least `threshold`.
    depth, min_size, top_k, positive_outcome, direction, ci, n_bins, max_categories, prune
        As :func:`fairness_core.discover_subgroups`.
    holdout : float in [0, 1), default=0.5
        The share of rows held out for the estimates, each row's half from a hash of its position
        (``_buckets.bucket_of(row, _sql_discovery.HALVES)``; on Spark of its mapped columns): not the in-memory
        random permutation, and the share is `holdout` up to the hash's chance (not exactly round(holdout * n)
        rows). 0: search and report on all rows, without interval.
    indicators : sequence of str, optional
        Identity columns among `columns`, numeric (default: the mapping's identity columns searched): a row is a
        member where the value is at least `indicator_threshold` (default: the mapping's), and such a column
        defines only its members, as ``discover_subgroups(indicators=)``; nothing is then pruned.
    indicator_threshold : float, optional
    split : str, optional
        A column of the source, true where the row is held out (NULL: searched), in place of the hash: with the
        in-memory split as a column, the result is ``discover_subgroups``'. The reported ``holdout`` is then the
        held-out share of the kept rows.
    engine, connection, memory_limit, threads
        As :func:`fairness_core.engines.scored_counts`.

    Returns
    -------
    fairness_core.SubgroupDiscovery

    Raises
    ------
    ValueError
        For a quantity that is not a rate, a missing column, a label without two values or without its positive
        value, a column of more than 100 values, or a bad depth, holdout, ci, direction.

    Notes
    -----
    Rows are kept as ``scored_counts`` keeps them (a missing label, score or weight, or a weight of 0, leaves the row
    out); in memory a row of weight 0 still counts as a row.
    """
    quantity = DISPARITY_METRICS.get(quantity, quantity)
    if quantity not in RATE_NAMES:
        raise ValueError(NOT_A_RATE.format(quantity=quantity, rates=", ".join(RATE_NAMES)))
    min_size, top_k, n_bins, max_categories, level, holdout = search_options(
        depth, min_size, top_k, n_bins, max_categories, ci, holdout, FUNC)
    if direction is None:
        direction = "higher" if higher_is_adverse(quantity, positive_outcome, FUNC) else "lower"
    check_option(direction, DIRECTIONS, "direction", FUNC)
    score = score if score is not None else (mapping.scores[0] if mapping.scores else None)
    if score is None:
        raise ValueError(NO_SCORE)
    columns = list(dict.fromkeys([*mapping.protected, *mapping.indicators])) if columns is None else list(columns)
    indicators = [c for c in mapping.indicators if c in columns] if indicators is None else list(indicators)
    threshold_of = mapping.indicator_threshold if indicator_threshold is None else float(indicator_threshold)
    if not columns:
        raise ValueError("discover_subgroups_counted: give at least one column to search ('columns' is empty).")

    run, names, engine_name = _runner(source, engine, connection, memory_limit, threads)
    missing = [c for c in [mapping.label, score, *columns, split, mapping.weight] if c is not None and c not in names]
    if missing:
        raise ValueError(f"discover_subgroups_counted: {missing} are not among the source's columns {names}.")
    labels = run(_sql.label_query(mapping.label))
    values = [v for v in labels["v"] if not pd.isna(v)]
    if len(values) < 2:
        raise ValueError(LABEL_TOO_FEW.format(col=mapping.label, n=len(values), values=_show(values)))
    matches = [v for v in values if _same(v, mapping.positive_label)]
    if not matches:
        raise ValueError(POSITIVE_MISSING.format(value=mapping.positive_label, col=mapping.label, values=_show(values)))
    plan = _sql.Plan(mapping.label, _plain(matches[0]), (score,), tuple(columns), tuple(dict.fromkeys(indicators)),
                     float(threshold_of), weight=mapping.weight)
    plan = _binned(run, plan, columns, n_bins, max_categories)
    buckets = "hashed" if engine_name in ("spark", "ibis (pyspark)") else "indexed" if engine_name == "polars" \
        else "ordered"
    args = dict(split=split if holdout > 0 else None, holdout=holdout, buckets=buckets)
    n_keys = len(columns)
    if engine_name in WITHOUT_GROUPING_SETS:   # the atoms, summed per set here
        parts = _sets_of_atoms(run(atoms_query(plan, score, threshold, **args)), columns, depth, plan.weighted)
    else:
        frame = run(discovery_query(plan, score, threshold, depth, **args))
        code = frame["__fc_set"].to_numpy(dtype=np.int64)
        parts = {}
        for s in sorted({int(c) for c in code}):
            kept = tuple(j for j in range(n_keys) if not s >> (n_keys - 1 - j) & 1)
            parts[kept] = frame[code == s].reset_index(drop=True)
    if () not in parts or not len(parts[()]):
        raise ValueError(f"{FUNC}: no row is left (every row misses its label or score, or has no weight).")
    coded = _coded(parts, plan, columns)
    tables = {s: _tables(part, s, coded, columns, plan.weighted) for s, part in parts.items()}
    members = {columns.index(c): coded[columns.index(c)][0].get(1, -1) for c in plan.indicators}
    return _discover(tables, coded, columns, quantity, depth=depth, min_size=min_size, top_k=top_k,
                     direction=direction, level=level, holdout=holdout, prune=prune, weighted=plan.weighted,
                     split=split is not None, members=members)


def _binned(run, plan, columns: list, n_bins: int, max_categories: int):
    """`plan` with each numeric column of more than `max_categories` distinct values among the kept rows cut into
    `n_bins` quantile bins, the in-memory edges (``quantile_edges_from_counts``); identity columns are checked
    (among the columns searched, numeric) and never binned."""
    preview = run(f"SELECT {', '.join(_sql.ident(c) for c in columns)} FROM {_sql.SOURCE} LIMIT 1000")
    for c in plan.indicators:
        if c not in columns:
            raise ValueError(f"{FUNC}: 'indicators' must be among the columns searched {columns}; {c!r} is not.")
        if not (pd.api.types.is_numeric_dtype(preview[c]) or pd.api.types.is_bool_dtype(preview[c])):
            raise ValueError(INDICATOR_MESSAGE.format(column=c, dtype=preview[c].dtype).replace(
                "discover_subgroups:", f"{FUNC}:"))
    binned = []
    for c in columns:
        if c in plan.indicators:
            continue
        if not pd.api.types.is_numeric_dtype(preview[c]) or pd.api.types.is_bool_dtype(preview[c]):
            continue
        if int(run(_sql.distinct_query(plan, c))["n"].iloc[0]) > max_categories:
            histogram = run(_sql.histogram_query(plan, c))
            edges = quantile_edges_from_counts(histogram["v"], histogram["n"], n_bins)
            binned.append((c, tuple(map(float, edges))))
    return dataclasses.replace(plan, binned=tuple(binned))


def _sets_of_atoms(atoms: pd.DataFrame, columns: list, depth: int, weighted: bool) -> dict:
    """Per set of up to `depth` columns (indices), its counts summed from the atoms (:func:`atoms_query`)."""
    sums = {"__fc_n": "sum"} | ({"__fc_w": "sum", "__fc_ss": "sum", "__fc_wmin": "min"} if weighted else {})
    out = {}
    for s in column_sets(len(columns), depth):
        by = [columns[j] for j in s] + ["__fc_half", "__fc_cell"]
        out[s] = atoms.groupby(by, dropna=False, sort=False).agg(sums).reset_index()
    return out


def _coded(parts: dict, plan, columns: list) -> list:
    """Per column, (value -> code, labels): codes in sorted value order, missing last, as ``_subgroups._codes``
    codes the rows (a binned column's values are its bin numbers, labelled by ``_subgroups.binning._cut``)."""
    edges = dict(plan.binned)
    out = []
    for j, c in enumerate(columns):
        if c in edges:
            labels = list(_cut(pd.Series([], dtype=np.float64), np.asarray(edges[c]))[1])
            out.append(({float(i): i for i in range(len(labels) - 1)}, labels))
            continue
        seen = parts[(j,)][c]
        distinct = list(pd.unique(seen[seen.notna()]))
        try:
            distinct = sorted(distinct)
        except TypeError:   # mixed types: sort by text
            distinct = sorted(distinct, key=str)
        if len(distinct) > MAX_VALUES:
            raise ValueError(MANY_VALUES_MESSAGE.format(column=c, n=len(distinct), most=MAX_VALUES).replace(
                "discover_subgroups:", f"{FUNC}:"))
        out.append(({_plain(v): i for i, v in enumerate(distinct)}, _distinct_labels([_plain(v) for v in distinct])
                    + [MISSING]))
    return out


def _tables(part: pd.DataFrame, cols: tuple, coded: list, names: list, weighted: bool) -> dict:
    """A set's counts as arrays of shape (2 halves, cells of the set, 4 confusion cells): ``rows``, ``w`` (sums of
    weights, the rows without weights), ``ss`` (sums of squared weights), and ``wmin`` (the smallest weight of each
    half) with weights. A cell's index is the mixed-radix key of its codes, the first column most significant."""
    cards = [len(coded[j][1]) for j in cols]
    index = np.zeros(len(part), dtype=np.int64)
    for j, card in zip(cols, cards):
        codes, labels = coded[j]
        key = [len(labels) - 1 if pd.isna(v) else codes[_plain(v)] for v in part[names[j]]]
        index = index * card + np.asarray(key, dtype=np.int64)
    size = int(np.prod(cards)) if cards else 1
    half = part["__fc_half"].to_numpy(dtype=np.int64)
    flat = (half * size + index) * 4 + part["__fc_cell"].to_numpy(dtype=np.int64)

    def table(column: str) -> np.ndarray:
        return np.bincount(flat, weights=part[column].to_numpy(dtype=np.float64),
                           minlength=2 * size * 4).reshape(2, size, 4)

    rows = table("__fc_n")
    out = {"rows": rows, "w": table("__fc_w") if weighted else rows, "ss": table("__fc_ss") if weighted else rows}
    if weighted:
        wmin = part.groupby("__fc_half")["__fc_wmin"].min()
        out["wmin"] = np.array([float(wmin.get(h, np.inf)) for h in (0, 1)])
    return out


def search_tables(tables: dict, cards: list, quantity: str, *, depth: int, min_size: int, top_k: int,
                  direction: str, prune: bool, min_weight: float) -> Candidates:
    """``_metrics.discovery_search.search`` for a rate, from each set's table of counts instead of atoms.

    Parameters
    ----------
    tables : dict of tuple -> (ndarray, ndarray)
        Per set of column indices (the empty set: the totals), its rows and its sums of weights (the rows without
        weights), each of shape (cells of the set, 4 confusion cells), the cells indexed by the mixed-radix key of
        their codes (the first column most significant).
    cards : list of int
    quantity : str
        A rate of ``_counts.rates.RATES``.
    depth, min_size, top_k : int
    direction : {'higher', 'lower', 'either'}
    prune : bool
    min_weight : float

    Returns
    -------
    fairness_core._metrics.discovery_search.Candidates
        Those of ``search`` on the rows behind the tables: a cell of a set is left out when a parent's cell the
        bound pruned holds it, as ``search`` leaves out its atoms.
    """
    num_cells, den_cells, _ = RATES[quantity]
    num_cells, den_cells = list(num_cells), list(den_cells)
    fail_cells = [c for c in den_cells if c not in num_cells]
    totals = tables[()][1][0]
    NUM, DEN = float(totals[num_cells].sum()), float(totals[den_cells].sum())
    FAIL = DEN - NUM
    d = min_size * min_weight
    kept, cut = {}, {}
    found, scores = [], np.zeros(0)
    examined = pruned = 0
    for depth_j in range(1, depth + 1):
        bounds = {}
        for cols in combinations(range(len(cards)), depth_j):
            parents = list(combinations(cols, depth_j - 1)) if depth_j > 1 else []
            if any(not kept[p].any() for p in parents):
                continue
            shape = [cards[c] for c in cols]
            size = int(np.prod(shape))
            row_table, table = tables[cols]
            digits = np.unravel_index(np.arange(size), shape)
            for p in parents:
                if cut[p]:   # only a parent the bound pruned removes cells (a small parent's children are small)
                    at = np.ravel_multi_index([digits[cols.index(c)] for c in p], [cards[c] for c in p]) \
                        if p else np.zeros(size, dtype=np.int64)
                    ok = kept[p][at][:, None]
                    row_table, table = row_table * ok, table * ok
            n_rows = row_table.sum(axis=1)
            examined += int(np.count_nonzero(n_rows))
            den_rows = row_table[:, den_cells].sum(axis=1)
            num, den = table[:, num_cells].sum(axis=1), table[:, den_cells].sum(axis=1)
            big = (n_rows >= min_size) & (den_rows >= min_size)
            with np.errstate(divide="ignore", invalid="ignore"):
                value, rest = num / den, (NUM - num) / (DEN - den)
            valid = big & (den > 0) & (DEN - den > 0) & np.isfinite(value) & np.isfinite(rest)
            ids = np.flatnonzero(valid)
            if len(ids):
                found.append(_scored(cols, cards, ids, n_rows, table.sum(axis=1), num, den, value, rest, NUM, DEN,
                                     direction))
                scores = np.concatenate([scores, found[-1]["score"]])
            if depth_j < depth:
                bounds[cols] = (big, _bound(num, table[:, fail_cells].sum(axis=1), NUM, FAIL, DEN, d, direction))
        kth = np.partition(scores, len(scores) - top_k)[len(scores) - top_k] if len(scores) >= top_k else -np.inf
        for cols, (big, bound) in bounds.items():
            kept[cols] = big & (bound >= kth - TOLERANCE) if prune else big
            cut[cols] = bool(np.any(big & ~kept[cols]))
            pruned += int(np.count_nonzero(big & ~kept[cols]))
    return _ranked(found, len(cards), depth, examined, pruned)


def estimates_from_counts(found: Candidates, top: slice, tables: dict, cards: list, quantity: str,
                          level: float, weighted: bool) -> pd.DataFrame:
    """``discover_subgroups``' held-out estimates of the candidates `found[top]` from the held-out half's counts:
    each one's rate and the rest's, the difference's MOVER interval (on Kish's effective sizes with weights) and its
    p-value, and its rows in the rate's denominator (``own``).

    Parameters
    ----------
    found : Candidates
        The search's candidates (:func:`search_tables`).
    top : slice
        The candidates estimated.
    tables : dict of tuple -> dict
        Per set of column indices, its arrays ``rows``, ``w``, ``ss`` of shape (2 halves, cells of the set, 4
        confusion cells); half 1 is held out.
    cards : list of int
    quantity : str
        A rate of ``_counts.rates.RATES``.
    level : float
        Confidence level of the intervals.
    weighted : bool

    Returns
    -------
    DataFrame with columns ``size, value, rest_value, difference, ci_low, ci_high, p_value, k, n, rest_k, rest_n,
    own``, as ``discover_subgroups``' estimates.
    """
    num_cells, den_cells, _ = RATES[quantity]
    num_cells, den_cells = list(num_cells), list(den_cells)
    fail_cells = [c for c in den_cells if c not in num_cells]
    cells = {"rows": [], "w": [], "ss": []}
    for cols, codes in zip(found.columns[top], found.codes[top]):
        s = tuple(int(c) for c in cols if c >= 0)
        at = int(np.ravel_multi_index([int(v) for c, v in zip(cols, codes) if c >= 0], [cards[c] for c in s]))
        for q in cells:
            cells[q].append(tables[s][q][1, at])
    shape = (len(cells["rows"]), 4)
    rows, w, ss = (np.asarray(cells[q], dtype=np.float64).reshape(shape) for q in ("rows", "w", "ss"))
    t_rows, t_w, t_ss = (tables[()][q][1, 0] for q in ("rows", "w", "ss"))
    k1, f1 = w[:, num_cells].sum(axis=1), w[:, fail_cells].sum(axis=1)
    k2, f2 = t_w[num_cells].sum() - k1, t_w[fail_cells].sum() - f1
    n1, n2 = k1 + f1, k2 + f2
    own = rows[:, den_cells].sum(axis=1)
    if weighted:   # Kish's effective sizes (weighted_wilson_interval's)
        s1, s0 = ss[:, num_cells].sum(axis=1), ss[:, fail_cells].sum(axis=1)
        ek1, en1 = effective_counts(k1, n1, s1, s0, own)
        ek2, en2 = effective_counts(k2, n2, t_ss[num_cells].sum() - s1, t_ss[fail_cells].sum() - s0,
                                    t_rows[den_cells].sum() - own)
    else:
        ek1, en1, ek2, en2 = k1, n1, k2, n2
    return rate_estimates((k1, n1, k2, n2), (ek1, en1, ek2, en2), level, rows.sum(axis=1), own)


def _discover(tables: dict, coded: list, columns: list, quantity: str, *, depth: int, min_size: int, top_k: int,
              direction: str, level: float, holdout: float, prune: bool, weighted: bool,
              split: bool, members: dict) -> SubgroupDiscovery:
    """The search on half 0 and the estimates on half 1 (all of half 0 without a holdout), as a
    ``SubgroupDiscovery``."""
    cards = [len(labels) for _, labels in coded]
    search_half = {s: (t["rows"][0], t["w"][0]) for s, t in tables.items()}
    min_weight = float(tables[()]["wmin"][0]) if weighted else 1.0
    prune = prune and not members   # as in memory: nothing pruned with identity columns
    found = search_tables(search_half, cards, quantity, depth=min(depth, len(cards)), min_size=min_size, top_k=top_k,
                          direction=direction, prune=prune, min_weight=min_weight)
    found = _only_members(found, members)
    top = slice(0, top_k)
    names = [_name(cols, vals, columns, coded) for cols, vals in zip(found.columns[top], found.codes[top])]
    table = pd.DataFrame({"rank": np.arange(1, len(names) + 1), "subgroup": names,
                          "depth": (found.columns[top] >= 0).sum(axis=1)})
    search_part = pd.DataFrame({"search_size": found.rows[top], "search_value": found.value[top],
                                "search_difference": found.difference[top]})
    halves = tables[()]["rows"].sum(axis=(1, 2))
    held = holdout > 0
    estimates = estimates_from_counts(found, top, tables, cards, quantity, level, weighted) if held \
        else _search_values(found, top)
    table = pd.concat([table, _judged(estimates, min_size, level, direction, held), search_part], axis=1)
    share = float(halves[1] / halves.sum()) if split and held and halves.sum() > 0 else holdout
    return SubgroupDiscovery(table=table, quantity=quantity, direction=direction, level=level if held else None,
                             holdout=share, depth=int(depth), min_size=min_size, top_k=top_k,
                             examined=found.examined, pruned=found.pruned, search_rows=int(halves[0]),
                             estimate_rows=int(halves[1]), columns=tuple(columns))
