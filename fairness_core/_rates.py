"""Rates from confusion counts per subgroup, their disparities, and equalized odds (§5.2).

The sufficient statistic is the confusion matrix (TN, FP, FN, TP) of every subgroup, of its
background and of all rows: a (n_subgroups x 4) table taken with one bincount. Every rate,
disparity, reference and reduction is computed from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

import numpy as np
import pandas as pd

from ._checks import as_binary, check_length, check_option
from ._compare import compare, reduce_disparities, check_reference
from ._subgroups import as_subgroups

# Confusion cell of a row: 2 * y_true + y_pred.
TN, FP, FN, TP = 0, 1, 2, 3

RATES = {
    # name: (numerator cells, denominator cells, note when the denominator is 0)
    "selection_rate": ((FP, TP), (TN, FP, FN, TP), "no rows"),
    "true_positive_rate": ((TP,), (TP, FN), "no positive examples (TP + FN = 0)"),
    "false_positive_rate": ((FP,), (FP, TN), "no negative examples (FP + TN = 0)"),
    "false_negative_rate": ((FN,), (FN, TP), "no positive examples (FN + TP = 0)"),
    "false_omission_rate": ((FN,), (FN, TN), "no predicted negatives (FN + TN = 0)"),
    "false_discovery_rate": ((FP,), (FP, TP), "no predicted positives (FP + TP = 0)"),
    "error_rate": ((FP, FN), (TN, FP, FN, TP), "no rows"),
}
RATE_NAMES = tuple(RATES)
# rate_disparity's metric names (seed 004 calls the selection rate "statistical parity").
DISPARITY_METRICS = {"statistical_parity": "selection_rate", **{k: k for k in RATE_NAMES if k != "selection_rate"}}

Metric = Literal["statistical_parity", "true_positive_rate", "false_positive_rate", "false_negative_rate",
                 "false_omission_rate", "false_discovery_rate", "error_rate"]


def _rate(counts: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Rate `name` from counts of shape (..., 4) -> (values, notes)."""
    num_cells, den_cells, why = RATES[name]
    num = counts[..., list(num_cells)].sum(axis=-1)
    den = counts[..., list(den_cells)].sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    notes = np.where(den > 0, "", f"{name.replace('_', ' ')} undefined: {why}").astype(object)
    return values, notes


