"""Memoized computations: the fairness_core calls of every page, each keyed by what it depends on.

Each statistic is memoized per session (:func:`fairness_dashboard.session.memo.memo`) on the dataset token, the key
of the analysed rows (``mapping_key``, from ``fairness_dashboard.rows.analyse``) and its own options, never on the rows
themselves (passed with a leading underscore):

- count tables (AUC table, threshold, calibration, class and label counts): the rows' key plus the
  score column (and the bins), whatever the minimum size (:func:`per_rows`); the confusion counts
  at a threshold are lookups in the score's threshold counts, sorted once;
- post-aggregation results (disparities, reductions, findings): the counts' key plus their own
  options, computed from the memoized counts in milliseconds.

A page's caching is changed here (or in ``fairness_dashboard.rows`` for the rows themselves): the arguments a
function is keyed on, and the entries it keeps (``fairness_dashboard.rows.LARGE``, ``COUNTS``, ``SMALL``).
"""

from __future__ import annotations

import functools
import inspect
import os
from dataclasses import replace

import numpy as np
import pandas as pd

import fairness_core as fc

from ..data import analysis, counted_data
from ..presentation import captions, labels
from ..session import progress
from ..session.memo import memo

CONSISTENCY_JOBS = 2  # threads of its neighbour search


def with_min_size(counts, min_size: int):
    """A count table with its subgroups flagged small below `min_size`, nothing counted again.

    Every count table of fairness_core (confusion, threshold, calibration and class counts) keeps
    ``min_size`` as a field and flags small subgroups from it when asked; the AUC table flags them
    in its ``small`` column (``size < min_size``).
    """
    if isinstance(counts, pd.DataFrame):
        small = counts["size"] < min_size
        return counts if small.equals(counts["small"]) else counts.assign(small=small)
    return counts if counts.min_size == min_size else replace(counts, min_size=min_size)


def per_rows(func):
    """Memoize count table `func(token, mapping_key, ..., _data)` once per rows: on the token and
    :func:`rows_key` of `mapping_key`, whatever the minimum subgroup size, which
    :func:`with_min_size` applies to the result (a new size re-flags subgroups in milliseconds)."""
    counted = memo(analysis.COUNTS)(func)
    signature = inspect.signature(func)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        min_size = bound.arguments["_data"].subgroups.min_size
        bound.arguments["mapping_key"] = analysis.rows_key(bound.arguments["mapping_key"])
        return with_min_size(counted(*bound.args, **bound.kwargs), min_size)

    return wrapper


def weights(data) -> dict:
    """``{"sample_weight": data.weights}`` when the mapping has a weight column, else ``{}``: the keyword every
    fairness_core call on the rows takes, so an unweighted call is unchanged."""
    return {} if data.weights is None else {"sample_weight": data.weights}


@memo(analysis.SMALL)
def chart(name: str, key: tuple, _build):
    """The Plotly figure `_build()` returns, built once per (`name`, `key`).

    `key` must hold everything the figure shows (token, mapping key, the options of its numbers),
    so that a figure survives a change of an option it does not show: the AUC chart a new p, the
    ratio-score chart a new reference. Never modify the figure returned.
    """
    return _build()


@memo(analysis.COUNTS)
def subgroup_table(token: str, mapping_key: str, _data: fc.ScoredData) -> pd.DataFrame:
    """The subgroups with their sizes and label counts (``ScoredData.subgroup_table``)."""
    return _data.subgroup_table()


@memo(analysis.COUNTS)
def small_rows(token: str, mapping_key: str, _data: fc.ScoredData) -> str:
    """How many subgroups are small and how many rows they hold, in words (``captions.small_rows_text``; with
    weights, small by effective sample size: ``captions.small_effective_text``)."""
    if _data.weighted:
        return captions.small_effective_text(subgroup_table(token, mapping_key, _data), _data.subgroups.min_size)
    return captions.small_rows_text(_data.subgroups)


@per_rows
def auc_table(token: str, mapping_key: str, score: str, _data: fc.ScoredData) -> pd.DataFrame:
    """Per-subgroup AUC table of one score column (one sort of that column; or the engine's AUC counts', with
    ``max_binning_error``)."""
    if isinstance(_data, counted_data.CountsData):
        return _data.counts.auc[score].table()
    return fc.bias_auc_table(_data.y_true, _data.scores[score], _data.subgroups, **weights(_data))


