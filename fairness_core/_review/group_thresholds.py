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
#: What the thresholds optimise: "max" measures of all rows are maximised; "keep" rates of all rows are kept at their
#: value at the single threshold (within ``KEEP_WITHIN``) while the balanced accuracy is maximised.
OBJECTIVES = {"balanced_accuracy": "max", "accuracy": "max", "selection_rate": "keep", "true_positive_rate": "keep",
              "true_negative_rate": "keep"}
KEEP_WITHIN = 0.005   # a kept rate within half a percentage point of its value at the single threshold is kept
KEEP_STEPS = 24       # bisection steps on the price of the kept rate
KEEP_BLOCK = 2_000_000   # (window, threshold, subgroup) cells priced at once
KEEP_MESSAGE = ("group_thresholds keeps the {measure} of all rows at its value at the single threshold: give single= "
                "(the threshold in use), or pick a measure that is maximised (balanced_accuracy, accuracy).")
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
        The objective (``OBJECTIVES``): the balanced accuracy or accuracy of all rows, maximised, or the selection
        rate, true positive rate or true negative rate of all rows, kept as at the single threshold.
    value, single_value : float
        The objective's measure of all rows with these thresholds, and at the single threshold (NaN when none was
        given).
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
                "true_negative_rate": tnr, "accuracy": (tp + tn) / n, "balanced_accuracy": (tpr + tnr) / 2}


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
    that a rate of 0 or 1 keeps an error). z is the smallest of a ladder (eight even steps from one pair's
    Φ⁻¹(held_out) / sqrt(2) to Bonferroni's over the pairs of subgroups and constrained rates,
    Φ⁻¹(1 - (1 - held_out) / pairs) / sqrt(2)) whose best thresholds keep the tolerance on new rows of the same sizes
    in a share `held_out` of samples, as ``expected_gap``'s simulation (at that share) judges them; else the largest
    z that leaves room, whose thresholds come closest. Bonferroni's z alone left no room for three subgroups of a
    few thousand rows (each pair's margins summed to the tolerance) and fell back to thresholds that decide nearly
    alike for everyone (a balanced accuracy of 0.52 where the rows alone give 0.79). Thresholds that decide within 0.01 of alike for everyone
    (balanced accuracy 0.5) are no answer. When no thresholds leave room for the margins (the
    subgroups are too small for the tolerance), they are fitted to the rows alone and ``kept`` is False. Either
    way ``expected_gap`` is the gap to expect on new rows (its 80th percentile under the same sampling errors).

    A kept measure (the selection rate, true positive rate or true negative rate of all rows: ``"keep"`` in
    ``OBJECTIVES``; e.g. keep the approval rate a lender can afford) is a count over the subgroups,
    K = sum_g k_g(t_g), with a target K* = its value at `single`. The thresholds maximise the balanced accuracy
    subject to K near K*, through its Lagrangian: for a price λ each subgroup independently maximises
    gain_g(t) - λ k_g(t) / D (D the rate's denominator over all rows), and λ is bisected (up to 24 steps) until the
    kept rate is within 0.005 of its target (``KEEP_WITHIN``); among the bisection's answers the best balanced
    accuracy within 0.005 wins, else the answer closest to the target (when the constraint leaves no thresholds
    that reach it). An answer of the Lagrangian has the highest balanced accuracy among the thresholds with its
    kept rate (Everett 1963), so only kept rates the Lagrangian skips can be missed. When the margins of `held_out`
    leave no thresholds that keep the rate within 0.005 and the rows alone do, the rows alone decide (``kept``
    False: keeping the approval rate a decision maker set comes before the tolerance on new rows, and the note
    says so).

    Parameters
    ----------
    counts : ThresholdCounts
        One score column sorted once, of disjoint subgroups (``counts.disjoint``).
    constraint : {'demographic_parity', 'equal_opportunity', 'equalized_odds'}, default='equalized_odds'
    tolerance : float in [0, 1], default=0.05
        The largest difference allowed between two subgroups' constrained rates.
    measure : {'balanced_accuracy', 'accuracy', 'selection_rate', 'true_positive_rate', 'true_negative_rate'}, \
default='balanced_accuracy'
        The objective (``OBJECTIVES``): the first two are maximised; the last three are kept as at `single`.
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
        For overlapping subgroups (``DISJOINT_MESSAGE``), an unknown constraint or measure, a kept measure without
        `single` (``KEEP_MESSAGE``), or a tolerance outside [0, 1] (``TOLERANCE_MESSAGE``).

    References
    ----------
    Hardt, M., Price, E. & Srebro, N. (2016), "Equality of Opportunity in Supervised Learning", NeurIPS
    (group-specific thresholds for equal opportunity and equalized odds).
    Everett, H. (1963), "Generalized Lagrange multiplier method for solving problems of optimum allocation of
    resources", Operations Research 11 (3) (the kept measure's price).
    """
    func = "group_thresholds"
    if not getattr(counts, "disjoint", False):
        raise ValueError(DISJOINT_MESSAGE)
    check_option(constraint, list(CONSTRAINTS), "constraint", func)
    check_option(measure, list(OBJECTIVES), "measure", func)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance <= 1:
        raise ValueError(TOLERANCE_MESSAGE.format(got=tolerance))
    if OBJECTIVES[measure] == "keep" and single is None:
        raise ValueError(KEEP_MESSAGE.format(measure=measure.replace("_", " ")))
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
    if OBJECTIVES[measure] == "keep":   # the kept rate's share per (threshold, subgroup), and its target
        share = _kept_share(member, measure)
        target = float(_rates(counts.at(float(single)).member.sum(axis=0))[measure])

        def best(margins=None):
            return _kept_windows(constrained, gain, share, target, float(tolerance), grid, single, margins)
    else:
        def best(margins=None):
            return _best_windows(constrained, gain, float(tolerance), grid, single, margins)
    chosen, kept = None, False
    if held_out is not None:
        # Thresholds that decide alike for everyone (all selected, or none) keep any tolerance and help no one: when
        # the margins leave nothing better, the subgroups are too small for the tolerance.
        trivial = max(positives, negatives) / max(positives + negatives, 1) if measure == "accuracy" else 0.5
        columns = np.arange(gain.shape[1])
        for z in _z_ladder(float(held_out), gain.shape[1], len(CONSTRAINTS[constraint])):   # the smallest z first
            pick = best(_margins(member, rates, CONSTRAINTS[constraint], z))
            if pick is None or gain[pick, columns].sum() <= trivial + TRIVIAL_MARGIN:
                break   # a larger z only narrows the room left
            chosen = pick
            if _expected_gap(member[pick, columns], CONSTRAINTS[constraint], float(held_out)) <= tolerance + 1e-12:
                break   # the tolerance holds on new rows in a share held_out of samples: the best such thresholds
        kept = chosen is not None
    if kept and OBJECTIVES[measure] == "keep":   # a kept rate the margins cannot keep: the rows alone may
        columns = np.arange(gain.shape[1])
        missed = abs(share[chosen, columns].sum() - target)
        if missed > KEEP_WITHIN:
            alone = best()
            if alone is not None and abs(share[alone, columns].sum() - target) < missed:
                chosen, kept = alone, False
    if chosen is None:
        chosen = best()
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
    value = _objective(picked, measure)
    if OBJECTIVES[measure] == "keep" and abs(value - target) > KEEP_WITHIN:
        note = " ".join(x for x in (note, (
            f"The {measure.replace('_', ' ')} of all rows is {value:.3f} with these thresholds, not within "
            f"{KEEP_WITHIN:g} of its {target:.3f} at the single threshold: no thresholds that keep the tolerance "
            f"come closer.")) if x)
    return GroupThresholds(own, _table(names, own, picked, single_at), constraint, float(tolerance), measure,
                           value, _objective(single_at, measure), float(max(gaps, default=0.0)),
                           note, expected, kept)


def _kept_share(member: np.ndarray, measure: str) -> np.ndarray:
    """Each (threshold, subgroup)'s share of a kept rate of all rows (T, k): its numerator over the rate's
    denominator over all rows (sums to the rate of all rows over the subgroups)."""
    tn, fp, fn, tp = (member[..., i].astype(np.float64) for i in range(4))
    total = member[0].sum(axis=0).astype(np.float64)   # every row's cell at the lowest threshold: TN + FP, FN + TP
    numerator, denominator = {"selection_rate": (tp + fp, total.sum()),
                              "true_positive_rate": (tp, total[2] + total[3]),
                              "true_negative_rate": (tn, total[0] + total[1])}[measure]
    return numerator / max(float(denominator), 1.0)


def _kept_windows(rates: list, gain: np.ndarray, share: np.ndarray, target: float, tolerance: float,
                  grid: np.ndarray, single, margins: Optional[list] = None) -> Optional[np.ndarray]:
    """Each subgroup's grid index keeping ``sum share`` near `target` at the best gain (see
    :func:`group_thresholds`); None when no window holds every subgroup.

    In each window every subgroup's thresholds are independent, so the window's Lagrangian (price λ = tan θ on the
    kept share) is bisected on θ in every window at once; the best answer within ``KEEP_WITHIN`` of the target
    (highest gain), else the closest, over every window and step."""
    inside, score = _windows(rates, gain, tolerance, grid, single, margins)
    first = inside[0]
    rest = inside[1] if len(inside) > 1 else np.ones((1,) + gain.shape, dtype=bool)
    k = gain.shape[1]
    best_key, best_pick = None, None
    block = max(1, KEEP_BLOCK // max(rest.size, 1))
    for start in range(0, len(first), block):   # windows of the first rate, a block at a time, with every other's
        allowed = (first[start:start + block, None] & rest[None]).reshape((-1,) + gain.shape)   # (F, T, k)
        allowed = allowed[allowed.any(axis=1).all(axis=1)]   # windows that hold every subgroup
        if not len(allowed):
            continue
        low = np.full(len(allowed), -np.pi / 2 + 1e-9)
        high = np.full(len(allowed), np.pi / 2 - 1e-9)
        theta = np.zeros(len(allowed))   # the unpriced best first
        for _ in range(KEEP_STEPS):
            priced = np.where(allowed, score[None] - np.tan(theta)[:, None, None] * share[None], -np.inf)
            pick = priced.argmax(axis=1)                                           # (F, k)
            kept = share[pick, np.arange(k)].sum(axis=1)
            total = gain[pick, np.arange(k)].sum(axis=1)
            gap = np.abs(kept - target)
            key = np.where(gap <= KEEP_WITHIN, 0.0, gap)   # within the tolerance first, then the best gain
            i = int(np.lexsort((-total, key))[0])
            if best_key is None or (key[i], -total[i]) < best_key:
                best_key, best_pick = (key[i], -total[i]), pick[i].copy()
            more = kept > target   # too much kept: a higher price
            low, high = np.where(more, theta, low), np.where(more, high, theta)
            theta = (low + high) / 2
    return best_pick


def _denominators(cells: np.ndarray, rate: str) -> np.ndarray:
    """The denominator of `rate` in counts (..., 4) ordered TN, FP, FN, TP."""
    tn, fp, fn, tp = (cells[..., i].astype(np.float64) for i in range(4))
    return {"selection_rate": tn + fp + fn + tp, "true_positive_rate": tp + fn, "false_positive_rate": tn + fp}[rate]


def _z_ladder(held_out: float, k: int, n_rates: int, steps: int = 8) -> np.ndarray:
    """The margins' multipliers z tried in turn (see :func:`group_thresholds`): from one pair's,
    Φ⁻¹(held_out) / sqrt(2), up to Bonferroni's over every pair of subgroups on every constrained rate,
    Φ⁻¹(1 - (1 - held_out) / pairs) / sqrt(2), in `steps` even steps (one value when there is one pair)."""
    from scipy.stats import norm

    pairs = max(k * (k - 1) // 2, 1) * n_rates
    low, high = (float(norm.ppf(1.0 - (1.0 - held_out) / n)) / np.sqrt(2.0) for n in (1, pairs))
    return np.linspace(low, high, steps) if pairs > 1 else np.array([low])


def _margins(member: np.ndarray, values: dict, rates: tuple, z: float) -> list:
    """Per constrained rate, the margin z sqrt(2 r (1 - r) / d) (T, k) each (threshold, subgroup) keeps inside the
    window (see :func:`group_thresholds`); `values`: :func:`_rates` of `member`."""
    out = []
    for rate in rates:
        r, d = values[rate], _denominators(member, rate)
        with np.errstate(invalid="ignore", divide="ignore"):
            shrunk = (np.nan_to_num(r) * d + 1.0) / (d + 2.0)   # a rate of 0 or 1 still has a sampling error
            out.append(np.where(d > 0, z * np.sqrt(2.0 * shrunk * (1.0 - shrunk) / np.where(d > 0, d, 1.0)), 0.0))
    return out


def _expected_gap(picked: np.ndarray, rates: tuple, share: float = EXPECTED_SHARE) -> float:
    """The `share` quantile (default the 80th percentile) of the largest gap between subgroups on new rows of the same
    sizes: each rate moved by N(0, 2 r (1 - r) / d), the fitted rows' error and the new rows' (seeded: the same counts
    give the same value)."""
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
    return float(np.quantile(largest, share))


def _windows(rates: list, gain: np.ndarray, tolerance: float, grid: np.ndarray, single,
             margins: Optional[list] = None) -> tuple:
    """The windows and the tie-broken gain of :func:`_best_windows`: ``inside[j]`` (L_j, T, k) says whether each
    (threshold, subgroup) has rate j (its margin inside, with `margins`) in the window starting at its l-th lower
    end; a rate a subgroup does not have (no positives, or no negatives) does not constrain it."""
    eps = 1e-12
    margins = [np.zeros_like(r) for r in rates] if margins is None else margins
    if len(rates) == 1:
        lows = [np.unique(rates[0][np.isfinite(rates[0])])]
    else:
        step = max(tolerance, 1e-3) / LATTICE
        lows = [np.arange(np.nanmin(r) - tolerance, np.nanmax(r) + step, step) if np.isfinite(r).any()
                else np.array([0.0]) for r in rates]
    inside = [((r - m >= low[:, None, None] - eps) & (r + m <= low[:, None, None] + tolerance + eps)) | np.isnan(r)
              for r, m, low in zip(rates, margins, lows)]                  # (L_j, T, k)
    # prefer, among equal gains, the threshold nearest the single one (else the lowest): a tiny tie-break
    return inside, gain - np.abs(grid - (single if single is not None else grid[0]))[:, None] * 1e-12


def _best_windows(rates: list, gain: np.ndarray, tolerance: float, grid: np.ndarray, single,
                  margins: Optional[list] = None) -> Optional[np.ndarray]:
    """Each subgroup's grid index in the best window (None when no window holds every subgroup); with `margins`
    (per rate, (T, k)) a rate must lie its margin inside the window."""
    inside, score = _windows(rates, gain, tolerance, grid, single, margins)
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
