# More than 500 lines: one concept (calibration errors of given counts and their disparity), unweighted and weighted.
"""Calibration errors of calibration counts: ECE, ℓ2 ECE, MCE and Brier per subgroup, the calibration disparity
and its verdict.

Every function here reads a ``CalibrationCounts`` (per-(subgroup, bin) count, sum of y_prob, sum of
y_true and sum of squared errors) and never the rows: ECE = sum_b |sum_y_b - sum_p_b| / n, the debiased squared
calibration error of Kumar, Liang & Ma (2019) and its square root (the ℓ2 ECE), MCE the largest per-bin gap,
Brier = sum of squared errors / n. ``CalibrationCounts.error_table`` and
``.disparity`` call these functions; the public functions that take rows are in
:mod:`fairness_core._metrics.calibration`. This module never imports the count tables' module (no import cycle).
"""

from __future__ import annotations

import copy
import dataclasses
import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .._stats.bootstrap import check_boot_options, percentile_interval, replicate_stat
from .._data.checks import check_int, check_option
from .compare import (ALONE_NOTE, DISTANCES, DisparityResult, add_intervals, bootstrap_comparison, check_reference,
                       comparison_columns, comparison_index, compared_values, reduce_disparities, reduced_interval)
from .._policy.defaults import DEFAULT_RULES
from .._policy.rules import BOUND_RTOL, Rule
from .._policy.verdicts import Verdict, _rows_text, evaluate, evaluate_result
from .._stats.result import ValueResult

ERROR_COLUMNS = ("ece", "mce", "brier_score")
# The default calibration rule (ExFairness's 0.1): a bound on a *difference* of ECEs.
DEFAULT_RULE = next(r for r in DEFAULT_RULES if r.metric == "calibration_disparity")

THRESHOLD_MESSAGE = (
    "The 'threshold' parameter of {func} is a bound in the units of distance_measure={distance!r} "
    "({units}), so it must be None or {expected}. Got {got!r} instead. Tip: {tip}"
)
_THRESHOLD_UNITS = {
    "diff": ("a difference of ECEs", "a number in [0, 1]",
             "a ratio bound (>= 1) applies with distance_measure='ratio'."),
    "ratio": ("a ratio of ECEs, larger / smaller, so 1 is parity", "a finite number >= 1",
              "a difference bound such as 0.1 applies with distance_measure='diff'; a ratio is never "
              "judged against a difference bound."),
}
NO_RATIO_INTERVAL_NOTE = (
    "no interval is given for a ratio of ECEs: each plug-in ECE lies above its truth by its bins' noise (a "
    "calibrated group's never reaches 0), and the bootstrap interval of their ratio covered 0-92 % where it claimed "
    "95 % in the coverage benchmark; the difference (excess ℓ2 ECE) has an interval that covers"
)
NO_RATIO_RULE_NOTE = (
    "no policy bound applies to a ratio of ECEs by default (the calibration rule's 0.1 bounds a "
    "difference of ECEs); give a threshold >= 1 to assess the ratio"
)


def error_table_of(counts, *, min_per_group: int = 5, ci: Optional[float] = None, n_boot: int = 1000,
                   random_state=0) -> pd.DataFrame:
    """Per-subgroup ECE, ℓ2 ECE, MCE and Brier score of a ``CalibrationCounts``; see ``CalibrationCounts.error_table``."""
    func = "calibration_errors"
    min_per_group = check_int(min_per_group, 1, "min_per_group", func)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    table = error_frame(counts, min_per_group)
    if level is None:
        return table
    gate, ratio = _replicate_gate(counts, min_per_group), _ratios(counts)[0]
    null_rng = copy.deepcopy(rng)   # the same draws as calibration_disparity's errors table
    samples = replicate_stat(counts._calibration_atoms(func), lambda m, b, o: np.stack(
        [*_error_values(m, gate), *squared_errors(m, gate, ratio)], axis=-1), n_boot, rng)
    return _with_error_intervals(table, samples, level, n_boot, *_member_squared(counts, min_per_group)[1:],
                                 low=_calibrated_lows(counts, min_per_group, level, null_rng, n_boot,
                                                      [(samples[:, :, 3], samples[:, :, 5])])[0])


def error_frame(counts, min_per_group: int) -> pd.DataFrame:
    """Per-subgroup ECE, MCE and Brier score (no intervals) of a ``CalibrationCounts``.

    With sample weights the counts are sums of weights, ``size`` the effective sample size, and
    `min_per_group` is compared with the effective size."""
    sizes = counts.sizes
    small, reasons = counts._small()
    weighted = _weighted(counts)
    ece, mce, brier, note = _errors(counts.member, min_per_group, sizes if weighted else None)
    squared = _member_squared(counts, min_per_group)[0]
    positive = counts.member[:, 2, :].sum(axis=1)
    mass = counts.member[:, 0, :].sum(axis=1)
    if not weighted:
        sizes, positive, mass = sizes.astype(np.int64), positive.astype(np.int64), mass.astype(np.int64)
    return pd.DataFrame({
        "subgroup": counts.names, "size": sizes, "n_positive": positive, "n_negative": mass - positive,
        "small": small, "small_reason": reasons, "ece": ece, "l2_ece": l2_scale(squared), "squared_ce": squared,
        "mce": mce, "brier_score": brier, "note": note,
    })


def ece_comparison(counts, min_per_group: int, distance_measure: str, reference: str, func: str) -> pd.DataFrame:
    """The ECE comparison table (``compare``'s columns and ``small_reason``; effective sizes with weights)."""
    small, reasons = counts._small()
    if _weighted(counts):
        ece, _, _, note = _errors(counts.member, min_per_group, counts.sizes)
        rest_ece, _, _, rest_note = _errors(counts.background, min_per_group, counts.background_sizes)
        overall_ece = _errors(counts.overall[None], min_per_group, np.array([counts.overall_size]))[0][0]
        columns = comparison_columns(counts.names, counts.sizes, ece, rest_ece, counts.background_sizes,
                                     overall_ece, counts.overall_size, small, distance_measure=distance_measure,
                                     reference=reference, func=func, notes=note, rest_notes=rest_note)
    else:
        ece, _, _, note = _errors(counts.member, min_per_group)
        rest_ece, _, _, rest_note = _errors(counts.background, min_per_group)
        overall_ece = _errors(counts.overall[None], min_per_group)[0][0]
        columns = comparison_columns(counts.names, counts.sizes.astype(np.int64), ece, rest_ece,
                                     counts.background[:, 0, :].sum(axis=1).astype(np.int64), overall_ece,
                                     int(counts.overall[0].sum()), small, distance_measure=distance_measure,
                                     reference=reference, func=func, notes=note, rest_notes=rest_note)
    i, j = comparison_index(reference, counts.names)
    ref_reasons = np.full(len(i), "", dtype=object) if j is None else reasons[j]
    columns["small_reason"] = ["; ".join(p for p in (own, f"{ref}: {other}" if other else "") if p)
                               for own, ref, other in zip(reasons[i], columns["reference"], ref_reasons)]
    return pd.DataFrame(columns)