@per_rows
def threshold_counts(token: str, mapping_key: str, score: str, _data: fc.ScoredData) -> fc.ThresholdCounts | fc.AucCounts:
    """Score column `score` sorted once, with cumulative counts: the confusion counts at any threshold (data counted
    where it lies: its AUC counts, which answer the same questions at their levels)."""
    if isinstance(_data, counted_data.CountsData):
        return _data.counts.auc[score]
    return fc.threshold_counts(_data.y_true, _data.scores[score], _data.subgroups, **weights(_data))


def confusion(token: str, mapping_key: str, source: str, threshold: float | None,
              _data: fc.ScoredData) -> fc.ConfusionCounts:
    """Confusion counts at a threshold on `source` (a score column: array lookups in its memoized
    :func:`threshold_counts`, no pass over the rows), or of the given predictions (memoized: :func:`confusion_at`).

    On data counted where it lies, a threshold the count tables cannot answer (between the counted bin
    edges, or with intervals between the edges of their atoms: ``counted_data.scans``) costs a scan of the
    source: the page then says so where this is first called, with buttons that move the threshold to
    the counted edges nearest it (:func:`_threshold_note`), and the scan runs under a spinner that says
    what is counted.
    """
    if isinstance(_data, counted_data.CountsData) and threshold is not None and source in _data.counts.auc:
        note = counted_data.threshold_note(_data.counts, source, threshold)
        if note is not None:
            _threshold_note(_data.counts, source, threshold, note)
            if confusion_at.peek(token, mapping_key, source, threshold, _data) is None:
                with progress.stage(f"Counting {source!r} >= {float(threshold):g} again with DuckDB where the rows "
                                    "lie (the threshold lies between the counted edges) ..."):
                    return confusion_at(token, mapping_key, source, threshold, _data)
    return confusion_at(token, mapping_key, source, threshold, _data)


def _threshold_note(counts, score: str, threshold: float, note: str) -> None:
    """`note` (``counted_data.threshold_note``: why this threshold costs a scan) as a caption, and a button per counted edge
    near `threshold` that moves the page's threshold there (the number input and the slider: ``threshold:<score>``).
    Drawn once per run, where :func:`confusion` is first called for this score and threshold."""
    import hashlib

    import streamlit as st
    from streamlit.errors import StreamlitAPIException

    from ..session import state

    name = f"threshold:{score}"
    key = "counted_edges_" + hashlib.sha256(repr((score, float(threshold))).encode()).hexdigest()[:16]
    try:
        box = st.container(key=key)
    except StreamlitAPIException:   # drawn already in this run (the Overview asks twice)
        return

    def use(value: float) -> None:
        st.session_state["w:" + name] = st.session_state[state.KEEP_PREFIX + name] = value

    with box:
        st.caption(note)
        edges = counted_data.nearest_edges(counts, score, threshold)
        for column, edge in zip(st.columns(max(len(edges), 1) + 2), edges):
            column.button(f"Use {edge:.6g}", key=f"{key}_{edge!r}", on_click=use, args=(edge,),
                          help="Move the threshold to this counted edge: answered from the count tables, no scan.")


@memo(analysis.COUNTS)
def confusion_at(token: str, mapping_key: str, source: str, threshold: float | None,
                 _data: fc.ScoredData) -> fc.ConfusionCounts:
    """The memoized counts of :func:`confusion` (on data counted where it lies: read off the AUC counts or their
    atoms, or counted again by the engine at this threshold)."""
    if isinstance(_data, counted_data.CountsData):   # read off the AUC counts, counted again by the engine, or given
        counts = _data.counts.given if threshold is None else _data.counts.confusion_at(source, threshold)
        return with_min_size(counts, _data.subgroups.min_size)
    if threshold is None:
        return fc.confusion_counts(_data.y_true, _data.y_pred(), _data.subgroups, **weights(_data))
    return threshold_counts(token, mapping_key, source, _data).at(threshold)


