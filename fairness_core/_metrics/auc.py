"""Bias-aware AUCs (subgroup, BPSN, BNSP), the power mean and the bias AUC score (Borkan et al. 2019):
the public functions.

Each checks its inputs and counts through the ranking engine (``_metrics.auc_ranking``: one sort of the score
column, exact integer Mann-Whitney counts) or, with sample weights, through the weighted level tables
(``_metrics.auc_weighted``); ``_metrics.auc_table`` writes the table's columns and notes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .auc_ranking import (_NEG_SIDE, _POS_SIDE, _LevelTotals, _Ranked, _auc_from_hists, _subgroup_counts,
                          _weighted_auc_from_hists)
from .auc_table import auc_frame
from .auc_weighted import level_sides, weighted_auc_table, weighted_level_tables, weighted_point_table
from .._data.checks import as_binary, as_scores, check_length
from .._stats.auc_bootstrap import AUC_COLUMNS, auc_replicates, power_means
from .._stats.bootstrap import check_boot_options
from .._stats.delong import auc_interval, interval_of, placement_variance
from .._subgroups.subgroups import as_subgroups
from .._stats.result import ValueResult
from .._counts.weights import check_sample_weight


def _prepare(y_true, y_score, member, background, func, sample_weight=None):
    y = as_binary(y_true, "y_true", func).astype(bool)
    s = as_scores(y_score, "y_score", func)
    check_length(s, len(y), "y_score", func)
    m = np.asarray(member, dtype=bool).reshape(-1)
    check_length(m, len(y), "member", func)
    b = ~m if background is None else np.asarray(background, dtype=bool).reshape(-1)
    check_length(b, len(y), "background", func)
    w = check_sample_weight(sample_weight, len(y), func)
    return y, _Ranked.of(s), m, b, w


def subgroup_auc(y_true, y_score, member, *, sample_weight=None) -> float:
    """ROC AUC on the subgroup's rows.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Scores on any scale; higher means more likely positive.
    member : array-like of bool, shape (n_samples,)
        True for the subgroup's rows.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0: the weighted AUC (see :func:`bias_auc_table`), equal to
        ``roc_auc_score(y_true[member], y_score[member], sample_weight=w[member])``.

    Returns
    -------
    float
        The AUC, or NaN when the subgroup has no positives or no negatives (or they weigh 0).

    Raises
    ------
    ValueError
        For bad labels, scores, masks or weights (negative, NaN, infinite, wrong length).

    References
    ----------
    Borkan et al. (2019), "Nuanced Metrics for Measuring Unintended Bias with Real Data for Text
    Classification"; Jigsaw Unintended Bias in Toxicity Classification.
    """
    y, ranked, m, _, w = _prepare(y_true, y_score, member, None, "subgroup_auc", sample_weight)
    return (_auc_from_hists if w is None else _weighted_auc_from_hists)(ranked.hist(m & y, w), ranked.hist(m & ~y, w))


def bpsn_auc(y_true, y_score, member, background=None, *, sample_weight=None) -> float:
    """BPSN AUC: ROC AUC on subgroup negatives together with background positives.

    A low value means the model scores the subgroup's negative examples higher than the
    background's positive ones (false positives concentrated in the subgroup).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
    member : array-like of bool, shape (n_samples,)
    background : array-like of bool, shape (n_samples,), default=None
        Rows validly outside the subgroup; defaults to ``~member``.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0: the weighted AUC of the same rows (see :func:`bias_auc_table`).

    Returns
    -------
    float
        The AUC, or NaN when either side is empty (or weighs 0).

    Raises
    ------
    ValueError
        For bad labels, scores, masks or weights (negative, NaN, infinite, wrong length).

    References
    ----------
    Borkan et al. (2019); Jigsaw Unintended Bias benchmark.
    """
    y, ranked, m, b, w = _prepare(y_true, y_score, member, background, "bpsn_auc", sample_weight)
    return (_auc_from_hists if w is None else _weighted_auc_from_hists)(ranked.hist(b & y, w), ranked.hist(m & ~y, w))


def bnsp_auc(y_true, y_score, member, background=None, *, sample_weight=None) -> float:
    """BNSP AUC: ROC AUC on subgroup positives together with background negatives.

    A low value means the model scores the subgroup's positive examples lower than the
    background's negative ones (false negatives concentrated in the subgroup).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_score : array-like of shape (n_samples,)
    member : array-like of bool, shape (n_samples,)
    background : array-like of bool, shape (n_samples,), default=None
        Rows validly outside the subgroup; defaults to ``~member``.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0: the weighted AUC of the same rows (see :func:`bias_auc_table`).

    Returns
    -------
    float
        The AUC, or NaN when either side is empty (or weighs 0).

    Raises
    ------
    ValueError
        For bad labels, scores, masks or weights (negative, NaN, infinite, wrong length).

    References
    ----------
    Borkan et al. (2019); Jigsaw Unintended Bias benchmark.
    """
    y, ranked, m, b, w = _prepare(y_true, y_score, member, background, "bnsp_auc", sample_weight)
    return (_auc_from_hists if w is None else _weighted_auc_from_hists)(ranked.hist(m & y, w), ranked.hist(b & ~y, w))


def power_mean(values, p: float) -> float:
    """Generalized (power) mean M_p = (mean(v ** p)) ** (1 / p); p = 0 is the geometric mean.

    NaN values are left out (count them with ``np.isnan``); with p < 0 (or p = 0) a value of 0
    gives 0. Negative p stresses the smallest values (the Jigsaw benchmark uses p = -5); p = inf gives the
    maximum and -inf the minimum. It is evaluated as exp((logsumexp(p ln v) - ln n) / p), so it
    stays between the minimum and the maximum for every p (a literal ``mean(v ** p) ** (1 / p)``
    overflows or underflows for large |p| and loses all precision for p near 0).

    Parameters
    ----------
    values : array-like of shape (n_values,)
        Non-negative numbers such as AUCs.
    p : float
        The exponent.

    Returns
    -------
    float
        The power mean of the defined values, NaN if none is defined.

    Examples
    --------
    >>> round(power_mean([0.5, 1.0], p=1), 3)
    0.75
    >>> round(power_mean([0.5, 1.0], p=0), 4)
    0.7071
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if np.any(v[~np.isnan(v)] < 0):
        raise ValueError(f"power_mean needs non-negative values. Got a minimum of {np.nanmin(v):g} instead.")
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)) or np.isnan(p):
        raise ValueError(f"The 'p' parameter of power_mean must be a number (inf and -inf allowed). Got {p!r} instead.")
    return float(power_means(v, float(p)))


