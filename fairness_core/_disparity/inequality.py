"""Theil indices of the benefit b = y_pred - y_true + 1 (Speicher et al. 2018), from confusion counts.

The benefit of a row depends only on its confusion cell: a false negative gets 0, a true negative
or true positive 1, a false positive 2. So every Theil index below is computed from the confusion
counts (TN, FP, FN, TP) of a ``ConfusionCounts``, never from the rows: with cell counts c and
cell benefits v = (1, 2, 0, 1), n = sum(c), mu = (c . v) / n and

    T = (1 / n) * sum over cells of c * (v / mu) * ln(v / mu),   with 0 * ln 0 = 0.

This module is what ``ConfusionCounts.theil_index`` (and the individual and between-group
methods) call; the public functions that take rows are in :mod:`fairness_core._metrics.theil`. It never imports the
count tables' module, so the two stay free of an import cycle.

Intervals (``ci=``) come from the stratified multinomial bootstrap of ``_stats.bootstrap``: the
confusion counts of every membership pattern are redrawn (subgroup sizes stay fixed), and every
Theil index is recomputed from the redrawn counts with a leading replicate axis. With sample weights
the bootstrap deals the rows with their weights into buckets (``Atoms.rows``), and each replicate's
sides weigh by their own sums of weights. A Theil index is
never below 0, so its interval cannot straddle parity; whether a comparison *excludes parity* is
decided on the signed difference of the two mean benefits (mu1 - mu2), which is 0 exactly when
the two-group index is 0 (see :func:`fairness_core.theil_index`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .._stats.bootstrap import check_boot_options, percentile_interval, replicate_stat
from .._data.checks import check_option
from .compare import (TABLE_COLUMNS, check_reference, comparison_columns, compared_values, finish_disparity,
                       reduce_disparities)
from .._stats.result import ValueResult

# Benefit of the confusion cells in the order of the count tables (TN, FP, FN, TP).
CELL_BENEFIT = np.array([1.0, 2.0, 0.0, 1.0])

DISTANCE_MESSAGE = (
    "The 'distance_measure' parameter of theil_index must be None: the Theil index of a two-group "
    "split is itself the disparity. Got {got!r} instead. Tip: leave distance_measure out."
)
OVERLAP_MESSAGE = (
    "{func} needs disjoint subgroups that cover every row (each row's benefit is replaced by the "
    "mean benefit of its one subgroup), but these subgroups may overlap or leave rows out "
    "(for example identity indicator columns, or several attributes with intersect=False). "
    "Tip: build them with Subgroups.from_attributes(data, columns, intersect=True), or pass the "
    "protected attribute columns themselves; theil_index(...) compares each subgroup with its "
    "background and works with overlapping subgroups."
)
NO_ROWS_NOTE = "mean benefit undefined: no rows"
ZERO_MEAN_NOTE = "Theil index undefined: the mean benefit is 0 (every row is a false negative)"


@dataclass(frozen=True)
class TheilResult(ValueResult):
    """A Theil index over all rows or between subgroups, with its bootstrap interval.

    Returned by :func:`individual_theil_index` and :func:`between_group_theil_index` (and the
    :class:`ConfusionCounts` methods of the same names) when ``ci`` is given; without ``ci`` they
    return the plain float, as before. ``float(result)`` is ``result.value``.

    Attributes
    ----------
    value : float
        The Theil index of the data (NaN where undefined, see ``note``).
    ci_low, ci_high : float
        Percentile interval of the bootstrap replicates, widened where needed to contain
        ``value`` (the plug-in index is biased upwards, so with little inequality the replicates
        can all lie above it). NaN when fewer than two replicates are defined.
    level : float
        Confidence level of the interval.
    n_boot : int
        Bootstrap replicates drawn.
    n_boot_undefined : int
        Replicates in which the index was undefined (mean benefit 0), left out of the interval.
    note : str
        Why ``value`` is NaN; empty otherwise.
    """

    value: float
    ci_low: float
    ci_high: float
    level: float
    n_boot: int
    n_boot_undefined: int
    note: str = ""


def _means(counts: np.ndarray) -> np.ndarray:
    """Mean benefit of counts of shape (..., 4), NaN where there are no rows (no notes)."""
    n = counts.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, (counts @ CELL_BENEFIT) / np.where(n > 0, n, 1), np.nan)


def mean_benefit(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean benefit of counts of shape (..., 4) -> (values, notes); NaN with a note when there are no rows."""
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(n > 0, (counts @ CELL_BENEFIT) / np.where(n > 0, n, 1), np.nan)
    notes = np.where(n > 0, "", NO_ROWS_NOTE).astype(object)
    return values, notes