@memo(analysis.SMALL)
def disparity(token: str, mapping_key: str, source: str, threshold: float | None, metric: str, distance: str,
              reduction: str, reference: str, include_small: bool, level: float | None, n_boot: int,
              adjust: str | None, _counts: fc.ConfusionCounts) -> fc.DisparityResult:
    """A reduced rate disparity (`metric` as named by rate_disparity) or, for ``metric="equalized_odds"``,
    equalized odds, of the cached confusion counts `_counts` (keyed by token, mapping_key, source and
    threshold, as :func:`confusion`). With `level`, bootstrap intervals with `n_boot` replicates and
    the fixed seed 0 (the same inputs always give the same intervals)."""
    kw = dict(distance_measure=distance, reduction=reduction, reference=reference, include_small=include_small,
              ci=level, n_boot=n_boot, random_state=0, adjust=adjust)
    if metric == "equalized_odds":
        return _counts.equalized_odds(**kw)
    return _counts.disparity(metric, **kw)


@memo(analysis.SMALL)
def theil(token: str, mapping_key: str, source: str, threshold: float | None, reference: str, reduction: str,
          include_small: bool, level: float | None, n_boot: int, adjust: str | None, outcome: str,
          _counts: fc.ConfusionCounts) -> fc.DisparityResult:
    """The reduced two-group Theil index of the cached confusion counts (keyed as :func:`disparity`), with
    bootstrap intervals (`n_boot` replicates, seed 0) when `level` is set."""
    return _counts.favourable(outcome).theil_index(
        reduction=reduction, reference=reference, include_small=include_small, ci=level, n_boot=n_boot,
        random_state=0, adjust=adjust)


@memo(analysis.SMALL)
def theil_indices(token: str, mapping_key: str, source: str, threshold: float | None, level: float | None,
                  n_boot: int, outcome: str, _counts: fc.ConfusionCounts) -> tuple:
    """(individual, between-group) Theil indices of the cached confusion counts: floats, or with `level`
    ``fc.TheilResult`` objects (bootstrap, seed 0); the between-group one is None when the subgroups
    overlap or leave rows out (it needs disjoint subgroups)."""
    kw = dict(ci=level, n_boot=n_boot, random_state=0)
    _counts = _counts.favourable(outcome)   # the benefit is the favourable prediction
    individual = _counts.individual_theil_index(**kw)
    try:
        between = _counts.between_group_theil_index(**kw)
    except ValueError:
        between = None
    return individual, between


@per_rows
def auc_intervals(token: str, mapping_key: str, score: str, level: float, n_boot: int,
                  _data: fc.ScoredData) -> pd.DataFrame:
    """Per-subgroup AUC table of one score column with DeLong intervals at `level`, and in its attrs the
    bootstrap replicates (`n_boot`, seed 0) behind the intervals of the power means and the bias AUC score (data
    counted where it lies: from its AUC counts, with ``max_binning_error``)."""
    if isinstance(_data, counted_data.CountsData):   # from the AUC counts' atoms (the counts with_atoms: see analyse)
        return _data.counts.auc[score].table(level, n_boot=n_boot, random_state=0)
    return fc.bias_auc_table(_data.y_true, _data.scores[score], _data.subgroups, ci=level, n_boot=n_boot,
                             random_state=0, **weights(_data))


@per_rows
def calibration(token: str, mapping_key: str, score: str, n_bins: int, strategy: str,
                _data: fc.ScoredData) -> fc.CalibrationCounts:
    """Per-(subgroup, bin) calibration sums of one probability column (and the atoms its bootstrap resamples;
    from the engine: no atoms)."""
    if isinstance(_data, counted_data.CountsData):
        return _data.counts.calibration_at(score, n_bins, strategy)
    return fc.calibration_counts(_data.y_true, _data.scores[score], _data.subgroups, n_bins=n_bins,
                                 strategy=strategy, **weights(_data))


@per_rows
def class_counts(token: str, mapping_key: str, source: str, threshold: float | None, _data: fc.ScoredData):
    """Per-subgroup confusion matrices of true against predicted classes (the Class-wise bias page).

    Predictions come from the given predicted label column (``source="given"``) or from score
    column `source` at `threshold`.
    """
    if isinstance(_data, counted_data.CountsData):
        return _data.counts.class_counts_at(None if source == "given" else source, threshold)
    predicted = _data.class_predictions(None if source == "given" else source, threshold)
    return fc.class_counts(_data.classes, predicted, _data.subgroups, **weights(_data))


