# More than 500 lines: one concept (calibration errors of given counts and their disparity), unweighted and weighted.
"""Calibration errors of calibration counts: ECE, MCE and Brier per subgroup, the ECE disparity and its verdict (§5.3).

Every function here reads a ``CalibrationCounts`` (per-(subgroup, bin) count, sum of y_prob, sum of
y_true and sum of squared errors) and never the rows: ECE = sum_b |sum_y_b - sum_p_b| / n, MCE the
largest per-bin gap, Brier = sum of squared errors / n. ``CalibrationCounts.error_table`` and
``.disparity`` call these functions; the public functions that take rows are in
:mod:`fairness_core._metrics.calibration`. This module never imports the count tables' module (no import cycle).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .._stats.bootstrap import check_boot_options, percentile_interval, replicate_stat, rng_of
from .._data.checks import check_int, check_option
from .compare import (ALONE_NOTE, DISTANCES, DisparityResult, add_intervals, bootstrap_comparison, check_reference,
                       comparison_columns, comparison_index, compared_values, reduce_disparities, reduced_interval)
from .._policy.defaults import DEFAULT_RULES
from .._policy.rules import BOUND_RTOL, Rule
from .._policy.verdicts import Verdict, evaluate, evaluate_result
from .._stats.result import ValueResult

ERROR_COLUMNS = ("ece", "mce", "brier_score")
# The default calibration rule (seed 001's 0.1): a bound on a *difference* of ECEs.
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
NO_RATIO_RULE_NOTE = (
    "no policy bound applies to a ratio of ECEs by default (the calibration rule's 0.1 bounds a "
    "difference of ECEs); give a threshold >= 1 to assess the ratio"
)


def error_table_of(counts, *, min_per_group: int = 5, ci: Optional[float] = None, n_boot: int = 1000,
                   random_state=0) -> pd.DataFrame:
    """Per-subgroup ECE, MCE and Brier score of a ``CalibrationCounts``; see ``CalibrationCounts.error_table``."""
    func = "calibration_errors"
    min_per_group = check_int(min_per_group, 1, "min_per_group", func)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    table = _with_expected(error_frame(counts, min_per_group), counts, min_per_group)
    if level is None:
        return table
    gate = _replicate_gate(counts, min_per_group)
    samples = replicate_stat(counts._calibration_atoms(func),
                             lambda m, b, o: np.stack(_error_values(m, gate), axis=-1), n_boot, rng)
    return _with_error_intervals(table, samples, level, n_boot, shift=_weighted(counts))


def error_frame(counts, min_per_group: int) -> pd.DataFrame:
    """Per-subgroup ECE, MCE and Brier score (no intervals) of a ``CalibrationCounts``.

    With sample weights the counts are sums of weights, ``size`` the effective sample size, and
    `min_per_group` is compared with the effective size."""
    sizes = counts.sizes
    small, reasons = counts._small()
    if _weighted(counts):
        ece, mce, brier, note = _errors(counts.member, min_per_group, sizes)
        mass, positive = counts.member[:, 0, :].sum(axis=1), counts.member[:, 2, :].sum(axis=1)
        return pd.DataFrame({
            "subgroup": counts.names, "size": sizes, "n_positive": positive, "n_negative": mass - positive,
            "small": small, "small_reason": reasons, "ece": ece, "mce": mce, "brier_score": brier, "note": note,
        })
    ece, mce, brier, note = _errors(counts.member, min_per_group)
    return pd.DataFrame({
        "subgroup": counts.names, "size": sizes.astype(np.int64),
        "n_positive": counts.member[:, 2, :].sum(axis=1).astype(np.int64),
        "n_negative": (sizes - counts.member[:, 2, :].sum(axis=1)).astype(np.int64),
        "small": small, "small_reason": reasons,
        "ece": ece, "mce": mce, "brier_score": brier, "note": note,
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
    table = ece_comparison(counts, min_per_group, distance_measure, reference, func)
    errors = error_frame(counts, min_per_group)
    # Bias correction (diff only: a ratio of corrected ECEs is undefined where one is <= 0): each ECE minus its
    # expected value under perfect calibration at the same sizes, bins and scores, from labels drawn anew.
    errors = _with_expected(errors, counts, min_per_group)
    debias = bool(debias) and distance_measure == "diff"
    null = None
    if debias:
        expected = [errors["ece_expected"].to_numpy()] + [
            expected_ece(x, min_per_group, squares=sq) for x, sq in
            ((counts.background, getattr(counts, "background_sq", None)),
             (counts.overall, getattr(counts, "overall_sq", None)))]
        a0, b0 = compared_values(*expected, reference, counts.names)
        at = table.columns.get_loc("reference_value") + 1
        table.insert(at, "subgroup_expected", a0)
        table.insert(at + 1, "reference_expected", b0)
        corrected = (table["subgroup_value"] - a0) - (table["reference_value"] - b0)
        plain_disparity = table["disparity"].to_numpy(dtype=np.float64)   # NaN stays NaN (e.g. a subgroup alone)
        table["disparity"] = np.where(np.isnan(plain_disparity), np.nan, np.abs(corrected.to_numpy(dtype=np.float64)))
    table.attrs["debiased"] = debias
    if level is not None:
        captured = []
        gate = _replicate_gate(counts, min_per_group)
        # The null draws have a generator of their own (but for a Generator given, which they continue): drawn in a
        # thread beside the bootstrap (numpy releases the GIL while it draws), the same draws as one after the other.
        null = (_NULL_POOL.submit(_null_errors, counts, min_per_group, N_NULL, _null_rng(random_state, func))
                if debias and not isinstance(random_state, np.random.Generator) else None)

        def values(member, background, overall):
            # Every error of the subgroups is kept (for the errors table's intervals) and the ECEs of
            # the subgroups, backgrounds and all rows go on to the comparisons: one bootstrap for both.
            errs = np.stack(_error_values(member, gate), axis=-1)
            rest = _error_values(background, gate)[0]
            whole = _error_values(overall[..., None, :, :], gate)[0][..., 0]
            captured.append((errs, rest, whole))
            return errs[..., 0], rest, whole

        signed, disparity = bootstrap_comparison(counts._calibration_atoms(func), counts.names, reference, values,
                                                 distance_measure=distance_measure, n_boot=n_boot, rng=rng)
        errs, rest, whole = (np.concatenate(parts) for parts in zip(*captured))
        errors = _with_error_intervals(errors, errs, level, n_boot, shift=_weighted(counts))
        a, b = compared_values(errs[..., 0], rest, whole, reference, counts.names)
        for side, samples in (("subgroup_value", a), ("reference_value", b)):
            low, high, _ = _value_interval(samples, table[side].to_numpy(dtype=np.float64), level,
                                           shift=_weighted(counts))
            at = table.columns.get_loc(side) + 1
            table.insert(at, f"{side}_ci_low", low)
            table.insert(at + 1, f"{side}_ci_high", high)
        sides = None
        if debias:   # the corrected difference: bootstrap and null band, joined (add_intervals)
            null = (null.result() if null is not None
                    else _null_errors(counts, min_per_group, N_NULL, _null_rng(random_state, func)))
            signed = (a - a0) - (b - b0)
            disparity = np.abs(signed)
            null_a, null_b = compared_values(*null, reference, counts.names)
            sides = _null_band(corrected.to_numpy(dtype=np.float64), (null_a - a0) - (null_b - b0))
        plain = table
        table = add_intervals(plain, signed, disparity, distance_measure=distance_measure, level=level,
                              adjust=adjust, func=func, sides=sides)
    table = _with_verdicts(table, rule, distance_measure, level)
    if reduction is None:
        return table
    result = reduce_disparities(table, reduction, distance_measure=distance_measure, reference=reference,
                                include_small=include_small, func=func)
    if level is not None:
        result = reduced_interval(result, table, plain, signed, disparity, distance_measure=distance_measure,
                                  include_small=include_small, level=level, n_boot=n_boot, func=func, sides=sides)
    verdict = None if rule is None else evaluate_result(rule, result)
    passes = None if verdict is None else {"pass": True, "fail": False}.get(verdict.status)
    return CalibrationDisparityResult(
        value=result.value, passes=passes, threshold=None if rule is None else rule.bound, n_bins=counts.n_bins,
        strategy=counts.strategy, interpretation=_interpret(result, verdict, min_per_group, distance_measure, debias,
                                 weighted=_weighted(counts)),
        errors=errors, disparity=result, rule=rule, verdict=verdict, debiased=debias)


N_NULL = 1000   # label draws under perfect calibration (the null band of a corrected difference)


def _with_expected(errors: pd.DataFrame, counts, min_per_group: int) -> pd.DataFrame:
    """`errors` with ``ece_expected`` (:func:`expected_ece`) and ``ece_debiased`` (ECE less it) after ``ece``."""
    expected = expected_ece(counts.member, min_per_group, squares=getattr(counts, "member_sq", None))
    errors = errors.copy()
    errors.insert(errors.columns.get_loc("ece") + 1, "ece_expected", expected)
    errors.insert(errors.columns.get_loc("ece") + 2, "ece_debiased", errors["ece"].to_numpy() - expected)
    return errors


def _weighted(counts) -> bool:
    """Whether calibration counts hold sums of sample weights."""
    return getattr(counts, "member_sq", None) is not None


def _replicate_gate(counts, min_per_group: int) -> int:
    """The rows a replicate's ECE needs: `min_per_group`, or with sample weights 0 (a replicate's sums of weights
    are no effective size; whether a subgroup has an ECE at all is decided on the data's effective size)."""
    return 0 if _weighted(counts) else min_per_group


