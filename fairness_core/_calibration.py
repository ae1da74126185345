"""Calibration per subgroup: reliability diagrams, ECE, MCE, Brier score and their disparity (§5.3).

Sufficient statistic: for every subgroup, its background and all rows, and for every bin, the
row count, the sum of predicted probabilities, the sum of labels and the sum of squared errors
(one bincount each). ECE = sum_b |sum_y_b - sum_p_b| / n, which equals
sum_b (n_b / n) * |fraction_positive_b - mean_predicted_b|.

Intervals (§5.6): a stratified multinomial bootstrap over *calibration atoms*, never over rows.
An atom is a (membership pattern, sub-bin, label) cell: each bin is split into ``SUB_BINS``
equal-width sub-bins, and every cell keeps its row count and its mean predicted probability and
mean squared error. A replicate redraws each pattern's cell counts from
Multinomial(n_pattern, counts / n_pattern) (``_bootstrap.Atoms``), and rebuilds each bin's sums
as resampled count x the cell's mean; see :meth:`CalibrationCounts.error_table`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, Optional

import numpy as np
import pandas as pd

from ._bootstrap import Atoms, check_boot_options, percentile_interval, replicate_stat
from ._checks import as_binary, as_probabilities, check_int, check_length, check_option
from ._compare import (DISTANCES, DisparityResult, add_intervals, bootstrap_comparison, check_reference, compare,
                       comparison_index, compared_values, reduce_disparities, reduce_samples, used_rows,
                       with_intervals)
from ._intervals import check_ci, wilson_interval
from ._policy import BOUND_RTOL, DEFAULT_RULES, Rule, Verdict, evaluate, evaluate_result
from ._subgroups import as_subgroups

Strategy = Literal["uniform", "quantile"]
STRATEGIES = ("uniform", "quantile")
# Each bin is split into this many equal-width sub-bins for the bootstrap (see CalibrationAtoms).
SUB_BINS = 4
ERROR_COLUMNS = ("ece", "mce", "brier_score")
# The default calibration rule (seed 001's 0.1): a bound on a *difference* of ECEs.
DEFAULT_RULE = next(r for r in DEFAULT_RULES if r.metric == "calibration_disparity")

NO_ATOMS_MESSAGE = (
    "{func} cannot compute intervals from CalibrationCounts built by hand: the bootstrap needs the "
    "counts per membership pattern, sub-bin and label. Tip: build them with calibration_counts(y_true, "
    "y_prob, subgroups)."
)
THRESHOLD_MESSAGE = (
    "The 'threshold' parameter of {func} is a bound in the units of distance_measure={distance!r} "
    "({units}), so it must be None or {expected}. Got {got!r} instead. Tip: {tip}"
)
_THRESHOLD_UNITS = {
    "diff": ("a difference of ECEs", "a number in [0, 1]",
             "a ratio bound (>= 1) applies with distance_measure='ratio'."),
    "ratio": ("a ratio of ECEs, larger / smaller, so 1 is parity", "a finite number >= 1",
              "a difference bound such as 0.1 applies with distance_measure='diff'; a ratio is never "
              "judged against a difference bound."),
}
NO_RATIO_RULE_NOTE = (
    "no policy bound applies to a ratio of ECEs by default (the calibration rule's 0.1 bounds a "
    "difference of ECEs); give a threshold >= 1 to assess the ratio"
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
    """Bin of each score: bins are [low, high) except the last, which is closed (1.0 counts)."""
    return np.searchsorted(edges[1:-1], y_prob, side="right").astype(np.intp)


def sub_bin_index(y_prob: np.ndarray, cell: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Sub-bin of each score within its bin: ``SUB_BINS`` equal-width parts, 0 for a zero-width bin."""
    low, high = edges[cell], edges[cell + 1]
    width = high - low
    with np.errstate(divide="ignore", invalid="ignore"):
        position = np.where(width > 0, (y_prob - low) / np.where(width > 0, width, 1.0), 0.0)
    return np.clip(np.floor(position * SUB_BINS), 0, SUB_BINS - 1).astype(np.intp)


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
        n_bins = len(edges) - 1
        n_cells = n_bins * SUB_BINS * 2
        atom = (cell * SUB_BINS + sub_bin_index(y_prob, cell, edges)) * 2 + y_true.astype(np.intp)
        atoms = Atoms.of(subgroups, atom, n_cells)
        codes, member, _ = subgroups.patterns
        n_patterns = member.shape[0]
        keep = np.bincount(codes, minlength=n_patterns) > 0
        index = codes * n_cells + atom
        sums = [np.bincount(index, weights=w, minlength=n_patterns * n_cells).reshape(n_patterns, n_cells)[keep]
                for w in (y_prob, (y_prob - y_true) ** 2)]
        count = atoms.counts
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_p, mean_sq = (np.where(count > 0, s / np.where(count > 0, count, 1.0), 0.0) for s in sums)
        return cls(atoms, mean_p, mean_sq, n_bins)

    def replicates(self, n_boot: int, rng: np.random.Generator):
        """Blocks of resampled cell counts (see :meth:`_bootstrap.Atoms.replicates`)."""
        return self.atoms.replicates(n_boot, rng)

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
        cell = bin_index(p, edges)
        weights = (None, p, y, (p - y) ** 2)
        member = np.stack([groups.crosstab(cell, n_bins, w)[0] for w in weights], axis=1)
        background = np.stack([groups.crosstab(cell, n_bins, w)[1] for w in weights], axis=1)
        overall = np.stack([np.bincount(cell, weights=w, minlength=n_bins).astype(float) for w in weights])
        return cls(list(groups.names), edges, strategy, member, background, overall, groups.min_size,
                   atoms=CalibrationAtoms.of(groups, p, y, cell, edges))

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
            raise ValueError(NO_ATOMS_MESSAGE.format(func=func))
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
        func = "calibration_errors"
        min_per_group = check_int(min_per_group, 1, "min_per_group", func)
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        table = self._error_frame(min_per_group)
        if level is None:
            return table
        samples = replicate_stat(self._calibration_atoms(func),
                                 lambda m, b, o: np.stack(_error_values(m, min_per_group), axis=-1), n_boot, rng)
        return _with_error_intervals(table, samples, level, n_boot)

    def _error_frame(self, min_per_group: int) -> pd.DataFrame:
        ece, mce, brier, note = _errors(self.member, min_per_group)
        sizes = self.sizes
        small, reasons = self._small()
        return pd.DataFrame({
            "subgroup": self.names, "size": sizes.astype(np.int64),
            "n_positive": self.member[:, 2, :].sum(axis=1).astype(np.int64),
            "n_negative": (sizes - self.member[:, 2, :].sum(axis=1)).astype(np.int64),
            "small": small, "small_reason": reasons,
            "ece": ece, "mce": mce, "brier_score": brier, "note": note,
        })

    def _comparison(self, min_per_group: int, distance_measure: str, reference: str, func: str) -> pd.DataFrame:
        """The ECE comparison table (``compare``'s columns and ``small_reason``)."""
        ece, _, _, note = _errors(self.member, min_per_group)
        rest_ece, _, _, rest_note = _errors(self.background, min_per_group)
        overall_ece = _errors(self.overall[None], min_per_group)[0][0]
        small, reasons = self._small()
        table = compare(self.names, self.sizes.astype(np.int64), ece, rest_ece,
                        self.background[:, 0, :].sum(axis=1).astype(np.int64), overall_ece,
                        int(self.overall[0].sum()), small, distance_measure=distance_measure,
                        reference=reference, func=func, notes=note, rest_notes=rest_note)
        i, j = comparison_index(reference, self.names)
        ref_reasons = np.full(len(i), "", dtype=object) if j is None else reasons[j]
        table["small_reason"] = ["; ".join(p for p in (own, f"{ref}: {other}" if other else "") if p)
                                 for own, ref, other in zip(reasons[i], table["reference"], ref_reasons)]
        return table

    def disparity(self, *, threshold: Optional[float] = None, min_per_group: int = 5, distance_measure: str = "diff",
                  reduction: Optional[str] = "max", reference: str = "rest", include_small: bool = False,
                  ci: Optional[float] = None, n_boot: int = 1000, random_state=0, adjust: Optional[str] = None):
        """ECE disparity, with intervals and the policy verdict; see :func:`calibration_disparity`."""
        func = "calibration_disparity"
        check_option(reduction, ("max", "mean", None), "reduction", func)
        check_option(distance_measure, DISTANCES, "distance_measure", func)
        check_reference(reference, self.names, func)
        min_per_group = check_int(min_per_group, 1, "min_per_group", func)
        rule = calibration_rule(distance_measure, threshold, func)
        level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
        table = self._comparison(min_per_group, distance_measure, reference, func)
        errors = self._error_frame(min_per_group)
        if level is not None:
            captured = []

            def values(member, background, overall):
                # Every error of the subgroups is kept (for the errors table's intervals) and the ECEs of
                # the subgroups, backgrounds and all rows go on to the comparisons: one bootstrap for both.
                errs = np.stack(_error_values(member, min_per_group), axis=-1)
                rest = _error_values(background, min_per_group)[0]
                whole = _error_values(overall[..., None, :, :], min_per_group)[0][..., 0]
                captured.append((errs, rest, whole))
                return errs[..., 0], rest, whole

            signed, disparity = bootstrap_comparison(self._calibration_atoms(func), self.names, reference, values,
                                                     distance_measure=distance_measure, n_boot=n_boot, rng=rng)
            errs, rest, whole = (np.concatenate(parts) for parts in zip(*captured))
            errors = _with_error_intervals(errors, errs, level, n_boot)
            a, b = compared_values(errs[..., 0], rest, whole, reference, self.names)
            for side, samples in (("subgroup_value", a), ("reference_value", b)):
                low, high, _ = _value_interval(samples, table[side].to_numpy(dtype=np.float64), level)
                at = table.columns.get_loc(side) + 1
                table.insert(at, f"{side}_ci_low", low)
                table.insert(at + 1, f"{side}_ci_high", high)
            table = add_intervals(table, signed, disparity, distance_measure=distance_measure, level=level,
                                  adjust=adjust, func=func)
        table = _with_verdicts(table, rule, distance_measure, level)
        if reduction is None:
            return table
        result = reduce_disparities(table, reduction, distance_measure=distance_measure, reference=reference,
                                    include_small=include_small, func=func)
        if level is not None:
            reduced = reduce_samples(disparity, used_rows(table, include_small), reduction)
            result = with_intervals(result, table, reduced, level=level, n_boot=n_boot)
        verdict = None if rule is None else evaluate_result(rule, result)
        passes = None if verdict is None else {"pass": True, "fail": False}.get(verdict.status)
        return CalibrationDisparityResult(
            value=result.value, passes=passes, threshold=None if rule is None else rule.bound, n_bins=self.n_bins,
            strategy=self.strategy, interpretation=_interpret(result, verdict, min_per_group, distance_measure),
            errors=errors, disparity=result, rule=rule, verdict=verdict)