def bias_auc_table(y_true, y_score, subgroups, *, ci=None, n_boot: int = 1000, random_state=0,
                   sample_weight=None) -> pd.DataFrame:
    """Per-subgroup AUC table: subgroup, BPSN and BNSP AUC, with the counts behind them.

    With `ci` a confidence level, every AUC gets DeLong's interval (:func:`auc_interval`): the
    variance S10 / n_pos + S01 / n_neg of the placement values (DeLong et al. 1988, computed as
    Sun & Xu 2014 do, from the same tie-level histograms as the AUC), and the Wald interval on the
    logit scale, expit(logit(A) -/+ z sqrt(Var) / (A (1 - A))), so the bounds stay in [0, 1].
    At A = 0 or 1, with a single example on a side, or with a DeLong variance of 0, a score-type
    interval with the Hanley-McNeil variance is used instead and ``note`` says so; where an AUC
    is undefined its bounds are NaN.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Scores on any scale.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
        Every subgroup is listed, small ones with ``small=True``.
    ci : float in (0, 1) or None, default=None
        Confidence level of the intervals, e.g. 0.95; None adds no interval columns.
    n_boot : int >= 100, default=1000
        With `ci`: bootstrap replicates of every AUC, kept in ``attrs["replicates"]`` so that
        :func:`summarize_bias_auc` gives intervals of the power means and the bias AUC score for
        any p and weight without recomputing (see ``_stats.auc_bootstrap``: stratified multinomial over
        (membership pattern, label, score level) counts, levels merged into at most 256 groups (64 above
        200 patterns), replicates centred on the exact AUCs).
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row. Every AUC is then the weighted Mann-Whitney statistic
        sum_{i pos, j neg} w_i w_j ([s_i > s_j] + [s_i = s_j] / 2) / (sum w_pos * sum w_neg) over
        its rows (equal to ``sklearn.metrics.roc_auc_score(..., sample_weight=w)``), computed from
        the weighted level histograms of :func:`auc_counts`; ``n_positive`` and the other counts
        are sums of weights, ``size`` and ``small`` use Kish's effective sample size
        (sum w)^2 / sum w^2 of the subgroup's rows. With `ci`, each AUC's interval is the logit Wald
        interval of its linearized variance (``_stats.delong.weighted_auc_variance``: DeLong's structural
        components with weights; unit weights give DeLong's), and the replicates kept are drawn from the AUCs'
        linearized joint law (``_stats.auc_draws``).

    Returns
    -------
    DataFrame with one row per subgroup, in ``subgroups.names`` order, and columns
        ``subgroup, size, n_positive, n_negative, n_background_positive, n_background_negative,
        small, subgroup_auc, bpsn_auc, bnsp_auc, note``. ``note`` says why an AUC is NaN (and,
        with `ci`, which intervals are not DeLong's and why). With `ci`, each AUC column is
        followed by its bounds: ``subgroup_auc, subgroup_auc_ci_low, subgroup_auc_ci_high,
        bpsn_auc, bpsn_auc_ci_low, bpsn_auc_ci_high, bnsp_auc, bnsp_auc_ci_low,
        bnsp_auc_ci_high``. ``table.attrs``: ``"overall_auc"`` (the AUC of all rows), ``"ci"``
        (the level, or None), and with `ci` ``"overall_auc_ci"`` = (low, high),
        ``"overall_auc_ci_note"`` (empty for DeLong's interval) and ``"replicates"`` (an
        ``AucReplicates``).

    Raises
    ------
    ValueError
        If `ci` is not None or a number strictly between 0 and 1 (``CI_MESSAGE``), for bad
        labels, scores, subgroups or weights, and for `ci` together with `sample_weight`.

    References
    ----------
    Borkan et al. (2019); Jigsaw Unintended Bias benchmark.
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988), Biometrics 44(3), 837-845.
    Sun, X. and Xu, W. (2014), IEEE Signal Processing Letters 21(11), 1389-1393.
    """
    func = "bias_auc_table"
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    if sample_weight is not None:
        y = as_binary(y_true, "y_true", func).astype(np.int64)
        s = as_scores(y_score, "y_score", func)
        check_length(s, len(y), "y_score", func)
        w = check_sample_weight(sample_weight, len(y), func)
        groups = as_subgroups(subgroups, len(y), func)
        levels, index = np.unique(s, return_inverse=True)
        (m, b, o), (m_sq, b_sq, o_sq), patterns = weighted_level_tables(
            groups, y, index.reshape(-1), len(levels), w, background=False, atoms=level is not None,
            squares=level is not None)
        if level is None:   # sizes from each subgroup's sum of squared weights, no level table of them
            codes, member_masks, _ = groups.patterns
            squares = np.bincount(codes, weights=w * w, minlength=member_masks.shape[0]) @ member_masks
            return weighted_point_table(list(groups.names), m, b, o, squares, groups.min_size)
        table, _ = weighted_auc_table(list(groups.names), level_sides(m, b, m_sq, b_sq, o, o_sq, complement=True),
                                      o, o_sq, groups.min_size, level=level, patterns=patterns, n_boot=n_boot, rng=rng)
        return table
    y = as_binary(y_true, "y_true", func).astype(bool)
    s = as_scores(y_score, "y_score", func)
    check_length(s, len(y), "y_score", func)
    groups = as_subgroups(subgroups, len(y), func)
    ranked = _Ranked.of(s)
    ys = y[ranked.order]
    levels = _LevelTotals.of(ys, ranked)
    counts = _subgroup_counts(ys, ranked, levels, groups, variance=level is not None)
    aucs = counts.aucs()
    interval = None
    if level is not None:
        n_pos, n_neg = counts.n[:, _POS_SIDE], counts.n[:, _NEG_SIDE]
        var = placement_variance(counts.s10, counts.s01, n_pos, n_neg)
        interval = [a.reshape(aucs.shape) for a in interval_of(
            aucs.ravel(), var.ravel(), n_pos.ravel(), n_neg.ravel(), level)]
    table = auc_frame(list(groups.names), counts.n, aucs, groups.min_size, interval)
    table.attrs["overall_auc"], table.attrs["n_positive"], table.attrs["n_negative"] = levels.overall_auc()
    table.attrs["ci"] = level
    if level is not None:
        pos_all, neg_all = np.diff(levels.below, axis=1)
        low, high, why = auc_interval(pos_all, neg_all, level)
        table.attrs["overall_auc_ci"] = (low, high)
        table.attrs["overall_auc_ci_note"] = why
        table.attrs["replicates"] = auc_replicates(
            y, ranked.level, np.diff(ranked.below), groups, table[list(AUC_COLUMNS)].to_numpy(dtype=np.float64),
            table.attrs["overall_auc"], n_boot=n_boot, rng=rng)
    return table



