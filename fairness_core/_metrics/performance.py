"""Performance at a decision threshold, per subgroup and over all rows: what a disparity costs or buys."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._stats.bootstrap import check_boot_options, percentile_interval, replicate_stat
from .._counts.confusion import ConfusionCounts
from .._counts.rates import FN, FP, RATES, TN, TP
from .._stats.intervals import effective_counts, wilson_interval

OVERALL = "All rows"
COUNTS_MESSAGE = ("performance_table needs ConfusionCounts from confusion_counts(y_true, y_pred, subgroups) or "
                  "threshold_counts(...).at(threshold); got {got}.")
# name: (numerator cells, denominator cells, note when the denominator is 0); F1 is apart. Recall is the
# true positive rate and the selection rate the one of the rates table (one definition of each).
PROPORTIONS = {
    "accuracy": ((TN, TP), (TN, FP, FN, TP), "no rows"),
    "precision": ((TP,), (TP, FP), "no predicted positives (TP + FP = 0)"),
    "recall": RATES["true_positive_rate"],
    "selection_rate": RATES["selection_rate"],
}
PERFORMANCE_METRICS = ("accuracy", "precision", "recall", "f1", "selection_rate", "balanced_accuracy")
_F1_NOTE = "no positive examples and no predicted positives (2 TP + FP + FN = 0)"
_BALANCED_NOTE = "no positive or no negative examples (TP + FN = 0 or TN + FP = 0)"


def balanced_accuracy_interval(tp, fn, tn, fp, level: float) -> tuple[np.ndarray, np.ndarray]:
    """MOVER interval of the balanced accuracy (TPR + TNR) / 2 from the Wilson intervals of its two rates.

    The true positive rate r = TP / (TP + FN) and the true negative rate s = TN / (TN + FP) are
    proportions of disjoint rows (the positives and the negatives), so the method of variance
    estimates recovery for a sum of independent proportions (Newcombe 1998; Zou & Donner 2008)
    combines their Wilson intervals [l_r, u_r], [l_s, u_s]:

        [(r + s - sqrt((r - l_r)² + (s - l_s)²)) / 2,  (r + s + sqrt((u_r - r)² + (u_s - s)²)) / 2].

    Parameters
    ----------
    tp, fn, tn, fp : array-like of shape (m,)
        Confusion counts (with sample weights, the effective counts of the two rates: see
        :func:`performance_table`).
    level : float in (0, 1)

    Returns
    -------
    low, high : ndarray of shape (m,)
        In [0, 1]; NaN where there is no positive or no negative example.
    """
    tp, fn, tn, fp = (np.asarray(x, dtype=np.float64) for x in (tp, fn, tn, fp))
    r_low, r_high = wilson_interval(tp, tp + fn, level)
    s_low, s_high = wilson_interval(tn, tn + fp, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        r, s = tp / (tp + fn), tn / (tn + fp)
        low = (r + s - np.sqrt((r - r_low) ** 2 + (s - s_low) ** 2)) / 2
        high = (r + s + np.sqrt((r_high - r) ** 2 + (s_high - s) ** 2)) / 2
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def performance_table(counts: ConfusionCounts, *, ci=None, n_boot: int = 1000, random_state=0) -> pd.DataFrame:
    """Confusion matrix, accuracy, precision, recall, F1 and selection rate of all rows and of each subgroup.

    From the confusion counts (TN, FP, FN, TP) of a group's rows:

        accuracy = (TP + TN) / n,   precision = TP / (TP + FP),   recall = TP / (TP + FN),
        F1 = 2 TP / (2 TP + FP + FN),   selection rate = (TP + FP) / n,
        balanced accuracy = (TP / (TP + FN) + TN / (TN + FP)) / 2.

    Balanced accuracy is the mean of the true positive and true negative rates: a model that
    predicts one class for everyone scores 0.5 whatever the base rate, where its accuracy would be
    the share of that class.

    A value whose denominator is 0 is NaN, with the reason in ``note`` (never a silent 0 or 1).

    Parameters
    ----------
    counts : ConfusionCounts
        From :func:`confusion_counts`, or ``threshold_counts(...).at(threshold)`` for the
        predictions ``score >= threshold``. Weighted counts (``confusion_counts(...,
        sample_weight=w)``) give the weighted metrics (each cell a sum of weights, equal to
        scikit-learn's metrics with ``sample_weight``), ``size`` the effective sample size
        (sum w)^2 / sum w^2 and the cells as floats.
    ci : float in (0, 1) or None, default=None
        Confidence level. Accuracy, precision, recall and selection rate get Wilson score
        intervals (Wilson 1927) from their numerator and denominator; balanced accuracy the MOVER
        interval of :func:`balanced_accuracy_interval`; F1, which is not a proportion of rows, a
        percentile interval from the stratified bootstrap of the confusion counts (as the rate
        disparities; needs the counts' atoms). With sample weights the Wilson intervals (and the
        two in the balanced accuracy's MOVER interval) are computed on each proportion's effective
        counts (``_stats.intervals.effective_counts``: the weighted share on its effective sample
        size, at most its rows, as the rates' intervals), which unit weights leave as the counts; F1's bootstrap deals
        the rows with their weights into buckets (``Atoms.rows``), so with unit weights its interval
        differs from the unweighted one by bootstrap noise only.
    n_boot : int >= 100, default=1000
        Bootstrap replicates for the F1 interval.
    random_state : None, int >= 0 or numpy Generator, default=0

    Returns
    -------
    DataFrame
        One row for all rows (``subgroup`` "All rows", ``scope`` 'overall'), then one per subgroup
        (``scope`` 'subgroup'); columns ``subgroup, scope, size, small, tn, fp, fn, tp, accuracy,
        precision, recall, f1, selection_rate, balanced_accuracy`` (with `ci`, each metric followed by
        ``<metric>_ci_low, <metric>_ci_high``; the level in ``attrs["ci"]``) and ``note``.

    Raises
    ------
    ValueError
        For counts that are not ConfusionCounts (``COUNTS_MESSAGE``), a bad `ci`, `n_boot` or
        `random_state`, or intervals asked of counts built by hand.

    References
    ----------
    Van Rijsbergen, C. J. (1979), "Information Retrieval", 2nd ed. (the F-measure).
    Wilson, E. B. (1927), "Probable inference, the law of succession, and statistical
    inference", JASA 22 (158).

    Examples
    --------
    >>> import fairness_core as fc
    >>> counts = fc.confusion_counts([0, 1, 1, 0, 1], [0, 1, 0, 1, 1], ["a", "a", "a", "b", "b"])
    >>> performance_table(counts)[["subgroup", "accuracy", "precision", "recall", "f1"]].values.tolist()
    [['All rows', 0.6, 0.6666666666666666, 0.6666666666666666, 0.6666666666666666], ['a', 0.6666666666666666, 1.0, 0.5, 0.6666666666666666], ['b', 0.5, 0.5, 1.0, 0.6666666666666666]]
    """
    func = "performance_table"
    if not isinstance(counts, ConfusionCounts):
        raise ValueError(COUNTS_MESSAGE.format(got=type(counts).__name__))
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    m = np.vstack([counts.overall[None, :], counts.member]).astype(np.float64)   # (k + 1, 4)
    k = len(counts.names)
    squares = np.vstack([counts.overall_sq[None, :], counts.member_sq]) if counts.weighted else None
    member_rows, _, overall_rows = counts.row_tables()
    rows = None if member_rows is None else np.vstack([overall_rows[None, :], member_rows])

    def sizes_of(cells, den_cells):   # a proportion's (successes, trials): counts, or effective counts with weights
        num, den = m[:, list(cells)].sum(axis=1), m[:, list(den_cells)].sum(axis=1)
        if squares is None:
            return num, den
        rest = [c for c in den_cells if c not in cells]
        return effective_counts(num, den, squares[:, list(cells)].sum(axis=1), squares[:, rest].sum(axis=1),
                                None if rows is None else rows[:, list(den_cells)].sum(axis=1))
    if counts.weighted:   # sums of weights; sizes are effective sample sizes
        size, as_count = np.concatenate([[counts.overall_size], counts.sizes]), (lambda a: a)
    else:
        size, as_count = m.sum(axis=1).astype(np.int64), (lambda a: a.astype(np.int64))
    out = pd.DataFrame({
        "subgroup": [OVERALL, *counts.names],
        "scope": ["overall"] + ["subgroup"] * k,
        "size": size,
        "small": np.concatenate([[False], counts.small]),
        **{name: as_count(m[:, cell]) for name, cell in (("tn", TN), ("fp", FP), ("fn", FN), ("tp", TP))},
    })
    notes = []
    for name in PERFORMANCE_METRICS:
        if name == "f1":
            num, den, why = 2 * m[:, TP], 2 * m[:, TP] + m[:, FP] + m[:, FN], _F1_NOTE
        elif name == "balanced_accuracy":   # (TPR + TNR) / 2 = num / den with den = 2 P N
            pos, neg = m[:, TP] + m[:, FN], m[:, TN] + m[:, FP]
            num, den, why = m[:, TP] * neg + m[:, TN] * pos, 2 * pos * neg, _BALANCED_NOTE
        else:
            cells, den_cells, why = PROPORTIONS[name]
            num, den = m[:, list(cells)].sum(axis=1), m[:, list(den_cells)].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[name] = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        notes.append(np.where(den > 0, "", f"{name.replace('_', ' ')} undefined: {why}"))
        if level is not None:
            if name == "f1":
                low, high = _f1_interval(counts, level, n_boot, rng, func)
            elif name == "balanced_accuracy":
                (tp, pos), (tn, neg) = sizes_of((TP,), (TP, FN)), sizes_of((TN,), (TN, FP))
                low, high = balanced_accuracy_interval(tp, pos - tp, tn, neg - tn, level)
            else:
                low, high = wilson_interval(*sizes_of(*PROPORTIONS[name][:2]), level)
            out[f"{name}_ci_low"], out[f"{name}_ci_high"] = low, high
    out["note"] = ["; ".join(dict.fromkeys(n for n in row if n)) for row in zip(*notes)]
    if level is not None:
        out.attrs["ci"] = level
    return out


def _f1_interval(counts: ConfusionCounts, level: float, n_boot: int, rng, func: str):
    """Percentile interval of F1 for all rows and each subgroup, from the stratified bootstrap of the counts (of the
    rows with their weights, dealt into buckets, for weighted counts)."""
    def stat(member, background, overall):
        c = np.concatenate([overall[:, None, :], member], axis=1)   # (B, k + 1, 4)
        den = 2 * c[..., TP] + c[..., FP] + c[..., FN]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 0, 2 * c[..., TP] / np.where(den > 0, den, 1.0), np.nan)

    samples = replicate_stat(counts._atoms(func), stat, n_boot, rng)
    low, high, _ = percentile_interval(samples, level)
    return low, high
