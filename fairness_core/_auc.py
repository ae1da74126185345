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
from ._subgroups import as_subgroups

NO_POSITIVES = "no positive examples"
NO_NEGATIVES = "no negative examples"


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
    gives 0. Negative p stresses the smallest values (seed 000 uses p = -5).

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
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return float("nan")
    if np.any(v < 0):
        raise ValueError(f"power_mean needs non-negative values. Got a minimum of {v.min():g} instead.")
    if p <= 0 and np.any(v == 0):
        return 0.0
    if p == 0:
        return float(np.exp(np.mean(np.log(v))))
    return float(np.mean(v ** p) ** (1.0 / p))


def bias_auc_table(y_true, y_score, subgroups) -> pd.DataFrame:
    """Per-subgroup AUC table: subgroup, BPSN and BNSP AUC, with the counts behind them.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Scores on any scale.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
        Every subgroup is listed, small ones with ``small=True``.

    Returns
    -------
    DataFrame with one row per subgroup, in ``subgroups.names`` order, and columns
        ``subgroup, size, n_positive, n_negative, n_background_positive, n_background_negative,
        small, subgroup_auc, bpsn_auc, bnsp_auc, note``. ``note`` says why an AUC is NaN. The
        overall AUC is in ``table.attrs["overall_auc"]``.

    References
    ----------
    Borkan et al. (2019); seed 000.
    """
    func = "bias_auc_table"
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
        })
    table = pd.DataFrame(rows, columns=[
        "subgroup", "size", "n_positive", "n_negative", "n_background_positive",
        "n_background_negative", "small", "subgroup_auc", "bpsn_auc", "bnsp_auc", "note"])
    table.attrs["overall_auc"] = _auc_from_hists(ranked.hist(y), ranked.hist(~y))
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
    return BiasAucResult(
        value=value, overall_auc=overall, subgroup_power_mean=means[0], bpsn_power_mean=means[1],
        bnsp_power_mean=means[2], p=p, overall_weight=overall_weight, n_used=len(used),
        n_small_excluded=len(table) - len(used),
        n_undefined={c: int(used[c].isna().sum()) for c in columns}, table=table)


def bias_auc_score(y_true, y_score, subgroups, *, p: float = -5.0, overall_weight: float = 0.25,
                   include_small: bool = False) -> BiasAucResult:
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

    Returns
    -------
    BiasAucResult
        ``.value`` is the score (higher is better, 1 is perfect ranking in every subgroup).

    References
    ----------
    Borkan et al. (2019); Jigsaw Unintended Bias in Toxicity Classification (2019); seed 000.
    """
    table = bias_auc_table(y_true, y_score, subgroups)
    return summarize_bias_auc(table, p=p, overall_weight=overall_weight, include_small=include_small)
