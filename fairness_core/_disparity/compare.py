# More than 500 lines: one concept (comparisons of per-subgroup values: distances, references, reductions, their intervals).
"""Disparities: compare each subgroup's value with a reference value, then reduce (§5.2).

Shared by every disparity metric (rates, equalized odds, calibration): a metric supplies, per
subgroup, its own value, the value on its background ("rest") and the value on all rows
("overall"); this module builds the comparison table and its reduction. Nothing here touches
rows, so changing the distance, reference or reduction never recomputes statistics. The columns
are computed as arrays and the table is built once (:func:`comparison_columns`); reductions read
arrays, never filtered DataFrames. Also here: the ratio scores' rule min(a/b, b/a) and their
result (each subgroup against the rest, higher is better).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

import numpy as np
import pandas as pd

from .._data.checks import check_option
from .._stats.result import ValueResult

Distance = Literal["diff", "ratio"]
DISTANCES = ("diff", "ratio")
KEYWORD_REFERENCES = ("rest", "overall", "pairwise")
REFERENCE_MESSAGE = (
    "The 'reference' parameter of {func} must be 'rest', 'overall', 'pairwise' or the name of a "
    "subgroup. Got {got!r} instead. Subgroups: {names}."
)


class NamedReference(str):
    """A reference that is a subgroup's name, even when the name is also a keyword.

    Any function taking ``reference`` reads the plain strings ``'rest'``, ``'overall'`` and
    ``'pairwise'`` as keywords. A subgroup that happens to be called ``rest`` (or ``overall``,
    ``pairwise``) is addressed as ``named_reference("rest")``: an instance of this class is always
    a subgroup's name, never a keyword. It is a ``str``, so it prints and compares as the name.

    Parameters
    ----------
    name : str
        The subgroup's name.
    """

    __slots__ = ()

    def __init__(self, name: str) -> None:   # str.__new__ keeps the name; this signature documents it
        super().__init__()

    def __repr__(self) -> str:
        return f"named_reference({str.__repr__(self)})"


def named_reference(name: str) -> NamedReference:
    """The subgroup called `name` as a reference, never read as a keyword.

    Parameters
    ----------
    name : str
        A subgroup's name (``Subgroups.names``).

    Returns
    -------
    NamedReference

    Examples
    --------
    >>> keyword(named_reference("rest")) is None, keyword("rest")
    (True, 'rest')
    """
    return NamedReference(name)


def keyword(reference) -> str | None:
    """The keyword a reference stands for ('rest', 'overall' or 'pairwise'), or None for a subgroup's name.

    Only a plain ``str`` is a keyword; a :class:`NamedReference` never is. Public as
    ``fairness_core.reference_keyword``.

    Parameters
    ----------
    reference : str or NamedReference

    Returns
    -------
    str or None
    """
    return str(reference) if type(reference) is str and reference in KEYWORD_REFERENCES else None
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
class DisparityResult(ValueResult):
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
    n_infinite : int
        Comparisons with an infinite ratio (exactly one value 0). They decide a ``"max"``
        (which is then inf) and are left out of a ``"mean"``, counted here.
    ci_low, ci_high : float
        Percentile bootstrap interval of ``value`` (NaN unless an interval was asked for).
    level : float or None
        Confidence level of the intervals (None: no intervals).
    n_boot : int
        Bootstrap replicates drawn (0: none).
    n_boot_undefined : int
        Replicates in which the reduced value was undefined (left out of the interval).
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}
        Multiple-comparison adjustment of the per-comparison intervals and ``excludes_parity``.
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
    n_infinite: int = 0
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    level: float | None = None
    n_boot: int = 0
    n_boot_undefined: int = 0
    adjust: str | None = None


def check_reference(reference: str, names: list[str], func: str) -> str:
    """Validate `reference`: a keyword or one of the subgroup `names`."""
    if keyword(reference) is not None or (isinstance(reference, str) and reference in names):
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
    return pd.DataFrame(comparison_columns(
        names, sizes, values, rest_values, rest_sizes, overall_value, n_total, small, distance_measure=distance_measure,
        reference=reference, func=func, notes=notes, rest_notes=rest_notes), columns=TABLE_COLUMNS)


#: The note of a comparison whose subgroup holds every row (one subgroup, or an identity every row has).
ALONE_NOTE = ("every row is in this subgroup: there is no second group to compare it with "
              "(a comparison needs at least two subgroups)")


def comparison_columns(names: list[str], sizes: np.ndarray, values: np.ndarray, rest_values: np.ndarray,
                       rest_sizes: np.ndarray, overall_value: float, n_total: int, small: np.ndarray, *,
                       distance_measure: Distance, reference: str, func: str, notes: Optional[np.ndarray] = None,
                       rest_notes: Optional[np.ndarray] = None) -> dict:
    """The columns of :func:`compare`'s table as arrays, ``TABLE_COLUMNS`` in order (no DataFrame).

    Metrics that add columns of their own (the rate's numerators, ``small_reason``) add them to
    these arrays and build their table once.
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
    i, j = comparison_index(reference, names)
    mode = keyword(reference)
    # The values compared, as the replicates and the threshold curves take them (one selection of a comparison's sides).
    value, ref_val = compared_values(values, np.asarray(rest_values, float), float(overall_value), reference, names)
    ref_val = np.array(ref_val, dtype=np.float64)   # a copy (the overall's is a broadcast view)
    if mode == "rest":
        ref_label = np.full(k, "rest", dtype=object)
        ref_size, ref_note, ref_small = np.asarray(rest_sizes), rest_notes, np.zeros(k, bool)
    elif mode == "overall":
        ref_label = np.full(k, "overall", dtype=object)
        ref_size = np.full(k, n_total)
        ref_note, ref_small = np.full(k, "", dtype=object), np.zeros(k, bool)
    else:
        ref_label, ref_size, ref_note, ref_small = names_arr[j], sizes[j], notes[j], small[j]
    disparity = distance(value, ref_val, distance_measure)
    note = [_join(a, b, ref) for a, b, ref in zip(notes[i], ref_note, ref_label)]
    if mode in ("rest", "overall"):   # a subgroup that holds every row has nothing to be compared with
        alone = np.asarray(rest_sizes)[i] <= 0
        disparity = np.where(alone, np.nan, disparity)
        note = [ALONE_NOTE if a else n for a, n in zip(alone, note)]
    if distance_measure == "ratio":
        note = [_join(n, "one value is 0, so the ratio is infinite" if np.isinf(d) else "", None)
                for n, d in zip(note, disparity)]
    return {"subgroup": names_arr[i], "reference": ref_label, "size": sizes[i], "reference_size": ref_size,
            "subgroup_value": value, "reference_value": ref_val, "disparity": disparity,
            "small": small[i] | ref_small, "note": note}


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
        An infinite ratio decides a max; a mean leaves it out and counts it in ``n_infinite``.
    include_small : bool, default=False
        Whether comparisons involving a small subgroup are used.

    Returns
    -------
    DisparityResult
    """
    return reduce_columns(table, table, reduction, distance_measure=distance_measure, reference=reference,
                          include_small=include_small, func=func)


def reduce_columns(table: pd.DataFrame, columns, reduction: str, *, distance_measure: str, reference: str,
                   include_small: bool = False, func: str = "reduce_disparities") -> DisparityResult:
    """:func:`reduce_disparities` reading ``disparity, small, subgroup, reference`` from `columns`.

    `columns` maps those names to the table's columns as arrays (e.g. the dict the table was built
    from), so nothing is read back from the DataFrame; `table` is only stored in the result.
    """
    check_option(reduction, ("max", "mean"), "reduction", func)
    disparity = np.asarray(columns["disparity"], dtype=np.float64)
    used = np.ones(len(disparity), bool) if include_small else ~np.asarray(columns["small"], dtype=bool)
    defined = used & ~np.isnan(disparity)
    infinite = defined & np.isinf(disparity)
    n_infinite = int(infinite.sum())
    worst = None
    if not defined.any():
        value = float("nan")
    elif reduction == "max":
        # The first comparison with the largest defined disparity (an infinite ratio decides it).
        at = int(np.flatnonzero(defined)[np.argmax(disparity[defined])])
        value, worst = float(disparity[at]), tuple(
            values.iloc[at] if isinstance(values, pd.Series) else values[at]
            for values in (columns["subgroup"], columns["reference"]))
    else:
        finite = disparity[defined & ~infinite]
        value = float(finite.sum() / len(finite)) if len(finite) else float("nan")
    n_defined = int(defined.sum())
    return DisparityResult(value=value, reduction=reduction, distance_measure=distance_measure, reference=reference,
                           table=table, n_used=n_defined - (n_infinite if reduction == "mean" else 0),
                           n_undefined=int(used.sum()) - n_defined, n_small_excluded=len(used) - int(used.sum()),
                           worst=worst, n_infinite=n_infinite)


def comparison_index(reference: str, names: list[str]) -> tuple[np.ndarray, np.ndarray | None]:
    """Rows of a comparison table: (subgroup index i, reference subgroup index j or None).

    j is None for ``"rest"`` and ``"overall"`` (the reference is not a subgroup).
    """
    k = len(names)
    mode = keyword(reference)
    if mode in ("rest", "overall"):
        return np.arange(k), None
    if mode == "pairwise":
        i, j = np.triu_indices(k, 1)
        return i, j
    r = names.index(reference)
    i = np.array([x for x in range(k) if x != r], dtype=np.intp)
    return i, np.full(len(i), r, dtype=np.intp)


def compared_values(values: np.ndarray, rest: np.ndarray, overall: np.ndarray, reference: str,
                    names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) of every comparison, from per-subgroup values with any leading axes.

    `values` and `rest` have shape (..., n_subgroups), `overall` shape (...); the results have
    shape (..., n_comparisons), in the row order of :func:`compare`.
    """
    i, j = comparison_index(reference, names)
    a = values[..., i]
    mode = keyword(reference)
    if mode == "rest":
        b = rest[..., i]
    elif mode == "overall":
        b = np.broadcast_to(np.asarray(overall, dtype=np.float64)[..., None], a.shape)
    else:
        b = values[..., j]
    return a, b


