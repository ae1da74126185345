"""Subgroup discovery: the intersections of attribute values a model treats worst, with intervals that hold for the
subgroups the search selected (the search on one random part of the rows, the estimates on the other)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np
import pandas as pd

from .._counts.rates import DISPARITY_METRICS, RATE_NAMES, RATES
from .._counts.weights import check_sample_weight
from .._data.checks import as_binary, as_probabilities, as_scores, check_int, check_length, check_option
from .._metrics.discovery_search import AUC_QUANTITIES, atoms, search
from .._stats.adjust import rejections
from .._stats.delong import _delong
from .._stats.intervals import check_ci, effective_counts, interval_p_value, mover_disparity, mover_interval, z_value
from .._subgroups.subgroups import _codes
from .discovery_levels import CALIBRATION_BINS, LEVEL_QUANTITIES, calibration_levels, level_estimates, level_search
from .sentences import higher_is_adverse

FUNC = "discover_subgroups"
MAX_DEPTH = 3
MAX_VALUES = 100
DIRECTIONS = ("higher", "lower", "either")
SEARCH_LEVELS = 64   # score levels of the search for an AUC (quantile bins beyond 64 distinct scores)
NO_SCORE_MESSAGE = ("discover_subgroups: the quantity {quantity!r} needs 'y_score' (a score or probability per row); "
                    "none was given.")
COLUMNS_MESSAGE = ("discover_subgroups: 'columns' must name columns of 'attributes'; {missing} are not among "
                   "its columns {available}.")
NO_COLUMNS_MESSAGE = "discover_subgroups: give at least one column to search ('columns' is empty)."
ATTRIBUTES_MESSAGE = ("discover_subgroups: 'attributes' must be a DataFrame of the columns to search (one row per "
                      "row of y_true). Got {got} instead.")
MANY_VALUES_MESSAGE = ("discover_subgroups: column {column!r} has {n} values, more than {most}. Tip: search a "
                       "column of fewer values, or bin a numeric column (it is cut into n_bins quantile bins when "
                       "it has more than max_categories values).")
HOLDOUT_MESSAGE = ("The 'holdout' parameter of discover_subgroups must be a number in [0, 1): the share of rows kept "
                   "apart to estimate the subgroups found on the others (0: no interval). Got {got!r} instead.")
DEPTH_MESSAGE = "The 'depth' parameter of discover_subgroups must be 1, 2 or 3. Got {got!r} instead."
INDICATOR_MESSAGE = ("discover_subgroups: 'indicators' must name numeric columns searched (an identity column: a "
                     "member where its value is at least indicator_threshold); {column!r} is of type {dtype}.")
SCORE_QUANTITIES = AUC_QUANTITIES + LEVEL_QUANTITIES   # the quantities of y_score
LOWER_IS_WORSE = ("subgroup_auc", "bpsn_auc", "bnsp_auc")


@dataclass(frozen=True)
class SubgroupDiscovery:
    """The subgroups a search over every intersection found worst treated, ranked.

    Attributes
    ----------
    table : DataFrame
        One row per subgroup found, best (worst treated) first: ``rank``, ``subgroup`` (its conditions, e.g.
        ``race=Black & sex=Female``), ``depth``, ``size`` (rows where it is estimated), ``value`` (its rate),
        ``rest_value`` (the rate of every other row), ``difference`` (value - rest_value), ``ratio``
        (value / rest_value), ``ci_low``, ``ci_high`` (the interval of the difference), ``p_value``,
        ``excludes_parity`` (after Benjamini-Hochberg over the rows of the table that are not small), ``small``
        (fewer than `min_size` held-out rows, or rows in the quantity's own part: too small to judge, so no
        interval, p-value or discovery), ``k``, ``n``, ``rest_k``, ``rest_n`` (numerator and denominator of each
        rate, or positives and rows for the quantities of a score; sums of weights with weights), then the search's
        ``search_size``, ``search_value``, ``search_difference`` (on the rows of the search).
    quantity : str
        The rate (or ``'subgroup_auc'``, ``'bpsn_auc'``, ``'bnsp_auc'``, ``'calibration_error'``) compared.
    direction : {'higher', 'lower', 'either'}
        Which side of the rest counted as worse.
    level : float or None
        Confidence level of the intervals; None without a holdout.
    holdout : float
        The share of rows kept apart for the estimates (0: the table's values are the search's, no interval).
    depth, min_size, top_k : int
    examined : int
        Intersections counted by the search.
    pruned : int
        Intersections with enough rows whose bound could not beat the k-th best, so not expanded.
    search_rows, estimate_rows : int
        Rows of the search and of the estimates.
    columns : tuple of str
        The columns searched.
    """

    table: pd.DataFrame = field(repr=False)
    quantity: str
    direction: str
    level: Optional[float]
    holdout: float
    depth: int
    min_size: int
    top_k: int
    examined: int
    pruned: int
    search_rows: int
    estimate_rows: int
    columns: tuple

    @property
    def discoveries(self) -> pd.DataFrame:
        """The rows of `table` whose interval excludes parity after the correction."""
        return self.table[self.table["excludes_parity"]]


def search_options(depth, min_size, top_k, n_bins, max_categories, ci, holdout, func: str) -> tuple:
    """``(min_size, top_k, n_bins, max_categories, level, holdout)`` of a search, checked (a depth of 1-3, positive
    integers, at least 2 bins, a level in (0, 1), a holdout in [0, 1)), or ValueError naming `func`."""
    if isinstance(depth, bool) or depth not in (1, 2, 3):
        raise ValueError(DEPTH_MESSAGE.format(got=depth))
    min_size, top_k = check_int(min_size, 1, "min_size", func), check_int(top_k, 1, "top_k", func)
    n_bins, max_categories = check_int(n_bins, 2, "n_bins", func), check_int(max_categories, 1, "max_categories", func)
    level = check_ci(ci, func)
    if level is None:
        raise ValueError(f"The 'ci' parameter of {func} must be a number strictly between 0 and 1. Got None instead.")
    if isinstance(holdout, bool) or not isinstance(holdout, (int, float)) or not 0.0 <= float(holdout) < 1.0:
        raise ValueError(HOLDOUT_MESSAGE.format(got=holdout))
    return min_size, top_k, n_bins, max_categories, level, float(holdout)


def discover_subgroups(y_true, y_pred, attributes, *, y_score=None, columns=None, quantity: str = "selection_rate",
                       depth: int = 2, min_size: int = 30, top_k: int = 10, positive_outcome: str = "favourable",
                       direction: Optional[str] = None, ci=0.95, holdout: float = 0.5, random_state=0,
                       sample_weight=None, n_bins: int = 4, max_categories: int = 10,
                       prune: bool = True, indicators=None, indicator_threshold: float = 0.5) -> SubgroupDiscovery:
    """The intersections of attribute values whose rate differs most from the rest, with honest intervals.

    Every intersection of up to `depth` of the `columns` (``race=Black & sex=Female``) with at least `min_size`
    rows, and `min_size` rows in the rate's denominator, is compared with the rest of the rows: difference
    = rate(S) - rate(not S), with rate = Σ w [numerator cells] / Σ w [denominator cells] as in
    :func:`group_rates`. The `top_k` with the worst difference are returned, ranked by it (ties: shallower
    first, then columns and values in their order). Intersections are counted from one contingency table of
    the columns, and a parent whose upper bound on the score cannot beat the current k-th best is not expanded
    (SliceLine's pruning; the result is the one without pruning).

    The worst of thousands of small subgroups looks bad by chance (the winner's curse), so the search and the
    estimates use different rows: a random share `holdout` of the rows (drawn with `random_state`) is kept
    apart; the search ranks the intersections on the other rows, and each subgroup found is then estimated
    on the kept rows alone, independent of its selection. Its interval is the MOVER interval of the difference
    of two proportions (Newcombe 1998) from Wilson intervals, on Kish's effective sizes with weights; its p-value
    is the one that interval inverts, and ``excludes_parity`` applies Benjamini-Hochberg at 1 - `ci` over the
    `top_k` subgroups tested.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1 (unused for the selection rate but must have the right length).
    y_pred : array-like of shape (n_samples,)
        Binary predictions, 0 or 1.
    attributes : DataFrame of shape (n_samples, n_columns)
        The columns to search: protected attributes, identity columns or any other column. A missing value is
        its own value, ``(missing)``; a numeric column with more than `max_categories` values is cut into
        `n_bins` quantile bins as :meth:`Subgroups.from_attributes` cuts it.
    y_score : array-like of shape (n_samples,), optional
        Scores (higher: more likely positive), needed for ``'subgroup_auc'``.
    columns : sequence of str, optional
        The columns of `attributes` to search; all of them by default.
    quantity : str, default='selection_rate'
        The rate compared: ``'selection_rate'``, ``'true_positive_rate'``, ``'false_positive_rate'``,
        ``'false_negative_rate'``, ``'false_omission_rate'``, ``'false_discovery_rate'``, ``'error_rate'``, or
        the name of its disparity metric (``'statistical_parity'``); or ``'subgroup_auc'``, the AUC of the
        subgroup's rows against the AUC of every other row (lower is worse). For the AUC a subgroup needs
        `min_size` positives and `min_size` negatives; the search ranks on the score cut into at most 64 quantile
        levels (nothing pruned but by size), and the table's values are exact AUCs (on the held-out rows, with
        DeLong's variances: the difference's interval is Wald's, the two sides' rows being disjoint).
        ``'bpsn_auc'`` (the AUC of the rest's positives against the subgroup's negatives; lower is worse) and
        ``'bnsp_auc'`` (the subgroup's positives against the rest's negatives), each against the AUC of every other
        row (Borkan et al. 2019), need `min_size` negatives, respectively positives, in the subgroup; their interval
        is Wald's with DeLong's variances and the covariance of the two AUCs through the rows they share.
        ``'calibration_error'``: the subgroup's debiased squared calibration error on 10 uniform bins of the score
        (Kumar, Liang & Ma 2019; :func:`calibration_errors`' ``squared_ce``) against the rest's; value and rest
        value are ℓ2 ECEs sqrt(max(CE², 0)), the difference the excess ℓ2 ECE sign(d) sqrt(|d|) of
        d = CE²(S) - CE²(rest) (higher is worse), its interval the studentized bootstrap's on d (each side's labels
        redrawn per bin, 1,000 replicates, seed 0; the calibration page's bootstrap-t) mapped to that scale.
        `y_score` must then be a probability.
    depth : {1, 2, 3}, default=2
        The most attributes intersected.
    min_size : int >= 1, default=30
        The fewest rows of a subgroup and of its rate's denominator among the search's rows (rows, whatever their
        weights). A subgroup found with fewer held-out rows (or rows of its denominator) is reported as ``small``:
        too small to judge, without interval or discovery.
    top_k : int >= 1, default=10
        Subgroups returned.
    positive_outcome : {'favourable', 'adverse'}, default='favourable'
        Whether a positive prediction is good for the person; it says which side of the rest is worse
        (``_review.sentences.higher_is_adverse``) unless `direction` is given.
    direction : {'higher', 'lower', 'either'} or None, default=None
        Which side of the rest is worse; 'either' ranks by the absolute difference.
    ci : float in (0, 1), default=0.95
        Confidence level of the intervals; 1 - `ci` is the false discovery rate of ``excludes_parity``.
    holdout : float in [0, 1), default=0.5
        The share of rows kept apart for the estimates. 0 searches and reports on all rows, without interval
        (an interval computed on the rows that selected the subgroup would not hold).
    random_state : int, numpy Generator or None, default=0
        Seed of the split.
    sample_weight : array-like of shape (n_samples,), optional
        Finite weights >= 0: every count is a sum of weights.
    n_bins : int >= 2, default=4
    max_categories : int >= 1, default=10
    prune : bool, default=True
        Whether to prune by the bound (False counts every intersection; the same result, slower). Nothing is
        pruned with `indicators` (their non-members' intersections are left out after the search), nor for a
        quantity of a score (no bound applies).
    indicators : sequence of str, optional
        Identity columns among `columns`, numeric: a row is a member where the value is at least
        `indicator_threshold` (a 0/1 indicator: where it is 1), as :class:`ColumnMapping`'s indicators. Such a
        column defines only its members (``gay=1``), never its non-members (``gay=0``; a missing value is not a
        member), alone or in an intersection.
    indicator_threshold : float, default=0.5
        The value from which a row is a member of an indicator column (:class:`ColumnMapping`'s default).

    Returns
    -------
    SubgroupDiscovery

    Raises
    ------
    ValueError
        For bad labels, predictions, weights, an unknown quantity, direction or column, no column, a column of
        more than 100 values, a depth outside 1-3, a holdout outside [0, 1), a ci outside (0, 1), an indicator
        that is not a numeric column among `columns`, or scores outside [0, 1] for the calibration error.

    References
    ----------
    Sagadeeva, S. & Boehm, M. (2021). SliceLine: Fast, linear-algebra-based slice finding for ML model
    debugging. SIGMOD 2021. Chung, Y. et al. (2019). Slice Finder: Automated data slicing for model validation.
    ICDE 2019 (the winner's curse of a search). Borkan, D. et al. (2019). Nuanced metrics for measuring unintended
    bias with real data for text classification. WWW 2019 Companion. Kumar, A., Liang, P. & Ma, T. (2019). Verified
    uncertainty calibration. NeurIPS 2019. Benjamini, Y. & Hochberg, Y. (1995). Controlling the false
    discovery rate. JRSS B 57(1), 289-300. Newcombe, R. G. (1998). Statistics in Medicine 17, 873-890.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = pd.DataFrame({"a": rng.integers(0, 3, 4000), "b": rng.integers(0, 4, 4000)})
    >>> y_pred = (rng.random(4000) < np.where((x.a == 2) & (x.b == 1), 0.7, 0.3)).astype(int)
    >>> found = discover_subgroups(np.zeros(4000, int), y_pred, x, direction="higher", top_k=3)
    >>> found.table["subgroup"].iloc[0], bool(found.table["excludes_parity"].iloc[0])
    ('a=2 & b=1', True)
    """
    y_true, y_pred = as_binary(y_true, "y_true", FUNC), as_binary(y_pred, "y_pred", FUNC)
    n = len(y_true)
    check_length(y_pred, n, "y_pred", FUNC)
    if not isinstance(attributes, pd.DataFrame):
        raise ValueError(ATTRIBUTES_MESSAGE.format(got=type(attributes).__name__))
    check_length(np.empty(len(attributes)), n, "attributes", FUNC)
    columns = list(attributes.columns) if columns is None else list(columns)
    if not columns:
        raise ValueError(NO_COLUMNS_MESSAGE)
    missing = [c for c in columns if c not in attributes.columns]
    if missing:
        raise ValueError(COLUMNS_MESSAGE.format(missing=missing, available=list(attributes.columns)))
    quantity = DISPARITY_METRICS.get(quantity, quantity)
    check_option(quantity, RATE_NAMES + SCORE_QUANTITIES, "quantity", FUNC)
    score = None
    if quantity in SCORE_QUANTITIES:
        if y_score is None:
            raise ValueError(NO_SCORE_MESSAGE.format(quantity=quantity))
        score = (as_probabilities if quantity == "calibration_error" else as_scores)(y_score, "y_score", FUNC)
        check_length(score, n, "y_score", FUNC)
    min_size, top_k, n_bins, max_categories, level, holdout = search_options(
        depth, min_size, top_k, n_bins, max_categories, ci, holdout, FUNC)
    if direction is None and quantity in SCORE_QUANTITIES:
        check_option(positive_outcome, ("favourable", "adverse"), "positive_outcome", FUNC)
        direction = "lower" if quantity in LOWER_IS_WORSE else "higher"
    elif direction is None:
        direction = "higher" if higher_is_adverse(quantity, positive_outcome, FUNC) else "lower"
    check_option(direction, DIRECTIONS, "direction", FUNC)
    weight = check_sample_weight(sample_weight, n, FUNC)

    flags = _indicator_flags(attributes, columns, indicators, indicator_threshold)
    coded = [_codes(pd.Series(flags[c]) if c in flags else attributes[c], n_bins, max_categories) for c in columns]
    for c, (_, labels) in zip(columns, coded):
        if len(labels) > MAX_VALUES + 1:
            raise ValueError(MANY_VALUES_MESSAGE.format(column=c, n=len(labels) - 1, most=MAX_VALUES))
    codes = [np.asarray(c, dtype=np.int32) for c, _ in coded]
    cards = [len(labels) for _, labels in coded]
    cell = (2 * y_true + y_pred).astype(np.int32)
    members = {columns.index(c): int(codes[columns.index(c)][f.argmax()]) if f.any() else -1
               for c, f in flags.items()}   # each indicator column's code of its members (-1: none)
    prune = prune and not members

    estimate = _holdout_rows(n, float(holdout), random_state)
    on = ~estimate
    part = (lambda a: a) if holdout == 0 else (lambda a: a[on])
    if quantity in LEVEL_QUANTITIES:
        calib = quantity == "calibration_error"
        lv = calibration_levels(part(score)) if calib else _score_levels(part(score))
        found = level_search([part(c) for c in codes], cards, part(y_true), lv,
                             CALIBRATION_BINS if calib else int(lv.max(initial=0)) + 1, part(score),
                             None if weight is None else part(weight), quantity, depth=min(depth, len(columns)),
                             min_size=min_size, direction=direction)
    else:
        levels = [] if score is None else [_score_levels(part(score))]
        a_codes, a_cell, a_rows, a_weight = atoms([part(c) for c in codes] + levels,
                                                  cards + [int(lv.max(initial=0)) + 1 for lv in levels], part(cell),
                                                  None if weight is None else part(weight))
        a_level = a_codes.pop() if levels else None
        min_weight = 1.0 if weight is None else float(part(weight).min(initial=0.0))
        found = search(a_codes, cards, a_cell, a_rows, a_weight, quantity, depth=min(depth, len(columns)),
                       min_size=min_size, top_k=top_k, direction=direction, prune=prune, min_weight=min_weight,
                       level=a_level, n_levels=int(a_level.max(initial=0)) + 1 if levels else 1)
    found = _only_members(found, members)
    top = slice(0, top_k)
    names = [_name(cols, vals, columns, coded) for cols, vals in zip(found.columns[top], found.codes[top])]
    table = pd.DataFrame({"rank": np.arange(1, len(names) + 1), "subgroup": names,
                          "depth": (found.columns[top] >= 0).sum(axis=1)})
    search_part = pd.DataFrame({"search_size": found.rows[top], "search_value": found.value[top],
                                "search_difference": found.difference[top]})
    rows = estimate if holdout > 0 else np.ones(n, dtype=bool)
    cand = (found.columns[top], found.codes[top])
    if quantity in LEVEL_QUANTITIES:   # exact values on the held-out rows (or all rows, without interval)
        estimates = level_estimates(_members(*cand, codes, rows), y_true[rows], score[rows],
                                    None if weight is None else weight[rows], quantity, level)
    elif quantity in AUC_QUANTITIES:
        estimates = _auc_estimates(*cand, codes, cell, score, weight, rows, level)
    elif holdout > 0:
        estimates = _estimates(*cand, codes, cell, weight, estimate, quantity, level)
    else:
        estimates = _search_values(found, top)
    table = pd.concat([table, _judged(estimates, min_size, level, direction, holdout > 0), search_part], axis=1)
    return SubgroupDiscovery(table=table, quantity=quantity, direction=direction,
                             level=level if holdout > 0 else None, holdout=float(holdout),
                             depth=int(depth), min_size=min_size, top_k=top_k, examined=found.examined,
                             pruned=found.pruned, search_rows=int(on.sum()), estimate_rows=int(estimate.sum()),
                             columns=tuple(columns))


def _indicator_flags(attributes: pd.DataFrame, columns: list, indicators, threshold: float) -> dict:
    """{indicator column: 1 where a row is a member (value >= `threshold`), else 0 (missing: 0)}."""
    out = {}
    for name in [] if indicators is None else list(dict.fromkeys(indicators)):
        if name not in columns:
            raise ValueError(COLUMNS_MESSAGE.format(missing=[name], available=columns))
        column = attributes[name]
        if not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)):
            raise ValueError(INDICATOR_MESSAGE.format(column=name, dtype=column.dtype))
        out[name] = (column.astype(np.float64).fillna(-np.inf).to_numpy() >= threshold).astype(np.int64)
    return out


def _only_members(found, members: dict):
    """The candidates of `found` none of whose conditions is an indicator column's non-members (or missing)."""
    if not members:
        return found
    bad = np.zeros(len(found.rows), dtype=bool)
    for c, code in members.items():
        bad |= ((found.columns == c) & (found.codes != code)).any(axis=1)
    return replace(found, **{f: getattr(found, f)[~bad] for f in (
        "columns", "codes", "rows", "weight", "num", "den", "rest_num", "rest_den", "value", "rest", "difference",
        "score")})


COLUMNS_OUT = ["size", "value", "rest_value", "difference", "ratio", "ci_low", "ci_high", "p_value", "excludes_parity",
               "small", "k", "n", "rest_k", "rest_n"]


def _judged(est: pd.DataFrame, min_size: int, level: float, direction: str, held_out: bool) -> pd.DataFrame:
    """The estimates with their verdicts: a candidate with fewer than `min_size` held-out rows, or rows in its
    quantity's own part (``own``: its rate's denominator, its positives and negatives for the AUC), is ``small``,
    without interval, p-value or discovery; Benjamini-Hochberg at 1 - `level` over the others; parity excluded
    counts only on the side searched. Without a holdout, no interval and nothing small (the search's rows)."""
    est = est.copy()
    est["ratio"] = _ratio(est["value"].to_numpy(dtype=float), est["rest_value"].to_numpy(dtype=float))
    small = ((est["size"] < min_size) | (est["own"] < min_size)).to_numpy() if held_out else np.zeros(len(est), bool)
    if not held_out:
        est[["ci_low", "ci_high", "p_value"]] = np.nan
    est.loc[small, ["ci_low", "ci_high", "p_value"]] = np.nan
    p = est["p_value"].to_numpy(dtype=float)
    excludes = np.zeros(len(p), dtype=bool)
    tested = ~np.isnan(p)
    if tested.any():
        excludes[tested] = rejections(p[tested], 1.0 - level, "fdr_bh")
    diff = est["difference"].to_numpy(dtype=float)
    if direction != "either":   # parity excluded on the better side is no discovery in the direction searched
        excludes &= (diff > 0) if direction == "higher" else (diff < 0)
    est["excludes_parity"], est["small"] = excludes, small
    return est[COLUMNS_OUT]


def _holdout_rows(n: int, holdout: float, random_state) -> np.ndarray:
    """A random share `holdout` of the rows (rounded), drawn without replacement, as a mask."""
    mask = np.zeros(n, dtype=bool)
    if holdout > 0:
        rng = random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(random_state)
        mask[rng.permutation(n)[:int(round(holdout * n))]] = True
    return mask


def _score_levels(score: np.ndarray) -> np.ndarray:
    """Each row's score level for the search: the rank of its distinct score, or of its quantile bin beyond
    ``SEARCH_LEVELS`` distinct scores (ties always share a level)."""
    distinct, inverse = np.unique(score, return_inverse=True)
    if len(distinct) <= SEARCH_LEVELS:
        return inverse.astype(np.int32)
    edges = np.unique(np.quantile(score, np.linspace(0.0, 1.0, SEARCH_LEVELS + 1)[1:-1]))
    return np.searchsorted(edges, score, side="left").astype(np.int32)


def _members(cand_columns, cand_codes, codes, rows) -> np.ndarray:
    """Each candidate's membership among `rows` (a mask), shape (n_candidates, rows.sum())."""
    held = {c: codes[c][rows] for c in np.unique(cand_columns) if c >= 0}
    member = np.ones((len(cand_columns), int(rows.sum())), dtype=bool)
    for i, (cols, vals) in enumerate(zip(cand_columns, cand_codes)):
        for c, v in zip(cols, vals):
            if c >= 0:
                member[i] &= held[c] == v
    return member


def _auc_estimates(cand_columns, cand_codes, codes, cell, score, weight, rows, level) -> pd.DataFrame:
    """Each candidate's AUC and the rest's on `rows`, exact (every distinct score its own level), the difference's
    Wald interval from their DeLong variances (disjoint rows: independent) and its p-value."""
    member = _members(cand_columns, cand_codes, codes, rows)
    distinct, lv = np.unique(score[rows], return_inverse=True)
    positive = cell[rows] >= 2
    w = np.ones(len(lv)) if weight is None else weight[rows]

    def hists(x):   # (candidates, 2 sides, 2 classes, levels) of the sums of x
        out = np.zeros((len(member), 2, 2, len(distinct)))
        for i, m in enumerate(member):
            for side, rows_of in enumerate((m, ~m)):
                for label in (0, 1):
                    keep = rows_of & (positive == bool(label))
                    out[i, side, label] = np.bincount(lv[keep], weights=x[keep], minlength=len(distinct))
        return out

    h = hists(w)
    sq = hists(w * w) if weight is not None else None
    h_rows = h if weight is None else hists(np.ones(len(lv)))
    auc, var, n_pos, n_neg = _delong(h[:, :, 1], h[:, :, 0], None if sq is None else sq[:, :, 1],
                                     None if sq is None else sq[:, :, 0])
    diff = auc[:, 0] - auc[:, 1]
    se = np.sqrt(var[:, 0] + var[:, 1])
    z = z_value(level)
    from scipy.special import ndtr

    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(se > 0, 2.0 * ndtr(-np.abs(diff) / se), np.nan)
    return pd.DataFrame({"size": member.sum(axis=1).astype(np.int64), "value": auc[:, 0], "rest_value": auc[:, 1],
                         "difference": diff, "ci_low": diff - z * se, "ci_high": diff + z * se, "p_value": p,
                         "k": h[:, 0, 1].sum(axis=1), "n": h[:, 0].sum(axis=(1, 2)), "rest_k": h[:, 1, 1].sum(axis=1),
                         "rest_n": h[:, 1].sum(axis=(1, 2)), "own": h_rows[:, 0].sum(axis=2).min(axis=1)})


def _name(cols, vals, columns, coded) -> str:
    """A candidate's conditions as text: ``race=Black & sex=Female``."""
    return " & ".join(f"{columns[c]}={coded[c][1][v]}" for c, v in zip(cols, vals) if c >= 0)


def _search_values(found, top) -> pd.DataFrame:
    """Without a holdout: the search's own values, and no interval."""
    m = len(found.value[top])
    return pd.DataFrame({"size": found.rows[top], "value": found.value[top], "rest_value": found.rest[top],
                         "difference": found.difference[top], "ci_low": np.full(m, np.nan),
                         "ci_high": np.full(m, np.nan), "p_value": np.full(m, np.nan), "k": found.num[top],
                         "n": found.den[top], "rest_k": found.rest_num[top], "rest_n": found.rest_den[top],
                         "own": found.rows[top]})


def _estimates(cand_columns, cand_codes, codes, cell, weight, rows, quantity, level) -> pd.DataFrame:
    """Each candidate's rate, the rest's, the difference and its interval on the held-out `rows` alone, and its
    rows in the rate's denominator (``own``)."""
    num_cells, den_cells, _ = RATES[quantity]
    cell = cell[rows]
    w = np.ones(int(rows.sum())) if weight is None else weight[rows]
    in_num, in_den = np.isin(cell, num_cells), np.isin(cell, den_cells)
    member = _members(cand_columns, cand_codes, codes, rows)
    in_num, in_den, member = in_num.astype(np.float64), in_den.astype(np.float64), member.astype(np.float64)

    def sums(x):   # (candidate, rest) sums of x over the numerator and the denominator's other cells
        k, f = member @ (x * in_num), member @ (x * (in_den - in_num))
        return k, f, (x * in_num).sum() - k, (x * (in_den - in_num)).sum() - f

    k1, f1, k2, f2 = sums(w)
    n1, n2 = k1 + f1, k2 + f2
    if weight is not None:   # Kish's effective sizes (weighted_wilson_interval's)
        s = sums(w * w)
        e1 = effective_counts(k1, n1, s[0], s[1], member @ in_den)
        e2 = effective_counts(k2, n2, s[2], s[3], (1.0 - member) @ in_den)
        (ek1, en1), (ek2, en2) = e1, e2
    else:
        ek1, en1, ek2, en2 = k1, n1, k2, n2
    return rate_estimates((k1, n1, k2, n2), (ek1, en1, ek2, en2), level, member.sum(axis=1), member @ in_den)


def rate_estimates(counts: tuple, effective: tuple, level: float, size, own) -> pd.DataFrame:
    """Held-out estimates of m candidates' rates (``size, value, rest_value, difference, ci_low, ci_high, p_value,
    k, n, rest_k, rest_n, own``) from `counts` (k1, n1, k2, n2: theirs and the rest's, each (m,)); the MOVER interval
    (Newcombe 1998) and p-value from `effective` (Kish's effective counts with weights, else `counts`)."""
    (k1, n1, k2, n2), (ek1, en1, ek2, en2) = counts, effective
    with np.errstate(divide="ignore", invalid="ignore"):
        value, rest = np.where(n1 > 0, k1 / n1, np.nan), np.where(n2 > 0, k2 / n2, np.nan)
    low, high = mover_interval(ek1, en1, ek2, en2, level, "diff")
    p = interval_p_value(lambda lv: mover_disparity(ek1, en1, ek2, en2, lv, "diff"), 0.0, (len(k1),))
    return pd.DataFrame({"size": np.asarray(size).astype(np.int64), "value": value, "rest_value": rest,
                         "difference": value - rest, "ci_low": low, "ci_high": high, "p_value": p, "k": k1, "n": n1,
                         "rest_k": k2, "rest_n": n2, "own": own})


def _ratio(value, rest) -> np.ndarray:
    """value / rest; inf where only the rest is 0, NaN where both are."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rest > 0, value / np.where(rest > 0, rest, 1.0), np.where(value > 0, np.inf, np.nan))
