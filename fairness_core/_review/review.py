"""A model review: every number, finding and policy verdict of the dashboard's pages from one configuration.

:func:`build_review` is the one builder behind the app's exports and the command line
(``python -m fairness_core``): the same configuration gives the same tables, findings and
verdicts wherever it runs. It calls the public metric functions with the options of
:class:`ReviewConfig`, whose defaults are the dashboard's defaults; the policy rules each page
applies, and each page's findings and verdicts, are built in one place (``_review.conclusions``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
from functools import lru_cache
from typing import Callable, Optional, Sequence

import numpy as np
import pandas as pd

from .._counts.calibration import calibration_counts
from .._counts.confusion import confusion_counts
from .._counts.rates import RATE_TO_METRIC
from .._counts.scored_data import ScoredData
from .._counts.thresholds import threshold_counts
from .._metrics.auc import bias_auc_table
from .._metrics.consistency import consistency
from .._metrics.performance import performance_table
from .._metrics.smoothed_edf import smoothed_edf
from .._metrics.subgroup_thresholds import subgroup_threshold_effect
from .._models.aucs import compare_model_aucs
from .._models.calibration import compare_model_calibration
from .._models.rates import compare_models
from .._counts.weights import effective_size
from .conclusions import (auc_conclusions, calibration_conclusions, classwise_conclusions, dataset_conclusions,
    rate_conclusions)
from .change_levels import joint_low_ends
from .gate import change_table, change_verdicts, gate_level
from .suggest import suggest_threshold
from .config import ReviewConfig, calibration_options, dataset_options, rate_options
from .records import ModelReview, Review, ReviewDiscovery


def build_review(frame: pd.DataFrame, config: ReviewConfig, *, source: Optional[dict] = None,
                 data: Optional[bytes] = None, discover: Sequence[str] = (), discover_quantity: str = "selection_rate",
                 discover_depth: int = 2) -> Review:
    """Compute a whole review of `frame` under `config`: every page's numbers, findings and verdicts.

    Per score column: the subgroup, BPSN and BNSP AUCs with the bias AUC score, the rates at its
    threshold (performance, each assessed rate's disparity, equalized odds, p% and equal
    opportunity scores) and, for a probability, calibration; the predicted-label column, if
    mapped, gets the rate part, and for a label with more than two classes class-wise bias. A score
    with ``subgroup_thresholds`` gets the per-subgroup thresholds table. Then the base-rate
    disparity and smoothed EDF of the labels, and their kNN consistency when
    ``consistency_features`` are set (on ``consistency_sample`` rows). With a ``baseline`` and two
    or more scores, every other score's differences from it with paired intervals
    (``Review.differences``), judged against ``max_worsening`` (``Review.changes``). Intervals and samples use seed 0, so a review is reproducible.

    Parameters
    ----------
    frame : DataFrame
        The table as loaded (before the slice).
    config : ReviewConfig
    source : dict, optional
        Facts about the input recorded in the review (e.g. ``{"name": "compas.csv"}``).
    data : bytes, optional
        The input file's bytes, for its SHA-256 and size.
    discover : sequence of str, default=()
        Columns to search for the subgroups each model treats worst (:func:`review_discovery`: ``Review.discovery``,
        findings that never gate); none: no search.
    discover_quantity : str, default='selection_rate'
        The rate compared by the search (a rate of :func:`group_rates`, or ``'subgroup_auc'``).
    discover_depth : {1, 2, 3}, default=2
        The most columns intersected by the search.

    Returns
    -------
    Review

    Raises
    ------
    ValueError
        As :meth:`ScoredData.from_frame` for a mapping that does not fit the data (each message
        says what to do), when the slice leaves no row, when the baseline is not a mapped score, or
        for class-wise, per-subgroup threshold or consistency options that do not fit the data (e.g.
        a feature column that is missing or not numeric); for columns to search that are not in the data (or
        as :func:`discover_subgroups`).

    See Also
    --------
    fairness_core._review.review_over_time.with_over_time : the review's rules per period of the time column, and
        the gate of the latest period.
    """
    from .._version import __version__

    level, n_boot = config.ci, config.n_boot
    sliced = frame if not config.slice.conditions else frame.loc[config.slice.mask(frame)].reset_index(drop=True)
    scored = ScoredData.from_frame(sliced, config.mapping)
    groups, y, w = scored.subgroups, scored.y_true, scored.weights
    info = dict(source or {})
    if data is not None:
        info |= {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    info |= {"rows_input": int(len(frame)), "rows_in_slice": int(len(sliced)), "rows_used": int(len(y)),
             "slice": config.slice.describe()}
    if w is not None:
        info |= {"weight": config.mapping.weight, "weight_total": float(w.sum()),
                 "effective_rows": float(effective_size(w.sum(), (w * w).sum()))}
    boot = dict(ci=level, n_boot=n_boot, random_state=0)

    unknown = [score for score, _ in config.subgroup_thresholds if score not in scored.scores]
    if unknown:
        raise ValueError(f"Per-subgroup thresholds are given for {unknown}, which are not mapped score columns "
                         f"({list(scored.scores)}).")
    models = [_score_review(scored, score, config) for score in scored.scores]
    if scored.predicted is not None:
        counts = confusion_counts(y, scored.y_pred(), groups, sample_weight=w)
        models.append(with_classwise(
            _rate_review(counts, config.mapping.predicted_label, "predictions", None, config), config,
            len(scored.class_names), scored.subgroups.names, scored.subgroups.sizes, scored.class_counts))

    label_counts = confusion_counts(y, y, groups, sample_weight=w)
    dataset = dataset_conclusions(label_counts, **dataset_options(config))
    replicates = {}   # the paired replicates of the changes, for the gate's joint low ends (model_changes)
    differences = _differences(scored, config, replicates)
    discovery = (review_discovery(sliced, scored, config, discover, quantity=discover_quantity, depth=discover_depth)
                 if discover else None)
    return Review(
        config=config, source=info, exclusions=scored.exclusions, subgroups=scored.subgroup_table(),
        base_rate=(scored.base_rate, *scored.base_rate_interval(level if level is not None else 0.95)),
        dataset_parity=dataset.results["parity"],
        dataset_findings=dataset.findings, dataset_verdicts=dataset.verdicts,
        edf=(smoothed_edf(y, groups, concentration=float(config.dataset_concentration),
                          include_small=config.include_small, sample_weight=w, **boot)
             if groups.codes is not None else None),
        models=tuple(models), created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        version=__version__, consistency=_consistency(sliced, scored, config),
        differences=differences, changes=model_changes(scored, config, differences, replicates),
        discovery=discovery)


def review_discovery(sliced: pd.DataFrame, scored: ScoredData, config: ReviewConfig, columns: Sequence[str], *,
                     quantity: str = "selection_rate", depth: int = 2, top_k: int = 10) -> ReviewDiscovery:
    """Subgroup discovery on each model of a review: :func:`discover_subgroups` with the review's own rows,
    predictions, weights, favourable outcome, minimum size and binning.

    Each score is searched at its threshold (prediction = score >= threshold, as the review's rate rules judge it),
    the predicted label column as given. With intervals (``config.ci``), a random half of the rows (seed 0) is kept
    apart: the search ranks the intersections on the other half and each subgroup found is estimated on the kept
    half alone, with the MOVER interval of its difference from the rest (Newcombe 1998) and Benjamini-Hochberg
    over the subgroups returned at 1 - ``ci``. Without intervals the search reports on every row, with no interval.

    Parameters
    ----------
    sliced : DataFrame
        The rows in the review's slice (``ScoredData.rows`` are positions in it).
    scored : ScoredData
        The review's validated data.
    config : ReviewConfig
        Read: ``thresholds``, ``ci``, and the mapping's ``min_size``, ``n_bins``, ``positive_outcome``.
    columns : sequence of str
        Columns of `sliced` to search (protected attributes or any other, at most 100 values each after binning).
    quantity : str, default='selection_rate'
        The rate compared (``'selection_rate'``, ``'true_positive_rate'``, ``'false_positive_rate'``,
        ``'false_negative_rate'``, ``'false_omission_rate'``, ``'false_discovery_rate'``, ``'error_rate'``) or
        ``'subgroup_auc'``, ``'bpsn_auc'``, ``'bnsp_auc'`` or ``'calibration_error'`` (scores only: the predicted
        label column is then skipped, said in ``skipped``). Identity columns of the mapping that are searched define
        only their members (value at least the mapping's ``indicator_threshold``).
    depth : {1, 2, 3}, default=2
    top_k : int, default=10
        Subgroups kept per model.

    Returns
    -------
    ReviewDiscovery

    Raises
    ------
    ValueError
        For a column that is not in the data, or as :func:`discover_subgroups` (an unknown quantity, a depth outside
        1-3, a column of more than 100 values).

    References
    ----------
    Sagadeeva, S. & Boehm, M. (2021). SliceLine: Fast, linear-algebra-based slice finding for ML model debugging.
    SIGMOD 2021. Benjamini, Y. & Hochberg, Y. (1995). JRSS B 57(1), 289-300.
    """
    from .discovery import SCORE_QUANTITIES, discover_subgroups

    columns = tuple(dict.fromkeys(str(c) for c in columns))
    missing = [c for c in columns if c not in sliced.columns]
    if missing:
        raise ValueError(f"The columns to search for subgroups {', '.join(map(repr, missing))} are not columns of "
                         f"the data. Columns: {', '.join(map(str, sliced.columns))}.")
    attributes = sliced[list(columns)].iloc[scored.rows].reset_index(drop=True)
    level = config.ci
    options = dict(columns=list(columns), quantity=quantity, depth=depth, min_size=int(config.mapping.min_size),
                   top_k=top_k, positive_outcome=config.mapping.positive_outcome,
                   ci=0.95 if level is None else level, holdout=0.0 if level is None else 0.5, random_state=0,
                   sample_weight=scored.weights, n_bins=int(config.mapping.n_bins),
                   indicators=[c for c in config.mapping.indicators if c in columns],
                   indicator_threshold=float(config.mapping.indicator_threshold))
    results, skipped = {}, []
    for score, values in scored.scores.items():
        predicted = (values >= config.threshold_of(score, values)).astype(np.int8)
        results[score] = discover_subgroups(scored.y_true, predicted, attributes, y_score=values, **options)
    if scored.predicted is not None:
        name = config.mapping.predicted_label
        if quantity in SCORE_QUANTITIES:
            what = "calibration error" if quantity == "calibration_error" else "AUC"
            skipped.append((name, f"given predictions have no score, so no {what} to compare"))
        else:
            results[name] = discover_subgroups(scored.y_true, scored.y_pred(), attributes, **options)
    found = next(iter(results.values()), None)
    return ReviewDiscovery(columns=columns, quantity=quantity if found is None else found.quantity, depth=int(depth),
                           results=results, skipped=tuple(skipped))


def model_changes(scored: ScoredData, config: ReviewConfig, differences: Optional[dict] = None,
                  replicates: Optional[dict] = None) -> tuple:
    """Each other score's changes from the baseline score, judged against ``config.max_worsening``.

    The release gate's judgement of a candidate model against the current one.

    The changes are those of :func:`~fairness_core._review.gate.change_table`: each rate's reduced disparity,
    equalized odds, the p% and equal opportunity scores (each score at its threshold; paired bootstrap), every
    subgroup, BPSN and BNSP AUC (DeLong's covariance of correlated AUCs) and every subgroup's ECE (paired bootstrap),
    signed so that positive is worse. With intervals, each is judged for non-inferiority on its paired interval: it
    fails when the low end is above the tolerance, the low ends joint one-sided bounds over the m changes with a
    value (``_review.change_levels.joint_low_ends``: a max-t over the paired bootstrap's replicates of each
    candidate's rate changes and of its ECE changes, Bonferroni's ``1 - (1 - ci) / m`` for the AUCs, so that an
    equal candidate fails with a chance of at most (1 - ci) / 2); passes when the high end, at ``ci`` itself, is at most the tolerance (the candidate passes only
    if every change does, which needs no adjustment: ``_review.gate``); and is inconclusive otherwise. Without
    intervals the point value decides. Small subgroups are left out unless ``config.include_small``.

    Parameters
    ----------
    scored : ScoredData
        Two or more score columns, among them ``config.baseline``.
    config : ReviewConfig
        Read: ``baseline``, ``max_worsening``, ``thresholds``, ``rate_metrics``, ``rate_distance``,
        ``rate_reduction``, ``rate_reference``, ``include_small``, ``ci``, ``n_boot``, ``cal_n_bins``,
        ``cal_strategy``, ``cal_min_per_group`` and the mapping's ``positive_outcome``.
    differences : dict, optional
        The difference tables at ``config.ci`` when already computed (``Review.differences``).
    replicates : dict, optional
        Their paired replicates, as ``_differences(scored, config, replicates)`` filled them; without them the
        differences are computed again (seed 0: the same replicates).

    Returns
    -------
    tuple of ChangeVerdict
        Empty without a baseline or with fewer than two scores.

    Raises
    ------
    ValueError
        When the baseline is not a mapped score column.
    """
    if differences is None or (replicates is None and config.ci is not None):
        replicates = {}
        differences = _differences(scored, config, replicates)
    if not differences:
        return ()
    table = change_table(differences, config.baseline, include_small=config.include_small, sources=True)
    level = gate_level(config.ci, int(np.isfinite(table["worsening"].to_numpy(dtype=np.float64)).sum()))
    if level is not None:   # the low ends joint one-sided bounds (each row at its family's level); high ends at ci
        low, levels = joint_low_ends(table, replicates, config.ci)
        table = table.assign(ci_low=low, level=levels)
    return change_verdicts(table, config.baseline, config.max_worsening, level, config.ci,
                          rate_distance=config.rate_distance)


def _differences(scored: ScoredData, config: ReviewConfig, replicates: Optional[dict] = None) -> dict:
    """Each score's differences from the configured baseline score, with paired intervals (seed 0): rate
    disparities, equalized odds and the ratio scores at each threshold, the AUCs, and for probabilities the ECEs.
    `replicates`, a dict, receives the rates' and the ECEs' paired replicates (``{"rates": ..., "calibration":
    ...}``, as ``_review.change_levels.joint_low_ends`` reads them)."""
    replicates = {} if replicates is None else replicates
    if config.baseline is None:
        return {}
    if config.baseline not in scored.scores:
        raise ValueError(f"The baseline model {config.baseline!r} is not a mapped score column "
                         f"({list(scored.scores)}).")
    if len(scored.scores) < 2:
        return {}
    groups, y, level, w = scored.subgroups, scored.y_true, config.ci, scored.weights
    boot = dict(ci=level, n_boot=config.n_boot, random_state=0)
    weighted = {} if w is None else {"sample_weight": w}
    predictions = {s: v >= config.threshold_of(s, v) for s, v in scored.scores.items()}
    quantities = [RATE_TO_METRIC[r] for r in config.rate_metrics] + ["equalized_odds", "p_percent_score",
                                                                  "equal_opportunity_score"]
    out = {"rates": compare_models(y, predictions, groups, baseline=config.baseline, quantities=quantities,
                                   distance_measure=config.rate_distance, reduction=config.rate_reduction,
                                   reference=config.rate_reference, include_small=config.include_small,
                                   positive_outcome=config.mapping.positive_outcome,
                                   _replicates=replicates.setdefault("rates", {}), **weighted, **boot),
           "aucs": compare_model_aucs(y, scored.scores, groups, baseline=config.baseline, ci=level, **weighted)}
    probabilities = {s: v for s, v in scored.scores.items() if v.min() >= 0 and v.max() <= 1}
    if config.baseline in probabilities and len(probabilities) >= 2:
        out["calibration"] = compare_model_calibration(
            y, probabilities, groups, baseline=config.baseline, n_bins=int(config.cal_n_bins),
            strategy=config.cal_strategy, min_per_group=int(config.cal_min_per_group),
            _replicates=replicates.setdefault("calibration", {}), **weighted, **boot)
    return out


def _score_review(scored: ScoredData, score: str, config: ReviewConfig) -> ModelReview:
    values = scored.scores[score]
    groups, y, w = scored.subgroups, scored.y_true, scored.weights
    threshold = config.threshold_of(score, values)
    tc = threshold_counts(y, values, groups, sample_weight=w)
    review = _rate_review(tc.at(threshold), score, "score", threshold, config)
    own = dict(config.subgroup_thresholds).get(score)
    if own is not None:
        if not tc.disjoint:
            raise ValueError(f"Per-subgroup thresholds (given for {score!r}) need subgroups that do not overlap and "
                             "cover every row: intersected protected attributes, no identity columns.")
        review = dataclasses.replace(review, subgroup_thresholds=subgroup_threshold_effect(
            tc, threshold, dict(own), config.rate_metrics, distance_measure=config.rate_distance,
            reduction=config.rate_reduction, reference=config.rate_reference, include_small=config.include_small))
    if config.suggest_measure is not None:
        review = dataclasses.replace(review, suggestion=suggest_threshold(
            tc, config.mapping.positive_outcome, measure=config.suggest_measure, current=threshold,
            **{k: v for k, v in rate_options(config).items() if k != "adjust"}, adjust=config.adjust))
    table = bias_auc_table(y, values, groups, ci=config.ci, n_boot=config.n_boot, random_state=0, sample_weight=w)
    counts = note = None
    if values.min() < 0 or values.max() > 1:
        note = f"Not assessed: {score} ranges from {values.min():g} to {values.max():g}, so it is not a probability."
    else:
        counts = calibration_counts(y, values, groups, n_bins=int(config.cal_n_bins), strategy=config.cal_strategy,
                                    sample_weight=w)
    return with_aucs_and_calibration(review, table, counts, note or "", config)


def with_aucs_and_calibration(review: ModelReview, table: pd.DataFrame, counts, note: str,
                              config: ReviewConfig) -> ModelReview:
    """A score's review completed with its AUC table, bias AUC score and calibration, findings and verdicts.

    The one place both builders (rows in memory, :func:`build_review`; counts from an engine,
    ``build_review_from_counts``) turn an AUC table and calibration counts into the review's parts.

    Parameters
    ----------
    review : ModelReview
        The rate part (:func:`_rate_review`).
    table : DataFrame
        The per-subgroup AUC table (``bias_auc_table`` or ``AucCounts.table``).
    counts : CalibrationCounts or None
        None when the score is not a probability (`note` says why).
    note : str
    config : ReviewConfig

    Returns
    -------
    ModelReview
    """
    aucs = auc_conclusions(table, config.mapping, p=float(config.auc_p), overall_weight=float(config.auc_weight),
                           include_small=config.include_small, ci=config.ci, min_score=config.auc_min_score)
    bias, findings, verdicts = aucs.results["bias_auc"], list(aucs.findings), list(aucs.verdicts)
    subjects = _subjects(aucs)
    calibration = reliability = None
    if counts is not None:
        cal = calibration_conclusions(counts, **calibration_options(config))
        calibration, reliability = cal.results["calibration"], counts.reliability_table(ci=config.ci)
        findings += cal.findings
        verdicts += cal.verdicts
        subjects += _subjects(cal)
    return dataclasses.replace(review, auc_table=table, bias_auc=bias, calibration=calibration,
                               reliability=reliability, calibration_note=note,
                               findings=tuple(findings) + review.findings, verdicts=tuple(verdicts) + review.verdicts,
                               subjects=subjects + review.subjects)


def _consistency(sliced: pd.DataFrame, scored: ScoredData, config: ReviewConfig):
    """kNN consistency of the labels on the configured features (rows of the analysis), or None."""
    features = list(config.consistency_features)
    if not features:
        return None
    missing = [c for c in features if c not in sliced.columns]
    if missing:
        raise ValueError(f"The consistency features {missing} are not columns of the data.")
    try:
        return consistency(sliced[features].iloc[scored.rows], scored.y_true,
                           n_neighbors=int(config.consistency_neighbors),
                           sample_size=None if config.consistency_sample is None else int(config.consistency_sample),
                           random_state=0)
    except TypeError as exc:   # a feature that is not numeric: bad input, not a defect
        raise ValueError(str(exc)) from None


def with_classwise(review: ModelReview, config: ReviewConfig, n_classes: int, names: list, sizes,
                   class_counts: Callable) -> ModelReview:
    """`review` (of the predicted label column) with class-wise bias when the label has more than two classes.

    `names` and `sizes` are the subgroups' (the default pair of a difference: the two largest);
    `class_counts()` gives the ClassCounts, asked for only when there are more than two classes. The
    one place both review builders (rows, :func:`build_review`; counts, ``build_review_from_counts``)
    add class-wise bias.
    """
    if n_classes <= 2:
        return review
    pair = None
    if config.classwise_reduction in ("difference", "absolute_difference"):
        pair = list(config.classwise_subgroups)
        if not pair:   # the two largest subgroups, largest first (stable on ties), as the app's default
            order = np.argsort(-np.asarray(sizes), kind="stable")
            pair = [names[int(i)] for i in (order[0], order[min(1, len(order) - 1)])]
    classwise = classwise_conclusions(class_counts(), metric=config.classwise_metric,
                                      reduction=config.classwise_reduction, subgroups=pair,
                                      include_small=config.include_small, ci=config.ci, n_boot=config.n_boot)
    return dataclasses.replace(review, classwise=classwise.results["classwise"],
                               findings=review.findings + classwise.findings)


def _disparities(counts, config: ReviewConfig) -> tuple:
    """(the bootstrap's options, the disparities' options, a cached ``disparity(metric, distance, reduction)``): a
    reduced rate disparity (or equalized odds) of `counts` under the review's reference, small-subgroup rule,
    adjustment and intervals (seed 0), computed once for the table and the conclusions."""
    boot = dict(ci=config.ci, n_boot=config.n_boot, random_state=0)
    kw = dict(reference=config.rate_reference, include_small=config.include_small, adjust=config.adjust, **boot)

    @lru_cache(maxsize=None)
    def disparity(metric: str, distance: str, reduction: str):
        args = kw | {"distance_measure": distance, "reduction": reduction}
        return counts.equalized_odds(**args) if metric == "equalized_odds" else counts.disparity(metric, **args)

    return boot, kw, disparity


def _rate_review(counts, name: str, kind: str, threshold: Optional[float], config: ReviewConfig) -> ModelReview:
    boot, kw, disparity = _disparities(counts, config)
    rates = {m: disparity(m, config.rate_distance, config.rate_reduction)
             for m in [RATE_TO_METRIC[r] for r in config.rate_metrics] + ["equalized_odds"]}
    # The Theil benefit reads the favourable outcome; the Theil index has no distance.
    rates["theil_index"] = counts.favourable(config.mapping.positive_outcome).theil_index(
        reduction=config.rate_reduction, **kw)
    rate = rate_conclusions(counts, config.mapping, disparity=disparity, **rate_options(config))
    return ModelReview(name=name, kind=kind, threshold=threshold, performance=performance_table(counts, **boot),
                       rate_table=counts.table(ci=config.ci), rates=rates, p_percent=rate.results["p_percent"],
                       equal_opportunity=rate.results["equal_opportunity"], findings=rate.findings,
                       verdicts=rate.verdicts, subjects=_subjects(rate))


def _subjects(concluded) -> tuple:
    """Whom each of a page's verdicts is about (``Conclusions.subjects``), '' where it does not say."""
    subjects = tuple(concluded.subjects or ())
    return subjects if len(subjects) == len(concluded.verdicts) else ("",) * len(concluded.verdicts)