def calibration_rule(distance_measure: str, threshold: Optional[float],
                     func: str = "calibration_rule") -> Optional[Rule]:
    """The policy rule a calibration disparity is judged by, in the units of its distance measure.

    Parameters
    ----------
    distance_measure : {'diff', 'ratio'}
    threshold : float or None
        None: the default rule for ``'diff'`` (``DEFAULT_RULES``' ``calibration_diff``, difference
        of ECEs <= 0.1, seed 001) and no rule for ``'ratio'`` (no source sets a bound on a ratio of
        ECEs, and the 0.1 difference bound is never applied to a ratio). A number: a rule with
        that bound, which must be in [0, 1] for ``'diff'`` and >= 1 for ``'ratio'`` (ratios here
        are larger / smaller, so 1 is parity).
    func : str
        The caller's name, for messages.

    Returns
    -------
    Rule or None
        ``Rule(name='calibration_diff' | 'calibration_ratio', metric='calibration_disparity',
        distance_measure=..., bound=threshold, direction='max')``, labelled "Calibration:
        difference in ECE <= 0.1" or "Calibration: ratio of ECEs <= 1.5"; for ``'diff'`` with the
        default bound it equals the default rule.

    Raises
    ------
    ValueError
        If `threshold` is not a number in the units of the distance (``THRESHOLD_MESSAGE``), e.g.
        0.1 with ``'ratio'``.
    """
    check_option(distance_measure, DISTANCES, "distance_measure", func)
    if threshold is None:
        return DEFAULT_RULE if distance_measure == "diff" else None
    units, expected, tip = _THRESHOLD_UNITS[distance_measure]
    real = isinstance(threshold, (int, float, np.integer, np.floating)) and not isinstance(threshold, (bool, np.bool_))
    ok = real and math.isfinite(float(threshold)) and (
        0.0 <= float(threshold) <= 1.0 if distance_measure == "diff" else float(threshold) >= 1.0)
    if not ok:
        raise ValueError(THRESHOLD_MESSAGE.format(func=func, distance=distance_measure, units=units,
                                                  expected=expected, got=threshold, tip=tip))
    bound = float(threshold)
    if distance_measure == "diff":
        return Rule(name="calibration_diff", metric="calibration_disparity", distance_measure="diff", bound=bound,
                    direction="max", label=f"Calibration: difference in ECE <= {bound:g}")
    return Rule(name="calibration_ratio", metric="calibration_disparity", distance_measure="ratio", bound=bound,
                direction="max", label=f"Calibration: ratio of ECEs <= {bound:g}")


