"""Labels, help texts and number formats shared by the pages."""

from __future__ import annotations

import math
import re

from fairness_core.plotting import RATE_LABELS

# Widget labels named by the issue, so documentation and tests can find them.
LABEL_COLUMN = "Label column"
POSITIVE_LABEL = "Positive label"
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
NO_PREDICTED = "(none)"
INTERSECT = "Intersect protected attributes"
ATTRIBUTE_BINS = "Bins for numeric attributes"
MIN_SIZE = "Minimum subgroup size"
SLICE_BY = "Slice by"
KEEP_ALL_CLASSES = "Keep all classes"

DISTANCE_LABELS = {"diff": "difference |a - b|", "ratio": "ratio (larger / smaller)"}
REDUCTION_LABELS = {"max": "max", "mean": "mean"}
REFERENCE_LABELS = {
    "rest": "rest of the population",
    "overall": "whole population",
    "pairwise": "every other subgroup (pairwise)",
    "named": "a chosen subgroup",
}
# Rate name in group_rates -> metric name of rate_disparity.
RATE_TO_METRIC = {"selection_rate": "statistical_parity", **{k: k for k in RATE_LABELS if k != "selection_rate"}}

HELP = {
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
}

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$])")


def md(text: object) -> str:
    """Escape data text for st.markdown-based elements, so it is shown literally."""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def num(value: float, digits: int = 4) -> str:
    """Format a metric value: fixed digits, 'undefined' for NaN, '∞' for infinity."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "undefined"
    if math.isinf(value):
        return "∞"
    return f"{value:.{digits}f}"

# Column headers for every table the pages show (snake_case names from fairness_core).
COLUMN_LABELS = {
    "subgroup": "Subgroup", "size": "Rows", "share": "Share", "n_positive": "Positives",
    "n_negative": "Negatives", "n_background_positive": "Background positives",
    "n_background_negative": "Background negatives", "small": "Small", "note": "Note",
    "tp": "TP", "fp": "FP", "tn": "TN", "fn": "FN", **RATE_LABELS,
    "subgroup_auc": "Subgroup AUC", "bpsn_auc": "BPSN AUC", "bnsp_auc": "BNSP AUC",
    "reference": "Compared with", "reference_size": "Reference rows", "subgroup_value": "Subgroup value",
    "reference_value": "Reference value", "disparity": "Disparity", "tpr_disparity": "TPR disparity",
    "fpr_disparity": "FPR disparity", "passes": "Passes", "ece": "ECE", "mce": "MCE",
    "brier_score": "Brier score", "reason": "Reason", "rows": "Rows", "score": "Score",
    "class": "Class", "n_true": "True rows", "n_predicted": "Predicted rows", "recall": "Recall",
    "precision": "Precision", "fscore": "F-score", "value": "Value", "n_subgroups": "Subgroups",
    "base_rate": "Base rate", "smoothed_positive_rate": "Smoothed positive rate",
    "smoothed_negative_rate": "Smoothed negative rate", "used": "Used",
}
DECIMAL_COLUMNS = {*RATE_LABELS, "subgroup_auc", "bpsn_auc", "bnsp_auc", "subgroup_value", "reference_value",
                   "disparity", "tpr_disparity", "fpr_disparity", "ece", "mce", "brier_score", "score", "recall",
                   "precision", "fscore", "value", "base_rate", "smoothed_positive_rate", "smoothed_negative_rate"}


def column_config(columns) -> dict:
    """st.dataframe column_config for `columns`: readable headers, 4 decimals for metric values."""
    import streamlit as st

    config = {}
    for col in columns:
        label = COLUMN_LABELS.get(col, col)
        if col in DECIMAL_COLUMNS:
            config[col] = st.column_config.NumberColumn(label, format="%.4f")
        elif col == "share":
            config[col] = st.column_config.NumberColumn(label, format="percent")
        else:
            config[col] = label
    return config
