"""Bias-aware AUCs (subgroup, BPSN, BNSP), the power mean and the bias AUC score (seed 000).

Every AUC is counted from one sort of the score column: the scores are replaced by their tie
level (``np.unique(..., return_inverse=True)``), and the AUC of any set of positives P and
negatives N is

    AUC = sum_t P[t] * (N[< t] + N[t] / 2) / (|P| * |N|)

where P[t], N[t] are the counts at tie level t (``np.bincount``). This is the Mann-Whitney
probability that a positive outranks a negative, ties counting one half, which equals
``sklearn.metrics.roc_auc_score``. No subgroup is ever sorted on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._checks import as_binary, as_scores, check_length
from ._auc_boot import AUC_COLUMNS, auc_replicates, power_means
from ._bootstrap import check_boot_options
from ._delong import auc_interval
from ._intervals import check_ci
from ._subgroups import as_subgroups

NO_POSITIVES = "no positive examples"
NO_NEGATIVES = "no negative examples"
_AUC_LABELS = {"subgroup": "subgroup", "bpsn": "BPSN", "bnsp": "BNSP"}


@dataclass(frozen=True)
class _Ranked:
    """One sort of a score column: tie level per row and the number of levels."""

    level: np.ndarray
    n_levels: int

    @classmethod
    def of(cls, y_score: np.ndarray) -> "_Ranked":
        uniques, level = np.unique(y_score, return_inverse=True)
        return cls(level.reshape(-1), len(uniques))

    def hist(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.level[mask], minlength=self.n_levels)


def _auc_from_hists(pos: np.ndarray, neg: np.ndarray) -> float:
    n_pos, n_neg = pos.sum(), neg.sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    below = np.cumsum(neg) - neg
    return float(np.dot(pos, below + 0.5 * neg) / (float(n_pos) * float(n_neg)))


def _note(n_pos: int, n_neg: int) -> str:
    if n_pos == 0 and n_neg == 0:
        return "no rows"
    if n_pos == 0:
        return NO_POSITIVES
    if n_neg == 0:
        return NO_NEGATIVES
    return ""


def _prepare(y_true, y_score, member, background, func):
    y = as_binary(y_true, "y_true", func).astype(bool)
    s = as_scores(y_score, "y_score", func)
    check_length(s, len(y), "y_score", func)
    m = np.asarray(member, dtype=bool).reshape(-1)
    check_length(m, len(y), "member", func)
    b = ~m if background is None else np.asarray(background, dtype=bool).reshape(-1)
    check_length(b, len(y), "background", func)
    return y, _Ranked.of(s), m, b


def subgroup_auc(y_true, y_score, member) -> float:
    """ROC AUC on the subgroup's rows.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Scores on any scale; higher means more likely positive.
    member : array-like of bool, shape (n_samples,)
        True for the subgroup's rows.

    Returns
    -------
    float
        The AUC, or NaN when the subgroup has no positives or no negatives.

    References
    ----------
    Borkan et al. (2019), "Nuanced Metrics for Measuring Unintended Bias with Real Data for Text
    Classification"; seed 000 (Jigsaw Unintended Bias in Toxicity Classification).
    """
    y, ranked, m, _ = _prepare(y_true, y_score, member, None, "subgroup_auc")
    return _auc_from_hists(ranked.hist(m & y), ranked.hist(m & ~y))


def bpsn_auc(y_true, y_score, member, background=None) -> float:
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

    Returns
    -------
    float
        The AUC, or NaN when either side is empty.

    References
    ----------
    Borkan et al. (2019); seed 000.
    """
    y, ranked, m, b = _prepare(y_true, y_score, member, background, "bpsn_auc")
    return _auc_from_hists(ranked.hist(b & y), ranked.hist(m & ~y))


def bnsp_auc(y_true, y_score, member, background=None) -> float:
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

    Returns
    -------
    float
        The AUC, or NaN when either side is empty.

    References
    ----------
    Borkan et al. (2019); seed 000.
    """
    y, ranked, m, b = _prepare(y_true, y_score, member, background, "bnsp_auc")
    return _auc_from_hists(ranked.hist(m & y), ranked.hist(b & ~y))


def power_mean(values, p: float) -> float:
    """Generalized (power) mean M_p = (mean(v ** p)) ** (1 / p); p = 0 is the geometric mean.

    NaN values are left out (count them with ``np.isnan``); with p < 0 (or p = 0) a value of 0
    gives 0. Negative p stresses the smallest values (seed 000 uses p = -5); p = inf gives the
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


