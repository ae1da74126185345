"""Number formats: metric values by magnitude (:func:`num`), levels and intervals in words, and the tables'
column formats (``st.dataframe``'s ``column_config``: 4 significant digits, ``"%.4g"``)."""

from __future__ import annotations

import math

from fairness_core.plotting import RATE_LABELS

from . import labels


def num(value: float, digits: int = 4) -> str:
    """Format a metric value by its magnitude: `digits` significant digits.

    Values from 0.0001 up are written in full with `digits` significant digits (0.4485, 2.271,
    0.05234, 1,234); smaller nonzero values in scientific notation (2.345e-5), so a nonzero value
    never reads 0.0000; 0 is "0", NaN "undefined", infinity "∞" (the caption next to the number
    says why).

    Examples
    --------
    >>> num(0.448468), num(2.27083), num(0.0523449), num(2.3456e-5), num(0.0), num(float("inf"))
    ('0.4485', '2.271', '0.05234', '2.346e-5', '0', '∞')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "undefined"
    value = float(value)
    if math.isnan(value):
        return "undefined"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if value == 0:
        return "0"
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")  # rounded first: 0.99996 -> 1.000e+00
    exponent = int(exponent)
    if exponent < -4:
        return f"{mantissa}e{exponent}"
    return f"{value:,.{max(digits - 1 - exponent, 0)}f}"


def level_text(level: float) -> str:
    """'95 %' for 0.95."""
    return f"{level * 100:g} %"


def ci_text(low: float, high: float, level: float, digits: int = 4) -> str:
    """'95 % CI 1.861–2.253' (Markdown-safe; ends formatted by :func:`num`); 'undefined' ends when there is none."""
    if undefined(low) or undefined(high):
        return f"{level_text(level)} CI undefined"
    return f"{level_text(level)} CI {num(low, digits)}–{num(high, digits)}"


def undefined(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


DECIMAL_COLUMNS = {*RATE_LABELS, "subgroup_auc", "bpsn_auc", "bnsp_auc", "subgroup_value", "reference_value",
                   "disparity", "tpr_disparity", "fpr_disparity", "ece", "mce", "brier_score", "score", "recall",
                   "ece_expected", "ece_debiased", "subgroup_expected", "reference_expected",
                   "precision", "fscore", "value", "base_rate", "smoothed_positive_rate", "smoothed_negative_rate",
                   "accuracy", "f1", "subgroup_auc_max_binning_error", "bpsn_auc_max_binning_error",
                   "bnsp_auc_max_binning_error"}


def column_config(columns) -> dict:
    """st.dataframe column_config for `columns`: readable headers, metric values to 4 significant digits ("%.4g")."""
    import streamlit as st

    config = {}
    for col in columns:
        label = labels.COLUMN_LABELS.get(col, col)
        bound = next((b for b in ("_ci_low", "_ci_high") if col.endswith(b)), None)
        if bound is not None and col[: -len(bound)] in DECIMAL_COLUMNS:
            base = labels.COLUMN_LABELS.get(col[: -len(bound)], col[: -len(bound)])
            config[col] = st.column_config.NumberColumn(f"{base}: CI {bound[4:]}", format="%.4g")
        elif col == "p_value":
            config[col] = st.column_config.NumberColumn(label, format="%.4g")
        elif col in DECIMAL_COLUMNS:
            config[col] = st.column_config.NumberColumn(label, format="%.4g")
        elif col == "share":
            config[col] = st.column_config.NumberColumn(label, format="percent")
        elif col in WIDE_TEXT_COLUMNS:  # explanations (of an ∞ or an undefined value) read in full, not cut
            config[col] = st.column_config.TextColumn(label, width="large")
        else:
            config[col] = label
    return config


# Text columns that explain a value: drawn wide so that a note is not cut to "one valu…".
WIDE_TEXT_COLUMNS = ("note", "small_reason", "reason")
