"""Calibration per subgroup: reliability diagrams, ECE, MCE, Brier score and their disparity (§5.3).

Sufficient statistic: for every subgroup, its background and all rows, and for every bin, the
row count, the sum of predicted probabilities, the sum of labels and the sum of squared errors
(one bincount each). ECE = sum_b |sum_y_b - sum_p_b| / n, which equals
sum_b (n_b / n) * |fraction_positive_b - mean_predicted_b|.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

import numpy as np
import pandas as pd

from ._checks import as_binary, as_probabilities, check_int, check_length, check_option
from ._compare import DisparityResult, compare, reduce_disparities, check_reference
from ._intervals import check_ci, wilson_interval
from ._subgroups import as_subgroups

Strategy = Literal["uniform", "quantile"]
STRATEGIES = ("uniform", "quantile")


def uniform_edges(n_bins: int) -> np.ndarray:
    """Exact uniform edges ``arange(n_bins + 1) / n_bins``: edge i is the double nearest to i / n_bins.

    ``linspace(0, 1, n_bins + 1)`` computes ``i * (1 / n_bins)`` and stores 0.3 as
    0.30000000000000004 (likewise 0.6 and 0.7 for ten bins), so a score of exactly 0.3 would fall
    in the lower bin while a score of exactly 0.2 falls in the upper one. Dividing the integer i by
    `n_bins` rounds once, so a score written as the same decimal (``0.3 == 3 / 10``) sits exactly
    on its edge and goes to the upper bin.
    """
    return np.arange(n_bins + 1, dtype=np.float64) / n_bins


def bin_edges(y_prob: np.ndarray, n_bins: int, strategy: str) -> np.ndarray:
    """Bin edges over [0, 1]: exact uniform edges (:func:`uniform_edges`) or quantiles of the pooled scores."""
    if strategy == "uniform":
        return uniform_edges(n_bins)
    return np.quantile(y_prob, np.linspace(0.0, 1.0, n_bins + 1))


def bin_index(y_prob: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin of each score: bins are [low, high) except the last, which is closed (1.0 counts)."""
    return np.searchsorted(edges[1:-1], y_prob, side="right").astype(np.intp)


