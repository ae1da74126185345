"""Statistics: Wilson and MOVER intervals, DeLong, bootstrap helpers (resampling atoms, percentile intervals).

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