def _with_verdicts(table: pd.DataFrame, rule: Optional[Rule], distance_measure: str, level) -> pd.DataFrame:
    """Add ``passes`` (point estimate within the rule's bound) and ``verdict`` (the rule's status, from the
    disparity interval when there is one) per comparison; both None when no rule applies."""
    table = table.copy()
    n = len(table)
    if rule is None:
        table["passes"] = np.full(n, None, dtype=object)
        table["verdict"] = np.full(n, None, dtype=object)
        return table
    d = table["disparity"].to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore"):
        within = (d <= rule.bound) | np.isclose(d, rule.bound, rtol=BOUND_RTOL, atol=0.0)
    table["passes"] = pd.Series([None if np.isnan(v) else bool(w) for v, w in zip(d, within)], dtype=object,
                                index=table.index)
    low = table["disparity_ci_low"] if "disparity_ci_low" in table.columns else [None] * n
    high = table["disparity_ci_high"] if "disparity_ci_high" in table.columns else [None] * n
    # One evaluate per comparison (a few dozen at most): the rule's own pass / fail / inconclusive logic.
    table["verdict"] = [evaluate(rule, float(v), ci_low=None if lo is None else float(lo),
                                 ci_high=None if hi is None else float(hi), distance_measure=distance_measure,
                                 level=level).status for v, lo, hi in zip(d, low, high)]
    return table


