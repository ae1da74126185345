"""Consistency: how alike the labels of similar rows are (k nearest neighbours on distinct rows), optionally
with sample weights."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .._data.checks import as_binary, check_int, check_length
from .._counts.weights import check_sample_weight
from .._stats.result import ValueResult


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
ZERO_WEIGHT_NOTE = " {n_zero:,} rows of weight 0 were left out as well."
# Distances within this relative tolerance of the k-th neighbour's distance count as tied (consistency).
TIE_RTOL = 1e-9


# --------------------------------------------------------------------------------------------
# Consistency
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConsistencyResult(ValueResult):
    """Consistency of the labels among nearest neighbours.

    Attributes
    ----------
    value : float
        Mean over rows of the share of a row's `n_neighbors` nearest neighbours whose label
        differs from its own (Oracle AutoMLx's consistency; perfect 0), rows tied at the k-th
        neighbour's distance sharing its places (see :func:`consistency`); with sample weights
        the weighted mean over rows of |y_i - the weighted mean of its neighbours' labels|.
    zemel_consistency : float
        ``1 - value``: Zemel et al. (2013)'s consistency (perfect 1).
    n_neighbors : int
    n_rows : int
        Rows used (every feature present and finite, and with sample weights a weight > 0); every
        one of them can be a neighbour.
    n_excluded : int
        Rows left out because a feature is missing or infinite.
    features : tuple of str
        The feature names (column names, or ``x0, x1, ...`` for an array).
    n_sampled : int
        Rows whose neighbours were counted: `n_rows`, or the size of the random sample.
    std_error : float
        Standard error of `value` from sampling rows (0.0 when every row is counted): the
        standard deviation of the sampled rows' shares over sqrt(`n_sampled`), with the
        finite-population correction sqrt(1 - `n_sampled` / `n_rows`); with sample weights the
        linearized standard error of the weighted mean of the sample (see :func:`consistency`).
    n_zero_weight : int
        Rows left out because their sample weight is 0 (0 without weights).
    """

    value: float
    zemel_consistency: float
    n_neighbors: int
    n_rows: int
    n_excluded: int
    features: tuple
    n_sampled: int = 0
    std_error: float = 0.0
    n_zero_weight: int = 0


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


def _neighbour_sums(z: np.ndarray, counts: np.ndarray, values: np.ndarray, k: int, query: np.ndarray,
                    n_jobs: Optional[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The k-th neighbour's distance r of each point `query` and the sums of `values` (U, F) over the other
    points strictly closer than r and over those at distance r (within ``TIE_RTOL``).

    `z` (U, p) are the distinct standardized points and `counts` (U,) how many rows sit on each; r is where
    the neighbours, nearest first, reach k rows, counting the ``counts[u] - 1`` other rows on the query's own
    point u at distance 0 (the point itself is left out of the sums: its rows are the caller's). The
    neighbours of the query points are found in one query of a k-d tree over all points (SciPy's
    ``cKDTree``, built unbalanced: several times faster to build at 10^6 points; above 15 features
    scikit-learn's ball tree), run on `n_jobs` threads, whose distances are computed directly (not by the
    expansion |a|^2 - 2 a.b + |b|^2); for the points where more rows than were fetched may lie at distance r,
    the query is repeated with twice as many neighbours until none are left.

    Returns
    -------
    r : ndarray of shape (len(query),)
    closer, tied : ndarray of shape (len(query), F)
    """
    n_points = len(z)
    counts = counts.astype(np.float64)
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
    n_values = values.shape[1]
    stats = np.zeros((n_points, 1 + 2 * n_values))  # r, the values' sums over the closer and the tied points
    todo = np.asarray(query, dtype=np.intp)
    fetch = min(n_points, k + 1)
    while len(todo):
        dist, idx = neighbours(z[todo], fetch)  # sorted, the point itself included
        own = idx == todo[:, None]
        weight = np.where(own, dups[todo, None], counts[idx])
        reach = (np.cumsum(weight, axis=1) >= k).argmax(axis=1)  # some column always reaches k rows
        r = dist[np.arange(len(todo)), reach]
        done = (fetch == n_points) | (dist[:, -1] > r * (1.0 + TIE_RTOL))
        d, rd = dist[done], r[done][:, None]
        closer = d < rd * (1.0 - TIE_RTOL)
        tied = ~closer & (d <= rd * (1.0 + TIE_RTOL))
        sums = []
        for f in range(n_values):
            others = np.where(own, 0.0, values[idx, f])[done]
            sums.append(((others * closer).sum(axis=1), (others * tied).sum(axis=1)))
        stats[todo[done]] = np.column_stack([r[done], *(a for a, _ in sums), *(b for _, b in sums)])
        todo = todo[~done]
        fetch = min(n_points, 2 * fetch)
    out = stats[np.asarray(query, dtype=np.intp)]
    return out[:, 0], out[:, 1:1 + n_values], out[:, 1 + n_values:]


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

    The neighbours are searched by :func:`_neighbour_sums`. A share is NaN where no row with that
    label sits on the point (a label-1 row on a point with no positives is impossible, so its share
    is undefined, never used).
    """
    counts = counts.astype(np.float64)
    positives = positives.astype(np.float64)
    dups = counts - 1.0  # the other rows on the same point, at distance 0
    query = np.asarray(query, dtype=np.intp)
    r, closer, tied = _neighbour_sums(z, counts, np.column_stack([counts, positives]), k, query, n_jobs)
    (closer_n, closer_pos), (tied_n, tied_pos) = closer.T, tied.T
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


def _weighted_terms(z: np.ndarray, counts: np.ndarray, mass: np.ndarray, mass_pos: np.ndarray, point: np.ndarray,
                    y: np.ndarray, w: np.ndarray, k: int, n_jobs: Optional[int]) -> np.ndarray:
    """|y_i - ybar_i| of the rows on points `point` (labels `y`, weights `w`, shape (n,)): ybar_i the weighted mean
    of the labels of row i's neighbours, each neighbour weighing its sample weight times its share of a place.
    `counts`, `mass` and `mass_pos` (U,) are the rows, their weight and their positives' weight on each point
    (of all the rows used, not only those whose terms are asked for).

    The neighbourhood is the unweighted one (the rows nearest first up to k rows, the other rows on the row's
    own point at distance 0, the tied rows sharing the remaining places equally: :func:`_point_shares`); with
    C and T the rows closer than and tied at the k-th distance and s = (k - |C|) / |T| each tied row's share,

        ybar_i = (sum_{j in C} w_j y_j + s sum_{j in T} w_j y_j) / (sum_{j in C} w_j + s sum_{j in T} w_j).

    The other rows on row i's point weigh that point's weight less w_i (its positives' weight less w_i y_i),
    so the terms are per row, not per point. Every weight is > 0 here (rows of weight 0 are left out before).
    """
    counts = counts.astype(np.float64)
    query, at = np.unique(point, return_inverse=True)
    values = np.column_stack([counts, mass, mass_pos])
    r, closer, tied = (a[at] for a in _neighbour_sums(z, counts, values, k, query, n_jobs))
    at_zero = r == 0  # the row's own point reaches k: its other rows are tied at the k-th distance
    own = [counts[point] - 1.0, np.maximum(mass[point] - w, 0.0)]   # the other rows on the point: rows, weight
    own.append(np.clip(mass_pos[point] - w * y, 0.0, own[1]))      # ... and their positives' weight
    closer_sums = [c + np.where(at_zero, 0.0, o) for c, o in zip(closer.T, own)]
    tied_sums = [t + np.where(at_zero, o, 0.0) for t, o in zip(tied.T, own)]
    share = (k - closer_sums[0]) / tied_sums[0]   # each tied row's share of a place (|T| >= k - |C| > 0)
    weight = closer_sums[1] + share * tied_sums[1]
    positive = closer_sums[2] + share * tied_sums[2]
    return np.abs(y - positive / weight)


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
                n_jobs: Optional[int] = None, sample_weight=None) -> ConsistencyResult:
    """Consistency: how often a row's nearest neighbours carry a different label.

    The features are standardized (zero mean, unit variance per column; a constant column stays
    0), and for each row i its k = `n_neighbors` nearest neighbours by Euclidean distance are
    found among the other rows (its own point excluded, exact duplicates of it included). With
    r_i the distance of the k-th nearest other row, C(i) the other rows strictly closer than r_i
    and T(i) the other rows at distance r_i (|C(i)| < k <= |C(i)| + |T(i)|):

        w_i = (k - |C(i)|) / |T(i)|                                   (weight of each tied row)
        value = (1 / n) * sum_i (1 / k) * (#{j in C(i) : y_j != y_i} + w_i * #{j in T(i) : y_j != y_i})
        zemel_consistency = 1 - value                                  (perfect 1)

    Without ties at the k-th distance (|T(i)| = k - |C(i)|, every w_i = 1) this is Oracle AutoMLx's
    share of the k nearest neighbours whose label differs (perfect 0), and Zemel et al.'s
    1 - (1 / n) * sum_i |y_i - (1 / k) * sum_{j in kNN(i)} y_j|.

    With `sample_weight` (w_i > 0; rows of weight 0 are left out first, counted in
    ``n_zero_weight``), the neighbourhoods stay those of the rows (the k nearest other rows, ties
    sharing places as above; a_ij = 1 for j in C(i), the tie share s_i = (k - |C(i)|) / |T(i)| for
    j in T(i), 0 otherwise), the neighbours' labels are averaged with their weights, and the rows
    are averaged with theirs:

        ybar_i = sum_j a_ij w_j y_j / sum_j a_ij w_j,
        value = sum_i w_i |y_i - ybar_i| / sum_i w_i,

    which for binary labels is the weighted mean over rows of the neighbours' weighted share of
    differing labels. The features are standardized with the weighted mean and standard
    deviation. A weight says how many people a row stands for, not how many rows there are: a
    row is never its own neighbour, whatever its weight, so integer weights do *not* give the
    value of the rows repeated (repeated rows would be each other's neighbours at distance 0; a
    weight-as-count neighbourhood of k would also change with the scale of the weights, e.g. make
    every survey weight in the thousands its own k neighbours). The value does not change when
    every weight is multiplied by the same number; equal weights (unit weights among them) give
    the unweighted value, and are computed so, bit for bit.

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
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row (e.g. survey weights); a row of weight 0 takes no part.
        None weighs every row alike.

    Returns
    -------
    ConsistencyResult

    Raises
    ------
    TypeError
        If a feature is not numeric (``X_TYPE_MESSAGE``).
    ValueError
        For non-binary labels, different lengths, no feature, `n_neighbors` < 1 or not
        smaller than the rows used (``NEIGHBORS_MESSAGE``), or weights that are negative, NaN,
        infinite, not numbers or of the wrong length.

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
    With weights the sample is drawn the same way (rows, not weights; the rows identified by their
    place in the (point, label, weight) order), `value` is the weighted mean of the sampled rows'
    terms t_i, v = sum w_i t_i / sum w_i (a ratio estimate of the value over every row), and
    its standard error the linearized one,
    sqrt((1 - m / n) * m / (m - 1) * sum w_i^2 (t_i - v)^2) / sum w_i (unit weights: the formula above).

    Zemel et al. define consistency on a model's predictions; here, as in Oracle AutoMLx, it is applied
    to the labels, a property of the dataset.

    References
    ----------
    Zemel et al. (2013), "Learning Fair Representations", ICML; Oracle AutoMLx,
    ``consistency``.

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

    With weights a row of weight 3 is still one row, never its own neighbour: row 0's neighbour is
    row 1 (label 1) and row 1's is row 0, so (3 * 1 + 1 * 1 + 0 + 0) / 6 (three repeated copies of
    row 0 would be each other's neighbours instead: 1 / 6).

    >>> X = [[0.0], [0.1], [10.0], [10.1]]
    >>> round(consistency(X, [0, 1, 1, 1], n_neighbors=1, sample_weight=[3, 1, 1, 1]).value, 4)
    0.6667
    """
    func = "consistency"
    y = as_binary(y_true, "y_true", func)
    matrix, names = _features(X)
    check_length(matrix, len(y), "X", func)
    n_neighbors = check_int(n_neighbors, 1, "n_neighbors", func)
    if sample_size is not None:
        sample_size = check_int(sample_size, 1, "sample_size", func)
    w = check_sample_weight(sample_weight, len(y), func)
    keep = np.isfinite(matrix).all(axis=1)
    n_excluded, n_zero = int((~keep).sum()), 0
    if w is not None:
        n_zero = int((keep & (w == 0)).sum())
        keep &= w > 0
    n_rows = int(keep.sum())
    if n_neighbors >= n_rows:
        raise ValueError(NEIGHBORS_MESSAGE.format(n_rows=n_rows, n_excluded=n_excluded, got=n_neighbors)
                         + (ZERO_WEIGHT_NOTE.format(n_zero=n_zero) if n_zero else ""))
    if w is not None:
        w = w[keep]
        if np.all(w == w[0]):   # equal weights: the unweighted value (the value does not change with their scale)
            w = None
    # Distinct feature rows in sorted order (+ 0.0 turns -0.0 into 0.0), with their row counts.
    points, inverse, counts = _distinct_rows(matrix[keep] + 0.0)
    positives = np.bincount(inverse, weights=y[keep].astype(np.float64), minlength=len(points))
    if w is not None:
        # Rows in (point, label, weight) order, so that every sum (and the sample) is independent of the row order.
        labels = y[keep].astype(np.float64)
        order = np.lexsort((w, labels, inverse))
        inverse, labels, w = inverse[order], labels[order], w[order]
        mass = np.bincount(inverse, weights=w, minlength=len(points))   # each point's weight
        z = _standardize(points, mass)
        value, n_sampled, std_error = _weighted_consistency(z, counts, mass, inverse, labels, w, n_neighbors,
                                                            sample_size, random_state, n_jobs)
        return ConsistencyResult(value=value, zemel_consistency=1.0 - value, n_neighbors=n_neighbors, n_rows=n_rows,
                                 n_excluded=n_excluded, features=names, n_sampled=n_sampled, std_error=std_error,
                                 n_zero_weight=n_zero)
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
                             n_excluded=n_excluded, features=names, n_sampled=n_sampled, std_error=std_error,
                             n_zero_weight=n_zero)


def _weighted_consistency(z: np.ndarray, counts: np.ndarray, mass: np.ndarray, inverse: np.ndarray, y: np.ndarray,
                          w: np.ndarray, k: int, sample_size: Optional[int], random_state, n_jobs: Optional[int]):
    """(value, n_sampled, std_error) of :func:`consistency` with weights `w` (> 0) of the rows on points `inverse`
    (`mass`: each point's weight), the rows in (point, label, weight) order.

    Every row, or a sample of `sample_size` rows drawn as the unweighted sample is: :func:`_sample_rows`' places
    in that order.
    """
    n = len(y)
    mass_pos = np.bincount(inverse, weights=w * y, minlength=len(counts))
    if sample_size is None or sample_size >= n:
        terms = _weighted_terms(z, counts, mass, mass_pos, inverse, y, w, k, n_jobs)
        return float(np.sum(w * terms) / np.sum(w)), n, 0.0
    rng = np.random.default_rng(random_state)
    rows = np.sort(rng.choice(n, size=sample_size, replace=False))
    ws = w[rows]
    terms = _weighted_terms(z, counts, mass, mass_pos, inverse[rows], y[rows], ws, k, n_jobs)
    value = float(np.sum(ws * terms) / np.sum(ws))
    if sample_size > 1:
        spread = float(np.sum(ws * ws * (terms - value) ** 2)) * sample_size / (sample_size - 1)
        std_error = float(np.sqrt((1.0 - sample_size / n) * spread) / np.sum(ws))
    else:
        std_error = float("nan")
    return value, sample_size, std_error
