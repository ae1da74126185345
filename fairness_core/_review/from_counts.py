"""A review from count tables computed where the data lives (``fairness_core.engines.ScoredCounts``).

The same :class:`Review` as :func:`build_review`, from the counts alone: every per-model part goes
through the builders ``build_review`` uses (``_rate_review``, ``with_aucs_and_calibration``). What
needs the rows is left out and said so in ``Review.source["not_computed"]``: kNN consistency,
per-subgroup thresholds, differences between models and the slice, and bootstrap intervals unless
the counts hold their atoms (``ScoredCounts.with_atoms``). Weighted counts (a mapping with a weight column)
give the weighted review, with intervals from their atoms as the rows in memory give them.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import Optional

import numpy as np

from .._counts.confusion import base_rate_counts
from .._counts.weights import effective_size
from .._metrics.smoothed_edf import smoothed_edf_from_counts
from .conclusions import dataset_conclusions
from .._stats.intervals import weighted_wilson_interval, wilson_interval
from .config import ReviewConfig, dataset_options, threshold_for_range
from .records import Review
from .review import _rate_review, with_aucs_and_calibration, with_classwise

NOT_COMPUTED = ("kNN consistency", "per-subgroup thresholds", "differences between models")
NO_ATOMS = "confidence intervals (the counts hold no atoms: ScoredCounts.with_atoms)"


def build_review_from_counts(counts, config: ReviewConfig, *, source: Optional[dict] = None) -> Review:
    """The review of `config` from an engine's count tables, with intervals when they hold their atoms.

    The configuration's minimum subgroup size and calibration bins apply (the engine counts the
    bins again when they are not the counts' own).

    Parameters
    ----------
    counts : fairness_core.engines.ScoredCounts
        From ``scored_counts(source, config.mapping, ...)``; a model whose configured threshold
        differs from ``counts.threshold`` is counted again at its own (``ScoredCounts.confusion_at``).
    config : ReviewConfig
        Its mapping must be ``counts.mapping``; ``ci`` applies when the counts hold their atoms
        (``counts.atoms``: the same intervals as :func:`build_review` with the same seed) and is
        ignored otherwise; a slice is refused. With a weight column (``counts.weighted``) every table
        is weighted: counts are sums of weights, sizes Kish's effective sizes (the subgroup table's
        ``size``, with its sum of weights in ``weight``), the base rate the weighted share of
        positives with the Wilson interval of its effective size, and with ``ci`` (and atoms) the
        weighted intervals.
    source : dict, optional
        Facts about the input recorded in the review (e.g. ``{"name": "logs/*.parquet"}``).

    Returns
    -------
    Review
        ``source`` also holds ``engine`` and ``not_computed``: what needs the rows, and what the counts could not
        compute within their bounds and why (``ScoredCounts.not_computed``: intervals over the bound on membership
        patterns, exact AUC levels over theirs), its verdicts then judged on what was computed.

    Raises
    ------
    ValueError
        If the configuration has a slice, or its mapping (but for the minimum subgroup size) is not
        the one the counts were computed for.
    """
    from .._version import __version__

    if config.slice.conditions:
        raise ValueError("A slice needs the rows: filter the data where it lives (e.g. a view) instead.")
    min_size = config.mapping.min_size
    if dataclasses.replace(config.mapping, min_size=counts.mapping.min_size) != counts.mapping:
        raise ValueError("The configuration's column mapping is not the one the counts were computed for.")
    if not counts.atoms:
        config = dataclasses.replace(config, ci=None)
    weighted = bool(getattr(counts, "weighted", False))
    boot = dict(ci=config.ci, n_boot=config.n_boot, random_state=0)
    models = []
    for score in counts.mapping.scores:
        threshold = float(dict(config.thresholds).get(score, threshold_for_range(*counts.score_ranges[score])))
        confusion = (counts.confusion[score] if threshold == counts.threshold
                     else counts.confusion_at(score, threshold))
        review = _rate_review(dataclasses.replace(confusion, min_size=min_size), score, "score", threshold, config)
        calibration = counts.calibration_at(score, int(config.cal_n_bins), config.cal_strategy)
        table = counts.auc[score].table(config.ci, n_boot=config.n_boot, random_state=0)
        models.append(with_aucs_and_calibration(
            review, table.assign(small=table["size"] < min_size),
            None if calibration is None else dataclasses.replace(calibration, min_size=min_size),
            _calibration_note(counts, score), config))
    if counts.given is not None:   # the predicted label column, as build_review reviews it
        given = dataclasses.replace(counts.given, min_size=min_size)
        # the subgroups' rows (as build_review orders them for a difference's default pair), asked for only when
        # class-wise bias is reviewed
        sizes = given.member.sum(axis=1) if not weighted or counts.n_classes <= 2 else counts.subgroup_rows()
        models.append(with_classwise(
            _rate_review(given, counts.mapping.predicted_label, "predictions", None, config), config,
            counts.n_classes, list(given.names), sizes,
            lambda: dataclasses.replace(counts.classes, min_size=min_size)))
    first = dataclasses.replace(counts.confusion[counts.mapping.scores[0]] if counts.mapping.scores else counts.given,
                                min_size=min_size)
    label_counts = (dataclasses.replace(counts.label_counts(), min_size=min_size) if counts.atoms
                    else base_rate_counts(first))   # min_size: the configuration's
    dataset = dataset_conclusions(label_counts, **dataset_options(config))
    n_pos, n = float(first.overall[2] + first.overall[3]), float(first.overall.sum())
    level = config.ci if config.ci is not None else 0.95
    if weighted:   # the weighted share of positives on its effective size
        positive_sq = float(first.overall_sq[2] + first.overall_sq[3])
        low, high = weighted_wilson_interval(n_pos, n, positive_sq, float(first.overall_sq.sum()) - positive_sq, level)
    else:
        low, high = wilson_interval(int(n_pos), int(n), level)
    subgroups = _subgroup_table(first, n, counts.subgroup_rows() if weighted else None)
    info = dict(source or {}) | {"engine": counts.engine, "rows_input": counts.n_input, "rows_in_slice": counts.n_input,
                                 "rows_used": counts.n_rows, "slice": "all rows",
                                 "not_computed": list(NOT_COMPUTED) + _not_computed(counts)}
    if weighted:   # as build_review records a weight column
        info |= {"weight": config.mapping.weight, "weight_total": n,
                 "effective_rows": float(effective_size(n, float(first.overall_sq.sum())))}
    return Review(
        config=config, source=info, exclusions=counts.exclusions, subgroups=subgroups,
        base_rate=(n_pos / n, float(low), float(high)), dataset_parity=dataset.results["parity"],
        dataset_findings=dataset.findings, dataset_verdicts=dataset.verdicts,
        edf=(smoothed_edf_from_counts(label_counts, concentration=float(config.dataset_concentration),
                                      include_small=config.include_small, **boot) if label_counts.disjoint else None),
        models=tuple(models), created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        version=__version__)


def _subgroup_table(first, n: float, rows=None):
    """``subgroup, size, share, n_positive, n_negative, small`` of the confusion counts `first` (over every kept row,
    `n` in all), as ``ScoredData.subgroup_table``; with sample weights ``size`` is the effective size, ``share``
    and the counts are shares and sums of weights, and ``rows`` (the subgroups' `rows`) and ``weight`` (their sums
    of weights) follow."""
    import pandas as pd

    totals = first.member.sum(axis=1)
    positives = first.member[:, 2] + first.member[:, 3]
    if not first.weighted:
        return pd.DataFrame({"subgroup": first.names, "size": totals.astype(np.int64), "share": totals / max(n, 1),
                             "n_positive": positives.astype(np.int64),
                             "n_negative": (totals - positives).astype(np.int64), "small": totals < first.min_size})
    return pd.DataFrame({"subgroup": first.names, "size": first.sizes,
                         "share": totals / n if n > 0 else np.zeros(len(totals)), "n_positive": positives,
                         "n_negative": totals - positives, "small": first.small,
                         "rows": np.asarray(rows, dtype=np.int64), "weight": totals})


def _not_computed(counts) -> list:
    """What the counts could not compute and why (``ScoredCounts.not_computed``), and the intervals when the counts
    hold no atoms (``NO_ATOMS``)."""
    return ([] if counts.atoms else [NO_ATOMS]) + list(getattr(counts, "not_computed", ()))


def _calibration_note(counts, score: str) -> str:
    note = counts.calibration_notes.get(score, "")
    return f"Not assessed: {note}" if note else ""
