"""The version of fairness_core (one home: the package, reviews and reports read it here)."""

__version__ = "0.5.0"
