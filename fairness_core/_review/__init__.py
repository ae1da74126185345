"""Reviews: findings, conclusions, configuration, review builders, the report and exports.

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
