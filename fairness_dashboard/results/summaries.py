"""Findings and policy verdicts of each metric page, in one place for the page and the Overview.

Each ``*_section`` function takes the page's settings (from its widgets on the page itself, from
:func:`fairness_dashboard.settings.controls.setting` on the Overview) and the cached computations of :mod:`fairness_dashboard.results.computations`, asks
fairness_core's conclusions function of that page (``fc.rate_conclusions`` and the others, which the
report and the command line call too) for its findings and verdicts, and returns a :class:`Section`
with the settings in words. No rule or finding is built here. Sections
are memoized per session on everything but the data and counts objects, which the token, the
mapping key and the options identify. The
metric page renders its own section at the top; the Overview renders all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import fairness_core as fc

from ..data import analysis
from ..presentation import escape, formats, labels
from ..session.memo import memo
from . import computations

DEFAULT_RULES = {rule.name: rule for rule in fc.DEFAULT_RULES}
# Defaults of the page settings the sections depend on: the pages' widgets and the Overview share them.
DEFAULTS = {
    "include_small": False,  # the sidebar's one option for every page (controls.include_small)
    "order": "worst",  # subgroups worst first, or "name" (controls.worst_first)
    "auc:p": -5.0,
    "auc:weight": 0.25,
    "auc:min_score_on": False,
    "auc:min_score": 0.8,
    "rates:metrics": ["false_positive_rate", "false_negative_rate"],
    "rates:max_difference": 0.1,
    "dataset:max_difference": 0.1,
    "cal:n_bins": 10,
    "cal:strategy": "uniform",
    "cal:min_per_group": 5,
    "cal:threshold": 0.1,
    "cal:ratio_threshold": None,
    "classwise:metric": "fscore",
    "classwise:reduction": "std",
    # Absolute per-class differences by default: signed ones of opposite sign cancel in the mean over classes.
    "classwise:difference": "absolute",
}


# The class-wise reductions in words (the fairness_core names as the page offers them).
CLASSWISE_REDUCTIONS = {"std": "standard deviation across subgroups",
                        "absolute_difference": "absolute difference |first - second|",
                        "difference": "signed difference first - second"}


def classwise_reduction(reduction: str, difference: str) -> str:
    """The fairness_core reduction of the class-wise page's "Across subgroups" and "Difference" choices."""
    if reduction == "difference" and difference == "absolute":
        return "absolute_difference"
    return reduction


@dataclass(frozen=True)
class Section:
    """What one metric page concludes.

    Attributes
    ----------
    title : str
        The page's title.
    page : str
        The page's script path, for ``st.page_link``.
    findings : tuple of str
        Plain-text sentences (escape before rendering).
    verdicts : tuple of fairness_core.Verdict
    settings : str
        The settings the section was computed with, in words (Markdown-safe).
    note : str
        Why nothing could be assessed, when that is so (Markdown-safe); '' otherwise.
    extra : dict
        The results the page draws (each function lists its keys).
    subjects : tuple of str
        For each verdict, whom its value is about (plain text; ``fairness_core.Conclusions.subjects``).
    """

    title: str
    page: str
    findings: tuple = ()
    verdicts: tuple = ()
    settings: str = ""
    note: str = ""
    extra: dict = field(default_factory=dict, compare=False)
    subjects: tuple = ()


def _interval_words(intervals) -> str:
    if intervals.ci is None:
        return "intervals off"
    words = f"{formats.level_text(intervals.ci)} intervals, {intervals.n_boot:,} resamples"
    return words + (f", {labels.ADJUST_LABELS[intervals.adjust]}-adjusted" if intervals.adjust else "")


