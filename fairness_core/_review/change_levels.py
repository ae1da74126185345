"""The low ends that decide a release gate's fails (one-sided joint, max-t, bounds of a candidate's changes) and
the tolerance each change is judged against, in its own units (:func:`change_tolerance`).

A change fails where the low end of its interval of worsening is above the tolerance, so an equal candidate is
failed by chance when any low end lies above its change's truth. The gate keeps that chance at (1 - level) / 2,
the error of one interval's low end, whatever the number of changes. Bonferroni (each low end at the one-sided
error (1 - level) / (2 m)) does so whatever the changes' dependence, and is wider than needed where they depend
on each other: a candidate's rate disparities, equalized odds and ratio scores move together, and so do its
subgroups' ECEs. Their paired bootstrap draws them jointly, so the gate reads the dependence off the replicates:
the maximum over the changes of the studentized worsening (Romano & Wolf 2005), each change standardised by the
ranks of its own replicates (the percentile bootstrap's max-t, Mandel & Betensky 2008;
:func:`~fairness_core._stats.simultaneous.simultaneous_level` with ``side="low"``).

The changes of one candidate come in families that no bootstrap draws jointly: the rates' paired bootstrap, the
ECEs' (another resampling) and the AUCs' DeLong variances (no replicates). The error (1 - level) / 2 is split
between the families in proportion to their changes (weighted Bonferroni, valid whatever the dependence between
families); within a family with replicates its share is spent by the max-t, within one without (the AUCs) by
Bonferroni, which leaves each AUC's low end where it was.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

#: The quantities that are ratios of two rates whatever the review's distance measure: min(r1 / r0, r0 / r1).
RATIO_SCORES = ("p_percent_score", "equal_opportunity_score")
#: The quantities that are never ratios: differences of probabilities (AUCs, ECEs).
PROBABILITY_QUANTITIES = ("subgroup_auc", "bpsn_auc", "bnsp_auc", "ece")
#: A ratio quantity's tolerance per unit of the gate's tolerance (a difference of rates): a ratio r1 / r0 moves by
#: about d / r0 when r1 moves by d, i.e. 1 / r0 times as much as the difference; 2 is that factor at a rate of 0.5.
RATIO_PER_DIFFERENCE = 2.0
#: The difference tables whose changes have jointly drawn paired replicates (and the column that names a change).
JOINT_KINDS = {"rates": "quantity", "calibration": "subgroup"}


def joint_low_ends(table: pd.DataFrame, replicates: dict, level: Optional[float]) -> tuple[np.ndarray, np.ndarray]:
    """Each change's low end of worsening, at the level its family's joint one-sided bound needs, and that level.

    With m changes that have a value, a family f (one candidate's changes of one kind, or of one jointly drawn
    part of a kind) of m_f of them gets the one-sided error a_f = (1 - level) / 2 * m_f / m. A family with paired
    replicates W (n_boot, m_f) of the worsening (sign x replicates of the difference) has its low ends at the
    level L_f = ``simultaneous_level(W, 1 - a_f, side="low")``: the percentile intervals at L_f hold every
    change's truth above its low end together in a share 1 - a_f of the replicates (between the unadjusted
    1 - 2 a_f and Bonferroni's 1 - 2 a_f / m_f). Each low end is then the lower end of the percentile interval of
    the difference's replicates at L_f, flipped with the sign (``percentile_interval``, as the difference tables'
    intervals). A family without replicates (the AUCs, DeLong's Wald intervals d -/+ z se clipped to [-1, 1])
    is at Bonferroni's level 1 - 2 a_f / m_f = 1 - (1 - level) / m. Summed over the families, the chance that
    some low end lies above its truth is at most (1 - level) / 2.

    Parameters
    ----------
    table : DataFrame
        :func:`~fairness_core._review.gate.change_table` with ``sources=True``: ``model, quantity, subgroup,
        worsening, ci_low, ci_high, kind, sign, se``.
    replicates : dict
        ``{kind: {model: [(keys, draws), ...]}}``: per difference table with replicates (``'rates'``,
        ``'calibration'``), per candidate, the parts drawn jointly, each the keys of its columns (quantities, or
        subgroups with None for all rows) and the replicates of the differences (n_boot, len(keys)), as
        ``compare_models(_replicates=...)`` and ``compare_model_calibration(_replicates=...)`` fill them.
    level : float in (0, 1) or None
        The review's level; None: no intervals (the table's low ends are returned).

    Returns
    -------
    low : ndarray of shape (n_changes,)
        Each change's low end of worsening (NaN where it has none).
    levels : ndarray of shape (n_changes,)
        The (two-sided) level of the interval whose low end it is; NaN where the change has no value.

    References
    ----------
    Romano, J. P. & Wolf, M. (2005). Exact and approximate stepdown methods for multiple hypothesis testing.
    Journal of the American Statistical Association 100(469), 94-108.
    Mandel, M. & Betensky, R. A. (2008). Simultaneous confidence intervals based on the percentile bootstrap
    approach. Computational Statistics & Data Analysis 52(4), 2158-2165.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian Journal of
    Statistics 6(2), 65-70 (the weighted Bonferroni split between families).
    """
    from .._stats.bootstrap import percentile_interval
    from .._stats.intervals import z_value
    from .._stats.simultaneous import simultaneous_level

    low = table["ci_low"].to_numpy(dtype=np.float64).copy()
    levels = np.full(len(table), np.nan)
    if level is None or not len(table):
        return low, levels
    worsening = table["worsening"].to_numpy(dtype=np.float64)
    valued = np.isfinite(worsening)
    m = int(valued.sum())
    if m == 0:
        return low, levels
    error = (1.0 - level) / 2.0
    bonferroni = 1.0 - (1.0 - level) / m
    sign = table["sign"].to_numpy(dtype=np.float64)
    kind = table["kind"].to_numpy(dtype=object)
    model = table["model"].to_numpy(dtype=object)
    done = np.zeros(len(table), dtype=bool)
    for k, key_column in JOINT_KINDS.items():
        keys = table[key_column].to_numpy(dtype=object)
        for name, parts in replicates.get(k, {}).items():
            for columns, draws in parts:
                where = {key: j for j, key in enumerate(columns)}
                rows = np.flatnonzero((kind == k) & (model == name) & valued & ~done
                                      & np.array([key in where for key in keys]))
                if not len(rows):
                    continue
                diff = np.asarray(draws, dtype=np.float64)[:, [where[key] for key in keys[rows]]]
                share = error * len(rows) / m
                joint = simultaneous_level(sign[rows] * diff, 1.0 - share, side="low")
                d_low, d_high, _ = percentile_interval(diff, joint)
                flipped = np.where(sign[rows] > 0, d_low, -d_high)
                low[rows] = np.where(np.isnan(low[rows]), np.nan, flipped)   # no interval in the table: none here
                levels[rows] = joint
                done[rows] = True
    rest = np.flatnonzero(valued & ~done)   # no replicates: each low end at Bonferroni's level
    if len(rest):
        levels[rest] = bonferroni
        se = table["se"].to_numpy(dtype=np.float64)[rest]
        delong = np.isfinite(se)
        if delong.any():   # DeLong's Wald interval of the difference at Bonferroni's level, as compare_model_aucs
            z = z_value(bonferroni)
            diff = sign[rest] * worsening[rest]
            ends = np.sort(np.stack([sign[rest] * np.clip(diff - z * se, -1.0, 1.0),
                                     sign[rest] * np.clip(diff + z * se, -1.0, 1.0)]), axis=0)[0]
            low[rest[delong]] = np.where(np.isnan(low[rest[delong]]), np.nan, ends[delong])
        if not delong.all():
            raise ValueError("joint_low_ends: a change without replicates or a standard error has no low end at "
                             "Bonferroni's level; give the replicates of its difference table.")
    return low, levels


def change_tolerance(quantity: str, tolerance: float, rate_distance: str = "diff") -> float:
    """The tolerance of a change in `quantity`, in its own units, from the gate's tolerance, which is in the units of
    a difference of rates.

    A difference of probabilities takes `tolerance` as given: a rate disparity or equalized odds under the distance
    ``'diff'``, a subgroup, BPSN or BNSP AUC, an ECE. A ratio of rates takes ``RATIO_PER_DIFFERENCE * tolerance``:
    the p% and equal opportunity scores (min(r1 / r0, r0 / r1)) and, under the distance ``'ratio'``, a rate
    disparity or equalized odds (max / min). When one rate moves by d and the other, r, stays, their ratio moves by
    about d / r: 1 / r times their difference, 2 at r = 0.5 (at the selection rates 0.3-0.5 of a typical review,
    2-3.3). The factor is fixed rather than 1 / r of the baseline's rates so that the margin is set before the data
    are seen and a sentence can state it; at r = 0.5 it is the smallest of those factors for rates up to 0.5, so
    the ratio's tolerance is no looser than the difference's there (it is looser above 0.5: at a true positive rate
    of 0.8 a ratio score's 0.02 is a difference of 0.016). It also puts the ratio scores as many sampling standard
    deviations from the tolerance as the rate disparities: at 10^5 rows their paired changes vary by 0.003-0.004
    against the disparities' 0.0018-0.0024 (``benchmarks/gate_equal_candidate.py``), so one tolerance of 0.01 for
    both left an equal candidate's ratio scores inconclusive in 15-20 % of data sets each.

    Parameters
    ----------
    quantity : str
        :attr:`~fairness_core._review.gate.ChangeVerdict.quantity`.
    tolerance : float >= 0
        The gate's tolerance (``ReviewConfig.max_worsening``, the command line's ``--max-worsening``).
    rate_distance : {'diff', 'ratio'}, default='diff'
        The review's distance of the rate disparities (``ReviewConfig.rate_distance``).

    Returns
    -------
    float

    Examples
    --------
    >>> change_tolerance("p_percent_score", 0.01), change_tolerance("false_positive_rate", 0.01)
    (0.02, 0.01)
    >>> change_tolerance("false_positive_rate", 0.01, rate_distance="ratio"), change_tolerance("bpsn_auc", 0.01)
    (0.02, 0.01)
    """
    return RATIO_PER_DIFFERENCE * float(tolerance) if is_ratio(quantity, rate_distance) else float(tolerance)


def is_ratio(quantity: str, rate_distance: str = "diff") -> bool:
    """Whether a change in `quantity` is of a ratio of rates (see :func:`change_tolerance`).

    Parameters
    ----------
    quantity : str
    rate_distance : {'diff', 'ratio'}, default='diff'

    Returns
    -------
    bool
    """
    return quantity in RATIO_SCORES or (rate_distance == "ratio" and quantity not in PROBABILITY_QUANTITIES)