def _value_interval(samples: np.ndarray, estimate: np.ndarray, level: float):
    """Percentile interval of each column of `samples` (n_boot, m), widened to contain `estimate` (m,)."""
    low, high, undefined = percentile_interval(samples, level)
    estimate = np.asarray(estimate, dtype=np.float64)
    has = ~np.isnan(low) & ~np.isnan(estimate)
    low = np.where(has, np.fmin(low, estimate), low)
    high = np.where(has, np.fmax(high, estimate), high)
    return low, high, undefined


def _with_error_intervals(table: pd.DataFrame, samples: np.ndarray, level: float, n_boot: int) -> pd.DataFrame:
    """`table` with ``<col>_ci_low/_ci_high`` after each of ECE, MCE and Brier, from samples (n_boot, k, 3)."""
    table = table.copy()
    undefined = {}
    for j, col in enumerate(ERROR_COLUMNS):
        low, high, n_undefined = _value_interval(samples[:, :, j], table[col].to_numpy(dtype=np.float64), level)
        estimate_defined = table[col].notna().to_numpy()
        low, high = np.where(estimate_defined, low, np.nan), np.where(estimate_defined, high, np.nan)
        at = table.columns.get_loc(col) + 1
        table.insert(at, f"{col}_ci_low", low)
        table.insert(at + 1, f"{col}_ci_high", high)
        counted = n_undefined[estimate_defined]
        undefined[col] = int(counted.max()) if len(counted) else 0
    table.attrs.update({"ci": level, "n_boot": n_boot, "n_boot_undefined": undefined})
    return table


