"""Subgroups: membership from attributes or indicators, patterns of membership, attribute binning, slices.

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