@dataclass(frozen=True)
class BiasAucResult(ValueResult):
    """The bias AUC score and its parts.

    Attributes
    ----------
    value : float
        w * overall_auc + (1 - w) * mean(subgroup_power_mean, bpsn_power_mean, bnsp_power_mean).
    overall_auc : float
    subgroup_power_mean, bpsn_power_mean, bnsp_power_mean : float
        M_p of each AUC column over the subgroups used.
    p : float
    overall_weight : float
    n_used : int
        Subgroups that entered the power means.
    n_small_excluded : int
        Small subgroups left out (``include_small=False``).
    n_undefined : dict
        For each AUC column, how many used subgroups had NaN (left out of its power mean).
    table : DataFrame
        The per-subgroup table of :func:`bias_auc_table`.
    ci_low, ci_high : float
        Percentile bootstrap interval of ``value`` (NaN without intervals).
    power_mean_ci : dict or None
        ``{"subgroup_auc": (low, high), "bpsn_auc": ..., "bnsp_auc": ...}``: bootstrap intervals of
        the three power means.
    overall_auc_ci : tuple of float
        DeLong interval of the overall AUC.
    level : float or None
    n_boot : int
    n_boot_undefined : int
        Replicates in which the score was undefined (left out of the interval).
    """

    value: float
    overall_auc: float
    subgroup_power_mean: float
    bpsn_power_mean: float
    bnsp_power_mean: float
    p: float
    overall_weight: float
    n_used: int
    n_small_excluded: int
    n_undefined: dict
    table: pd.DataFrame
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    power_mean_ci: dict = None
    overall_auc_ci: tuple = (float("nan"), float("nan"))
    level: float | None = None
    n_boot: int = 0
    n_boot_undefined: int = 0