@memo(analysis.SMALL, ignore=("scored", "counts"))
def auc_section(token: str, mapping_key: str, scored: fc.ScoredData, score: str, *, p: float, weight: float,
                include_small: bool, intervals, min_score: float | None) -> Section:
    """Subgroup AUCs: the AUCs below the overall AUC, and the minimum bias AUC score rule when one is set.

    Returns the Section with ``extra = {"table": AUC table, "result": BiasAucResult}`` for the page.
    """
    level = intervals.ci
    table = (computations.auc_table(token, mapping_key, score, scored) if level is None
             else computations.auc_intervals(token, mapping_key, score, level, intervals.n_boot, scored))
    concluded = fc.auc_conclusions(table, scored.mapping, p=float(p), overall_weight=float(weight),
                                   include_small=include_small, ci=level, min_score=min_score)
    result, findings, verdicts = concluded.results["bias_auc"], concluded.findings, concluded.verdicts
    settings = f"score {escape.md(score)}, power mean p = {p:g}, overall weight {weight:g}, {_interval_words(intervals)}"
    return Section("Subgroup AUCs", "pages/subgroup_aucs.py", findings, verdicts, settings,
                   extra={"table": table, "result": result}, subjects=concluded.subjects)


@memo(analysis.SMALL, ignore=("scored", "counts"))
def rate_section(token: str, mapping_key: str, counts: fc.ConfusionCounts, *, source: str, threshold: float | None,
                 metrics: list, distance: str, reference: str, include_small: bool, intervals,
                 max_difference: float, mapping: fc.ColumnMapping) -> Section:
    """Rate disparities: the top rate findings and the drivers of each max, and the verdicts of the p%
    (four-fifths) and equal opportunity rules and of a bound on each selected rate (and equalized odds):
    the ratio band [0.8, 1.25] under the ratio distance, `max_difference` under the difference.

    Returns the Section with ``extra = {"p_percent", "opportunity", "max"}`` (the two ratio-score results, of the
    favourable prediction: `mapping`'s ``positive_outcome``, whose words the findings use; each rate rule's largest
    disparity by (metric, distance), ``Conclusions.results["max"]``).
    """
    level, n_boot, adjust = intervals.ci, intervals.n_boot, intervals.adjust

    def disparity(metric: str, dist: str, red: str):
        return computations.disparity(token, mapping_key, source, threshold, metric, dist, red, reference, include_small,
                              level, n_boot, adjust, counts)

    concluded = fc.rate_conclusions(counts, mapping, rate_metrics=metrics,
                                    distance_measure=distance, max_difference=float(max_difference),
                                    reference=reference, include_small=include_small, ci=level, n_boot=n_boot,
                                    adjust=adjust, disparity=disparity)
    findings, verdicts = concluded.findings, concluded.verdicts
    p_percent, opportunity = concluded.results["p_percent"], concluded.results["equal_opportunity"]
    predictions = ("the predicted label column" if threshold is None
                   else f"{escape.md(source)} >= {threshold:g}")
    ref = labels.against(reference)
    settings = (f"predictions from {predictions}, rates {', '.join(labels.RATE_LABELS[m] for m in metrics)}, "
                f"against {ref}, distance {labels.DISTANCE_LABELS[distance]}, {_interval_words(intervals)}")
    return Section("Rate disparities", "pages/rate_disparities.py", findings, verdicts, settings,
                   extra={"p_percent": p_percent, "opportunity": opportunity, "max": concluded.results["max"]},
                   subjects=concluded.subjects)


def calibration_counts(token: str, mapping_key: str, scored: fc.ScoredData, score: str, *, n_bins: int,
                       strategy: str) -> tuple:
    """The calibration counts of `score` (``computations.calibration``, memoized) and "", or None and why there are
    none: a score outside [0, 1] is not a probability, and an engine may not give the bins asked for."""
    low, high, _ = scored.score_ranges[score]
    if low < 0 or high > 1:
        return None, f"Not assessed: {escape.md(score)} ranges from {low:g} to {high:g}, so it is not a probability."
    try:
        return computations.calibration(token, mapping_key, score, int(n_bins), strategy, scored), ""
    except ValueError as exc:   # e.g. quantile bins of more distinct scores than an engine reads
        return None, f"Not assessed: {escape.md(exc)}"


