"""Data in: reading tables, the CSV dialect, argument checks, the column mapping and its guess.

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
