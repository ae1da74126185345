"""Finding: one sentence about a comparison with the numbers behind it, and findings_table."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Optional

import pandas as pd


@dataclass(frozen=True)
class Finding:
    """One disparity of one rate, with its numbers and a plain-language sentence.

    Attributes
    ----------
    metric : str
        The rate compared, as named by :func:`rate_disparity` (e.g. ``'false_positive_rate'``,
        ``'statistical_parity'``).
    subgroup : str
        The subgroup described (the first of a pair).
    reference : str
        What it is compared with, as in the comparison table: ``'rest'`` (everyone else),
        ``'overall'`` (the whole population) or a subgroup name (a named reference, or the other
        subgroup of a pair).
    reference_mode : str
        The ``reference`` option the comparison was made with: ``'rest'``, ``'overall'``,
        ``'pairwise'`` or the named reference subgroup.
    kind : {'disparity', 'too_small', 'reduction'}
        A ranked comparison; a small comparison reported only to say it is too small to assess;
        or the description of a reduced disparity (:func:`reduction_finding`).
    subgroup_value, reference_value : float
        The two rates a and b.
    subgroup_value_ci, reference_value_ci : tuple of (float, float)
        Wilson score intervals of a and b (NaN when no interval was asked for).
    ratio : float
        max(a, b) / min(a, b) >= 1; 1 when both are 0, inf when exactly one is 0.
    difference : float
        Signed a - b (0 is parity).
    ratio_ci, difference_ci : tuple of (float, float)
        Percentile bootstrap intervals of `ratio` and `difference`; NaN when not computed. The
        ratio interval's lower end is 1 when it includes parity, as in the comparison tables.
    excludes_parity : bool or None
        Whether the intervals exclude parity (ratio 1 and difference 0; after the `adjust`
        correction when one was asked for); None without intervals or when undefined.
    p_value : float
        Two-sided bootstrap p-value of "no disparity" (NaN without intervals).
    numerator, denominator, reference_numerator, reference_denominator : int
        The counts behind a and b (e.g. for the false positive rate: false positives and actual
        negatives). -1 when the table does not carry them.
    size, reference_size : int
        Rows in the subgroup and in its reference.
    small : bool
        The comparison involves a subgroup (or a rate denominator) below the minimum size.
    small_reason : str
        Why it is small ('' when it is not).
    drives : str or None
        The reduction this comparison decides, e.g. ``'drives the max false positive rate
        ratio'``; None if it decides none.
    level : float or None
        Confidence level of the intervals.
    adjust : str or None
        Multiple-comparison adjustment of the intervals and of `excludes_parity`.
    reduction : str or None
        For ``kind='reduction'``: ``'max'`` or ``'mean'``.
    reduction_value : float
        For ``kind='reduction'``: the reduced disparity (NaN otherwise).
    reduction_ci : tuple of (float, float)
        Its percentile bootstrap interval (NaN otherwise).
    severity : float
        What findings are ranked by: the end of the difference's interval nearest 0, i.e. the
        smallest absolute difference the data support at the chosen level (0 when the interval
        includes parity); |difference| when there is no interval.
    sentence : str
        The finding in plain language (plain text: no Markdown or HTML).
    """

    metric: str
    subgroup: str
    reference: str
    reference_mode: str
    kind: str
    subgroup_value: float
    reference_value: float
    subgroup_value_ci: tuple
    reference_value_ci: tuple
    ratio: float
    difference: float
    ratio_ci: tuple
    difference_ci: tuple
    excludes_parity: Optional[bool]
    p_value: float
    numerator: int
    denominator: int
    reference_numerator: int
    reference_denominator: int
    size: int
    reference_size: int
    small: bool
    small_reason: str
    drives: Optional[str]
    level: Optional[float]
    adjust: Optional[str]
    reduction: Optional[str]
    reduction_value: float
    reduction_ci: tuple
    severity: float
    sentence: str

    def __str__(self) -> str:
        return self.sentence


# ---------------------------------------------------------------------------------------------
# findings_table
# ---------------------------------------------------------------------------------------------

_PAIR_FIELDS = ("subgroup_value_ci", "reference_value_ci", "ratio_ci", "difference_ci", "reduction_ci")


def findings_table(findings) -> pd.DataFrame:
    """Findings as a table, one row per finding, for export (CSV, JSON).

    Parameters
    ----------
    findings : iterable of Finding
        E.g. from :func:`rate_findings` and :func:`reduction_finding` (None entries are skipped).

    Returns
    -------
    DataFrame
        One row per finding, in order; one column per field of :class:`Finding`, with each
        interval split into ``<field>_low`` and ``<field>_high`` (e.g. ``ratio_ci_low,
        ratio_ci_high``). ``excludes_parity`` is a nullable boolean column.

    References
    ----------
    Saleiro, P. et al. (2018), "Aequitas: A Bias and Fairness Audit Toolkit", arXiv:1811.05577
    (a disparity table alongside its plain-language report).

    Examples
    --------
    >>> findings_table([]).columns[:4].tolist()
    ['metric', 'subgroup', 'reference', 'reference_mode']
    """
    names = [f.name for f in fields(Finding)]
    columns = []
    for name in names:
        columns += [f"{name}_low", f"{name}_high"] if name in _PAIR_FIELDS else [name]
    rows = []
    for finding in findings:
        if finding is None:
            continue
        if not isinstance(finding, Finding):
            raise ValueError(f"findings_table needs Finding objects. Got {type(finding).__name__} instead.")
        row = {}
        for name in names:
            value = getattr(finding, name)
            if name in _PAIR_FIELDS:
                row[f"{name}_low"], row[f"{name}_high"] = value
            else:
                row[name] = value
        rows.append(row)
    out = pd.DataFrame(rows, columns=columns)
    out["excludes_parity"] = pd.array(list(out["excludes_parity"]), dtype="boolean")
    return out
