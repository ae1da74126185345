"""The words of the interface: widget labels and their help, option labels, column headers, the references in
words. Tests and documentation find a widget by its label here."""

from __future__ import annotations

import fairness_core as fc
from fairness_core import reference_keyword

from . import escape


def metric_spec(name: str):
    """The metric registry's row of metric `name` (``fc.Rule.metric_specs()``, read at each call).

    Parameters
    ----------
    name : str
        A registered metric's name, e.g. ``"false_positive_rate"`` or ``"bias_auc_score"``.

    Returns
    -------
    MetricSpec
        Its function, label, definition anchor and the rest.

    Raises
    ------
    KeyError
        When no metric of that name is registered.
    """
    for spec in fc.Rule.metric_specs():
        if spec.name == name:
            return spec
    raise KeyError(f"no registered metric {name!r}")


def metric_label(name: str) -> str:
    """The dashboard's name of metric `name`, from the metric registry: ``metric_label("false_positive_rate")``
    is ``"False positive rate"``."""
    return metric_spec(name).label


# Widget labels named by the issue, so documentation and tests can find them.
LABEL_COLUMN = "Label column"
POSITIVE_LABEL = "Positive label"
OUTCOME = "For the person, a positive prediction is"
WORD_POSITIVE = "Word for a positive prediction"
WORD_NEGATIVE = "Word for a negative prediction"
SCORE_COLUMN = "Score column"
PREDICTED_COLUMN = "Predicted label column"
PROTECTED = "Protected attributes"
IDENTITY = "Identity columns"
THRESHOLD = "Decision threshold"
POWER_P = "Power mean p"
OVERALL_WEIGHT = "Overall AUC weight"
N_BINS = "Number of bins"
STRATEGY = "Binning strategy"
DISTANCE = "Distance"
REDUCTION = "Reduction"
REFERENCE = "Reference"
REFERENCE_GROUP = "Reference subgroup"
MODEL = "Model"
INCLUDE_SMALL = "Include small subgroups in summaries"
ORDER_SUBGROUPS = "Order subgroups"
WEIGHT_COLUMN = "Sample weights"
NO_WEIGHT = "(no weights: every row counts once)"  # the option for None
NO_PREDICTED = "(no predicted label)"  # the option for None, never compared with a column name
INTERSECT = "Intersect protected attributes"
ATTRIBUTE_BINS = "Bins for numeric attributes"
MIN_SIZE = "Minimum subgroup size"
SLICE_BY = "Slice by"
KEEP_ALL_CLASSES = "Keep all classes"
SHOW_INTERVALS = "Show intervals"
CONFIDENCE_LEVEL = "Confidence level"
N_BOOT = "Bootstrap replicates"
ADJUST = "Multiple comparisons"
MAX_DIFFERENCE = "Maximum difference"
DISCOVER_COLUMNS = "Columns to search"   # the Discover subgroups page (fairness_dashboard.sections.discover)
DISCOVER_QUANTITY = "Compare"
DISCOVER_DEPTH = "Conditions per subgroup (depth)"
NOT_PROTECTED = " (not protected)"   # after a searched column that is neither a protected attribute nor an identity
UPLOAD = "Upload a CSV or Parquet file"
COUNTED_INTERVALS = ("Data counted where it lies: the bootstrap resamples counts per membership pattern, which "
                     "DuckDB counts with one more pass over the rows per table; a threshold on a counted edge of "
                     "the scores is read off them, another one costs one more pass.")
COUNTED_SLICE = ("Not available for data on this machine counted where it lies: every row is counted. To analyse a "
                 "part, point the source at the files of that part, or analyse a random sample (Data page).")
