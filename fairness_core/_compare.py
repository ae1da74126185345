"""Disparities: compare each subgroup's value with a reference value, then reduce (§5.2).

Shared by every disparity metric (rates, equalized odds, calibration): a metric supplies, per
subgroup, its own value, the value on its background ("rest") and the value on all rows
("overall"); this module builds the comparison table and its reduction. Nothing here touches
rows, so changing the distance, reference or reduction never recomputes statistics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

import numpy as np
import pandas as pd

from ._checks import check_option

Distance = Literal["diff", "ratio"]
DISTANCES = ("diff", "ratio")
KEYWORD_REFERENCES = ("rest", "overall", "pairwise")
REFERENCE_MESSAGE = (
    "The 'reference' parameter of {func} must be 'rest', 'overall', 'pairwise' or the name of a "
    "subgroup. Got {got!r} instead. Subgroups: {names}."
)
TABLE_COLUMNS = ["subgroup", "reference", "size", "reference_size", "subgroup_value",
                 "reference_value", "disparity", "small", "note"]


def distance(a: np.ndarray, b: np.ndarray, measure: Distance) -> np.ndarray:
    """Elementwise disparity of `a` against `b`.

    ``"diff"``: |a - b| (perfect 0). ``"ratio"``: max(a, b) / min(a, b), i.e. a / b inverted to
    be >= 1 (perfect 1); both 0 gives 1, exactly one 0 gives inf. NaN in either gives NaN.

    Parameters
    ----------
    a, b : array-like of shape (n,) or scalars
        Non-negative metric values (rates, ECEs).
    measure : {'diff', 'ratio'}

    Returns
    -------
    ndarray of float, shape (n,)

    References
    ----------
    Seed 004 (Oracle AutoMLx fairness metrics), ``distance_measure``.

    Examples
    --------
    >>> distance([0.2, 0.0, 0.0], [0.1, 0.0, 0.5], "ratio").tolist()
    [2.0, 1.0, inf]
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if measure == "diff":
        return np.abs(a - b)
    hi, lo = np.fmax(a, b), np.fmin(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = hi / lo
    out = np.where((hi == 0) & (lo == 0), 1.0, out)
    out = np.where((lo == 0) & (hi > 0), np.inf, out)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, out)


@dataclass(frozen=True)
class DisparityResult:
    """A reduced disparity and the comparisons behind it.

    Attributes
    ----------
    value : float
        The reduction (max or mean) of the ``disparity`` column over the comparisons used.
    reduction : {'max', 'mean'}
    distance_measure : {'diff', 'ratio'}
    reference : str
    table : DataFrame
        One row per comparison (columns ``subgroup, reference, size, reference_size,
        subgroup_value, reference_value, disparity, small, note``).
    n_used : int
        Comparisons with a defined disparity that entered the reduction.
    n_undefined : int
        Comparisons left out because the disparity is NaN (see their ``note``).
    n_small_excluded : int
        Comparisons left out because a subgroup in them is small.
    worst : tuple of (str, str) or None
        (subgroup, reference) of the largest disparity used.
    """

    value: float
    reduction: str
    distance_measure: str
    reference: str
    table: pd.DataFrame
    n_used: int
    n_undefined: int
    n_small_excluded: int
    worst: tuple | None

    def __float__(self) -> float:
        return float(self.value)


def check_reference(reference: str, names: list[str], func: str) -> str:
    """Validate `reference`: a keyword or one of the subgroup `names`."""
    if reference in KEYWORD_REFERENCES or reference in names:
        return reference
    shown = ", ".join(map(repr, names[:20])) + (", ..." if len(names) > 20 else "")
    raise ValueError(REFERENCE_MESSAGE.format(func=func, got=reference, names=shown))


