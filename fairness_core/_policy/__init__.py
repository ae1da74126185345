"""Policy: rules, verdicts and their evaluation, the default rules, rules as JSON.

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
