"""The review report's words and numbers: columns and metric keys in human names (the report's one table of them,
:data:`COLUMN_NAMES`), and numbers to the precision their intervals justify (:func:`number_text`,
:func:`threshold_text`, :func:`count_text`), applied to a whole table by :func:`shown_table`.

Only the JSON appendix of the report keeps the library's keys and full precision. Everything here works on plain
values (column names, numbers, cell texts); nothing makes markup.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..plotting._common import AUC_COLUMNS, RATE_LABELS

# The report's column names: every column of a table the report prints, by its key in the review's tables (the
# JSON appendix keeps the keys). The rates' and AUCs' names are the charts' (``plotting.RATE_LABELS``,
# ``AUC_COLUMNS``). An interval's ends (``<key>_ci_low``, ``<key>_ci_high``) are printed as one column,
# "<name> interval"; a per-subgroup-threshold column ``<key>_single`` / ``<key>_own`` as "<name> (single
# threshold)" / "<name> (own thresholds)".
COLUMN_NAMES = {
    "subgroup": "Subgroup", "reference": "Compared with", "first": "First subgroup", "second": "Second subgroup",
    "class": "Class", "model": "Model", "kind": "Kind", "metric": "Metric", "scope": "Scope",
    "size": "Rows", "reference_size": "Reference rows", "share": "Share", "rows": "Rows", "weight": "Weight",
    "n_positive": "Positives", "n_negative": "Negatives", "n_background_positive": "Background positives",
    "n_background_negative": "Background negatives", "n_true": "True rows", "n_predicted": "Predicted rows",
    "tp": "TP", "fp": "FP", "tn": "TN", "fn": "FN", "numerator": "Numerator", "denominator": "Denominator",
    "reference_numerator": "Reference numerator", "reference_denominator": "Reference denominator",
    "count": "Rows", "small": "Small", "small_reason": "Why small", "note": "Note", "reason": "Reason",
    "used": "Used", **RATE_LABELS, **AUC_COLUMNS, "auc": "AUC",
    "subgroup_auc_max_binning_error": "Subgroup AUC: max binning error",
    "bpsn_auc_max_binning_error": "BPSN AUC: max binning error",
    "bnsp_auc_max_binning_error": "BNSP AUC: max binning error",
    "subgroup_value": "Subgroup value", "reference_value": "Reference value", "disparity": "Disparity",
    "tpr_disparity": "TPR disparity", "fpr_disparity": "FPR disparity", "p_value": "p-value",
    "excludes_parity": "Interval excludes parity", "n_boot_undefined": "Undefined resamples",
    "passes": "Passes", "verdict": "Verdict", "status": "Status",
    "ece": "ECE", "mce": "MCE", "l2_ece": "ℓ2 ECE", "brier_score": "Brier score",
    "squared_ce": "Squared calibration error (debiased)", "subgroup_squared": "Subgroup squared error",
    "reference_squared": "Reference squared error", "bin": "Bin", "bin_lower": "Bin from", "bin_upper": "Bin to",
    "mean_predicted": "Mean score", "fraction_positive": "Share positive",
    "score": "Score", "value": "Value", "recall": "Recall", "precision": "Precision", "fscore": "F-score",
    "f1": "F1", "accuracy": "Accuracy", "balanced_accuracy": "Balanced accuracy", "n_subgroups": "Subgroups",
    "base_rate": "Base rate", "smoothed_positive_rate": "Smoothed positive rate",
    "smoothed_negative_rate": "Smoothed negative rate",
    "threshold": "Threshold", "worst_disparity": "Largest disparity", "single": "Single threshold",
    "own": "Own thresholds", "rate": "Rate", "quantity": "Quantity", "baseline_value": "Baseline value",
    "difference": "Difference",
    "difference_se": "Standard error of the difference", "excludes_zero": "Interval excludes 0",
    "zemel_consistency": "Consistency (Zemel et al.)", "std_error": "Standard error", "n_neighbors": "Neighbours",
    "n_rows": "Rows", "n_sampled": "Rows sampled", "n_excluded": "Rows left out", "features": "Features",
    # subgroup discovery
    "rank": "Rank", "depth": "Columns", "held_out_size": "Held-out rows", "rest_value": "Rest",
    # fairness over time
    "period": "Period", "start": "Start", "small_subgroups": "Small subgroups", "rule": "Rule", "periods": "Periods",
    "pass": "Pass", "fail": "Fail", "inconclusive": "Inconclusive", "not_assessable": "Not assessable",
    "first_failure": "First failing period", "first_failure_value": "Its estimate then", "latest": "Latest period",
    "latest_status": "Latest verdict", "slope": "Trend per period", "slope_p_value": "Trend p-value",
    "equal_p_value": "Equal-periods p-value",
}
# With sample weights: sizes are Kish's effective sample sizes, counts sums of weights.
WEIGHTED_COLUMN_NAMES = {
    "size": "Effective size", "reference_size": "Reference effective size", "n_positive": "Positives (weight)",
    "n_negative": "Negatives (weight)", "n_background_positive": "Background positives (weight)",
    "n_background_negative": "Background negatives (weight)",
}
# A metric key as a table cell names it (the quantity of a difference from the baseline, the rate of a
# per-subgroup-threshold disparity, the AUC of a row) and as a heading names its disparity.
QUANTITY_NAMES = {
    **{key: f"{name} disparity" for key, name in RATE_LABELS.items()},
    "statistical_parity": "Selection rate disparity", "equalized_odds": "Equalized odds disparity",
    "theil_index": "Theil index disparity", "p_percent_score": "p% score",
    "equal_opportunity_score": "Equal opportunity score", "overall_auc": "Overall AUC", **AUC_COLUMNS,
}
# The words of a verdict's status.
STATUS_NAMES = {"pass": "pass", "fail": "fail", "inconclusive": "inconclusive", "not_assessable": "not assessable"}
# Columns whose cells are metric keys or statuses, printed in words.
NAMED_VALUE_COLUMNS = ("quantity", "rate", "auc", "verdict", "status")
# Columns of the data's own text (subgroup, class, column names): printed as the data writes them.
DATA_COLUMNS = ("subgroup", "reference", "first", "second", "class", "model", "features")
# Counts: integers with thousands separators (a sum of weights as written); sizes: whole numbers (Kish's effective
# size rounded).
COUNT_COLUMNS = frozenset({"n_positive", "n_negative", "n_background_positive", "n_background_negative", "n_true",
                           "n_predicted", "tp", "fp", "tn", "fn", "numerator", "denominator", "reference_numerator",
                           "reference_denominator", "count", "weight", "n_subgroups", "n_boot_undefined",
                           "n_neighbors", "n_sampled", "n_excluded", "small_subgroups", "periods", "pass", "fail",
                           "inconclusive", "not_assessable"})
SIZE_COLUMNS = frozenset({"size", "reference_size", "rows", "n_rows", "held_out_size"})
THRESHOLD_COLUMNS = frozenset({"threshold"})
PERCENT_COLUMNS = frozenset({"share"})
INTERVAL_ENDS = ("_ci_low", "_ci_high")
_VARIANTS = {"_single": "single threshold", "_own": "own thresholds"}
# A rate disparity's distance measure in a heading.
DISTANCE_NAMES = {"diff": "difference", "ratio": "ratio"}
# Significant digits of an estimate or an interval's end; decimals of a threshold.
DIGITS = 3
THRESHOLD_DECIMALS = 3
# Columns of notes: left out of a table where every row's is empty (they say nothing there; the JSON keeps them).
NOTE_COLUMNS = ("note", "small_reason", "reason")


def column_name(key, weighted: bool = False) -> str:
    """A column's name in the report.

    Parameters
    ----------
    key : str
        The column's key in the review's table.
    weighted : bool, default=False
        The counts are sums of sample weights and the sizes effective sample sizes (``WEIGHTED_COLUMN_NAMES``).

    Returns
    -------
    str
        ``COLUMN_NAMES[key]``; "<name> (single threshold)" and "<name> (own thresholds)" for the per-subgroup
        threshold columns ``<key>_single`` and ``<key>_own``; a key this module does not know with its
        underscores as spaces, capitalised (``tests/fairness_core/test_report_names.py`` checks that every
        column of a review is known).

    Examples
    --------
    >>> column_name("bpsn_auc"), column_name("n_positive", weighted=True), column_name("accuracy_own")
    ('BPSN AUC', 'Positives (weight)', 'Accuracy (own thresholds)')
    """
    key = str(key)
    if weighted and key in WEIGHTED_COLUMN_NAMES:
        return WEIGHTED_COLUMN_NAMES[key]
    if key in COLUMN_NAMES:
        return COLUMN_NAMES[key]
    for suffix, words in _VARIANTS.items():
        if key.endswith(suffix) and key[: -len(suffix)] in COLUMN_NAMES:
            return f"{COLUMN_NAMES[key[: -len(suffix)]]} ({words})"
    text = key.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def number_text(value, digits: int = DIGITS) -> str:
    """An estimate or an end of its interval, to `digits` significant digits (the precision an interval of a few
    hundred rows justifies; the JSON appendix keeps every digit).

    Trailing zeros are dropped as ``g`` drops them; a value of 1,000 or more is written whole with thousands
    separators, one below 0.0001 in scientific notation (``2.35e-5``). NaN and None are ``""``, infinities
    ``∞`` and ``-∞``. Three significant digits follow T. J. Cole, "Too many digits: the presentation of numerical
    data", Archives of Disease in Childhood 100 (2015) 608-609: digits beyond what the interval's width resolves
    are noise to the reader.

    Parameters
    ----------
    value : float or None
        The number.
    digits : int, default=DIGITS (3)
        Significant digits.

    Returns
    -------
    str

    Examples
    --------
    >>> number_text(0.006634), number_text(0.0165666), number_text(0.2325), number_text(1.3925)
    ('0.00663', '0.0166', '0.233', '1.39')
    >>> number_text(0.5), number_text(0), number_text(2.3456e-5), number_text(12345.6), number_text(float("nan"))
    ('0.5', '0', '2.35e-5', '12,346', '')
    """
    if value is None or value is pd.NA:
        return ""
    value = float(value)
    if math.isnan(value):
        return ""
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    text = f"{value:.{digits}g}"
    if "e" in text:   # below 0.0001: 2.35e-05 -> 2.35e-5
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def interval_text(low, high, digits: int = DIGITS) -> str:
    """An interval's two ends, "0.00663 to 0.0166" (:func:`number_text`); ``""`` when an end is undefined.

    Parameters
    ----------
    low, high : float or None
        The interval's ends.
    digits : int, default=DIGITS (3)
        Significant digits of each end.

    Returns
    -------
    str

    Examples
    --------
    >>> interval_text(0.006634, 0.0165666), interval_text(-0.0804, 0.05242), interval_text(float("nan"), 1)
    ('0.00663 to 0.0166', '-0.0804 to 0.0524', '')
    """
    low, high = number_text(low, digits), number_text(high, digits)
    return f"{low} to {high}" if low and high else ""


def threshold_text(value) -> str:
    """A decision threshold to 3 decimals, trailing zeros dropped ("0.978", "0.5", "5"); a nonzero threshold below
    0.01 to 3 significant digits, so that it never reads 0. (The JSON appendix keeps the threshold as given.)

    Parameters
    ----------
    value : float or None
        The threshold, on the score's scale.

    Returns
    -------
    str

    Examples
    --------
    >>> threshold_text(0.978254), threshold_text(0.5), threshold_text(5.0), threshold_text(0.0012345)
    ('0.978', '0.5', '5', '0.00123')
    """
    if value is None:
        return ""
    value = float(value)
    if math.isnan(value):
        return ""
    if 0 < abs(value) < 0.01:
        return number_text(value)
    text = f"{value:,.{THRESHOLD_DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def count_text(value, whole: bool = False) -> str:
    """A count: an integer with thousands separators ("5,600"); a sum of weights that is not whole as written,
    to 6 significant digits ("1,234.5"); with `whole`, rounded to an integer (a size: Kish's effective sample size).

    Parameters
    ----------
    value : int or float or None
        The count, or sum of weights.
    whole : bool, default=False
        Round to an integer (a size).

    Returns
    -------
    str

    Examples
    --------
    >>> count_text(5600), count_text(5600.0), count_text(1234.5), count_text(243.71, whole=True)
    ('5,600', '5,600', '1,234.5', '244')
    """
    if value is None or value is pd.NA:
        return ""
    value = float(value)
    if math.isnan(value):
        return ""
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if whole or value == round(value):
        return f"{round(value):,}"
    return f"{value:,.6g}"


def _plain_value(value):
    """A table value as a Python value: numpy scalars as the numbers they hold; missing values as None."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _as_text(value) -> str:
    """Text as written, with tabs and line breaks shown as pandas prints them."""
    text = str(value)
    for char, shown in (("\t", "\\t"), ("\r", "\\r"), ("\n", "\\n")):
        text = text.replace(char, shown)
    return text.strip()


def cell_text(key: str, value, value_names=None) -> str:
    """A table cell as the report prints it, by its column's key.

    Parameters
    ----------
    key : str
        The column's key.
    value : object
        The cell.
    value_names : dict, optional
        Names of the cells of the columns in ``NAMED_VALUE_COLUMNS`` (and of the extra columns a caller names, such
        as a suggestion's rules); default ``QUANTITY_NAMES`` and ``STATUS_NAMES``.

    Returns
    -------
    str
        ``""`` for a missing value; the data's text as written in ``DATA_COLUMNS`` and for any other text (a
        metric key or status in words in ``NAMED_VALUE_COLUMNS``); "yes"/"no" for a flag; :func:`count_text` for
        counts and sizes, :func:`threshold_text` for thresholds, a percentage to 3 significant digits for a share,
        :func:`number_text` for every other number.

    Examples
    --------
    >>> cell_text("n_positive", 2041), cell_text("share", 0.0666667), cell_text("quantity", "statistical_parity")
    ('2,041', '6.67 %', 'Selection rate disparity')
    >>> cell_text("small", True), cell_text("p_value", 0.00995025), cell_text("class", 2024)
    ('yes', '0.00995', '2024')
    """
    value = _plain_value(value)
    if value is None:
        return ""
    if key in DATA_COLUMNS or isinstance(value, str):
        if isinstance(value, str) and key in NAMED_VALUE_COLUMNS:
            names = value_names if value_names is not None else {**QUANTITY_NAMES, **STATUS_NAMES}
            return names.get(value, value)
        return _as_text(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, (int, float)):
        return _as_text(value)
    if key in COUNT_COLUMNS or key in SIZE_COLUMNS:
        return count_text(value, whole=key in SIZE_COLUMNS)
    if key in THRESHOLD_COLUMNS:
        return threshold_text(value)
    if key in PERCENT_COLUMNS:
        return f"{number_text(value * 100)} %"
    return number_text(value)


def shown_table(frame: pd.DataFrame, weighted: bool = False, names=None) -> tuple:
    """A table's columns and cells as the report prints them: human names, an interval's two ends as one column.

    Parameters
    ----------
    frame : DataFrame
        A table of the review (its index is not printed).
    weighted : bool, default=False
        The counts are sums of weights (:func:`column_name`).
    names : dict, optional
        Names of columns this module does not know, and of their cells, e.g. a suggestion's rule names (columns of
        statuses) to the rules' plain names; their cells are printed as statuses in words.

    Returns
    -------
    tuple of (list of str, list of list of str)
        The column names, and every row's cells (:func:`cell_text`). A pair ``<key>_ci_low``, ``<key>_ci_high``
        becomes one column "<name of key> interval" at the low end's place, its cells "low to high"
        (:func:`interval_text`). A column of notes (``NOTE_COLUMNS``) that is empty in every row is left out.

    Examples
    --------
    >>> frame = pd.DataFrame({"subgroup": ["a"], "disparity": [0.1234567], "disparity_ci_low": [0.0066341],
    ...                       "disparity_ci_high": [0.165666], "size": [1500], "note": [""]})
    >>> shown_table(frame)
    (['Subgroup', 'Disparity', 'Disparity interval', 'Rows'], [['a', '0.123', '0.00663 to 0.166', '1,500']])
    """
    names = names or {}
    keys = [str(c) for c in frame.columns]
    columns, readers = [], []
    for i, key in enumerate(keys):
        if key in NOTE_COLUMNS and all(cell_text(key, v) == "" for v in frame.iloc[:, i]):
            continue
        base = next((key[: -len(end)] for end in INTERVAL_ENDS if key.endswith(end)), None)
        if base is not None and f"{base}_ci_low" in keys and f"{base}_ci_high" in keys:
            if key.endswith("_ci_high"):
                continue   # printed with its low end
            high = keys.index(f"{base}_ci_high")
            name = names.get(base) or column_name(base, weighted)
            columns.append(f"{name} interval")
            readers.append(lambda row, i=i, high=high: interval_text(_plain_value(row[i]), _plain_value(row[high])))
        elif key in names:
            columns.append(names[key])
            readers.append(lambda row, i=i: cell_text("status", row[i]))
        else:
            columns.append(column_name(key, weighted))
            readers.append(lambda row, i=i, key=key: cell_text(key, row[i]))
    rows = [[read(row) for read in readers] for row in frame.itertuples(index=False, name=None)]
    return columns, rows