def compare(
    names: list[str],
    sizes: np.ndarray,
    values: np.ndarray,
    rest_values: np.ndarray,
    rest_sizes: np.ndarray,
    overall_value: float,
    n_total: int,
    small: np.ndarray,
    *,
    distance_measure: Distance,
    reference: str,
    func: str,
    notes: Optional[np.ndarray] = None,
    rest_notes: Optional[np.ndarray] = None,
) -> pd.DataFrame:
    """Build the comparison table of one metric for the chosen reference.

    Parameters
    ----------
    names, sizes, values, small : per-subgroup arrays of shape (n_subgroups,)
    rest_values, rest_sizes : per-subgroup arrays
        The metric and row count on each subgroup's background.
    overall_value, n_total : float, int
        The metric and row count on all rows.
    distance_measure : {'diff', 'ratio'}
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name
    notes, rest_notes : arrays of str, optional
        Why a value (or its background value) is NaN.

    Returns
    -------
    DataFrame with columns ``TABLE_COLUMNS``; one row per subgroup, or per unordered pair of
    subgroups for ``"pairwise"``, or per subgroup other than the named reference.
    """
    check_option(distance_measure, DISTANCES, "distance_measure", func)
    check_reference(reference, names, func)
    k = len(names)
    names_arr = np.asarray(names, dtype=object)
    values = np.asarray(values, dtype=np.float64)
    sizes = np.asarray(sizes)
    small = np.asarray(small, dtype=bool)
    notes = np.full(k, "", dtype=object) if notes is None else np.asarray(notes, dtype=object)
    rest_notes = np.full(k, "", dtype=object) if rest_notes is None else np.asarray(rest_notes, dtype=object)
    if reference == "rest":
        i, ref_label = np.arange(k), np.full(k, "rest", dtype=object)
        ref_val, ref_size, ref_note, ref_small = np.asarray(rest_values, float), np.asarray(rest_sizes), rest_notes, np.zeros(k, bool)
    elif reference == "overall":
        i, ref_label = np.arange(k), np.full(k, "overall", dtype=object)
        ref_val, ref_size = np.full(k, float(overall_value)), np.full(k, n_total)
        ref_note, ref_small = np.full(k, "", dtype=object), np.zeros(k, bool)
    else:
        if reference == "pairwise":
            i, j = np.triu_indices(k, 1)
        else:
            r = names.index(reference)
            i = np.array([x for x in range(k) if x != r], dtype=int)
            j = np.full(len(i), r)
        ref_label, ref_val, ref_size, ref_note, ref_small = names_arr[j], values[j], sizes[j], notes[j], small[j]
    disparity = distance(values[i], ref_val, distance_measure)
    note = [_join(a, b, ref) for a, b, ref in zip(notes[i], ref_note, ref_label)]
    if distance_measure == "ratio":
        note = [_join(n, "one value is 0, so the ratio is infinite" if np.isinf(d) else "", None)
                for n, d in zip(note, disparity)]
    return pd.DataFrame({
        "subgroup": names_arr[i], "reference": ref_label, "size": sizes[i], "reference_size": ref_size,
        "subgroup_value": values[i], "reference_value": ref_val, "disparity": disparity,
        "small": small[i] | ref_small, "note": note,
    }, columns=TABLE_COLUMNS)


def _join(own: str, other: str, ref_label) -> str:
    parts = [p for p in (own, (f"{ref_label}: {other}" if other and ref_label is not None else other)) if p]
    return "; ".join(parts)


def reduce_disparities(table: pd.DataFrame, reduction: str, *, distance_measure: str, reference: str,
                       include_small: bool = False, func: str = "reduce_disparities") -> DisparityResult:
    """Reduce a comparison table to one number.

    Parameters
    ----------
    table : DataFrame
        From :func:`compare` (or any table with ``disparity`` and ``small`` columns).
    reduction : {'max', 'mean'}
        Over the comparisons with a defined disparity; NaN ones are counted in ``n_undefined``.
    include_small : bool, default=False
        Whether comparisons involving a small subgroup are used.

    Returns
    -------
    DisparityResult
    """
    check_option(reduction, ("max", "mean"), "reduction", func)
    used = table if include_small else table[~table["small"].astype(bool)]
    defined = used[used["disparity"].notna()]
    worst = None
    if defined.empty:
        value = float("nan")
    elif reduction == "max":
        row = defined.loc[defined["disparity"].idxmax()]
        value, worst = float(row["disparity"]), (row["subgroup"], row["reference"])
    else:
        value = float(defined["disparity"].mean())
    return DisparityResult(value=value, reduction=reduction, distance_measure=distance_measure,
                           reference=reference, table=table, n_used=len(defined),
                           n_undefined=len(used) - len(defined), n_small_excluded=len(table) - len(used),
                           worst=worst)
