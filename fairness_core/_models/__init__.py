"""Comparing models on the same rows: rates, AUCs, calibration.

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