def bias_auc_table(y_true, y_score, subgroups, *, ci=None, n_boot: int = 1000, random_state=0) -> pd.DataFrame:
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
        any p and weight without recomputing (see ``_auc_boot``: stratified multinomial over
        (membership pattern, label, score level) counts, levels merged into at most 256 groups,
        replicates centred on the exact AUCs).
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap.

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
        If `ci` is not None or a number strictly between 0 and 1 (``CI_MESSAGE``), and for bad
        labels, scores or subgroups.

    References
    ----------
    Borkan et al. (2019); seed 000.
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988), Biometrics 44(3), 837-845.
    Sun, X. and Xu, W. (2014), IEEE Signal Processing Letters 21(11), 1389-1393.
    """
    func = "bias_auc_table"
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    y = as_binary(y_true, "y_true", func).astype(bool)
    s = as_scores(y_score, "y_score", func)
    check_length(s, len(y), "y_score", func)
    groups = as_subgroups(subgroups, len(y), func)
    ranked = _Ranked.of(s)
    rows = []
    for j, name in enumerate(groups.names):
        m, b = groups.membership[:, j], groups.background[:, j]
        sp, sn = ranked.hist(m & y), ranked.hist(m & ~y)
        bp, bn = ranked.hist(b & y), ranked.hist(b & ~y)
        n_sp, n_sn, n_bp, n_bn = int(sp.sum()), int(sn.sum()), int(bp.sum()), int(bn.sum())
        notes = []
        if n_sp == 0 or n_sn == 0:
            notes.append(f"subgroup AUC undefined: {_note(n_sp, n_sn)}")
        if n_bp == 0 or n_sn == 0:
            notes.append("BPSN AUC undefined: " + ("no background positives" if n_bp == 0 else "no subgroup negatives"))
        if n_sp == 0 or n_bn == 0:
            notes.append("BNSP AUC undefined: " + ("no subgroup positives" if n_sp == 0 else "no background negatives"))
        bounds = {}
        if level is not None:
            # The three AUCs of this subgroup at once, from the histograms above.
            low, high, why = auc_interval(np.stack([sp, bp, sp]), np.stack([sn, sn, bn]), level)
            for i, label in enumerate(("subgroup", "bpsn", "bnsp")):
                bounds[f"{label}_auc_ci_low"], bounds[f"{label}_auc_ci_high"] = float(low[i]), float(high[i])
                if why[i] and not why[i].startswith("AUC undefined"):
                    notes.append(f"{_AUC_LABELS[label]} AUC interval: {why[i]}")
        rows.append({
            "subgroup": name,
            "size": n_sp + n_sn,
            "n_positive": n_sp,
            "n_negative": n_sn,
            "n_background_positive": n_bp,
            "n_background_negative": n_bn,
            "small": n_sp + n_sn < groups.min_size,
            "subgroup_auc": _auc_from_hists(sp, sn),
            "bpsn_auc": _auc_from_hists(bp, sn),
            "bnsp_auc": _auc_from_hists(sp, bn),
            "note": "; ".join(notes),
            **bounds,
        })
    estimates = ["subgroup_auc", "bpsn_auc", "bnsp_auc"]
    if level is not None:
        estimates = [c for e in estimates for c in (e, f"{e}_ci_low", f"{e}_ci_high")]
    table = pd.DataFrame(rows, columns=[
        "subgroup", "size", "n_positive", "n_negative", "n_background_positive",
        "n_background_negative", "small", *estimates, "note"])
    pos_all, neg_all = ranked.hist(y), ranked.hist(~y)
    table.attrs["overall_auc"] = _auc_from_hists(pos_all, neg_all)
    table.attrs["ci"] = level
    if level is not None:
        low, high, why = auc_interval(pos_all, neg_all, level)
        table.attrs["overall_auc_ci"] = (low, high)
        table.attrs["overall_auc_ci_note"] = why
        table.attrs["replicates"] = auc_replicates(
            y, ranked.level, ranked.n_levels, groups, table[list(AUC_COLUMNS)].to_numpy(dtype=np.float64),
            table.attrs["overall_auc"], n_boot=n_boot, rng=rng)
    return table


@dataclass(frozen=True)
class BiasAucResult:
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

    def __float__(self) -> float:
        return float(self.value)


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
        ``ci`` (its bootstrap replicates are reduced with the same p, weight and subgroups).

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
        from ._bootstrap import percentile_interval

        keep = np.ones(len(table), bool) if include_small else ~table["small"].to_numpy(dtype=bool)
        rep_means = power_means(reps.aucs[:, keep, :], float(p), axis=1)  # (n_boot, 3)
        scores = overall_weight * reps.overall + (1.0 - overall_weight) * rep_means.mean(axis=1)
        low, high, undefined = percentile_interval(np.column_stack([rep_means, scores]), level)
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
                   include_small: bool = False, ci=None, n_boot: int = 1000, random_state=0) -> BiasAucResult:
    """Bias AUC score of seed 000: overall AUC blended with power means of per-subgroup AUCs.

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

    Returns
    -------
    BiasAucResult
        ``.value`` is the score (higher is better, 1 is perfect ranking in every subgroup).

    References
    ----------
    Borkan et al. (2019); Jigsaw Unintended Bias in Toxicity Classification (2019); seed 000.
    """
    table = bias_auc_table(y_true, y_score, subgroups, ci=ci, n_boot=n_boot, random_state=random_state)
    return summarize_bias_auc(table, p=p, overall_weight=overall_weight, include_small=include_small)
