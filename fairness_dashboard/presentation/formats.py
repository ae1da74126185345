"""Number formats: the tiles' one policy (:func:`tile`, also the ends of the interval beside a tile,
:func:`ci_text`), other metric values in text by magnitude (:func:`num`), levels in words, and the tables'
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


TILE_DECIMALS = 3          # the tiles' fixed decimals (from 0.01 up); below, 3 significant digits


def tile(value: float) -> str:
    """Format the value of a tile (``st.metric``) or an end of the interval beside it: the tiles' one policy.

    Every tile reads on the same grid: a value whose magnitude is 0.01 or more (rates, AUCs, disparities
    in [0, 1], ratios, indices) has 3 decimals (0.130, 0.053, 2.271, 1,234.500); a nonzero value below 0.01
    keeps 3 significant digits, so it never reads 0.000 (0.00526, 0.000625), in scientific notation
    below 0.0001 (2.35e-5). The magnitude is judged after rounding to 3 significant digits, so 0.009996 is
    0.010. 0 is "0", NaN "undefined", infinity "∞". Counts are not tiles of this kind: they are written as
    integers ("6,000").

    Parameters
    ----------
    value : float
        The metric value (None or NaN for an undefined one).

    Returns
    -------
    str

    Examples
    --------
    >>> tile(0.1302), tile(0.05263), tile(0.0006253), tile(2.27083), tile(0.0)
    ('0.130', '0.053', '0.000625', '2.271', '0')
    >>> tile(2.3456e-5), tile(0.009996), tile(float("nan")), tile(float("inf"))
    ('2.35e-5', '0.010', 'undefined', '∞')
    """
    if undefined(value):
        return "undefined"
    value = float(value)
    if math.isfinite(value) and value != 0 and int(f"{value:.2e}".split("e")[1]) >= -2:
        return f"{value:,.{TILE_DECIMALS}f}"   # |value| rounds to 0.01 or more: the fixed decimals
    return num(value, 3)   # 3 significant digits below (scientific below 0.0001); 0, NaN and infinities as num


def level_text(level: float) -> str:
    """'95 %' for 0.95."""
    return f"{level * 100:g} %"


def ci_text(low: float, high: float, level: float, digits: int | None = None) -> str:
    """'95 % CI 1.861–2.253': the interval beside a tile (Markdown-safe), its ends formatted as the tile is
    (:func:`tile`); 'undefined' when an end is.

    `digits` is accepted for callers written before the tiles' policy and has no effect: every interval beside
    a tile follows :func:`tile`.

    Examples
    --------
    >>> ci_text(0.12034, 0.14161, 0.95), ci_text(0.0004217, 0.0123, 0.9)
    ('95 % CI 0.120–0.142', '90 % CI 0.000422–0.012')
    """
    if undefined(low) or undefined(high):
        return f"{level_text(level)} CI undefined"
    return f"{level_text(level)} CI {tile(low)}–{tile(high)}"


def undefined(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


DECIMAL_COLUMNS = {*RATE_LABELS, "subgroup_auc", "bpsn_auc", "bnsp_auc", "subgroup_value", "reference_value",
                   "disparity", "tpr_disparity", "fpr_disparity", "ece", "mce", "brier_score", "score", "recall",
                   "l2_ece", "squared_ce", "subgroup_squared", "reference_squared",
                   "precision", "fscore", "value", "base_rate", "smoothed_positive_rate", "smoothed_negative_rate",
                   "accuracy", "f1", "subgroup_auc_max_binning_error", "bpsn_auc_max_binning_error",
                   "bnsp_auc_max_binning_error"}


def column_config(columns) -> dict:
    """st.dataframe column_config for `columns`: readable headers, metric values to 4 significant digits ("%.4g").

    With a weight column mapped, the sizes are effective sample sizes and the counts sums of weights
    (``labels.WEIGHTED_COLUMN_LABELS``)."""
    import streamlit as st

    from ..session import state

    names = labels.COLUMN_LABELS
    if getattr(st.session_state.get(state.MAPPING), "weight", None):
        names = {**names, **labels.WEIGHTED_COLUMN_LABELS}
    config = {}
    for col in columns:
        label = names.get(col, col)
        bound = next((b for b in ("_ci_low", "_ci_high") if col.endswith(b)), None)
        if bound is not None and col[: -len(bound)] in DECIMAL_COLUMNS:
            base = names.get(col[: -len(bound)], col[: -len(bound)])
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
