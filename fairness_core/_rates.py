"""Rates from confusion counts per subgroup, their disparities, and equalized odds (§5.2).

The sufficient statistic is the confusion matrix (TN, FP, FN, TP) of every subgroup, of its
background and of all rows: a (n_subgroups x 4) table taken with one bincount. Every rate,
disparity, reference and reduction is computed from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional

import numpy as np
import pandas as pd

from ._bootstrap import Atoms, check_boot_options
from ._checks import as_binary, check_length, check_option
from ._intervals import check_ci, wilson_interval
from ._compare import (add_intervals, bootstrap_comparison, check_reference, compare, comparison_index,
                       compared_values, reduce_disparities, reduce_samples, used_rows, with_intervals)
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


def _fraction(counts: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(numerator, denominator) of rate `name` from counts of shape (..., 4)."""
    num_cells, den_cells, _ = RATES[name]
    return counts[..., list(num_cells)].sum(axis=-1), counts[..., list(den_cells)].sum(axis=-1)


def _rate(counts: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Rate `name` from counts of shape (..., 4) -> (values, notes)."""
    num, den = _fraction(counts, name)
    why = RATES[name][2]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    notes = np.where(den > 0, "", f"{name.replace('_', ' ')} undefined: {why}").astype(object)
    return values, notes


NO_ATOMS_MESSAGE = (
    "{func} cannot compute intervals from ConfusionCounts built by hand: the bootstrap needs the "
    "counts per membership pattern. Tip: build them with confusion_counts(y_true, y_pred, subgroups)."
)
DENOMINATOR_NAMES = {
    "selection_rate": "rows", "true_positive_rate": "actual positives", "false_positive_rate": "actual negatives",
    "false_negative_rate": "actual positives", "false_omission_rate": "predicted negatives",
    "false_discovery_rate": "predicted positives", "error_rate": "rows",
}


def _few_text(den: int, rate: str, min_size: int, prefix: str = "") -> str:
    return (f"{prefix}{den:,} {DENOMINATOR_NAMES[rate]} (the denominator of the {rate.replace('_', ' ')}) "
            f"< minimum {min_size}")


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
    atoms : _bootstrap.Atoms or None
        Counts per (membership pattern, cell): what the bootstrap resamples (set by
        :meth:`compute`; counts built by hand have none and cannot give intervals).
    """

    names: list
    member: np.ndarray
    background: np.ndarray
    overall: np.ndarray
    min_size: int
    disjoint: bool = False
    atoms: object = field(default=None, repr=False, compare=False)

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
                   disjoint=groups.codes is not None, atoms=Atoms.of(groups, cell, 4))

    @property
    def sizes(self) -> np.ndarray:
        """Rows per subgroup."""
        return self.member.sum(axis=1)

    @property
    def small(self) -> np.ndarray:
        """Flag per subgroup: fewer rows than ``min_size``."""
        return self.sizes < self.min_size

    def table(self, ci=None) -> pd.DataFrame:
        """Per-subgroup counts and every rate, with Wilson intervals when `ci` is a level.

        Parameters
        ----------
        ci : float in (0, 1) or None, default=None
            Confidence level of Wilson's score interval (Wilson 1927) of each rate, computed
            from the rate's numerator and denominator counts; None adds no interval columns.

        Returns
        -------
        DataFrame
            One row per subgroup; the columns of :func:`group_rates` (with `ci`, each rate
            followed by ``<rate>_ci_low, <rate>_ci_high``; NaN where the denominator is 0).

        Raises
        ------
        ValueError
            If `ci` is not None or a number strictly between 0 and 1 (``CI_MESSAGE``).
        """
        level = check_ci(ci, "ConfusionCounts.table")
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
            if level is not None:
                out[f"{name}_ci_low"], out[f"{name}_ci_high"] = wilson_interval(*_fraction(m, name), level)
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
        num, den = _fraction(self.member, rate)
        small, reasons = self._small_for(den, rate)
        table = compare(self.names, self.sizes.astype(np.int64), values, rest,
                        self.background.sum(axis=1).astype(np.int64), float(overall), int(self.overall.sum()),
                        small, distance_measure=distance_measure, reference=reference, func=func, notes=notes,
                        rest_notes=rest_notes)
        # The reliability of a rate rests on its denominator: record both sides' counts.
        rest_num, rest_den = _fraction(self.background, rate)
        all_num, all_den = _fraction(self.overall, rate)
        sub_num, ref_num = compared_values(num, rest_num, all_num, reference, self.names)
        sub_den, ref_den = compared_values(den, rest_den, all_den, reference, self.names)
        i, j = comparison_index(reference, self.names)
        ref_small = np.zeros(len(i), bool) if j is None else small[j]
        ref_reason = np.full(len(i), "", dtype=object) if j is None else reasons[j]
        at = table.columns.get_loc("subgroup_value")
        for offset, (name, values) in enumerate((("numerator", sub_num), ("denominator", sub_den),
                                                 ("reference_numerator", ref_num),
                                                 ("reference_denominator", ref_den))):
            table.insert(at + offset, name, np.asarray(values).astype(np.int64))
        ref_den_values = table["reference_denominator"].to_numpy()
        ref_few = (ref_den_values > 0) & (ref_den_values < self.min_size)  # 0: undefined, not small
        table["small"] = small[i] | ref_small | ref_few
        table["small_reason"] = [
            "; ".join(p for p in (r, (f"{q}: {rr}" if rr else ""),
                                  (_few_text(int(d), rate, self.min_size, f"{q}: ") if few and not rr else "")) if p)
            for r, q, rr, few, d in zip(reasons[i], table["reference"], ref_reason, ref_few,
                                        table["reference_denominator"])]
        return table

    def _small_for(self, den: np.ndarray, rate: str) -> tuple[np.ndarray, np.ndarray]:
        """Per subgroup: small (too few rows, or too few in the rate's denominator) and the reason."""
        sizes = self.sizes
        reasons = np.array([
            (f"{int(n):,} rows < minimum {self.min_size}" if n < self.min_size
             else _few_text(int(d), rate, self.min_size) if 0 < d < self.min_size else "")
            for n, d in zip(sizes, den)], dtype=object)
        # A zero denominator makes the rate undefined (NaN with a note), which is not "small".
        return (sizes < self.min_size) | ((den > 0) & (den < self.min_size)), reasons

    def disparity(self, metric: str, *, distance_measure: str = "diff", reduction: Optional[str] = "mean",
                  reference: str = "rest", include_small: bool = False, ci=None, n_boot: int = 1000,
                  random_state=0, adjust: Optional[str] = None, func: str = "rate_disparity"):
        """Disparity of one rate; see :func:`rate_disparity`."""
        check_option(reduction, ("max", "mean", None), "reduction", func)
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        table = self.comparison(metric, distance_measure=distance_measure, reference=reference, func=func)
        if level is None:
            return table if reduction is None else reduce_disparities(
                table, reduction, distance_measure=distance_measure, reference=reference,
                include_small=include_small, func=func)
        rate = DISPARITY_METRICS[metric]
        table = self._value_intervals(table, rate, level)
        signed, disparity = bootstrap_comparison(
            self._atoms(func), self.names, reference, lambda m, b, o: tuple(_rate(x, rate)[0] for x in (m, b, o)),
            distance_measure=distance_measure, n_boot=n_boot, rng=rng)
        return self._finish(table, signed, disparity, distance_measure=distance_measure, reduction=reduction,
                            reference=reference, include_small=include_small, level=level, n_boot=n_boot,
                            adjust=adjust, func=func)

    def _atoms(self, func: str):
        if self.atoms is None:
            raise ValueError(NO_ATOMS_MESSAGE.format(func=func))
        return self.atoms

    def _value_intervals(self, table: pd.DataFrame, rate: str, level: float) -> pd.DataFrame:
        """Wilson intervals of the subgroup and reference rates, beside their values."""
        table = table.copy()
        for side, num, den in (("subgroup_value", "numerator", "denominator"),
                               ("reference_value", "reference_numerator", "reference_denominator")):
            low, high = wilson_interval(table[num].to_numpy(), table[den].to_numpy(), level)
            at = table.columns.get_loc(side) + 1
            table.insert(at, f"{side}_ci_low", low)
            table.insert(at + 1, f"{side}_ci_high", high)
        return table

    def _finish(self, table, signed, disparity, *, distance_measure, reduction, reference, include_small, level,
                n_boot, adjust, func):
        """Interval columns on `table`, then the reduction and its bootstrap interval."""
        table = add_intervals(table, signed, disparity, distance_measure=distance_measure, level=level,
                              adjust=adjust, func=func)
        if reduction is None:
            return table
        result = reduce_disparities(table, reduction, distance_measure=distance_measure, reference=reference,
                                    include_small=include_small, func=func)
        reduced = reduce_samples(disparity, used_rows(table, include_small), reduction)
        return with_intervals(result, table, reduced, level=level, n_boot=n_boot)

    def equalized_odds(self, *, distance_measure: str = "diff", reduction: Optional[str] = "mean",
                       reference: str = "rest", include_small: bool = False, ci=None, n_boot: int = 1000,
                       random_state=0, adjust: Optional[str] = None):
        """Equalized odds; see :func:`equalized_odds`."""
        func = "equalized_odds"
        check_option(reduction, ("max", "mean", None), "reduction", func)
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        tpr = self.comparison("true_positive_rate", distance_measure=distance_measure, reference=reference, func=func)
        fpr = self.comparison("false_positive_rate", distance_measure=distance_measure, reference=reference, func=func)
        table = tpr[["subgroup", "reference", "size", "reference_size"]].copy()
        table["tpr_disparity"] = tpr["disparity"]
        table["fpr_disparity"] = fpr["disparity"]
        table["disparity"] = np.fmax(tpr["disparity"].to_numpy(), fpr["disparity"].to_numpy())
        table["small"] = tpr["small"].to_numpy() | fpr["small"].to_numpy()
        table["note"] = ["; ".join(n for n in pair if n) for pair in zip(tpr["note"], fpr["note"])]
        table["small_reason"] = ["; ".join(dict.fromkeys(n for n in pair if n))
                                 for pair in zip(tpr["small_reason"], fpr["small_reason"])]
        if level is None:
            return table if reduction is None else reduce_disparities(
                table, reduction, distance_measure=distance_measure, reference=reference,
                include_small=include_small, func=func)
        # TPR and FPR from the same replicates (resampled jointly): axis 1 of every array is the rate.
        signed, disparity = bootstrap_comparison(
            self._atoms(func), self.names, reference,
            lambda m, b, o: tuple(np.stack([_rate(x, "true_positive_rate")[0], _rate(x, "false_positive_rate")[0]],
                                           axis=1) for x in (m, b, o)),
            distance_measure=distance_measure, n_boot=n_boot, rng=rng)
        # Per replicate, the comparison's disparity is the larger one, and its sign that one's sign.
        tpr, fpr = disparity[:, 0], disparity[:, 1]
        tpr_larger = np.nan_to_num(tpr, nan=-np.inf) >= np.nan_to_num(fpr, nan=-np.inf)
        signed = np.where(tpr_larger, signed[:, 0], signed[:, 1])
        disparity = np.fmax(tpr, fpr)
        return self._finish(table, signed, disparity, distance_measure=distance_measure, reduction=reduction,
                            reference=reference, include_small=include_small, level=level, n_boot=n_boot,
                            adjust=adjust, func=func)

    def theil_index(self, *, reduction: Optional[str] = "mean", reference: str = "rest",
                    include_small: bool = False, ci=None, n_boot: int = 1000, random_state=0,
                    adjust: Optional[str] = None):
        """Two-group Theil index of each subgroup against its reference; see :func:`theil_index`."""
        from ._theil import theil_disparity

        return theil_disparity(self, reduction=reduction, reference=reference, include_small=include_small,
                               ci=ci, n_boot=n_boot, random_state=random_state, adjust=adjust)

    def individual_theil_index(self, *, ci=None, n_boot: int = 1000, random_state=0):
        """Theil index of the benefit over all rows; see :func:`individual_theil_index`.

        A float, or with `ci` a ``TheilResult`` whose interval comes from the bootstrap that
        redraws the confusion cells of every membership pattern (pattern sizes fixed).
        """
        from ._theil import individual_theil_of

        return individual_theil_of(self, ci=ci, n_boot=n_boot, random_state=random_state)

    def between_group_theil_index(self, *, ci=None, n_boot: int = 1000, random_state=0):
        """Theil index of the subgroups' mean benefits; see :func:`between_group_theil_index`.

        A float, or with `ci` a ``TheilResult``. Raises ValueError unless the subgroups are
        disjoint and cover every row (``disjoint``).
        """
        from ._theil import between_group_theil_of

        return between_group_theil_of(self, ci=ci, n_boot=n_boot, random_state=random_state)

    def ratio_scores(self, rate: str, *, include_small: bool = False, ci=None, n_boot: int = 1000,
                     random_state=0):
        """Each subgroup's rate against its background as min(a/b, b/a), and the minimum.

        See :func:`p_percent_score` (``rate="selection_rate"``) and
        :func:`equal_opportunity_score` (``rate="true_positive_rate"``) for the rule; the result
        is a :class:`RatioScoresResult`. With `ci`, bootstrap intervals as in :meth:`disparity`
        (the score is the inverse of the ratio disparity against the rest).
        """
        from ._ratio_scores import subgroup_ratio_scores

        return subgroup_ratio_scores(self, rate, include_small=include_small, ci=ci, n_boot=n_boot,
                                     random_state=random_state)


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


