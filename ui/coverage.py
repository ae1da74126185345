"""How far to trust the intervals: their coverage measured by simulation, for the notes beside them.

``measured_coverage.json`` is the table of ``benchmarks/coverage.py`` (written with its ``--out``): for each
interval the app shows, the share of nominal 95 % intervals that contained the true value in five simulated
settings (300 data sets of 2,000 rows each, one subgroup of about 3 % of rows). ARCHITECTURE §5.6 asks for
93–97 %; where a quantity falls outside that in some setting, the page that shows it says so with the measured
numbers (:func:`note`) and the Metric definitions page lists them all (:func:`table`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

BAND = (93.0, 97.0)   # % : what a nominal 95 % interval must cover (ARCHITECTURE §5.6)
MEASURED = json.loads(Path(__file__).with_name("measured_coverage.json").read_text(encoding="utf-8"))
ANCHOR = "coverage"   # the Metric definitions page's section


# The benchmark's short names of the rates.
SHORT = {"selection_rate": "selection rate", "true_positive_rate": "TPR", "false_positive_rate": "FPR",
         "false_negative_rate": "FNR", "false_omission_rate": "FOR", "false_discovery_rate": "FDR",
         "error_rate": "error rate"}


def rate_prefixes(rates, distance: str, reduction: str) -> list[str]:
    """The measured quantities of the Rate disparities page at these settings (`rates`: RATE_NAMES)."""
    names = [SHORT[r] for r in rates] + ["equalized odds"]
    return ([f"{n} {distance}, {red}" for n in names for red in (reduction, "per comparison")]
            + [f"{SHORT[r]} per subgroup" for r in rates]
            + ["two-group Theil index vs rest", "p% score", "equal opportunity score"])


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
