"""Smoothed empirical differential fairness (Foulds et al.): the largest log ratio of smoothed base rates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .._counts.confusion import CONFUSION_NO_ATOMS_MESSAGE
from .._counts.weights import check_sample_weight, effective_size
from .._data.checks import as_binary
from .._stats.bootstrap import Atoms, check_boot_options, percentile_interval, replicate_stat
from .._subgroups.subgroups import as_subgroups
from .._stats.result import ValueResult


EDF_OVERLAP_COUNTS_MESSAGE = (
    "The smoothed EDF compares disjoint subgroups (the intersections of the protected attributes), but these "
    "overlap (identity columns). Tip: map categorical protected attributes instead of identity columns."
)
EDF_OVERLAP_MESSAGE = (
    "smoothed_edf needs disjoint subgroups (each row in at most one subgroup: epsilon compares the "
    "outcome rates of separate groups of people, the intersections of Foulds et al.), but some rows "
    "are in more than one subgroup ({n_rows:,} in all; the first is in both {first!r} and {second!r}). "
    "Identity indicator columns, or several attributes with intersect=False, overlap like this. "
    "Tip: build them with "
    "Subgroups.from_attributes(data, columns, intersect=True), or pass the protected attribute columns "
    "themselves; dataset_statistical_parity(...) compares each subgroup with its background and works "
    "with overlapping subgroups."
)
CONCENTRATION_TYPE_MESSAGE = (
    "The 'concentration' parameter of smoothed_edf must be a number. Got {got!r} (a {type}) instead."
)
CONCENTRATION_MESSAGE = (
    "The 'concentration' parameter of smoothed_edf must be a finite number > 0. Got {got!r} instead. "
    "Tip: 1.0 (the default) adds half a pseudo-count to each outcome of every subgroup."
)


# --------------------------------------------------------------------------------------------
# Smoothed empirical differential fairness
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SmoothedEdfResult(ValueResult):
    """Smoothed empirical differential fairness (EDF) of the labels, and the pair that attains it.

    Attributes
    ----------
    value : float
        epsilon, the largest |ln s_i(y) - ln s_j(y)| over pairs of usable subgroups and both
        outcomes (perfect 0); NaN (see `reason`) with fewer than two usable subgroups.
    pair : tuple of (str, str) or None
        The two subgroups attaining it: (higher smoothed rate of `outcome`, lower).
    outcome : int or None
        The label value whose rates differ most: 1 (positive) or 0 (negative).
    table : DataFrame
        One row per subgroup: ``subgroup, size, n_positive, n_negative, smoothed_positive_rate,
        smoothed_negative_rate, small, used, note``; with intervals, each smoothed rate is
        followed by ``<rate>_ci_low, <rate>_ci_high`` and ``attrs["ci"]`` holds the level.
    concentration : float
    n_used : int
        Subgroups that took part (observed, and not small unless included).
    reason : str
        Why `value` is NaN; empty otherwise.
    ci_low, ci_high : float
        Percentile bootstrap interval of `value` (NaN unless an interval was asked for, or when
        `value` is NaN).
    level : float or None
        Confidence level of the intervals (None: no intervals).
    n_boot : int
        Bootstrap replicates drawn (0: none).
    n_boot_undefined : int
        Replicates in which epsilon was undefined (left out of the interval). The subgroup sizes
        are fixed by the stratified bootstrap and the smoothed rates are never 0, so this is 0
        whenever `value` is defined.
    """

    value: float
    pair: Optional[tuple]
    outcome: Optional[int]
    table: pd.DataFrame
    concentration: float
    n_used: int
    reason: str
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    level: Optional[float] = None
    n_boot: int = 0
    n_boot_undefined: int = 0


def _smoothed(member: np.ndarray, alpha: float) -> np.ndarray:
    """Smoothed outcome rates (..., k, 2) from label counts of shape (..., k, 2); leading axes kept."""
    return (member + alpha) / (member.sum(axis=-1, keepdims=True) + 2.0 * alpha)


def _epsilon(smoothed: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Epsilon (...) from smoothed rates (..., k, 2): the larger over the two outcomes of max - min of
    the log rates of the `used` subgroups (at least one)."""
    logs = np.log(smoothed[..., used, :])
    return (logs.max(axis=-2) - logs.min(axis=-2)).max(axis=-1)