def _error_values(stats: np.ndarray, min_per_group: int):
    """ECE, MCE and Brier score of stats of shape (..., 4, n_bins) -> three arrays of shape (...).

    ECE and MCE are NaN below `min_per_group` rows, the Brier score only without rows.
    """
    count, sum_p, sum_y, sum_sq = stats[..., 0, :], stats[..., 1, :], stats[..., 2, :], stats[..., 3, :]
    n = count.sum(axis=-1)
    gap = np.abs(sum_y - sum_p)
    with np.errstate(divide="ignore", invalid="ignore"):
        ece = gap.sum(axis=-1) / n
        per_bin = np.where(count > 0, gap / np.where(count > 0, count, 1), -np.inf)
        mce = per_bin.max(axis=-1)
        brier = sum_sq.sum(axis=-1) / n
    enough = n >= min_per_group
    return np.where(enough, ece, np.nan), np.where(enough, mce, np.nan), np.where(n > 0, brier, np.nan)


def _errors(stats: np.ndarray, min_per_group: int):
    """ECE, MCE, Brier and notes for stats of shape (k, 4, n_bins)."""
    ece, mce, brier = _error_values(stats, min_per_group)
    n = stats[:, 0].sum(axis=1)
    note = np.where(n >= min_per_group, "", np.where(n == 0, "no rows",
                                                     f"fewer than min_per_group={min_per_group} rows")).astype(object)
    return ece, mce, brier, note


def _num3(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.3f}"


def _interpret(result: DisparityResult, verdict: Optional[Verdict], min_per_group: int, distance: str) -> str:
    if np.isnan(result.value):
        why = (f"no comparison has ECE defined on both sides (each side needs at least {min_per_group} rows)"
               if result.n_undefined or not result.n_small_excluded else
               f"every comparison involves a small subgroup, and small subgroups are left out "
               f"({result.n_small_excluded} comparisons; include them to assess)")
        return f"Calibration disparity could not be assessed: {why}."
    unit = "difference in ECE" if distance == "diff" else "ratio of ECEs"
    interval = ""
    if result.level is not None and not (np.isnan(result.ci_low) or np.isnan(result.ci_high)):
        interval = f" ({result.level * 100:g} % interval {_num3(result.ci_low)}–{_num3(result.ci_high)})"
    if result.reduction == "max" and result.worst is not None:
        row = result.table[(result.table["subgroup"] == result.worst[0])
                           & (result.table["reference"] == result.worst[1])].iloc[0]
        head = (f"The largest {unit} is {_num3(result.value)}{interval}, between {row['subgroup']} (ECE "
                f"{row['subgroup_value']:.3f}, {int(row['size']):,} rows) and {row['reference']} (ECE "
                f"{row['reference_value']:.3f}, {int(row['reference_size']):,} rows).")
    else:
        head = f"The mean {unit} over {result.n_used} comparisons is {_num3(result.value)}{interval}."
    if verdict is None:
        return head + f" Not judged: {NO_RATIO_RULE_NOTE}."
    bound = f"{verdict.rule.bound:g}"
    whole = " across its whole interval" if interval else ""
    if verdict.status == "pass":
        return head + (f" It is within the bound of {bound}{whole}: by this measure, predicted probabilities "
                       f"are about as reliable for every subgroup.")
    if verdict.status == "fail":
        return head + (f" It exceeds the bound of {bound}{whole}: predicted probabilities are less reliable "
                       f"for some subgroups than for others; see the reliability diagrams for where they "
                       f"over- or under-estimate the outcome.")
    return head + (f" Its interval straddles the bound of {bound}: inconclusive at this sample size (more rows "
                   f"per subgroup would narrow it).")