def calibration_disparity_of(counts, *, threshold: Optional[float] = None, min_per_group: int = 5,
                             distance_measure: str = "diff", reduction: Optional[str] = "max", reference: str = "rest",
                             include_small: bool = False, ci: Optional[float] = None, n_boot: int = 1000,
                             random_state=0, adjust: Optional[str] = None, debias: bool = True):
    """ECE disparity of a ``CalibrationCounts``, with intervals and the verdict; see ``calibration_disparity``."""
    func = "calibration_disparity"
    check_option(reduction, ("max", "mean", None), "reduction", func)
    check_option(distance_measure, DISTANCES, "distance_measure", func)
    check_reference(reference, counts.names, func)
    min_per_group = check_int(min_per_group, 1, "min_per_group", func)
    rule = calibration_rule(distance_measure, threshold, func)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    debias = bool(debias) and distance_measure == "diff"
    table = ece_comparison(counts, min_per_group, distance_measure, reference, func)
    errors = error_frame(counts, min_per_group)
    ratios = _ratios(counts)
    if debias:
        # The debiased squared calibration errors (Kumar, Liang & Ma 2019) of the subgroups, their backgrounds and
        # all rows: unbiased whatever the true miscalibration. The comparison is their difference, shown on the
        # scale of a calibration error as the excess ℓ2 ECE sign(d) sqrt(|d|); the values are the ℓ2 ECEs.
        sides = _squared_sides(counts, min_per_group)
        squared, plug_ins, variances = ([side[q] for side in sides] for q in range(3))
        a_sq, b_sq = compared_values(*squared, reference, counts.names)
        table = _on_l2_scale(table, squared, a_sq, b_sq, reference, counts.names)
    table.attrs["debiased"] = debias
    if level is not None:
        captured = []
        gate = _replicate_gate(counts, min_per_group)
        null_rng = copy.deepcopy(rng)   # the same draws as error_table's

        def values(member, background, overall):
            # Every error of the subgroups is kept (for the errors table's intervals) and the compared values of
            # the subgroups, backgrounds and all rows go on to the comparisons: one bootstrap for both.
            errs = np.stack([*_error_values(member, gate), *squared_errors(member, gate, ratios[0])], axis=-1)
            if not debias:
                rest = _error_values(background, gate)[0]
                whole = _error_values(overall[..., None, :, :], gate)[0][..., 0]
                captured.append((errs, rest, whole))
                return errs[..., 0], rest, whole
            rest = np.stack(squared_errors(background, gate, ratios[1]), axis=-1)
            whole = np.stack(squared_errors(overall[..., None, :, :], gate, ratios[2]), axis=-1)[..., 0, :]
            captured.append((errs, rest, whole))
            return errs[..., 3], rest[..., 0], whole[..., 0]   # the comparisons are made below, on the pivots

        signed, disparity = bootstrap_comparison(counts._calibration_atoms(func), counts.names, reference, values,
                                                 distance_measure=distance_measure, n_boot=n_boot, rng=rng)
        errs, rest, whole = (np.concatenate(parts) for parts in zip(*captured))
        lows = _calibrated_lows(counts, min_per_group, level, null_rng, n_boot, [(errs[..., 3], errs[..., 5])] + (
            [(rest[..., 0], rest[..., 2]), (whole[..., 0:1], whole[..., 2:3])] if debias else []))
        errors = _with_error_intervals(errors, errs, level, n_boot, *_member_squared(counts, min_per_group)[1:],
                                       low=lows[0])
        if debias:
            # The studentized bootstrap (:func:`studentized`) of each side and of each difference: a difference's
            # variance is the sum of its sides' (a subgroup and its background share no row; against all rows or
            # an overlapping subgroup, their covariance is left out, which widens the interval).
            def compared(x):
                return compared_values(*x, reference, counts.names)
            a_var, b_var = compared(variances)
            a_plug, b_plug = compared(plug_ins)
            a_rep, b_rep = compared((errs[..., 3], rest[..., 0], whole[..., 0]))
            a_rep_var, b_rep_var = compared((errs[..., 5], rest[..., 2], whole[..., 2]))
            a_low, b_low = compared(lows)
            signed = excess(studentized(a_sq - b_sq, a_var + b_var, a_rep - b_rep, a_rep_var + b_rep_var,
                                        a_plug - b_plug))
            disparity = np.abs(signed)
            for side, parts in (("subgroup_value", (a_sq, a_var, a_rep, a_rep_var, a_plug, a_low)),
                                ("reference_value", (b_sq, b_var, b_rep, b_rep_var, b_plug, b_low))):
                low, high, _ = _studentized_interval(*parts[:5], level, low=parts[5])
                at = table.columns.get_loc(side) + 1
                table.insert(at, f"{side}_ci_low", l2_scale(low))
                table.insert(at + 1, f"{side}_ci_high", l2_scale(high))
        else:
            a, b = compared_values(errs[..., 0], rest, whole, reference, counts.names)
            for side, samples in (("subgroup_value", a), ("reference_value", b)):
                low, high, _ = _value_interval(samples, table[side].to_numpy(dtype=np.float64), level)
                at = table.columns.get_loc(side) + 1
                table.insert(at, f"{side}_ci_low", low)
                table.insert(at + 1, f"{side}_ci_high", high)
        plain = table
        table = add_intervals(plain, signed, disparity, distance_measure=distance_measure, level=level,
                              adjust=adjust, func=func)
        if distance_measure == "ratio":
            table = _without_interval(table)
    table = _with_verdicts(table, rule, distance_measure, level)
    if reduction is None:
        return table
    result = reduce_disparities(table, reduction, distance_measure=distance_measure, reference=reference,
                                include_small=include_small, func=func)
    if level is not None:
        result = reduced_interval(result, table, plain, signed, disparity, distance_measure=distance_measure,
                                  include_small=include_small, level=level, n_boot=n_boot, func=func)
        if distance_measure == "ratio":
            result = dataclasses.replace(result, ci_low=np.nan, ci_high=np.nan)
    verdict = None if rule is None else evaluate_result(rule, result)
    passes = None if verdict is None else {"pass": True, "fail": False}.get(verdict.status)
    return CalibrationDisparityResult(
        value=result.value, passes=passes, threshold=None if rule is None else rule.bound, n_bins=counts.n_bins,
        strategy=counts.strategy, interpretation=_interpret(result, verdict, min_per_group, distance_measure, debias,
                                 weighted=_weighted(counts)),
        errors=errors, disparity=result, rule=rule, verdict=verdict, debiased=debias)