def smoothed_edf(y_true, subgroups, *, concentration: float = 1.0, include_small: bool = False,
                 ci: Optional[float] = None, n_boot: int = 1000, random_state=0,
                 sample_weight=None) -> SmoothedEdfResult:
    """Smoothed empirical differential fairness of the labels (Foulds et al. 2020).

    Each subgroup's outcome rates are smoothed with a symmetric Dirichlet prior of total
    `concentration` (alpha = concentration / 2 per outcome):

        s_g(1) = (positives_g + alpha) / (n_g + 2 alpha),   s_g(0) = (negatives_g + alpha) / (n_g + 2 alpha)
        epsilon = max over pairs (i, j) of usable subgroups and y in {0, 1} of |ln s_i(y) - ln s_j(y)|

    computed per outcome as max - min of the log rates. The labels are epsilon-differentially
    fair: every subgroup's outcome probabilities are within a factor exp(epsilon) of every
    other's (perfect 0).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes, n_samples rows
        Attributes mean their observed value combinations (the intersections Foulds et al. use),
        nothing flagged small (min_size=1). The subgroups must be disjoint: no row may belong to
        two of them. Rows in no subgroup (a missing indicator value) take no part.
    concentration : float, default=1.0
        Total pseudo-count of the prior, > 0.
    include_small : bool, default=False
        Whether small subgroups take part. Subgroups with no rows never do.
    ci : float in (0, 1) or None, default=None
        Confidence level of intervals (e.g. 0.95); None computes none. Percentile intervals of
        a stratified multinomial bootstrap of the (subgroup, label) counts: each subgroup keeps
        its number of rows and its positive count is redrawn from Binomial(n_g, positives_g /
        n_g), exactly a resample of rows within each subgroup, so a tiny subgroup is never
        resampled away. Epsilon and both smoothed rates of every subgroup with rows get an
        interval. Epsilon is a maximum, whose bootstrap distribution is biased upwards, so its
        interval is widened where needed to contain the estimate. A subgroup whose labels are
        all one value has a zero-width rate interval (a resample cannot draw the other label);
        its size says how little that means.
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row: positives_g and n_g become sums of weights (frequency
        weights: the pseudo-count alpha is in the units of the weights, so integer weights give the
        value of the repeated rows), ``size`` and the small flags Kish's effective sample size
        (sum w)^2 / sum w^2. With `ci`, the percentile intervals of a bootstrap that deals the rows
        with their weights into buckets (``_stats.bootstrap.BucketSplit.of_rows``; a subgroup's sum
        of weights then varies between replicates, as in a bootstrap of rows).

    Returns
    -------
    SmoothedEdfResult
        With `ci`: ``ci_low, ci_high, level, n_boot, n_boot_undefined``, and in ``table``
        ``smoothed_positive_rate_ci_low/high`` and ``smoothed_negative_rate_ci_low/high``
        (NaN for a subgroup without rows).

    Raises
    ------
    ValueError
        For non-binary labels, different lengths, a `concentration` that is not finite and
        > 0 (``CONCENTRATION_MESSAGE``), subgroups that overlap, such as identity indicator
        columns (``EDF_OVERLAP_MESSAGE``), or an invalid `ci`, `n_boot` or `random_state`.
    TypeError
        If `concentration` is not a number (``CONCENTRATION_TYPE_MESSAGE``).

    Notes
    -----
    Oracle AutoMLx's prose describes a subgroup compared "to the rest of the population"; Foulds et al.
    define epsilon over pairs of subgroups, which is what is computed.
    Foulds et al.'s groups are the intersections of the protected attributes, which partition the
    people; overlapping subgroups (a row both "female" and "black" as separate indicator columns)
    have no such meaning and are refused rather than compared silently.

    References
    ----------
    Foulds, Islam, Keya and Pan (2020), "An Intersectional Definition of Fairness", ICDE;
    Oracle AutoMLx, ``smoothed_edf``. Efron & Tibshirani (1993), "An Introduction to
    the Bootstrap" (percentile intervals).

    Examples
    --------
    >>> result = smoothed_edf([1, 1, 1, 0, 1, 0, 0, 0], ["a"] * 4 + ["b"] * 4)
    >>> round(result.value, 6), result.pair, result.outcome  # ln((3.5 / 5) / (1.5 / 5))
    (0.847298, ('a', 'b'), 1)
    >>> r = smoothed_edf([1, 1, 1, 0, 1, 0, 0, 0] * 10, (["a"] * 4 + ["b"] * 4) * 10, ci=0.95)
    >>> r.ci_low <= r.value <= r.ci_high, r.n_boot, r.n_boot_undefined
    (True, 1000, 0)
    """
    func = "smoothed_edf"
    _check_concentration(concentration)
    concentration = float(concentration)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    y = as_binary(y_true, "y_true", func)
    w = check_sample_weight(sample_weight, len(y), func)
    groups = as_subgroups(subgroups, len(y), func)
    if groups.codes is None:  # disjoint unless a row is a member of two subgroups
        shared = groups.membership.sum(axis=1) > 1
        if shared.any():
            first, second = np.flatnonzero(groups.membership[shared.argmax()])[:2]
            raise ValueError(EDF_OVERLAP_MESSAGE.format(n_rows=int(shared.sum()), first=groups.names[first],
                                                        second=groups.names[second]))
    if w is not None:   # sums of weights per (subgroup, label), effective sample sizes
        member = groups.crosstab(y.astype(np.intp), 2, w)[0]
        squares = groups.crosstab(y.astype(np.intp), 2, w * w)[0]
        draws = None
        if level is not None:   # the rows with their weights, dealt into buckets
            codes, masks, background = groups.patterns
            sums = np.bincount(codes * 2 + y, weights=w, minlength=2 * masks.shape[0]).reshape(-1, 2)
            atoms = Atoms(sums, masks, background, rows=(codes, y.astype(np.intp), w))
            draws = replicate_stat(atoms, lambda m, b, o: m, n_boot, rng)
        return _edf_of(list(groups.names), member, groups.min_size, concentration, include_small, level, draws,
                       sizes=effective_size(member.sum(axis=1), squares.sum(axis=1)))
    draws = None
    if level is not None:
        atoms = Atoms.of(groups, y.astype(np.intp), 2)
        member = atoms.tables()[0]
        # Every replicate's (subgroup, label) counts at once: shape (n_boot, n_subgroups, 2).
        draws = (replicate_stat(atoms, lambda m, b, o: m, n_boot, rng) if atoms.counts.size
                 else np.zeros((n_boot, len(groups.names), 2)))
    else:
        member = groups.crosstab(y.astype(np.intp), 2)[0]
    return _edf_of(list(groups.names), member, groups.min_size, concentration, include_small, level, draws)