LEVELS = (0.90, 0.95, 0.99)
N_BOOTS = (200, 500, 1000, 2000)
# "Multiple comparisons" choice -> fairness_core's `adjust` option ("auto", the default, is resolved by
# fairness_dashboard.settings.controls.resolve_adjust: simultaneous max-t intervals when a table holds more than AUTO_ADJUST_ABOVE
# comparisons, else none).
ADJUSTMENTS = {"auto": None, "none": None, "max_t": "max_t", "bonferroni": "bonferroni", "holm": "holm",
               "fdr_bh": "fdr_bh"}
ADJUST_LABELS = {"auto": "Automatic", "none": "None", "max_t": "Simultaneous (max-t)", "bonferroni": "Bonferroni",
                 "holm": "Holm", "fdr_bh": "Benjamini–Hochberg"}
# Above this many comparisons in one table the automatic choice is simultaneous (max-t) intervals. With 6
# comparisons at 95 % the chance of at least one false star is already 1 - 0.95**6 = 26 %, and it grows with every
# comparison; up to 5 each star can still be read on its own and an adjustment would widen the intervals for
# little gain.
AUTO_ADJUST_ABOVE = 5
STATUS_BADGES = {"pass": ("Pass", "green"), "fail": ("Fail", "red"), "inconclusive": ("Inconclusive", "orange"),
                 "not_assessable": ("Not assessable", "gray")}