def group_rates(y_true, y_pred, subgroups, *, ci=None) -> pd.DataFrame:
    """Per-subgroup confusion counts and rates, optionally with Wilson intervals.

    selection_rate = (TP + FP) / N, true_positive_rate = TP / (TP + FN),
    false_positive_rate = FP / (FP + TN), false_negative_rate = FN / (FN + TP),
    false_omission_rate = FN / (FN + TN), false_discovery_rate = FP / (FP + TP),
    error_rate = (FP + FN) / N. A zero denominator gives NaN, and ``note`` says which.

    With `ci`, each rate k / n gets Wilson's score interval

        (k + z²/2) / (n + z²) -/+ z / (n + z²) * sqrt(k (n - k) / n + z² / 4),

    z = ``scipy.stats.norm.ppf(1 - (1 - ci) / 2)``, always within [0, 1] (NaN where n = 0);
    equal to ``statsmodels.stats.proportion.proportion_confint(k, n, 1 - ci, method="wilson")``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_pred : array-like of shape (n_samples,)
        Binary predictions, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    ci : float in (0, 1) or None, default=None
        Confidence level of the intervals, e.g. 0.95; None adds no interval columns.

    Returns
    -------
    DataFrame, one row per subgroup, columns ``subgroup, size, n_positive, n_negative, small,
    tp, fp, tn, fn`` and the seven rates above, then ``note``. With `ci`, every rate column is
    followed by ``<rate>_ci_low, <rate>_ci_high`` (e.g. ``false_positive_rate,
    false_positive_rate_ci_low, false_positive_rate_ci_high``).

    Raises
    ------
    ValueError
        If `ci` is not None or a number strictly between 0 and 1 (``CI_MESSAGE``), and for bad
        labels, predictions or subgroups.

    References
    ----------
    Hardt et al. (2016); Chouldechova (2017); seed 004.
    Wilson, E. B. (1927), "Probable inference, the law of succession, and statistical inference",
    JASA 22(158), 209-212.
    """
    level = check_ci(ci, "group_rates")
    return ConfusionCounts.compute(y_true, y_pred, subgroups, func="group_rates").table(ci=level)