def summarize_bias_auc(table: pd.DataFrame, *, p: float = -5.0, overall_weight: float = 0.25,
                       include_small: bool = False) -> BiasAucResult:
    """Reduce a :func:`bias_auc_table` to the bias AUC score without recomputing any AUC.

    score = w * AUC_overall + (1 - w) * mean(M_p(subgroup AUCs), M_p(BPSN AUCs), M_p(BNSP AUCs))

    Parameters
    ----------
    table : DataFrame
        Output of :func:`bias_auc_table` (with ``attrs["overall_auc"]``).
    p : float, default=-5
        Power-mean exponent.
    overall_weight : float in [0, 1], default=0.25
    include_small : bool, default=False
        Whether small subgroups enter the power means.

    Returns
    -------
    BiasAucResult
        With intervals (``ci_low``, ``ci_high``, ``power_mean_ci``) when `table` was built with
        ``ci``: its bootstrap replicates are reduced with the same p, weight and subgroups, and the
        interval is the bias-corrected percentile interval of those replicates
        (:func:`fairness_core._stats.bootstrap.bias_corrected_interval`; with many small subgroups a
        power mean with p < 0 acts as a minimum, whose plain percentile interval lies too low).

    Raises
    ------
    ValueError
        If `overall_weight` is outside [0, 1].
    """
    if not 0.0 <= overall_weight <= 1.0:
        raise ValueError(
            f"The 'overall_weight' parameter of bias_auc_score must be in [0, 1]. Got {overall_weight!r} instead.")
    used = table if include_small else table[~table["small"].astype(bool)]
    columns = ("subgroup_auc", "bpsn_auc", "bnsp_auc")
    means = [power_mean(used[c].to_numpy(dtype=float), p) for c in columns]
    overall = float(table.attrs["overall_auc"])
    value = overall_weight * overall + (1.0 - overall_weight) * float(np.mean(means))
    extra = {}
    reps = table.attrs.get("replicates")
    level = table.attrs.get("ci")
    if reps is not None and level is not None:
        from .._stats.bootstrap import bias_corrected_interval

        keep = np.ones(len(table), bool) if include_small else ~table["small"].to_numpy(dtype=bool)
        rep_means = power_means(reps.aucs[:, keep, :], float(p), axis=1)  # (n_boot, 3)
        scores = overall_weight * reps.overall + (1.0 - overall_weight) * rep_means.mean(axis=1)
        # Bias-corrected percentiles: a power mean with p < 0 behaves like a minimum, whose replicates sit below it.
        low, high, undefined = bias_corrected_interval(np.column_stack([rep_means, scores]), np.array(means + [value]),
                                                       level)
        extra = dict(ci_low=float(low[3]), ci_high=float(high[3]), level=level, n_boot=len(scores),
                     n_boot_undefined=int(undefined[3]),
                     power_mean_ci={c: (float(low[i]), float(high[i])) for i, c in enumerate(columns)},
                     overall_auc_ci=tuple(map(float, table.attrs["overall_auc_ci"])))
    return BiasAucResult(
        value=value, overall_auc=overall, subgroup_power_mean=means[0], bpsn_power_mean=means[1],
        bnsp_power_mean=means[2], p=p, overall_weight=overall_weight, n_used=len(used),
        n_small_excluded=len(table) - len(used),
        n_undefined={c: int(used[c].isna().sum()) for c in columns}, table=table, **extra)