STATUS_WORDS = {"pass": "pass", "fail": "fail", "inconclusive": "inconclusive", "not_assessable": "not assessable"}
FAILS_FIRST = ("fail", "inconclusive", "not_assessable", "pass")   # the order verdicts are listed and counted in
DISTANCE_LABELS = {"diff": "difference |a - b|", "ratio": "ratio (larger / smaller)"}
REDUCTION_LABELS = {"max": "max", "mean": "mean"}
REFERENCE_LABELS = {
    "rest": "rest of the population",
    "overall": "whole population",
    "pairwise": "every other subgroup (pairwise)",
    "named": "a chosen subgroup",
}
# Rate name in group_rates -> metric name of rate_disparity (fairness_core's one map).
RATE_TO_METRIC = fc.ConfusionCounts.RATE_TO_METRIC
# Rate name -> its label, in the order of the rates (the pages' tabs, the explorer's curves).
RATE_LABELS = {rate: metric_label(metric) for rate, metric in RATE_TO_METRIC.items()}
HELP = {
    WEIGHT_COLUMN: "Optional: a column of sample weights, e.g. survey person weights (fnlwgt, pwgtp) or weights "
                   "that reweight the rows to a target population. Every count on every page is then a sum of "
                   "weights, every rate a weighted share, every AUC weighted, and every size (and the small flag) "
                   "Kish's effective sample size (sum w)² / sum w²; intervals use the effective sizes. Rows with a "
                   "missing weight or a weight of 0 are left out, counted.",
    OUTCOME: "Whether the event the score predicts is good or bad for the person it is about. Adverse (deny, "
             "default, reject, flag as high risk, remove as toxic): the four-fifths rule and the p% score compare "
             "the rates of the favourable prediction, the equal opportunity score its rate among people whose "
             "true label is favourable, and the Theil index counts a favourable prediction as the benefit. The "
             "score keeps its meaning: AUCs and calibration do not change.",
    WORD_POSITIVE: "Optional: how findings say a positive prediction, e.g. denied (\"people in A who were labelled "
                   "approved were denied at 2× the rate of everyone else\"). Empty: the value as written. Words "
                   "only: no number changes.",
    WORD_NEGATIVE: "Optional: how findings say a negative prediction, e.g. approved. Empty: the value as written. "
                   "For a label with more than two classes a negative prediction is any other class, written as "
                   "such.",
    UPLOAD: "One row per prediction: the true label, model score(s) and/or a predicted label, and protected "
            "attributes. Files up to 1 GB. **Parquet is recommended** for large files: it is several times smaller "
            "than the same CSV and faster to read, and keeps each column's type. Nothing is stored after your "
            "session.",
    POWER_P: "Exponent of the power mean over subgroups. Negative values stress the worst subgroups "
             "(-5 in the Jigsaw competition); 1 is the plain mean; 0 the geometric mean.",
    OVERALL_WEIGHT: "Weight of the overall AUC in the bias AUC score; the rest goes to the mean of the "
                    "three power means.",
    THRESHOLD: "A row is predicted positive when its score is at least this value (on the score's own scale).",
    DISTANCE: "How a subgroup's rate a is compared with the reference rate b: |a - b| (perfect 0) or "
              "max(a, b) / min(a, b) (perfect 1).",
    REDUCTION: "How the per-subgroup disparities are summarised: the largest, or the mean. Small subgroups "
               "and undefined values are left out and counted.",
    REFERENCE: "What each subgroup is compared with.",
    N_BINS: "Number of probability bins for the reliability diagrams and ECE.",
    STRATEGY: "uniform: equal-width bins over [0, 1]; quantile: bins holding equal numbers of rows.",
    INTERSECT: "On: one subgroup per observed combination of the protected attributes (e.g. race and sex). "
               "Off: each value of each attribute is its own subgroup.",
    ATTRIBUTE_BINS: "A numeric protected attribute with more than 10 distinct values is cut into this many "
                    "quantile bins, named by their ranges.",
    MIN_SIZE: "Smaller subgroups stay in every table, flagged 'small', and are left out of summaries.",
    SLICE_BY: "Restrict every page to a slice of the rows: choose columns, then the values (or the range) "
              "to keep. All conditions must hold.",
    KEEP_ALL_CLASSES: "For a label with more than two classes: binary metrics compare the positive label with "
                      "all other classes; the Class-wise bias page uses every class.",
    SHOW_INTERVALS: "Confidence intervals on every figure, table and chart of every page: Wilson intervals for "
                    "rates and shares, DeLong intervals for AUCs, Fisher's z for the correlation score, and a "
                    "bootstrap of the counts (stratified by subgroup) for disparities, power means, calibration "
                    "errors, the Theil index, class-wise and dataset metrics. The bootstrap uses the fixed seed 0, "
                    "so the same data and options always give the same intervals.",
    CONFIDENCE_LEVEL: "Coverage of every interval shown.",
    N_BOOT: "Bootstrap resamples for the intervals of disparities and other composite figures; more resamples "
            "give steadier interval ends and take longer. Seed 0: the same data and options give the same "
            "intervals.",
    ADJUST: "With many subgroups, some intervals exclude parity by chance. Simultaneous (max-t), Bonferroni and "
            "Holm widen the intervals of each table (and adjust its parity marks) so that the chance of any false "
            "mark stays below 1 - level; max-t widens them only as far as the comparisons' dependence requires "
            "(read off the bootstrap), Bonferroni as if they were independent. Benjamini-Hochberg controls the "
            "share of false marks instead. Automatic (the default): max-t when a table compares more than 5 pairs "
            "(subgroups against the rest, the overall rate or a reference group, or every pair of subgroups), "
            "none otherwise.",
    MAX_DIFFERENCE: "Policy bound for a difference |a - b| of rates (in [0, 1]): each selected rate's largest "
                    "difference, and equalized odds, must be at most this value.",
}
# Column headers for every table the pages show (snake_case names from fairness_core).
COLUMN_LABELS = {
    "subgroup": "Subgroup", "size": "Rows", "share": "Share", "n_positive": "Positives",
    "n_negative": "Negatives", "n_background_positive": "Background positives",
    "n_background_negative": "Background negatives", "small": "Small", "note": "Note",
    "tp": "TP", "fp": "FP", "tn": "TN", "fn": "FN",
    # a metric's per-subgroup column: the rates, the three AUCs, ece, mce, base_rate (the metric registry's labels)
    **{spec.label_key: spec.label for spec in fc.Rule.metric_specs() if spec.label_key},
    "reference": "Compared with", "reference_size": "Reference rows", "subgroup_value": "Subgroup value",
    "reference_value": "Reference value", "disparity": "Disparity", "tpr_disparity": "TPR disparity",
    "fpr_disparity": "FPR disparity", "passes": "Passes", "verdict": "Verdict",
    "brier_score": "Brier score", "l2_ece": "ℓ2 ECE", "squared_ce": "Squared calibration error (debiased)",
    "subgroup_squared": "Subgroup squared error", "reference_squared": "Reference squared error",
    "reason": "Reason", "rows": "Rows", "score": "Score",
    "class": "Class", "n_true": "True rows", "n_predicted": "Predicted rows", "recall": "Recall",
    "precision": "Precision", "fscore": "F-score", "value": "Value", "n_subgroups": "Subgroups",
    "smoothed_positive_rate": "Smoothed positive rate",
    "smoothed_negative_rate": "Smoothed negative rate", "used": "Used",
    "numerator": "Numerator", "denominator": "Denominator", "reference_numerator": "Reference numerator",
    "reference_denominator": "Reference denominator", "small_reason": "Why small", "p_value": "p-value",
    "excludes_parity": "Interval excludes parity", "n_boot_undefined": "Undefined resamples",
    "accuracy": "Accuracy", "f1": "F1", "subgroup_auc_max_binning_error": "Subgroup AUC: max binning error",
    "bpsn_auc_max_binning_error": "BPSN AUC: max binning error",
    "bnsp_auc_max_binning_error": "BNSP AUC: max binning error",
}
# With sample weights: sizes are Kish's effective sample sizes and counts are sums of weights.
WEIGHTED_COLUMN_LABELS = {
    "size": "Effective size", "reference_size": "Reference effective size", "weight": "Weight",
    "n_positive": "Positives (weight)", "n_negative": "Negatives (weight)",
    "n_background_positive": "Background positives (weight)", "n_background_negative": "Background negatives (weight)",
}


