"""The count tables: the sufficient statistics behind every metric, in one home (§3).

Every metric is a function of a small table of counts, never of the rows. This module holds
those tables and the code that takes them from rows:

- :class:`ConfusionCounts`: TN, FP, FN, TP of every subgroup, its background and all rows (one
  bincount), with the seven rates, their comparisons and disparities, equalized odds, and the
  Theil indices and ratio scores computed from the same cells.
- :class:`ThresholdCounts`: the scores of one column sorted once within each (membership
  pattern, label) cell, so the ``ConfusionCounts`` at any decision threshold is a few array
  lookups.
- :class:`CalibrationCounts`: per (subgroup, bin) the count, sum of y_prob, sum of y_true and sum
  of squared errors, with the atoms its bootstrap resamples.
- :class:`ClassCounts`: per-subgroup K x K confusion matrices of true against predicted classes.

Each table carries its atoms (counts per membership pattern and cell, ``_bootstrap.Atoms``),
which is what every interval resamples. The metric modules (``_rates``, ``_theil``,
``_ratio_scores``, ``_calibration``, ``_classwise``, ``_dataset``) import this module to count
rows; the tables' methods compute from the counts with the functions of ``_compare``,
``_inequality``, ``_calibration_errors`` and ``_average_bias``, which never import this module,
so the modules form no import cycle.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

from .._disparity.average_bias import (CALLABLE_CI_MESSAGE, METRICS, UnweightedAverageBiasResult, check_reduction,
                            unweighted_average_bias_of)
from .._stats.bootstrap import BLOCK_CELLS, Atoms, check_boot_options, percentile_interval, replicate_stat
from .._disparity.calibration_errors import calibration_disparity_of, error_table_of
from .._data.checks import as_binary, as_probabilities, as_scores, check_int, check_length, check_option
from .._disparity.compare import (RatioScoresResult, bootstrap_comparison, check_reference,
                       comparison_columns, comparison_index, compared_values, finish_disparity, join_notes, ratio_rule,
                       reduce_columns)
from .._disparity.inequality import between_group_theil_of, individual_theil_of, theil_disparity
from .._stats.intervals import check_ci, mover_disparity, wilson_interval
from .._subgroups.subgroups import Subgroups, _value_label, as_subgroups


# Patterns x subgroups converted to float at a time by over_patterns (bounds its memory at 8 MiB).
PATTERN_BLOCK = 1 << 20


def over_patterns(masks: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Sum `values` of shape (n_patterns, ...) over the patterns of each subgroup -> (n_subgroups, ...).

    `masks` (n_patterns, n_subgroups) says which patterns make up each subgroup (member or
    background masks of ``Subgroups.patterns``). ``numpy.einsum`` runs its own loops: exact for
    counts, and not a multi-threaded BLAS product, which on a busy machine can take a hundred times
    longer for these small tables. Many patterns are summed in blocks, so the float copy of the
    masks stays small.
    """
    n_patterns, k = masks.shape
    step = max(1, PATTERN_BLOCK // max(k, 1))
    out = np.zeros((k,) + values.shape[1:])
    for start in range(0, n_patterns, step):
        out += np.einsum("pk,p...->k...", masks[start:start + step].astype(np.float64), values[start:start + step])
    return out


# ============================================================================================
# Confusion counts
# ============================================================================================

# Confusion cell of a row: 2 * y_true + y_pred.
TN, FP, FN, TP = 0, 1, 2, 3

RATES = {
    # name: (numerator cells, denominator cells, note when the denominator is 0)
    "selection_rate": ((FP, TP), (TN, FP, FN, TP), "no rows"),
    "true_positive_rate": ((TP,), (TP, FN), "no positive examples (TP + FN = 0)"),
    "false_positive_rate": ((FP,), (FP, TN), "no negative examples (FP + TN = 0)"),
    "false_negative_rate": ((FN,), (FN, TP), "no positive examples (FN + TP = 0)"),
    "false_omission_rate": ((FN,), (FN, TN), "no predicted negatives (FN + TN = 0)"),
    "false_discovery_rate": ((FP,), (FP, TP), "no predicted positives (FP + TP = 0)"),
    "error_rate": ((FP, FN), (TN, FP, FN, TP), "no rows"),
}
RATE_NAMES = tuple(RATES)
# The rates a ratio score compares (p% score, equal opportunity score).
RATIO_RATES = ("selection_rate", "true_positive_rate")
# rate_disparity's metric names (seed 004 calls the selection rate "statistical parity").
DISPARITY_METRICS = {"statistical_parity": "selection_rate", **{k: k for k in RATE_NAMES if k != "selection_rate"}}

Metric = Literal["statistical_parity", "true_positive_rate", "false_positive_rate", "false_negative_rate",
                 "false_omission_rate", "false_discovery_rate", "error_rate"]


def _fraction(counts: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(numerator, denominator) of rate `name` from counts of shape (..., 4)."""
    num_cells, den_cells, _ = RATES[name]
    return counts[..., list(num_cells)].sum(axis=-1), counts[..., list(den_cells)].sum(axis=-1)


def _rate(counts: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Rate `name` from counts of shape (..., 4) -> (values, notes)."""
    num, den = _fraction(counts, name)
    why = RATES[name][2]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    notes = np.where(den > 0, "", f"{name.replace('_', ' ')} undefined: {why}").astype(object)
    return values, notes


PER_SUBGROUP_MESSAGE = ("Per-subgroup thresholds need subgroups that do not overlap and cover every row "
                        "(intersected protected attributes, no identity indicator columns), so that each row has "
                        "exactly one threshold.")
CONFUSION_NO_ATOMS_MESSAGE = (
    "{func} cannot compute intervals from ConfusionCounts built by hand: the bootstrap needs the "
    "counts per membership pattern. Tip: build them with confusion_counts(y_true, y_pred, subgroups)."
)
DENOMINATOR_NAMES = {
    "selection_rate": "rows", "true_positive_rate": "actual positives", "false_positive_rate": "actual negatives",
    "false_negative_rate": "actual positives", "false_omission_rate": "predicted negatives",
    "false_discovery_rate": "predicted positives", "error_rate": "rows",
}


def _few_text(den: int, rate: str, min_size: int, prefix: str = "") -> str:
    return (f"{prefix}{den:,} {DENOMINATOR_NAMES[rate]} (the denominator of the {rate.replace('_', ' ')}) "
            f"< minimum {min_size}")


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
        :meth:`compute`; counts built by hand have none and cannot give intervals).
    """

    names: list
    member: np.ndarray
    background: np.ndarray
    overall: np.ndarray
    min_size: int
    disjoint: bool = False
    atoms: object = field(default=None, repr=False, compare=False)

    @classmethod
    def compute(cls, y_true, y_pred, subgroups, *, func: str = "confusion_counts") -> "ConfusionCounts":
        """Count TN, FP, FN, TP per subgroup; see :func:`confusion_counts`."""
        y = as_binary(y_true, "y_true", func)
        p = as_binary(y_pred, "y_pred", func)
        check_length(p, len(y), "y_pred", func)
        groups = as_subgroups(subgroups, len(y), func)
        cell = (2 * y + p).astype(np.intp)
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

    @property
    def sizes(self) -> np.ndarray:
        """Rows per subgroup."""
        return self.member.sum(axis=1)

    @property
    def small(self) -> np.ndarray:
        """Flag per subgroup: fewer rows than ``min_size``."""
        return self.sizes < self.min_size

    def favourable(self, positive_outcome: str = "favourable") -> "ConfusionCounts":
        """The counts with the favourable outcome as "positive" (ARCHITECTURE §5.0).

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
                                                      self.atoms.background)
        return dataclasses.replace(self, member=self.member[..., ::-1].copy(),
                                   background=self.background[..., ::-1].copy(),
                                   overall=self.overall[..., ::-1].copy(), atoms=atoms)

    def table(self, ci=None) -> pd.DataFrame:
        """Per-subgroup counts and every rate, with Wilson intervals when `ci` is a level.

        Parameters
        ----------
        ci : float in (0, 1) or None, default=None
            Confidence level of Wilson's score interval (Wilson 1927) of each rate, computed
            from the rate's numerator and denominator counts; None adds no interval columns.

        Returns
        -------
        DataFrame
            One row per subgroup; the columns of :func:`group_rates` (with `ci`, each rate
            followed by ``<rate>_ci_low, <rate>_ci_high``; NaN where the denominator is 0).

        Raises
        ------
        ValueError
            If `ci` is not None or a number strictly between 0 and 1 (``CI_MESSAGE``).
        """
        level = check_ci(ci, "ConfusionCounts.table")
        m = self.member
        out = pd.DataFrame({
            "subgroup": self.names,
            "size": self.sizes.astype(np.int64),
            "n_positive": (m[:, TP] + m[:, FN]).astype(np.int64),
            "n_negative": (m[:, TN] + m[:, FP]).astype(np.int64),
            "small": self.small,
            "tp": m[:, TP].astype(np.int64), "fp": m[:, FP].astype(np.int64),
            "tn": m[:, TN].astype(np.int64), "fn": m[:, FN].astype(np.int64),
        })
        notes = []
        for name in RATE_NAMES:
            out[name], note = _rate(m, name)
            notes.append(note)
            if level is not None:
                out[f"{name}_ci_low"], out[f"{name}_ci_high"] = wilson_interval(*_fraction(m, name), level)
        out["note"] = ["; ".join(n for n in row if n) for row in zip(*notes)] if notes else ""
        return out

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
        small, reasons = self._small_for(den, rate)
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
        ref_den = np.asarray(ref_den).astype(np.int64)
        ref_few = (ref_den > 0) & (ref_den < self.min_size)  # 0: undefined, not small
        out = {}
        for name, values in columns.items():
            if name == "subgroup_value":
                out.update({"numerator": np.asarray(sub_num).astype(np.int64),
                            "denominator": np.asarray(sub_den).astype(np.int64),
                            "reference_numerator": np.asarray(ref_num).astype(np.int64),
                            "reference_denominator": ref_den})
            out[name] = values
        out["small"] = small[i] | ref_small | ref_few
        out["small_reason"] = [
            "; ".join(p for p in (r, (f"{q}: {rr}" if rr else ""),
                                  (_few_text(int(d), rate, self.min_size, f"{q}: ") if few and not rr else "")) if p)
            for r, q, rr, few, d in zip(reasons[i], columns["reference"], ref_reason, ref_few, ref_den)]
        return out

    def _small_for(self, den: np.ndarray, rate: str) -> tuple[np.ndarray, np.ndarray]:
        """Per subgroup: small (too few rows, or too few in the rate's denominator) and the reason."""
        sizes = self.sizes
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
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        columns = self._comparison_columns(metric, distance_measure, reference, func)
        table = pd.DataFrame(columns)
        if level is None:
            return table if reduction is None else reduce_columns(
                table, columns, reduction, distance_measure=distance_measure, reference=reference,
                include_small=include_small, func=func)
        rate = DISPARITY_METRICS[metric]
        table = self._value_intervals(table, rate, level)
        signed, disparity = bootstrap_comparison(
            self._atoms(func), self.names, reference, lambda m, b, o: tuple(_rate(x, rate)[0] for x in (m, b, o)),
            distance_measure=distance_measure, n_boot=n_boot, rng=rng)
        return finish_disparity(table, signed, disparity, distance_measure=distance_measure, reduction=reduction,
                                reference=reference, include_small=include_small, level=level, n_boot=n_boot,
                                adjust=adjust, func=func, sides=_sides(columns, distance_measure))

    def _atoms(self, func: str):
        if self.atoms is None:
            raise ValueError(CONFUSION_NO_ATOMS_MESSAGE.format(func=func))
        return self.atoms

    def _value_intervals(self, table: pd.DataFrame, rate: str, level: float) -> pd.DataFrame:
        """Wilson intervals of the subgroup and reference rates, beside their values."""
        table = table.copy()
        for side, num, den in (("subgroup_value", "numerator", "denominator"),
                               ("reference_value", "reference_numerator", "reference_denominator")):
            low, high = wilson_interval(table[num].to_numpy(), table[den].to_numpy(), level)
            at = table.columns.get_loc(side) + 1
            table.insert(at, f"{side}_ci_low", low)
            table.insert(at + 1, f"{side}_ci_high", high)
        return table

    def equalized_odds(self, *, distance_measure: str = "diff", reduction: Optional[str] = "mean",
                       reference: str = "rest", include_small: bool = False, ci=None, n_boot: int = 1000,
                       random_state=0, adjust: Optional[str] = None):
        """Equalized odds; see :func:`equalized_odds`."""
        func = "equalized_odds"
        check_option(reduction, ("max", "mean", None), "reduction", func)
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        tpr = self._comparison_columns("true_positive_rate", distance_measure, reference, func)
        fpr = self._comparison_columns("false_positive_rate", distance_measure, reference, func)
        columns = {
            **{name: tpr[name] for name in ("subgroup", "reference", "size", "reference_size")},
            "tpr_disparity": tpr["disparity"], "fpr_disparity": fpr["disparity"],
            "disparity": np.fmax(tpr["disparity"], fpr["disparity"]), "small": tpr["small"] | fpr["small"],
            "note": ["; ".join(n for n in pair if n) for pair in zip(tpr["note"], fpr["note"])],
            "small_reason": ["; ".join(dict.fromkeys(n for n in pair if n))
                             for pair in zip(tpr["small_reason"], fpr["small_reason"])]}
        table = pd.DataFrame(columns)
        if level is None:
            return table if reduction is None else reduce_columns(
                table, columns, reduction, distance_measure=distance_measure, reference=reference,
                include_small=include_small, func=func)
        tpr_sides, fpr_sides = _sides(tpr, distance_measure), _sides(fpr, distance_measure)
        # TPR and FPR from the same replicates (resampled jointly): axis 1 of every array is the rate.
        signed, disparity = bootstrap_comparison(
            self._atoms(func), self.names, reference,
            lambda m, b, o: tuple(np.stack([_rate(x, "true_positive_rate")[0], _rate(x, "false_positive_rate")[0]],
                                           axis=1) for x in (m, b, o)),
            distance_measure=distance_measure, n_boot=n_boot, rng=rng)
        # Per replicate, the comparison's disparity is the larger one, and its sign that one's sign.
        tpr, fpr = disparity[:, 0], disparity[:, 1]
        tpr_larger = np.nan_to_num(tpr, nan=-np.inf) >= np.nan_to_num(fpr, nan=-np.inf)
        signed = np.where(tpr_larger, signed[:, 0], signed[:, 1])
        disparity = np.fmax(tpr, fpr)
        def sides(levels):   # the larger of the two rates' disparities, end by end
            (t_low, t_high), (f_low, f_high) = tpr_sides(levels), fpr_sides(levels)
            return np.fmax(t_low, f_low), np.fmax(t_high, f_high)

        return finish_disparity(table, signed, disparity, distance_measure=distance_measure, reduction=reduction,
                                reference=reference, include_small=include_small, level=level, n_boot=n_boot,
                                adjust=adjust, func=func, sides=sides)

    def theil_index(self, *, reduction: Optional[str] = "mean", reference: str = "rest",
                    include_small: bool = False, ci=None, n_boot: int = 1000, random_state=0,
                    adjust: Optional[str] = None):
        """Two-group Theil index of each subgroup against its reference; see :func:`theil_index`."""
        return theil_disparity(self, reduction=reduction, reference=reference, include_small=include_small,
                               ci=ci, n_boot=n_boot, random_state=random_state, adjust=adjust)

    def individual_theil_index(self, *, ci=None, n_boot: int = 1000, random_state=0):
        """Theil index of the benefit over all rows; see :func:`individual_theil_index`.

        A float, or with `ci` a ``TheilResult`` whose interval comes from the bootstrap that
        redraws the confusion cells of every membership pattern (pattern sizes fixed).
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
        (the score is the inverse of the ratio disparity against the rest).
        """
        check_option(rate, RATIO_RATES, "rate", "ConfusionCounts.ratio_scores")
        metric = "statistical_parity" if rate == "selection_rate" else rate
        ratio = self.disparity(metric, distance_measure="ratio", reference="rest",
                               reduction=None if ci is None else "max", include_small=include_small, ci=ci,
                               n_boot=n_boot, random_state=random_state, func="ConfusionCounts.ratio_scores")
        ratio_table = ratio if ci is None else ratio.table
        a, a_notes = _rate(self.member, rate)
        b, b_notes = _rate(self.background, rate)
        score, notes = ratio_rule(a, b, rate)
        table = pd.DataFrame({
            "subgroup": list(self.names),
            "size": self.sizes.astype(np.int64),
            "reference_size": self.background.sum(axis=1).astype(np.int64),
            "subgroup_value": a,
            "reference_value": b,
            "score": score,
            "small": ratio_table["small"].to_numpy(dtype=bool),
            "note": [join_notes(x, f"rest: {y}" if y else "", z) for x, y, z in zip(a_notes, b_notes, notes)],
            "small_reason": ratio_table["small_reason"].to_numpy(dtype=object),
        })
        extra = {}
        if ci is not None:
            with np.errstate(divide="ignore"):
                low = 1.0 / ratio_table["disparity_ci_high"].to_numpy(dtype=np.float64)
                high = 1.0 / ratio_table["disparity_ci_low"].to_numpy(dtype=np.float64)
            at = table.columns.get_loc("score") + 1
            table.insert(at, "score_ci_low", low)
            table.insert(at + 1, "score_ci_high", high)
            table.insert(at + 2, "excludes_parity", ratio_table["excludes_parity"].to_numpy())
            table.attrs.update(ratio_table.attrs)
            with np.errstate(divide="ignore"):
                extra = dict(ci_low=1.0 / ratio.ci_high, ci_high=1.0 / ratio.ci_low, level=ratio.level,
                             n_boot=ratio.n_boot, n_boot_undefined=ratio.n_boot_undefined)
        used = table if include_small else table[~table["small"]]
        defined = used[used["score"].notna()]
        if defined.empty:
            value, worst = float("nan"), None
        else:
            row = defined.loc[defined["score"].idxmin()]
            value, worst = float(row["score"]), row["subgroup"]
        return RatioScoresResult(value=value, rate=rate, table=table, worst=worst, n_used=len(defined),
                                 n_undefined=len(used) - len(defined), n_small_excluded=len(table) - len(used),
                                 **extra)