def bias_auc_score(y_true, y_score, subgroups, *, p: float = -5.0, overall_weight: float = 0.25,
                   include_small: bool = False, ci=None, n_boot: int = 1000, random_state=0,
                   sample_weight=None) -> BiasAucResult:
    """Bias AUC score (Jigsaw Unintended Bias benchmark): overall AUC blended with power means of per-subgroup AUCs.

    score = w * AUC_overall + (1 - w) * (M_p(subgroup AUCs) + M_p(BPSN AUCs) + M_p(BNSP AUCs)) / 3

    where M_p is :func:`power_mean` over the subgroups (NaN AUCs and, unless `include_small`,
    small subgroups left out).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Scores on any scale.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    p : float, default=-5
        Power-mean exponent; negative values stress the worst subgroups.
    overall_weight : float in [0, 1], default=0.25
        Weight w of the overall AUC.
    include_small : bool, default=False
    ci, n_boot, random_state
        Intervals: DeLong for each AUC, a stratified bootstrap for the power means and the score
        (see :func:`bias_auc_table`).
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0: weighted AUCs and effective sample sizes as in :func:`bias_auc_table`
        (the power means and the blend are unchanged). With `ci`, the intervals of the power means and the
        score come from replicates drawn from the AUCs' linearized joint law (``_stats.auc_draws``).

    Returns
    -------
    BiasAucResult
        ``.value`` is the score (higher is better, 1 is perfect ranking in every subgroup).

    References
    ----------
    Borkan et al. (2019); Jigsaw Unintended Bias in Toxicity Classification (2019).
    """
    table = bias_auc_table(y_true, y_score, subgroups, ci=ci, n_boot=n_boot, random_state=random_state,
                           sample_weight=sample_weight)
    return summarize_bias_auc(table, p=p, overall_weight=overall_weight, include_small=include_small)