def expected_ece(stats: np.ndarray, min_per_group: int = 1, squares: Optional[np.ndarray] = None) -> np.ndarray:
    """The expected ECE under perfect calibration of calibration sums of shape (..., 4, n_bins) -> shape (...).

    E0[ECE] = Σ_b E|S_b - n_b p̄_b| / n, with S_b ~ Binomial(n_b, p̄_b) the positives of bin b when
    each of its n_b rows is positive with its score (the scores of a bin taken as equal, p̄_b
    their mean; a bin of width 0.1 changes the variance by under 1 %), by de Moivre's mean
    absolute deviation of the binomial, E|X - np| = 2 ν C(n, ν) p^ν (1 - p)^(n - ν + 1) with
    ν = floor(np) + 1 (0 when p is 0 or 1). NaN below `min_per_group` rows, as the ECE.

    Parameters
    ----------
    stats : ndarray of shape (..., 4, n_bins)
        Count, sum of y_prob, sum of y_true and sum of squared errors per bin (``CalibrationCounts``).
    min_per_group : int
    squares : ndarray of shape (..., n_bins) or None
        With sample weights (`stats` then holds weighted sums): the sums of squared weights per bin.
        Each bin then counts as n_eff_b = (sum w)^2 / sum w^2 rows of equal weight (Kish), so its
        expected gap is E|Bin(n_eff_b, p̄_b) - n_eff_b p̄_b| x (sum w / n_eff_b), with p̄_b the weighted mean
        score, and `min_per_group` is compared with the effective size of all the rows. Unit weights give
        the unweighted value.

    Returns
    -------
    ndarray of shape (...)

    References
    ----------
    de Moivre (1730), *Miscellanea Analytica*; Diaconis & Zabell (1991), "Closed form summation for
    classical distributions: variations on a theme of de Moivre", Statistical Science 6(3).

    Examples
    --------
    Ten rows at p = 0.5 in one bin: E|Bin(10, 0.5) - 5| = 2 (1·210 + 2·120 + 3·45 + 4·10 + 5·1) / 1024
    = 1.2305, so the expected ECE is 0.1230

    >>> stats = np.array([[10.0], [5.0], [0.0], [0.0]])
    >>> round(float(expected_ece(stats)), 4)
    0.123
    """
    n_b, sum_p = stats[..., 0, :], stats[..., 1, :]
    if squares is not None:
        return _expected_weighted_ece(n_b, sum_p, np.asarray(squares, dtype=np.float64), min_per_group)
    n = n_b.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = _bin_mads(stats).sum(axis=-1) / n
    return np.where(n >= min_per_group, out, np.nan)