@dataclass(frozen=True)
class ConfusionCounts:
    """Confusion counts of every subgroup, its background and all rows.

    Attributes
    ----------
    names : list of str
    member : ndarray of shape (n_subgroups, 4)
        TN, FP, FN, TP of each subgroup's rows.
    background : ndarray of shape (n_subgroups, 4)
        The same on each subgroup's background (the rest of the population).
    overall : ndarray of shape (4,)
        The same on all rows.
    min_size : int
        Subgroups with fewer rows are flagged small.
    disjoint : bool, default=False
        True when the subgroups are disjoint and cover every row (``Subgroups.codes`` is set:
        attribute values or their intersections); needed by :meth:`between_group_theil_index`.
    """

    names: list
    member: np.ndarray
    background: np.ndarray
    overall: np.ndarray
    min_size: int
    disjoint: bool = False

    @classmethod
    def compute(cls, y_true, y_pred, subgroups, *, func: str = "confusion_counts") -> "ConfusionCounts":
        """Count TN, FP, FN, TP per subgroup; see :func:`confusion_counts`."""
        y = as_binary(y_true, "y_true", func)
        p = as_binary(y_pred, "y_pred", func)
        check_length(p, len(y), "y_pred", func)
        groups = as_subgroups(subgroups, len(y), func)
        cell = (2 * y + p).astype(np.intp)
        member, background = groups.crosstab(cell, 4)
        overall = np.bincount(cell, minlength=4).astype(np.float64)
        return cls(list(groups.names), member, background, overall, groups.min_size,
                   disjoint=groups.codes is not None)

    @property
    def sizes(self) -> np.ndarray:
        """Rows per subgroup."""
        return self.member.sum(axis=1)

    @property
    def small(self) -> np.ndarray:
        """Flag per subgroup: fewer rows than ``min_size``."""
        return self.sizes < self.min_size

    def table(self) -> pd.DataFrame:
        """Per-subgroup counts and every rate; see :func:`group_rates`."""
        m = self.member
        out = pd.DataFrame({
            "subgroup": self.names,
            "size": self.sizes.astype(np.int64),
            "n_positive": (m[:, TP] + m[:, FN]).astype(np.int64),
            "n_negative": (m[:, TN] + m[:, FP]).astype(np.int64),
            "small": self.small,
            "tp": m[:, TP].astype(np.int64), "fp": m[:, FP].astype(np.int64),
            "tn": m[:, TN].astype(np.int64), "fn": m[:, FN].astype(np.int64),
        })
        notes = []
        for name in RATE_NAMES:
            out[name], note = _rate(m, name)
            notes.append(note)
        out["note"] = ["; ".join(n for n in row if n) for row in zip(*notes)] if notes else ""
        return out

    def comparison(self, metric: str, *, distance_measure: str = "diff", reference: str = "rest",
                   func: str = "rate_disparity") -> pd.DataFrame:
        """The comparison table of one rate against the reference (no reduction)."""
        check_option(metric, list(DISPARITY_METRICS), "metric", func)
        check_reference(reference, self.names, func)
        rate = DISPARITY_METRICS[metric]
        values, notes = _rate(self.member, rate)
        rest, rest_notes = _rate(self.background, rate)
        overall, _ = _rate(self.overall, rate)
        return compare(self.names, self.sizes.astype(np.int64), values, rest, self.background.sum(axis=1).astype(np.int64),
                       float(overall), int(self.overall.sum()), self.small, distance_measure=distance_measure,
                       reference=reference, func=func, notes=notes, rest_notes=rest_notes)

    def disparity(self, metric: str, *, distance_measure: str = "diff", reduction: Optional[str] = "mean",
                  reference: str = "rest", include_small: bool = False, func: str = "rate_disparity"):
        """Disparity of one rate; see :func:`rate_disparity`."""
        check_option(reduction, ("max", "mean", None), "reduction", func)
        table = self.comparison(metric, distance_measure=distance_measure, reference=reference, func=func)
        if reduction is None:
            return table
        return reduce_disparities(table, reduction, distance_measure=distance_measure, reference=reference,
                                  include_small=include_small, func=func)

    def equalized_odds(self, *, distance_measure: str = "diff", reduction: Optional[str] = "mean",
                       reference: str = "rest", include_small: bool = False):
        """Equalized odds; see :func:`equalized_odds`."""
        func = "equalized_odds"
        check_option(reduction, ("max", "mean", None), "reduction", func)
        tpr = self.comparison("true_positive_rate", distance_measure=distance_measure, reference=reference, func=func)
        fpr = self.comparison("false_positive_rate", distance_measure=distance_measure, reference=reference, func=func)
        table = tpr[["subgroup", "reference", "size", "reference_size", "small"]].copy()
        table["tpr_disparity"] = tpr["disparity"]
        table["fpr_disparity"] = fpr["disparity"]
        table["disparity"] = np.fmax(tpr["disparity"].to_numpy(), fpr["disparity"].to_numpy())
        table["note"] = ["; ".join(n for n in pair if n) for pair in zip(tpr["note"], fpr["note"])]
        if reduction is None:
            return table
        return reduce_disparities(table, reduction, distance_measure=distance_measure, reference=reference,
                                  include_small=include_small, func=func)

    def theil_index(self, *, reduction: Optional[str] = "mean", reference: str = "rest",
                    include_small: bool = False):
        """Two-group Theil index of each subgroup against its reference; see :func:`theil_index`."""
        from ._theil import theil_disparity

        return theil_disparity(self, reduction=reduction, reference=reference, include_small=include_small)

    def individual_theil_index(self) -> float:
        """Theil index of the benefit over all rows; see :func:`individual_theil_index`."""
        from ._theil import theil_of_counts

        return float(theil_of_counts(self.overall)[0])

    def between_group_theil_index(self) -> float:
        """Theil index of the subgroups' mean benefits; see :func:`between_group_theil_index`.

        Raises ValueError unless the subgroups are disjoint and cover every row (``disjoint``).
        """
        from ._theil import OVERLAP_MESSAGE, between_group_theil, mean_benefit

        if not self.disjoint or self.member.sum() != self.overall.sum():
            raise ValueError(OVERLAP_MESSAGE.format(func="between_group_theil_index"))
        means, _ = mean_benefit(self.member)
        return float(between_group_theil(self.sizes, means))

    def ratio_scores(self, rate: str, *, include_small: bool = False):
        """Each subgroup's rate against its background as min(a/b, b/a), and the minimum.

        See :func:`p_percent_score` (``rate="selection_rate"``) and
        :func:`equal_opportunity_score` (``rate="true_positive_rate"``) for the rule; the result
        is a :class:`RatioScoresResult`.
        """
        from ._ratio_scores import subgroup_ratio_scores

        return subgroup_ratio_scores(self, rate, include_small=include_small)