@dataclass(frozen=True)
class CalibrationCounts:
    """Per-(subgroup, bin) sums behind every calibration number.

    Attributes
    ----------
    names : list of str
    edges : ndarray of shape (n_bins + 1,)
    strategy : {'uniform', 'quantile'}
    member, background : ndarray of shape (n_subgroups, 4, n_bins)
        For each subgroup (or its background) and bin: count, sum of y_prob, sum of y_true,
        sum of (y_prob - y_true) ** 2.
    overall : ndarray of shape (4, n_bins)
    min_size : int
    """

    names: list
    edges: np.ndarray
    strategy: str
    member: np.ndarray
    background: np.ndarray
    overall: np.ndarray
    min_size: int

    @classmethod
    def compute(cls, y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: str = "uniform",
                func: str = "calibration_counts") -> "CalibrationCounts":
        """Bin the scores once and take the sums; see :func:`calibration_counts`."""
        y = as_binary(y_true, "y_true", func).astype(np.float64)
        p = as_probabilities(y_prob, "y_prob", func)
        check_length(p, len(y), "y_prob", func)
        n_bins = check_int(n_bins, 1, "n_bins", func)
        check_option(strategy, STRATEGIES, "strategy", func)
        groups = as_subgroups(subgroups, len(y), func)
        edges = bin_edges(p, n_bins, strategy) if len(p) else uniform_edges(n_bins)
        cell = bin_index(p, edges)
        weights = (None, p, y, (p - y) ** 2)
        member = np.stack([groups.crosstab(cell, n_bins, w)[0] for w in weights], axis=1)
        background = np.stack([groups.crosstab(cell, n_bins, w)[1] for w in weights], axis=1)
        overall = np.stack([np.bincount(cell, weights=w, minlength=n_bins).astype(float) for w in weights])
        return cls(list(groups.names), edges, strategy, member, background, overall, groups.min_size)

    @property
    def n_bins(self) -> int:
        """Number of bins."""
        return len(self.edges) - 1

    @property
    def sizes(self) -> np.ndarray:
        """Rows per subgroup."""
        return self.member[:, 0, :].sum(axis=1)

    def reliability_table(self, ci: Optional[float] = None) -> pd.DataFrame:
        """Tidy reliability-diagram table; see :func:`reliability_diagram`.

        Parameters
        ----------
        ci : float in (0, 1) or None, default=None
            With a level, ``fraction_positive_ci_low`` / ``fraction_positive_ci_high`` (the Wilson
            interval of positives / count in the bin; NaN for an empty bin) follow
            ``fraction_positive``.

        Returns
        -------
        DataFrame with n_subgroups * n_bins rows and columns ``subgroup, bin, bin_lower,
        bin_upper, count, mean_predicted, fraction_positive`` (and the two interval columns,
        with the level in ``attrs["ci"]``).

        Raises
        ------
        ValueError
            If `ci` is not None or a level strictly between 0 and 1 (``CI_MESSAGE``).
        """
        level = check_ci(ci, "reliability_diagram")
        k, b = len(self.names), self.n_bins
        count = self.member[:, 0, :]
        positives = self.member[:, 2, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_pred = np.where(count > 0, self.member[:, 1, :] / count, np.nan)
            frac_pos = np.where(count > 0, positives / count, np.nan)
        columns = {
            "subgroup": np.repeat(np.asarray(self.names, dtype=object), b),
            "bin": np.tile(np.arange(b), k),
            "bin_lower": np.tile(self.edges[:-1], k),
            "bin_upper": np.tile(self.edges[1:], k),
            "count": count.reshape(-1).astype(np.int64),
            "mean_predicted": mean_pred.reshape(-1),
            "fraction_positive": frac_pos.reshape(-1),
        }
        if level is not None:
            # The labels are 0/1, so the sum of labels in a bin is an integer count (rounding guards
            # against float sums).
            low, high = wilson_interval(np.rint(positives).reshape(-1), count.reshape(-1), level)
            columns["fraction_positive_ci_low"] = low
            columns["fraction_positive_ci_high"] = high
        table = pd.DataFrame(columns)
        if level is not None:
            table.attrs["ci"] = level  # the level, for chart hovers
        return table

    def error_table(self, *, min_per_group: int = 5) -> pd.DataFrame:
        """Per-subgroup ECE, MCE and Brier score; see :func:`calibration_errors`."""
        ece, mce, brier, note = _errors(self.member, min_per_group)
        sizes = self.sizes
        return pd.DataFrame({
            "subgroup": self.names, "size": sizes.astype(np.int64),
            "n_positive": self.member[:, 2, :].sum(axis=1).astype(np.int64),
            "n_negative": (sizes - self.member[:, 2, :].sum(axis=1)).astype(np.int64),
            "small": sizes < self.min_size,
            "ece": ece, "mce": mce, "brier_score": brier, "note": note,
        })

    def disparity(self, *, threshold: float = 0.1, min_per_group: int = 5, distance_measure: str = "diff",
                  reduction: Optional[str] = "max", reference: str = "rest", include_small: bool = False):
        """ECE disparity; see :func:`calibration_disparity`."""
        func = "calibration_disparity"
        check_option(reduction, ("max", "mean", None), "reduction", func)
        check_reference(reference, self.names, func)
        min_per_group = check_int(min_per_group, 1, "min_per_group", func)
        ece, _, _, note = _errors(self.member, min_per_group)
        rest_ece, _, _, rest_note = _errors(self.background, min_per_group)
        overall_ece = _errors(self.overall[None], min_per_group)[0][0]
        sizes = self.sizes
        table = compare(self.names, sizes.astype(np.int64), ece, rest_ece,
                        self.background[:, 0, :].sum(axis=1).astype(np.int64), overall_ece,
                        int(self.overall[0].sum()), sizes < self.min_size, distance_measure=distance_measure,
                        reference=reference, func=func, notes=note, rest_notes=rest_note)
        table["passes"] = np.where(table["disparity"].isna(), None, table["disparity"] <= threshold)
        if reduction is None:
            return table
        result = reduce_disparities(table, reduction, distance_measure=distance_measure, reference=reference,
                                    include_small=include_small, func=func)
        passes = None if np.isnan(result.value) else bool(result.value <= threshold)
        return CalibrationDisparityResult(
            value=result.value, passes=passes, threshold=threshold, n_bins=self.n_bins, strategy=self.strategy,
            interpretation=_interpret(result, passes, threshold, min_per_group, distance_measure),
            errors=self.error_table(min_per_group=min_per_group), disparity=result)


def _errors(stats: np.ndarray, min_per_group: int):
    """ECE, MCE, Brier and notes for stats of shape (k, 4, n_bins)."""
    count, sum_p, sum_y, sum_sq = stats[:, 0], stats[:, 1], stats[:, 2], stats[:, 3]
    n = count.sum(axis=1)
    gap = np.abs(sum_y - sum_p)
    with np.errstate(divide="ignore", invalid="ignore"):
        ece = gap.sum(axis=1) / n
        per_bin = np.where(count > 0, gap / np.where(count > 0, count, 1), -np.inf)
        mce = per_bin.max(axis=1) if per_bin.shape[1] else np.full(len(n), np.nan)
        brier = sum_sq.sum(axis=1) / n
    enough = n >= min_per_group
    note = np.where(enough, "", np.where(n == 0, "no rows",
                                         f"fewer than min_per_group={min_per_group} rows")).astype(object)
    nan = np.full(len(n), np.nan)
    return (np.where(enough, ece, nan), np.where(enough, mce, nan), np.where(n > 0, brier, nan), note)


def _interpret(result: DisparityResult, passes, threshold: float, min_per_group: int, distance: str) -> str:
    if passes is None:
        return (f"Calibration disparity could not be assessed: no comparison has ECE defined on both sides "
                f"(each side needs at least {min_per_group} rows).")
    unit = "difference in ECE" if distance == "diff" else "ratio of ECEs"
    if result.reduction == "max" and result.worst is not None:
        row = result.table[(result.table["subgroup"] == result.worst[0])
                           & (result.table["reference"] == result.worst[1])].iloc[0]
        head = (f"The largest {unit} is {result.value:.3f}, between {row['subgroup']} (ECE "
                f"{row['subgroup_value']:.3f}, {int(row['size'])} rows) and {row['reference']} (ECE "
                f"{row['reference_value']:.3f}).")
    else:
        head = f"The mean {unit} over {result.n_used} comparisons is {result.value:.3f}."
    if passes:
        return head + (f" It is within the threshold of {threshold:g}: by this measure, predicted "
                       f"probabilities are about as reliable for every subgroup.")
    return head + (f" It exceeds the threshold of {threshold:g}: predicted probabilities are less reliable "
                   f"for some subgroups than for others; see the reliability diagrams for where they "
                   f"over- or under-estimate the outcome.")


@dataclass(frozen=True)
class CalibrationDisparityResult:
    """ECE disparity with its pass/fail verdict and the per-subgroup errors.

    Attributes
    ----------
    value : float
        The reduced ECE disparity.
    passes : bool or None
        ``value <= threshold``; None when the disparity is undefined.
    threshold : float
    n_bins : int
    strategy : {'uniform', 'quantile'}
    interpretation : str
        A plain-language sentence for reports.
    errors : DataFrame
        Per-subgroup ``ece, mce, brier_score`` (see :func:`calibration_errors`).
    disparity : DisparityResult
        The comparisons behind ``value``.
    """

    value: float
    passes: Optional[bool]
    threshold: float
    n_bins: int
    strategy: str
    interpretation: str
    errors: pd.DataFrame
    disparity: DisparityResult

    @property
    def table(self) -> pd.DataFrame:
        """The comparison table (one row per comparison)."""
        return self.disparity.table

    def __float__(self) -> float:
        return float(self.value)


def calibration_counts(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform"):
    """Per-(subgroup, bin) sums behind every calibration number, computed once.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
        Exact uniform edges ``arange(n_bins + 1) / n_bins``, or quantiles of the pooled scores.

    Returns
    -------
    CalibrationCounts
        Call ``.reliability_table()``, ``.error_table()`` or ``.disparity(...)``.

    Raises
    ------
    ValueError
        If a score is outside [0, 1] or an option is invalid.
    """
    return CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy)


def reliability_diagram(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform",
                        ci: Optional[float] = None) -> pd.DataFrame:
    """Reliability-diagram data per subgroup and bin.

    Bins are [low, high) except the last, which is closed, so a score of exactly 1.0 is counted.
    Uniform edges are exact (``arange(n_bins + 1) / n_bins``), so a score exactly on an inner edge
    i / n_bins (0.3 with ten bins, say) goes to the upper bin, bin i. Bin b of a subgroup holds
    ``count`` rows, ``mean_predicted`` (mean probability, the confidence) and
    ``fraction_positive`` (share of positive labels, the accuracy); both NaN for an empty bin.
    With `ci`, the Wilson score interval of fraction_positive = positives / count,

        centre = (k + z^2 / 2) / (n + z^2),  half-width = z / (n + z^2) * sqrt(k (n - k) / n + z^2 / 4)

    with k the positives and n the rows in the bin and z = ``norm.ppf(1 - (1 - ci) / 2)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
    ci : float in (0, 1) or None, default=None
        Confidence level of the Wilson interval of ``fraction_positive``, e.g. 0.95; None adds no
        interval columns.

    Returns
    -------
    DataFrame with n_subgroups * n_bins rows and columns ``subgroup, bin, bin_lower, bin_upper,
    count, mean_predicted, fraction_positive``; with `ci`, also ``fraction_positive_ci_low,
    fraction_positive_ci_high`` (NaN for an empty bin), and the level in ``attrs["ci"]``.

    Raises
    ------
    ValueError
        If a score is outside [0, 1], an option is invalid, or `ci` is not None or a level
        strictly between 0 and 1 (``CI_MESSAGE``).

    References
    ----------
    Guo et al. (2017), "On Calibration of Modern Neural Networks"; seed 001 (ExFairness
    Calibration); the bins of ``sklearn.calibration.calibration_curve`` (which puts a score on an
    inner edge in the lower bin). Wilson (1927), "Probable inference, the law of succession, and
    statistical inference", JASA 22(158).

    Examples
    --------
    A score of exactly 0.3 sits on the edge 3 / 10 and goes to bin 3, [0.3, 0.4):

    >>> table = reliability_diagram([1, 0], [0.3, 0.7], ["a", "a"], ci=0.95)
    >>> table.loc[table["count"] > 0, ["bin", "bin_lower", "count", "fraction_positive"]]
       bin  bin_lower  count  fraction_positive
    3    3        0.3      1                1.0
    7    7        0.7      1                0.0
    >>> round(float(table.loc[3, "fraction_positive_ci_low"]), 4)  # Wilson, 1 of 1
    0.2065
    """
    level = check_ci(ci, "reliability_diagram")
    return CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy,
                                     func="reliability_diagram").reliability_table(ci=level)