@memo(analysis.SMALL)
def smoothed_edf(token: str, mapping_key: str, concentration: float, include_small: bool, _data: fc.ScoredData,
                 level: float | None = None, n_boot: int = 1000):
    """Smoothed empirical differential fairness of the labels, with bootstrap intervals (seed 0) when `level`
    is set."""
    if isinstance(_data, counted_data.CountsData):
        return fc.smoothed_edf_from_counts(label_counts(token, mapping_key, _data), concentration=concentration,
                                           include_small=include_small, ci=level, n_boot=n_boot, random_state=0)
    return fc.smoothed_edf(_data.y_true, _data.subgroups, concentration=concentration, include_small=include_small,
                           ci=level, n_boot=n_boot, random_state=0, **weights(_data))


@memo(analysis.SMALL)
def base_rates(token: str, mapping_key: str, _data: fc.ScoredData, level: float | None = None) -> pd.DataFrame:
    """Per-subgroup base rates (share of positive labels) with their counts, and Wilson intervals at `level`
    (from the memoized label counts)."""
    return fc.base_rates_from_counts(label_counts(token, mapping_key, _data), ci=level)


@memo(analysis.SMALL)
def correlation(token: str, mapping_key: str, source: str, threshold: float | None, column: str,
                _data: fc.ScoredData, level: float | None = None) -> tuple:
    """(correlation score of the predictions with numeric `column`, rows left out for a missing or
    infinite value: no correlation is defined with them).

    With `level`, the score is a ``fc.CorrelationScoreResult`` carrying Fisher's z interval.
    """
    values = analysis.sliced_frame()[column].to_numpy(dtype=float, na_value=float("nan"))[_data.rows]
    present = np.isfinite(values)
    y_pred = _data.y_pred(None if source == "given" else source, threshold)
    weighted = {} if _data.weights is None else {"sample_weight": _data.weights[present]}
    return fc.correlation_score(y_pred[present], values[present], ci=level, **weighted), int((~present).sum())


@per_rows
def label_counts(token: str, mapping_key: str, _data: fc.ScoredData) -> fc.ConfusionCounts:
    """Label counts per subgroup, as the confusion counts of the labels against themselves.

    Their selection rate is the base rate (share of positive labels), so base-rate disparities
    (dataset statistical parity) for any distance, reference and reduction come from these cached
    counts without recomputation; the tests check them against ``fc.dataset_statistical_parity``.
    """
    if isinstance(_data, counted_data.CountsData):
        return _data.labels
    return fc.confusion_counts(_data.y_true, _data.y_true, _data.subgroups, **weights(_data))


@memo(analysis.SMALL)
def consistency(token: str, mapping_key: str, features: tuple, n_neighbors: int, sample_size: int | None,
                _data: fc.ScoredData):
    """kNN consistency of the labels on the chosen feature columns (rows of the analysis only), counted on a
    seeded sample of `sample_size` rows (None: every row), the neighbour search on ``CONSISTENCY_JOBS`` threads."""
    rows = analysis.sliced_frame()[list(features)].iloc[_data.rows]
    return fc.consistency(rows, _data.y_true, n_neighbors=n_neighbors, sample_size=sample_size, random_state=0,
                          n_jobs=min(CONSISTENCY_JOBS, os.cpu_count() or 1), **weights(_data))


# Model comparison (fairness_dashboard/sections/compare.py): every mapped score column, each at its own threshold --------------------------


@memo(analysis.SMALL)
def model_comparison(token: str, mapping_key: str, thresholds: tuple, baseline: str, quantities: tuple,
                     distance: str, reduction: str, reference: str, include_small: bool, level: float | None,
                     n_boot: int, _data: fc.ScoredData) -> pd.DataFrame:
    """``fc.compare_models`` of the score columns in `thresholds` (``((score, threshold), ...)``: predicted
    positive = score >= its threshold) against `baseline`, with paired bootstrap intervals (seed 0) at `level`."""
    predictions = {score: _data.scores[score] >= threshold for score, threshold in thresholds}
    return fc.compare_models(_data.y_true, predictions, _data.subgroups, baseline=baseline, quantities=quantities,
                             distance_measure=distance, reduction=reduction, reference=reference,
                             include_small=include_small, ci=level, n_boot=n_boot, random_state=0,
                             positive_outcome=_data.mapping.positive_outcome, **weights(_data))