@dataclass(frozen=True)
class CalibrationDisparityResult:
    """ECE disparity with its policy verdict, its interval and the per-subgroup errors.

    Attributes
    ----------
    value : float
        The reduced ECE disparity, in the units of the distance measure (a difference of ECEs, or
        a ratio larger / smaller).
    passes : bool or None
        True when the verdict is 'pass', False when 'fail'; None when it is 'inconclusive' (the
        interval straddles the bound) or 'undefined', or when no rule applies (a ratio without a
        threshold).
    threshold : float or None
        The rule's bound, in the units of the distance measure (None: no rule).
    n_bins : int
    strategy : {'uniform', 'quantile'}
    interpretation : str
        A plain-language sentence for reports.
    errors : DataFrame
        Per-subgroup ``ece, mce, brier_score`` (see :meth:`CalibrationCounts.error_table`), with
        interval columns when intervals were asked for.
    disparity : DisparityResult
        The comparisons behind ``value``, with ``ci_low, ci_high, level, n_boot,
        n_boot_undefined``.
    rule : Rule or None
        The policy rule applied (see :func:`calibration_rule`).
    verdict : Verdict or None
        The rule's verdict on the reduced value and its interval: pass, fail, inconclusive or
        undefined, with its sentence.
    """

    value: float
    passes: Optional[bool]
    threshold: Optional[float]
    n_bins: int
    strategy: str
    interpretation: str
    errors: pd.DataFrame
    disparity: DisparityResult
    rule: Optional[Rule] = None
    verdict: Optional[Verdict] = None

    @property
    def table(self) -> pd.DataFrame:
        """The comparison table (one row per comparison)."""
        return self.disparity.table

    @property
    def ci_low(self) -> float:
        """Lower end of the bootstrap interval of ``value`` (NaN without intervals)."""
        return self.disparity.ci_low

    @property
    def ci_high(self) -> float:
        """Upper end of the bootstrap interval of ``value`` (NaN without intervals)."""
        return self.disparity.ci_high

    @property
    def level(self) -> Optional[float]:
        """Confidence level of the intervals (None without)."""
        return self.disparity.level

    @property
    def distance_measure(self) -> str:
        """'diff' or 'ratio': the units of ``value`` and ``threshold``."""
        return self.disparity.distance_measure

    def __float__(self) -> float:
        return float(self.value)


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


def reliability_diagram(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform",
                        ci: Optional[float] = None) -> pd.DataFrame:
    """Reliability-diagram data per subgroup and bin.

    Bins are [low, high) except the last, which is closed, so a score of exactly 1.0 is counted.
    Uniform edges are exact (``arange(n_bins + 1) / n_bins``), so a score exactly on an inner edge
    i / n_bins (0.3 with ten bins, say) goes to the upper bin, bin i. Bin b of a subgroup holds
    ``count`` rows, ``mean_predicted`` (mean probability, the confidence) and
    ``fraction_positive`` (share of positive labels, the accuracy); both NaN for an empty bin.
    With `ci`, the Wilson score interval of fraction_positive = positives / count,

        centre = (k + z^2 / 2) / (n + z^2),  half-width = z / (n + z^2) * sqrt(k (n - k) / n + z^2 / 4)

    with k the positives and n the rows in the bin and z = ``norm.ppf(1 - (1 - ci) / 2)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
    ci : float in (0, 1) or None, default=None
        Confidence level of the Wilson interval of ``fraction_positive``, e.g. 0.95; None adds no
        interval columns.

    Returns
    -------
    DataFrame with n_subgroups * n_bins rows and columns ``subgroup, bin, bin_lower, bin_upper,
    count, mean_predicted, fraction_positive``; with `ci`, also ``fraction_positive_ci_low,
    fraction_positive_ci_high`` (NaN for an empty bin), and the level in ``attrs["ci"]``.

    Raises
    ------
    ValueError
        If a score is outside [0, 1], an option is invalid, or `ci` is not None or a level
        strictly between 0 and 1 (``CI_MESSAGE``).

    References
    ----------
    Guo et al. (2017), "On Calibration of Modern Neural Networks"; seed 001 (ExFairness
    Calibration); the bins of ``sklearn.calibration.calibration_curve`` (which puts a score on an
    inner edge in the lower bin). Wilson (1927), "Probable inference, the law of succession, and
    statistical inference", JASA 22(158).

    Examples
    --------
    A score of exactly 0.3 sits on the edge 3 / 10 and goes to bin 3, [0.3, 0.4):

    >>> table = reliability_diagram([1, 0], [0.3, 0.7], ["a", "a"], ci=0.95)
    >>> table.loc[table["count"] > 0, ["bin", "bin_lower", "count", "fraction_positive"]]
       bin  bin_lower  count  fraction_positive
    3    3        0.3      1                1.0
    7    7        0.7      1                0.0
    >>> round(float(table.loc[3, "fraction_positive_ci_low"]), 4)  # Wilson, 1 of 1
    0.2065
    """
    level = check_ci(ci, "reliability_diagram")
    return CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy,
                                     func="reliability_diagram").reliability_table(ci=level)


