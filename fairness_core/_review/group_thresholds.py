"""Per-group decision thresholds that bring a rate of every subgroup within a tolerance of each other (demographic
parity, equal opportunity, equalized odds) while losing the least of a measure: deterministic thresholds, one per
subgroup, read off one :class:`ThresholdCounts`.

Group-specific thresholds treat groups differently by design; they may not be lawful in every setting (e.g. where
a protected attribute may not be used at decision time). The functions here say what such thresholds would cost,
they do not make them acceptable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .._data.checks import check_option
from .._metrics.explorer import explorer_thresholds

#: The rates each constraint brings within the tolerance across subgroups.
CONSTRAINTS = {"demographic_parity": ("selection_rate",), "equal_opportunity": ("true_positive_rate",),
               "equalized_odds": ("true_positive_rate", "false_positive_rate")}
OBJECTIVES = ("balanced_accuracy", "accuracy")
DISJOINT_MESSAGE = ("group_thresholds needs subgroups that do not overlap and cover every row (intersected protected "
                    "attributes, no identity columns), so that each row has exactly one threshold.")
TOLERANCE_MESSAGE = "The 'tolerance' parameter of group_thresholds must be a number in [0, 1]. Got {got!r} instead."
LATTICE = 10   # window positions per tolerance for two rates at once (equalized odds)


@dataclass(frozen=True)
class GroupThresholds:
    """One decision threshold per subgroup that keeps a constraint's rates within a tolerance, and its cost.

    Attributes
    ----------
    thresholds : dict of str to float
        Each subgroup's threshold (predictions ``score >= threshold``); empty when no thresholds of the grid meet
        the constraint.
    table : DataFrame
        One row per subgroup, then "All rows": ``subgroup, size, threshold, selection_rate, true_positive_rate,
        false_positive_rate, accuracy, balanced_accuracy`` with these thresholds and, when a single threshold was
        given, the same measures at it (``<measure>_single``).
    constraint : str
    tolerance : float
    measure : str
        The objective (``'balanced_accuracy'`` or ``'accuracy'`` of all rows).
    value, single_value : float
        The objective with these thresholds, and at the single threshold (NaN when none was given).
    gap : float
        The largest difference between two subgroups in a constrained rate with these thresholds (<= tolerance).
    note : str
        Why there are no thresholds, when there are none.
    """

    thresholds: dict
    table: pd.DataFrame
    constraint: str
    tolerance: float
    measure: str
    value: float
    single_value: float
    gap: float
    note: str = ""


def _rates(cells: np.ndarray) -> dict:
    """Selection rate, TPR, FPR, accuracy and balanced accuracy of counts (..., 4) in the order TN, FP, FN, TP."""
    tn, fp, fn, tp = (cells[..., i].astype(np.float64) for i in range(4))
    with np.errstate(invalid="ignore", divide="ignore"):
        n, pos, neg = tn + fp + fn + tp, tp + fn, tn + fp
        tpr, tnr = tp / pos, tn / neg
        return {"selection_rate": (tp + fp) / n, "true_positive_rate": tpr, "false_positive_rate": fp / neg,
                "accuracy": (tp + tn) / n, "balanced_accuracy": (tpr + tnr) / 2}


def group_thresholds(counts, constraint: str = "equalized_odds", *, tolerance: float = 0.05,
                     measure: str = "balanced_accuracy", thresholds=None, n_points: int = 101,
                     single: Optional[float] = None) -> GroupThresholds:
    """One threshold per subgroup: the constraint's rates within `tolerance` across subgroups, the best `measure`.

    For disjoint subgroups g with thresholds t_g from a grid, the objective over all rows is a sum over the
    subgroups (accuracy: sum of (TP_g + TN_g) / n; balanced accuracy: (sum TP_g / P + sum TN_g / N) / 2), so for
    every window [c, c + tolerance] each subgroup independently takes its best threshold whose rate lies in the
    window, and the best window wins. One rate (demographic parity: selection rate; equal opportunity: true
    positive rate): every achievable rate is a window's lower end, so the optimum on the grid is exact. Two rates
    (equalized odds: true and false positive rate): the windows' lower ends run on a lattice of step
    ``tolerance / 10`` per rate, so the optimum is within that step of the grid's. A subgroup without positives
    (negatives) has no true (false) positive rate and is not constrained on it. Ties go to the threshold nearest
    `single` (else the lowest). Deterministic: no randomised decisions, unlike Hardt et al.'s post-processing.

    Parameters
    ----------
    counts : ThresholdCounts
        One score column sorted once, of disjoint subgroups (``counts.disjoint``).
    constraint : {'demographic_parity', 'equal_opportunity', 'equalized_odds'}, default='equalized_odds'
    tolerance : float in [0, 1], default=0.05
        The largest difference allowed between two subgroups' constrained rates.
    measure : {'balanced_accuracy', 'accuracy'}, default='balanced_accuracy'
    thresholds : array-like of float, optional
        The grid each subgroup's threshold is chosen from; default :func:`explorer_thresholds` with `n_points`
        (every distinct score when there are at most that many).
    n_points : int >= 2, default=101
    single : float, optional
        The single threshold in use, for the comparison columns and ties.

    Returns
    -------
    GroupThresholds

    Raises
    ------
    ValueError
        For overlapping subgroups (``DISJOINT_MESSAGE``), an unknown constraint or measure, or a tolerance outside
        [0, 1] (``TOLERANCE_MESSAGE``).

    References
    ----------
    Hardt, M., Price, E. & Srebro, N. (2016), "Equality of Opportunity in Supervised Learning", NeurIPS
    (group-specific thresholds for equal opportunity and equalized odds).
    """
    func = "group_thresholds"
    if not getattr(counts, "disjoint", False):
        raise ValueError(DISJOINT_MESSAGE)
    check_option(constraint, list(CONSTRAINTS), "constraint", func)
    check_option(measure, list(OBJECTIVES), "measure", func)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance <= 1:
        raise ValueError(TOLERANCE_MESSAGE.format(got=tolerance))
    grid = (explorer_thresholds(counts, n_points) if thresholds is None
            else np.unique(np.asarray(thresholds, dtype=np.float64).reshape(-1)))
    _, member, _, overall = counts.counts_at(grid)                       # (T, k, 4), (T, 4)
    totals = overall[0]
    positives, negatives = float(totals[2] + totals[3]), float(totals[0] + totals[1])
    tp, tn = member[..., 3].astype(np.float64), member[..., 0].astype(np.float64)
    gain = ((tp + tn) / (positives + negatives) if measure == "accuracy"
            else 0.5 * (tp / max(positives, 1.0) + tn / max(negatives, 1.0)))   # (T, k): additive over subgroups
    rates = _rates(member)
    chosen = _best_windows([rates[r] for r in CONSTRAINTS[constraint]], gain, float(tolerance), grid, single)
    names = list(counts.names)
    single_at = None if single is None else counts.at(float(single)).member
    if chosen is None:
        note = (f"No thresholds on the grid of {len(grid)} keep the {' and '.join(CONSTRAINTS[constraint])} of every "
                f"subgroup within {tolerance:g} of each other.")
        return GroupThresholds({}, _table(names, None, None, single_at), constraint, float(tolerance), measure,
                               np.nan, _objective(single_at, measure), np.nan, note)
    picked = member[chosen, np.arange(len(names))]                       # (k, 4)
    own = {n: float(grid[i]) for n, i in zip(names, chosen)}
    values = _rates(picked)
    gaps = [np.nanmax(values[r]) - np.nanmin(values[r]) for r in CONSTRAINTS[constraint]
            if np.isfinite(values[r]).any()]
    return GroupThresholds(own, _table(names, own, picked, single_at), constraint, float(tolerance), measure,
                           _objective(picked, measure), _objective(single_at, measure), float(max(gaps, default=0.0)))


def _best_windows(rates: list, gain: np.ndarray, tolerance: float, grid: np.ndarray, single) -> Optional[np.ndarray]:
    """Each subgroup's grid index in the best window (None when no window holds every subgroup)."""
    eps = 1e-12
    if len(rates) == 1:
        lows = [np.unique(rates[0][np.isfinite(rates[0])])]
    else:
        step = max(tolerance, 1e-3) / LATTICE
        lows = [np.arange(np.nanmin(r) - tolerance, np.nanmax(r) + step, step) if np.isfinite(r).any()
                else np.array([0.0]) for r in rates]
    # inside[j][l]: whether each (threshold, subgroup) has rate j in the window starting at lows[j][l]; a rate a
    # subgroup does not have (no positives, or no negatives) does not constrain it
    inside = [((r >= low[:, None, None] - eps) & (r <= low[:, None, None] + tolerance + eps)) | np.isnan(r)
              for r, low in zip(rates, lows)]                              # (L_j, T, k)
    # prefer, among equal gains, the threshold nearest the single one (else the lowest): a tiny tie-break
    score = gain - np.abs(grid - (single if single is not None else grid[0]))[:, None] * 1e-12
    best_total, best_pick = -np.inf, None
    first = inside[0]
    rest = inside[1] if len(inside) > 1 else np.ones((1,) + gain.shape, dtype=bool)
    for window in first:                                                   # (T, k); the other rate's windows at once
        masked = np.where(window[None] & rest, score[None], -np.inf)        # (L_2, T, k)
        best = masked.max(axis=1)                                          # (L_2, k)
        total = np.where(np.isfinite(best).all(axis=1), best.sum(axis=1), -np.inf)
        i = int(np.argmax(total))
        if total[i] > best_total + 1e-15:
            best_total, best_pick = total[i], masked[i].argmax(axis=0)
    return best_pick