@memo(analysis.SMALL)
def model_auc_differences(token: str, mapping_key: str, baseline: str, level: float | None,
                          _data: fc.ScoredData) -> pd.DataFrame:
    """``fc.compare_model_aucs`` of every score column against `baseline`: each model's overall, subgroup, BPSN
    and BNSP AUCs and its difference from the baseline's, with DeLong's paired intervals at `level`."""
    return fc.compare_model_aucs(_data.y_true, _data.scores, _data.subgroups, baseline=baseline, ci=level,
                                 **weights(_data))


@memo(analysis.SMALL)
def model_changes(token: str, mapping_key: str, config_json: str, _data: fc.ScoredData) -> tuple:
    """``fc.model_changes`` of the configuration `config_json` (``ReviewConfig.to_json``, its baseline set): each
    other model's changes from the baseline judged against its ``max_worsening`` (the command line's gate)."""
    return fc.model_changes(_data, fc.ReviewConfig.from_json(config_json))


@memo(analysis.SMALL)
def model_calibration_differences(token: str, mapping_key: str, models: tuple, baseline: str, n_bins: int,
                                  strategy: str, min_per_group: int, level: float | None, n_boot: int,
                                  _data: fc.ScoredData) -> pd.DataFrame:
    """``fc.compare_model_calibration`` of the probability columns `models` against `baseline` (one of them): each
    one's ECE of all rows and of every subgroup, and its difference from the baseline's, with a paired bootstrap
    interval (`n_boot` resamples, seed 0) at `level`."""
    return fc.compare_model_calibration(_data.y_true, {m: _data.scores[m] for m in models}, _data.subgroups,
                                        baseline=baseline, n_bins=n_bins, strategy=strategy,
                                        min_per_group=min_per_group, ci=level, n_boot=n_boot, random_state=0,
                                        **weights(_data))


# The model review: performance at the threshold, the threshold explorer, per-subgroup thresholds ---------------
EXPLORER_POINTS = 101  # thresholds of the explorer's fixed grid (every distinct score when there are fewer)


@memo(analysis.SMALL)
def performance(token: str, mapping_key: str, source: str, threshold: float | None, level: float | None, n_boot: int,
                _counts: fc.ConfusionCounts) -> pd.DataFrame:
    """Confusion matrix, accuracy, precision, recall, F1 and selection rate of all rows and each subgroup
    (``fc.performance_table``) of the cached counts `_counts` (keyed as :func:`disparity`); with `level`,
    Wilson intervals and a bootstrap interval of F1 (seed 0)."""
    return fc.performance_table(_counts, ci=level, n_boot=n_boot, random_state=0)


@memo(analysis.SMALL)
def explorer_grid(token: str, mapping_key: str, score: str, n_points: int,
                  _tc) -> tuple[np.ndarray, pd.DataFrame]:
    """The explorer's fixed grid of thresholds (``fc.explorer_thresholds``) and every rate of every subgroup
    at each of them (``fc.threshold_curves``): counted once per score and rows, whatever the threshold."""
    grid = fc.explorer_thresholds(_tc, n_points)
    return grid, fc.threshold_curves(_tc, list(labels.RATE_LABELS), grid)


def reads(counts, threshold: float) -> bool:
    """Whether threshold counts answer `threshold` exactly (binned AUC counts of data counted where it lies read
    their bin edges only; rows sorted in memory read every threshold)."""
    return counts.reads(threshold) if isinstance(counts, fc.AucCounts) else True


@memo(analysis.SMALL)
def suggestion(token: str, mapping_key: str, score: str, metrics: tuple, distance: str, reference: str,
               include_small: bool, max_difference: float, level: float | None, n_boot: int, adjust: str | None,
               outcome: str, measure: str, current: float | None, _tc: fc.ThresholdCounts,
               thresholds: tuple | None = None) -> fc.ThresholdSuggestion:
    """``fc.suggest_threshold`` over the explorer's grid (``EXPLORER_POINTS``; every distinct score when there are
    fewer), or over `thresholds`, with the page's rules and intervals; `current` only for a measure kept as at the
    current threshold, so that applying a maximised suggestion computes nothing again."""
    return fc.suggest_threshold(_tc, outcome, thresholds=thresholds, n_points=EXPLORER_POINTS, measure=measure,
                                current=current,
                                rate_metrics=metrics, distance_measure=distance, max_difference=max_difference,
                                reference=reference, include_small=include_small, ci=level, n_boot=n_boot,
                                adjust=adjust)