def calibration_errors(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform",
                       min_per_group: int = 5, ci: Optional[float] = None, n_boot: int = 1000,
                       random_state=0) -> pd.DataFrame:
    """Per-subgroup expected and maximum calibration error and Brier score, with optional intervals.

    ECE = sum_b (n_b / n) * |fraction_positive_b - mean_predicted_b|; MCE = the largest such gap
    over non-empty bins; Brier = mean((y_prob - y_true) ** 2).

    Parameters
    ----------
    y_true, y_prob, subgroups, n_bins, strategy
        As in :func:`reliability_diagram`.
    min_per_group : int, default=5
        A subgroup with fewer rows gets NaN ECE and MCE with a note.
    ci : float in (0, 1) or None, default=None
        Confidence level of bootstrap percentile intervals of the three errors (e.g. 0.95): a
        seeded multinomial bootstrap over (membership pattern, bin, sub-bin, label) counts,
        stratified by membership pattern, so subgroup sizes stay fixed. See
        :meth:`CalibrationCounts.error_table` for exactly what is resampled and the approximation
        it makes.
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.

    Returns
    -------
    DataFrame, one row per subgroup: ``subgroup, size, n_positive, n_negative, small,
    small_reason, ece, mce, brier_score, note``; with `ci`, ``<col>_ci_low, <col>_ci_high`` after
    each of ``ece, mce, brier_score`` and the level in ``attrs["ci"]``.

    Raises
    ------
    ValueError
        If a score is outside [0, 1] or an option is invalid.

    References
    ----------
    Naeini et al. (2015); Guo et al. (2017); Brier (1950); Efron & Tibshirani (1993), *An
    Introduction to the Bootstrap* (percentile intervals).
    """
    return CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy,
                                     func="calibration_errors").error_table(
        min_per_group=min_per_group, ci=ci, n_boot=n_boot, random_state=random_state)


def expected_calibration_error(y_true, y_prob, *, n_bins: int = 10, strategy: Strategy = "uniform") -> float:
    """Expected calibration error ECE = sum_b (n_b / n) * |fraction_positive_b - mean_predicted_b|.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'

    Returns
    -------
    float
        In [0, 1]; 0 is perfect calibration. NaN for no rows.

    References
    ----------
    Naeini et al. (2015); Guo et al. (2017); seed 001.

    Examples
    --------
    >>> expected_calibration_error([0, 1], [0.25, 0.75], n_bins=2)
    0.25
    """
    y = as_binary(y_true, "y_true", "expected_calibration_error")
    counts = CalibrationCounts.compute(y, y_prob, np.zeros(len(y)), n_bins=n_bins, strategy=strategy,
                                       func="expected_calibration_error")
    return float(_errors(counts.overall[None], 1)[0][0])


def maximum_calibration_error(y_true, y_prob, *, n_bins: int = 10, strategy: Strategy = "uniform") -> float:
    """Maximum calibration error MCE = max over non-empty bins of |fraction_positive_b - mean_predicted_b|.

    Parameters
    ----------
    y_true, y_prob, n_bins, strategy
        As in :func:`expected_calibration_error`.

    Returns
    -------
    float
        In [0, 1]; NaN for no rows.

    References
    ----------
    Naeini et al. (2015); seed 001.
    """
    y = as_binary(y_true, "y_true", "maximum_calibration_error")
    counts = CalibrationCounts.compute(y, y_prob, np.zeros(len(y)), n_bins=n_bins, strategy=strategy,
                                       func="maximum_calibration_error")
    return float(_errors(counts.overall[None], 1)[1][0])