def calibration_errors(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform",
                       min_per_group: int = 5) -> pd.DataFrame:
    """Per-subgroup expected and maximum calibration error and Brier score.

    ECE = sum_b (n_b / n) * |fraction_positive_b - mean_predicted_b|; MCE = the largest such gap
    over non-empty bins; Brier = mean((y_prob - y_true) ** 2).

    Parameters
    ----------
    y_true, y_prob, subgroups, n_bins, strategy
        As in :func:`reliability_diagram`.
    min_per_group : int, default=5
        A subgroup with fewer rows gets NaN ECE and MCE with a note.

    Returns
    -------
    DataFrame, one row per subgroup: ``subgroup, size, n_positive, n_negative, small, ece, mce,
    brier_score, note``.
    """
    return CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy,
                                     func="calibration_errors").error_table(min_per_group=min_per_group)


def expected_calibration_error(y_true, y_prob, *, n_bins: int = 10, strategy: Strategy = "uniform") -> float:
    """Expected calibration error ECE = sum_b (n_b / n) * |fraction_positive_b - mean_predicted_b|.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'

    Returns
    -------
    float
        In [0, 1]; 0 is perfect calibration. NaN for no rows.

    References
    ----------
    Naeini et al. (2015); Guo et al. (2017); seed 001.

    Examples
    --------
    >>> expected_calibration_error([0, 1], [0.25, 0.75], n_bins=2)
    0.25
    """
    y = as_binary(y_true, "y_true", "expected_calibration_error")
    counts = CalibrationCounts.compute(y, y_prob, np.zeros(len(y)), n_bins=n_bins, strategy=strategy,
                                       func="expected_calibration_error")
    return float(_errors(counts.overall[None], 1)[0][0])