def signed_distance(a, b, measure: str | None) -> np.ndarray:
    """Signed version of :func:`distance`, whose sign says which side is larger; 0 is parity.

    ``"diff"`` (and None): a - b. ``"ratio"``: ln(a / b), with both 0 giving 0 and exactly one 0
    giving +-inf. ``distance(a, b)`` is ``|signed|`` for diff and ``exp(|signed|)`` for ratio.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if measure != "ratio":
        return a - b
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(a) - np.log(b)
    return np.where((a == 0) & (b == 0), 0.0, out)


PARITY = {"diff": 0.0, "ratio": 1.0, None: 0.0}
ADJUSTMENTS = (None, "max_t", "bonferroni", "holm", "fdr_bh")



def reduce_samples(samples: np.ndarray, used: np.ndarray, reduction: str) -> np.ndarray:
    """The reduction of each replicate (row) of `samples` (n_boot, n_comparisons) over `used` columns.

    NaN comparisons are left out; a mean also leaves out infinite ones (as :func:`reduce_disparities`).
    A replicate with nothing left is NaN.
    """
    x = np.asarray(samples, dtype=np.float64)[:, np.asarray(used, dtype=bool)]
    if reduction == "max":
        x = np.where(np.isnan(x), -np.inf, x)
        out = x.max(axis=1) if x.shape[1] else np.full(x.shape[0], np.nan)
        return np.where(np.isneginf(out), np.nan, out)
    x = np.where(np.isinf(x), np.nan, x)
    n = (~np.isnan(x)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.nansum(x, axis=1) / np.maximum(n, 1), np.nan)


def add_intervals(table: pd.DataFrame, signed: np.ndarray, disparity: np.ndarray, *, distance_measure,
                  level: float, adjust: str | None, func: str, sides=None,
                  columns: Optional[dict] = None) -> pd.DataFrame:
    """Add ``disparity_ci_low, disparity_ci_high, p_value, excludes_parity`` to a comparison table.

    Parameters
    ----------
    table : DataFrame from :func:`compare` (or a table with the same rows), or None with `columns`
    signed, disparity : ndarray of shape (n_boot, n_comparisons)
        Bootstrap replicates of the signed distance (0 is parity) and of the disparity.
    distance_measure : {'diff', 'ratio'} or None
    level : float
        Confidence level.
    adjust : {None, 'max_t', 'bonferroni', 'holm', 'fdr_bh'}
        None: each interval at `level`, and ``excludes_parity`` when the percentile interval of the
        signed distance excludes 0. 'max_t': simultaneous intervals, every one at the level L at which
        the percentile intervals of the m signed distances hold `level` of the replicates all at once
        (:func:`~fairness_core._stats.simultaneous.simultaneous_level`: between `level` and the
        Bonferroni level, as narrow as the comparisons' dependence allows), and ``excludes_parity``
        where the signed distance's interval at L excludes 0: family-wise error rate 1 - `level`
        over the m comparisons. 'bonferroni' / 'holm': intervals at level 1 - (1 - level) / m
        for m comparisons with a defined p-value (Bonferroni intervals serve Holm too, a
        conservative choice); ``excludes_parity`` is the test's rejection. 'fdr_bh': rejections of
        Benjamini-Hochberg at false discovery rate 1 - level, and false-coverage-rate intervals at
        level 1 - R (1 - level) / m with R rejections (Benjamini & Yekutieli 2005).
        Whatever the adjustment, a comparison is marked ``excludes_parity`` only where its
        displayed interval excludes parity (under Holm, whose step-down has no matching
        intervals, a rejection beyond Bonferroni's is not marked).
    sides : callable or None
        For a disparity of two proportions: ``sides(levels) -> (low, high)``, the interval of
        each comparison's disparity from its two sides' Wilson intervals (``mover_disparity``).
        The bootstrap collapses where a side's rows all fall in one cell (zero variance); with
        `sides`, the p-value is the larger of the bootstrap's and the one `sides` inverts, and
        the interval the union of both, so such a comparison keeps its sampling uncertainty. It is called with
        levels of shape (m,) or (p, m) (several levels of each comparison at once).
    columns : dict or None
        `table`'s columns as arrays, in its order (the dict it was built from): the new table is then built
        once from them, not copied and widened column by column. The same table either way; `table` may then
        be None (no attributes to keep).

    Returns
    -------
    DataFrame: a copy with the four columns after ``disparity``; ``table.attrs`` records
    ``ci``, ``adjust`` and ``n_comparisons``.
    """
    values = table["disparity"] if columns is None else columns["disparity"]
    added, attrs = comparison_intervals(values, signed, disparity, distance_measure=distance_measure, level=level,
                                        adjust=adjust, func=func, sides=sides)
    if columns is None:
        out = table.copy()
        at = out.columns.get_loc("disparity") + 1
        for offset, (name, column) in enumerate(added.items()):
            out.insert(at + offset, name, column)
    else:   # one frame from the columns: the four after ``disparity``
        out = pd.DataFrame(interval_columns(columns, added))
    if table is not None:
        out.attrs.update(table.attrs)
    out.attrs.update(attrs)
    return out


def comparison_intervals(values, signed: np.ndarray, disparity: np.ndarray, *, distance_measure, level: float,
                         adjust: str | None, func: str, sides=None) -> tuple[dict, dict]:
    """The four columns :func:`add_intervals` adds to a table and the attributes it records, as arrays.

    Parameters
    ----------
    values : array-like of shape (m,)
        The table's ``disparity`` column.
    signed, disparity, distance_measure, level, adjust, func, sides
        As in :func:`add_intervals`.

    Returns
    -------
    (columns, attrs) : tuple of dict
        ``disparity_ci_low, disparity_ci_high, p_value, excludes_parity`` (a nullable boolean array) and
        ``ci, adjust, n_comparisons, row_level``.
    """
    from .._stats.adjust import rejections
    from .._stats.bootstrap import bootstrap_p_values
    from .._data.checks import check_option
    from .._stats.intervals import interval_p_value
    from .._stats.simultaneous import simultaneous_level

    check_option(adjust, ADJUSTMENTS, "adjust", func)
    parity = PARITY[distance_measure]
    p = bootstrap_p_values(signed)
    if sides is not None:
        p = np.fmax(p, interval_p_value(sides, parity, p.shape))
    values = values.to_numpy(dtype=np.float64) if isinstance(values, pd.Series) else np.asarray(values, np.float64)
    p = np.where(np.isnan(values), np.nan, p)   # no estimate, no test
    m = int(np.sum(~np.isnan(p)))
    alpha = 1.0 - level
    defined = ~np.isnan(p)
    excludes = None   # unadjusted or max-t: the signed distance's interval at the row level decides (comparison_ends)
    if adjust in (None, "max_t") or m == 0:
        row_level = level if adjust is None or m == 0 else simultaneous_level(signed[:, defined], level)
    else:
        excludes = np.zeros(len(p), dtype=bool)
        excludes[defined] = rejections(p[defined], alpha, adjust)
        r = int(excludes.sum()) if adjust == "fdr_bh" else 1
        row_level = 1.0 - max(r, 1) * alpha / m
    (low, high), = comparison_ends(values, signed, disparity, (row_level,), parity=parity, sides=sides,
                                   excludes=excludes, defined=defined)
    # marked only where the displayed interval excludes parity: its low end is at parity unless the test rejected
    excludes = low > parity
    undefined = np.isnan(p) | np.isnan(values)
    added = {"disparity_ci_low": low, "disparity_ci_high": high, "p_value": p,
             "excludes_parity": pd.array(np.where(undefined, None, excludes), dtype="boolean")}
    return added, {"ci": level, "adjust": adjust, "n_comparisons": m, "row_level": row_level}


def interval_columns(columns: dict, added: dict, after: str = "disparity") -> dict:
    """`columns` (a table's columns, in order) with `added` inserted after the column `after`, as a new dict.

    Parameters
    ----------
    columns, added : dict of str to array-like
    after : str
        A key of `columns`.

    Returns
    -------
    dict
    """
    out = {}
    for name, column in columns.items():
        out[name] = column
        if name == after:
            out.update(added)
    return out


def finish_disparity(table: Optional[pd.DataFrame], signed: np.ndarray, disparity: np.ndarray, *, distance_measure,
                     reduction: Optional[str], reference: str, include_small: bool, level: float, n_boot: int,
                     adjust: Optional[str], func: str, sides=None, columns: Optional[dict] = None):
    """Interval columns on a comparison table, then its reduction with the reduction's interval.

    Parameters
    ----------
    table : DataFrame
        A comparison table (:func:`compare`'s rows).
    signed, disparity : ndarray of shape (n_boot, n_comparisons)
        Bootstrap replicates of the signed distance and of the disparity (see :func:`add_intervals`).
    distance_measure, reduction, reference, include_small, level, n_boot, adjust, func
        As in the disparity functions.
    sides : callable or None
        Intervals of proportions' disparities from their sides (see :func:`add_intervals`).
    columns : dict or None
        The table's columns as arrays, in its order (the dict it would be built from); `table` may then be None:
        the table with its interval columns is built once from them (see :func:`add_intervals`).

    Returns
    -------
    DataFrame (``reduction=None``) or DisparityResult
    """
    plain = table
    table = add_intervals(plain, signed, disparity, distance_measure=distance_measure, level=level,
                          adjust=adjust, func=func, sides=sides, columns=columns)
    return reduce_with_interval(table, plain, signed, disparity, distance_measure=distance_measure,
                                reduction=reduction, reference=reference, include_small=include_small, level=level,
                                n_boot=n_boot, func=func, sides=sides, columns=columns)


def reduce_with_interval(table: pd.DataFrame, plain: pd.DataFrame, signed: np.ndarray, disparity: np.ndarray, *,
                         distance_measure, reduction: Optional[str], reference: str, include_small: bool,
                         level: float, n_boot: int, func: str, sides=None, columns: Optional[dict] = None):
    """`table` (with its interval columns) reduced, with the reduction's interval (:func:`reduced_interval`);
    `table` itself for ``reduction=None``. Arguments as in :func:`finish_disparity` (`plain`: the table
    without interval columns, or None with `columns`; `columns`, optional: its columns ``disparity, small,
    subgroup, reference`` as arrays, read instead of the table's)."""
    if reduction is None:
        return table
    if columns is None:
        result = reduce_disparities(table, reduction, distance_measure=distance_measure, reference=reference,
                                    include_small=include_small, func=func)
    else:
        result = reduce_columns(table, columns, reduction, distance_measure=distance_measure, reference=reference,
                                include_small=include_small, func=func)
    return reduced_interval(result, table, plain, signed, disparity, distance_measure=distance_measure,
                            include_small=include_small, level=level, n_boot=n_boot, func=func, sides=sides,
                            columns=columns)


def reduced_interval(result: DisparityResult, table: pd.DataFrame, plain: pd.DataFrame, signed: np.ndarray,
                     disparity: np.ndarray, *, distance_measure, include_small: bool, level: float, n_boot: int,
                     func: str, sides=None, columns: Optional[dict] = None) -> DisparityResult:
    """`result` (a max or mean over comparisons) with an interval that holds its truth with probability `level`.

    A percentile interval of resampled maxima (or means) of |a - b| cannot: with every comparison at
    parity the resampled disparities are above 0 in every replicate, and such an interval missed the
    truth every time (``benchmarks/coverage.py``). Instead, with L the simultaneous level of the m
    comparisons reduced (:func:`~fairness_core._stats.simultaneous.simultaneous_level` of their
    signed distances: every one of their intervals at L holds its truth together with probability
    `level`), and each comparison's interval from :func:`add_intervals` (percentile, joined with its
    sides' Wilson intervals where given; low end at parity unless the signed distance excludes it):

    - **max**: [max over k of low_k at L, max over k of high_k at `level`]. The low end is above the
      true maximum only if some comparison's low end at L is above its own truth (probability at
      most 1 - `level`, shared with nothing else); the high end is below it only if the comparison
      attaining the true maximum has its high end below its truth (at most (1 - `level`) / 2): no
      multiplicity is needed on that side.
    - **mean**: with S the comparisons whose interval at L excludes parity (their disparity is a
      smooth function of the rates there), the low end is the lower percentile at `level` of the
      replicates' mean of the disparities of S, every other comparison counted at parity; the high
      end is the upper percentile of the replicates' mean of every disparity (whose upward bias near
      parity errs on the safe side). Where a comparison's sides widen its own interval beyond its
      bootstrap's, the mean's ends move out by that widening over m.

    Both are widened to contain the value. Earlier releases joined every comparison's interval at the
    Bonferroni level 1 - (1 - level) / m, which covered 98-100 % at 95 % (``docs/coverage.md``).

    Parameters
    ----------
    result : DisparityResult
    table, plain : DataFrame
        The comparison table with its interval columns (kept in the result) and without them (None with
        `columns`).
    signed, disparity : ndarray of shape (n_boot, n_comparisons)
    distance_measure, include_small, level, n_boot, func, sides
        As in :func:`finish_disparity`.
    columns : dict or None
        `plain`'s columns ``disparity`` and ``small`` as arrays, read instead of the table's.

    Returns
    -------
    DisparityResult
        With ``ci_low, ci_high, level, n_boot``; ``n_boot_undefined`` counts the replicates in
        which no comparison was defined.
    """
    from dataclasses import replace

    if columns is None:
        values, rows = plain["disparity"].to_numpy(dtype=np.float64), used_rows(plain, include_small)
    else:
        values = np.asarray(columns["disparity"], dtype=np.float64)
        rows = np.ones(len(values), bool) if include_small else ~np.asarray(columns["small"], dtype=bool)
    used = rows & ~np.isnan(values)
    if result.reduction == "mean":
        used &= np.isfinite(values)
    undefined = int(np.isnan(reduce_samples(disparity, rows, result.reduction)).sum())
    ci = (np.nan, np.nan)
    if used.any() and not np.isnan(result.value):
        ci = reduced_ends(values, used, signed, disparity, level, result.reduction, parity=PARITY[distance_measure],
                          sides=sides)
    if not np.isnan(ci[0]):
        ci = (min(ci[0], result.value), max(ci[1], result.value))
    return replace(result, table=table, ci_low=ci[0], ci_high=ci[1], level=level, n_boot=n_boot,
                   n_boot_undefined=undefined, adjust=table.attrs.get("adjust"))


def comparison_ends(values: np.ndarray, signed: np.ndarray, disparity: np.ndarray, levels, *, parity: float,
                    sides=None, excludes: Optional[np.ndarray] = None, defined: Optional[np.ndarray] = None) -> list:
    """Each comparison's interval at each of `levels`, unadjusted: :func:`add_intervals`' ``disparity_ci_low`` and
    ``disparity_ci_high`` with ``adjust=None`` at that level, as arrays (no table, no p-value bisection; the
    replicates sorted once for every level).

    The percentile interval of the disparity's replicates, joined with `sides`' interval where given; its low end
    at `parity` unless the signed distance's percentile interval excludes 0 (and the sides' low end is above
    parity); NaN where the comparison has no estimate or no replicate interval and no sides' interval.

    Parameters
    ----------
    values : ndarray of shape (m,)
        The comparisons' disparities.
    signed, disparity : ndarray of shape (n_boot, m)
        Their bootstrap replicates (see :func:`add_intervals`).
    levels : sequence of float in (0, 1)
    parity : float
        0 for a difference, 1 for a ratio.
    sides : callable or None
        As in :func:`add_intervals`.
    excludes : ndarray of bool, shape (m,), optional
        Which comparisons a test rejected (:func:`add_intervals` with an adjustment): their low ends stay where the
        interval puts them. Default: those whose signed distance's interval at the level excludes 0.
    defined : ndarray of bool, shape (m,), optional
        Which comparisons have a p-value (:func:`add_intervals`'); default: where the bootstrap's or the sides'
        interval is defined.

    Returns
    -------
    list of (low, high)
        One pair of ndarrays of shape (m,) per level.
    """
    from .._stats.bootstrap import bootstrap_p_values, sorted_percentiles

    signed, disparity = (np.asarray(x, dtype=np.float64) for x in (signed, disparity))
    levels = list(levels)
    if sides is not None:   # every level's sides in one call (the probe of `defined` first)
        probe = [1.0 - 1e-12] if defined is None else []
        side_lows, side_highs = sides(np.stack([np.full(np.shape(values), x) for x in probe + levels]))
        if probe:
            probe, side_lows, side_highs = side_lows[0], side_lows[1:], side_highs[1:]
    if defined is None:   # where add_intervals has a p-value
        defined = ~np.isnan(bootstrap_p_values(signed))
        if sides is not None:
            defined |= ~np.isnan(probe)
    undefined = ~defined | np.isnan(np.asarray(values, dtype=np.float64))
    if excludes is None:
        signed_sorted, signed_nan = np.sort(signed, axis=0), np.isnan(signed).sum(axis=0)
    sorted_draws, draws_nan = np.sort(disparity, axis=0), np.isnan(disparity).sum(axis=0)
    out = []
    for at, level in enumerate(levels):
        rejected = excludes
        if rejected is None:
            s_low, s_high = sorted_percentiles(signed_sorted, signed_nan, level)
            rejected = (s_low > 0) | (s_high < 0)
        low, high = sorted_percentiles(sorted_draws, draws_nan, level)
        if sides is not None:
            side_low, side_high = side_lows[at], side_highs[at]
            if excludes is None:
                rejected = rejected & (side_low > parity)
            low, high = np.fmin(low, side_low), np.fmax(high, side_high)
        low = np.where(rejected | np.isnan(low), low, parity)
        out.append((np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)))
    return out


def reduced_ends(values: np.ndarray, used: np.ndarray, signed: np.ndarray, disparity: np.ndarray, level: float,
                 reduction: str, *, parity: float, sides=None) -> tuple[float, float]:
    """The interval of a max or mean over the comparisons `used` (see :func:`reduced_interval`), before it is
    widened to contain the value: NaN ends when no comparison used has an interval.

    Parameters
    ----------
    values : ndarray of shape (m,)
    used : ndarray of bool, shape (m,)
        The comparisons that enter the reduction (defined, and not small unless small ones are included).
    signed, disparity : ndarray of shape (n_boot, m)
    level : float in (0, 1)
    reduction : {'max', 'mean'}
    parity : float
    sides : callable or None
        As in :func:`add_intervals`.

    Returns
    -------
    (low, high) : tuple of float
    """
    from .._stats.simultaneous import simultaneous_level

    signed = np.asarray(signed, dtype=np.float64)
    joint = simultaneous_level(signed[:, used], level)
    (low_joint, _), (low, high) = ((low[used], high[used]) for low, high in comparison_ends(
        values, signed, disparity, (joint, level), parity=parity, sides=sides))
    if np.isnan(low_joint).all() or np.isnan(high).all():
        return np.nan, np.nan
    if reduction == "mean":
        return mean_interval(low_joint, low, high, np.asarray(disparity, dtype=np.float64)[:, used], parity, level)
    return float(np.nanmax(low_joint)), float(np.nanmax(high))


def mean_interval(low_joint: np.ndarray, low: np.ndarray, high: np.ndarray, samples: np.ndarray, parity: float,
                   level: float) -> tuple[float, float]:
    """The interval of a mean over m disparities that are never below `parity` (see :func:`reduced_interval`).

    Parameters
    ----------
    low_joint : ndarray of shape (m,)
        Each disparity's low end at the simultaneous level (at `parity` where it does not exclude parity).
    low, high : ndarray of shape (m,)
        Each disparity's interval at `level` (its sides' widening included).
    samples : ndarray of shape (n_boot, m)
        The disparities' bootstrap replicates.
    parity : float
    level : float

    Returns
    -------
    (low, high) : tuple of float
    """
    from .._stats.bootstrap import percentile_interval

    nonzero = low_joint > parity   # excludes parity at the simultaneous level
    everyone = np.ones(samples.shape[1], dtype=bool)
    low_reps = reduce_samples(np.where(nonzero, samples, parity), everyone, "mean")
    high_reps = reduce_samples(samples, everyone, "mean")
    boot_low, boot_high, _ = percentile_interval(samples, level)
    m = samples.shape[1]
    with np.errstate(invalid="ignore"):   # inf - inf (a ratio's unbounded end on both): no widening to add
        widen_low = float(np.nansum(np.where(nonzero, np.fmax(boot_low - low, 0.0), 0.0))) / m
        widen_high = float(np.nansum(np.fmax(high - boot_high, 0.0))) / m
    mean_low = percentile_interval(low_reps[:, None], level)[0][0]
    mean_high = percentile_interval(high_reps[:, None], level)[1][0]
    return float(max(mean_low - widen_low, parity)), float(mean_high + widen_high)


def used_rows(table: pd.DataFrame, include_small: bool) -> np.ndarray:
    """Boolean mask of the comparisons that enter a reduction."""
    return np.ones(len(table), bool) if include_small else ~table["small"].to_numpy(dtype=bool)


def bootstrap_comparison(atoms, names: list[str], reference: str, value_fn, *, distance_measure,
                         n_boot: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap replicates of every comparison's signed distance and disparity.

    Parameters
    ----------
    atoms : _bootstrap.Atoms
        The resampled sufficient statistic.
    names : list of str
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name
    value_fn : callable
        ``value_fn(member, background, overall) -> (values, rest_values, overall_value)`` on
        counts with a leading replicate axis (shapes (B, k, C), (B, k, C), (B, C)), returning
        (B, k), (B, k) and (B,) arrays. Values may carry more axes between the replicate axis
        and the subgroup axis (e.g. several rates stacked on axis 1, with ``overall_value`` of
        shape (B, R)); they are kept in the results.
    distance_measure : {'diff', 'ratio'} or None

    Returns
    -------
    signed, disparity : ndarray of shape (n_boot, ..., n_comparisons)
    """
    from .._stats.bootstrap import replicate_stat

    def stat(member, background, overall):
        values, rest, overall_value = value_fn(member, background, overall)
        a, b = compared_values(values, rest, overall_value, reference, names)
        return np.stack([signed_distance(a, b, distance_measure), distance(a, b, distance_measure)], axis=1)

    out = replicate_stat(atoms, stat, n_boot, rng)
    return out[:, 0], out[:, 1]


# Ratio scores: min(a/b, b/a) of a rate in each subgroup and its background (higher is better) ------

BOTH_ZERO_NOTE = "no disparity: the {rate} is 0 in both groups"
ONE_ZERO_NOTE = "the {rate} is 0 in one group only"


@dataclass(frozen=True)
class RatioScoresResult(ValueResult):
    """Ratio scores of every subgroup against the rest, and their minimum.

    Attributes
    ----------
    value : float
        The smallest ``score`` over the subgroups used (NaN if none is defined).
    rate : {'selection_rate', 'true_positive_rate'}
    table : DataFrame
        One row per subgroup, columns ``subgroup, size, reference_size, subgroup_value,
        reference_value, score, small, note``: rows of the subgroup and of its background,
        the rate in each, and min(a/b, b/a) with the same rules as :class:`RatioScoreResult`.
    worst : str or None
        The subgroup attaining ``value``.
    n_used : int
        Subgroups with a defined score that entered the minimum.
    n_undefined : int
        Subgroups left out because the score is NaN (see their ``note``).
    n_small_excluded : int
        Subgroups left out because they are small (too few rows, or too few in the rate's
        denominator: actual positives for the true positive rate; see ``small_reason``).
    ci_low, ci_high : float
        Percentile bootstrap interval of ``value`` (NaN without intervals). With intervals the
        table gains ``score_ci_low, score_ci_high, excludes_parity``: the score is
        1 / (the ratio disparity against the rest), so its interval and parity test are those of
        :meth:`ConfusionCounts.disparity` with ``distance_measure="ratio"``, inverted.
    level : float or None
    n_boot, n_boot_undefined : int
    """

    value: float
    rate: str
    table: pd.DataFrame
    worst: Optional[str]
    n_used: int
    n_undefined: int
    n_small_excluded: int
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    level: Optional[float] = None
    n_boot: int = 0
    n_boot_undefined: int = 0


def ratio_rule(a, b, rate: str) -> tuple[np.ndarray, np.ndarray]:
    """min(a/b, b/a) elementwise: both 0 -> 1 (noted), one 0 -> 0 (noted), NaN in either -> NaN."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    hi, lo = np.fmax(a, b), np.fmin(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(hi > 0, lo / np.where(hi > 0, hi, 1.0), 1.0)
    nan = np.isnan(a) | np.isnan(b)
    out = np.where(nan, np.nan, out)
    label = rate.replace("_", " ")
    notes = np.where(nan, "", np.where(hi == 0, BOTH_ZERO_NOTE.format(rate=label),
                                       np.where(lo == 0, ONE_ZERO_NOTE.format(rate=label), ""))).astype(object)
    return out, notes


def join_notes(*parts: str) -> str:
    """The non-empty `parts` joined by "; "."""
    return "; ".join(p for p in parts if p)
