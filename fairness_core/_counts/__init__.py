"""Count tables (confusion, threshold, calibration, class), their encodings, and ScoredData.

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