def calibration_disparity(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform",
                          threshold: Optional[float] = None, min_per_group: int = 5, distance_measure: str = "diff",
                          reduction: Optional[str] = "max", reference: str = "rest", include_small: bool = False,
                          ci: Optional[float] = None, n_boot: int = 1000, random_state=0,
                          adjust: Optional[str] = None):
    """Disparity of the expected calibration error between subgroups, with its policy verdict.

    Each subgroup's ECE is compared with its reference's ECE (for two groups and ``"diff"``:
    exactly |ECE_A - ECE_B|); the comparisons are reduced, and the reduced value is judged by a
    policy rule in the units of the distance (:func:`calibration_rule`): by default, for
    ``"diff"``, difference of ECEs <= 0.1 (``DEFAULT_RULES``' ``calibration_diff``, seed 001);
    for ``"ratio"`` no rule applies unless a `threshold` >= 1 is given. A ratio is never judged
    against a difference bound. With intervals the verdict is 'pass' (the whole interval within
    the bound), 'fail' (the whole interval beyond it) or 'inconclusive' (the interval straddles
    it); without, the point estimate decides.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
    threshold : float or None, default=None
        Largest acceptable disparity, in the units of `distance_measure`: in [0, 1] for
        ``"diff"`` (None: 0.1), >= 1 for ``"ratio"`` (None: no verdict).
    min_per_group : int, default=5
        A side with fewer rows has an undefined ECE; its comparisons are left out (and counted).
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'} or None, default='max'
        None returns the comparison table.
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    include_small : bool, default=False
        Whether comparisons with a subgroup of fewer than ``min_size`` rows enter the reduction.
    ci : float in (0, 1) or None, default=None
        Confidence level of intervals (e.g. 0.95): bootstrap percentile intervals of every ECE
        (subgroup and reference), every disparity and the reduced value, from a seeded,
        stratified multinomial bootstrap over (membership pattern, bin, sub-bin, label) counts
        (rows are never resampled; see :meth:`CalibrationCounts.error_table` for what is
        resampled and the approximation it makes). ``excludes_parity`` says whether the interval
        of the signed distance (ECE_a - ECE_b, or ln(ECE_a / ECE_b)) excludes 0, and ``p_value``
        is the bootstrap p-value of parity; where parity is not excluded, ``disparity_ci_low`` is
        the parity value (0 or 1). Replicates in which the reduced value is undefined are left
        out of its interval and counted in ``n_boot_undefined``.
    n_boot : int >= 100, default=1000
        Bootstrap replicates.
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap: the same seed gives the same intervals.
    adjust : {None, 'bonferroni', 'holm', 'fdr_bh'}, default=None
        Multiple-comparison adjustment of the per-comparison intervals and ``excludes_parity``.

    Returns
    -------
    CalibrationDisparityResult, or DataFrame when ``reduction=None``: columns ``subgroup,
    reference, size, reference_size, subgroup_value, reference_value, disparity, small, note,
    small_reason, passes, verdict`` (the values are ECEs; ``passes`` is the point estimate
    within the bound, ``verdict`` the rule's status; both None when no rule applies); with `ci`
    also ``subgroup_value_ci_low/high, reference_value_ci_low/high, disparity_ci_low/high,
    p_value, excludes_parity``.

    Raises
    ------
    ValueError
        If a score is outside [0, 1] (a 1-10 risk score is not a probability), an option is
        invalid, or `threshold` is not in the units of `distance_measure` (``THRESHOLD_MESSAGE``:
        e.g. 0.1 with ``"ratio"``).

    References
    ----------
    Pleiss et al. (2017), "On Fairness and Calibration"; Kleinberg et al. (2017); seed 001
    (ExFairness.Metrics.Calibration).

    Examples
    --------
    Subgroup a (scores 0.1, 0.3, 0.7, 0.9 with labels 0, 0, 1, 1) has ECE 0.2; subgroup b (score
    0.4, three in four positive) has ECE |0.75 - 0.4| = 0.35:

    >>> y = [0, 0, 1, 1] * 10 + [0, 1, 1, 1] * 10
    >>> p = [0.1, 0.3, 0.7, 0.9] * 10 + [0.4] * 40
    >>> groups = ["a"] * 40 + ["b"] * 40
    >>> result = calibration_disparity(y, p, groups, n_bins=5)
    >>> round(result.value, 3), result.verdict.status
    (0.15, 'fail')
    >>> ratio = calibration_disparity(y, p, groups, distance_measure="ratio")
    >>> round(ratio.value, 3), ratio.verdict  # no default bound on a ratio of ECEs
    (1.75, None)
    >>> calibration_disparity(y, p, groups, distance_measure="ratio", threshold=2.0).verdict.status
    'pass'
    """
    counts = CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy,
                                       func="calibration_disparity")
    return counts.disparity(threshold=threshold, min_per_group=min_per_group, distance_measure=distance_measure,
                            reduction=reduction, reference=reference, include_small=include_small, ci=ci,
                            n_boot=n_boot, random_state=random_state, adjust=adjust)