@memo(analysis.SMALL)
def group_thresholds(token: str, mapping_key: str, score: str, threshold: float, constraint: str, tolerance: float,
                     measure: str, _tc: fc.ThresholdCounts) -> fc.GroupThresholds:
    """``fc.group_thresholds`` of `score` over the explorer's grid for the objective `measure`, the single
    `threshold` for comparison (and the kept measures' target)."""
    return fc.group_thresholds(_tc, constraint, tolerance=tolerance, measure=measure, n_points=EXPLORER_POINTS,
                               single=threshold)


@memo(analysis.SMALL)
def performance_at(token: str, mapping_key: str, score: str, threshold: float, _tc) -> pd.DataFrame:
    """``fc.performance_table`` (no intervals) of `score` at `threshold`, from its sorted counts."""
    return fc.performance_table(_tc.at(threshold))


@memo(analysis.SMALL)
def explorer_band(token: str, mapping_key: str, score: str, threshold: float, n_points: int, rule: fc.Rule,
                  outcome: str, reference: str, include_small: bool, _tc) -> pd.DataFrame:
    """Where `rule` holds across the explorer's thresholds (``fc.rule_band``, point estimates; the ratio scores
    on the favourable prediction under an adverse `outcome`), the grid's band memoized apart from the threshold's
    own point."""
    grid, _ = explorer_grid(token, mapping_key, score, n_points, _tc)
    band = grid_band(token, mapping_key, score, n_points, rule, outcome, reference, include_small, _tc)
    if not reads(_tc, threshold):
        return band
    return _insert_threshold(band, grid, fc.rule_band(_tc, rule, [threshold], reference=reference,
                                                      include_small=include_small, positive_outcome=outcome),
                             threshold)


@memo(analysis.SMALL)
def grid_band(token: str, mapping_key: str, score: str, n_points: int, rule: fc.Rule, outcome: str, reference: str,
              include_small: bool, _tc) -> pd.DataFrame:
    """Where `rule` holds at each threshold of the explorer's fixed grid (:func:`explorer_grid`; point estimates;
    the ratio scores on the favourable prediction under an adverse `outcome`), whatever the chosen threshold."""
    grid, _ = explorer_grid(token, mapping_key, score, n_points, _tc)
    return fc.rule_band(_tc, rule, grid, reference=reference, include_small=include_small, positive_outcome=outcome)


def _insert_threshold(table: pd.DataFrame, grid: np.ndarray, extra: pd.DataFrame, threshold: float) -> pd.DataFrame:
    """`table` (blocks of ``len(grid)`` rows, thresholds ascending in each) with `extra` (one row per block,
    at `threshold`, blocks in the same order) inserted in order; unchanged when `threshold` is on the grid."""
    n_t = len(grid)
    if not np.isfinite(threshold) or np.any(grid == threshold):
        return table
    pos = int(np.searchsorted(grid, threshold))
    i = np.arange(len(table))
    key = np.concatenate([(i // n_t) * (n_t + 1) + i % n_t + (i % n_t >= pos),
                          np.arange(len(extra)) * (n_t + 1) + pos])
    both = pd.concat([table, extra], ignore_index=True)
    return both.iloc[np.argsort(key, kind="stable")].reset_index(drop=True)


@memo(analysis.SMALL)
def per_subgroup_effect(token: str, mapping_key: str, score: str, threshold: float, thresholds: tuple, metrics: tuple,
                        distance: str, reduction: str, reference: str, include_small: bool,
                        _tc) -> tuple[pd.DataFrame, dict]:
    """Per-subgroup thresholds against the single `threshold`, side by side (``fc.subgroup_threshold_effect``,
    the review's table too).

    Returns
    -------
    table : DataFrame
        All rows first, then each subgroup: ``subgroup``, ``threshold`` (its own), and for each rate
        of `metrics` and for accuracy the value at the single threshold (``<name>_single``) and at
        the per-subgroup thresholds (``<name>_own``).
    disparities : dict
        Rate -> (disparity at the single threshold, at the per-subgroup thresholds): the page's
        distance, reduction, reference and include-small option, point estimates.
    """
    effect = fc.subgroup_threshold_effect(_tc, threshold, dict(thresholds), list(metrics), distance_measure=distance,
                                          reduction=reduction, reference=reference, include_small=include_small)
    return effect.table, {row.rate: (row.single, row.own) for row in effect.disparities.itertuples()}