def reference_mode(reference) -> str:
    """'rest', 'overall' or 'pairwise' for those keywords (plain strings); 'named' for a subgroup, which
    the pages pass as ``fc.named_reference(name)`` so that a subgroup called "rest" is never the keyword."""
    return reference_keyword(reference) or "named"


def reference_text(reference) -> str:
    """The reference in words (Markdown-safe): 'rest of the population', ..., or 'subgroup <name>'."""
    mode = reference_mode(reference)
    return REFERENCE_LABELS[mode] if mode != "named" else f"subgroup {escape.md(str(reference))}"


def against(reference) -> str:
    """The reference as the object of 'compared with' or 'against' (Markdown-safe), article included.

    Parameters
    ----------
    reference : str or fairness_core.NamedReference
        The keyword ``'rest'``, ``'overall'`` or ``'pairwise'``, or a named subgroup.

    Returns
    -------
    str
        'the rest of the population', 'the whole population', 'the subgroup <name>', or 'every other
        subgroup (pairwise)' without an article ("compared with the every other subgroup" was a defect).

    Examples
    --------
    >>> against("pairwise"), against("rest")
    ('every other subgroup (pairwise)', 'the rest of the population')
    """
    text = reference_text(reference)
    return text if reference_mode(reference) == "pairwise" else f"the {text}"


def reference_legend(reference) -> str:
    """The legend text of a chart's reference markers.

    Parameters
    ----------
    reference : str or fairness_core.NamedReference
        The keyword ``'rest'``, ``'overall'`` or ``'pairwise'`` (plain strings), or a subgroup as
        ``fc.named_reference(name)``.

    Returns
    -------
    str
        'Rest of population', 'Whole population', or 'Reference: <name>' for a named subgroup, even
        one called "rest" (a named reference equals the keyword's string, so it is told apart by
        its type, never by value). Plain text: the chart escapes it with ``plotting.plot_text``.
    """
    mode = reference_mode(reference)
    return {"rest": "Rest of population", "overall": "Whole population"}.get(mode, f"Reference: {reference}")
