"""Fairness over time from per-period count tables: the same :class:`~.over_time.OverTime` as :func:`over_time`,
built from each period's ``ConfusionCounts`` (with their atoms) instead of the rows.

An engine (``fairness_core.engines.counts_over_time``) counts every period's confusion cells where the data lies, one
GROUP BY over (period, membership pattern, label, predictions); this module runs each period's tables through the
builders :func:`over_time` uses (``review._rate_review`` or its verdicts alone, ``conclusions.dataset_conclusions``),
so a period's numbers, intervals (seed 0) and verdicts are those of :func:`over_time` on the same rows.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from .conclusions import dataset_conclusions
from .config import ReviewConfig, dataset_options
from .over_time import LABELS, OverTime, _joined, _label_verdicts, _subgroup_rows, _verdict_review, _verdict_rows
from .records import LATEST, Review
from .review import _rate_review


@dataclass(frozen=True, eq=False)
class PeriodCounts:
    """Each period's count tables, as :func:`over_time_from_counts` reads them.

    Attributes
    ----------
    period : str
        The calendar period ('day', 'week', 'month', 'quarter').
    labels : list of str
        The periods' labels in time order (``str`` of pandas' ``Period``), every period from the first to the last.
    starts : list of Timestamp
        Each period's start (in `time_zone` when it has one).
    time_zone : str or None
        The zone the periods were cut in; None for naive times or dates.
    reasons : dict of str to int
        Kept rows without a period, by reason (``_data.periods.NO_TIME``).
    models : dict of str to list
        Per model (a score column at its threshold, or the predicted label column): each period's
        ``ConfusionCounts`` with atoms, None for a period without rows.
    kinds : dict of str to str
        Per model: ``'score'`` or ``'predictions'``.
    label_counts : list
        Each period's labels counted against themselves (TN = negatives, TP = positives), None without rows.
    thresholds : dict of str to float
        Each score's threshold, the same in every period.
    exclusions : DataFrame
        ``reason, rows``: the rows the review leaves out (missing label, score ...).
    """

    period: str
    labels: list
    starts: list
    time_zone: Optional[str]
    reasons: dict
    models: dict
    kinds: dict
    label_counts: list
    thresholds: dict
    exclusions: pd.DataFrame


def over_time_from_counts(counts: PeriodCounts, config: ReviewConfig, *, verdicts_only: bool = False,
                          labels: bool = True) -> OverTime:
    """The review's rate and label rules per period from each period's count tables.

    Per model and period the rate part of the review (``review._rate_review``; with `verdicts_only`, the verdicts,
    subjects and rate table alone), per period the labels' base-rate disparity and its rule
    (``conclusions.dataset_conclusions``), each with intervals from the period's atoms (seed 0). A period's rows are
    ``n = sum of its label table's cells`` and its positives ``TP`` of that table (the label counted against itself);
    a subgroup is small in a period when its size there is below ``min_size``.

    Parameters
    ----------
    counts : PeriodCounts
    config : ReviewConfig
        The configuration the counts were computed for (its rules, intervals and minimum size apply).
    verdicts_only : bool, default=False
        As :func:`over_time`: leave out each period's performance table, ``rates`` and findings.
    labels : bool, default=True
        False: leave out the rule about the labels.

    Returns
    -------
    OverTime
        Equal, table by table, to :func:`over_time` on the rows the counts were computed from.

    Raises
    ------
    ValueError
        For weighted counts (each period's weighted bootstrap keeps its rows: not computed from counts).
    """
    if any(c is not None and c.weighted for c in counts.label_counts):
        raise ValueError("Fairness over time from counts is unweighted: the weighted bootstrap of each period "
                         "keeps its rows. Tip: review the rows in memory (fairness_core.over_time).")
    n = len(counts.labels)
    label_review = _label_verdicts if verdicts_only else dataset_conclusions
    label_reviews = tuple(None if c is None else label_review(c, **dataset_options(config))
                          for c in counts.label_counts) if labels else ()
    review = _verdict_review if verdicts_only else _rate_review
    models = {name: tuple(None if c is None else review(c, name, counts.kinds[name], counts.thresholds.get(name),
                                                        config) for c in per_period)
              for name, per_period in counts.models.items()}
    rows = np.array([0 if c is None else int(round(float(c.overall.sum()))) for c in counts.label_counts],
                    dtype=np.int64).reshape(n)
    positives = np.array([0 if c is None else int(round(float(c.overall[3]))) for c in counts.label_counts],
                         dtype=np.int64).reshape(n)
    verdicts = [_verdict_rows(name, [None if r is None else r.verdicts for r in reviews], counts.labels, rows)
                for name, reviews in models.items()]
    if labels:
        verdicts.append(_verdict_rows(LABELS, [None if c is None else c.verdicts for c in label_reviews],
                                      counts.labels, rows))
    subgroups = _subgroup_rows(counts.label_counts, counts.labels)
    periods = pd.DataFrame({
        "period": counts.labels, "position": np.arange(n), "start": counts.starts, "rows": rows,
        "n_positive": positives,
        "small_subgroups": subgroups.groupby("position", sort=True)["small"].sum().reindex(
            range(n), fill_value=0).to_numpy(np.int64)})
    no_period = pd.DataFrame({"reason": list(counts.reasons), "rows": list(counts.reasons.values())})
    exclusions = pd.concat([counts.exclusions, no_period.loc[no_period["rows"] > 0]], ignore_index=True)
    return OverTime(config=config, period=counts.period, time_zone=counts.time_zone, periods=periods,
                    subgroups=subgroups.drop(columns="position"), verdicts=_joined(verdicts), models=models,
                    labels=label_reviews, thresholds=dict(counts.thresholds), exclusions=exclusions)



def with_counted_over_time(review: Review, over: OverTime, *, gate_period: Optional[str] = None) -> Review:
    """`review` (from counts) with its rules per period `over` and, optionally, the gate of the latest period.

    The counterpart of ``review_over_time.with_over_time`` for a review built from an engine's counts
    (``build_review_from_counts``), whose rules per period come from the same engine
    (``fairness_core.engines.counts_over_time``), not from rows.

    Parameters
    ----------
    review : Review
    over : OverTime
        The rules per period, on the same configuration as `review`.
    gate_period : {'latest'} or None, default=None
        'latest': the exit status follows the latest period's rules; None: every row's.

    Returns
    -------
    Review

    Raises
    ------
    ValueError
        For a gate period other than 'latest', or a gate of the latest period with a baseline (as
        ``with_over_time``).
    """
    if gate_period is not None and gate_period != LATEST:
        raise ValueError(f"The gate period must be {LATEST!r} (the latest period's rules) or None (every row's). "
                         f"Got {gate_period!r} instead.")
    if gate_period is not None and review.config.baseline is not None:
        raise ValueError("The gate of the latest period judges that period's rules; the changes from a baseline "
                         "are judged on every row. Tip: gate one or the other (leave out --gate-period or "
                         "--baseline).")
    return dataclasses.replace(review, over_time=over, gate_period=gate_period)
