"""The seven rates of a confusion table: cells, names, denominators, and the one rate <-> metric name map."""

from __future__ import annotations

from typing import Literal

import numpy as np

from .weights import size_text


# Confusion cell of a row: 2 * y_true + y_pred.
TN, FP, FN, TP = 0, 1, 2, 3

RATES = {
    # name: (numerator cells, denominator cells, note when the denominator is 0)
    "selection_rate": ((FP, TP), (TN, FP, FN, TP), "no rows"),
    "true_positive_rate": ((TP,), (TP, FN), "no positive examples (TP + FN = 0)"),
    "false_positive_rate": ((FP,), (FP, TN), "no negative examples (FP + TN = 0)"),
    "false_negative_rate": ((FN,), (FN, TP), "no positive examples (FN + TP = 0)"),
    "false_omission_rate": ((FN,), (FN, TN), "no predicted negatives (FN + TN = 0)"),
    "false_discovery_rate": ((FP,), (FP, TP), "no predicted positives (FP + TP = 0)"),
    "error_rate": ((FP, FN), (TN, FP, FN, TP), "no rows"),
}
RATE_NAMES = tuple(RATES)
# The rates a ratio score compares (p% score, equal opportunity score).
RATIO_RATES = ("selection_rate", "true_positive_rate")
# The one rate <-> metric name map (public as ConfusionCounts.RATE_TO_METRIC, which the app reads):
# rate name -> the name of its disparity metric (rate_disparity's `metric`; Oracle AutoMLx calls the
# selection rate "statistical parity").
RATE_TO_METRIC = {rate: ("statistical_parity" if rate == "selection_rate" else rate) for rate in RATE_NAMES}
# The same map the other way: disparity metric name -> rate name.
DISPARITY_METRICS = {metric: rate for rate, metric in RATE_TO_METRIC.items()}

Metric = Literal["statistical_parity", "true_positive_rate", "false_positive_rate", "false_negative_rate",
                 "false_omission_rate", "false_discovery_rate", "error_rate"]


def _fraction(counts: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(numerator, denominator) of rate `name` from counts of shape (..., 4)."""
    num_cells, den_cells, _ = RATES[name]
    return counts[..., list(num_cells)].sum(axis=-1), counts[..., list(den_cells)].sum(axis=-1)


def _rate(counts: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Rate `name` from counts of shape (..., 4) -> (values, notes)."""
    num, den = _fraction(counts, name)
    why = RATES[name][2]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    notes = np.full(np.shape(den), "", dtype=object)  # object from the start: no string array copied
    notes[~(den > 0)] = f"{name.replace('_', ' ')} undefined: {why}"
    return values, notes


DENOMINATOR_NAMES = {
    "selection_rate": "rows", "true_positive_rate": "actual positives", "false_positive_rate": "actual negatives",
    "false_negative_rate": "actual positives", "false_omission_rate": "predicted negatives",
    "false_discovery_rate": "predicted positives", "error_rate": "rows",
}


def _few_text(den, rate: str, min_size: int, prefix: str = "") -> str:
    """`den` is a count (an int), or with sample weights an effective sample size (a float)."""
    effective = "" if isinstance(den, (int, np.integer)) else "effective "
    return (f"{prefix}{size_text(den)} {effective}{DENOMINATOR_NAMES[rate]} (the denominator of the {rate.replace('_', ' ')}) "
            f"< minimum {min_size}")