def _objective(cells: Optional[np.ndarray], measure: str) -> float:
    """The objective of all rows for per-subgroup counts (k, 4); NaN for None."""
    if cells is None:
        return np.nan
    return float(_rates(cells.sum(axis=0))[measure])


def _table(names: list, own: Optional[dict], picked: Optional[np.ndarray],
           single: Optional[np.ndarray]) -> pd.DataFrame:
    """Per subgroup then all rows: the thresholds, rates and measures with them, and at the single threshold."""
    columns = ("selection_rate", "true_positive_rate", "false_positive_rate", "accuracy", "balanced_accuracy")
    base = picked if picked is not None else single
    rows = {"subgroup": names + ["All rows"],
            "size": (list(base.sum(axis=1).astype(np.int64)) + [int(base.sum())]) if base is not None
            else [np.nan] * (len(names) + 1),
            "threshold": [own[n] for n in names] + [np.nan] if own else [np.nan] * (len(names) + 1)}
    for cells, suffix in ((picked, ""), (single, "_single")):
        if cells is None:
            if suffix == "":
                rows.update({c: [np.nan] * (len(names) + 1) for c in columns})
            continue
        both = np.vstack([cells, cells.sum(axis=0, keepdims=True)])
        values = _rates(both)
        rows.update({c + suffix: values[c] for c in columns})
    return pd.DataFrame(rows)