def _sides(columns: dict, distance_measure: str):
    """``sides(levels)`` of ``_compare.add_intervals`` for a rate's comparison columns: the MOVER interval of each
    comparison's disparity from the Wilson intervals of its two rates (``_intervals.mover_disparity``)."""
    counts = [np.asarray(columns[c], dtype=np.float64)
              for c in ("numerator", "denominator", "reference_numerator", "reference_denominator")]
    return lambda levels: mover_disparity(*counts, levels, distance_measure)


def confusion_counts(y_true, y_pred, subgroups) -> ConfusionCounts:
    """Confusion counts (TN, FP, FN, TP) of every subgroup, its background and all rows.

    The sufficient statistic of every rate and rate disparity: compute it once per threshold,
    then call ``.table()``, ``.disparity(...)`` or ``.equalized_odds(...)`` with any options.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_pred : array-like of shape (n_samples,)
        Binary predictions, 0 or 1.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes

    Returns
    -------
    ConfusionCounts
    """
    return ConfusionCounts.compute(y_true, y_pred, subgroups)


# ============================================================================================
# Confusion counts at any threshold
# ============================================================================================


@dataclass(frozen=True, eq=False)
class ThresholdCounts:
    """The scores of one column sorted once: the confusion counts at any threshold from array lookups.

    Predictions are ``y_score >= threshold``. Every row has a membership pattern p (``Subgroups.patterns``),
    a label y and a *level*, the rank of its score among the distinct scores. The rows are counted
    once per (p, y) cell, and the keys ``(2 p + y) * n_levels + level`` are sorted once, so for a
    threshold whose first level at or above it is i, the rows of cell c predicted negative are
    ``searchsorted(keys, c * n_levels + i) - start[c]``: one ``searchsorted`` of the levels and one of
    2 x n_patterns keys give the atoms (TN, FP, FN, TP per pattern), and the per-subgroup tables are
    the pattern masks times the atoms. The result equals ``confusion_counts(y_true, y_score >= t,
    subgroups)`` exactly, atoms included (so intervals work), for any t: below the smallest score
    every row is predicted positive, above the largest none is.

    Build it with :func:`threshold_counts` once per (score column, subgroups), and call :meth:`at`
    for each threshold (about a millisecond at 10^6 rows, against a pass over the rows), or
    :meth:`counts_at` for many thresholds at once (a threshold explorer: counts per subgroup at
    every level, or on a grid). The app should keep one per (data, score column, slice) and call
    ``.at(threshold)`` wherever it now calls ``confusion_counts(y_true, y_pred(score, threshold),
    subgroups)``.

    Attributes
    ----------
    names : list of str
        Subgroup labels, as ``Subgroups.names``.
    levels : ndarray of float, shape (n_levels,)
        The distinct scores, ascending.
    min_size : int
        Subgroups with fewer rows are flagged small.
    disjoint : bool
        True when the subgroups are disjoint and cover every row (``Subgroups.codes`` is set).
    member, background : ndarray of bool, shape (n_patterns, n_subgroups)
        The membership and background masks of each pattern.
    keys : ndarray of int64, shape (n_samples,)
        ``(2 * pattern + label) * n_levels + level`` of every row, sorted.
    start : ndarray of int64, shape (2 * n_patterns,)
        Position in `keys` of the first row of each (pattern, label) cell.
    size : ndarray of int64, shape (2 * n_patterns,)
        Rows in each (pattern, label) cell.
    """

    names: list
    levels: np.ndarray
    min_size: int
    disjoint: bool
    member: np.ndarray = field(repr=False)
    background: np.ndarray = field(repr=False)
    keys: np.ndarray = field(repr=False)
    start: np.ndarray = field(repr=False)
    size: np.ndarray = field(repr=False)

    @classmethod
    def compute(cls, y_true, y_score, subgroups, *, func: str = "threshold_counts") -> "ThresholdCounts":
        """Sort the scores once and count each (pattern, label) cell; see :func:`threshold_counts`."""
        y = as_binary(y_true, "y_true", func)
        score = as_scores(y_score, "y_score", func)
        check_length(score, len(y), "y_score", func)
        groups = as_subgroups(subgroups, len(y), func)
        codes, member, background = groups.patterns
        levels, level = np.unique(score, return_inverse=True)
        n_cells = 2 * member.shape[0]
        cell = 2 * codes.astype(np.int64) + y
        size = np.bincount(cell, minlength=n_cells).astype(np.int64)
        keys = np.sort(cell * len(levels) + level.reshape(-1))
        start = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64)
        return cls(list(groups.names), levels, groups.min_size, groups.codes is not None, member, background,
                   keys, start, size)

    def _atoms(self, thresholds: np.ndarray) -> np.ndarray:
        """Counts per (threshold, pattern, confusion cell), shape (n_thresholds, n_patterns, 4)."""
        first = np.searchsorted(self.levels, thresholds, side="left")  # levels below each threshold
        n_cells = len(self.size)
        queries = np.arange(n_cells, dtype=np.int64)[None, :] * len(self.levels) + first[:, None]
        negative = np.searchsorted(self.keys, queries) - self.start[None, :]  # (T, 2P): predicted negative
        negative = negative.reshape(len(thresholds), -1, 2)
        size = self.size.reshape(-1, 2)
        # Cells in the order of ConfusionCounts: TN, FP (label 0), FN, TP (label 1).
        return np.stack([negative[..., 0], size[None, :, 0] - negative[..., 0],
                         negative[..., 1], size[None, :, 1] - negative[..., 1]], axis=-1).astype(np.float64)

    def at(self, threshold: float) -> ConfusionCounts:
        """The confusion counts of the predictions ``y_score >= threshold``.

        Parameters
        ----------
        threshold : float
            Any number (not NaN); below the smallest score every row is predicted positive, above
            the largest none is.

        Returns
        -------
        ConfusionCounts
            Equal to ``confusion_counts(y_true, y_score >= threshold, subgroups)``, with its atoms.
        """
        _check_thresholds(np.array([threshold], dtype=np.float64), "ThresholdCounts.at")
        atoms = self._atoms(np.array([threshold], dtype=np.float64))[0]
        member, background = over_patterns(self.member, atoms), over_patterns(self.background, atoms)
        keep = atoms.sum(axis=1) > 0
        return ConfusionCounts(list(self.names), member, background, atoms.sum(axis=0), self.min_size,
                               disjoint=self.disjoint,
                               atoms=Atoms(atoms[keep], self.member[keep], self.background[keep]))

    def at_each(self, thresholds) -> ConfusionCounts:
        """The confusion counts when each subgroup's rows are predicted at their own threshold.

        Row i of subgroup g is predicted positive when ``y_score[i] >= thresholds[g]``. Every metric
        of the result (rates, disparities, performance, intervals) then shows the effect of
        per-subgroup thresholds, as the What-If Tool offered for live models (Hardt et al. 2016:
        group-specific thresholds can equalize odds). Only for disjoint subgroups that cover every
        row, where each row has exactly one threshold.

        Parameters
        ----------
        thresholds : mapping of str to float, or sequence of float of length n_subgroups
            A threshold for every subgroup, by name or in order; not NaN.

        Returns
        -------
        ConfusionCounts
            Equal to ``confusion_counts(y_true, y_pred, subgroups)`` with those predictions, atoms
            included (so intervals work).

        Raises
        ------
        ValueError
            If the subgroups overlap or leave rows out (``PER_SUBGROUP_MESSAGE``), or for a
            threshold of an unknown subgroup or a wrong number of thresholds.
        """
        values = subgroup_thresholds(self.names, self.disjoint, thresholds, "ThresholdCounts.at_each")
        k = len(self.names)
        # Disjoint subgroups: pattern p is subgroup p (``member`` is the identity), so subgroup g's
        # atoms are those of pattern g at threshold g.
        atoms = self._atoms(values)[np.arange(k), np.arange(k)]          # (k, 4)
        member = over_patterns(self.member, atoms)
        overall = atoms.sum(axis=0)
        keep = atoms.sum(axis=1) > 0
        return ConfusionCounts(list(self.names), member, overall[None, :] - member, overall, self.min_size,
                               disjoint=True, atoms=Atoms(atoms[keep], self.member[keep], self.background[keep]))

    def counts_at(self, thresholds=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Confusion counts per subgroup at many thresholds at once (for a threshold explorer).

        Parameters
        ----------
        thresholds : array-like of shape (n_thresholds,), optional
            Default: every level (``levels``), i.e. every distinct score as the threshold. Memory
            and time grow as n_thresholds x n_patterns: with untied scores at 10^6 rows pass a grid
            (e.g. ``numpy.linspace(0, 1, 101)``) instead.

        Returns
        -------
        thresholds : ndarray of shape (n_thresholds,)
        member, background : ndarray of shape (n_thresholds, n_subgroups, 4)
            TN, FP, FN, TP of each subgroup (and its background) at each threshold; row t is
            ``at(thresholds[t]).member`` (``.background``).
        overall : ndarray of shape (n_thresholds, 4)
        """
        thresholds = self.levels if thresholds is None else np.asarray(thresholds, dtype=np.float64).reshape(-1)
        _check_thresholds(thresholds, "ThresholdCounts.counts_at")
        atoms = np.moveaxis(self._atoms(thresholds), 0, 1)  # (n_patterns, n_thresholds, 4)
        member, background = (np.moveaxis(over_patterns(masks, atoms), 0, 1)
                              for masks in (self.member, self.background))
        return thresholds, member, background, atoms.sum(axis=0)


def subgroup_thresholds(names: list, disjoint: bool, thresholds, func: str) -> np.ndarray:
    """One threshold per subgroup, in `names` order, from a mapping by name or a sequence in order.

    Raises
    ------
    ValueError
        If the subgroups are not disjoint (``PER_SUBGROUP_MESSAGE``), for an unknown or missing
        subgroup, a wrong number of thresholds, or a NaN.
    """
    if not disjoint:
        raise ValueError(PER_SUBGROUP_MESSAGE)
    if isinstance(thresholds, Mapping):
        unknown = [name for name in thresholds if name not in names]
        if unknown:
            raise ValueError(f"Thresholds given for subgroups that do not exist: {unknown}. The subgroups are: {names}.")
        missing = [name for name in names if name not in thresholds]
        if missing:
            raise ValueError(f"Give a threshold for every subgroup; missing: {missing}.")
        values = np.array([float(thresholds[name]) for name in names])
    else:
        values = np.asarray(thresholds, dtype=np.float64).reshape(-1)
        if len(values) != len(names):
            raise ValueError(f"Give one threshold per subgroup ({len(names)}); got {len(values)}.")
    _check_thresholds(values, func)
    return values


def _check_thresholds(values: np.ndarray, func: str) -> None:
    """Thresholds must be numbers: NaN would silently predict no row positive."""
    if np.isnan(values).any():
        raise ValueError(f"{func}: a decision threshold is NaN; give a number (predictions are score >= threshold).")


def threshold_counts(y_true, y_score, subgroups) -> ThresholdCounts:
    """Sort one score column once, so that the confusion counts at any threshold cost array lookups.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Finite scores on any scale; predictions are ``y_score >= threshold``.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes

    Returns
    -------
    ThresholdCounts
        ``.at(t)`` is ``confusion_counts(y_true, y_score >= t, subgroups)`` (atoms included);
        ``.counts_at(thresholds)`` gives the per-subgroup counts at many thresholds at once.

    Raises
    ------
    ValueError
        For labels that are not 0/1, scores that are not finite numbers, or lengths that differ.

    Examples
    --------
    >>> tc = threshold_counts([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.9], ["a", "a", "b", "b"])
    >>> tc.at(0.5).member.tolist()  # a: TN, TP; b: FP, FN
    [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0]]
    """
    return ThresholdCounts.compute(y_true, y_score, subgroups)


# ============================================================================================
# Calibration counts
# ============================================================================================

Strategy = Literal["uniform", "quantile"]
STRATEGIES = ("uniform", "quantile")
# Each bin is split into this many equal-width sub-bins for the bootstrap (see CalibrationAtoms).
SUB_BINS = 4
CALIBRATION_NO_ATOMS_MESSAGE = (
    "{func} cannot compute intervals from CalibrationCounts built by hand: the bootstrap needs the "
    "counts per membership pattern, sub-bin and label. Tip: build them with calibration_counts(y_true, "
    "y_prob, subgroups)."
)


def uniform_edges(n_bins: int) -> np.ndarray:
    """Exact uniform edges ``arange(n_bins + 1) / n_bins``: edge i is the double nearest to i / n_bins.

    ``linspace(0, 1, n_bins + 1)`` computes ``i * (1 / n_bins)`` and stores 0.3 as
    0.30000000000000004 (likewise 0.6 and 0.7 for ten bins), so a score of exactly 0.3 would fall
    in the lower bin while a score of exactly 0.2 falls in the upper one. Dividing the integer i by
    `n_bins` rounds once, so a score written as the same decimal (``0.3 == 3 / 10``) sits exactly
    on its edge and goes to the upper bin.
    """
    return np.arange(n_bins + 1, dtype=np.float64) / n_bins


def bin_edges(y_prob: np.ndarray, n_bins: int, strategy: str) -> np.ndarray:
    """Bin edges over [0, 1]: exact uniform edges (:func:`uniform_edges`) or quantiles of the pooled scores."""
    if strategy == "uniform":
        return uniform_edges(n_bins)
    return np.quantile(y_prob, np.linspace(0.0, 1.0, n_bins + 1))


def bin_index(y_prob: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin of each score: bins are [low, high) except the last, which is closed (1.0 counts).

    Exactly ``searchsorted(edges[1:-1], y_prob, side="right")``. For uniform edges (scores in
    [0, 1]) the bin is first guessed as ``floor(y_prob * n_bins)``, which rounding can put one bin
    off, and then moved to the bin whose edges hold the score: a few passes over the rows instead of
    a binary search per row.
    """
    n_bins = len(edges) - 1
    if n_bins > 1 and np.array_equal(edges, uniform_edges(n_bins)):
        guess = np.minimum((y_prob * n_bins).astype(np.intp), n_bins - 1)
        guess -= y_prob < edges[guess]
        guess += (guess < n_bins - 1) & (y_prob >= edges[guess + 1])
        return guess
    return np.searchsorted(edges[1:-1], y_prob, side="right").astype(np.intp)