def _expected_weighted_ece(mass: np.ndarray, sum_p: np.ndarray, squares: np.ndarray, min_per_group: int):
    """:func:`expected_ece` of weighted sums: each bin as its effective number of equally weighted rows."""
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(squares > 0, mass * mass / np.where(squares > 0, squares, 1.0), 0.0)
        scale = np.where(n_eff > 0, mass / np.where(n_eff > 0, n_eff, 1.0), 0.0)
        stats = np.stack([n_eff, sum_p / np.where(mass > 0, mass, 1.0) * n_eff,
                          np.zeros_like(n_eff), np.zeros_like(n_eff)], axis=-2)
        per_bin = _bin_mads(stats) * scale
        total, total_sq = mass.sum(axis=-1), squares.sum(axis=-1)
        size = np.where(total_sq > 0, total * total / np.where(total_sq > 0, total_sq, 1.0), 0.0)
        out = per_bin.sum(axis=-1) / total
    return np.where(size >= min_per_group, out, np.nan)


def _bin_mads(stats: np.ndarray) -> np.ndarray:
    """de Moivre's E|S_b - n_b p̄_b| of each bin of calibration sums (..., 4, n_bins) -> (..., n_bins)."""
    from scipy.special import gammaln

    n_b, sum_p = stats[..., 0, :], stats[..., 1, :]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        p = np.clip(np.where(n_b > 0, sum_p / np.where(n_b > 0, n_b, 1.0), 0.0), 0.0, 1.0)
        nu = np.floor(n_b * p) + 1
        ok = (n_b > 0) & (p > 0) & (p < 1) & (nu <= n_b)
        log_mad = (np.log(2.0) + np.log(nu) + gammaln(n_b + 1) - gammaln(nu + 1) - gammaln(n_b - nu + 1)
                   + nu * np.log(p) + (n_b - nu + 1) * np.log1p(-p))
        return np.where(ok, np.exp(np.where(ok, log_mad, 0.0)), 0.0)


