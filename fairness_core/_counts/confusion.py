# More than 500 lines: one concept (the confusion table of every subgroup and what is computed from its cells), unweighted and weighted.
"""ConfusionCounts: TN, FP, FN, TP of every subgroup, its background and all rows, with the seven rates,
their comparisons and disparities, equalized odds, and the Theil indices and ratio scores of the same cells.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar, Optional

import numpy as np
import pandas as pd

from .._data.checks import as_binary, check_length, check_option
from .._disparity.compare import (RatioScoresResult, bootstrap_comparison, check_reference, compared_values,
    PARITY, comparison_columns, comparison_index, comparison_intervals, finish_disparity, interval_columns, join_notes,
    ratio_rule, reduce_columns, reduce_with_interval, reduced_ends)
from .._disparity.inequality import between_group_theil_of, individual_theil_of, theil_disparity
from .._stats.bootstrap import Atoms, check_boot_options, rng_of
from .._stats.intervals import MoverInterval, check_ci, effective_counts, weighted_wilson_interval, wilson_interval
from .._subgroups.subgroups import as_subgroups
from .patterns import over_patterns
from .rates import DISPARITY_METRICS, FN, FP, RATE_NAMES, RATE_TO_METRIC, RATIO_RATES, TN, TP, _few_text, _fraction, _rate
from .weights import check_no_intervals, check_sample_weight, effective_size, row_counts, size_text


PER_SUBGROUP_MESSAGE = ("Per-subgroup thresholds need subgroups that do not overlap and cover every row "
                        "(intersected protected attributes, no identity indicator columns), so that each row has "
                        "exactly one threshold.")
CONFUSION_NO_ATOMS_MESSAGE = (
    "{func} cannot compute intervals from ConfusionCounts built by hand: the bootstrap needs the "
    "counts per membership pattern. Tip: build them with confusion_counts(y_true, y_pred, subgroups)."
)


@dataclass(frozen=True)
class ConfusionCounts:
    """Confusion counts of every subgroup, its background and all rows.

    Attributes
    ----------
    names : list of str
    member : ndarray of shape (n_subgroups, 4)
        TN, FP, FN, TP of each subgroup's rows.
    background : ndarray of shape (n_subgroups, 4)
        The same on each subgroup's background (the rest of the population).
    overall : ndarray of shape (4,)
        The same on all rows.
    min_size : int
        Subgroups with fewer rows are flagged small.
    disjoint : bool, default=False
        True when the subgroups are disjoint and cover every row (``Subgroups.codes`` is set:
        attribute values or their intersections); needed by :meth:`between_group_theil_index`.
    atoms : _bootstrap.Atoms or None
        Counts per (membership pattern, cell): what the bootstrap resamples (set by
        :meth:`compute`; counts built by hand have none and cannot give intervals). With sample
        weights, sums of weights that keep their rows (``Atoms.rows``), which the bootstrap deals into
        buckets.
    member_sq, background_sq : ndarray of shape (n_subgroups, 4) or None
        With sample weights, the sums of squared weights of the same cells as `member` and
        `background` (which then hold sums of weights); None for unweighted counts.
    overall_sq : ndarray of shape (4,) or None
        The same over all rows.
    RATE_TO_METRIC : dict of str to str
        Class attribute: each rate's name (``group_rates`` columns) -> the name of its disparity metric
        (:meth:`disparity`'s ``metric``; the selection rate's is ``"statistical_parity"``).
    """

    RATE_TO_METRIC: ClassVar[dict] = RATE_TO_METRIC
    names: list
    member: np.ndarray
    background: np.ndarray
    overall: np.ndarray
    min_size: int
    disjoint: bool = False
    atoms: object = field(default=None, repr=False, compare=False)
    member_sq: Optional[np.ndarray] = field(default=None, repr=False, compare=False)
    background_sq: Optional[np.ndarray] = field(default=None, repr=False, compare=False)
    overall_sq: Optional[np.ndarray] = field(default=None, repr=False, compare=False)
    # Bootstrap replicates and comparison tables already drawn from these counts, keyed by everything they depend
    # on (a fixed integer seed only): a page's disparities, its rules and its findings share them.
    _drawn: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def compute(cls, y_true, y_pred, subgroups, *, sample_weight=None,
                func: str = "confusion_counts") -> "ConfusionCounts":
        """Count TN, FP, FN, TP per subgroup (sums of weights with `sample_weight`); see :func:`confusion_counts`."""
        y = as_binary(y_true, "y_true", func)
        p = as_binary(y_pred, "y_pred", func)
        check_length(p, len(y), "y_pred", func)
        w = check_sample_weight(sample_weight, len(y), func)
        groups = as_subgroups(subgroups, len(y), func)
        cell = (2 * y + p).astype(np.intp)
        if w is not None:
            return cls.of_weights(list(groups.names), groups, cell, w, disjoint=groups.codes is not None)
        # One bincount over (membership pattern, cell); every table is a sum of these atoms.
        return cls.of_atoms(list(groups.names), Atoms.of(groups, cell, 4), groups.min_size,
                            disjoint=groups.codes is not None)

    @classmethod
    def of_atoms(cls, names: list, atoms: Atoms, min_size: int, *, disjoint: bool = False) -> "ConfusionCounts":
        """The tables of counts per (membership pattern, cell ``2 * label + prediction``), atoms kept.

        member = member_masks.T @ atoms, background = background_masks.T @ atoms, overall = the atoms'
        column sums (exact: sums of integer counts).
        """
        member, background = (over_patterns(masks, atoms.counts) for masks in (atoms.member, atoms.background))
        return cls(list(names), member, background, atoms.counts.sum(axis=0), min_size, disjoint=disjoint,
                   atoms=atoms)

    @classmethod
    def of_weights(cls, names: list, groups, cell: np.ndarray, weights: np.ndarray, *,
                   disjoint: bool = False) -> "ConfusionCounts":
        """The weighted tables: sums of `weights` and of their squares per (subgroup, cell ``2 * label +
        prediction``), from one bincount of each over (membership pattern, cell). The atoms keep each row's
        pattern, cell and weight: their bootstrap deals the rows with their weights into buckets
        (``Atoms.rows``)."""
        codes, member, background = groups.patterns
        n_patterns = member.shape[0]
        key = codes * 4 + cell
        sums = np.bincount(key, weights=weights, minlength=n_patterns * 4).reshape(n_patterns, 4)
        squares = np.bincount(key, weights=weights * weights, minlength=n_patterns * 4).reshape(n_patterns, 4)
        m, b, m_sq, b_sq = (over_patterns(masks, values) for masks, values in
                            ((member, sums), (background, sums), (member, squares), (background, squares)))
        atoms = Atoms(sums, member, background, rows=(codes, cell, weights))   # the bootstrap deals rows to buckets
        return cls(list(names), m, b, sums.sum(axis=0), groups.min_size, disjoint=disjoint, atoms=atoms,
                   member_sq=m_sq, background_sq=b_sq, overall_sq=squares.sum(axis=0))

    @property
    def weighted(self) -> bool:
        """True when the counts are sums of sample weights (``member_sq`` is set)."""
        return self.member_sq is not None

    @property
    def sizes(self) -> np.ndarray:
        """Rows per subgroup; with sample weights Kish's effective sample size (sum w)^2 / sum w^2."""
        if self.weighted:
            return effective_size(self.member.sum(axis=1), self.member_sq.sum(axis=1))
        return self.member.sum(axis=1)

    @property
    def background_sizes(self) -> np.ndarray:
        """Rows in each subgroup's background (effective sample sizes with sample weights)."""
        if self.weighted:
            return effective_size(self.background.sum(axis=1), self.background_sq.sum(axis=1))
        return self.background.sum(axis=1)

    @property
    def overall_size(self) -> float:
        """All rows (their effective sample size with sample weights)."""
        if self.weighted:
            return float(effective_size(self.overall.sum(), self.overall_sq.sum()))
        return self.overall.sum()

    def row_tables(self) -> tuple:
        """With sample weights, the rows of weight > 0 behind each cell of ``member``, ``background`` and
        ``overall`` (``weights.row_counts``), at which a weighted rate's effective sample size is truncated
        (``_stats.intervals.effective_counts``); (None, None, None) for counts of rows or without atoms."""
        rows = row_counts(self.atoms)
        if rows is None:
            return None, None, None
        return (over_patterns(self.atoms.member, rows), over_patterns(self.atoms.background, rows), rows.sum(axis=0))

    def _effective(self, table: np.ndarray, squares: Optional[np.ndarray], rate: str) -> np.ndarray:
        """The denominator of `rate` in `table` as a size: the count, or its effective size with weights."""
        den = _fraction(table, rate)[1]
        return den if squares is None else effective_size(den, _fraction(squares, rate)[1])

    @property
    def small(self) -> np.ndarray:
        """Flag per subgroup: fewer rows (effective rows with weights) than ``min_size``."""
        return self.sizes < self.min_size

    def favourable(self, positive_outcome: str = "favourable") -> "ConfusionCounts":
        """The counts with the favourable outcome as "positive".

        For ``'favourable'`` the counts themselves. For ``'adverse'`` (a positive prediction harms
        the person: deny, default, reject, ...) labels and predictions are both swapped (TN <-> TP,
        FP <-> FN, atoms included): the selection rate becomes the rate of the favourable
        prediction, the true positive rate the favourable prediction's rate among people whose
        true label is favourable (1 - FPR of the event), and the Theil benefit ŷ - y + 1 counts a
        favourable prediction as the benefit. The four-fifths rule, the p% and equal opportunity
        scores and the Theil indices read these.

        Parameters
        ----------
        positive_outcome : {'favourable', 'adverse'}

        Returns
        -------
        ConfusionCounts
        """
        check_option(positive_outcome, ("favourable", "adverse"), "positive_outcome", "ConfusionCounts.favourable")
        if positive_outcome == "favourable":
            return self
        atoms = None if self.atoms is None else Atoms(self.atoms.counts[:, ::-1].copy(), self.atoms.member,
                                                      self.atoms.background, rows=(None if self.atoms.rows is None else (self.atoms.rows[0], 3 - self.atoms.rows[1], *self.atoms.rows[2:])))
        squares = {} if not self.weighted else dict(
            member_sq=self.member_sq[..., ::-1].copy(), background_sq=self.background_sq[..., ::-1].copy(),
            overall_sq=self.overall_sq[..., ::-1].copy())
        return dataclasses.replace(self, member=self.member[..., ::-1].copy(),
                                   background=self.background[..., ::-1].copy(),
                                   overall=self.overall[..., ::-1].copy(), atoms=atoms, **squares)

    def table(self, ci=None) -> pd.DataFrame:
        """Per-subgroup counts and every rate, with Wilson intervals when `ci` is a level.

        Parameters
        ----------
        ci : float in (0, 1) or None, default=None
            Confidence level of Wilson's score interval (Wilson 1927) of each rate, computed
            from the rate's numerator and denominator counts; None adds no interval columns. With
            sample weights, Wilson's interval on the rate's effective sample size
            (``_stats.intervals.weighted_wilson_interval``: the linearized variance of the weighted
            share, Korn & Graubard 1998, at most the rows behind the rate).

        Returns
        -------
        DataFrame
            One row per subgroup; the columns of :func:`group_rates` (with `ci`, each rate
            followed by ``<rate>_ci_low, <rate>_ci_high``; NaN where the denominator is 0).
            With sample weights the counts are sums of weights (float), ``size`` is the effective
            sample size and a ``weight`` column (the subgroup's sum of weights) follows it.

        Raises
        ------
        ValueError
            If `ci` is not None or a number strictly between 0 and 1 (``CI_MESSAGE``).
        """
        level = check_ci(ci, "ConfusionCounts.table")
        m = self.member
        as_count = (lambda a: a) if self.weighted else (lambda a: a.astype(np.int64))
        # Every column is computed first and the frame built once (a column added to a frame costs more than the
        # arithmetic of these few rows).
        out = {
            "subgroup": self.names,
            "size": as_count(self.sizes),
            **({"weight": m.sum(axis=1)} if self.weighted else {}),
            "n_positive": as_count(m[:, TP] + m[:, FN]),
            "n_negative": as_count(m[:, TN] + m[:, FP]),
            "small": self.small,
            "tp": as_count(m[:, TP]), "fp": as_count(m[:, FP]),
            "tn": as_count(m[:, TN]), "fn": as_count(m[:, FN]),
        }
        notes = []
        rows = self.row_tables()[0] if level is not None and self.weighted else None
        for name in RATE_NAMES:
            out[name], note = _rate(m, name)
            notes.append(note)
            if level is not None and self.weighted:   # on the rate's effective sample size
                (num, den), (num_sq, den_sq) = _fraction(m, name), _fraction(self.member_sq, name)
                out[f"{name}_ci_low"], out[f"{name}_ci_high"] = weighted_wilson_interval(
                    num, den, num_sq, den_sq - num_sq, level, rows=None if rows is None else _fraction(rows, name)[1])
            elif level is not None:
                out[f"{name}_ci_low"], out[f"{name}_ci_high"] = wilson_interval(*_fraction(m, name), level)
        out["note"] = ["; ".join(n for n in row if n) for row in zip(*notes)] if notes else ""
        return pd.DataFrame(out)

    def comparison(self, metric: str, *, distance_measure: str = "diff", reference: str = "rest",
                   func: str = "rate_disparity") -> pd.DataFrame:
        """The comparison table of one rate against the reference (no reduction)."""
        return pd.DataFrame(self._comparison_columns(metric, distance_measure, reference, func))

    def _comparison_columns(self, metric: str, distance_measure: str, reference: str, func: str) -> dict:
        """The columns of :meth:`comparison` as arrays (the table is built once, by the caller)."""
        check_option(metric, list(DISPARITY_METRICS), "metric", func)
        check_reference(reference, self.names, func)
        rate = DISPARITY_METRICS[metric]
        values, notes = _rate(self.member, rate)
        rest, rest_notes = _rate(self.background, rate)
        overall, _ = _rate(self.overall, rate)
        num, den = _fraction(self.member, rate)
        den_size = self._effective(self.member, self.member_sq, rate)
        small, reasons = self._small_for(den_size, rate)
        if self.weighted:   # sizes are effective sample sizes; numerators and denominators sums of weights
            as_count = lambda a: np.asarray(a, dtype=np.float64)  # noqa: E731
            columns = comparison_columns(self.names, self.sizes, values, rest, self.background_sizes,
                                         float(overall), self.overall_size, small,
                                         distance_measure=distance_measure, reference=reference, func=func,
                                         notes=notes, rest_notes=rest_notes)
        else:
            as_count = lambda a: np.asarray(a).astype(np.int64)  # noqa: E731
            columns = comparison_columns(self.names, self.sizes.astype(np.int64), values, rest,
                                         self.background.sum(axis=1).astype(np.int64), float(overall),
                                         int(self.overall.sum()), small, distance_measure=distance_measure,
                                         reference=reference, func=func, notes=notes, rest_notes=rest_notes)
        # The reliability of a rate rests on its denominator: record both sides' counts.
        rest_num, rest_den = _fraction(self.background, rate)
        all_num, all_den = _fraction(self.overall, rate)
        sub_num, ref_num = compared_values(num, rest_num, all_num, reference, self.names)
        sub_den, ref_den = compared_values(den, rest_den, all_den, reference, self.names)
        i, j = comparison_index(reference, self.names)
        ref_small = np.zeros(len(i), bool) if j is None else small[j]
        ref_reason = np.full(len(i), "", dtype=object) if j is None else reasons[j]
        ref_den = as_count(ref_den)
        if self.weighted:   # the reference's denominator as an effective size
            _, ref_size = compared_values(den_size, self._effective(self.background, self.background_sq, rate),
                                          self._effective(self.overall, self.overall_sq, rate), reference,
                                          self.names)
            ref_size = np.asarray(ref_size, dtype=np.float64)
        else:
            ref_size = ref_den
        ref_few = (ref_size > 0) & (ref_size < self.min_size)  # 0: undefined, not small
        out = {}
        for name, values in columns.items():
            if name == "subgroup_value":
                out.update({"numerator": as_count(sub_num),
                            "denominator": as_count(sub_den),
                            "reference_numerator": as_count(ref_num),
                            "reference_denominator": ref_den})
            out[name] = values
        out["small"] = small[i] | ref_small | ref_few
        out["small_reason"] = [
            "; ".join(p for p in (r, (f"{q}: {rr}" if rr else ""),
                                  (_few_text(d if self.weighted else int(d), rate, self.min_size, f"{q}: ")
                                   if few and not rr else "")) if p)
            for r, q, rr, few, d in zip(reasons[i], columns["reference"], ref_reason, ref_few, ref_size)]
        return out

    def _small_for(self, den: np.ndarray, rate: str) -> tuple[np.ndarray, np.ndarray]:
        """Per subgroup: small (too few rows, or too few in the rate's denominator) and the reason.

        With sample weights `den` and the sizes are effective sample sizes."""
        sizes = self.sizes
        if self.weighted:
            reasons = np.array([
                (f"{size_text(n)} effective rows < minimum {self.min_size}" if n < self.min_size
                 else _few_text(d, rate, self.min_size) if 0 < d < self.min_size else "")
                for n, d in zip(sizes, den)], dtype=object)
            return (sizes < self.min_size) | ((den > 0) & (den < self.min_size)), reasons
        reasons = np.array([
            (f"{int(n):,} rows < minimum {self.min_size}" if n < self.min_size
             else _few_text(int(d), rate, self.min_size) if 0 < d < self.min_size else "")
            for n, d in zip(sizes, den)], dtype=object)
        # A zero denominator makes the rate undefined (NaN with a note), which is not "small".
        return (sizes < self.min_size) | ((den > 0) & (den < self.min_size)), reasons

    def disparity(self, metric: str, *, distance_measure: str = "diff", reduction: Optional[str] = "mean",
                  reference: str = "rest", include_small: bool = False, ci=None, n_boot: int = 1000,
                  random_state=0, adjust: Optional[str] = None, func: str = "rate_disparity"):
        """Disparity of one rate; see :func:`rate_disparity`."""
        check_option(reduction, ("max", "mean", None), "reduction", func)
        check_no_intervals(self.weighted and self.atoms is None, ci, func)
        level, n_boot, _ = check_boot_options(ci, n_boot, random_state, func)   # validates; replicates draws
        columns = self._comparison_columns(metric, distance_measure, reference, func)
        if level is None:
            table = pd.DataFrame(columns)
            return table if reduction is None else reduce_columns(
                table, columns, reduction, distance_measure=distance_measure, reference=reference,
                include_small=include_small, func=func)
        return self._drawn_disparity(metric, columns, distance_measure, reduction, reference, include_small, level,
                                     n_boot, random_state, adjust, func)[0]

    def _drawn_disparity(self, metric: str, columns: dict, distance_measure: str, reduction: Optional[str],
                         reference: str, include_small: bool, level: float, n_boot: int, random_state, adjust,
                         func: str) -> tuple:
        """:meth:`disparity` with intervals from the comparison `columns` (:meth:`_comparison_columns`):
        ``(result, full)``, the result and the columns of its table as arrays (those of the kept table: read them,
        never change them). The table is built once, from these columns."""
        seed = _fixed_seed(random_state)
        key = ("table", metric, distance_measure, _reference_key(reference), level, n_boot, seed, adjust)
        drawn = self._drawn.get(key) if seed is not None else None
        if drawn is None:
            counts = self._side_counts(columns, DISPARITY_METRICS[metric], reference)
            plain_columns = self._value_interval_columns(columns, counts, level)
            signed, disparity = self.replicates(metric, distance_measure=distance_measure, reference=reference,
                                                n_boot=n_boot, random_state=random_state, func=func)
            sides = _sides(counts, distance_measure)
            # add_intervals' table, built once from the columns (which are kept too)
            added, attrs = comparison_intervals(plain_columns["disparity"], signed, disparity,
                                                distance_measure=distance_measure, level=level, adjust=adjust,
                                                func=func, sides=sides)
            full_columns = interval_columns(plain_columns, added)
            full = pd.DataFrame(full_columns)
            full.attrs.update(attrs)
            drawn = (full, signed, disparity, sides, plain_columns, full_columns)
            # kept only where its replicates were (within DRAWN_BYTES)
            if ("replicates", metric, distance_measure, _reference_key(reference), n_boot, seed) in self._drawn:
                self._drawn[key] = drawn
        full, signed, disparity, sides, plain_columns, full_columns = drawn
        if self._drawn.get(key) is drawn:   # the caller's own table: the kept one stays as drawn
            full = full.copy()
        return reduce_with_interval(full, None, signed, disparity, distance_measure=distance_measure,
                                    reduction=reduction, reference=reference, include_small=include_small,
                                    level=level, n_boot=n_boot, func=func, sides=sides,
                                    columns=plain_columns), full_columns

    def replicates(self, metric: str, *, distance_measure: str, reference: str, n_boot: int, random_state=0,
                   func: str = "rate_disparity") -> tuple[np.ndarray, np.ndarray]:
        """Bootstrap replicates of every comparison's signed distance and disparity for one rate.

        The atoms are resampled with `random_state`'s generator. With a fixed integer seed the replicates are kept on these counts and reused by
        every later call with the same arguments (a page's tables, rules and findings draw them once), up to
        ``DRAWN_BYTES`` of replicates per counts object (beyond it, e.g. pairwise comparisons of many
        subgroups, they are drawn again on each call: the same values).

        Parameters
        ----------
        metric : str
            A disparity metric (``DISPARITY_METRICS``), e.g. ``"false_positive_rate"``.
        distance_measure : {'diff', 'ratio'}
        reference : {'rest', 'overall', 'pairwise'} or a subgroup name
        n_boot : int
        random_state : int, Generator or None
        func : str
            The public function named in error messages.

        Returns
        -------
        signed, disparity : ndarray of shape (n_boot, n_comparisons)
        """
        seed = _fixed_seed(random_state)
        key = ("replicates", metric, distance_measure, _reference_key(reference), n_boot, seed)
        if seed is not None and key in self._drawn:
            return self._drawn[key]
        rate = DISPARITY_METRICS[metric]
        drawn = bootstrap_comparison(
            self._atoms(func), self.names, reference, lambda m, b, o: tuple(_rate(x, rate)[0] for x in (m, b, o)),
            distance_measure=distance_measure, n_boot=n_boot, rng=rng_of(random_state, func))
        kept = sum(v[0].nbytes + v[1].nbytes for k, v in self._drawn.items() if k[0] == "replicates")
        if seed is not None and kept + drawn[0].nbytes + drawn[1].nbytes <= DRAWN_BYTES:
            self._drawn[key] = drawn
        return drawn

    def _atoms(self, func: str):
        check_no_intervals(self.weighted and self.atoms is None, True, func)
        if self.atoms is None:
            raise ValueError(CONFUSION_NO_ATOMS_MESSAGE.format(func=func))
        return self.atoms

    def _side_counts(self, columns: dict, rate: str, reference: str) -> list:
        """(k1, n1, k2, n2) of each comparison of `rate` (its columns from :meth:`_comparison_columns`): the
        subgroup's and the reference's numerator and denominator, from which their Wilson intervals and the
        comparison's MOVER interval are computed. With sample weights, effective counts
        (``_stats.intervals.effective_counts``: the share on its effective sample size, at most its rows), not
        sums of weights."""
        if not self.weighted:
            return [np.asarray(columns[c], dtype=np.float64)
                    for c in ("numerator", "denominator", "reference_numerator", "reference_denominator")]
        def effective(table, squares, rows):   # numerator and denominator as (k*, n*); S1 and S0 from the squares
            num_sq, den_sq = _fraction(squares, rate)
            return effective_counts(*_fraction(table, rate), num_sq, den_sq - num_sq,
                                    None if rows is None else _fraction(rows, rate)[1])

        k, n = zip(*(effective(t, sq, r) for t, sq, r in zip((self.member, self.background, self.overall),
                                                            (self.member_sq, self.background_sq, self.overall_sq),
                                                            self.row_tables())))
        k1, k2 = compared_values(*k, reference, self.names)
        n1, n2 = compared_values(*n, reference, self.names)
        return [np.asarray(a, dtype=np.float64) for a in (k1, n1, k2, n2)]

    @staticmethod
    def _value_interval_columns(columns: dict, counts: list, level: float) -> dict:
        """`columns` (:meth:`_comparison_columns`) with the Wilson intervals of the subgroup and reference rates
        beside their values, from `counts` (:meth:`_side_counts`): a new dict, the table's columns in order."""
        k1, n1, k2, n2 = counts
        out = {}
        for name, column in columns.items():
            out[name] = column
            if name == "subgroup_value":
                out["subgroup_value_ci_low"], out["subgroup_value_ci_high"] = wilson_interval(k1, n1, level)
            elif name == "reference_value":
                out["reference_value_ci_low"], out["reference_value_ci_high"] = wilson_interval(k2, n2, level)
        return out

    def equalized_odds(self, *, distance_measure: str = "diff", reduction: Optional[str] = "mean",
                       reference: str = "rest", include_small: bool = False, ci=None, n_boot: int = 1000,
                       random_state=0, adjust: Optional[str] = None):
        """Equalized odds; see :func:`equalized_odds`."""
        func = "equalized_odds"
        check_option(reduction, ("max", "mean", None), "reduction", func)
        check_no_intervals(self.weighted and self.atoms is None, ci, func)
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        tpr, fpr, values, small = self._odds_columns(distance_measure, reference, func)
        columns = {
            **{name: tpr[name] for name in ("subgroup", "reference", "size", "reference_size")},
            "tpr_disparity": tpr["disparity"], "fpr_disparity": fpr["disparity"],
            "disparity": values, "small": small,
            "note": ["; ".join(n for n in pair if n) for pair in zip(tpr["note"], fpr["note"])],
            "small_reason": ["; ".join(dict.fromkeys(n for n in pair if n))
                             for pair in zip(tpr["small_reason"], fpr["small_reason"])]}
        if level is None:
            table = pd.DataFrame(columns)
            return table if reduction is None else reduce_columns(
                table, columns, reduction, distance_measure=distance_measure, reference=reference,
                include_small=include_small, func=func)
        signed, disparity, sides = self._odds_draws(tpr, fpr, distance_measure, reference, n_boot, rng, func)
        return finish_disparity(None, signed, disparity, distance_measure=distance_measure, reduction=reduction,
                                reference=reference, include_small=include_small, level=level, n_boot=n_boot,
                                adjust=adjust, func=func, sides=sides, columns=columns)

    def _odds_columns(self, distance_measure: str, reference: str, func: str) -> tuple:
        """Equalized odds of every comparison: ``(tpr, fpr, disparity, small)``, the TPR and FPR comparison columns
        (:meth:`_comparison_columns`), max(TPR disparity, FPR disparity) (NaN only where both are) and the small
        flags (small where either rate's comparison is)."""
        tpr = self._comparison_columns("true_positive_rate", distance_measure, reference, func)
        fpr = self._comparison_columns("false_positive_rate", distance_measure, reference, func)
        return tpr, fpr, np.fmax(tpr["disparity"], fpr["disparity"]), tpr["small"] | fpr["small"]

    def _odds_draws(self, tpr: dict, fpr: dict, distance_measure: str, reference: str, n_boot: int, rng,
                    func: str) -> tuple:
        """Equalized odds' replicates and sides: ``(signed, disparity, sides)`` of each comparison, from the TPR and
        FPR comparison columns (:meth:`_comparison_columns`). TPR and FPR come from the same replicates (resampled
        jointly); per replicate a comparison's disparity is the larger of the two, its sign that one's sign, and
        its sides' interval the larger of the two rates' intervals, end by end."""
        tpr_sides = _sides(self._side_counts(tpr, "true_positive_rate", reference), distance_measure)
        fpr_sides = _sides(self._side_counts(fpr, "false_positive_rate", reference), distance_measure)
        signed, disparity = bootstrap_comparison(   # axis 1 of every array is the rate
            self._atoms(func), self.names, reference,
            lambda m, b, o: tuple(np.stack([_rate(x, "true_positive_rate")[0], _rate(x, "false_positive_rate")[0]],
                                           axis=1) for x in (m, b, o)),
            distance_measure=distance_measure, n_boot=n_boot, rng=rng)
        tpr_draws, fpr_draws = disparity[:, 0], disparity[:, 1]
        tpr_larger = np.nan_to_num(tpr_draws, nan=-np.inf) >= np.nan_to_num(fpr_draws, nan=-np.inf)

        def sides(levels):
            (t_low, t_high), (f_low, f_high) = tpr_sides(levels), fpr_sides(levels)
            return np.fmax(t_low, f_low), np.fmax(t_high, f_high)

        return np.where(tpr_larger, signed[:, 0], signed[:, 1]), np.fmax(tpr_draws, fpr_draws), sides

    def largest_disparity(self, metric: str, *, distance_measure: str = "diff", reference: str = "rest",
                          include_small: bool = False, ci=None, n_boot: int = 1000,
                          random_state=0) -> tuple[float, float, float]:
        """The largest disparity of one rate (or of equalized odds) and its interval, as three numbers.

        ``(value, ci_low, ci_high)`` of :meth:`disparity` (or :meth:`equalized_odds`) with ``reduction="max"`` and
        the same arguments, the same replicates and the same construction (``_disparity.compare.reduced_ends``),
        without their tables, notes or p-values: what a verdict needs, for a sweep over many thresholds.

        Parameters
        ----------
        metric : str
            A disparity metric (``DISPARITY_METRICS``) or ``"equalized_odds"``.
        distance_measure, reference, include_small, ci, n_boot, random_state
            As in :meth:`disparity`.

        Returns
        -------
        (value, ci_low, ci_high) : tuple of float
            NaN ends without `ci`, or when no comparison used has an interval; value NaN when none is defined.

        Raises
        ------
        ValueError
            As :meth:`disparity` (intervals asked of weighted counts without their rows, bad options).
        """
        func = "rate_disparity" if metric != "equalized_odds" else "equalized_odds"
        check_no_intervals(self.weighted and self.atoms is None, ci, func)
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        if metric == "equalized_odds":
            tpr, fpr, values, small = self._odds_columns(distance_measure, reference, func)
        else:
            columns = self._comparison_columns(metric, distance_measure, reference, func)
            values, small = columns["disparity"], np.asarray(columns["small"], dtype=bool)
        values = np.asarray(values, dtype=np.float64)
        used = (include_small | ~small) & ~np.isnan(values)
        value = float(values[used].max()) if used.any() else np.nan
        if level is None or np.isnan(value):
            return value, np.nan, np.nan
        if metric == "equalized_odds":
            signed, disparity, sides = self._odds_draws(tpr, fpr, distance_measure, reference, n_boot, rng, func)
        else:
            signed, disparity = self.replicates(metric, distance_measure=distance_measure, reference=reference,
                                                n_boot=n_boot, random_state=random_state, func=func)
            sides = _sides(self._side_counts(columns, DISPARITY_METRICS[metric], reference), distance_measure)
        low, high = reduced_ends(values, used, signed, disparity, level, "max", parity=PARITY[distance_measure],
                                 sides=sides)
        return value, (low if np.isnan(low) else min(low, value)), (high if np.isnan(low) else max(high, value))

    def smallest_ratio_score(self, rate: str, *, include_small: bool = False, ci=None, n_boot: int = 1000,
                             random_state=0) -> tuple[float, float, float]:
        """The smallest ratio score of a rate over the subgroups and its interval, as three numbers.

        ``(value, ci_low, ci_high)`` of :meth:`ratio_scores` with the same arguments (the value min(a/b, b/a) of
        each subgroup's rate a and its background's b, the smallest over the subgroups used; the interval the
        inverse of the largest ratio disparity's, :meth:`largest_disparity`), without the table.

        Parameters
        ----------
        rate : {'selection_rate', 'true_positive_rate'}
        include_small, ci, n_boot, random_state
            As in :meth:`ratio_scores`.

        Returns
        -------
        (value, ci_low, ci_high) : tuple of float
        """
        check_option(rate, RATIO_RATES, "rate", "ConfusionCounts.ratio_scores")
        metric = "statistical_parity" if rate == "selection_rate" else rate
        score, _ = ratio_rule(_rate(self.member, rate)[0], _rate(self.background, rate)[0], rate)
        columns = self._comparison_columns(metric, "ratio", "rest", "ConfusionCounts.ratio_scores")
        used = (include_small | ~np.asarray(columns["small"], dtype=bool)) & ~np.isnan(score)
        value = float(score[used].min()) if used.any() else np.nan
        if ci is None:
            return value, np.nan, np.nan
        _, low, high = self.largest_disparity(metric, distance_measure="ratio", reference="rest",
                                              include_small=include_small, ci=ci, n_boot=n_boot,
                                              random_state=random_state)
        with np.errstate(divide="ignore"):
            return value, 1.0 / high, 1.0 / low

    def theil_index(self, *, reduction: Optional[str] = "mean", reference: str = "rest",
                    include_small: bool = False, ci=None, n_boot: int = 1000, random_state=0,
                    adjust: Optional[str] = None):
        """Two-group Theil index of each subgroup against its reference; see :func:`theil_index`."""
        return theil_disparity(self, reduction=reduction, reference=reference, include_small=include_small,
                               ci=ci, n_boot=n_boot, random_state=random_state, adjust=adjust)

    def individual_theil_index(self, *, ci=None, n_boot: int = 1000, random_state=0):
        """Theil index of the benefit over all rows; see :func:`individual_theil_index`.

        A float, or with `ci` a ``TheilResult`` whose interval comes from the bootstrap that
        redraws the confusion cells of every membership pattern (pattern sizes fixed; with sample
        weights, the bootstrap of the rows with their weights).
        """
        return individual_theil_of(self, ci=ci, n_boot=n_boot, random_state=random_state)

    def between_group_theil_index(self, *, ci=None, n_boot: int = 1000, random_state=0):
        """Theil index of the subgroups' mean benefits; see :func:`between_group_theil_index`.

        A float, or with `ci` a ``TheilResult``. Raises ValueError unless the subgroups are
        disjoint and cover every row (``disjoint``).
        """
        return between_group_theil_of(self, ci=ci, n_boot=n_boot, random_state=random_state)

    def ratio_scores(self, rate: str, *, include_small: bool = False, ci=None, n_boot: int = 1000,
                     random_state=0):
        """Each subgroup's rate against its background as min(a/b, b/a), and the minimum.

        See :func:`p_percent_score` (``rate="selection_rate"``) and
        :func:`equal_opportunity_score` (``rate="true_positive_rate"``) for the rule; the result
        is a :class:`RatioScoresResult`. With `ci`, bootstrap intervals as in :meth:`disparity`
        (the score is the inverse of the ratio disparity against the rest); with sample weights
        those of :meth:`disparity` with weights (the bootstrap of the rows with their weights joined
        with the MOVER interval of the two weighted rates on their effective counts).
        """
        func = "ConfusionCounts.ratio_scores"
        check_option(rate, RATIO_RATES, "rate", func)
        metric = "statistical_parity" if rate == "selection_rate" else rate
        # self.disparity(metric, distance_measure="ratio", reference="rest", reduction=None without ci, "max" with
        # it): its table's columns read as arrays, no table built but the one returned
        check_no_intervals(self.weighted and self.atoms is None, ci, func)
        level, n_boot, _ = check_boot_options(ci, n_boot, random_state, func)
        columns = self._comparison_columns(metric, "ratio", "rest", func)
        if level is not None:
            ratio, columns = self._drawn_disparity(metric, columns, "ratio", "max", "rest", include_small, level,
                                                   n_boot, random_state, None, func)
        a, a_notes = _rate(self.member, rate)
        b, b_notes = _rate(self.background, rate)
        score, notes = ratio_rule(a, b, rate)
        small = np.asarray(columns["small"], dtype=bool)
        out = {
            "subgroup": list(self.names),
            "size": self.sizes if self.weighted else self.sizes.astype(np.int64),
            "reference_size": (self.background_sizes if self.weighted
                               else self.background.sum(axis=1).astype(np.int64)),
            "subgroup_value": a,
            "reference_value": b,
            "score": score,
        }
        extra = {}
        if level is not None:
            with np.errstate(divide="ignore"):
                out["score_ci_low"] = 1.0 / np.asarray(columns["disparity_ci_high"], dtype=np.float64)
                out["score_ci_high"] = 1.0 / np.asarray(columns["disparity_ci_low"], dtype=np.float64)
            out["excludes_parity"] = columns["excludes_parity"].to_numpy()
            with np.errstate(divide="ignore"):
                extra = dict(ci_low=1.0 / ratio.ci_high, ci_high=1.0 / ratio.ci_low, level=ratio.level,
                             n_boot=ratio.n_boot, n_boot_undefined=ratio.n_boot_undefined)
        out["small"] = small
        out["note"] = [join_notes(x, f"rest: {y}" if y else "", z) for x, y, z in zip(a_notes, b_notes, notes)]
        out["small_reason"] = np.asarray(columns["small_reason"], dtype=object)
        table = pd.DataFrame(out)
        if level is not None:
            table.attrs.update(ratio.table.attrs)
        used = np.ones(len(small), bool) if include_small else ~small
        defined = used & ~np.isnan(score)
        if not defined.any():
            value, worst = float("nan"), None
        else:   # the first subgroup with the smallest score used (DataFrame.idxmin's)
            at = int(np.flatnonzero(defined)[np.argmin(score[defined])])
            value, worst = float(score[at]), out["subgroup"][at]
        return RatioScoresResult(value=value, rate=rate, table=table, worst=worst, n_used=int(defined.sum()),
                                 n_undefined=int(used.sum()) - int(defined.sum()),
                                 n_small_excluded=len(small) - int(used.sum()), **extra)