def rate_disparity(y_true, y_pred, subgroups, *, metric: Metric, distance_measure: str = "diff",
                   reduction: Optional[str] = "mean", reference: str = "rest", include_small: bool = False,
                   ci=None, n_boot: int = 1000, random_state=0, adjust: Optional[str] = None):
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
        Whether comparisons involving a small subgroup enter the reduction. A comparison is small
        when a subgroup in it has fewer rows than ``min_size``, or fewer than ``min_size`` rows in
        the rate's denominator (actual positives for TPR/FNR, actual negatives for FPR, predicted
        positives for FDR, predicted negatives for FOR); ``small_reason`` says which.
    ci : float in (0, 1) or None, default=None
        Confidence level of intervals (e.g. 0.95). The subgroup and reference rates get Wilson
        score intervals; every disparity and the reduced value get percentile intervals from a
        stratified multinomial bootstrap over the confusion cells of each membership pattern
        (rows are never resampled; subgroup sizes stay fixed). ``excludes_parity`` says whether
        the interval of the signed distance (a - b, or ln(a / b)) excludes 0; ``p_value`` is the
        bootstrap p-value of parity. Where parity is not excluded, ``disparity_ci_low`` is the
        parity value (0 or 1).
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}, default=None
        Multiple-comparison adjustment of the per-comparison intervals and ``excludes_parity``
        (see ``_compare.add_intervals``); the number of comparisons is in ``table.attrs``.

    Returns
    -------
    DisparityResult, or DataFrame when ``reduction=None`` (columns ``subgroup, reference, size,
    reference_size, numerator, denominator, reference_numerator, reference_denominator,
    subgroup_value, reference_value, disparity, small, note, small_reason``; with `ci` also
    ``subgroup_value_ci_low/high, reference_value_ci_low/high, disparity_ci_low/high, p_value,
    excludes_parity``). A result carries ``ci_low, ci_high, n_boot, n_boot_undefined``.

    Raises
    ------
    ValueError
        For an unknown metric, distance, reduction, reference or adjustment, non-binary labels,
        or a `ci` outside (0, 1).

    References
    ----------
    Dwork et al. (2012); Hardt et al. (2016); seed 004 (Oracle AutoMLx fairness metrics).
    """
    y_true = np.zeros(len(np.asarray(y_pred)), np.int8) if y_true is None else y_true
    counts = ConfusionCounts.compute(y_true, y_pred, subgroups, func="rate_disparity")
    return counts.disparity(metric, distance_measure=distance_measure, reduction=reduction,
                            reference=reference, include_small=include_small, ci=ci, n_boot=n_boot,
                            random_state=random_state, adjust=adjust)


def _shortcut(metric: str, doc: str):
    def f(y_true, y_pred, subgroups, *, distance_measure="diff", reduction="mean", reference="rest",
          include_small=False, ci=None, n_boot=1000, random_state=0, adjust=None):
        return rate_disparity(y_true, y_pred, subgroups, metric=metric, distance_measure=distance_measure,
                              reduction=reduction, reference=reference, include_small=include_small, ci=ci,
                              n_boot=n_boot, random_state=random_state, adjust=adjust)
    f.__doc__ = f"""{doc}

    The same as ``rate_disparity(..., metric={metric!r})``; see :func:`rate_disparity` for the
    parameters (``y_true``, ``y_pred``, ``subgroups``, ``distance_measure``, ``reduction``,
    ``reference``, ``include_small``, ``ci``, ``n_boot``, ``random_state``, ``adjust``) and the
    return value.

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
                             reduction="mean", reference="rest", include_small=False, ci=None, n_boot=1000,
                             random_state=0, adjust=None):
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
                          reduction=reduction, reference=reference, include_small=include_small, ci=ci,
                          n_boot=n_boot, random_state=random_state, adjust=adjust)


def equalized_odds(y_true, y_pred, subgroups, *, distance_measure: str = "diff", reduction: Optional[str] = "mean",
                   reference: str = "rest", include_small: bool = False, ci=None, n_boot: int = 1000,
                   random_state=0, adjust: Optional[str] = None):
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
    ci, n_boot, random_state, adjust
        Intervals as in :func:`rate_disparity`. TPR and FPR are resampled jointly (the same
        replicates); a replicate's signed distance is that of the larger of the two disparities.

    Returns
    -------
    DisparityResult, or DataFrame when ``reduction=None`` (columns ``subgroup, reference, size,
    reference_size, tpr_disparity, fpr_disparity, disparity, small, note, small_reason``, plus the
    interval columns of :func:`rate_disparity` with `ci`).

    References
    ----------
    Hardt et al. (2016), "Equality of Opportunity in Supervised Learning"; seed 004.
    """
    counts = ConfusionCounts.compute(y_true, y_pred, subgroups, func="equalized_odds")
    return counts.equalized_odds(distance_measure=distance_measure, reduction=reduction, reference=reference,
                                 include_small=include_small, ci=ci, n_boot=n_boot, random_state=random_state,
                                 adjust=adjust)