def _null_errors(counts, min_per_group: int, n_draws: int, rng) -> tuple:
    """ECEs of the subgroups (n_draws, k), their backgrounds (n_draws, k) and all rows (n_draws,) under perfect
    calibration: labels drawn anew from the scores (``CalibrationAtoms.calibrated``)."""
    gate = _replicate_gate(counts, min_per_group)
    parts = [(_error_values(m, gate)[0], _error_values(b, gate)[0], _error_values(o[..., None, :, :], gate)[0][..., 0])
             for m, b, o in counts.atoms.calibrated(n_draws, rng)]
    return tuple(np.concatenate(x) for x in zip(*parts))


_NULL_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="null-ece")


def _null_rng(random_state, func: str) -> np.random.Generator:
    """The generator of the label draws under perfect calibration: `random_state` itself when it is a Generator,
    else a stream of its own from the seed (so the bootstrap keeps the draws the seed gives it)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    rng_of(random_state, func)   # the seed's checks
    return np.random.default_rng(None if random_state is None else [int(random_state), 53])


def _null_band(corrected: np.ndarray, null_signed: np.ndarray):
    """``sides(levels)`` of ``add_intervals`` for bias-corrected ECE differences: the corrected difference minus the
    central quantiles of its null distribution (perfect calibration on both sides), as an interval of |difference|.

    Parity is excluded exactly when the corrected difference lies outside what perfect calibration produces at
    these group sizes and bins (a parametric test of equal calibration), so a small group's noise is never read
    as a disparity."""
    def sides(levels):   # every comparison at its own level in one pass (the p-value's bisection calls this often)
        levels = np.asarray(levels, dtype=np.float64)
        q_low, q_high, _ = percentile_interval(null_signed, np.where(np.isnan(levels), 0.5, levels))
        low = np.where(np.isnan(levels), np.nan, corrected - q_high)
        high = np.where(np.isnan(levels), np.nan, corrected - q_low)
        above, below, undefined = low > 0, high < 0, np.isnan(low) | np.isnan(high)
        return (np.where(undefined, np.nan, np.where(above, low, np.where(below, -high, 0.0))),
                np.where(undefined, np.nan, np.where(above, high, np.where(below, -low, np.fmax(-low, high)))))
    return sides


def calibration_rule(distance_measure: str, threshold: Optional[float],
                     func: str = "calibration_rule") -> Optional[Rule]:
    """The policy rule a calibration disparity is judged by, in the units of its distance measure.

    Parameters
    ----------
    distance_measure : {'diff', 'ratio'}
    threshold : float or None
        None: the default rule for ``'diff'`` (``DEFAULT_RULES``' ``calibration_diff``, difference
        of ECEs <= 0.1, seed 001) and no rule for ``'ratio'`` (no source sets a bound on a ratio of
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
        difference in ECE <= 0.1" or "Calibration: ratio of ECEs <= 1.5"; for ``'diff'`` with the
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
                    direction="max", label=f"Calibration: difference in ECE <= {bound:g}")
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


