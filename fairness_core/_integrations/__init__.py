"""Integrations with other libraries: the scikit-learn scorer.

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