def theil_of_counts(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Individual Theil index of the rows behind counts of shape (..., 4) -> (values, notes)."""
    from scipy.special import xlogy  # scipy on first use: import fairness_core stays light

    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum(axis=-1)
    mu, notes = mean_benefit(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = CELL_BENEFIT / mu[..., None]  # benefit / mean benefit of each cell
        values = (counts * xlogy(ratio, ratio)).sum(axis=-1) / n
    zero = (n > 0) & (mu == 0)
    values = np.where((n > 0) & ~zero, values, np.nan)
    notes = np.where(zero, ZERO_MEAN_NOTE, notes).astype(object)
    return values, notes


def between_group_theil(sizes: np.ndarray, means: np.ndarray, axis: int = -1) -> np.ndarray:
    """Between-group Theil index sum_g (n_g / n) (mu_g / mu) ln(mu_g / mu) along `axis`.

    `sizes` and `means` broadcast together; groups with no rows take no part; NaN when the
    overall mean benefit is 0 or undefined, or a non-empty group's mean is NaN.
    """
    from scipy.special import xlogy

    sizes = np.asarray(sizes, dtype=np.float64)
    means = np.asarray(means, dtype=np.float64)
    sizes, means = np.broadcast_arrays(sizes, means)
    present = sizes > 0
    means0 = np.where(present, means, 0.0)
    n = sizes.sum(axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = (sizes * means0).sum(axis=axis, keepdims=True) / n
        ratio = means0 / mu
        terms = np.where(present, (sizes / n) * xlogy(ratio, ratio), 0.0)
        out = terms.sum(axis=axis)
    undefined = (np.squeeze(mu, axis=axis) == 0) | (np.squeeze(n, axis=axis) == 0)
    undefined |= np.any(present & np.isnan(means), axis=axis)
    return np.where(undefined, np.nan, out)


def check_distance_measure(distance_measure) -> None:
    """Refuse any distance measure: the Theil index has none (Oracle AutoMLx raises too)."""
    if distance_measure is not None:
        raise ValueError(DISTANCE_MESSAGE.format(got=distance_measure))


def theil_comparison(counts, reference: str = "rest", func: str = "theil_index") -> pd.DataFrame:
    """The comparison table of the two-group Theil index (see :func:`theil_index`), from ConfusionCounts."""
    check_reference(reference, counts.names, func)
    values, notes = mean_benefit(counts.member)
    rest, rest_notes = mean_benefit(counts.background)
    overall, _ = mean_benefit(counts.overall)
    if getattr(counts, "weighted", False):
        # Sizes shown are effective sample sizes; the index weighs each side by its sum of weights.
        columns = comparison_columns(counts.names, counts.sizes, values, rest, counts.background_sizes,
                                     float(overall), counts.overall_size, counts.small, distance_measure="diff",
                                     reference=reference, func=func, notes=notes, rest_notes=rest_notes)
        two_sizes = np.column_stack(compared_values(counts.member.sum(axis=1), counts.background.sum(axis=1),
                                                    counts.overall.sum(), reference, counts.names)).astype(np.float64)
        two_sizes = two_sizes.reshape(-1, 2)
    else:
        sizes = counts.sizes.astype(np.int64)
        columns = comparison_columns(counts.names, sizes, values, rest,
                                     counts.background.sum(axis=1).astype(np.int64), float(overall),
                                     int(counts.overall.sum()), counts.small, distance_measure="diff",
                                     reference=reference, func=func, notes=notes, rest_notes=rest_notes)
        two_sizes = np.column_stack([columns["size"], columns["reference_size"]]).astype(np.float64)
    two_means = np.column_stack([columns["subgroup_value"], columns["reference_value"]]).astype(np.float64)
    theil = between_group_theil(two_sizes, two_means, axis=1) if len(two_sizes) else np.zeros(0)
    # A side without rows (its note says so) makes the comparison undefined, not a one-group 0.
    missing_side = np.isnan(two_means).any(axis=1)
    theil = np.where(missing_side, np.nan, theil)
    # Both means defined but the pooled mean is 0: both sides are all false negatives.
    zero = ~missing_side & np.isnan(theil)
    columns["disparity"] = theil
    columns["note"] = [("; ".join(p for p in (note, ZERO_MEAN_NOTE) if p) if z else note)
                       for note, z in zip(columns["note"], zero)]
    return pd.DataFrame(columns, columns=TABLE_COLUMNS)


def theil_replicates(atoms, names: list, reference: str, table: pd.DataFrame, n_boot: int, rng):
    """Bootstrap replicates of every comparison of a Theil comparison table.

    ``_disparity.compare.bootstrap_comparison`` derives a disparity from the two compared values alone; the
    two-group Theil index also needs the two group sizes, so this evaluates the same pieces
    (``replicate_stat`` over the atoms, ``compared_values`` for the row order) with its own statistic.

    Parameters
    ----------
    atoms : _bootstrap.Atoms
        Confusion counts per membership pattern (cells TN, FP, FN, TP).
    names : list of str
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name
    table : DataFrame
        From :func:`theil_comparison` (its rows are the comparisons).
    n_boot : int
    rng : numpy Generator

    Returns
    -------
    signed, theil, subgroup_mean, reference_mean : ndarray of shape (n_boot, n_comparisons)
        mu1 - mu2, the two-group Theil index, mu1 and mu2 of every replicate (NaN where
        undefined).
    """
    def stat(member, background, overall):
        a, b = compared_values(_means(member), _means(background), _means(overall), reference, names)
        # The two sides' rows (sums of weights with sample weights) in the replicate: fixed by the stratified
        # bootstrap, drawn with the rows by the bucket bootstrap (a weighted side's share of the weight varies).
        sizes = np.stack(compared_values(member.sum(-1), background.sum(-1), overall.sum(-1), reference, names), -1)
        theil = between_group_theil(sizes, np.stack([a, b], axis=-1), axis=-1)
        theil = np.where(np.isnan(a) | np.isnan(b), np.nan, theil)
        return np.stack([a - b, theil, a, b], axis=1)

    out = replicate_stat(atoms, stat, n_boot, rng)
    return out[:, 0], out[:, 1], out[:, 2], out[:, 3]


def _mean_intervals(table: pd.DataFrame, a: np.ndarray, b: np.ndarray, level: float) -> pd.DataFrame:
    """Percentile intervals of the two mean benefits, beside their values."""
    table = table.copy()
    for side, samples in (("subgroup_value", a), ("reference_value", b)):
        low, high, _ = percentile_interval(samples, level)
        at = table.columns.get_loc(side) + 1
        table.insert(at, f"{side}_ci_low", low)
        table.insert(at + 1, f"{side}_ci_high", high)
    return table


def theil_disparity(counts, *, reduction: Optional[str] = "mean", reference: str = "rest",
                    include_small: bool = False, ci=None, n_boot: int = 1000, random_state=0,
                    adjust: Optional[str] = None, func: str = "theil_index"):
    """Reduced (or tabulated) two-group Theil indices from ConfusionCounts, with intervals when `ci` is set."""
    check_option(reduction, ("max", "mean", None), "reduction", func)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    table = theil_comparison(counts, reference, func)
    if level is None:
        if reduction is None:
            return table
        return reduce_disparities(table, reduction, distance_measure=None, reference=reference,
                                  include_small=include_small, func=func)
    signed, theil, a, b = theil_replicates(counts._atoms(func), counts.names, reference, table, n_boot, rng)
    table = _mean_intervals(table, a, b, level)
    # distance_measure None: parity is 0 for both the signed difference of means and the index.
    return finish_disparity(table, signed, theil, distance_measure=None, reduction=reduction, reference=reference,
                            include_small=include_small, level=level, n_boot=n_boot, adjust=adjust, func=func)


def interval_result(value: float, replicates: np.ndarray, level: float, n_boot: int, note: str = "") -> TheilResult:
    """A :class:`TheilResult` from the estimate and its replicates (shape (n_boot,)).

    The percentile interval is widened where needed to contain a defined `value`.
    """
    low, high, undefined = percentile_interval(np.asarray(replicates, dtype=np.float64)[:, None], level)
    low, high = float(low[0]), float(high[0])
    if not np.isnan(value):
        low, high = float(np.fmin(low, value)), float(np.fmax(high, value))
    return TheilResult(value=float(value), ci_low=low, ci_high=high, level=level, n_boot=n_boot,
                       n_boot_undefined=int(undefined[0]), note=note)


def individual_theil_of(counts, *, ci=None, n_boot: int = 1000, random_state=0,
                        func: str = "individual_theil_index"):
    """Individual Theil index of ConfusionCounts (float), or with `ci` a :class:`TheilResult`.

    The bootstrap redraws the confusion counts of every membership pattern of ``counts.atoms``.
    """
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    values, notes = theil_of_counts(counts.overall)
    if level is None:
        return float(values)
    if counts.overall.sum() == 0:
        return TheilResult(float("nan"), float("nan"), float("nan"), level, n_boot, n_boot, str(notes))
    replicates = replicate_stat(counts._atoms(func), lambda m, b, o: theil_of_counts(o)[0], n_boot, rng)
    return interval_result(float(values), replicates, level, n_boot, str(notes))


def between_group_theil_of(counts, *, ci=None, n_boot: int = 1000, random_state=0,
                           func: str = "between_group_theil_index"):
    """Between-group Theil index of disjoint ConfusionCounts (float), or with `ci` a :class:`TheilResult`.

    Raises ValueError (``OVERLAP_MESSAGE``) unless the subgroups are disjoint and cover every row.
    """
    weighted = getattr(counts, "weighted", False)
    covered = (np.isclose(counts.member.sum(), counts.overall.sum(), rtol=1e-9, atol=0.0) if weighted
               else counts.member.sum() == counts.overall.sum())   # sums of weights: equal up to rounding
    if not counts.disjoint or not covered:
        raise ValueError(OVERLAP_MESSAGE.format(func=func))
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    # Each subgroup's share: its rows, or with sample weights its sum of weights.
    sizes = counts.member.sum(axis=1) if weighted else counts.sizes
    value = float(between_group_theil(sizes, _means(counts.member)))
    if level is None:
        return value
    note = ("" if not np.isnan(value) else NO_ROWS_NOTE if counts.overall.sum() == 0 else ZERO_MEAN_NOTE)
    if counts.overall.sum() == 0:
        return TheilResult(value, float("nan"), float("nan"), level, n_boot, n_boot, note)
    # Each subgroup's share in the replicate: fixed by the stratified bootstrap (a pattern is one subgroup), drawn
    # with the rows by the bucket bootstrap (a subgroup's share of the weight varies).
    replicates = replicate_stat(counts._atoms(func), lambda m, b, o: between_group_theil(m.sum(-1), _means(m)),
                                n_boot, rng)
    return interval_result(value, replicates, level, n_boot, note)
