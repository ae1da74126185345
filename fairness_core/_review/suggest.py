"""Thresholds suggested with their cost: where the Rate disparities page's rules pass with their whole interval
across decision thresholds, what each threshold costs each subgroup, and the passing threshold that best keeps a
measure the user picks.

Every threshold is read off one :class:`ThresholdCounts` (one sort of the score column): the confusion counts at a
threshold are array lookups (``ThresholdCounts.at``), never a new pass over the rows. At each threshold only what a
verdict needs is computed (each rule's value and interval as numbers: ``ConfusionCounts.largest_disparity`` and
``smallest_ratio_score``, from the same replicates and the same construction as the page's tables, without their
tables, notes or p-values), so the band equals what the page would conclude at each of its thresholds; a
threshold's whole verdicts (:func:`~fairness_core._review.conclusions.rate_verdicts`) are computed when asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable, ClassVar, Optional

import numpy as np
import pandas as pd

from .._data.checks import check_option
from .._metrics.explorer import explorer_thresholds
from .._metrics.performance import performance_table
from .._policy.verdicts import evaluate
from .conclusions import rate_page_rules, rate_verdicts

#: The measures a suggestion optimises: "max" ones are maximised over the passing thresholds; "keep" ones are kept
#: as close as possible to their value at the current threshold (maximising recall alone would predict everyone
#: positive).
MEASURES = {"balanced_accuracy": "max", "accuracy": "max", "recall": "keep", "precision": "keep",
            "selection_rate": "keep"}
CURRENT_MESSAGE = ("suggest_threshold keeps {measure!r} at its value at the current threshold: give current= (the "
                   "threshold in use), or pick a measure that is maximised ({maximised}).")
STATUS_ORDER = ("fail", "not_assessable", "inconclusive", "pass")   # a threshold's status: its rules' worst


@dataclass(frozen=True)
class ThresholdSuggestion:
    """Where the rate rules pass across thresholds, what each threshold costs, and the suggested threshold.

    Attributes
    ----------
    table : DataFrame
        One row per threshold, ascending: ``threshold``, ``status`` (``'pass'`` when every rule passes with its
        whole interval, ``'fail'`` when one fails, ``'not_assessable'`` when one cannot be assessed and none
        fails, else ``'inconclusive'``), one column per rule (named by ``Rule.name``) with its verdict's status,
        ``worst_disparity`` (the largest value of the rules on a rate disparity, in the units of the distance
        measure) and the overall ``balanced_accuracy, accuracy, recall, precision, selection_rate``.
    cost : DataFrame
        :func:`performance_table` at every threshold, with a leading ``threshold`` column: per threshold the
        rows "All rows" and each subgroup (``size``, ``selection_rate``, ``recall``, ``precision``,
        ``accuracy``, ``balanced_accuracy``, ...).
    verdicts : Mapping of float to tuple of Verdict
        Each threshold's verdicts, in the page's order (computed the first time a threshold is looked up).
    measure : str
        The measure of the suggestion (``MEASURES``).
    current : float or None
        The threshold in use, when given.
    suggested : float or None
        The passing threshold that best keeps `measure`; when no threshold passes, the threshold where no rule
        fails (each passes or is inconclusive) that best keeps it, with `basis` ``'no_fail'``; None when every
        threshold has a failing or unassessable rule.
    basis : {'pass', 'no_fail'} or None
        What the suggestion rests on: every rule passes with its whole interval there (``'pass'``), or none fails
        but one is inconclusive, the data too few to decide (``'no_fail'``); None without a suggestion.
    MEASURES : dict of str to str
        (class attribute) Each measure a suggestion can keep: ``'max'`` (maximised) or ``'keep'`` (kept as at
        the current threshold).
    """

    MEASURES: ClassVar[dict] = MEASURES
    table: pd.DataFrame
    cost: pd.DataFrame
    verdicts: dict
    measure: str
    current: Optional[float]
    suggested: Optional[float]
    basis: Optional[str] = None

    @property
    def rows_needed(self) -> float:
        """With a ``'no_fail'`` suggestion: about how many rows the smallest subgroup of its inconclusive rules
        would need for their intervals to decide them (the largest ``Verdict.smallest * Verdict.rows_factor``
        among them: an interval's width shrinks as one over the square root of the rows); NaN otherwise."""
        if self.basis != "no_fail":
            return float("nan")
        needed = [v.smallest * v.rows_factor for v in self.verdicts[self.suggested] if v.status == "inconclusive"]
        needed = [n for n in needed if np.isfinite(n)]
        return float(max(needed)) if needed else float("nan")

    @property
    def passing(self) -> np.ndarray:
        """The thresholds where every rule passes with its whole interval, ascending."""
        return self.table.loc[self.table["status"] == "pass", "threshold"].to_numpy(dtype=np.float64)

    @property
    def inconclusive(self) -> np.ndarray:
        """The thresholds where no rule fails but some rule is inconclusive, ascending."""
        return self.table.loc[self.table["status"] == "inconclusive", "threshold"].to_numpy(dtype=np.float64)

    def bands(self, status: str = "pass") -> list:
        """Runs of consecutive thresholds of the table with `status`, as ``[(first, last), ...]``."""
        on = (self.table["status"] == status).to_numpy()
        t = self.table["threshold"].to_numpy(dtype=np.float64)
        edges = np.flatnonzero(np.diff(np.concatenate([[0], on.astype(np.int8), [0]])))
        return [(float(t[a]), float(t[b - 1])) for a, b in zip(edges[::2], edges[1::2])]

    def bands_text(self, status: str = "pass") -> str:
        """:meth:`bands` in words: "0.2 to 0.3, 0.5" ("none" when there is none)."""
        return ", ".join(f"{a:g}" if a == b else f"{a:g} to {b:g}" for a, b in self.bands(status)) or "none"


def suggest_threshold(counts, positive_outcome: str = "favourable", *, thresholds=None, n_points: int = 101,
                      measure: str = "balanced_accuracy", current: Optional[float] = None,
                      rate_metrics=("false_positive_rate", "false_negative_rate"), distance_measure: str = "diff",
                      max_difference: float = 0.1, reference: str = "rest", include_small: bool = False,
                      ci: Optional[float] = 0.95, n_boot: int = 1000, adjust: Optional[str] = None,
                      random_state=0) -> ThresholdSuggestion:
    """Every threshold where the rate rules pass with their interval, its cost, and a suggested threshold.

    At each threshold t (predictions ``score >= t``) the verdicts are the Rate disparities page's
    (:func:`rate_conclusions`' verdicts: the four-fifths and equal opportunity rules on the favourable
    prediction, then a bound on each rate's largest disparity and on equalized odds) with their intervals. A
    threshold passes when every verdict passes: each whole interval meets its bound. The suggestion is, among
    the passing thresholds, the one with the highest `measure` over all rows (``'balanced_accuracy'``,
    ``'accuracy'``), or the one whose `measure` is closest to its value at `current` (``'recall'``,
    ``'precision'``, ``'selection_rate'``); ties go to the threshold nearest `current` (else the lowest). When no
    threshold passes, the suggestion is chosen the same way among the thresholds where no rule fails (each passes
    or is inconclusive), and says so (``basis='no_fail'``, with :attr:`ThresholdSuggestion.rows_needed`).

    Parameters
    ----------
    counts : ThresholdCounts
        One score column sorted once (:func:`threshold_counts`).
    positive_outcome : {'favourable', 'adverse'}, default='favourable'
        Whether a positive prediction is favourable for the person (the ratio scores compare the favourable one).
    thresholds : array-like of float, optional
        The thresholds assessed; default :func:`explorer_thresholds` (every distinct score when there are at most
        `n_points`, else an even grid), with `current` added.
    n_points : int >= 2, default=101
    measure : str, default='balanced_accuracy'
        One of ``MEASURES``.
    current : float, optional
        The threshold in use; required for a measure that is kept.
    rate_metrics, distance_measure, max_difference, reference, include_small, ci, n_boot, adjust, random_state
        As in :func:`rate_conclusions` (`ci` None: point estimates decide).

    Returns
    -------
    ThresholdSuggestion

    Raises
    ------
    ValueError
        For an unknown `measure`, a kept measure without `current` (``CURRENT_MESSAGE``), or as
        :func:`explorer_thresholds` and :func:`rate_conclusions`.

    References
    ----------
    Hardt, M., Price, E. & Srebro, N. (2016), "Equality of Opportunity in Supervised Learning" (choosing
    thresholds under a fairness constraint); here a single threshold, judged with intervals.
    """
    func = "suggest_threshold"
    check_option(measure, list(MEASURES), "measure", func)
    if MEASURES[measure] == "keep" and current is None:
        raise ValueError(CURRENT_MESSAGE.format(measure=measure, maximised=", ".join(
            m for m, how in MEASURES.items() if how == "max")))
    include = () if current is None else (float(current),)
    grid = (explorer_thresholds(counts, n_points, include=include) if thresholds is None
            else np.unique(np.concatenate([np.asarray(thresholds, dtype=np.float64).reshape(-1), include])))
    boot = dict(ci=ci, n_boot=n_boot, random_state=random_state)
    rules = rate_page_rules(positive_outcome, rate_metrics, distance_measure, max_difference)
    rows, costs = [], []
    for t in grid:
        at = counts.at(float(t))
        favourable = at.favourable(positive_outcome)
        estimates = [favourable.smallest_ratio_score(rate, include_small=include_small, **boot)
                     for rate in ("selection_rate", "true_positive_rate")]
        estimates += [at.largest_disparity(rule.metric, distance_measure=rule.distance_measure, reference=reference,
                                           include_small=include_small, **boot) for rule in rules[2:]]
        statuses = [evaluate(rule, value, ci_low=low, ci_high=high, level=ci).status
                    for rule, (value, low, high) in zip(rules, estimates)]
        status = next(s for s in STATUS_ORDER if s in statuses)
        performance = performance_table(at)
        overall = performance.iloc[0]
        bounded = [value for value, _, _ in estimates[2:] if np.isfinite(value)]
        rows.append({"threshold": float(t), "status": status, **{r.name: s for r, s in zip(rules, statuses)},
                     "worst_disparity": max(bounded, default=np.nan), **{m: float(overall[m]) for m in MEASURES}})
        costs.append(performance.assign(threshold=float(t)))

    def verdicts_at(t: float) -> tuple:   # the page's whole verdicts at one threshold
        at = counts.at(t)

        def disparity(metric: str, distance: str, reduction: str):
            kw = dict(distance_measure=distance, reduction=reduction, reference=reference,
                      include_small=include_small, adjust=adjust, **boot)
            return at.equalized_odds(**kw) if metric == "equalized_odds" else at.disparity(metric, **kw)

        return rate_verdicts(at, positive_outcome, rate_metrics=rate_metrics, distance_measure=distance_measure,
                             max_difference=max_difference, include_small=include_small, disparity=disparity,
                             **boot)[0]

    verdicts = _Verdicts(grid, verdicts_at)
    table = pd.DataFrame(rows)
    cost = pd.concat(costs, ignore_index=True)
    cost = cost[["threshold", *[c for c in cost.columns if c != "threshold"]]]
    basis = "pass"
    suggested = _suggested(table, measure, current)
    if suggested is None:   # nothing passes: the best threshold where nothing fails, said as such
        basis, suggested = "no_fail", _suggested(table, measure, current, status="inconclusive")
    return ThresholdSuggestion(table, cost, verdicts, measure, None if current is None else float(current),
                               suggested, None if suggested is None else basis)


class _Verdicts(Mapping):
    """Each threshold's verdicts, computed by `compute(threshold)` the first time the threshold is looked up."""

    def __init__(self, thresholds, compute: Callable[[float], tuple]):
        self._thresholds = tuple(float(t) for t in thresholds)
        self._compute, self._done = compute, {}

    def __getitem__(self, threshold) -> tuple:
        t = float(threshold)
        if t not in self._done:
            if t not in self._thresholds:
                raise KeyError(threshold)
            self._done[t] = self._compute(t)
        return self._done[t]

    def __iter__(self):
        return iter(self._thresholds)

    def __len__(self) -> int:
        return len(self._thresholds)


def _suggested(table: pd.DataFrame, measure: str, current: Optional[float], status: str = "pass") -> Optional[float]:
    """The threshold of `status` that best keeps `measure` (see :func:`suggest_threshold`); None if none has it."""
    passing = table[(table["status"] == status) & table[measure].notna()]
    if passing.empty:
        return None
    t = passing["threshold"].to_numpy(dtype=np.float64)
    value = passing[measure].to_numpy(dtype=np.float64)
    if MEASURES[measure] == "max":
        gap = value.max() - value
    else:
        target = float(table.loc[np.isclose(table["threshold"], current), measure].iloc[0])
        gap = np.abs(value - target) if np.isfinite(target) else np.zeros_like(value)
    best = np.flatnonzero(np.isclose(gap, gap.min(), rtol=0, atol=1e-12))
    distance = np.abs(t[best] - current) if current is not None else t[best]
    return float(t[best][np.argmin(distance)])