def _value_interval(samples: np.ndarray, estimate: np.ndarray, level: float, shift: bool = False):
    """Percentile interval of each column of `samples` (n_boot, m), widened to contain `estimate` (m,).

    `shift`: first moved by the bootstrap's bias, the mean of the defined replicates less the estimate (an ECE's
    replicates lie above it: each adds noise to every bin's gap, and |gap| grows with noise). Used for weighted
    counts, whose bins' effective sizes are smaller: the plain percentile interval covered 91.0-91.8 % of a 300-row
    group's ECE (93.3-94.8 % unweighted) and about 50 % of a 60-row group's (58-62 % unweighted); shifted, 91.6 % and
    80.5 % (tests/fairness_core/test_weighted_calibration_intervals.py)."""
    low, high, undefined = percentile_interval(samples, level)
    estimate = np.asarray(estimate, dtype=np.float64)
    if shift:
        defined = (samples.shape[0] - undefined) > 0
        with np.errstate(invalid="ignore"):
            bias = np.where(defined, np.nansum(samples, axis=0) / np.maximum(samples.shape[0] - undefined, 1)
                            - estimate, 0.0)
        low, high = np.maximum(low - bias, 0.0), high - bias   # an error is never below 0
    has = ~np.isnan(low) & ~np.isnan(estimate)
    low = np.where(has, np.fmin(low, estimate), low)
    high = np.where(has, np.fmax(high, estimate), high)
    return low, high, undefined


def _with_error_intervals(table: pd.DataFrame, samples: np.ndarray, level: float, n_boot: int,
                          shift: bool = False) -> pd.DataFrame:
    """`table` with ``<col>_ci_low/_ci_high`` after the ECE and the Brier score, from samples (n_boot, k, 3); with
    `shift` (weighted counts) the ECE's interval is moved by the bootstrap's bias (:func:`_value_interval`). The MCE
    has none (no columns): the largest of the bins' noisy gaps lies well above the
    largest true gap, and its percentile interval covered 0-9 % of calibrated groups' MCE in the coverage
    benchmark (22 % of a 300-row group's, 61 % with weights), a claim it cannot keep."""
    table = table.copy()
    undefined = {}
    for j, col in enumerate(ERROR_COLUMNS):
        if col == "mce":   # no MCE interval (see above)
            continue
        low, high, n_undefined = _value_interval(samples[:, :, j], table[col].to_numpy(dtype=np.float64), level,
                                                 shift=shift and col == "ece")
        estimate_defined = table[col].notna().to_numpy()
        low, high = np.where(estimate_defined, low, np.nan), np.where(estimate_defined, high, np.nan)
        at = table.columns.get_loc(col) + 1
        table.insert(at, f"{col}_ci_low", low)
        table.insert(at + 1, f"{col}_ci_high", high)
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
    unit = ("bias-corrected difference in ECE" if debiased else "difference in ECE") if distance == "diff" \
        else "ratio of ECEs"
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
        head = (f"The largest {unit} is {_num3(result.value)}{interval}, between {row['subgroup']} (ECE "
                f"{row['subgroup_value']:.3f}, {sizes[0]}) and {row['reference']} (ECE "
                f"{row['reference_value']:.3f}, {sizes[1]}).")
    else:
        head = f"The mean {unit} over {result.n_used} comparisons is {_num3(result.value)}{interval}."
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
    return head + (f" Its interval straddles the bound of {bound}: inconclusive at this sample size (more rows "
                   f"per subgroup would narrow it).")


@dataclass(frozen=True)
class CalibrationDisparityResult(ValueResult):
    """ECE disparity with its policy verdict, its interval and the per-subgroup errors.

    Attributes
    ----------
    value : float
        The reduced ECE disparity, in the units of the distance measure (a difference of ECEs, or
        a ratio larger / smaller).
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
        Per-subgroup ``ece, mce, brier_score`` (see :meth:`CalibrationCounts.error_table`), with
        interval columns when intervals were asked for.
    disparity : DisparityResult
        The comparisons behind ``value``, with ``ci_low, ci_high, level, n_boot,
        n_boot_undefined``.
    rule : Rule or None
        The policy rule applied (see :func:`calibration_rule`).
    verdict : Verdict or None
        The rule's verdict on the reduced value and its interval: pass, fail, inconclusive or
        undefined, with its sentence.
    debiased : bool
        Whether the disparity compares bias-corrected ECEs (each ECE minus its expected value
        under perfect calibration; ``calibration_disparity(debias=True)``, the default for a
        difference), rather than the plug-in ECEs of seed 001.
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