def _without_interval(table: pd.DataFrame) -> pd.DataFrame:
    """A ratio-of-ECEs comparison table with its interval columns blanked (NaN, no p-value, ``excludes_parity``
    missing; the sides' plug-in ECEs have none either, as in the errors table) and ``attrs['no_interval']`` =
    :data:`NO_RATIO_INTERVAL_NOTE`."""
    table = table.copy()
    table[["disparity_ci_low", "disparity_ci_high", "p_value", "subgroup_value_ci_low", "subgroup_value_ci_high",
           "reference_value_ci_low", "reference_value_ci_high"]] = np.nan
    table["excludes_parity"] = pd.array([None] * len(table), dtype="boolean")
    table.attrs["no_interval"] = NO_RATIO_INTERVAL_NOTE
    return table


def _weighted(counts) -> bool:
    """Whether calibration counts hold sums of sample weights."""
    return getattr(counts, "member_sq", None) is not None


def _replicate_gate(counts, min_per_group: int) -> int:
    """The rows a replicate's ECE needs: `min_per_group`, or with sample weights 0 (a replicate's sums of weights
    are no effective size; whether a subgroup has an ECE at all is decided on the data's effective size)."""
    return 0 if _weighted(counts) else min_per_group


def _ratios(counts) -> tuple:
    """Per bin, the sum of squared weights over the sum of weights of the subgroups (k, n_bins), their backgrounds
    (k, n_bins) and all rows (n_bins,), so that a bin of weight W counts as W / ratio effective rows (Kish) in the
    data and in every bootstrap replicate; (None, None, None) without weights (a row counts once)."""
    if not _weighted(counts):
        return None, None, None

    def ratio(squares, stats):
        mass = stats[..., 0, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(mass > 0, squares / np.where(mass > 0, mass, 1.0), 0.0)
    return (ratio(counts.member_sq, counts.member), ratio(counts.background_sq, counts.background),
            ratio(counts.overall_sq, counts.overall))


def squared_errors(stats: np.ndarray, min_per_group: int = 1, ratio: Optional[np.ndarray] = None,
                   sizes: Optional[np.ndarray] = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The debiased squared calibration error, its plug-in and its variance, of calibration sums (..., 4, n_bins).

    With n_b rows in bin b, ȳ_b their fraction of positives, p̄_b their mean score and n the rows of the group:

        debiased = Σ_b (n_b / n) [(ȳ_b − p̄_b)² − ȳ_b (1 − ȳ_b) / (n_b − 1)],   plug-in = Σ_b (n_b / n) (ȳ_b − p̄_b)²

    over the bins of at least two rows (a bin of one row has no estimate of its label's variance and adds 0).
    ȳ_b (1 − ȳ_b) / (n_b − 1) is the unbiased estimate of the variance of ȳ_b, so the debiased error is unbiased
    for Σ_b (n_b / n)(E ȳ_b − p̄_b)², the binned squared calibration error at the group's own scores, **whatever the
    true miscalibration**: 0 in expectation for a calibrated group of any size (then often below 0), the true
    squared gap for a miscalibrated one. Its square root (floored at 0) is the ℓ2 ECE (:func:`l2_scale`).

    Parameters
    ----------
    stats : ndarray of shape (..., 4, n_bins)
        Count, sum of y_prob, sum of y_true and sum of squared errors per bin (``CalibrationCounts``): sums of
        weights with sample weights.
    min_per_group : int, default=1
        Fewer rows (effective rows when `sizes` is given): NaN.
    ratio : ndarray broadcasting to (..., n_bins), or None
        With sample weights: each bin's sum of squared weights over its sum of weights, so that it counts as
        n*_b = W_b / ratio_b = W_b² / Σw² effective rows (Kish) in the variance term; the bin's share is its mass.
        None: unweighted rows (ratio 1). Unit weights give the unweighted value; integer weights are not
        repeated rows here (a row of weight 2 is one person who stands for two, not two draws of the label).
    sizes : ndarray of shape (...), optional
        Effective sizes that `min_per_group` is compared with (default: the rows, ``stats[..., 0, :].sum(-1)``).

    Returns
    -------
    debiased, plug_in, variance : ndarray of shape (...)
        In [-0.25, 1] and [0, 1]; NaN below `min_per_group`. `variance` estimates the debiased error's sampling
        variance: Σ_b (n_b / n)² (2 V_b² + 4 g² V_b) + Σ_b (n_b / n)(g_b² − debiased)² / n, with g² = max(debiased,
        0) the group's squared gap taken for every bin's (a bin's own debiased gap is as noisy as the variance it
        would estimate, and its positive part overstated a calibrated bin's variance; its signed value made the
        interval short exactly where the estimate came out low), g_b² the bin's debiased squared gap and
        V_b = r_b (1 − r_b) / n_b the variance of its fraction of positives at r_b = (n_b ȳ_b + p̄_b) / (n_b + 1), its
        rate shrunk towards its mean score by one row's worth (a bin whose labels are all alike keeps a variance
        above 0): the first sum is the variance of a squared normal gap, the second that of the bins' shares. The
        intervals studentize by it (the bootstrap-t).

    References
    ----------
    Kumar, Liang & Ma (2019), "Verified uncertainty calibration", NeurIPS (the debiased estimator of the squared
    calibration error); Bröcker (2012), "Estimating reliability and resolution of probability forecasts through
    decomposition of the empirical score", Climate Dynamics 39.

    Examples
    --------
    One bin of 10 rows with mean score 0.5 and 7 positives: (0.7 − 0.5)² − 0.7 · 0.3 / 9 = 0.04 − 0.0233:

    >>> debiased, plug_in, _ = squared_errors(np.array([[10.0], [5.0], [7.0], [0.0]]))
    >>> round(float(debiased), 4), round(float(plug_in), 4)
    (0.0167, 0.04)
    """
    count, sum_p, sum_y = stats[..., 0, :], stats[..., 1, :], stats[..., 2, :]
    n = count.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        safe = np.where(count > 0, count, 1.0)
        y_bar, p_bar = np.clip(sum_y / safe, 0.0, 1.0), sum_p / safe
        rows = count if ratio is None else count / np.where(ratio > 0, ratio, np.inf)
        used = rows > 1 + 1e-9
        gap = np.where(used, (y_bar - p_bar) ** 2, 0.0)
        variance = np.where(used, y_bar * (1.0 - y_bar) / np.where(used, rows - 1.0, 1.0), 0.0)
        plug_in = (count * gap).sum(axis=-1) / n
        debiased = plug_in - (count * variance).sum(axis=-1) / n
        share = count / n[..., None]
        # The variance of a bin's fraction of positives at its rate shrunk towards its mean score by one row's worth,
        # (Σy + p̄) / (n_b + 1): never 0 for a bin whose labels are all alike, and nearly ȳ's elsewhere.
        rate = np.clip((y_bar * rows + p_bar) / np.where(used, rows + 1.0, 1.0), 0.0, 1.0)
        v = np.where(used, rate * (1.0 - rate) / np.where(used, rows, 1.0), 0.0)
        # Each bin's squared gap taken as the group's (at least 0): a bin's own estimate is as noisy as the variance
        # it would estimate, and low exactly where the group's estimate is low, which made those intervals too short.
        g2 = np.maximum(debiased, 0.0)[..., None]
        effective = rows.sum(axis=-1)
        sampling = (share ** 2 * (2.0 * v * v + 4.0 * g2 * v)).sum(axis=-1) + (
            share * (g2 - debiased[..., None]) ** 2).sum(axis=-1) / np.where(effective > 0, effective, 1.0)
    enough = ((n if sizes is None else sizes) >= min_per_group) & (n > 0)
    return (np.where(enough, debiased, np.nan), np.where(enough, plug_in, np.nan),
            np.where(enough, sampling, np.nan))


def _member_squared(counts, min_per_group: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`squared_errors` of the subgroups of a ``CalibrationCounts`` (debiased, plug-in, variance), each (k,)."""
    weighted = _weighted(counts)
    return squared_errors(counts.member, min_per_group, _ratios(counts)[0], counts.sizes if weighted else None)


def _squared_sides(counts, min_per_group: int) -> list:
    """:func:`squared_errors` of the subgroups (k,), their backgrounds (k,) and all rows (scalars)."""
    weighted, ratios = _weighted(counts), _ratios(counts)
    return [_member_squared(counts, min_per_group)] + [
        squared_errors(stats, min_per_group, r, sizes if weighted else None) for stats, r, sizes in (
            (counts.background, ratios[1], counts.background_sizes),
            (counts.overall, ratios[2], np.array(counts.overall_size) if weighted else None))]


def _calibrated_lows(counts, min_per_group: int, level: float, rng, n_draws: int, replicates: list) -> tuple:
    """:func:`calibrated_low` of the subgroups (k,) and, with three `replicates`, of their backgrounds (k,) and all
    rows (a scalar). `replicates`: per side, the bootstrap's debiased errors and variances (n_boot, k or 1), whose
    studentized deviations give each side's high end (:func:`studentized`)."""
    squared = _squared_sides(counts, min_per_group) if len(replicates) > 1 else [_member_squared(counts, min_per_group)]
    ratios = _ratios(counts)
    stats = (counts.member, counts.background, counts.overall[None])
    ratios = (ratios[0], ratios[1], None if ratios[2] is None else ratios[2][None])
    lows = []
    for q, (reps, rep_vars) in enumerate(replicates):
        estimate, plug_in = (np.atleast_1d(x) for x in squared[q][:2])
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (reps - plug_in) / np.sqrt(np.maximum(rep_vars, 1e-300))
        t_low = _nan_quantile(t, (1.0 - level) / 2.0)
        lows.append(calibrated_low(stats[q], estimate, level, rng, ratios[q], n_draws, t_low=t_low))
    return tuple(lows[:2]) + ((lows[2][0],) if len(lows) > 2 else ())


def _nan_quantile(samples: np.ndarray, q: float) -> np.ndarray:
    """The q-quantile of each column of `samples` over its defined values (NaN for a column without any)."""
    out = np.full(samples.shape[1:], np.nan)
    defined = (~np.isnan(samples)).any(axis=0)
    if defined.any():
        out[defined] = np.nanquantile(samples[:, defined], q, axis=0)
    return out


def _studentized_interval(estimate, variance, replicates, replicate_variances, plug_in, level: float, low=None):
    """(low, high, n_undefined): the percentile interval of :func:`studentized` replicates, widened to contain the
    estimate (NaN where the estimate is); `low`, where given, replaces its low end (:func:`calibrated_low`)."""
    low_t, high, undefined = percentile_interval(
        studentized(estimate, variance, replicates, replicate_variances, plug_in), level)
    low = low_t if low is None else np.asarray(low, dtype=np.float64)
    estimate = np.asarray(estimate, dtype=np.float64)
    defined = ~np.isnan(estimate)
    return (np.where(defined, np.fmin(low, estimate), np.nan), np.where(defined, np.fmax(high, estimate), np.nan),
            undefined)


def studentized(estimate, variance, replicates, replicate_variances, plug_in) -> np.ndarray:
    """Bootstrap-t replicates of a debiased squared error: estimate − t* sqrt(variance), t* = (replicate − plug_in)
    / sqrt(replicate variance), so their percentiles are the studentized bootstrap's interval.

    The bootstrap's truth is the plug-in of the resampled rows (a replicate's debiased error is unbiased for it).
    Each replicate's deviation from it is studentized by the replicate's own variance (:func:`squared_errors`),
    which matters: the resampled rows' bins are miscalibrated by their own noise, so the plain (basic) bootstrap's
    spread was 1.4-1.7 times the true one for calibrated groups (over-coverage) and too narrow where a
    miscalibrated group's estimate came out low. Shapes broadcast: `replicates` (n_boot, m) with the rest (m,).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (np.asarray(replicates) - plug_in) / np.sqrt(np.maximum(replicate_variances, 1e-300))
        return estimate - t * np.sqrt(np.maximum(variance, 0.0))


NULL_GRID = 16   # steps of the low end's search between 0 and the estimate (see calibrated_low)


def calibrated_low(stats: np.ndarray, estimate, level: float, rng, ratio: Optional[np.ndarray] = None,
                   n_draws: int = 1000, t_low: Optional[np.ndarray] = None) -> np.ndarray:
    """Low end of a debiased squared calibration error's interval, by inverting a test of its size.

    The bootstrap-t low end (:func:`studentized`) of a calibrated group was above 0 in under 1 % of calibrated
    data sets, so the interval covered 99 % where it claimed 95 %. Here the low end is the smallest θ that a
    one-sided test does not reject, each test's null a group with the data's bins (rows n_b, mean score p̄_b) whose
    true fraction of positives is

        r_b(θ) = clip(p̄_b + s_b √θ, 0, 1),   s_b = g_b / sqrt(Σ_c (n_c / n) g_c²),

    g_b the bin's observed gap ȳ_b − p̄_b (s_b = 1 in every bin where all gaps are 0), so its true squared
    calibration error Σ_b (n_b / n) (r_b − p̄_b)² is θ (before clipping) and its gaps are shaped like the data's:
    at θ = 0 labels ~ Bernoulli(p̄_b) within each bin, a perfectly calibrated group.
    Under each null the fractions of positives are drawn, ȳ*_b ~ Binomial(n_b, r_b) / n_b, and the debiased
    error D* recomputed (`n_draws` draws); θ is rejected when the data's estimate exceeds the 1 − α_θ quantile of
    D*. The size α_θ = clip(α − P_θ(high end < θ), α/2, α), α = 1 − `level`, spends on the low end what the high
    end does not miss at that truth (estimated from the same draws, the high end taken as D* − t_low sqrt(var*),
    the bootstrap-t's high end with the data's studentized quantile t_low, var* from :func:`squared_errors`): α
    where the truth is 0 (the high end cannot miss it, so the interval excludes 0 in a share α of calibrated data
    sets, not α / 2), α / 2 far from 0. This is the ordering idea of Feldman & Cousins (1998) for a quantity
    bounded at 0, reduced to a choice of each one-sided test's size.

    Parameters
    ----------
    stats : ndarray of shape (m, 4, n_bins)
        Calibration sums of m groups (``CalibrationCounts``); sums of weights with sample weights.
    estimate : ndarray of shape (m,)
        Their debiased squared errors (:func:`squared_errors`); NaN gives NaN.
    level : float
        Confidence level of the two-sided interval.
    rng : numpy.random.Generator
    ratio : ndarray broadcasting to (m, n_bins), or None
        With sample weights, as in :func:`squared_errors`: a bin draws its Kish effective rows W_b / ratio_b
        (rounded, at least 1).
    n_draws : int, default=1000
        Draws under each null.
    t_low : ndarray of shape (m,), optional
        The α/2 quantile of each group's studentized bootstrap deviations (:func:`studentized`), which sets its
        high end; None or NaN: the normal's, −z_{1−α/2}.

    Returns
    -------
    ndarray of shape (m,)
        The low end in [0, max(estimate, 0)] (0 where perfect calibration is not rejected); NaN where `estimate` is.

    References
    ----------
    Kumar, Liang & Ma (2019), "Verified uncertainty calibration", NeurIPS (the estimator); Feldman & Cousins
    (1998), "Unified approach to the classical statistical analysis of small signals", Physical Review D 57.
    """
    from statistics import NormalDist

    estimate = np.asarray(estimate, dtype=np.float64)
    low = np.full(estimate.shape, np.nan)
    todo = np.flatnonzero(~np.isnan(estimate))
    if not len(todo):
        return low
    stats = np.asarray(stats, dtype=np.float64)
    ratio = None if ratio is None else np.broadcast_to(ratio, stats[:, 0, :].shape)[todo]
    stats = stats[todo]
    est = estimate[todo]
    t_low = np.full(estimate.shape, np.nan) if t_low is None else np.broadcast_to(t_low, estimate.shape)
    count, sum_p, sum_y = stats[:, 0, :], stats[:, 1, :], stats[:, 2, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        safe = np.where(count > 0, count, 1.0)
        p_bar = np.clip(sum_p / safe, 0.0, 1.0)
        # Each bin's share of the gap: its observed gap over the group's root-mean-square gap (uniform, with the
        # observed signs, where every observed gap is 0), so that Σ_b (n_b / n) shape_b² = 1.
        gap = np.where(count > 0, np.clip(sum_y / safe, 0.0, 1.0) - p_bar, 0.0)
        rms = np.sqrt((count * gap ** 2).sum(axis=-1, keepdims=True) / count.sum(axis=-1, keepdims=True))
        shape = np.where(rms > 0, gap / np.where(rms > 0, rms, 1.0), 1.0)
        rows = count if ratio is None else count / np.where(ratio > 0, ratio, np.inf)
    trials = np.where(count > 0, np.maximum(np.rint(rows), 1.0), 0.0).astype(np.int64)
    alpha = 1.0 - level
    t_low = np.where(np.isnan(t_low[todo]), -NormalDist().inv_cdf(1.0 - alpha / 2.0), t_low[todo])
    top = np.maximum(est, 0.0)
    thetas = top[None, :] * (np.arange(NULL_GRID + 1)[:, None] / NULL_GRID) ** 2    # (grid, m), denser near 0
    critical = np.empty_like(thetas)
    null = _NullErrors(count, sum_p, rows, trials)
    cols = np.arange(len(est))
    for j, theta in enumerate(thetas):
        rate = np.clip(p_bar + shape * np.sqrt(theta)[:, None], 0.0, 1.0)
        d, v = null.errors(rng.binomial(trials, rate, size=(n_draws, *trials.shape)))
        # The high end of an ℓ2 ECE (at least 0) never misses a truth of 0; elsewhere it misses when below θ.
        missed_high = np.mean(d - t_low * np.sqrt(np.maximum(v, 0.0)) < theta, axis=0) * (theta > 0)
        size = np.clip(alpha - missed_high, alpha / 2.0, alpha)
        at = (1.0 - size) * (n_draws - 1)
        below = np.floor(at).astype(np.int64)
        above = np.minimum(below + 1, n_draws - 1)
        # Only the order statistics from the smallest `below` up are needed: those of a full sort, found by
        # partitioning there and sorting the rest.
        start = int(below.min())
        ordered = np.sort(np.partition(d, start, axis=0)[start:], axis=0)
        low_d, high_d = ordered[below - start, cols], ordered[above - start, cols]
        critical[j] = low_d + (at - below) * (high_d - low_d)
    # The smallest θ not rejected: the first grid point whose critical value reaches the estimate (critical values
    # made non-decreasing in θ, as they are in expectation), interpolated linearly from the one before.
    critical = np.maximum.accumulate(critical, axis=0)
    kept = critical >= est[None, :]
    first = np.where(kept.any(axis=0), kept.argmax(axis=0), NULL_GRID)
    before = np.maximum(first - 1, 0)
    c0, c1 = critical[before, cols], critical[first, cols]
    t0, t1 = thetas[before, cols], thetas[first, cols]
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(c1 > c0, (est - c0) / (c1 - c0), 1.0)
    low[todo] = np.where(first == 0, 0.0, t0 + np.clip(step, 0.0, 1.0) * (t1 - t0))
    return low


class _NullErrors:
    """:func:`squared_errors`' debiased errors and variances of groups whose bins keep their rows and mean scores
    and whose labels are redrawn (:func:`calibrated_low`'s nulls), computed from the drawn counts of positives.

    Every float is the one ``squared_errors(stacked, 1, ratio)`` gives for the stacked sums (count, sum of scores,
    count × drawn / trials, 0), by the same operations in the same order; only what depends on the draws is
    computed per draw (the rest once), only the two outputs needed, and in blocks of draws that stay in the cache.
    """

    BLOCK = 32768   # elements (draws × groups × bins) per block

    def __init__(self, count, sum_p, rows, trials):
        with np.errstate(divide="ignore", invalid="ignore"):
            self.count, self.rows, self.n = count, rows, count.sum(axis=-1)
            self.safe = np.where(count > 0, count, 1.0)
            self.p_bar = sum_p / self.safe
            self.used = rows > 1 + 1e-9
            self.minus, self.plus = np.where(self.used, rows - 1.0, 1.0), np.where(self.used, rows + 1.0, 1.0)
            self.own = np.where(self.used, rows, 1.0)
            self.share = count / self.n[..., None]
            self.share2 = self.share ** 2
            effective = rows.sum(axis=-1)
            self.effective = np.where(effective > 0, effective, 1.0)
        self.enough = (self.n >= 1) & (self.n > 0)
        self.trials = np.where(trials > 0, trials, 1)

    def errors(self, drawn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(debiased, variance), each (n_draws, m), of drawn positives (n_draws, m, n_bins)."""
        d = np.empty(drawn.shape[:-1])
        v = np.empty(drawn.shape[:-1])
        step = max(1, self.BLOCK // max(1, drawn[0].size))
        for at in range(0, len(drawn), step):
            d[at:at + step], v[at:at + step] = self._block(drawn[at:at + step])
        return d, v

    def _block(self, drawn):
        used = self.used
        with np.errstate(divide="ignore", invalid="ignore"):
            y_bar = drawn / self.trials
            np.multiply(y_bar, self.count, out=y_bar)
            np.divide(y_bar, self.safe, out=y_bar)
            np.clip(y_bar, 0.0, 1.0, out=y_bar)
            gap = np.where(used, (y_bar - self.p_bar) ** 2, 0.0)
            variance = np.where(used, y_bar * (1.0 - y_bar) / self.minus, 0.0)
            np.multiply(self.count, gap, out=gap)
            np.multiply(self.count, variance, out=variance)
            debiased = gap.sum(axis=-1) / self.n - variance.sum(axis=-1) / self.n
            rate = np.multiply(y_bar, self.rows, out=gap)
            np.add(rate, self.p_bar, out=rate)
            np.divide(rate, self.plus, out=rate)
            np.clip(rate, 0.0, 1.0, out=rate)
            v = np.where(used, rate * (1.0 - rate) / self.own, 0.0)
            g2 = np.maximum(debiased, 0.0)[..., None]
            spread = np.multiply(2.0 * v, v, out=variance)
            np.add(spread, 4.0 * g2 * v, out=spread)
            np.multiply(self.share2, spread, out=spread)
            spread = spread.sum(axis=-1)
            sampling = spread + (self.share * (g2 - debiased[..., None]) ** 2).sum(axis=-1) / self.effective
        return np.where(self.enough, debiased, np.nan), np.where(self.enough, sampling, np.nan)


def l2_scale(squared) -> np.ndarray:
    """The ℓ2 ECE of a debiased squared calibration error, sqrt(max(squared, 0)): the root-mean-square gap between
    the fraction of positives and the mean score over the bins, on the scale of a probability (NaN stays NaN)."""
    x = np.asarray(squared, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.sqrt(np.where(np.isnan(x), np.nan, np.maximum(x, 0.0)))


def excess(difference) -> np.ndarray:
    """sign(d) sqrt(|d|) of a difference of squared calibration errors: the *excess ℓ2 ECE* of one side over the
    other, on the scale of a probability. Monotone, so its intervals are the difference's, mapped; a subgroup whose
    squared error exceeds a calibrated reference's by e² has an excess of e."""
    d = np.asarray(difference, dtype=np.float64)
    return np.sign(d) * np.sqrt(np.abs(d))


def _on_l2_scale(table: pd.DataFrame, squared: list, a_sq: np.ndarray, b_sq: np.ndarray, reference: str,
                 names: list) -> pd.DataFrame:
    """The comparison table of debiased errors: the values as ℓ2 ECEs, the debiased squared errors beside them
    (``subgroup_squared``, ``reference_squared``) and the disparity |excess(a - b)| (NaN where it was NaN, e.g. a
    subgroup alone)."""
    table = table.copy()
    a_l2, b_l2 = compared_values(*(l2_scale(x) for x in squared), reference, names)
    table["subgroup_value"], table["reference_value"] = a_l2, b_l2
    at = table.columns.get_loc("reference_value") + 1
    table.insert(at, "subgroup_squared", a_sq)
    table.insert(at + 1, "reference_squared", b_sq)
    plain = table["disparity"].to_numpy(dtype=np.float64)
    table["disparity"] = np.where(np.isnan(plain), np.nan, np.abs(excess(a_sq - b_sq)))
    return table


def calibration_rule(distance_measure: str, threshold: Optional[float],
                     func: str = "calibration_rule") -> Optional[Rule]:
    """The policy rule a calibration disparity is judged by, in the units of its distance measure.

    Parameters
    ----------
    distance_measure : {'diff', 'ratio'}
    threshold : float or None
        None: the default rule for ``'diff'`` (``DEFAULT_RULES``' ``calibration_diff``, difference
        of ECEs <= 0.1, ExFairness) and no rule for ``'ratio'`` (no source sets a bound on a ratio of
        ECEs, and the 0.1 difference bound is never applied to a ratio). A number: a rule with
        that bound, which must be in [0, 1] for ``'diff'`` and >= 1 for ``'ratio'`` (ratios here
        are larger / smaller, so 1 is parity).
    func : str
        The caller's name, for messages.

    Returns
    -------
    Rule or None
        ``Rule(name='calibration_diff' | 'calibration_ratio', metric='calibration_disparity',
        distance_measure=..., bound=threshold, direction='max')``, labelled "Calibration:
        excess ℓ2 ECE <= 0.1" or "Calibration: ratio of ECEs <= 1.5"; for ``'diff'`` with the
        default bound it equals the default rule.

    Raises
    ------
    ValueError
        If `threshold` is not a number in the units of the distance (``THRESHOLD_MESSAGE``), e.g.
        0.1 with ``'ratio'``.
    """
    check_option(distance_measure, DISTANCES, "distance_measure", func)
    if threshold is None:
        return DEFAULT_RULE if distance_measure == "diff" else None
    units, expected, tip = _THRESHOLD_UNITS[distance_measure]
    real = isinstance(threshold, (int, float, np.integer, np.floating)) and not isinstance(threshold, (bool, np.bool_))
    ok = real and math.isfinite(float(threshold)) and (
        0.0 <= float(threshold) <= 1.0 if distance_measure == "diff" else float(threshold) >= 1.0)
    if not ok:
        raise ValueError(THRESHOLD_MESSAGE.format(func=func, distance=distance_measure, units=units,
                                                  expected=expected, got=threshold, tip=tip))
    bound = float(threshold)
    if distance_measure == "diff":
        return Rule(name="calibration_diff", metric="calibration_disparity", distance_measure="diff", bound=bound,
                    direction="max", label=f"Calibration: excess ℓ2 ECE <= {bound:g}")
    return Rule(name="calibration_ratio", metric="calibration_disparity", distance_measure="ratio", bound=bound,
                direction="max", label=f"Calibration: ratio of ECEs <= {bound:g}")


def _with_verdicts(table: pd.DataFrame, rule: Optional[Rule], distance_measure: str, level) -> pd.DataFrame:
    """Add ``passes`` (point estimate within the rule's bound) and ``verdict`` (the rule's status, from the
    disparity interval when there is one) per comparison; both None when no rule applies."""
    table = table.copy()
    n = len(table)
    if rule is None:
        table["passes"] = np.full(n, None, dtype=object)
        table["verdict"] = np.full(n, None, dtype=object)
        return table
    d = table["disparity"].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        within = (d <= rule.bound) | np.isclose(d, rule.bound, rtol=BOUND_RTOL, atol=0.0)
    table["passes"] = pd.Series([None if np.isnan(v) else bool(w) for v, w in zip(d, within)], dtype=object,
                                index=table.index)
    low = table["disparity_ci_low"] if "disparity_ci_low" in table.columns else [None] * n
    high = table["disparity_ci_high"] if "disparity_ci_high" in table.columns else [None] * n
    # One evaluate per comparison (a few dozen at most): the rule's own pass / fail / inconclusive logic.
    table["verdict"] = [evaluate(rule, float(v), ci_low=None if lo is None else float(lo),
                                 ci_high=None if hi is None else float(hi), distance_measure=distance_measure,
                                 level=level).status for v, lo, hi in zip(d, low, high)]
    return table


def _value_interval(samples: np.ndarray, estimate: np.ndarray, level: float):
    """Percentile interval of each column of `samples` (n_boot, m), widened to contain `estimate` (m,)."""
    low, high, undefined = percentile_interval(samples, level)
    estimate = np.asarray(estimate, dtype=np.float64)
    has = ~np.isnan(low) & ~np.isnan(estimate)
    low = np.where(has, np.fmin(low, estimate), low)
    high = np.where(has, np.fmax(high, estimate), high)
    return low, high, undefined


def _with_error_intervals(table: pd.DataFrame, samples: np.ndarray, level: float, n_boot: int,
                          plug_in: np.ndarray, variance: np.ndarray, low: Optional[np.ndarray] = None) -> pd.DataFrame:
    """`table` with ``<col>_ci_low/_ci_high`` after ``l2_ece``, ``squared_ce`` and ``brier_score``, from samples
    (n_boot, k, 6) of (ECE, MCE, Brier, debiased squared error, its plug-in, its variance); `plug_in` and
    `variance` (k,): the data's.

    The squared error's interval is the studentized bootstrap's (:func:`studentized`), centred on the unbiased
    estimate, with its low end `low` where given (:func:`calibrated_low`: 0 unless a test of perfect calibration
    rejects); the ℓ2 ECE's is its square root. The plug-in ECE and
    the MCE have none: both lie above their truth by the bins' noise (a calibrated group's every replicate is above
    0), and their percentile intervals covered 0 % and 0-9 % of calibrated groups in the coverage benchmark, a claim
    they cannot keep."""
    table = table.copy()
    low, high, n_undefined = _studentized_interval(table["squared_ce"].to_numpy(dtype=np.float64), variance,
                                                   samples[:, :, 3], samples[:, :, 5], plug_in, level, low=low)
    columns = {"l2_ece": (l2_scale(low), l2_scale(high), n_undefined), "squared_ce": (low, high, n_undefined),
               "brier_score": _value_interval(samples[:, :, 2], table["brier_score"].to_numpy(dtype=np.float64),
                                              level)}
    undefined = {}
    for col, (low, high, n_undefined) in columns.items():
        estimate_defined = table[col].notna().to_numpy()
        at = table.columns.get_loc(col) + 1
        table.insert(at, f"{col}_ci_low", np.where(estimate_defined, low, np.nan))
        table.insert(at + 1, f"{col}_ci_high", np.where(estimate_defined, high, np.nan))
        counted = n_undefined[estimate_defined]
        undefined[col] = int(counted.max()) if len(counted) else 0
    table.attrs.update({"ci": level, "n_boot": n_boot, "n_boot_undefined": undefined})
    return table


def _error_values(stats: np.ndarray, min_per_group: int, sizes: Optional[np.ndarray] = None):
    """ECE, MCE and Brier score of stats of shape (..., 4, n_bins) -> three arrays of shape (...).

    ECE and MCE are NaN below `min_per_group` rows (below `min_per_group` effective rows when `sizes`, the
    effective sample sizes of weighted sums, is given), the Brier score only without rows (or weight).
    """
    count, sum_p, sum_y, sum_sq = stats[..., 0, :], stats[..., 1, :], stats[..., 2, :], stats[..., 3, :]
    n = count.sum(axis=-1)
    gap = np.abs(sum_y - sum_p)
    with np.errstate(divide="ignore", invalid="ignore"):
        ece = gap.sum(axis=-1) / n
        per_bin = np.where(count > 0, gap / np.where(count > 0, count, 1), -np.inf)
        mce = per_bin.max(axis=-1)
        brier = sum_sq.sum(axis=-1) / n
    enough = (n if sizes is None else sizes) >= min_per_group
    return np.where(enough, ece, np.nan), np.where(enough, mce, np.nan), np.where(n > 0, brier, np.nan)


def _errors(stats: np.ndarray, min_per_group: int, sizes: Optional[np.ndarray] = None):
    """ECE, MCE, Brier and notes for stats of shape (k, 4, n_bins) (`sizes`: effective sizes of weighted sums)."""
    ece, mce, brier = _error_values(stats, min_per_group, sizes)
    if sizes is not None:
        n = np.asarray(sizes, dtype=np.float64)
        note = np.where(n >= min_per_group, "", np.where(n == 0, "no rows", f"fewer than min_per_group={min_per_group} "
                                                          "effective rows")).astype(object)
        return ece, mce, brier, note
    n = stats[:, 0].sum(axis=1)
    note = np.where(n >= min_per_group, "", np.where(n == 0, "no rows",
                                                     f"fewer than min_per_group={min_per_group} rows")).astype(object)
    return ece, mce, brier, note


def _num3(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.3f}"


def _interpret(result: DisparityResult, verdict: Optional[Verdict], min_per_group: int, distance: str,
               debiased: bool = False, weighted: bool = False) -> str:
    if np.isnan(result.value):
        alone = len(result.table) > 0 and bool((result.table["note"] == ALONE_NOTE).all())
        why = (ALONE_NOTE if alone else
               f"no comparison has ECE defined on both sides (each side needs at least {min_per_group} rows)"
               if result.n_undefined or not result.n_small_excluded else
               f"every comparison involves a small subgroup, and small subgroups are left out "
               f"({result.n_small_excluded} comparisons; include them to assess)")
        return f"Calibration disparity could not be assessed: {why}."
    unit = ("excess ℓ2 ECE" if debiased else "difference in ECE") if distance == "diff" else "ratio of ECEs"
    value_name = "ℓ2 ECE" if debiased else "ECE"
    interval = ""
    if result.level is not None and not (np.isnan(result.ci_low) or np.isnan(result.ci_high)):
        interval = f" ({result.level * 100:g} % interval {_num3(result.ci_low)}–{_num3(result.ci_high)})"
    if result.reduction == "max" and result.worst is not None:
        row = result.table[(result.table["subgroup"] == result.worst[0])
                           & (result.table["reference"] == result.worst[1])].iloc[0]
        if weighted:   # effective sample sizes
            sizes = [f"{float(row[c]):,.1f} effective rows" for c in ("size", "reference_size")]
        else:
            sizes = [f"{int(row[c]):,} rows" for c in ("size", "reference_size")]
        head = (f"The largest {unit} is {_num3(result.value)}{interval}, between {row['subgroup']} ({value_name} "
                f"{row['subgroup_value']:.3f}, {sizes[0]}) and {row['reference']} ({value_name} "
                f"{row['reference_value']:.3f}, {sizes[1]}).")
    else:
        head = f"The mean {unit} over {result.n_used} comparisons is {_num3(result.value)}{interval}."
    if distance == "ratio" and result.level is not None:
        head += f" {NO_RATIO_INTERVAL_NOTE[:1].upper()}{NO_RATIO_INTERVAL_NOTE[1:]}."
    if verdict is None:
        return head + f" Not judged: {NO_RATIO_RULE_NOTE}."
    bound = f"{verdict.rule.bound:g}"
    whole = " across its whole interval" if interval else ""
    if verdict.status == "pass":
        return head + (f" It is within the bound of {bound}{whole}: by this measure, predicted probabilities "
                       f"are about as reliable for every subgroup.")
    if verdict.status == "fail":
        return head + (f" It exceeds the bound of {bound}{whole}: predicted probabilities are less reliable "
                       f"for some subgroups than for others; see the reliability diagrams for where they "
                       f"over- or under-estimate the outcome.")
    return head + f" Its interval straddles the bound of {bound}: inconclusive at this sample size." + _rows_text(
        verdict.rows_factor, verdict.smallest)


@dataclass(frozen=True)
class CalibrationDisparityResult(ValueResult):
    """ECE disparity with its policy verdict, its interval and the per-subgroup errors.

    Attributes
    ----------
    value : float
        The reduced calibration disparity, in the units of the distance measure: with ``debiased``
        the excess ℓ2 ECE |sign(d) sqrt(|d|)| of the difference d of debiased squared calibration
        errors (:func:`squared_errors`), else a difference of plug-in ECEs, or a ratio of ECEs
        (larger / smaller).
    passes : bool or None
        True when the verdict is 'pass', False when 'fail'; None when it is 'inconclusive' (the
        interval straddles the bound) or 'undefined', or when no rule applies (a ratio without a
        threshold).
    threshold : float or None
        The rule's bound, in the units of the distance measure (None: no rule).
    n_bins : int
    strategy : {'uniform', 'quantile'}
    interpretation : str
        A plain-language sentence for reports.
    errors : DataFrame
        Per-subgroup ``ece, l2_ece, squared_ce, mce, brier_score`` (see
        :meth:`CalibrationCounts.error_table`), with interval columns when intervals were asked for.
    disparity : DisparityResult
        The comparisons behind ``value``, with ``ci_low, ci_high, level, n_boot,
        n_boot_undefined``.
    rule : Rule or None
        The policy rule applied (see :func:`calibration_rule`).
    verdict : Verdict or None
        The rule's verdict on the reduced value and its interval: pass, fail, inconclusive or
        undefined, with its sentence.
    debiased : bool
        Whether the disparity compares debiased squared calibration errors (Kumar, Liang & Ma
        2019; ``calibration_disparity(debias=True)``, the default for a difference), shown as
        ℓ2 ECEs and their excess, rather than the plug-in ECEs of ExFairness.
    """

    value: float
    passes: Optional[bool]
    threshold: Optional[float]
    n_bins: int
    strategy: str
    interpretation: str
    errors: pd.DataFrame
    disparity: DisparityResult
    rule: Optional[Rule] = None
    verdict: Optional[Verdict] = None
    debiased: bool = False

    @property
    def table(self) -> pd.DataFrame:
        """The comparison table (one row per comparison)."""
        return self.disparity.table

    @property
    def ci_low(self) -> float:
        """Lower end of the bootstrap interval of ``value`` (NaN without intervals)."""
        return self.disparity.ci_low

    @property
    def ci_high(self) -> float:
        """Upper end of the bootstrap interval of ``value`` (NaN without intervals)."""
        return self.disparity.ci_high

    @property
    def level(self) -> Optional[float]:
        """Confidence level of the intervals (None without)."""
        return self.disparity.level

    @property
    def distance_measure(self) -> str:
        """'diff' or 'ratio': the units of ``value`` and ``threshold``."""
        return self.disparity.distance_measure
