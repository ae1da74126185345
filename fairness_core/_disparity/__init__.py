"""Disparities of per-subgroup values: distances, reductions, references, inequality, average bias, calibration errors.

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
