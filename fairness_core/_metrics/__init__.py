"""Metrics, one module per family, computed through the count tables.

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