def confusion_counts(y_true, y_pred, subgroups) -> ConfusionCounts:
    """Confusion counts (TN, FP, FN, TP) of every subgroup, its background and all rows.

    The sufficient statistic of every rate and rate disparity: compute it once per threshold,
    then call ``.table()``, ``.disparity(...)`` or ``.equalized_odds(...)`` with any options.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_pred : array-like of shape (n_samples,)
        Binary predictions, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes

    Returns
    -------
    ConfusionCounts
    """
    return ConfusionCounts.compute(y_true, y_pred, subgroups)


def group_rates(y_true, y_pred, subgroups) -> pd.DataFrame:
    """Per-subgroup confusion counts and rates.

    selection_rate = (TP + FP) / N, true_positive_rate = TP / (TP + FN),
    false_positive_rate = FP / (FP + TN), false_negative_rate = FN / (FN + TP),
    false_omission_rate = FN / (FN + TN), false_discovery_rate = FP / (FP + TP),
    error_rate = (FP + FN) / N. A zero denominator gives NaN, and ``note`` says which.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_pred : array-like of shape (n_samples,)
        Binary predictions, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes

    Returns
    -------
    DataFrame, one row per subgroup, columns ``subgroup, size, n_positive, n_negative, small,
    tp, fp, tn, fn`` and the seven rates above, then ``note``.

    References
    ----------
    Hardt et al. (2016); Chouldechova (2017); seed 004.
    """
    return ConfusionCounts.compute(y_true, y_pred, subgroups, func="group_rates").table()


def rate_disparity(y_true, y_pred, subgroups, *, metric: Metric, distance_measure: str = "diff",
                   reduction: Optional[str] = "mean", reference: str = "rest", include_small: bool = False):
    """Disparity of a rate between each subgroup and a reference, optionally reduced.

    For each subgroup with rate a and reference rate b: ``"diff"`` gives |a - b| (perfect 0),
    ``"ratio"`` gives max(a, b) / min(a, b) (perfect 1; both 0 gives 1, one 0 gives inf).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels (unused for ``statistical_parity`` but must have the right length).
    y_pred : array-like of shape (n_samples,)
        Binary predictions.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    metric : {'statistical_parity', 'true_positive_rate', 'false_positive_rate',
              'false_negative_rate', 'false_omission_rate', 'false_discovery_rate', 'error_rate'}
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'} or None, default='mean'
        None returns the table of comparisons.
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
        What each subgroup is compared with: its background, all rows, every other subgroup
        (one row per unordered pair), or one named subgroup.
    include_small : bool, default=False
        Whether comparisons involving a small subgroup enter the reduction.

    Returns
    -------
    DisparityResult, or DataFrame when ``reduction=None`` (columns ``subgroup, reference, size,
    reference_size, subgroup_value, reference_value, disparity, small, note``).

    Raises
    ------
    ValueError
        For an unknown metric, distance, reduction or reference, or non-binary labels.

    References
    ----------
    Dwork et al. (2012); Hardt et al. (2016); seed 004 (Oracle AutoMLx fairness metrics).
    """
    y_true = np.zeros(len(np.asarray(y_pred)), np.int8) if y_true is None else y_true
    counts = ConfusionCounts.compute(y_true, y_pred, subgroups, func="rate_disparity")
    return counts.disparity(metric, distance_measure=distance_measure, reduction=reduction,
                            reference=reference, include_small=include_small)


