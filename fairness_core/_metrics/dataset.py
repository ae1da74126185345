"""Dataset metrics: properties of the labels themselves, before any model (§5.5).

Base rates and the smoothed EDF need only the count of rows and of positive labels per subgroup
(one crosstab), and their bootstrap intervals resample those counts within each membership pattern;
dataset statistical parity is the selection-rate disparity of the labels against themselves (one code
path with :mod:`._rates`, intervals included). Consistency needs the features, and uses
SciPy's k-d tree (scikit-learn's ball tree above 15 features) for the nearest neighbours.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import numpy as np
import pandas as pd

from .._data.checks import as_binary, check_int, check_length
from .._stats.bootstrap import Atoms, check_boot_options, percentile_interval, replicate_stat
from .._stats.intervals import check_ci, wilson_interval
from .._counts.confusion import CONFUSION_NO_ATOMS_MESSAGE, ConfusionCounts
from .._subgroups.subgroups import as_subgroups

X_TYPE_MESSAGE = (
    "The 'X' parameter of consistency must hold numeric features. {what} Tip: choose numeric "
    "columns, or encode categories as numbers first (e.g. pandas.get_dummies)."
)
X_SHAPE_MESSAGE = (
    "The 'X' parameter of consistency must be a table of shape (n_samples, n_features) with at least "
    "one feature. Got an array of shape {shape} instead."
)
NEIGHBORS_MESSAGE = (
    "The 'n_neighbors' parameter of consistency must be smaller than the number of rows used, "
    "{n_rows} ({n_excluded} rows with a missing or infinite feature were left out). Got {got} instead. "
    "Tip: use fewer neighbours, or fill or drop the missing feature values."
)
EDF_OVERLAP_COUNTS_MESSAGE = (
    "The smoothed EDF compares disjoint subgroups (the intersections of the protected attributes), but these "
    "overlap (identity columns). Tip: map categorical protected attributes instead of identity columns."
)
EDF_OVERLAP_MESSAGE = (
    "smoothed_edf needs disjoint subgroups (each row in at most one subgroup: epsilon compares the "
    "outcome rates of separate groups of people, the intersections of Foulds et al.), but some rows "
    "are in more than one subgroup ({n_rows:,} in all; the first is in both {first!r} and {second!r}). "
    "Identity indicator columns, or several attributes with intersect=False, overlap like this. "
    "Tip: build them with "
    "Subgroups.from_attributes(data, columns, intersect=True), or pass the protected attribute columns "
    "themselves; dataset_statistical_parity(...) compares each subgroup with its background and works "
    "with overlapping subgroups."
)
# Distances within this relative tolerance of the k-th neighbour's distance count as tied (consistency).
TIE_RTOL = 1e-9
CONCENTRATION_TYPE_MESSAGE = (
    "The 'concentration' parameter of smoothed_edf must be a number. Got {got!r} (a {type}) instead."
)
CONCENTRATION_MESSAGE = (
    "The 'concentration' parameter of smoothed_edf must be a finite number > 0. Got {got!r} instead. "
    "Tip: 1.0 (the default) adds half a pseudo-count to each outcome of every subgroup."
)


def _label_counts(y_true, subgroups, func: str):
    """(groups, member (k, 2), background (k, 2), overall (2,)): rows per label 0 / 1."""
    y = as_binary(y_true, "y_true", func)
    groups = as_subgroups(subgroups, len(y), func)
    cell = y.astype(np.intp)
    member, background = groups.crosstab(cell, 2)
    overall = np.bincount(cell, minlength=2).astype(np.float64)
    return groups, member, background, overall


def _base_rate(counts: np.ndarray):
    """Share of positive labels from counts of shape (..., 2) -> (values, notes)."""
    n = counts.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(n > 0, counts[..., 1] / np.where(n > 0, n, 1), np.nan)
    notes = np.where(n > 0, "", "base rate undefined: no rows").astype(object)
    return values, notes


def base_rates(y_true, subgroups, *, ci: Optional[float] = None) -> pd.DataFrame:
    """Per-subgroup base rate: the share of positive labels, PL / N.

    With `ci`, the Wilson score interval of PL / N,

        centre = (PL + z^2 / 2) / (N + z^2),  half-width = z / (N + z^2) * sqrt(PL (N - PL) / N + z^2 / 4)

    with z = ``scipy.stats.norm.ppf(1 - (1 - ci) / 2)`` (1.96 for 0.95).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes, n_samples rows
        Attributes mean their observed value combinations, nothing flagged small (min_size=1).
    ci : float in (0, 1) or None, default=None
        Confidence level of the interval, e.g. 0.95; None adds no interval columns.

    Returns
    -------
    DataFrame, one row per subgroup in ``Subgroups.names`` order, columns ``subgroup, size,
    n_positive, n_negative, base_rate, small, note`` (``note`` says why a rate is NaN: an
    indicator subgroup with no members). With `ci`, ``base_rate_ci_low, base_rate_ci_high``
    follow ``base_rate`` (NaN where the rate is), and ``attrs["ci"]`` holds the level.

    Raises
    ------
    ValueError
        If `y_true` is not binary, the lengths differ, or `ci` is not None or a level strictly
        between 0 and 1 (``CI_MESSAGE``).

    References
    ----------
    Seed 004 (Oracle AutoMLx, "Evaluating a Dataset": statistical parity of a dataset).
    Wilson (1927), "Probable inference, the law of succession, and statistical inference",
    JASA 22(158).

    Examples
    --------
    >>> base_rates([1, 0, 0, 1, 1], ["a", "a", "a", "b", "b"])
      subgroup  size  n_positive  n_negative  base_rate  small note
    0        a     3           1           2   0.333333  False
    1        b     2           2           0   1.000000  False
    >>> base_rates([1, 0, 0, 1, 1], ["a", "a", "a", "b", "b"], ci=0.95)[["base_rate_ci_low", "base_rate_ci_high"]]
       base_rate_ci_low  base_rate_ci_high
    0          0.061492            0.79234
    1          0.342380            1.00000
    """
    level = check_ci(ci, "base_rates")
    groups, member, _, _ = _label_counts(y_true, subgroups, "base_rates")
    return _base_rate_table(list(groups.names), member, groups.min_size, level)


def base_rates_from_counts(label_counts, *, ci: Optional[float] = None) -> pd.DataFrame:
    """:func:`base_rates` from the labels' count table instead of the rows (e.g. computed by an engine).

    Parameters
    ----------
    label_counts : ConfusionCounts
        The labels counted against themselves, as ``confusion_counts(y_true, y_true, subgroups)``
        (or ``fairness_core.engines.ScoredCounts.label_counts()``): TN are the negatives and TP the
        positives of each subgroup.
    ci : float in (0, 1) or None, default=None
        Confidence level of the Wilson intervals.

    Returns
    -------
    DataFrame
        As :func:`base_rates`, equal to it on the same rows.

    Raises
    ------
    ValueError
        For counts with predictions that differ from the labels (FP or FN > 0), or a bad `ci`.
    """
    level = check_ci(ci, "base_rates_from_counts")
    member = np.asarray(label_counts.member, dtype=np.float64)
    if np.any(member[:, [1, 2]] != 0):
        raise ValueError("base_rates_from_counts needs the labels counted against themselves (no FP or FN). "
                         "Tip: pass confusion_counts(y_true, y_true, subgroups).")
    return _base_rate_table(list(label_counts.names), member[:, [0, 3]], label_counts.min_size, level)


def _base_rate_table(names: list, member: np.ndarray, min_size: int, level: Optional[float]) -> pd.DataFrame:
    """The table of :func:`base_rates` from negatives and positives per subgroup, shape (k, 2)."""
    rate, note = _base_rate(member)
    sizes = member.sum(axis=1)
    columns = {
        "subgroup": names, "size": sizes.astype(np.int64),
        "n_positive": member[:, 1].astype(np.int64), "n_negative": member[:, 0].astype(np.int64),
        "base_rate": rate,
    }
    if level is not None:
        columns["base_rate_ci_low"], columns["base_rate_ci_high"] = wilson_interval(member[:, 1], sizes, level)
    columns.update({"small": sizes < min_size, "note": note})
    table = pd.DataFrame(columns)
    if level is not None:
        table.attrs["ci"] = level  # the level, for chart hovers
    return table


def dataset_statistical_parity(y_true, subgroups, *, distance_measure: str = "diff",
                               reduction: Optional[str] = "mean", reference: str = "rest",
                               include_small: bool = False, ci: Optional[float] = None, n_boot: int = 1000,
                               random_state=0, adjust: Optional[str] = None):
    """Statistical parity of a dataset: disparity of the base rates (share of positive labels).

    For each subgroup with base rate a = PL / N and reference base rate b: ``"diff"`` gives
    |a - b| (perfect 0), ``"ratio"`` gives max(a, b) / min(a, b) (perfect 1; both 0 gives 1,
    exactly one 0 gives inf).

    The base rate is the selection rate of the labels taken as predictions, so this is
    :func:`rate_disparity` with ``metric="statistical_parity"`` on ``confusion_counts(y_true,
    y_true, subgroups)`` (one code path for both, intervals included), with the notes worded
    for base rates.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes, n_samples rows
        Attributes mean their observed value combinations, nothing flagged small (min_size=1).
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'} or None, default='mean'
        None returns the table of comparisons.
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
        What each subgroup is compared with: its background, all rows, every other subgroup
        (one row per unordered pair), or one named subgroup.
    include_small : bool, default=False
        Whether comparisons involving a small subgroup enter the reduction (a subgroup, or a
        named or background reference, with fewer rows than ``min_size``).
    ci : float in (0, 1) or None, default=None
        Confidence level of intervals (e.g. 0.95). The subgroup and reference base rates get
        Wilson score intervals; every disparity and the reduced value get percentile intervals
        from a stratified multinomial bootstrap of the label counts of each membership pattern
        (rows are never resampled; subgroup sizes stay fixed, so a tiny subgroup is never
        resampled away). ``excludes_parity`` says whether the interval of the signed distance
        (a - b, or ln(a / b)) excludes 0 and ``p_value`` is the bootstrap p-value of parity;
        where parity is not excluded, ``disparity_ci_low`` is the parity value (0 or 1). The
        interval of a max is widened where needed to contain the estimate.
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}, default=None
        Multiple-comparison adjustment of the per-comparison intervals and ``excludes_parity``;
        the number of comparisons is in ``table.attrs["n_comparisons"]``.

    Returns
    -------
    DisparityResult, or DataFrame when ``reduction=None``. Table columns: ``subgroup,
    reference, size, reference_size, numerator, denominator, reference_numerator,
    reference_denominator, subgroup_value, reference_value, disparity, small, note,
    small_reason`` (numerators are positive labels, denominators rows); with `ci` also
    ``subgroup_value_ci_low/high, reference_value_ci_low/high, disparity_ci_low/high, p_value,
    excludes_parity``. A result with `ci` carries ``ci_low, ci_high, level, n_boot,
    n_boot_undefined, adjust``.

    Raises
    ------
    ValueError
        For non-binary labels, different lengths, an unknown distance, reduction, reference or
        adjustment, or an invalid `ci`, `n_boot` or `random_state`.

    References
    ----------
    Dwork et al. (2012), "Fairness Through Awareness"; seed 004 (Oracle AutoMLx,
    ``dataset_statistical_parity``). Wilson (1927), JASA 22(158).

    Examples
    --------
    >>> y, g = [1, 0, 0, 1, 1], ["a", "a", "a", "b", "b"]
    >>> round(dataset_statistical_parity(y, g, reference="pairwise").value, 6)  # |1/3 - 1|
    0.666667
    >>> dataset_statistical_parity(y, g, distance_measure="ratio", reduction="max").value  # 1 / (1/3)
    3.0
    """
    func = "dataset_statistical_parity"
    counts = ConfusionCounts.compute(y_true, y_true, subgroups, func=func)
    out = counts.disparity("statistical_parity", distance_measure=distance_measure, reduction=reduction,
                           reference=reference, include_small=include_small, ci=ci, n_boot=n_boot,
                           random_state=random_state, adjust=adjust, func=func)
    if isinstance(out, pd.DataFrame):
        return _base_rate_words(out)
    return replace(out, table=_base_rate_words(out.table))


def _base_rate_words(table: pd.DataFrame) -> pd.DataFrame:
    """The comparison table with 'selection rate' written 'base rate' in its notes."""
    table = table.copy()
    for col in ("note", "small_reason"):
        if col in table.columns:
            table[col] = table[col].astype(str).str.replace("selection rate", "base rate", regex=False)
    return table


# --------------------------------------------------------------------------------------------
# Consistency
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConsistencyResult:
    """Consistency of the labels among nearest neighbours.

    Attributes
    ----------
    value : float
        Mean over rows of the share of a row's `n_neighbors` nearest neighbours whose label
        differs from its own (seed 004's consistency; perfect 0), rows tied at the k-th
        neighbour's distance sharing its places (see :func:`consistency`).
    zemel_consistency : float
        ``1 - value``: Zemel et al. (2013)'s consistency (perfect 1).
    n_neighbors : int
    n_rows : int
        Rows used (every feature present and finite); every one of them can be a neighbour.
    n_excluded : int
        Rows left out because a feature is missing or infinite.
    features : tuple of str
        The feature names (column names, or ``x0, x1, ...`` for an array).
    n_sampled : int
        Rows whose neighbours were counted: `n_rows`, or the size of the random sample.
    std_error : float
        Standard error of `value` from sampling rows (0.0 when every row is counted): the
        standard deviation of the sampled rows' shares over sqrt(`n_sampled`), with the
        finite-population correction sqrt(1 - `n_sampled` / `n_rows`).
    """

    value: float
    zemel_consistency: float
    n_neighbors: int
    n_rows: int
    n_excluded: int
    features: tuple
    n_sampled: int = 0
    std_error: float = 0.0

    def __float__(self) -> float:
        return float(self.value)


def _features(X) -> tuple[np.ndarray, tuple]:
    """X as a float matrix (n_samples, n_features) with NaN for missing, and the feature names."""
    if isinstance(X, pd.Series):
        X = X.to_frame()
    if isinstance(X, pd.DataFrame):
        bad = [c for c in X.columns
               if not (pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c]))]
        if bad:
            what = ", ".join(f"{c!r} ({X[c].dtype})" for c in bad[:10]) + (", ..." if len(bad) > 10 else "")
            raise TypeError(X_TYPE_MESSAGE.format(what=f"These columns are not numeric: {what}."))
        if X.shape[1] == 0:
            raise ValueError(X_SHAPE_MESSAGE.format(shape=X.shape))
        matrix = np.column_stack([X[c].to_numpy(dtype=np.float64, na_value=np.nan) for c in X.columns])
        return matrix, tuple(str(c) for c in X.columns)
    arr = np.asarray(X)
    if arr.dtype.kind not in "biuf":
        raise TypeError(X_TYPE_MESSAGE.format(what=f"Got an array of dtype {arr.dtype}."))
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(X_SHAPE_MESSAGE.format(shape=arr.shape))
    return arr.astype(np.float64), tuple(f"x{i}" for i in range(arr.shape[1]))


def _standardize(points: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Standardize distinct feature rows `points` (U, p) that occur `counts` (U,) times each.

    The mean and the population standard deviation are those of all rows (each point weighted by
    its count), as ``sklearn.preprocessing.StandardScaler`` computes them; a constant column is 0.
    Summing over the sorted distinct points makes the result independent of the row order.
    """
    weights = counts[:, None].astype(np.float64)
    n = weights.sum()
    centred = points - (weights * points).sum(axis=0) / n
    sd = np.sqrt((weights * centred ** 2).sum(axis=0) / n)
    constant = points.max(axis=0) == points.min(axis=0)
    return np.where(constant, 0.0, centred / np.where(constant | (sd == 0), 1.0, sd))


def _distinct_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(points, inverse, counts) of the rows of `matrix` as ``np.unique(matrix, axis=0, ...)`` gives
    them (distinct rows in lexicographic order), from one ``np.lexsort`` (several times faster)."""
    order = np.lexsort(matrix.T[::-1])
    ordered = matrix[order]
    new = np.ones(len(ordered), bool)
    np.any(ordered[1:] != ordered[:-1], axis=1, out=new[1:])
    starts = np.flatnonzero(new)
    inverse = np.empty(len(ordered), np.intp)
    inverse[order] = np.cumsum(new) - 1
    return ordered[starts], inverse, np.diff(np.append(starts, len(ordered)))


def _point_shares(z: np.ndarray, counts: np.ndarray, positives: np.ndarray, k: int, query: np.ndarray,
                  n_jobs: Optional[int]) -> tuple[np.ndarray, np.ndarray]:
    """Share of differing labels among the k nearest neighbours of a row on each point `query`,
    for a row labelled 1 and for a row labelled 0, ties at the k-th shared.

    `z` (U, p) are the distinct standardized points, `counts` (U,) how many rows sit on each and
    `positives` (U,) how many of those have label 1. For the rows on point u the neighbours are
    the other ``counts[u] - 1`` rows on u (distance 0) and the rows on the other points. With r the
    distance at which the neighbours (nearest first) reach k rows, C the rows strictly closer than
    r and T the rows at distance r (within ``TIE_RTOL``), a row with label y scores

        (#{j in C: y_j != y} + (k - |C|) * #{j in T: y_j != y} / |T|) / k.

    The neighbours of the query points are found in one query of a k-d tree over all points
    (SciPy's ``cKDTree``, built unbalanced: several times faster to build at 10^6 points; above
    15 features scikit-learn's ball tree), run on `n_jobs` threads, whose distances are computed
    directly (not by the expansion |a|^2 - 2 a.b + |b|^2); for the points where more rows than
    were fetched may lie at distance r, the query is repeated with twice as many neighbours until
    none are left. A share is NaN where no row with that label sits on the point (a label-1 row on a
    point with no positives is impossible, so its share is undefined, never used).
    """
    n_points = len(z)
    counts = counts.astype(np.float64)
    positives = positives.astype(np.float64)
    dups = counts - 1.0  # the other rows on the same point, at distance 0
    if z.shape[1] <= 15:
        from scipy.spatial import cKDTree

        tree = cKDTree(z, balanced_tree=False, compact_nodes=False)

        def neighbours(points: np.ndarray, n: int):
            return tree.query(points, k=np.arange(1, n + 1), workers=n_jobs or 1)
    else:
        from sklearn.neighbors import NearestNeighbors

        search = NearestNeighbors(algorithm="ball_tree", n_jobs=n_jobs).fit(z)

        def neighbours(points: np.ndarray, n: int):
            return search.kneighbors(points, n_neighbors=n)
    stats = np.zeros((n_points, 5))  # r, closer rows, closer positives, tied rows, tied positives
    todo = np.asarray(query, dtype=np.intp)
    fetch = min(n_points, k + 1)
    while len(todo):
        dist, idx = neighbours(z[todo], fetch)  # sorted, the point itself included
        own = idx == todo[:, None]
        weight = np.where(own, dups[todo, None], counts[idx])
        reach = (np.cumsum(weight, axis=1) >= k).argmax(axis=1)  # some column always reaches k rows
        r = dist[np.arange(len(todo)), reach]
        done = (fetch == n_points) | (dist[:, -1] > r * (1.0 + TIE_RTOL))
        others = np.where(own, 0.0, weight)[done]
        others_pos = np.where(own, 0.0, positives[idx])[done]
        d, rd = dist[done], r[done][:, None]
        closer = d < rd * (1.0 - TIE_RTOL)
        tied = ~closer & (d <= rd * (1.0 + TIE_RTOL))
        stats[todo[done]] = np.column_stack([
            r[done], (others * closer).sum(axis=1), (others_pos * closer).sum(axis=1),
            (others * tied).sum(axis=1), (others_pos * tied).sum(axis=1)])
        todo = todo[~done]
        fetch = min(n_points, 2 * fetch)
    query = np.asarray(query, dtype=np.intp)
    r, closer_n, closer_pos, tied_n, tied_pos = stats[query].T
    counts, positives, dups = counts[query], positives[query], dups[query]
    at_zero = r == 0  # the point's own duplicates are tied at the k-th distance, else strictly closer
    shares = []
    for label, rows in ((1.0, positives), (0.0, counts - positives)):
        dup_pos = positives - label  # positives among the other rows on the point
        c_n = closer_n + np.where(at_zero, 0.0, dups)
        c_pos = closer_pos + np.where(at_zero, 0.0, dup_pos)
        t_n = tied_n + np.where(at_zero, dups, 0.0)
        t_pos = tied_pos + np.where(at_zero, dup_pos, 0.0)
        c_diff, t_diff = (c_n - c_pos, t_n - t_pos) if label else (c_pos, t_pos)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = (c_diff + (k - c_n) * t_diff / t_n) / k
        shares.append(np.where(rows > 0, share, np.nan))
    return shares[0], shares[1]


def _sample_rows(counts: np.ndarray, positives: np.ndarray, size: int, random_state) -> tuple[np.ndarray, np.ndarray]:
    """(point, label) of `size` rows drawn without replacement, seeded, from the rows sorted by
    (point, label): rows are identified by their place in that order, never by their input
    position, so the sample does not depend on the order of the rows."""
    rng = np.random.default_rng(random_state)
    ends = np.cumsum(counts)
    place = np.sort(rng.choice(int(ends[-1]), size=size, replace=False))
    point = np.searchsorted(ends, place, side="right")
    return point, (place >= ends[point] - positives[point]).astype(np.int8)  # a point's negatives come first


def consistency(X, y_true, *, n_neighbors: int = 5, sample_size: Optional[int] = None, random_state=0,
                n_jobs: Optional[int] = None) -> ConsistencyResult:
    """Consistency: how often a row's nearest neighbours carry a different label.

    The features are standardized (zero mean, unit variance per column; a constant column stays
    0), and for each row i its k = `n_neighbors` nearest neighbours by Euclidean distance are
    found among the other rows (its own point excluded, exact duplicates of it included). With
    r_i the distance of the k-th nearest other row, C(i) the other rows strictly closer than r_i
    and T(i) the other rows at distance r_i (|C(i)| < k <= |C(i)| + |T(i)|):

        w_i = (k - |C(i)|) / |T(i)|                                   (weight of each tied row)
        value = (1 / n) * sum_i (1 / k) * (#{j in C(i) : y_j != y_i} + w_i * #{j in T(i) : y_j != y_i})
        zemel_consistency = 1 - value                                  (perfect 1)

    Without ties at the k-th distance (|T(i)| = k - |C(i)|, every w_i = 1) this is the seed's
    share of the k nearest neighbours whose label differs (perfect 0), and Zemel et al.'s
    1 - (1 / n) * sum_i |y_i - (1 / k) * sum_{j in kNN(i)} y_j|.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        Numeric features (bool counts as numeric) chosen by the user; usually not the protected
        attributes. Rows with a missing or infinite feature are left out and counted.
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    n_neighbors : int, default=5
        At least 1 and smaller than the number of rows used.
    sample_size : int, optional
        Count the neighbours of this many rows only, drawn at random without replacement (their
        neighbours are still searched among all rows used), and report the sampling error as
        ``std_error``. None (the default), or a size of at least the rows used: every row. The
        nearest-neighbour search costs time roughly proportional to the rows counted.
    random_state : int or numpy Generator, default=0
        Seed of the sample (the same seed and data always give the same sample, whatever the
        order of the rows).
    n_jobs : int, optional
        Threads for the neighbour search (-1: all cores), as in scikit-learn.

    Returns
    -------
    ConsistencyResult

    Raises
    ------
    TypeError
        If a feature is not numeric (``X_TYPE_MESSAGE``).
    ValueError
        For non-binary labels, different lengths, no feature, or `n_neighbors` < 1 or not
        smaller than the rows used (``NEIGHBORS_MESSAGE``).

    Notes
    -----
    Ties: when more rows than fit lie at the k-th neighbour's distance (repeated feature rows,
    or rows symmetric about row i), the rows strictly closer count fully and all the tied rows
    share the remaining k - |C(i)| places equally; this is the mean over every way of choosing
    among them. Picking some of them (as a plain k-nearest-neighbour search does, by row order)
    would make the value depend on the order of the rows. Distances within a relative
    ``TIE_RTOL`` (1e-9) of r_i count as tied, so rounding in the standardization cannot split a
    tie. Rows with identical features are handled as one point with a count, and the
    standardization is computed from those points, so the value does not depend on row order.

    With `sample_size` = m < n, `value` is the mean of the m sampled rows' shares: an unbiased
    estimate of the value over every row, with standard error
    sqrt((1 - m / n) * s^2 / m) (s^2: the sample variance of the shares; a normal
    approximation, good for m in the thousands). The standardization always uses every row.

    Zemel et al. define consistency on a model's predictions; here, as in seed 004, it is applied
    to the labels, a property of the dataset.

    References
    ----------
    Zemel et al. (2013), "Learning Fair Representations", ICML; seed 004 (Oracle AutoMLx,
    ``consistency``).

    Examples
    --------
    >>> X = [[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]]
    >>> consistency(X, [0, 0, 0, 1, 1, 1], n_neighbors=2).value
    0.0
    >>> result = consistency(X, [0, 0, 1, 1, 1, 1], n_neighbors=2)
    >>> result.value  # rows 0 and 1: one of two neighbours differs; row 2: both; (1/2 + 1/2 + 1) / 6
    0.3333333333333333
    >>> result.zemel_consistency
    0.6666666666666667

    A tie: row 1 (at 1.0) has rows 0 and 2 at distance 1 and one place, so each counts 1/2.

    >>> consistency([[0.0], [1.0], [2.0]], [0, 0, 1], n_neighbors=1).value  # (0 + 1/2 + 1) / 3
    0.5
    """
    func = "consistency"
    y = as_binary(y_true, "y_true", func)
    matrix, names = _features(X)
    check_length(matrix, len(y), "X", func)
    n_neighbors = check_int(n_neighbors, 1, "n_neighbors", func)
    if sample_size is not None:
        sample_size = check_int(sample_size, 1, "sample_size", func)
    keep = np.isfinite(matrix).all(axis=1)
    n_rows, n_excluded = int(keep.sum()), int((~keep).sum())
    if n_neighbors >= n_rows:
        raise ValueError(NEIGHBORS_MESSAGE.format(n_rows=n_rows, n_excluded=n_excluded, got=n_neighbors))
    # Distinct feature rows in sorted order (+ 0.0 turns -0.0 into 0.0), with their row counts.
    points, inverse, counts = _distinct_rows(matrix[keep] + 0.0)
    positives = np.bincount(inverse, weights=y[keep].astype(np.float64), minlength=len(points))
    z = _standardize(points, counts)
    if sample_size is None or sample_size >= n_rows:
        share_1, share_0 = _point_shares(z, counts, positives, n_neighbors, np.arange(len(points)), n_jobs)
        total = 0.0
        for share, rows in ((share_1, positives), (share_0, counts - positives)):
            total += float(np.sum(np.where(rows > 0, rows * share, 0.0)))
        value, n_sampled, std_error = total / float(counts.sum()), n_rows, 0.0
    else:
        point, label = _sample_rows(counts, positives, sample_size, random_state)
        query, at = np.unique(point, return_inverse=True)
        share_1, share_0 = _point_shares(z, counts, positives, n_neighbors, query, n_jobs)
        shares = np.where(label == 1, share_1[at], share_0[at])
        value, n_sampled = float(shares.mean()), sample_size
        spread = float(shares.var(ddof=1)) if sample_size > 1 else float("nan")
        std_error = float(np.sqrt((1.0 - sample_size / n_rows) * spread / sample_size))
    return ConsistencyResult(value=value, zemel_consistency=1.0 - value, n_neighbors=n_neighbors, n_rows=n_rows,
                             n_excluded=n_excluded, features=names, n_sampled=n_sampled, std_error=std_error)


# --------------------------------------------------------------------------------------------
# Smoothed empirical differential fairness
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SmoothedEdfResult:
    """Smoothed empirical differential fairness (EDF) of the labels, and the pair that attains it.

    Attributes
    ----------
    value : float
        epsilon, the largest |ln s_i(y) - ln s_j(y)| over pairs of usable subgroups and both
        outcomes (perfect 0); NaN (see `reason`) with fewer than two usable subgroups.
    pair : tuple of (str, str) or None
        The two subgroups attaining it: (higher smoothed rate of `outcome`, lower).
    outcome : int or None
        The label value whose rates differ most: 1 (positive) or 0 (negative).
    table : DataFrame
        One row per subgroup: ``subgroup, size, n_positive, n_negative, smoothed_positive_rate,
        smoothed_negative_rate, small, used, note``; with intervals, each smoothed rate is
        followed by ``<rate>_ci_low, <rate>_ci_high`` and ``attrs["ci"]`` holds the level.
    concentration : float
    n_used : int
        Subgroups that took part (observed, and not small unless included).
    reason : str
        Why `value` is NaN; empty otherwise.
    ci_low, ci_high : float
        Percentile bootstrap interval of `value` (NaN unless an interval was asked for, or when
        `value` is NaN).
    level : float or None
        Confidence level of the intervals (None: no intervals).
    n_boot : int
        Bootstrap replicates drawn (0: none).
    n_boot_undefined : int
        Replicates in which epsilon was undefined (left out of the interval). The subgroup sizes
        are fixed by the stratified bootstrap and the smoothed rates are never 0, so this is 0
        whenever `value` is defined.
    """

    value: float
    pair: Optional[tuple]
    outcome: Optional[int]
    table: pd.DataFrame
    concentration: float
    n_used: int
    reason: str
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    level: Optional[float] = None
    n_boot: int = 0
    n_boot_undefined: int = 0

    def __float__(self) -> float:
        return float(self.value)


def _smoothed(member: np.ndarray, alpha: float) -> np.ndarray:
    """Smoothed outcome rates (..., k, 2) from label counts of shape (..., k, 2); leading axes kept."""
    return (member + alpha) / (member.sum(axis=-1, keepdims=True) + 2.0 * alpha)


def _epsilon(smoothed: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Epsilon (...) from smoothed rates (..., k, 2): the larger over the two outcomes of max - min of
    the log rates of the `used` subgroups (at least one)."""
    logs = np.log(smoothed[..., used, :])
    return (logs.max(axis=-2) - logs.min(axis=-2)).max(axis=-1)


def smoothed_edf(y_true, subgroups, *, concentration: float = 1.0, include_small: bool = False,
                 ci: Optional[float] = None, n_boot: int = 1000, random_state=0) -> SmoothedEdfResult:
    """Smoothed empirical differential fairness of the labels (Foulds et al. 2020).

    Each subgroup's outcome rates are smoothed with a symmetric Dirichlet prior of total
    `concentration` (alpha = concentration / 2 per outcome):

        s_g(1) = (positives_g + alpha) / (n_g + 2 alpha),   s_g(0) = (negatives_g + alpha) / (n_g + 2 alpha)
        epsilon = max over pairs (i, j) of usable subgroups and y in {0, 1} of |ln s_i(y) - ln s_j(y)|

    computed per outcome as max - min of the log rates. The labels are epsilon-differentially
    fair: every subgroup's outcome probabilities are within a factor exp(epsilon) of every
    other's (perfect 0).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes, n_samples rows
        Attributes mean their observed value combinations (the intersections Foulds et al. use),
        nothing flagged small (min_size=1). The subgroups must be disjoint: no row may belong to
        two of them. Rows in no subgroup (a missing indicator value) take no part.
    concentration : float, default=1.0
        Total pseudo-count of the prior, > 0.
    include_small : bool, default=False
        Whether small subgroups take part. Subgroups with no rows never do.
    ci : float in (0, 1) or None, default=None
        Confidence level of intervals (e.g. 0.95); None computes none. Percentile intervals of
        a stratified multinomial bootstrap of the (subgroup, label) counts: each subgroup keeps
        its number of rows and its positive count is redrawn from Binomial(n_g, positives_g /
        n_g), exactly a resample of rows within each subgroup, so a tiny subgroup is never
        resampled away. Epsilon and both smoothed rates of every subgroup with rows get an
        interval. Epsilon is a maximum, whose bootstrap distribution is biased upwards, so its
        interval is widened where needed to contain the estimate. A subgroup whose labels are
        all one value has a zero-width rate interval (a resample cannot draw the other label);
        its size says how little that means.
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.

    Returns
    -------
    SmoothedEdfResult
        With `ci`: ``ci_low, ci_high, level, n_boot, n_boot_undefined``, and in ``table``
        ``smoothed_positive_rate_ci_low/high`` and ``smoothed_negative_rate_ci_low/high``
        (NaN for a subgroup without rows).

    Raises
    ------
    ValueError
        For non-binary labels, different lengths, a `concentration` that is not finite and
        > 0 (``CONCENTRATION_MESSAGE``), subgroups that overlap, such as identity indicator
        columns (``EDF_OVERLAP_MESSAGE``), or an invalid `ci`, `n_boot` or `random_state`.
    TypeError
        If `concentration` is not a number (``CONCENTRATION_TYPE_MESSAGE``).

    Notes
    -----
    Seed 004's prose describes a subgroup compared "to the rest of the population"; Foulds et al.
    and ARCHITECTURE §5.5 define epsilon over pairs of subgroups, which is what is computed.
    Foulds et al.'s groups are the intersections of the protected attributes, which partition the
    people; overlapping subgroups (a row both "female" and "black" as separate indicator columns)
    have no such meaning and are refused rather than compared silently.

    References
    ----------
    Foulds, Islam, Keya and Pan (2020), "An Intersectional Definition of Fairness", ICDE;
    seed 004 (Oracle AutoMLx, ``smoothed_edf``). Efron & Tibshirani (1993), "An Introduction to
    the Bootstrap" (percentile intervals).

    Examples
    --------
    >>> result = smoothed_edf([1, 1, 1, 0, 1, 0, 0, 0], ["a"] * 4 + ["b"] * 4)
    >>> round(result.value, 6), result.pair, result.outcome  # ln((3.5 / 5) / (1.5 / 5))
    (0.847298, ('a', 'b'), 1)
    >>> r = smoothed_edf([1, 1, 1, 0, 1, 0, 0, 0] * 10, (["a"] * 4 + ["b"] * 4) * 10, ci=0.95)
    >>> r.ci_low <= r.value <= r.ci_high, r.n_boot, r.n_boot_undefined
    (True, 1000, 0)
    """
    func = "smoothed_edf"
    _check_concentration(concentration)
    concentration = float(concentration)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    y = as_binary(y_true, "y_true", func)
    groups = as_subgroups(subgroups, len(y), func)
    if groups.codes is None:  # disjoint unless a row is a member of two subgroups
        shared = groups.membership.sum(axis=1) > 1
        if shared.any():
            first, second = np.flatnonzero(groups.membership[shared.argmax()])[:2]
            raise ValueError(EDF_OVERLAP_MESSAGE.format(n_rows=int(shared.sum()), first=groups.names[first],
                                                        second=groups.names[second]))
    draws = None
    if level is not None:
        atoms = Atoms.of(groups, y.astype(np.intp), 2)
        member = atoms.tables()[0]
        # Every replicate's (subgroup, label) counts at once: shape (n_boot, n_subgroups, 2).
        draws = (replicate_stat(atoms, lambda m, b, o: m, n_boot, rng) if atoms.counts.size
                 else np.zeros((n_boot, len(groups.names), 2)))
    else:
        member = groups.crosstab(y.astype(np.intp), 2)[0]
    return _edf_of(list(groups.names), member, groups.min_size, concentration, include_small, level, draws)


def smoothed_edf_from_counts(label_counts, *, concentration: float = 1.0, include_small: bool = False, ci=None,
                             n_boot: int = 1000, random_state=0) -> "SmoothedEdfResult":
    """:func:`smoothed_edf` from the labels' count table instead of the rows.

    Parameters
    ----------
    label_counts : ConfusionCounts
        The labels counted against themselves (``confusion_counts(y_true, y_true, subgroups)`` or
        ``fairness_core.engines.ScoredCounts.label_counts()``) of disjoint subgroups.
    concentration, include_small
        As :func:`smoothed_edf`.
    ci, n_boot, random_state
        As :func:`smoothed_edf`: the bootstrap resamples the counts' atoms (negatives and positives
        per membership pattern), so `label_counts` must hold them (``confusion_counts`` or an
        engine's ``ScoredCounts.with_atoms()``).

    Returns
    -------
    SmoothedEdfResult
        Equal to ``smoothed_edf(y_true, subgroups, ...)`` on the same rows (with `ci` and the same
        seed, the same intervals).

    Raises
    ------
    ValueError
        For overlapping subgroups (``EDF_OVERLAP_MESSAGE``: the counts cannot say which rows are
        shared), a bad `concentration`, counts that are not the labels against themselves, bad
        bootstrap options, or `ci` with counts that hold no atoms.
    TypeError
        If `concentration` is not a number.
    """
    func = "smoothed_edf_from_counts"
    _check_concentration(concentration)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    if not label_counts.disjoint:
        raise ValueError(EDF_OVERLAP_COUNTS_MESSAGE)
    member = np.asarray(label_counts.member, dtype=np.float64)
    if np.any(member[:, [1, 2]] != 0):
        raise ValueError("smoothed_edf_from_counts needs the labels counted against themselves (no FP or FN). "
                         "Tip: pass confusion_counts(y_true, y_true, subgroups).")
    draws = None
    if level is not None:
        if label_counts.atoms is None:
            raise ValueError(CONFUSION_NO_ATOMS_MESSAGE.format(func=func))
        counts = label_counts.atoms
        atoms = Atoms(counts.counts[:, [0, 3]], counts.member, counts.background)   # negatives, positives
        draws = (replicate_stat(atoms, lambda m, b, o: m, n_boot, rng) if atoms.counts.size
                 else np.zeros((n_boot, len(label_counts.names), 2)))
    return _edf_of(list(label_counts.names), member[:, [0, 3]], label_counts.min_size, float(concentration),
                   include_small, level, draws)


def _check_concentration(concentration) -> None:
    if isinstance(concentration, bool) or not isinstance(concentration, (int, float, np.integer, np.floating)):
        raise TypeError(CONCENTRATION_TYPE_MESSAGE.format(got=concentration, type=type(concentration).__name__))
    if not np.isfinite(concentration) or concentration <= 0:
        raise ValueError(CONCENTRATION_MESSAGE.format(got=concentration))


def _edf_of(names: list, member: np.ndarray, min_size: int, concentration: float, include_small: bool,
            level: Optional[float], draws: Optional[np.ndarray]) -> "SmoothedEdfResult":
    """The smoothed EDF of negatives and positives per subgroup `member` (k, 2); with `level`, percentile
    intervals from the bootstrap replicates `draws` (n_boot, k, 2)."""
    alpha = concentration / 2.0
    sizes = member.sum(axis=1)
    small = sizes < min_size
    smoothed = _smoothed(member, alpha)  # columns: outcome 0, outcome 1
    used = (sizes > 0) & (include_small | ~small)
    note = np.where(sizes == 0, "no rows: not used",
                    np.where(used, "", "small: not used (include_small=False)")).astype(object)
    n_used = int(used.sum())
    interval, eps_reps, bounds = {}, None, None
    if level is not None:
        n_boot = len(draws)
        rate_reps = _smoothed(draws, alpha)
        bounds = [np.where((sizes == 0)[:, None], np.nan, x) for x in percentile_interval(rate_reps, level)[:2]]
        eps_reps = _epsilon(rate_reps, used) if n_used >= 2 else None
        interval = {"level": level, "n_boot": n_boot, "n_boot_undefined": n_boot if eps_reps is None else 0}
    columns = {
        "subgroup": names, "size": sizes.astype(np.int64),
        "n_positive": member[:, 1].astype(np.int64), "n_negative": member[:, 0].astype(np.int64),
    }
    for outcome, name in ((1, "smoothed_positive_rate"), (0, "smoothed_negative_rate")):
        columns[name] = smoothed[:, outcome]
        if bounds is not None:
            columns[f"{name}_ci_low"], columns[f"{name}_ci_high"] = bounds[0][:, outcome], bounds[1][:, outcome]
    table = pd.DataFrame({**columns, "small": small, "used": used, "note": note})
    if level is not None:
        table.attrs["ci"] = level
    if n_used < 2:
        return SmoothedEdfResult(value=float("nan"), pair=None, outcome=None, table=table,
                                 concentration=concentration, n_used=n_used,
                                 reason=f"fewer than two usable subgroups ({n_used}); subgroups need rows, "
                                        f"and small ones take part only with include_small=True", **interval)
    index = np.flatnonzero(used)
    logs = np.log(smoothed[index])  # (n_used, 2)
    hi, lo = logs.argmax(axis=0), logs.argmin(axis=0)
    spread = logs[hi, [0, 1]] - logs[lo, [0, 1]]
    y = 1 if spread[1] >= spread[0] else 0  # the positive outcome wins a tie
    first, second = (hi[y], lo[y]) if hi[y] != lo[y] else (0, 1)  # all rates equal: any pair attains 0
    value = float(spread[y])
    if eps_reps is not None:
        e_low, e_high, e_undefined = percentile_interval(eps_reps[:, None], level)
        interval.update(ci_low=float(min(e_low[0], value)), ci_high=float(max(e_high[0], value)),
                        n_boot_undefined=int(e_undefined[0]))
    return SmoothedEdfResult(value=value, pair=(names[index[first]], names[index[second]]), outcome=y,
                             table=table, concentration=concentration, n_used=n_used, reason="", **interval)
