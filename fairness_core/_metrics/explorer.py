"""Rates, disparities and policy rules across the whole range of decision thresholds.

Everything here is computed from a :class:`ThresholdCounts` (one sort of the score column): the
confusion counts of every subgroup at many thresholds come from ``counts_at`` as arrays of shape
(n_thresholds, n_subgroups, 4), and every rate, comparison and reduction below is computed on
those arrays with the threshold as a leading axis, never by thresholding the rows again. At each
threshold the numbers equal what :class:`ConfusionCounts` gives for the predictions
``y_score >= threshold`` (the tests check this at every plotted threshold).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .._data.checks import check_option
from .._disparity.compare import check_reference, comparison_index, compared_values, distance, ratio_rule
from .._counts.rates import DISPARITY_METRICS, RATE_NAMES, _fraction, _rate
from .._counts.thresholds import ThresholdCounts
from .._counts.weights import effective_size

CURVE_METRICS = RATE_NAMES
# Metrics whose reduced value can be followed across thresholds (and bounded by a rule there).
BAND_METRICS = (*DISPARITY_METRICS, "equalized_odds", "p_percent_score", "equal_opportunity_score")
_SCORE_RATES = {"p_percent_score": "selection_rate", "equal_opportunity_score": "true_positive_rate"}
COUNTS_MESSAGE = ("{func} needs ThresholdCounts from threshold_counts(y_true, y_score, subgroups) or AucCounts; "
                  "got {got}.")
POINTS_MESSAGE = "The 'n_points' parameter of {func} must be an int >= 2. Got {got!r} instead."
RULE_MESSAGE = ("{func} follows rules on {allowed} across thresholds; the rule {name!r} bounds {metric!r}, which "
                "does not depend on the decision threshold in this way.")


def explorer_thresholds(counts: ThresholdCounts, n_points: int = 101, include: Sequence[float] = ()) -> np.ndarray:
    """The thresholds a threshold explorer plots: every distinct score, or an even grid over their range.

    Parameters
    ----------
    counts : ThresholdCounts or AucCounts
    n_points : int >= 2, default=101
        With at most this many distinct scores, each is a threshold (every possible set of
        predictions); otherwise `n_points` evenly spaced thresholds from the smallest score to the
        largest (binned AucCounts: `n_points` bin edges, evenly spread).
    include : sequence of float, default=()
        Thresholds added to the grid (e.g. the chosen one, so that it lies on the curves); with
        binned AucCounts, only those it reads (``AucCounts.reads``: bin edges).

    Returns
    -------
    ndarray of float, shape (n_thresholds,)
        Ascending, without duplicates.

    Raises
    ------
    ValueError
        For counts that are not ThresholdCounts (``COUNTS_MESSAGE``) or a bad `n_points`.
    """
    _check_counts(counts, "explorer_thresholds")
    if isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer)) or n_points < 2:
        raise ValueError(POINTS_MESSAGE.format(func="explorer_thresholds", got=n_points))
    levels = counts.levels
    if len(levels) <= n_points:
        grid = levels
    elif getattr(counts, "edges", None) is not None:   # binned AucCounts: thresholds on bin edges, evenly spread
        grid = levels[np.unique(np.round(np.linspace(0, len(levels) - 1, int(n_points))).astype(np.int64))]
    else:
        grid = np.linspace(levels[0], levels[-1], int(n_points))
    extra = np.asarray(list(include), dtype=np.float64).reshape(-1)
    extra = np.array([x for x in extra if np.isfinite(x) and (not hasattr(counts, "reads") or counts.reads(x))])
    return np.unique(np.concatenate([grid, extra]))


def threshold_curves(counts: ThresholdCounts, metrics: Sequence[str] = ("selection_rate", "true_positive_rate",
                                                                         "false_positive_rate"),
                     thresholds=None, *, n_points: int = 101) -> pd.DataFrame:
    """Each rate of each subgroup (and of all rows) at every threshold: the explorer's curves.

    The rate r of subgroup g at threshold t is numerator / denominator of the confusion counts of
    g's rows with predictions ``score >= t`` (e.g. the true positive rate TP / (TP + FN)); NaN
    where the denominator is 0.

    Parameters
    ----------
    counts : ThresholdCounts or AucCounts
        From :func:`threshold_counts`, or the AUC counts of an engine (``scored_counts``); binned
        AucCounts answer thresholds on bin edges only.
    metrics : sequence of str, default=('selection_rate', 'true_positive_rate', 'false_positive_rate')
        Rate names of :func:`group_rates` (``RATE_NAMES``).
    thresholds : array-like of float, optional
        Default: :func:`explorer_thresholds` with `n_points`.
    n_points : int >= 2, default=101

    Returns
    -------
    DataFrame
        One row per (metric, subgroup, threshold), subgroups in their order and then all rows,
        thresholds ascending; columns ``metric, subgroup, scope`` ('subgroup' or 'overall', whose
        ``subgroup`` is "All rows"), ``threshold, value, numerator, denominator, size, small``
        (``small``: fewer rows than ``min_size``, or a denominator between 1 and ``min_size`` - 1,
        as in the rate disparity tables). For weighted counts (``threshold_counts(...,
        sample_weight=w)``) numerators and denominators are sums of weights and ``size`` and the
        small flags use Kish's effective sample sizes, as ``group_rates(..., sample_weight=w)``.

    Raises
    ------
    ValueError
        For counts that are not ThresholdCounts, an unknown metric or a bad `n_points`.

    Examples
    --------
    >>> import fairness_core as fc
    >>> tc = fc.threshold_counts([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.9], ["a", "a", "b", "b"])
    >>> curves = threshold_curves(tc, ["true_positive_rate"], [0.5])
    >>> curves[["subgroup", "value"]].values.tolist()
    [['a', 1.0], ['b', 0.0], ['All rows', 0.5]]
    """
    func = "threshold_curves"
    _check_counts(counts, func)
    metrics = list(metrics)
    for metric in metrics:
        check_option(metric, list(CURVE_METRICS), "metrics", func)
    t = _thresholds(counts, thresholds, n_points)
    _, member, background, overall = counts.counts_at(t)
    squares = _squares(counts, t)
    k, n_t = len(counts.names), len(t)
    sizes = np.concatenate([member[0].sum(axis=1), [overall[0].sum()]])
    if squares is not None:   # effective sample sizes; counts are sums of weights
        sizes = effective_size(sizes, np.concatenate([squares[0][0].sum(axis=1), [squares[2][0].sum()]]))
        squares_all = np.concatenate([squares[0], squares[2][:, None, :]], axis=1)
    as_count = (lambda a: a) if squares is not None else (lambda a: a.astype(np.int64))
    counts_all = np.concatenate([member, overall[:, None, :]], axis=1)   # (T, k + 1, 4): subgroups, then all rows
    frames = []
    for metric in metrics:
        value = _rate(counts_all, metric)[0]
        num, den = _fraction(counts_all, metric)
        den_size = den if squares is None else effective_size(den, _fraction(squares_all, metric)[1])
        small = (sizes[None, :] < counts.min_size) | ((den_size > 0) & (den_size < counts.min_size))
        small[:, k] = False  # all rows are never "small"
        frames.append(pd.DataFrame({
            "metric": metric,
            "subgroup": np.repeat(np.asarray([*counts.names, "All rows"], dtype=object), n_t),
            "scope": np.repeat(np.asarray(["subgroup"] * k + ["overall"], dtype=object), n_t),
            "threshold": np.tile(t, k + 1),
            "value": value.T.reshape(-1),
            "numerator": as_count(num.T.reshape(-1)),
            "denominator": as_count(den.T.reshape(-1)),
            "size": as_count(np.repeat(sizes, n_t)),
            "small": small.T.reshape(-1),
        }))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["metric", "subgroup", "scope", "threshold", "value", "numerator", "denominator", "size", "small"])


def disparity_curve(counts: ThresholdCounts, metric: str, thresholds=None, *, distance_measure: str = "diff",
                    reduction: str = "max", reference: str = "rest", include_small: bool = False,
                    n_points: int = 101, positive_outcome: str = "favourable") -> pd.DataFrame:
    """A reduced disparity (or ratio score) at every threshold.

    At each threshold t the value is what the page shows for the predictions ``score >= t``:
    ``rate_disparity(...).value`` for a rate, ``equalized_odds(...).value`` (per comparison the
    larger of the TPR and FPR disparities), or the p% / equal opportunity score (the minimum
    over subgroups of min(a/b, b/a) of the selection rate / true positive rate of the subgroup
    and its background; `distance_measure`, `reduction` and `reference` do not apply to them).

    Parameters
    ----------
    counts : ThresholdCounts or AucCounts
        Weighted counts (built with ``sample_weight``) give the weighted disparities, with small
        flags from effective sample sizes, as :func:`rate_disparity` with ``sample_weight``.
    metric : str
        A metric of :func:`rate_disparity`, ``'equalized_odds'``, ``'p_percent_score'`` or
        ``'equal_opportunity_score'`` (``BAND_METRICS``).
    thresholds : array-like of float, optional
        Default: :func:`explorer_thresholds` with `n_points`.
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'}, default='max'
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    include_small : bool, default=False
        Whether comparisons (scores: subgroups) involving a small subgroup are used.
    n_points : int >= 2, default=101
    positive_outcome : {'favourable', 'adverse'}, default='favourable'
        Whether a positive prediction is favourable for the person. With ``'adverse'`` the p% and equal
        opportunity scores compare the favourable prediction, as their verdicts do
        (:meth:`ConfusionCounts.favourable`: labels and predictions swapped, so the selection rate is the rate of
        not being predicted positive and the true positive rate that rate among the negative labels); the rates'
        disparities stay on the positive prediction.

    Returns
    -------
    DataFrame
        One row per threshold: ``threshold, value, n_used, n_undefined, n_small_excluded`` (NaN
        value where no comparison is defined; an infinite ratio decides a max and is left out of
        a mean, as in :func:`reduce_disparities`).

    Raises
    ------
    ValueError
        For counts that are not ThresholdCounts, or a bad metric, distance, reduction or reference.

    References
    ----------
    Oracle AutoMLx fairness metrics: distance measures, reductions and references.
    Hardt, M., Price, E. & Srebro, N. (2016), "Equality of Opportunity in Supervised Learning"
    (equalized odds; thresholds chosen per group).
    """
    func = "disparity_curve"
    _check_counts(counts, func)
    check_option(metric, list(BAND_METRICS), "metric", func)
    check_option(positive_outcome, ("favourable", "adverse"), "positive_outcome", func)
    check_option(distance_measure, ("diff", "ratio"), "distance_measure", func)
    check_option(reduction, ("max", "mean"), "reduction", func)
    if metric not in _SCORE_RATES:
        check_reference(reference, counts.names, func)
    t = _thresholds(counts, thresholds, n_points)
    _, member, background, overall = counts.counts_at(t)
    squares = _squares(counts, t)
    if positive_outcome == "adverse" and metric in _SCORE_RATES:   # the favourable prediction: TP<->TN, FP<->FN
        member, background, overall = (cells[..., ::-1] for cells in (member, background, overall))
        squares = None if squares is None else tuple(cells[..., ::-1] for cells in squares)
    sizes = member[0].sum(axis=1) if squares is None else effective_size(member[0].sum(axis=1),
                                                                          squares[0][0].sum(axis=1))
    value, used, n_used, n_undefined = reduced_values(
        member, background, overall, sizes, counts.names, counts.min_size, metric,
        distance_measure=distance_measure, reduction=reduction, reference=reference, include_small=include_small,
        squares=squares)
    return _curve_frame(t, value, n_used, n_undefined, used.shape[1] - used.sum(axis=1))


def reduced_values(member, background, overall, sizes, names: list, min_size: int, metric: str, *,
                   distance_measure: str = "diff", reduction: str = "max", reference: str = "rest",
                   include_small: bool = False, used=None, squares=None):
    """A reduced disparity or ratio score from counts with a leading axis (thresholds or bootstrap replicates).

    Parameters
    ----------
    member, background : ndarray of shape (n, n_subgroups, 4)
    overall : ndarray of shape (n, 4)
    sizes : ndarray of shape (n_subgroups,)
    names : list of str
    min_size : int
    metric : str
        One of ``BAND_METRICS``.
    distance_measure, reduction, reference, include_small
        As :func:`disparity_curve` (scores: the minimum over subgroups against the rest).
    used : ndarray of bool of shape (n_comparisons,), optional
        The comparisons (scores: subgroups) to reduce over; default: from the small flags of each
        row (``include_small``). A bootstrap passes the point estimate's, as the other intervals do.
    squares : (member, background, overall) or None
        With sample weights (the counts then sums of weights): the sums of squared weights of the
        same cells, so the small flags use effective sample sizes (`sizes` is then effective too).

    Returns
    -------
    value : ndarray of shape (n,)
    used : ndarray of bool of shape (n, n_comparisons)
    n_used, n_undefined : ndarray of int of shape (n,)
        Comparisons reduced over (a mean leaves infinite ratios out), and those used but undefined.
    """
    if metric in _SCORE_RATES:
        rate = _SCORE_RATES[metric]
        values, _ = ratio_rule(_rate(member, rate)[0], _rate(background, rate)[0], rate)
        # A subgroup's score is small when its ratio disparity against the rest is (the same flags).
        _, small = comparisons(member, background, overall, sizes, names, min_size, rate, "rest", "ratio",
                               squares)
        reduction = "min"
    else:
        rates = (("true_positive_rate", "false_positive_rate") if metric == "equalized_odds"
                 else (DISPARITY_METRICS[metric],))
        parts = [comparisons(member, background, overall, sizes, names, min_size, r, reference, distance_measure,
                             squares) for r in rates]
        values = parts[0][0] if len(parts) == 1 else np.fmax(parts[0][0], parts[1][0])
        small = parts[0][1] if len(parts) == 1 else parts[0][1] | parts[1][1]
    if used is None:
        used = np.ones_like(small) if include_small else ~small
    used = np.broadcast_to(used, values.shape)
    defined = used & ~np.isnan(values)
    if reduction == "min":
        value = np.where(defined, values, np.inf).min(axis=1, initial=np.inf)
        n_used = defined.sum(axis=1)
    elif reduction == "max":   # an infinite ratio decides a max
        value = np.where(defined, values, -np.inf).max(axis=1, initial=-np.inf)
        n_used = defined.sum(axis=1)
    else:                      # a mean leaves infinite ratios out
        finite = defined & ~np.isinf(values)
        n_used = finite.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(finite, values, 0.0).sum(axis=1) / n_used
    value = np.where(n_used > 0, value, np.nan)
    return value, used, n_used, used.sum(axis=1) - defined.sum(axis=1)


def rule_band(counts: ThresholdCounts, rule, thresholds=None, *, reference: str = "rest", include_small: bool = False,
              n_points: int = 101, positive_outcome: str = "favourable") -> pd.DataFrame:
    """Where a policy rule holds across thresholds (the explorer's shaded band), from point estimates.

    A rule bounds a disparity's maximum over comparisons from above (``value <= bound``) or a
    ratio score from below (``value >= bound``), as :class:`Rule` defines it; here the value is
    :func:`disparity_curve` with ``reduction="max"`` and the rule's distance measure. The band
    uses the point estimate at each threshold (no intervals): it shows where the rule's bound is
    met, not where the data would make the verdict a confident pass.

    Parameters
    ----------
    counts : ThresholdCounts or AucCounts
    rule : Rule
        On a metric of ``BAND_METRICS``.
    thresholds : array-like of float, optional
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
        The reference of disparity rules (scores always compare with the rest).
    include_small : bool, default=False
    n_points : int >= 2, default=101
    positive_outcome : {'favourable', 'adverse'}, default='favourable'
        As in :func:`disparity_curve`: with ``'adverse'`` the four-fifths and equal opportunity rules are judged
        on the favourable prediction, as their verdicts are.

    Returns
    -------
    DataFrame
        :func:`disparity_curve`'s columns and ``holds`` (bool; False where the value is NaN).

    Raises
    ------
    ValueError
        For a rule on a metric that does not follow the threshold this way (``RULE_MESSAGE``), or
        as :func:`disparity_curve`.
    """
    from .._policy.rules import Rule

    func = "rule_band"
    if not isinstance(rule, Rule) or rule.metric not in BAND_METRICS:
        raise ValueError(RULE_MESSAGE.format(func=func, allowed=", ".join(BAND_METRICS),
                                             name=getattr(rule, "name", rule), metric=getattr(rule, "metric", None)))
    curve = disparity_curve(counts, rule.metric, thresholds, distance_measure=rule.distance_measure or "ratio",
                            reduction="max", reference=reference, include_small=include_small, n_points=n_points,
                            positive_outcome=positive_outcome)
    value = curve["value"].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        holds = value <= rule.bound if rule.direction == "max" else value >= rule.bound
    curve["holds"] = holds & ~np.isnan(value)
    return curve


def _check_counts(counts, func: str) -> None:
    from .auc_counts import AucCounts

    if not isinstance(counts, (ThresholdCounts, AucCounts)):
        raise ValueError(COUNTS_MESSAGE.format(func=func, got=type(counts).__name__))



def _thresholds(counts: ThresholdCounts, thresholds, n_points: int) -> np.ndarray:
    if thresholds is None:
        return explorer_thresholds(counts, n_points)
    return np.asarray(thresholds, dtype=np.float64).reshape(-1)


def _squares(counts, thresholds):
    """The sums of squared weights at `thresholds` of weighted counts (``squares_at``), None for unweighted ones."""
    return counts.squares_at(thresholds) if getattr(counts, "weighted", False) else None


def comparisons(member, background, overall, sizes, names: list, min_size: int, rate: str, reference: str,
                distance_measure: str, squares=None) -> tuple[np.ndarray, np.ndarray]:
    """Disparity and small flag of every comparison, for counts with a leading axis (thresholds, replicates).

    `member`, `background` have shape (n, n_subgroups, 4), `overall` (n, 4), `sizes` (n_subgroups,);
    the results have shape (n, n_comparisons). The same rules as :meth:`ConfusionCounts.comparison`:
    a comparison is small when either side is a subgroup with fewer rows than `min_size` or with
    a denominator of the rate between 1 and `min_size` - 1, or when the reference's denominator
    (rest or all rows) is. With `squares` (sample weights: the sums of squared weights of the same cells)
    every denominator counts as its effective sample size.
    """
    a, b = compared_values(_rate(member, rate)[0], _rate(background, rate)[0], _rate(overall, rate)[0],
                           reference, names)

    def den_of(table, index):
        den = _fraction(table, rate)[1]
        return den if squares is None else effective_size(den, _fraction(squares[index], rate)[1])

    den = den_of(member, 0)
    small_k = (sizes < min_size)[None, :] | ((den > 0) & (den < min_size))
    i, j = comparison_index(reference, names)
    _, ref_den = compared_values(den, den_of(background, 1), den_of(overall, 2), reference, names)
    small = small_k[:, i] | ((ref_den > 0) & (ref_den < min_size))
    if j is not None:
        small |= small_k[:, j]
    return distance(a, b, distance_measure), small


def _curve_frame(t, value, n_used, n_undefined, n_small) -> pd.DataFrame:
    return pd.DataFrame({"threshold": t, "value": value, "n_used": np.asarray(n_used, dtype=np.int64),
                         "n_undefined": np.asarray(n_undefined, dtype=np.int64),
                         "n_small_excluded": np.asarray(n_small, dtype=np.int64)})

