"""Change over time of per-period estimates with intervals: a weighted trend, equality across periods, and each
period's change from a baseline period corrected for the periods looked at."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .adjust import rejections
from .intervals import check_ci, z_value

ADJUSTS = ("holm", "bonferroni")
BASELINE_MESSAGE = "period_changes needs a baseline period with a value and an interval; period {got} has none."


@dataclass(frozen=True)
class PeriodTrend:
    """A weighted least-squares trend of per-period estimates, and Cochran's Q test of their equality.

    Attributes
    ----------
    slope : float
        Change of the estimate per period (NaN with fewer than two usable periods).
    ci_low, ci_high : float
        The slope's interval at `level` (Knapp-Hartung: Student's t on periods - 2 degrees of freedom).
    p_value : float
        Two-sided p-value of a zero slope.
    heterogeneity : float
        Cochran's Q = sum_t w_t (x_t - x_w)^2, with x_w the weighted mean.
    heterogeneity_p : float
        Its p-value, chi-square with (periods - 1) degrees of freedom: are all periods' values equal?
    periods : int
        Periods used (a value and an interval of positive width).
    left_out : tuple of int
        Positions of the periods left out (no value, no interval, or an interval of zero width).
    level : float
    """

    slope: float
    ci_low: float
    ci_high: float
    p_value: float
    heterogeneity: float
    heterogeneity_p: float
    periods: int
    left_out: tuple
    level: float


def _standard_errors(values, ci_low, ci_high, level: float):
    """Estimates and their standard errors from intervals (the longer side / z), with the mask of usable periods.

    The longer side, not the half width: a distance's interval is folded at parity (``mover_disparity``: [0, d + δ]
    where the signed interval is [d - δ, d + δ]), and its longer side is δ; a symmetric interval gives the same."""
    x, low, high = (np.asarray(a, dtype=np.float64) for a in (values, ci_low, ci_high))
    with np.errstate(invalid="ignore"):
        se = np.fmax(high - x, x - low) / z_value(level)
        usable = np.isfinite(x) & np.isfinite(se) & (se > 0)
    return x, se, usable


def period_trend(values, ci_low, ci_high, *, level: float = 0.95, index=None) -> PeriodTrend:
    """Test a trend, and the equality, of per-period estimates given with their intervals.

    Each estimate x_t gets the variance v_t = (max(high_t - x_t, x_t - low_t) / z)^2 read off its interval
    (z the normal quantile of `level`; the longer side, as a distance's interval is folded at parity) and
    the weight w_t = 1 / v_t. The trend is the weighted least-squares slope of x on the period's position t,
    b = sum w (t - t_w)(x - x_w) / S with S = sum w (t - t_w)^2, of variance max(1, R / (m - 2)) / S where
    R = sum w (x - x_w - b (t - t_w))^2 is the weighted residual sum of squares (the modified Knapp-Hartung
    scale: periods that vary more than their intervals say widen it, never narrower than 1 / S), tested and
    given an interval on Student's t with m - 2 degrees of freedom (on the normal with two periods); the t
    reference keeps the level although each v_t is itself estimated. A step is not a line: its residuals
    widen the slope's interval, and the equality test is the one that finds it. Equality across periods is
    Cochran's Q = sum w (x - x_w)^2 against chi-square with m - 1 degrees of freedom (the test of homogeneity
    of a meta-analysis). Both treat periods as independent samples and each interval as normal; periods
    without a value or interval are left out, never read as 0.

    Parameters
    ----------
    values, ci_low, ci_high : array-like of shape (n_periods,)
        Each period's estimate and interval (NaN where a period has none).
    level : float in (0, 1), default=0.95
        The intervals' level, and the level of the slope's interval.
    index : array-like of shape (n_periods,), optional
        The periods' positions in time (default 0, 1, ...): a gap of empty periods keeps its width.

    Returns
    -------
    PeriodTrend

    Raises
    ------
    ValueError
        For a level outside (0, 1) or arrays of different lengths.

    References
    ----------
    Cochran, W. G. (1954). The combination of estimates from different experiments. *Biometrics* 10(1), 101-129.
    Knapp, G. and Hartung, J. (2003). Improved tests for a random effects meta-regression with a single covariate.
    *Statistics in Medicine* 22(17), 2693-2710; the modified scale max(1, .) as in Röver, Knapp and Friede (2015),
    *BMC Medical Research Methodology* 15, 99.
    """
    level = check_ci(level, "period_trend")
    if level is None:
        raise ValueError("period_trend needs the intervals' level.")
    x, se, usable = _standard_errors(values, ci_low, ci_high, level)
    t = np.arange(len(x), dtype=np.float64) if index is None else np.asarray(index, dtype=np.float64)
    if not len(t) == len(x) == len(se):
        raise ValueError("period_trend needs values, intervals and index of the same length.")
    left_out = tuple(int(i) for i in np.flatnonzero(~usable))
    m = int(usable.sum())
    nan = float("nan")
    if m < 2:
        return PeriodTrend(nan, nan, nan, nan, nan, nan, m, left_out, level)
    from scipy.special import chdtrc, ndtr, stdtr, stdtrit

    w, x, t = 1.0 / se[usable] ** 2, x[usable], t[usable]
    x_w, t_w = np.sum(w * x) / w.sum(), np.sum(w * t) / w.sum()
    s = np.sum(w * (t - t_w) ** 2)
    q = float(np.sum(w * (x - x_w) ** 2))
    if s <= 0:   # every usable period at one position
        return PeriodTrend(nan, nan, nan, nan, q, float(chdtrc(m - 1, q)), m, left_out, level)
    slope = float(np.sum(w * (t - t_w) * (x - x_w)) / s)
    if m > 2:   # Knapp-Hartung: the residuals' spread, never below the intervals', and Student's t on m - 2
        residual = float(np.sum(w * (x - x_w - slope * (t - t_w)) ** 2))
        se_slope = float(np.sqrt(max(1.0, residual / (m - 2)) / s))
        quantile, p = stdtrit(m - 2, 1.0 - (1.0 - level) / 2.0), 2.0 * stdtr(m - 2, -abs(slope) / se_slope)
    else:
        se_slope = float(np.sqrt(1.0 / s))
        quantile, p = z_value(level), 2.0 * ndtr(-abs(slope) / se_slope)
    return PeriodTrend(slope, float(slope - quantile * se_slope), float(slope + quantile * se_slope), float(p), q,
                       float(chdtrc(m - 1, q)), m, left_out, level)


def period_changes(values, ci_low, ci_high, *, level: float = 0.95, baseline: int = 0,
                   adjust: str = "holm") -> pd.DataFrame:
    """Each period's change from a baseline period, corrected for the number of periods looked at.

    The change of period t is d_t = x_t - x_b, a difference of independent estimates with variance
    v_t + v_b (each read off its interval as in :func:`period_trend`) and a two-sided normal p-value. With m
    periods compared (those with a value and an interval), the intervals are at the Bonferroni level
    1 - (1 - level) / m, so that all m hold together, and a change is declared by Holm's step-down at family
    level 1 - `level` (``adjust='holm'``; it declares at least what Bonferroni does) or by Bonferroni. Looking at
    one chosen pair after seeing every period is looking at m: read its row here rather than testing it alone.

    Parameters
    ----------
    values, ci_low, ci_high : array-like of shape (n_periods,)
    level : float in (0, 1), default=0.95
    baseline : int, default=0
        The position of the period every other one is compared with.
    adjust : {'holm', 'bonferroni'}, default='holm'

    Returns
    -------
    DataFrame
        One row per period: ``position, change, ci_low, ci_high, p_value, changed`` (NaN and False for the
        baseline and for periods without a value or interval); ``attrs["level"]`` is the intervals' level and
        ``attrs["compared"]`` m.

    Raises
    ------
    ValueError
        For a baseline without a value or interval, an unknown `adjust`, or a level outside (0, 1).

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian Journal of
    Statistics* 6(2), 65-70.
    """
    level = check_ci(level, "period_changes")
    if level is None or adjust not in ADJUSTS:
        raise ValueError(f"period_changes needs a level in (0, 1) and adjust in {ADJUSTS}.")
    x, se, usable = _standard_errors(values, ci_low, ci_high, level)
    if not 0 <= baseline < len(x) or not usable[baseline]:
        raise ValueError(BASELINE_MESSAGE.format(got=baseline))
    from scipy.special import ndtr

    compared = usable.copy()
    compared[baseline] = False
    m = int(compared.sum())
    change = np.where(compared, x - x[baseline], np.nan)
    se_change = np.where(compared, np.sqrt(se ** 2 + se[baseline] ** 2), np.nan)
    family = 1.0 - (1.0 - level) / max(m, 1)
    half = z_value(family) * se_change
    p = np.where(compared, 2.0 * ndtr(-np.abs(change) / se_change), np.nan)
    changed = np.zeros(len(x), dtype=bool)
    if m:
        changed[compared] = rejections(p[compared], 1.0 - level, adjust)
    out = pd.DataFrame({"position": np.arange(len(x)), "change": change, "ci_low": change - half,
                        "ci_high": change + half, "p_value": p, "changed": changed})
    out.attrs.update(level=family, compared=m)
    return out
