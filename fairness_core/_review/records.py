"""Review and ModelReview: the results, conclusions and verdicts a review holds, and their exports."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

import pandas as pd

from .._metrics.auc import BiasAucResult
from .._metrics.calibration import CalibrationDisparityResult
from .config import ReviewConfig
from .export import _json_cell, table_data
from .gate import gate_lines, gate_status, gated_changes, gated_verdicts

# What the review JSON says it is (``Review.to_dict()["schema"]``): its kind and the major version of its layout,
# which ``_review.history`` checks before it reads a saved review (a new major version: a layout it cannot read).
REVIEW_SCHEMA = "fairness_core.review/1"
# ``Review.gate_period``: the gate judges the rules of the latest period of the time column only.
LATEST = "latest"


@dataclass(frozen=True)
class ModelReview:
    """The review of one model: a score column at its threshold, or the predicted-label column.

    Attributes
    ----------
    name : str
        The column.
    kind : {'score', 'predictions'}
    threshold : float or None
        None for given predictions.
    performance : DataFrame
        :func:`performance_table` at the threshold (all rows first).
    rate_table : DataFrame
        Every rate of every subgroup (``ConfusionCounts.table``, with Wilson intervals).
    rates : dict of str to DisparityResult
        Per assessed rate (``rate_metrics``), ``'equalized_odds'`` and ``'theil_index'`` (the
        two-group Theil index of each comparison): the disparity at the configured distance,
        reduction and reference; its ``table`` holds every comparison.
    p_percent, equal_opportunity : RatioScoresResult
    auc_table : DataFrame or None
        Subgroup, BPSN and BNSP AUCs (scores only).
    bias_auc : BiasAucResult or None
    calibration : CalibrationDisparityResult or None
        None for predictions, or a score that is not a probability (see `calibration_note`).
    reliability : DataFrame or None
    calibration_note : str
    findings : tuple of str
    verdicts : tuple of Verdict
    subjects : tuple of str
        Whom each verdict's value is about, one per verdict (e.g. "C against everyone else"; '' when it names no
        subgroup): the bottom line's and the scorecard's "for whom".
    classwise : UnweightedAverageBiasResult or None
        Class-wise bias of the predicted label column of a multi-class label (see
        ``ReviewConfig.classwise_metric``); None otherwise.
    subgroup_thresholds : SubgroupThresholdEffect or None
        Every assessed rate and accuracy at the configured per-subgroup thresholds beside the
        single threshold (``ReviewConfig.subgroup_thresholds``); None when none are configured.
    suggestion : ThresholdSuggestion or None
        Where the rate rules pass across thresholds, each threshold's cost and the suggested threshold
        (``ReviewConfig.suggest_measure``; scores only); None when not asked for.
    """

    name: str
    kind: str
    threshold: Optional[float]
    performance: pd.DataFrame
    rate_table: pd.DataFrame
    rates: dict
    p_percent: Any
    equal_opportunity: Any
    auc_table: Optional[pd.DataFrame] = None
    bias_auc: Optional[BiasAucResult] = None
    calibration: Optional[CalibrationDisparityResult] = None
    reliability: Optional[pd.DataFrame] = None
    calibration_note: str = ""
    findings: tuple = ()
    verdicts: tuple = ()
    subjects: tuple = ()
    classwise: Any = None
    subgroup_thresholds: Any = None
    suggestion: Any = None


@dataclass(frozen=True)
class ReviewDiscovery:
    """Subgroup discovery on a review's models: the intersections of attribute values each model treats worst.

    Findings to look at, never gated rules: a subgroup found here does not change the review's exit status.

    Attributes
    ----------
    columns : tuple of str
        The columns searched (the command line's ``--discover``).
    quantity : str
        The rate compared (e.g. ``'selection_rate'``), or ``'subgroup_auc'``.
    depth : int
        The most columns intersected (1 to 3).
    results : dict of str to SubgroupDiscovery
        Per model (a score at its threshold, or the predicted label column), :func:`discover_subgroups` on the
        review's rows with its weights, favourable outcome and minimum size.
    skipped : tuple of (str, str)
        Models not searched and why (the predicted labels have no score for ``'subgroup_auc'``).
    """

    columns: tuple
    quantity: str
    depth: int
    results: dict
    skipped: tuple = ()

    def to_dict(self) -> dict:
        """JSON-ready data: the settings, and per model the search's facts and its ranked table (``gating`` is
        always false: discovered subgroups never decide the exit status)."""
        return {"columns": list(self.columns), "quantity": self.quantity, "depth": self.depth, "gating": False,
                "models": [discovery_data(name, found) for name, found in self.results.items()],
                "skipped": [{"model": name, "reason": why} for name, why in self.skipped]}


@dataclass(frozen=True)
class Review:
    """Everything a review shows, built by :func:`build_review`.

    Attributes
    ----------
    config : ReviewConfig
    source : dict
        ``name``, ``sha256`` and ``bytes`` of the input when known, ``rows_input``, ``rows_used``.
    exclusions : DataFrame
        Rows left out and why (``reason, rows``).
    subgroups : DataFrame
        Each subgroup's size and whether it is small.
    base_rate : tuple of float
        (base rate, ci_low, ci_high) of the label over the rows used (Wilson interval).
    dataset_parity : DisparityResult
        Base-rate disparity (dataset statistical parity) at the configured options.
    dataset_findings : tuple of str
    dataset_verdicts : tuple of Verdict
    edf : SmoothedEdfResult or None
        Smoothed empirical differential fairness of the labels (None when the subgroups overlap).
    models : tuple of ModelReview
    consistency : ConsistencyResult or None
        kNN consistency of the labels when ``ReviewConfig.consistency_features`` are set.
    differences : dict of str to DataFrame
        With a configured baseline and two or more scores: ``'rates'`` (:func:`compare_models`),
        ``'aucs'`` (:func:`compare_model_aucs`) and, with two or more probability columns
        including the baseline, ``'calibration'`` (:func:`compare_model_calibration`); else empty.
    changes : tuple of ChangeVerdict
        With a configured baseline and two or more scores: each other score's changes from the baseline
        (reduced rate disparities, ratio scores, subgroup/BPSN/BNSP AUCs, subgroup ECEs) judged against
        ``config.max_worsening`` with paired intervals (low ends joint one-sided max-t bounds, Bonferroni for the AUCs; high ends unadjusted:
        ``_review.gate``); else empty.
    created : str
        UTC time, ISO 8601.
    version : str
        The software version.
    discovery : ReviewDiscovery or None
        Subgroup discovery on the models when asked for (``build_review(discover=...)``); never gating.
    over_time : OverTime or None
        The rate and label rules per period of the mapping's time column when asked for
        (``_review.review_over_time.with_over_time``).
    gate_period : {'latest'} or None
        ``'latest'``: the gate judges the rules of the latest period of :attr:`over_time` only (its rate rules and,
        with ``gate_labels``, its rule about the labels); None: the rules of every row.
    """

    config: ReviewConfig
    source: dict
    exclusions: pd.DataFrame
    subgroups: pd.DataFrame
    base_rate: tuple
    dataset_parity: Any
    dataset_findings: tuple
    dataset_verdicts: tuple
    edf: Any
    models: tuple
    created: str
    version: str
    consistency: Any = None
    differences: dict = field(default_factory=dict)
    changes: tuple = ()
    discovery: Any = None
    over_time: Any = None
    gate_period: Optional[str] = None

    @property
    def verdicts(self) -> list:
        """Every verdict: the dataset's, then each model's."""
        return list(self.dataset_verdicts) + [v for m in self.models for v in m.verdicts]

    def gating(self, *, labels: Optional[bool] = None, rules=None) -> tuple:
        """What decides the release gate: the gating rule verdicts and the gating changes from the baseline.

        Parameters
        ----------
        labels : bool, optional
            With no `rules`: judge the rules about the labels (``dataset_verdicts``: properties of the
            data, which no model can change) too; default ``config.gate_labels`` (False: reported, never gating).
        rules : iterable of str, optional
            The gate's names (default ``config.gate_rules``): rule or metric names, ``changes`` (every change from
            the baseline) or ``changes:<quantity>``. Empty: every rule of the models and every change.

        Returns
        -------
        (list of (str or None, Verdict), list of ChangeVerdict)
            :func:`~fairness_core._review.gate.gated_verdicts` (each with its model's name, None for the
            labels') and :func:`~fairness_core._review.gate.gated_changes`.

        Raises
        ------
        ValueError
            When a name is no rule of this review, or names changes this review did not judge (the message lists
            what it has).
        """
        rules = self.config.gate_rules if rules is None else rules
        labels = self.config.gate_labels if labels is None else labels
        if self.gate_period == LATEST:   # the latest period's rules only (changes from a baseline are refused)
            _, models, dataset_verdicts = self.latest_period()
            return gated_verdicts(models, dataset_verdicts, rules=rules, labels=labels), []
        return (gated_verdicts(self.models, self.dataset_verdicts, rules=rules, labels=labels),
                gated_changes(self.changes, rules=rules))

    def latest_period(self) -> tuple:
        """The latest period of :attr:`over_time`: its label, its models' reviews (rate rules) and its label rules.

        Returns
        -------
        (str, list of ModelReview, tuple of Verdict)

        Raises
        ------
        ValueError
            Without an over-time review, or when no row has a period.
        """
        over = self.over_time
        if over is None:
            raise ValueError("The gate of the latest period needs the review over time: give the time column.")
        if over.periods.empty:
            raise ValueError(f"No row has a time in {over.config.mapping.time!r}, so there is no latest period.")
        last = len(over.periods) - 1
        models = [reviews[last] for reviews in over.models.values() if reviews[last] is not None]
        labels = over.labels[last]
        return str(over.periods["period"].iloc[last]), models, (() if labels is None else tuple(labels.verdicts))

    def gate(self, *, strict: bool = False, labels: Optional[bool] = None, rules=None,
             gating_only: bool = False) -> tuple:
        """The release gate: its exit status and one line per gating verdict that is not a pass, fails first.

        Parameters
        ----------
        strict : bool, default=False
            Inconclusive and not assessable verdicts fail too (so does ``config.gate_strict``).
        labels, rules
            As in :meth:`gating`.
        gating_only : bool, default=False
            Only the lines of the verdicts that set the status to 1 (the command line's ``--quiet``).

        Returns
        -------
        (int, list of str)
            0 when nothing gating fails, else 1; the lines of :func:`~fairness_core._review.gate.gate_lines`.

        Raises
        ------
        ValueError
            As :meth:`gating`.
        """
        strict = bool(strict or self.config.gate_strict)
        gated, changes = self.gating(labels=labels, rules=rules)
        return (gate_status(gated, changes, strict=strict),
                gate_lines(gated, changes, strict=strict, gating_only=gating_only))

    def exit_status(self, strict: bool = False, labels: Optional[bool] = None, rules=None) -> int:
        """0 when no gating verdict fails, 1 when one does (:meth:`gate`'s status).

        Parameters
        ----------
        strict, labels, rules
            As in :meth:`gate`.

        Returns
        -------
        int
        """
        return self.gate(strict=strict, labels=labels, rules=rules)[0]

    def context(self) -> dict:
        """What every exported table carries: source, configuration, time and version."""
        return {"source": self.source, "configuration": self.config.to_dict(), "created": self.created,
                "software": f"fairness_core {self.version}"}

    def tables(self) -> dict:
        """Every table of the review, by a file-name-safe key: ``subgroups``, ``exclusions``,
        ``dataset_parity`` and per model ``<model>.performance``, ``<model>.rates``, ``<model>.<metric>``,
        ``<model>.p_percent``, ``<model>.equal_opportunity``, ``<model>.aucs``,
        ``<model>.calibration_errors``, ``<model>.reliability``; when configured, ``smoothed_edf``,
        ``consistency``, ``<model>.classwise`` and ``<model>.classwise_per_class`` (class-wise bias),
        ``<model>.subgroup_thresholds`` and ``<model>.subgroup_threshold_disparities``."""
        out = {"subgroups": self.subgroups, "exclusions": self.exclusions,
               "dataset_parity": self.dataset_parity.table}
        if self.edf is not None:
            out["smoothed_edf"] = self.edf.table
        if self.consistency is not None:
            out["consistency"] = consistency_table(self.consistency)
        for m in self.models:
            out[f"{m.name}.performance"] = m.performance
            out[f"{m.name}.rates"] = m.rate_table
            out.update({f"{m.name}.{metric}": result.table for metric, result in m.rates.items()})
            out[f"{m.name}.p_percent"] = m.p_percent.table
            out[f"{m.name}.equal_opportunity"] = m.equal_opportunity.table
            if m.auc_table is not None:
                out[f"{m.name}.aucs"] = m.auc_table
            if m.calibration is not None:
                out[f"{m.name}.calibration_errors"] = m.calibration.errors
                out[f"{m.name}.reliability"] = m.reliability
            if m.classwise is not None:
                out[f"{m.name}.classwise"] = m.classwise.table
                out[f"{m.name}.classwise_per_class"] = m.classwise.per_class
            if m.subgroup_thresholds is not None:
                out[f"{m.name}.subgroup_thresholds"] = m.subgroup_thresholds.table
                out[f"{m.name}.subgroup_threshold_disparities"] = m.subgroup_thresholds.disparities
        for kind, table in self.differences.items():     # differences from the baseline, under its name
            out[f"{self.config.baseline}.{kind.removesuffix('s')}_differences"] = table
        return out

    def to_dict(self) -> dict:
        """The review as JSON-ready data: context, findings, verdicts (each with ``gating``: whether it decides the
        configured gate; null when the gate names what this review lacks), headline values and every table."""
        try:
            gated, gated_changes_ = self.gating()
            status = gate_status(gated, gated_changes_, strict=bool(self.config.gate_strict))
            gating = {id(v) for _, v in gated} | {id(c) for c in gated_changes_}
        except ValueError:   # the configured gate names a rule this review does not have: no status to record
            status, gating = None, None

        def gates(item):
            return None if gating is None else id(item) in gating

        def verdicts(items):
            return [{"rule": v.rule.to_dict(), "value": _json_cell(v.value), "ci_low": _json_cell(v.ci_low),
                     "ci_high": _json_cell(v.ci_high), "status": v.status, "gating": gates(v), "sentence": v.sentence,
                     "note": v.note, "rows_factor": _json_cell(v.rows_factor),
                     "rows_needed": _json_cell(v.smallest * v.rows_factor)} for v in items]

        models = []
        for m in self.models:
            headline = {metric: _json_cell(r.value) for metric, r in m.rates.items()}
            headline |= {"p_percent_score": _json_cell(m.p_percent.value),
                         "equal_opportunity_score": _json_cell(m.equal_opportunity.value)}
            if m.bias_auc is not None:
                headline |= {"bias_auc_score": _json_cell(m.bias_auc.value),
                             "overall_auc": _json_cell(m.bias_auc.overall_auc)}
            if m.calibration is not None:
                headline["calibration_disparity"] = _json_cell(m.calibration.value)
            if m.classwise is not None:
                headline["unweighted_average_bias"] = _json_cell(m.classwise.value)
            models.append({"name": m.name, "kind": m.kind, "threshold": m.threshold, "headline": headline,
                           "findings": list(m.findings), "verdicts": verdicts(m.verdicts),
                           "calibration_note": m.calibration_note,
                           "suggestion": None if m.suggestion is None else suggestion_data(m.suggestion)})
        return {"schema": REVIEW_SCHEMA, "context": self.context(),
                "base_rate": [_json_cell(v) for v in self.base_rate],
                "dataset": {"findings": list(self.dataset_findings), "verdicts": verdicts(self.dataset_verdicts),
                            "parity": _json_cell(self.dataset_parity.value),
                            "smoothed_edf": None if self.edf is None else _json_cell(self.edf.value),
                            "consistency": None if self.consistency is None else _json_cell(self.consistency.value)},
                "models": models,
                "changes": [{"model": c.model, "baseline": c.baseline, "quantity": c.quantity, "subgroup": c.subgroup,
                             "worsening": _json_cell(c.worsening), "ci_low": _json_cell(c.ci_low),
                             "ci_high": _json_cell(c.ci_high), "tolerance": c.tolerance, "level": c.level,
                             "pass_level": c.pass_level,
                             "status": c.status, "gating": gates(c), "sentence": c.sentence} for c in self.changes],
                "gate": {"names": list(self.config.gate_rules), "strict": bool(self.config.gate_strict),
                         "labels": bool(self.config.gate_labels), "exit_status": status,
                         "period": self._gated_period()},
                "exit_status": status,
                "discovery": None if self.discovery is None else self.discovery.to_dict(),
                "over_time": None if self.over_time is None else over_time_data(self.over_time),
                "tables": {name: table_data(frame) for name, frame in self.tables().items()}}

    def _gated_period(self):
        """The label of the period the gate judged (None: every row; also when there is no such period)."""
        if self.gate_period != LATEST:
            return None
        try:
            return self.latest_period()[0]
        except ValueError:
            return None

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text (NaN is null, infinity the string "inf")."""
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False, allow_nan=False)


def suggestion_data(suggestion) -> dict:
    """A :class:`ThresholdSuggestion` as JSON-ready data: the measure, the current and suggested thresholds, the
    passing and inconclusive bands (``[[first, last], ...]``) and its per-threshold table."""
    return {"measure": suggestion.measure, "current": suggestion.current, "suggested": suggestion.suggested,
            "basis": suggestion.basis, "rows_needed": _json_cell(suggestion.rows_needed),
            "passing": [list(b) for b in suggestion.bands("pass")],
            "inconclusive": [list(b) for b in suggestion.bands("inconclusive")],
            "table": table_data(suggestion.table)}


def consistency_table(result) -> pd.DataFrame:
    """A :class:`ConsistencyResult` as a one-row table: ``value, zemel_consistency, std_error, n_neighbors,
    n_rows, n_sampled, n_excluded, features`` (the features joined by ', ')."""
    return pd.DataFrame([{"value": result.value, "zemel_consistency": result.zemel_consistency,
                          "std_error": result.std_error, "n_neighbors": result.n_neighbors, "n_rows": result.n_rows,
                          "n_sampled": result.n_sampled, "n_excluded": result.n_excluded,
                          "features": ", ".join(result.features)}])


def discovery_data(model: str, found) -> dict:
    """One model's :class:`SubgroupDiscovery` as JSON-ready data: what was compared, how the rows were split (the
    search on ``search_rows``, the estimates on the other ``estimate_rows``), and its ranked table."""
    return {"model": model, "quantity": found.quantity, "direction": found.direction, "level": found.level,
            "holdout": found.holdout, "depth": found.depth, "min_size": found.min_size, "top_k": found.top_k,
            "examined": int(found.examined), "pruned": int(found.pruned), "search_rows": int(found.search_rows),
            "estimate_rows": int(found.estimate_rows), "columns": list(found.columns),
            "table": table_data(found.table)}


# The columns of :func:`over_time_rules`.
OVER_TIME_RULE_COLUMNS = ["model", "rule", "metric", "periods", "pass", "fail", "inconclusive", "not_assessable",
                          "first_failure", "first_failure_value", "first_failure_value_ci_low",
                          "first_failure_value_ci_high", "latest", "latest_status", "slope", "slope_ci_low",
                          "slope_ci_high", "slope_p_value", "equal_p_value"]


def over_time_rules(over) -> pd.DataFrame:
    """One row per model and rule of an :class:`OverTime`: how often it failed, the first period it failed with its
    whole interval, its latest verdict, and the trend of its estimates.

    Parameters
    ----------
    over : OverTime

    Returns
    -------
    DataFrame
        ``model, rule, metric``; ``periods`` (in time order, with or without rows); per status the periods with
        it (``pass, fail, inconclusive, not_assessable``); ``first_failure`` (the first period whose whole
        interval is beyond the rule's bound, :meth:`OverTime.first_failure`; None if none) with its
        ``first_failure_value`` and interval ``first_failure_value_ci_low``, ``first_failure_value_ci_high``;
        ``latest`` and ``latest_status`` (the last period's verdict); the weighted trend of the estimates per
        period (:meth:`OverTime.trend`, Knapp-Hartung) ``slope, slope_ci_low, slope_ci_high, slope_p_value`` and
        ``equal_p_value``, the p-value of Cochran's Q test that every period's value is equal (NaN without
        intervals, or with fewer than two periods with an interval).
    """
    rows = []
    table = over.verdicts
    for (model, rule), part in table.groupby(["model", "rule"], sort=False):
        part = part.sort_values("position")
        counts = part["status"].value_counts()
        first = part.loc[part["status"] == "fail"].head(1)
        nan = float("nan")
        trend = None if over.config.ci is None else over.trend(rule, model)
        rows.append({"model": model, "rule": rule, "metric": part["metric"].iloc[0], "periods": len(part),
                     **{s: int(counts.get(s, 0)) for s in ("pass", "fail", "inconclusive", "not_assessable")},
                     "first_failure": None if first.empty else str(first["period"].iloc[0]),
                     "first_failure_value": nan if first.empty else float(first["value"].iloc[0]),
                     "first_failure_value_ci_low": nan if first.empty else float(first["ci_low"].iloc[0]),
                     "first_failure_value_ci_high": nan if first.empty else float(first["ci_high"].iloc[0]),
                     "latest": str(part["period"].iloc[-1]), "latest_status": part["status"].iloc[-1],
                     "slope": nan if trend is None else trend.slope,
                     "slope_ci_low": nan if trend is None else trend.ci_low,
                     "slope_ci_high": nan if trend is None else trend.ci_high,
                     "slope_p_value": nan if trend is None else trend.p_value,
                     "equal_p_value": nan if trend is None else trend.heterogeneity_p})
    return pd.DataFrame(rows, columns=OVER_TIME_RULE_COLUMNS)


def over_time_data(over) -> dict:
    """An :class:`OverTime` as JSON-ready data: the time column, the period and its zone, and its tables: every
    period (``periods``), every verdict per period (``verdicts``), each rule's summary (``rules``,
    :func:`over_time_rules`), each subgroup's size per period (``subgroups``) and the rows without a period
    (``exclusions``)."""
    periods = over.periods.assign(start=over.periods["start"].astype(str))
    return {"column": over.config.mapping.time,
            "period": (over.period if over.period is None or isinstance(over.period, str)
                       else [_json_cell(e) for e in over.period]),
            "time_zone": over.time_zone, "level": over.config.ci, "thresholds": dict(over.thresholds),
            "periods": table_data(periods), "verdicts": table_data(over.verdicts),
            "rules": table_data(over_time_rules(over)), "subgroups": table_data(over.subgroups),
            "exclusions": table_data(over.exclusions)}