def maximum_calibration_error(y_true, y_prob, *, n_bins: int = 10, strategy: Strategy = "uniform") -> float:
    """Maximum calibration error MCE = max over non-empty bins of |fraction_positive_b - mean_predicted_b|.

    Parameters
    ----------
    y_true, y_prob, n_bins, strategy
        As in :func:`expected_calibration_error`.

    Returns
    -------
    float
        In [0, 1]; NaN for no rows.

    References
    ----------
    Naeini et al. (2015); seed 001.
    """
    y = as_binary(y_true, "y_true", "maximum_calibration_error")
    counts = CalibrationCounts.compute(y, y_prob, np.zeros(len(y)), n_bins=n_bins, strategy=strategy,
                                       func="maximum_calibration_error")
    return float(_errors(counts.overall[None], 1)[1][0])


def calibration_disparity(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform",
                          threshold: float = 0.1, min_per_group: int = 5, distance_measure: str = "diff",
                          reduction: Optional[str] = "max", reference: str = "rest", include_small: bool = False):
    """Disparity of the expected calibration error between subgroups, with a pass/fail verdict.

    Each subgroup's ECE is compared with its reference's ECE (for two groups and ``"diff"``:
    exactly |ECE_A - ECE_B|); the comparisons are reduced, and the result passes when the
    disparity is <= `threshold`.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
    threshold : float, default=0.1
        Largest acceptable disparity.
    min_per_group : int, default=5
        A side with fewer rows has an undefined ECE; its comparisons are left out (and counted).
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'} or None, default='max'
        None returns the comparison table with a ``passes`` column.
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    include_small : bool, default=False

    Returns
    -------
    CalibrationDisparityResult, or DataFrame when ``reduction=None``.

    Raises
    ------
    ValueError
        If a score is outside [0, 1] (a 1-10 risk score is not a probability) or an option is
        invalid.

    References
    ----------
    Pleiss et al. (2017), "On Fairness and Calibration"; Kleinberg et al. (2017); seed 001
    (ExFairness.Metrics.Calibration).
    """
    counts = CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy,
                                       func="calibration_disparity")
    return counts.disparity(threshold=threshold, min_per_group=min_per_group, distance_measure=distance_measure,
                            reduction=reduction, reference=reference, include_small=include_small)
