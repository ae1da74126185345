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
        The largest difference between two subgroups in a constrained rate with these thresholds, on the rows they
        were fitted on (<= tolerance).
    expected_gap : float
        The gap to expect on new rows of the same sizes: the 80th percentile of the largest difference when each
        subgroup's rate moves by its sampling error twice (the error of the fitted rows and that of the new ones,
        each r (1 - r) / d with d the rate's denominator). NaN without thresholds.
    kept : bool
        Whether the thresholds were fitted with the margins that keep the tolerance on new rows (``held_out``);
        False when no thresholds could (the subgroups are too small for the tolerance), so these are fitted on the
        rows alone and ``expected_gap`` says how far new rows may stray.
    note : str
        Why there are no thresholds, or why the tolerance cannot be promised on new rows; empty otherwise.
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
    expected_gap: float = float("nan")
    kept: bool = False


def _rates(cells: np.ndarray) -> dict:
    """Selection rate, TPR, FPR, accuracy and balanced accuracy of counts (..., 4) in the order TN, FP, FN, TP."""
    tn, fp, fn, tp = (cells[..., i].astype(np.float64) for i in range(4))
    with np.errstate(invalid="ignore", divide="ignore"):
        n, pos, neg = tn + fp + fn + tp, tp + fn, tn + fp
        tpr, tnr = tp / pos, tn / neg
        return {"selection_rate": (tp + fp) / n, "true_positive_rate": tpr, "false_positive_rate": fp / neg,
                "accuracy": (tp + tn) / n, "balanced_accuracy": (tpr + tnr) / 2}


HELD_OUT_MESSAGE = ("The 'held_out' parameter of group_thresholds must be None or a share in [0.5, 1), the share of "
                    "new samples in which the tolerance should hold. Got {got!r} instead.")
EXPECTED_SHARE = 0.8    # expected_gap: the gap new rows stay below in four samples of five
TRIVIAL_MARGIN = 0.01   # thresholds within this of deciding alike for everyone are no answer
EXPECTED_DRAWS = 2000


def group_thresholds(counts, constraint: str = "equalized_odds", *, tolerance: float = 0.05,
                     measure: str = "balanced_accuracy", thresholds=None, n_points: int = 101,
                     single: Optional[float] = None, held_out: Optional[float] = 0.8) -> GroupThresholds:
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

    Thresholds fitted to the rows keep the tolerance on those rows only: on new rows every rate moves by its
    sampling error. With `held_out` (default 0.8) each subgroup's rate must lie a margin inside the window,
    m_g = z sqrt(2 r_g (1 - r_g) / d_g) (d_g the rate's denominator: the subgroup's rows, positives or negatives;
    the factor 2 for the error of the fitted rows and that of new ones; r_g shrunk to (r_g d_g + 1) / (d_g + 2) so
    that a rate of 0 or 1 keeps an error), with z = Φ⁻¹(1 - (1 - held_out) / pairs) / sqrt(2) over the pairs of
    subgroups and constrained rates, so that on new rows of the same sizes each pair stays within the tolerance
    with probability about 1 - (1 - held_out) / pairs. Thresholds that decide within 0.01 of alike for everyone
    (balanced accuracy 0.5) are no answer. When no thresholds leave room for the margins (the
    subgroups are too small for the tolerance), they are fitted to the rows alone and ``kept`` is False. Either
    way ``expected_gap`` is the gap to expect on new rows (its 80th percentile under the same sampling errors).

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
    held_out : float in [0.5, 1) or None, default=0.8
        The share of new samples (of the same sizes) in which the tolerance should hold; None fits the rows alone
        (the tolerance then holds on them, and about half the time on new rows).

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
    if held_out is not None and (isinstance(held_out, bool) or not isinstance(held_out, (int, float))
                                 or not 0.5 <= held_out < 1):
        raise ValueError(HELD_OUT_MESSAGE.format(got=held_out))
    grid = (explorer_thresholds(counts, n_points) if thresholds is None
            else np.unique(np.asarray(thresholds, dtype=np.float64).reshape(-1)))
    _, member, _, overall = counts.counts_at(grid)                       # (T, k, 4), (T, 4)
    totals = overall[0]
    positives, negatives = float(totals[2] + totals[3]), float(totals[0] + totals[1])
    tp, tn = member[..., 3].astype(np.float64), member[..., 0].astype(np.float64)
    gain = ((tp + tn) / (positives + negatives) if measure == "accuracy"
            else 0.5 * (tp / max(positives, 1.0) + tn / max(negatives, 1.0)))   # (T, k): additive over subgroups
    rates = _rates(member)
    constrained = [rates[r] for r in CONSTRAINTS[constraint]]
    chosen, kept = None, False
    if held_out is not None:
        margins = _margins(member, rates, CONSTRAINTS[constraint], float(held_out))
        chosen = _best_windows(constrained, gain, float(tolerance), grid, single, margins)
        # Thresholds that decide alike for everyone (all selected, or none) keep any tolerance and help no one: when
        # the margins leave nothing better, the subgroups are too small for the tolerance.
        trivial = 0.5 if measure == "balanced_accuracy" else max(positives, negatives) / max(positives + negatives, 1)
        if chosen is not None and gain[chosen, np.arange(gain.shape[1])].sum() <= trivial + TRIVIAL_MARGIN:
            chosen = None
        kept = chosen is not None
    if chosen is None:
        chosen = _best_windows(constrained, gain, float(tolerance), grid, single)
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
    expected = _expected_gap(picked, CONSTRAINTS[constraint])
    note = "" if kept or held_out is None else (
        f"These thresholds keep the tolerance of {tolerance:g} on the rows they were fitted on only: no thresholds "
        f"leave room for the sampling error of subgroups this small, and on new rows of the same sizes expect a gap "
        f"up to {expected:.3f} (in four samples of five). More rows per subgroup, or a larger tolerance, would keep it.")
    return GroupThresholds(own, _table(names, own, picked, single_at), constraint, float(tolerance), measure,
                           _objective(picked, measure), _objective(single_at, measure), float(max(gaps, default=0.0)),
                           note, expected, kept)