@memo(analysis.SMALL, ignore=("scored", "counts"))
def calibration_section(token: str, mapping_key: str, scored: fc.ScoredData, score: str, *, n_bins: int,
                        strategy: str, min_per_group: int, distance: str, reduction: str, reference: str,
                        include_small: bool, threshold: float | None, intervals) -> Section:
    """Calibration: the ECE comparisons whose interval excludes parity and the calibration rule's verdict
    (`threshold` in the units of `distance`; None: the default rule, which bounds only a difference).

    A score outside [0, 1] is not a probability, and an engine may not give the bins asked for: the
    Section then only has a `note`. Otherwise
    ``extra = {"counts": CalibrationCounts, "result": CalibrationDisparityResult}``.
    """
    title, page = "Calibration", "pages/calibration.py"
    counts, note = calibration_counts(token, mapping_key, scored, score, n_bins=n_bins, strategy=strategy)
    if counts is None:
        return Section(title, page, note=note)
    concluded = fc.calibration_conclusions(counts, threshold=None if threshold is None else float(threshold),
                                           min_per_group=int(min_per_group), distance_measure=distance,
                                           reduction=reduction, reference=reference, include_small=include_small,
                                           ci=intervals.ci, n_boot=intervals.n_boot, adjust=intervals.adjust)
    findings, result = concluded.findings, concluded.results["calibration"]
    ref = labels.against(reference)
    settings = (f"score {escape.md(score)}, {int(n_bins)} {strategy} bins, against {ref}, distance "
                f"{labels.DISTANCE_LABELS[distance]}, {_interval_words(intervals)}")
    return Section(title, page, findings, concluded.verdicts, settings,
                   extra={"counts": counts, "result": result}, subjects=concluded.subjects)


@memo(analysis.SMALL, ignore=("scored", "counts"))
def dataset_section(token: str, mapping_key: str, scored: fc.ScoredData, *, distance: str, reduction: str,
                    reference: str, include_small: bool, max_difference: float, intervals) -> Section:
    """Dataset metrics: the base-rate comparisons whose interval excludes parity, and the verdict on the
    largest base-rate disparity (the band [0.8, 1.25] under ratio, `max_difference` under difference).

    ``extra = {"counts": label ConfusionCounts, "parity": DisparityResult}`` (at `reduction`).
    """
    counts = computations.label_counts(token, mapping_key, scored)

    concluded = fc.dataset_conclusions(counts, distance_measure=distance, reduction=reduction, reference=reference,
                                       include_small=include_small, max_difference=float(max_difference),
                                       ci=intervals.ci, n_boot=intervals.n_boot, adjust=intervals.adjust)
    parity = concluded.results["parity"]
    ref = labels.against(reference)
    settings = (f"labels only, against {ref}, distance {labels.DISTANCE_LABELS[distance]}, "
                f"{_interval_words(intervals)}")
    return Section("Dataset metrics", "pages/dataset_metrics.py", concluded.findings, concluded.verdicts, settings,
                   extra={"counts": counts, "parity": parity}, subjects=concluded.subjects)


@memo(analysis.SMALL, ignore=("scored", "counts"))
def classwise_section(token: str, mapping_key: str, counts, *, source: str, threshold: float | None, metric: str,
                      reduction: str, order: tuple | None, include_small: bool, intervals) -> Section:
    """Class-wise bias: the classes whose scores differ most between subgroups (no policy rule applies to
    the unweighted average bias). ``extra = {"result": UnweightedAverageBiasResult}``.

    Raises ValueError as :meth:`ClassCounts.unweighted_average_bias` does (e.g. unknown subgroups in `order`).
    """
    concluded = fc.classwise_conclusions(counts, metric=metric, reduction=reduction, subgroups=order,
                                         include_small=include_small, ci=intervals.ci, n_boot=intervals.n_boot)
    result = concluded.results["classwise"]
    predictions = ("the predicted label column" if threshold is None
                   else f"{escape.md(source)} >= {threshold:g}")
    settings = (f"predictions from {predictions}, {metric}, reduced by the {CLASSWISE_REDUCTIONS[reduction]}"
                + ("" if order is None else f" ({escape.md(order[0])}, {escape.md(order[1])})")
                + f", {_interval_words(intervals)}")
    return Section("Class-wise bias", "pages/classwise.py", concluded.findings, (), settings,
                   extra={"result": result})