# Bootstrap replicates kept on one counts object (8 MiB: every rate of a page at tens of subgroups against the
# rest); the app's memo, which measures an entry when it is stored, never sees more than this per counts object.
DRAWN_BYTES = 8 * 2**20


def _reference_key(reference) -> tuple:
    """`reference` as a key: a subgroup named like a keyword (``named_reference("rest")``, equal to "rest" as a
    string) is not the keyword."""
    return type(reference).__name__, str(reference)


def _fixed_seed(random_state) -> Optional[int]:
    """`random_state` when it is a fixed integer seed (the same replicates on every call), else None."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    return None


def _sides(counts: list, distance_measure: str) -> MoverInterval:
    """``sides(levels)`` of ``_disparity.compare.add_intervals`` for a rate's comparisons, from their (k1, n1, k2,
    n2) (``ConfusionCounts._side_counts``): the MOVER interval of each comparison's disparity from the Wilson
    intervals of its two rates (``_stats.intervals.mover_disparity``), its level-free parts computed once."""
    return MoverInterval(*counts, distance_measure)


def confusion_counts(y_true, y_pred, subgroups, *, sample_weight=None) -> ConfusionCounts:
    """Confusion counts (TN, FP, FN, TP) of every subgroup, its background and all rows.

    The sufficient statistic of every rate and rate disparity: compute it once per threshold,
    then call ``.table()``, ``.disparity(...)`` or ``.equalized_odds(...)`` with any options.

    With `sample_weight`, each cell is the sum of the weights of its rows (TP = sum of w_i over
    rows with y_i = 1 and prediction 1, and so on), so every rate is a weighted rate, e.g.
    FPR = sum_{y=0, pred=1} w / sum_{y=0} w. The counts also keep the sums of squared weights
    (``member_sq``, ``background_sq``, ``overall_sq``), and every size (``sizes``, the tables'
    ``size`` and ``reference_size``, the small-subgroup flag and the denominators it checks) is
    Kish's effective sample size n_eff = (sum w)^2 / sum w^2. Rows of weight 0 take no part; a
    subgroup whose weights are all 0 is reported as an empty subgroup (NaN rates with their note).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_pred : array-like of shape (n_samples,)
        Binary predictions, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0 (e.g. survey weights); None counts every row once (the results are
        then exactly those without the parameter). With weights, :meth:`ConfusionCounts.table`'s
        Wilson intervals take each rate's effective sample size, and the bootstrap intervals
        (:meth:`~ConfusionCounts.disparity`, :meth:`~ConfusionCounts.equalized_odds`, the Theil
        indices, the ratio scores, F1 in ``performance_table``) resample the rows with their weights.

    Returns
    -------
    ConfusionCounts

    Raises
    ------
    ValueError
        For bad labels, predictions or subgroups, or for weights that are negative, NaN,
        infinite or of the wrong length.
    """
    return ConfusionCounts.compute(y_true, y_pred, subgroups, sample_weight=sample_weight)


def base_rate_counts(confusion: ConfusionCounts) -> ConfusionCounts:
    """The confusion counts of the labels against themselves (TN = negatives, TP = positives): base rates."""
    def of(cells: np.ndarray) -> np.ndarray:
        out = np.zeros_like(cells)
        out[..., 0] = cells[..., 0] + cells[..., 1]
        out[..., 3] = cells[..., 2] + cells[..., 3]
        return out

    squares = {} if not confusion.weighted else dict(
        member_sq=of(confusion.member_sq), background_sq=of(confusion.background_sq),
        overall_sq=of(confusion.overall_sq))
    return ConfusionCounts(list(confusion.names), of(confusion.member), of(confusion.background),
                           of(confusion.overall), confusion.min_size, disjoint=confusion.disjoint, **squares)
