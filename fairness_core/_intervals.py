"""Confidence intervals of single estimates: the level check, the normal quantile, Wilson's interval (§5.6).

Composite numbers (power means, disparities, ECE, ...) get bootstrap intervals instead; see
``_bootstrap.py``. DeLong intervals of AUCs are in ``_delong.py``.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

CI_MESSAGE = (
    "The 'ci' parameter of {func} must be None or a confidence level strictly between 0 and 1, "
    "such as 0.95. Got {got!r} instead."
)


def check_ci(ci, func: str) -> float | None:
    """Return `ci` as a float level in (0, 1), or None; raise ValueError (``CI_MESSAGE``) otherwise."""
    if ci is None:
        return None
    if isinstance(ci, bool) or not isinstance(ci, (int, float, np.integer, np.floating)) or not 0.0 < float(ci) < 1.0:
        raise ValueError(CI_MESSAGE.format(func=func, got=ci))
    return float(ci)


def z_value(level: float) -> float:
    """Two-sided normal quantile z = ``scipy.stats.norm.ppf(1 - (1 - level) / 2)`` (1.96 for 0.95)."""
    return float(norm.ppf(1.0 - (1.0 - level) / 2.0))


def wilson_interval(successes, trials, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a proportion k / n.

    centre = (k + z²/2) / (n + z²),  half-width = z / (n + z²) · sqrt(k (n - k) / n + z² / 4),

    with z the two-sided normal quantile of `level`. The bounds always lie in [0, 1] and the
    interval is never empty at k = 0 or k = n, unlike the Wald interval.

    Parameters
    ----------
    successes, trials : array-like of shape (n,) or scalars
        Counts k and n, with 0 <= k <= n. Where n = 0 the interval is NaN.
    level : float in (0, 1)
        Confidence level, e.g. 0.95.

    Returns
    -------
    low, high : ndarray of float, shape (n,)

    References
    ----------
    Wilson, E. B. (1927), "Probable inference, the law of succession, and statistical inference",
    JASA 22(158). Equal to ``statsmodels.stats.proportion.proportion_confint(method="wilson")``.

    Examples
    --------
    >>> low, high = wilson_interval(3, 10, 0.95)
    >>> round(float(low), 4), round(float(high), 4)
    (0.1078, 0.6032)
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    z = z_value(level)
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = (k + z2 / 2.0) / (n + z2)
        half = z / (n + z2) * np.sqrt(np.maximum(k * (n - k) / n, 0.0) + z2 / 4.0)
        low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    # Exact ends: the bound at k = 0 (or k = n) is 0 (or 1), without rounding error.
    low = np.where((n > 0) & (k == 0), 0.0, low)
    high = np.where((n > 0) & (k == n), 1.0, high)
    return low, high
