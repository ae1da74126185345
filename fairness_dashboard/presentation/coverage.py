"""How far to trust the intervals: their coverage measured by simulation, for the notes beside them.

``measured_coverage.json`` is the table of ``benchmarks/coverage.py`` (written with its ``--out``): for each
interval the app shows, the share of nominal 95 % intervals that contained the true value in five simulated
settings (300 data sets of 2,000 rows each, one subgroup of about 3 % of rows). The goal:
93–97 %; where a quantity falls outside that in some setting, the page that shows it says so with the measured
numbers (:func:`note`) and the Metric definitions page lists them all (:func:`table`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

import fairness_core as fc

BAND = (93.0, 97.0)   # % : what a nominal 95 % interval must cover
# The table sits at the package's top, where benchmarks/coverage.py writes it.
MEASURED = json.loads((Path(__file__).parents[1] / "measured_coverage.json").read_text(encoding="utf-8"))
ANCHOR = "coverage"   # the Metric definitions page's section


# The benchmark's short names of the rates.
SHORT = {"selection_rate": "selection rate", "true_positive_rate": "TPR", "false_positive_rate": "FPR",
         "false_negative_rate": "FNR", "false_omission_rate": "FOR", "false_discovery_rate": "FDR",
         "error_rate": "error rate"}


# The benchmark's names of the adjusted comparison tables (Holm shows Bonferroni's intervals).
ADJUSTED = {"max_t": "Simultaneous (max-t)", "bonferroni": "Bonferroni or Holm", "holm": "Bonferroni or Holm", "fdr_bh": "Benjamini–Hochberg"}
# The benchmark's names of the class-wise reductions.
CLASSWISE = {"std": "std", "difference": "signed difference", "absolute_difference": "absolute difference"}


def comparisons(label: str, adjust: str | None) -> list[str]:
    """The measured quantities of a comparison table's intervals: `label` (e.g. ``"FPR diff"``) per comparison, or
    with `adjust` ({None, 'bonferroni', 'holm', 'fdr_bh'}) the adjusted table's rows.

    >>> comparisons("FPR diff", None), comparisons("FPR diff", "holm")
    (['FPR diff, per comparison'], ['Bonferroni or Holm: FPR diff, '])
    """
    return [f"{label}, per comparison"] if adjust is None else [f"{ADJUSTED[adjust]}: {label}, "]


# How the benchmark names a comparison against each reference ('rest' is its default, unnamed; a subgroup chosen by
# name was measured with the largest one).
AGAINST = {"rest": "", "overall": " vs all rows", "pairwise": ", pairwise", None: " vs the largest subgroup"}


def rate_prefixes(rates, distance: str, reduction: str, adjust: str | None = None, reference="rest") -> list[str]:
    """The measured quantities of the Rate disparities page at these settings (`rates`: RATE_NAMES; `adjust`: the
    sidebar's multiple-comparison adjustment, which changes the comparison tables' intervals, not the reduced
    values'; `reference`: 'rest', 'overall', 'pairwise' or a named subgroup, ``fc.named_reference``)."""
    against = AGAINST[fc.reference_keyword(reference)]
    names = [SHORT[r] for r in rates] + ["equalized odds"]
    if against:   # (the adjusted tables were measured against the rest)
        compared = [f"{n} {distance}{against}, per comparison" for n in names]
    else:
        compared = [prefix for n in names for prefix in comparisons(f"{n} {distance}", adjust)]
    return ([f"{n} {distance}{against}, {reduction}" for n in names] + compared
            + [f"{SHORT[r]} per subgroup" for r in rates]
            + ["two-group Theil index vs rest", "p% score", "equal opportunity score"])


def classwise_prefixes(metric: str, reduction: str) -> list[str]:
    """The measured quantities of the Class-wise bias page: `metric` ({'recall', 'precision', 'fscore'}) per
    subgroup and class, and its `reduction` ({'std', 'difference', 'absolute_difference'}) per class and averaged.

    >>> classwise_prefixes("recall", "absolute_difference")[1]
    'per-class absolute difference of recall'
    """
    words = CLASSWISE[reduction]
    return [f"{metric} per subgroup and class", f"per-class {words} of {metric}",
            f"unweighted average bias ({words}) of {metric}"]


def _outside(row: dict) -> bool:
    values = [v for v in row["coverage"].values() if v is not None]
    return bool(values) and (min(values) < BAND[0] or max(values) > BAND[1])


def outside(prefixes) -> list[tuple[str, float, float]]:
    """The measured quantities named by `prefixes` whose coverage leaves 93–97 % in some setting.

    Parameters
    ----------
    prefixes : iterable of str
        Beginnings of the benchmark's quantity names (e.g. ``"FPR diff, max"``, ``"ECE per subgroup"``).

    Returns
    -------
    list of (quantity, lowest %, highest %)
        Over the settings where it was measured, in the benchmark's order.
    """
    prefixes = tuple(prefixes)
    out = []
    for row in MEASURED["rows"]:
        if row["quantity"].startswith(prefixes) and _outside(row):
            values = [v for v in row["coverage"].values() if v is not None]
            out.append((row["quantity"], min(values), max(values)))
    return out


def note(prefixes) -> str:
    """One sentence for the caption beside intervals whose measured coverage leaves 93–97 % ('' when none does).

    >>> note(["no such quantity"])
    ''
    """
    rows = outside(prefixes)
    if not rows:
        return ""
    measured = "; ".join(f"{quantity} {low:.1f}–{high:.1f} %" for quantity, low, high in rows)
    return (f" Measured coverage of these nominal 95 % intervals in simulation leaves 93–97 % in some settings "
            f"({measured}): read them as approximate (Metric definitions, *How far to trust the intervals*).")


def table() -> pd.DataFrame:
    """Every quantity outside 93–97 % in some setting: section, quantity, then its coverage (%) per setting."""
    rows = [row for row in MEASURED["rows"] if _outside(row)]
    return pd.DataFrame([{"Section": row["section"], "Quantity": row["quantity"],
                          **{s: row["coverage"].get(s) for s in MEASURED["settings"]}} for row in rows])