def _denominators(cells: np.ndarray, rate: str) -> np.ndarray:
    """The denominator of `rate` in counts (..., 4) ordered TN, FP, FN, TP."""
    tn, fp, fn, tp = (cells[..., i].astype(np.float64) for i in range(4))
    return {"selection_rate": tn + fp + fn + tp, "true_positive_rate": tp + fn, "false_positive_rate": tn + fp}[rate]


def _margins(member: np.ndarray, values: dict, rates: tuple, held_out: float) -> list:
    """Per constrained rate, the margin (T, k) each (threshold, subgroup) keeps inside the window (see
    :func:`group_thresholds`); `values`: :func:`_rates` of `member`."""
    from scipy.stats import norm

    k = member.shape[1]
    pairs = max(k * (k - 1) // 2, 1) * len(rates)   # every pair of subgroups on every constrained rate
    z = float(norm.ppf(1.0 - (1.0 - held_out) / pairs)) / np.sqrt(2.0)
    out = []
    for rate in rates:
        r, d = values[rate], _denominators(member, rate)
        with np.errstate(invalid="ignore", divide="ignore"):
            shrunk = (np.nan_to_num(r) * d + 1.0) / (d + 2.0)   # a rate of 0 or 1 still has a sampling error
            out.append(np.where(d > 0, z * np.sqrt(2.0 * shrunk * (1.0 - shrunk) / np.where(d > 0, d, 1.0)), 0.0))
    return out


def _expected_gap(picked: np.ndarray, rates: tuple) -> float:
    """The 80th percentile of the largest gap between subgroups on new rows of the same sizes: each rate moved by
    N(0, 2 r (1 - r) / d), the fitted rows' error and the new rows' (seeded: the same counts give the same value)."""
    rng = np.random.default_rng(20240611)
    values = _rates(picked)
    largest = np.zeros(EXPECTED_DRAWS)
    for rate in rates:
        r, d = values[rate], _denominators(picked, rate)
        ok = np.isfinite(r) & (d > 0)
        if ok.sum() < 2:
            continue
        sd = np.sqrt(2.0 * r[ok] * (1.0 - r[ok]) / d[ok])
        drawn = r[ok] + rng.standard_normal((EXPECTED_DRAWS, int(ok.sum()))) * sd
        largest = np.maximum(largest, drawn.max(axis=1) - drawn.min(axis=1))
    return float(np.quantile(largest, EXPECTED_SHARE))


def _best_windows(rates: list, gain: np.ndarray, tolerance: float, grid: np.ndarray, single,
                  margins: Optional[list] = None) -> Optional[np.ndarray]:
    """Each subgroup's grid index in the best window (None when no window holds every subgroup); with `margins`
    (per rate, (T, k)) a rate must lie its margin inside the window."""
    eps = 1e-12
    margins = [np.zeros_like(r) for r in rates] if margins is None else margins
    if len(rates) == 1:
        lows = [np.unique(rates[0][np.isfinite(rates[0])])]
    else:
        step = max(tolerance, 1e-3) / LATTICE
        lows = [np.arange(np.nanmin(r) - tolerance, np.nanmax(r) + step, step) if np.isfinite(r).any()
                else np.array([0.0]) for r in rates]
    # inside[j][l]: whether each (threshold, subgroup) has rate j in the window starting at lows[j][l]; a rate a
    # subgroup does not have (no positives, or no negatives) does not constrain it
    inside = [((r - m >= low[:, None, None] - eps) & (r + m <= low[:, None, None] + tolerance + eps)) | np.isnan(r)
              for r, m, low in zip(rates, margins, lows)]                  # (L_j, T, k)
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