def sub_bin_edges(edges: np.ndarray) -> np.ndarray:
    """The inner edges of each calibration bin's ``SUB_BINS`` equal parts: shape (n_bins, SUB_BINS - 1).

    ``low + k * width / SUB_BINS`` for k = 1 .. SUB_BINS - 1, as float64; +inf in a bin of no width (its
    rows all fall in part 0). Every engine compares scores with these same numbers, so a score on a
    part's edge falls in the same part everywhere (a formula such as ``floor((p - low) / width * 4)``
    can be evaluated in another order by an engine and round the other way).
    """
    low, width = edges[:-1, None], np.diff(edges)[:, None]
    inner = low + np.arange(1, SUB_BINS) * width / SUB_BINS
    return np.where(width > 0, inner, np.inf)


def sub_bin_index(y_prob: np.ndarray, cell: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Sub-bin of each score within its bin: how many of the bin's :func:`sub_bin_edges` it reaches.

    With `cell` the bins of :func:`bin_index`, a number in 0 .. SUB_BINS - 1 (0 in a bin of no width):
    ``Σ_k [y_prob >= e_k]``, the same comparisons the engines' SQL makes (``_sql.sub_bin``).
    """
    inner = sub_bin_edges(edges)[cell]          # (n, SUB_BINS - 1)
    return (y_prob[:, None] >= inner).sum(axis=1).astype(np.intp)


@dataclass(frozen=True)
class CalibrationAtoms:
    """What the calibration bootstrap resamples: counts per (membership pattern, bin, sub-bin, label).

    Cell c of a row is ``(bin * SUB_BINS + sub_bin) * 2 + label``. Each cell keeps its row count (in
    ``atoms``) and the mean predicted probability and mean squared error of its rows, so a table of
    resampled counts rebuilds every per-bin sum as count x mean.

    Attributes
    ----------
    atoms : _bootstrap.Atoms
        Row counts of shape (n_patterns, n_bins * SUB_BINS * 2) and the subgroup masks of each pattern.
    mean_p : ndarray of shape (n_patterns, n_cells)
        Mean of y_prob over the rows of each cell (0 for an empty cell).
    mean_sq : ndarray of shape (n_patterns, n_cells)
        Mean of (y_prob - y_true) ** 2 over the rows of each cell (0 for an empty cell).
    n_bins : int
    """

    atoms: Atoms
    mean_p: np.ndarray
    mean_sq: np.ndarray
    n_bins: int

    @classmethod
    def of(cls, subgroups, y_prob: np.ndarray, y_true: np.ndarray, cell: np.ndarray, edges: np.ndarray):
        """Atoms of rows with scores `y_prob`, labels `y_true` (0/1) and bins `cell`, shape (n_samples,)."""
        return cls._count(subgroups, y_prob, y_true, cell, edges)[0]

    @classmethod
    def _count(cls, subgroups, y_prob: np.ndarray, y_true: np.ndarray, cell: np.ndarray, edges: np.ndarray):
        """The atoms, and the sums of y_prob and of squared errors per (pattern, cell) behind their means.

        One atom index per row and three ``bincount``s over (pattern, atom): row counts, sums of
        y_prob and sums of (y_prob - y_true) ** 2, for the patterns that have rows.
        """
        n_bins = len(edges) - 1
        n_cells = n_bins * SUB_BINS * 2
        atom = (cell * SUB_BINS + sub_bin_index(y_prob, cell, edges)) * 2 + y_true.astype(np.intp)
        codes, member, background = subgroups.patterns
        n_patterns = member.shape[0]
        index = codes * n_cells + atom
        count, sum_p, sum_sq = (
            np.bincount(index, weights=w, minlength=n_patterns * n_cells).astype(np.float64).reshape(n_patterns, -1)
            for w in (None, y_prob, (y_prob - y_true) ** 2))
        keep = count.sum(axis=1) > 0
        count, sum_p, sum_sq = count[keep], sum_p[keep], sum_sq[keep]
        return cls.of_sums(Atoms(count, member[keep], background[keep]), sum_p, sum_sq, n_bins), sum_p, sum_sq

    @classmethod
    def of_sums(cls, atoms: Atoms, sum_p: np.ndarray, sum_sq: np.ndarray, n_bins: int) -> "CalibrationAtoms":
        """The atoms with their cells' means, from the sums of y_prob and of squared errors per (pattern, cell)
        (shape of ``atoms.counts``); an empty cell's means are 0."""
        count = atoms.counts
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_p, mean_sq = (np.where(count > 0, x / np.where(count > 0, count, 1.0), 0.0) for x in (sum_p, sum_sq))
        return cls(atoms, mean_p, mean_sq, n_bins)

    def replicates(self, n_boot: int, rng: np.random.Generator):
        """Blocks of resampled cell counts (see :meth:`_bootstrap.Atoms.replicates`)."""
        return self.atoms.replicates(n_boot, rng)

    def calibrated(self, n_draws: int, rng: np.random.Generator):
        """Yield blocks of (member, background, overall) calibration sums under perfect calibration.

        Each (pattern, bin, sub-bin) keeps its rows and their mean predicted probability p̄; its
        labels are drawn anew as Binomial(rows, p̄), the sum of the rows' y* ~ Bernoulli(p) with
        the scores of a sub-bin taken as equal (a sub-bin spans 1 / ``SUB_BINS`` of its bin). So
        every subgroup, background and bin keeps its size and its scores, and its labels are what
        a perfectly calibrated model would give them: the calibration errors of these tables are
        the null distribution of the errors at the data's own group sizes and bins.

        Parameters
        ----------
        n_draws : int
            Draws of labels, in blocks of at most ``_bootstrap.BLOCK_CELLS`` cells.
        rng : numpy Generator

        Returns
        -------
        generator of tuple of ndarray
            Blocks shaped as :meth:`tables` returns them with a leading draw axis.
        """
        c = self.atoms.counts
        n_patterns = c.shape[0]
        rows = c.reshape(n_patterns, -1, 2).sum(axis=-1).ravel()          # per (pattern, bin, sub-bin)
        sum_p = (c * self.mean_p).reshape(n_patterns, -1, 2).sum(axis=-1).ravel()
        cells = np.flatnonzero(rows > 0)                                    # only cells with rows are drawn
        trials, prob = rows[cells].astype(np.int64), np.clip(sum_p[cells] / rows[cells], 0.0, 1.0)
        member, background, overall = self.tables()   # rows and scores stay; only the labels' sums are drawn
        masks = [self.atoms.member.astype(np.float64), self.atoms.background.astype(np.float64)]
        block = max(1, BLOCK_CELLS // max(1, rows.size))
        done = 0
        while done < n_draws:
            size = min(block, n_draws - done)
            positives = np.zeros((size, rows.size))
            positives[:, cells] = rng.binomial(trials, prob, size=(size, len(cells)))
            per_bin = positives.reshape(size, n_patterns, self.n_bins, SUB_BINS).sum(axis=-1)   # (size, P, bins)
            flat = np.swapaxes(per_bin, 1, 2)                                                    # (size, bins, P)
            out = []
            for observed, labels in ((member, np.swapaxes(flat @ masks[0], 1, 2)),
                                     (background, np.swapaxes(flat @ masks[1], 1, 2)),
                                     (overall, per_bin.sum(axis=1))):
                stats = np.repeat(observed[None], size, axis=0)
                stats[..., 2, :] = labels
                out.append(stats)
            yield tuple(out)
            done += size

    def tables(self, counts: Optional[np.ndarray] = None):
        """(member, background, overall) calibration sums from cell counts of shape (..., n_patterns, n_cells).

        Returns arrays of shape (..., n_subgroups, 4, n_bins), (..., n_subgroups, 4, n_bins) and
        (..., 4, n_bins): count, sum of y_prob (count x cell mean), sum of y_true, sum of squared
        errors (count x cell mean), as in :class:`CalibrationCounts`.
        """
        c = self.atoms.counts if counts is None else counts
        lead, n_patterns = c.shape[:-2], c.shape[-2]
        cells = (*lead, n_patterns, self.n_bins, SUB_BINS * 2)
        # Fold the cells of each bin first (count, count x mean p, positives, count x mean squared error),
        # then sum patterns into subgroups with one matrix product: (..., 4 * n_bins, P) @ (P, k).
        per_bin = np.stack([c.reshape(cells).sum(axis=-1), (c * self.mean_p).reshape(cells).sum(axis=-1),
                            c.reshape(cells)[..., 1::2].sum(axis=-1), (c * self.mean_sq).reshape(cells).sum(axis=-1)],
                           axis=-2)  # (..., P, 4, n_bins)
        flat = np.moveaxis(per_bin.reshape(*lead, n_patterns, 4 * self.n_bins), -1, -2)  # (..., 4 * n_bins, P)
        shape = (*lead, 4, self.n_bins, -1)
        member = np.moveaxis((flat @ self.atoms.member.astype(np.float64)).reshape(shape), -1, -3)
        background = np.moveaxis((flat @ self.atoms.background.astype(np.float64)).reshape(shape), -1, -3)
        return member, background, per_bin.sum(axis=-3)


@dataclass(frozen=True)
class CalibrationCounts:
    """Per-(subgroup, bin) sums behind every calibration number.

    Attributes
    ----------
    names : list of str
    edges : ndarray of shape (n_bins + 1,)
    strategy : {'uniform', 'quantile'}
    member, background : ndarray of shape (n_subgroups, 4, n_bins)
        For each subgroup (or its background) and bin: count, sum of y_prob, sum of y_true,
        sum of (y_prob - y_true) ** 2.
    overall : ndarray of shape (4, n_bins)
    min_size : int
        Subgroups with fewer rows are flagged small.
    atoms : CalibrationAtoms or None
        What the bootstrap resamples (set by :meth:`compute`; counts built by hand have none and
        cannot give intervals).
    """

    names: list
    edges: np.ndarray
    strategy: str
    member: np.ndarray
    background: np.ndarray
    overall: np.ndarray
    min_size: int
    atoms: object = field(default=None, repr=False, compare=False)

    @classmethod
    def compute(cls, y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: str = "uniform",
                func: str = "calibration_counts") -> "CalibrationCounts":
        """Bin the scores once and take the sums; see :func:`calibration_counts`."""
        y = as_binary(y_true, "y_true", func).astype(np.float64)
        p = as_probabilities(y_prob, "y_prob", func)
        check_length(p, len(y), "y_prob", func)
        n_bins = check_int(n_bins, 1, "n_bins", func)
        check_option(strategy, STRATEGIES, "strategy", func)
        groups = as_subgroups(subgroups, len(y), func)
        edges = bin_edges(p, n_bins, strategy) if len(p) else uniform_edges(n_bins)
        # One bin (and sub-bin) index per row, three bincounts over (membership pattern, atom); every
        # per-(subgroup, bin) sum is then a sum over atoms and patterns (pattern masks x sums).
        atoms, sum_p, sum_sq = CalibrationAtoms._count(groups, p, y, bin_index(p, edges), edges)
        return cls.of_atoms(list(groups.names), edges, strategy, atoms, sum_p, sum_sq, groups.min_size)

    @classmethod
    def of_atoms(cls, names: list, edges: np.ndarray, strategy: str, atoms: CalibrationAtoms, sum_p: np.ndarray,
                 sum_sq: np.ndarray, min_size: int) -> "CalibrationCounts":
        """The sums per (subgroup, bin) from the atoms' counts and the sums behind their means, atoms kept.

        `sum_p` and `sum_sq` (shape (n_patterns, n_cells), as ``atoms.atoms.counts``) are the sums of
        y_prob and of (y_prob - y_true) ** 2 per (pattern, cell); summing them, not count x mean,
        keeps the tables the sums of the rows.
        """
        count = atoms.atoms.counts
        cells = (count.shape[0], len(edges) - 1, SUB_BINS * 2)
        per_pattern = np.stack([count.reshape(cells).sum(axis=-1), sum_p.reshape(cells).sum(axis=-1),
                                count.reshape(cells)[..., 1::2].sum(axis=-1), sum_sq.reshape(cells).sum(axis=-1)],
                               axis=1)  # (n_patterns, 4, n_bins): count, sum of p, sum of y, sum of squared errors
        member, background = (over_patterns(masks, per_pattern)
                              for masks in (atoms.atoms.member, atoms.atoms.background))
        return cls(list(names), edges, strategy, member, background, per_pattern.sum(axis=0), min_size, atoms=atoms)

    @property
    def n_bins(self) -> int:
        """Number of bins."""
        return len(self.edges) - 1

    @property
    def sizes(self) -> np.ndarray:
        """Rows per subgroup."""
        return self.member[:, 0, :].sum(axis=1)

    def _small(self) -> tuple[np.ndarray, np.ndarray]:
        """Per subgroup: small (fewer rows than ``min_size``) and the reason ('' when not small)."""
        sizes = self.sizes
        small = sizes < self.min_size
        reasons = np.array([f"{int(n):,} rows < minimum {self.min_size}" if s else "" for n, s in zip(sizes, small)],
                           dtype=object)
        return small, reasons

    def _calibration_atoms(self, func: str) -> CalibrationAtoms:
        if self.atoms is None:
            raise ValueError(CALIBRATION_NO_ATOMS_MESSAGE.format(func=func))
        return self.atoms

    def reliability_table(self, ci: Optional[float] = None) -> pd.DataFrame:
        """Tidy reliability-diagram table; see :func:`reliability_diagram`.

        Parameters
        ----------
        ci : float in (0, 1) or None, default=None
            With a level, ``fraction_positive_ci_low`` / ``fraction_positive_ci_high`` (the Wilson
            interval of positives / count in the bin; NaN for an empty bin) follow
            ``fraction_positive``.

        Returns
        -------
        DataFrame with n_subgroups * n_bins rows and columns ``subgroup, bin, bin_lower,
        bin_upper, count, mean_predicted, fraction_positive`` (and the two interval columns,
        with the level in ``attrs["ci"]``).

        Raises
        ------
        ValueError
            If `ci` is not None or a level strictly between 0 and 1 (``CI_MESSAGE``).
        """
        level = check_ci(ci, "reliability_diagram")
        k, b = len(self.names), self.n_bins
        count = self.member[:, 0, :]
        positives = self.member[:, 2, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_pred = np.where(count > 0, self.member[:, 1, :] / count, np.nan)
            frac_pos = np.where(count > 0, positives / count, np.nan)
        columns = {
            "subgroup": np.repeat(np.asarray(self.names, dtype=object), b),
            "bin": np.tile(np.arange(b), k),
            "bin_lower": np.tile(self.edges[:-1], k),
            "bin_upper": np.tile(self.edges[1:], k),
            "count": count.reshape(-1).astype(np.int64),
            "mean_predicted": mean_pred.reshape(-1),
            "fraction_positive": frac_pos.reshape(-1),
        }
        if level is not None:
            # The labels are 0/1, so the sum of labels in a bin is an integer count (rounding guards
            # against float sums).
            low, high = wilson_interval(np.rint(positives).reshape(-1), count.reshape(-1), level)
            columns["fraction_positive_ci_low"] = low
            columns["fraction_positive_ci_high"] = high
        table = pd.DataFrame(columns)
        if level is not None:
            table.attrs["ci"] = level  # the level, for chart hovers
        return table

    def error_table(self, *, min_per_group: int = 5, ci: Optional[float] = None, n_boot: int = 1000,
                    random_state=0) -> pd.DataFrame:
        """Per-subgroup ECE, MCE and Brier score, with bootstrap intervals when `ci` is a level.

        The estimates are those of :func:`calibration_errors`, from the exact per-bin sums.

        What is resampled (with `ci`): rows are never touched. Every row falls in one *atom*, a
        (membership pattern, bin, sub-bin, label) cell, where the membership pattern says which
        subgroups the row belongs to (and is background of) and each bin is split into
        ``SUB_BINS`` = 4 equal-width sub-bins. For each pattern with n_p rows a replicate draws new
        cell counts from Multinomial(n_p, counts_p / n_p): exactly the cell counts of a resample of
        that pattern's rows with replacement. The bootstrap is therefore stratified by pattern,
        every subgroup keeps its size, and a tiny subgroup is never resampled away. All replicates
        come from one multinomial draw per block and every error is computed on arrays with a
        leading replicate axis.

        The approximation: a replicate's sum of y_prob in a cell is (resampled count) x (the
        cell's mean y_prob), and its sum of squared errors likewise (count x the cell's mean
        squared error). The sum of labels is exact (the label is part of the cell). A row-level
        bootstrap would add the spread of y_prob within a cell: at most (width / 2)^2 per row for a
        sub-bin of width w (w = 0.025 for ten uniform bins: 1.6e-4), against the label's variance
        p (1 - p) per row (0.09 at p = 0.1), so the intervals differ from a row-level bootstrap's
        by well under 1 % of their width for uniform bins; wide quantile bins keep the most
        spread. The tests check the intervals against a brute-force row-level bootstrap.

        Each interval is the percentile interval of the replicates, widened where needed to
        contain the estimate: the bootstrap distribution of an ECE or MCE lies above the estimate
        when bins hold few rows (each replicate adds noise to every bin's gap, and |gap| grows with
        noise), so a plain percentile interval could miss its own estimate.

        Parameters
        ----------
        min_per_group : int >= 1, default=5
            A subgroup with fewer rows gets NaN ECE and MCE (and NaN intervals) with a note.
        ci : float in (0, 1) or None, default=None
            Confidence level, e.g. 0.95; None adds no interval columns.
        n_boot : int >= 100, default=1000
            Bootstrap replicates.
        random_state : int, numpy Generator or None, default=0
            Seed of the bootstrap: the same seed gives the same intervals.

        Returns
        -------
        DataFrame, one row per subgroup: ``subgroup, size, n_positive, n_negative, small,
        small_reason, ece, mce, brier_score, note``; with `ci`, each of ``ece, mce, brier_score``
        is followed by ``<col>_ci_low, <col>_ci_high``, and ``attrs`` holds ``ci`` (the level),
        ``n_boot`` and ``n_boot_undefined`` (per column, the largest number of replicates in
        which a subgroup's value was undefined).

        Raises
        ------
        ValueError
            For a bad `min_per_group`, `ci`, `n_boot` or `random_state`, or with `ci` on counts
            built by hand (``NO_ATOMS_MESSAGE``).
        """
        return error_table_of(self, min_per_group=min_per_group, ci=ci, n_boot=n_boot, random_state=random_state)

    def disparity(self, *, threshold: Optional[float] = None, min_per_group: int = 5, distance_measure: str = "diff",
                  reduction: Optional[str] = "max", reference: str = "rest", include_small: bool = False,
                  ci: Optional[float] = None, n_boot: int = 1000, random_state=0, adjust: Optional[str] = None,
                  debias: bool = True):
        """ECE disparity, with intervals and the policy verdict; see :func:`calibration_disparity`."""
        return calibration_disparity_of(self, threshold=threshold, min_per_group=min_per_group,
                                        distance_measure=distance_measure, reduction=reduction, reference=reference,
                                        include_small=include_small, ci=ci, n_boot=n_boot,
                                        random_state=random_state, adjust=adjust, debias=debias)


def calibration_counts(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform"):
    """Per-(subgroup, bin) sums behind every calibration number, computed once.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
        Exact uniform edges ``arange(n_bins + 1) / n_bins``, or quantiles of the pooled scores.

    Returns
    -------
    CalibrationCounts
        Call ``.reliability_table()``, ``.error_table()`` or ``.disparity(...)``; with ``ci=``
        these resample its ``atoms`` (counts per membership pattern, bin, sub-bin and label)
        without touching the rows again.

    Raises
    ------
    ValueError
        If a score is outside [0, 1] or an option is invalid.
    """
    return CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy)



# ============================================================================================
# Class counts
# ============================================================================================

DIMENSION_MESSAGE = (
    "The '{param}' parameter of {func} must be one-dimensional (one class value per row). "
    "Got an array of shape {shape} instead."
)
CLASS_LENGTH_MESSAGE = (
    "{func}: '{param}' has {got} rows but 'truth' has {expected}. "
    "Tip: pass arrays that describe the same rows, in the same order."
)
LABELS_TYPE_MESSAGE = (
    "The 'labels' parameter of {func} must be a list of class values. Got {got!r} instead. "
    "Tip: for a single class write labels=[{got!r}]."
)
LABELS_EMPTY_MESSAGE = "The 'labels' parameter of {func} must list at least one class. Got an empty list instead."
LABELS_DUPLICATE_MESSAGE = (
    "The 'labels' parameter of {func} must list each class once. Got {dups} more than once."
)
SUBGROUPS_TYPE_MESSAGE = (
    "The 'subgroups' parameter of {func} must be a list of subgroup names. Got {got!r} instead. "
    "Tip: write subgroups=[{got!r}, ...]."
)
SUBGROUPS_UNKNOWN_MESSAGE = (
    "The 'subgroups' parameter of {func} names subgroups that are not in the data: {unknown}. "
    "Subgroups: {names}."
)
SUBGROUPS_DUPLICATE_MESSAGE = (
    "The 'subgroups' parameter of {func} must name each subgroup once. Got {dups} more than once."
)
CLASS_NO_ATOMS_MESSAGE = (
    "{func} cannot compute intervals from ClassCounts built by hand: the bootstrap needs the counts per "
    "membership pattern. Tip: build them with class_counts(truth, prediction, subgroups)."
)


def _as_values(values: Any, param: str, func: str):
    """1-D class values: numpy arrays and pandas objects as given (their codes are read, not their text).

    Lists and other sequences become object arrays, so ``[1, "a"]`` keeps an int and a string.
    """
    if not isinstance(values, (np.ndarray, pd.Series, pd.Index, pd.api.extensions.ExtensionArray)):
        values = np.asarray(values, dtype=object)
    if np.ndim(values) != 1:
        raise ValueError(DIMENSION_MESSAGE.format(param=param, func=func, shape=np.shape(values)))
    return values


def _objects(values: Sequence) -> np.ndarray:
    """`values` as a 1-D object array, element by element (tuples stay elements)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _factorize(values) -> tuple[np.ndarray, np.ndarray]:
    """(code of each row, -1 when missing; the distinct values as objects, in order of appearance).

    ``pandas.factorize`` hashes the values in their own dtype (integer codes of a categorical,
    Arrow dictionary encoding of strings), never converting every row to a Python object.
    """
    codes, uniques = pd.factorize(values.array if isinstance(values, pd.Series) else values)
    return codes, _objects(np.asarray(uniques, dtype=object))


def _sorted_labels(values: np.ndarray) -> list:
    """Distinct non-missing values, sorted (by their text when the types cannot be compared)."""
    uniques = pd.unique(values[~pd.isna(values)]) if len(values) else []
    try:
        return sorted(uniques)
    except TypeError:
        return sorted(uniques, key=str)


def _check_labels(labels: Any, func: str) -> list:
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray, pd.Index, pd.Series)):
        raise TypeError(LABELS_TYPE_MESSAGE.format(func=func, got=labels))
    labels = list(labels)
    if not labels:
        raise ValueError(LABELS_EMPTY_MESSAGE.format(func=func))
    index = pd.Index(labels, dtype=object)
    if not index.is_unique:
        dups = ", ".join(repr(v) for v in pd.unique(index[index.duplicated()].to_numpy(dtype=object)))
        raise ValueError(LABELS_DUPLICATE_MESSAGE.format(func=func, dups=dups))
    return labels


def _n_rows(obj: Any) -> int:
    if isinstance(obj, Subgroups):
        return obj.n_samples
    return len(obj) if hasattr(obj, "__len__") else len(np.asarray(obj))


@dataclass(frozen=True)
class _Rows:
    """Encoded rows: class codes (-1 = missing / not among the labels), subgroups and labels."""

    truth: np.ndarray
    prediction: np.ndarray
    t_code: np.ndarray
    p_code: np.ndarray
    groups: Subgroups
    labels: list

    @property
    def included(self) -> np.ndarray:
        return (self.t_code >= 0) & (self.p_code >= 0)


def _encode(truth, prediction, protected, labels, func: str) -> _Rows:
    t = _as_values(truth, "truth", func)
    p = _as_values(prediction, "prediction", func)
    for param, obj in (("prediction", p), ("protected", protected)):
        if _n_rows(obj) != len(t):
            raise ValueError(CLASS_LENGTH_MESSAGE.format(func=func, param=param, got=_n_rows(obj), expected=len(t)))
    groups = as_subgroups(protected, len(t), func)
    # Each column is factorized once (hashing in its own dtype); the labels are matched against its
    # few distinct values, and every row's class is then a lookup of its code.
    (t_rows, t_values), (p_rows, p_values) = _factorize(t), _factorize(p)
    if labels is None:
        labels = _sorted_labels(np.concatenate([t_values, p_values]))
    else:
        labels = _check_labels(labels, func)
    index = pd.Index(_objects(labels), dtype=object)
    # Missing values (code -1) are never a class, even when a label compares equal to them.
    t_code, p_code = (np.append(index.get_indexer(values), -1)[rows]
                      for rows, values in ((t_rows, t_values), (p_rows, p_values)))
    return _Rows(t, p, t_code, p_code, groups, labels)


# --------------------------------------------------------------------------------------------
# The sufficient statistic
# --------------------------------------------------------------------------------------------


def _divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _scores_of(member: np.ndarray) -> dict:
    """Per-class counts and scores from confusion matrices of shape (..., n_subgroups, K, K).

    Returns arrays of shape (..., n_subgroups, K) under ``n_true, n_predicted, tp, recall,
    precision, fscore``; any leading axes (bootstrap replicates) are kept.
    """
    tp = np.diagonal(member, axis1=-2, axis2=-1)
    n_true = member.sum(axis=-1)
    n_pred = member.sum(axis=-2)
    return {"n_true": n_true, "n_predicted": n_pred, "tp": tp, "recall": _divide(tp, n_true),
            "precision": _divide(tp, n_pred), "fscore": _divide(2 * tp, n_true + n_pred)}


@dataclass(frozen=True)
class ClassCounts:
    """Per-subgroup confusion matrices of a (multi-class) classifier, behind every class-wise score.

    Build it with :func:`class_counts`; then call :meth:`table` for per-class recall, precision
    and F-score per subgroup, or :meth:`unweighted_average_bias` with any metric, subgroups and
    reduction, without touching the rows again.

    Attributes
    ----------
    names : list of str, length n_subgroups
        Subgroup labels, in ``Subgroups.names`` order.
    labels : list, length n_classes
        The classes, in the order of the matrices' rows and columns.
    member : ndarray of float, shape (n_subgroups, n_classes, n_classes)
        ``member[g, i, j]``: rows of subgroup g whose true class is ``labels[i]`` and whose
        predicted class is ``labels[j]``.
    overall : ndarray of float, shape (n_classes, n_classes)
        The same over all rows.
    excluded : ndarray of float, shape (n_subgroups,)
        Rows of each subgroup left out because their truth or prediction is missing or not among
        `labels`.
    n_excluded : int
        Rows left out in total (counted once even when subgroups overlap).
    min_size : int
        Subgroups with fewer counted rows are flagged small.
    atoms : _bootstrap.Atoms or None
        Counted rows per (membership pattern, confusion cell ``t * K + p``): what the bootstrap
        resamples (set by :func:`class_counts`; counts built by hand have none and cannot give
        intervals).
    """

    names: list
    labels: list
    member: np.ndarray
    overall: np.ndarray
    excluded: np.ndarray
    n_excluded: int
    min_size: int
    atoms: object = field(default=None, repr=False, compare=False)

    @classmethod
    def _from_rows(cls, rows: _Rows) -> "ClassCounts":
        k = len(rows.labels)
        cell = np.where(rows.included, rows.t_code * k + rows.p_code, k * k).astype(np.intp)
        full = Atoms.of(rows.groups, cell, k * k + 1)  # the last cell: rows left out
        member, _, overall = full.tables()
        names = list(rows.groups.names)
        # The bootstrap resamples counted rows only: each pattern keeps its number of counted rows.
        counted = full.counts[:, :k * k]
        keep = counted.sum(axis=1) > 0
        atoms = Atoms(counted[keep], full.member[keep], full.background[keep])
        return cls(names, list(rows.labels), member[:, :k * k].reshape(len(names), k, k),
                   overall[:k * k].reshape(k, k), member[:, k * k], int(overall[k * k]), rows.groups.min_size,
                   atoms=atoms)

    @property
    def sizes(self) -> np.ndarray:
        """Counted rows per subgroup, shape (n_subgroups,)."""
        return self.member.sum(axis=(1, 2))

    @property
    def small(self) -> np.ndarray:
        """Flag per subgroup: fewer counted rows than ``min_size``."""
        return self.sizes < self.min_size

    def scores(self) -> dict:
        """Per-class counts and scores, each an array of shape (n_subgroups, n_classes).

        Keys: ``n_true`` (TP + FN), ``n_predicted`` (TP + FP), ``tp``, ``recall``,
        ``precision``, ``fscore``.
        """
        return _scores_of(self.member)

    def table(self, ci: Optional[float] = None, *, n_boot: int = 1000, random_state=0) -> pd.DataFrame:
        """Tidy per-(subgroup, class) table of counts, recall, precision and F-score.

        Parameters
        ----------
        ci : float in (0, 1) or None, default=None
            Confidence level of the intervals. Recall TP / (TP + FN) and precision TP / (TP + FP)
            are proportions and get Wilson's score interval from those counts; the F-score
            2 TP / (2 TP + FP + FN) is not a proportion of rows and gets the percentile interval of
            a stratified multinomial bootstrap of the confusion cells (see
            :meth:`unweighted_average_bias`). None adds no interval columns.
        n_boot : int >= 100, default=1000
            Bootstrap replicates (F-score intervals).
        random_state : int, numpy Generator or None, default=0
            Seed of the bootstrap: the same seed gives the same intervals.

        Returns
        -------
        DataFrame with one row per (subgroup, class), subgroups in ``names`` order and classes in
        ``labels`` order; columns ``subgroup, class, size, n_true, n_predicted, tp, recall,
        precision, fscore, small, small_reason, note``. ``size`` is the subgroup's counted rows;
        ``small_reason`` says why a subgroup is small; ``note`` says why a score is NaN. With
        `ci`, each of ``recall, precision, fscore`` is followed by ``<score>_ci_low,
        <score>_ci_high`` (NaN where the score is undefined), and ``attrs["ci"]`` holds the level.

        Raises
        ------
        ValueError
            If `ci`, `n_boot` or `random_state` is invalid, or the counts were built by hand
            (``NO_ATOMS_MESSAGE``) and `ci` is given.
        """
        func = "ClassCounts.table"
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        if level is None:
            return self._table()
        reps = self._replicates(("fscore",), n_boot, rng, func)["fscore"]
        return self._table(level, percentile_interval(reps, level)[:2])

    def _table(self, level: Optional[float] = None, fscore_interval=None) -> pd.DataFrame:
        k, c = len(self.names), len(self.labels)
        s = self.scores()
        notes = np.full((k, c), "", dtype=object)
        for key, why in (("recall", "recall undefined: class never true here"),
                         ("precision", "precision undefined: class never predicted here"),
                         ("fscore", "fscore undefined: class neither true nor predicted here")):
            notes = np.where(np.isnan(s[key]), np.where(notes == "", why, notes + "; " + why), notes)
        sizes = self.sizes
        reasons = np.array([f"{int(n):,} rows < minimum {self.min_size}" if n < self.min_size else ""
                            for n in sizes], dtype=object)
        columns = {
            "subgroup": np.repeat(np.asarray(self.names, dtype=object), c),
            "class": pd.Series(np.tile(np.asarray(self.labels, dtype=object), k), dtype=object).infer_objects(),
            "size": np.repeat(sizes, c).astype(np.int64),
            "n_true": s["n_true"].reshape(-1).astype(np.int64),
            "n_predicted": s["n_predicted"].reshape(-1).astype(np.int64),
            "tp": s["tp"].reshape(-1).astype(np.int64),
        }
        bounds = {}
        if level is not None:
            bounds["recall"] = wilson_interval(s["tp"], s["n_true"], level)
            bounds["precision"] = wilson_interval(s["tp"], s["n_predicted"], level)
            bounds["fscore"] = fscore_interval
        for key in METRICS:
            columns[key] = s[key].reshape(-1)
            if key in bounds:
                low, high = bounds[key]
                defined = ~np.isnan(s[key])
                columns[f"{key}_ci_low"] = np.where(defined, low, np.nan).reshape(-1)
                columns[f"{key}_ci_high"] = np.where(defined, high, np.nan).reshape(-1)
        columns.update({"small": np.repeat(self.small, c), "small_reason": np.repeat(reasons, c),
                        "note": notes.reshape(-1)})
        table = pd.DataFrame(columns)
        if level is not None:
            table.attrs["ci"] = level
        return table

    def _atoms(self, func: str) -> Atoms:
        if self.atoms is None:
            raise ValueError(CLASS_NO_ATOMS_MESSAGE.format(func=func))
        return self.atoms

    def _replicates(self, metrics: Sequence[str], n_boot: int, rng: np.random.Generator, func: str) -> dict:
        """Bootstrap replicates of per-(subgroup, class) scores: metric -> array (n_boot, n_subgroups, K).

        Stratified multinomial over the counted rows of each membership pattern (see
        ``_bootstrap.Atoms``): all replicates are drawn and scored as arrays, never in a loop.
        """
        atoms = self._atoms(func)
        k, c = len(self.names), len(self.labels)
        if atoms.counts.size == 0:  # no counted row: every score is undefined in every replicate
            return {m: np.full((n_boot, k, c), np.nan) for m in metrics}

        def stat(member, background, overall):
            s = _scores_of(member.reshape(member.shape[0], k, c, c))
            return np.stack([s[m] for m in metrics], axis=1)

        out = replicate_stat(atoms, stat, n_boot, rng)
        return {m: out[:, i] for i, m in enumerate(metrics)}

    def select(self, subgroups: Optional[Sequence[Any]] = None, *,
               func: str = "unweighted_average_bias") -> list[int]:
        """Indices of the named subgroups, in the order given (all, in ``names`` order, when None).

        A name matches a subgroup label exactly or by its text (``1`` matches ``"1"``).

        Raises
        ------
        TypeError
            If `subgroups` is a single string.
        ValueError
            If a name is unknown or repeated.
        """
        if subgroups is None:
            return list(range(len(self.names)))
        if isinstance(subgroups, (str, bytes)):
            raise TypeError(SUBGROUPS_TYPE_MESSAGE.format(func=func, got=subgroups))
        position = {name: i for i, name in enumerate(self.names)}
        chosen, unknown = [], []
        for s in subgroups:
            key = s if s in position else _value_label(s)
            (chosen if key in position else unknown).append(position.get(key, s))
        if unknown:
            shown = ", ".join(map(repr, self.names[:20])) + (", ..." if len(self.names) > 20 else "")
            raise ValueError(SUBGROUPS_UNKNOWN_MESSAGE.format(
                func=func, unknown=", ".join(map(repr, unknown)), names=shown))
        if len(set(chosen)) != len(chosen):
            dups = sorted({self.names[i] for i in chosen if chosen.count(i) > 1})
            raise ValueError(SUBGROUPS_DUPLICATE_MESSAGE.format(func=func, dups=", ".join(map(repr, dups))))
        return chosen

    def unweighted_average_bias(self, *, metric: str = "fscore", reduction: Union[str, Callable] = "std",
                                subgroups: Optional[Sequence[Any]] = None, include_small: bool = False,
                                ci: Optional[float] = None, n_boot: int = 1000,
                                random_state=0) -> "UnweightedAverageBiasResult":
        """Unweighted average bias from the counts; see :func:`unweighted_average_bias`.

        Here `metric` is one of ``'recall'``, ``'precision'``, ``'fscore'`` (a metric callable
        needs the rows; pass it to :func:`unweighted_average_bias`). `ci`, `n_boot` and
        `random_state` give intervals as described there.
        """
        func = "ClassCounts.unweighted_average_bias"
        check_option(metric, METRICS, "metric", func)
        check_reduction(reduction, func)
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        if level is not None and callable(reduction):
            raise ValueError(CALLABLE_CI_MESSAGE.format(func=func, what="reduction"))
        order = self.select(subgroups, func=func)
        return unweighted_average_bias_of(self, metric, reduction, order, include_small, level, n_boot, rng, func)


def class_counts(truth, prediction, subgroups, *, labels: Optional[Sequence[Any]] = None) -> ClassCounts:
    """Per-subgroup K x K confusion matrices (true class x predicted class).

    The sufficient statistic of class-wise bias: one crosstab of the cell ``t * K + p``, where t
    and p are the positions of a row's true and predicted class in `labels` and K is the number
    of labels. Rows whose truth or prediction is missing or not among `labels` are left out and
    counted (``excluded``, ``n_excluded``).

    Parameters
    ----------
    truth : array-like of shape (n_samples,)
        True classes: any hashable values (strings, ints, bools); multi-class is fine.
    prediction : array-like of shape (n_samples,)
        Predicted classes, the same kind of values.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes, n_samples rows
        Attributes mean their observed value combinations, nothing flagged small (min_size=1).
    labels : sequence, optional
        The classes, in the order of the tables. Default: the distinct non-missing values of
        `truth` and `prediction`, sorted (by their text when the types are mixed).

    Returns
    -------
    ClassCounts

    Raises
    ------
    ValueError
        If the inputs have different lengths or are not one-dimensional, or `labels` is empty or
        repeats a class.
    TypeError
        If `labels` is a single string or not a sequence.

    References
    ----------
    Seed 002 (audmetric, ``unweighted_average_bias``).

    Examples
    --------
    >>> counts = class_counts(["a", "b", "b"], ["a", "a", "b"], ["x", "x", "y"])
    >>> counts.member[0].tolist()  # subgroup x: rows true a / true b, columns predicted a / b
    [[1.0, 0.0], [1.0, 0.0]]
    >>> counts.table()[["subgroup", "class", "recall", "precision", "fscore"]]
      subgroup class  recall  precision    fscore
    0        x     a     1.0        0.5  0.666667
    1        x     b     0.0        NaN  0.000000
    2        y     a     NaN        NaN       NaN
    3        y     b     1.0        1.0  1.000000
    """
    return ClassCounts._from_rows(_encode(truth, prediction, subgroups, labels, "class_counts"))


# --------------------------------------------------------------------------------------------
# Unweighted average bias
# --------------------------------------------------------------------------------------------