def smoothed_edf_from_counts(label_counts, *, concentration: float = 1.0, include_small: bool = False, ci=None,
                             n_boot: int = 1000, random_state=0) -> "SmoothedEdfResult":
    """:func:`smoothed_edf` from the labels' count table instead of the rows.

    Parameters
    ----------
    label_counts : ConfusionCounts
        The labels counted against themselves (``confusion_counts(y_true, y_true, subgroups)`` or
        ``fairness_core.engines.ScoredCounts.label_counts()``) of disjoint subgroups.
    concentration, include_small
        As :func:`smoothed_edf`.
    ci, n_boot, random_state
        As :func:`smoothed_edf`: the bootstrap resamples the counts' atoms (negatives and positives
        per membership pattern), so `label_counts` must hold them (``confusion_counts`` or an
        engine's ``ScoredCounts.with_atoms()``); weighted counts' atoms keep their rows, which the
        bootstrap deals with their weights into buckets.

    Returns
    -------
    SmoothedEdfResult
        Equal to ``smoothed_edf(y_true, subgroups, ...)`` on the same rows (with `ci` and the same
        seed, the same intervals).

    Raises
    ------
    ValueError
        For overlapping subgroups (``EDF_OVERLAP_MESSAGE``: the counts cannot say which rows are
        shared), a bad `concentration`, counts that are not the labels against themselves, bad
        bootstrap options, or `ci` with counts that hold no atoms.
    TypeError
        If `concentration` is not a number.
    """
    func = "smoothed_edf_from_counts"
    _check_concentration(concentration)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    weighted = getattr(label_counts, "weighted", False)
    if not label_counts.disjoint:
        raise ValueError(EDF_OVERLAP_COUNTS_MESSAGE)
    member = np.asarray(label_counts.member, dtype=np.float64)
    if np.any(member[:, [1, 2]] != 0):
        raise ValueError("smoothed_edf_from_counts needs the labels counted against themselves (no FP or FN). "
                         "Tip: pass confusion_counts(y_true, y_true, subgroups).")
    draws = None
    if level is not None:
        if label_counts.atoms is None:
            raise ValueError(CONFUSION_NO_ATOMS_MESSAGE.format(func=func))
        counts = label_counts.atoms
        rows = None if counts.rows is None else (counts.rows[0], counts.rows[1] // 3, counts.rows[2])   # TN 0, TP 1
        atoms = Atoms(counts.counts[:, [0, 3]], counts.member, counts.background, rows=rows)   # negatives, positives
        draws = (replicate_stat(atoms, lambda m, b, o: m, n_boot, rng) if atoms.counts.size
                 else np.zeros((n_boot, len(label_counts.names), 2)))
    return _edf_of(list(label_counts.names), member[:, [0, 3]], label_counts.min_size, float(concentration),
                   include_small, level, draws, sizes=label_counts.sizes if weighted else None)


def _check_concentration(concentration) -> None:
    if isinstance(concentration, bool) or not isinstance(concentration, (int, float, np.integer, np.floating)):
        raise TypeError(CONCENTRATION_TYPE_MESSAGE.format(got=concentration, type=type(concentration).__name__))
    if not np.isfinite(concentration) or concentration <= 0:
        raise ValueError(CONCENTRATION_MESSAGE.format(got=concentration))


def _edf_of(names: list, member: np.ndarray, min_size: int, concentration: float, include_small: bool,
            level: Optional[float], draws: Optional[np.ndarray], sizes: Optional[np.ndarray] = None) -> "SmoothedEdfResult":
    """The smoothed EDF of negatives and positives per subgroup `member` (k, 2); with `level`, percentile
    intervals from the bootstrap replicates `draws` (n_boot, k, 2). `sizes`: with sample weights (`member`
    then holds sums of weights), the effective sample sizes shown and flagged small."""
    alpha = concentration / 2.0
    weighted = sizes is not None
    sizes = member.sum(axis=1) if sizes is None else np.asarray(sizes, dtype=np.float64)
    small = sizes < min_size
    smoothed = _smoothed(member, alpha)  # columns: outcome 0, outcome 1
    used = (sizes > 0) & (include_small | ~small)
    note = np.where(sizes == 0, "no rows: not used",
                    np.where(used, "", "small: not used (fewer rows than the minimum size)")).astype(object)
    n_used = int(used.sum())
    interval, eps_reps, bounds = {}, None, None
    if level is not None:
        n_boot = len(draws)
        rate_reps = _smoothed(draws, alpha)
        bounds = [np.where((sizes == 0)[:, None], np.nan, x) for x in percentile_interval(rate_reps, level)[:2]]
        eps_reps = _epsilon(rate_reps, used) if n_used >= 2 else None
        interval = {"level": level, "n_boot": n_boot, "n_boot_undefined": n_boot if eps_reps is None else 0}
    as_count = (lambda a: a) if weighted else (lambda a: a.astype(np.int64))
    columns = {
        "subgroup": names, "size": as_count(sizes),
        "n_positive": as_count(member[:, 1]), "n_negative": as_count(member[:, 0]),
    }
    for outcome, name in ((1, "smoothed_positive_rate"), (0, "smoothed_negative_rate")):
        columns[name] = smoothed[:, outcome]
        if bounds is not None:
            columns[f"{name}_ci_low"], columns[f"{name}_ci_high"] = bounds[0][:, outcome], bounds[1][:, outcome]
    table = pd.DataFrame({**columns, "small": small, "used": used, "note": note})
    if level is not None:
        table.attrs["ci"] = level
    if n_used < 2:
        return SmoothedEdfResult(value=float("nan"), pair=None, outcome=None, table=table,
                                 concentration=concentration, n_used=n_used,
                                 reason=f"fewer than two usable subgroups ({n_used}); subgroups need rows, "
                                        f"and small ones take part only with include_small=True", **interval)
    index = np.flatnonzero(used)
    logs = np.log(smoothed[index])  # (n_used, 2)
    hi, lo = logs.argmax(axis=0), logs.argmin(axis=0)
    spread = logs[hi, [0, 1]] - logs[lo, [0, 1]]
    y = 1 if spread[1] >= spread[0] else 0  # the positive outcome wins a tie
    first, second = (hi[y], lo[y]) if hi[y] != lo[y] else (0, 1)  # all rates equal: any pair attains 0
    value = float(spread[y])
    if eps_reps is not None:
        e_low, e_high, e_undefined = percentile_interval(eps_reps[:, None], level)
        interval.update(ci_low=float(min(e_low[0], value)), ci_high=float(max(e_high[0], value)),
                        n_boot_undefined=int(e_undefined[0]))
    return SmoothedEdfResult(value=value, pair=(names[index[first]], names[index[second]]), outcome=y,
                             table=table, concentration=concentration, n_used=n_used, reason="", **interval)