def _shortcut(metric: str, doc: str):
    def f(y_true, y_pred, subgroups, *, distance_measure="diff", reduction="mean", reference="rest",
          include_small=False):
        return rate_disparity(y_true, y_pred, subgroups, metric=metric, distance_measure=distance_measure,
                              reduction=reduction, reference=reference, include_small=include_small)
    f.__doc__ = f"""{doc}

    The same as ``rate_disparity(..., metric={metric!r})``; see :func:`rate_disparity` for the
    parameters (``y_true``, ``y_pred``, ``subgroups``, ``distance_measure``, ``reduction``,
    ``reference``, ``include_small``) and the return value.

    References
    ----------
    Seed 004 (Oracle AutoMLx fairness metrics).
    """
    return f


true_positive_rate_disparity = _shortcut(
    "true_positive_rate", "Disparity of the true positive rate TP / (TP + FN) (equal opportunity).")
false_positive_rate_disparity = _shortcut(
    "false_positive_rate", "Disparity of the false positive rate FP / (FP + TN).")
false_negative_rate_disparity = _shortcut(
    "false_negative_rate", "Disparity of the false negative rate FN / (FN + TP).")
false_omission_rate_disparity = _shortcut(
    "false_omission_rate", "Disparity of the false omission rate FN / (FN + TN).")
false_discovery_rate_disparity = _shortcut(
    "false_discovery_rate", "Disparity of the false discovery rate FP / (FP + TP).")
error_rate_disparity = _shortcut("error_rate", "Disparity of the error rate (FP + FN) / N.")
for _f, _n in ((true_positive_rate_disparity, "true_positive_rate_disparity"),
               (false_positive_rate_disparity, "false_positive_rate_disparity"),
               (false_negative_rate_disparity, "false_negative_rate_disparity"),
               (false_omission_rate_disparity, "false_omission_rate_disparity"),
               (false_discovery_rate_disparity, "false_discovery_rate_disparity"),
               (error_rate_disparity, "error_rate_disparity")):
    _f.__name__ = _f.__qualname__ = _n


def model_statistical_parity(y_true=None, y_pred=None, subgroups=None, *, distance_measure="diff",
                             reduction="mean", reference="rest", include_small=False):
    """Disparity of the selection rate (TP + FP) / N: statistical parity of the model's output.

    `y_true` is not used and may be None. See :func:`rate_disparity` for the parameters and the
    return value.

    References
    ----------
    Dwork et al. (2012), "Fairness Through Awareness"; seed 004.
    """
    if y_pred is None or subgroups is None:
        raise ValueError("model_statistical_parity needs y_pred and subgroups. Got None instead.")
    return rate_disparity(y_true, y_pred, subgroups, metric="statistical_parity", distance_measure=distance_measure,
                          reduction=reduction, reference=reference, include_small=include_small)


def equalized_odds(y_true, y_pred, subgroups, *, distance_measure: str = "diff", reduction: Optional[str] = "mean",
                   reference: str = "rest", include_small: bool = False):
    """Equalized odds: per comparison, the larger of the TPR and FPR disparities, then reduced.

    For each subgroup (or pair): max(TPR disparity, FPR disparity) against the same reference;
    the defined one if the other is NaN; NaN if both are. The reduction is taken over these
    per-comparison values. (Oracle's implementation reduces TPR and FPR first and takes the max
    of the two reduced values; for ``"mean"`` that is a different number. Ours follows the
    definition.)

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Binary labels and predictions.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'} or None, default='mean'
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    include_small : bool, default=False

    Returns
    -------
    DisparityResult, or DataFrame when ``reduction=None`` (columns ``subgroup, reference, size,
    reference_size, small, tpr_disparity, fpr_disparity, disparity, note``).

    References
    ----------
    Hardt et al. (2016), "Equality of Opportunity in Supervised Learning"; seed 004.
    """
    counts = ConfusionCounts.compute(y_true, y_pred, subgroups, func="equalized_odds")
    return counts.equalized_odds(distance_measure=distance_measure, reduction=reduction, reference=reference,
                                 include_small=include_small)
