# More than 500 lines: one concept (the calibration sums per subgroup and bin, their atoms and what is read off them), unweighted and weighted.
"""CalibrationCounts: per (subgroup, bin) the count, sum of y_prob, sum of y_true and sum of squared errors,
with the atoms its bootstrap resamples.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np
import pandas as pd

from .._data.checks import as_binary, as_probabilities, check_int, check_length, check_option
from .._disparity.calibration_errors import calibration_disparity_of, error_table_of
from .._stats.bootstrap import Atoms
from .._stats.intervals import check_ci, weighted_wilson_interval, wilson_interval
from .._subgroups.subgroups import as_subgroups
from .binning import (STRATEGIES, SUB_BINS, Strategy, bin_edges, bin_index, sub_bin_index, uniform_edges,
                      weighted_quantile_edges)
from .patterns import over_patterns
from .weights import check_sample_weight, effective_size, row_counts, size_text


CALIBRATION_NO_ATOMS_MESSAGE = (
    "{func} cannot compute intervals from CalibrationCounts built by hand: the bootstrap needs the "
    "counts per membership pattern, sub-bin and label. Tip: build them with calibration_counts(y_true, "
    "y_prob, subgroups)."
)


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
    squares : ndarray of shape (n_patterns, n_cells) or None
        With sample weights (``atoms.counts`` are then sums of weights, the means weighted means, and
        ``atoms.rows`` each row's pattern, cell and weight, which the bootstrap deals into buckets): the sums of
        squared weights of each cell. None for counts of rows.
    """

    atoms: Atoms
    mean_p: np.ndarray
    mean_sq: np.ndarray
    n_bins: int
    squares: Optional[np.ndarray] = None

    @classmethod
    def of(cls, subgroups, y_prob: np.ndarray, y_true: np.ndarray, cell: np.ndarray, edges: np.ndarray):
        """Atoms of rows with scores `y_prob`, labels `y_true` (0/1) and bins `cell`, shape (n_samples,)."""
        return cls._count(subgroups, y_prob, y_true, cell, edges)[0]

    @classmethod
    def _count(cls, subgroups, y_prob: np.ndarray, y_true: np.ndarray, cell: np.ndarray, edges: np.ndarray,
               weights: Optional[np.ndarray] = None):
        """The atoms, and the sums of y_prob and of squared errors per (pattern, cell) behind their means.

        One atom index per row and three ``bincount``s over (pattern, atom): row counts, sums of
        y_prob and sums of (y_prob - y_true) ** 2, for the patterns that have rows. With `weights`, sums of
        weights, of w y_prob and of w (y_prob - y_true) ** 2, a fourth of w ** 2, and the rows of weight > 0 kept
        (``Atoms.rows``) for the bootstrap.
        """
        n_bins = len(edges) - 1
        n_cells = n_bins * SUB_BINS * 2
        atom = (cell * SUB_BINS + sub_bin_index(y_prob, cell, edges)) * 2 + y_true.astype(np.intp)
        codes, member, background = subgroups.patterns
        n_patterns = member.shape[0]
        index = codes * n_cells + atom
        error = (y_prob - y_true) ** 2
        count, sum_p, sum_sq, squares = (
            np.bincount(index, weights=v, minlength=n_patterns * n_cells).astype(np.float64).reshape(
                n_patterns, n_cells)
            for v in ((None, y_prob, error, None) if weights is None else
                      (weights, weights * y_prob, weights * error, weights * weights)))
        keep = count.sum(axis=1) > 0
        count, sum_p, sum_sq = count[keep], sum_p[keep], sum_sq[keep]
        rows = None
        if weights is not None:   # a pattern's rows, renumbered among the patterns kept
            held = weights > 0
            rows = ((np.cumsum(keep) - 1)[codes[held]], atom[held], weights[held])
        atoms = cls.of_sums(Atoms(count, member[keep], background[keep], rows=rows), sum_p, sum_sq, n_bins,
                            squares=None if weights is None else squares[keep])
        return atoms, sum_p, sum_sq

    @classmethod
    def of_sums(cls, atoms: Atoms, sum_p: np.ndarray, sum_sq: np.ndarray, n_bins: int,
                squares: Optional[np.ndarray] = None) -> "CalibrationAtoms":
        """The atoms with their cells' means, from the sums of y_prob and of squared errors per (pattern, cell)
        (shape of ``atoms.counts``); an empty cell's means are 0. `squares`: the sums of squared weights of
        weighted atoms."""
        count = atoms.counts
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_p, mean_sq = (np.where(count > 0, x / np.where(count > 0, count, 1.0), 0.0) for x in (sum_p, sum_sq))
        return cls(atoms, mean_p, mean_sq, n_bins, squares)

    def replicates(self, n_boot: int, rng: np.random.Generator):
        """Blocks of resampled cell counts (see :meth:`_bootstrap.Atoms.replicates`)."""
        return self.atoms.replicates(n_boot, rng)

    def bucket_tables(self, split) -> tuple:
        """Per-bucket calibration sums of a split of the atoms among buckets (``_bootstrap.BucketSplit``): shapes
        (K, k, 4, n_bins), (K, k, 4, n_bins) and (K, 4, n_bins), as :meth:`tables` (sparse, whatever the patterns)."""
        p, c, w = split.pattern, split.cell, split.count
        b = c // (2 * SUB_BINS)
        nb = self.n_bins
        columns = np.stack([b, nb + b, 2 * nb + b, 3 * nb + b], axis=1)
        values = np.stack([w, w * self.mean_p[p, c], w * (c % 2), w * self.mean_sq[p, c]], axis=1)
        m, bg, o = split.spread(columns, values, 4 * nb, self.atoms.member, self.atoms.background)
        return m.reshape(*m.shape[:2], 4, nb), bg.reshape(*bg.shape[:2], 4, nb), o.reshape(len(o), 4, nb)

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
        cannot give intervals). With sample weights, sums of weights that keep their rows and the
        sums of squared weights per cell (``CalibrationAtoms.squares``).
    member_sq, background_sq : ndarray of shape (n_subgroups, n_bins), or None
        With sample weights (the tables then hold sum of w, sum of w y_prob, sum of w y_true and sum of
        w (y_prob - y_true) ** 2): the sums of squared weights per bin, behind the effective sample sizes.
        None for unweighted counts.
    overall_sq : ndarray of shape (n_bins,) or None
        The same over all rows.
    """

    names: list
    edges: np.ndarray
    strategy: str
    member: np.ndarray
    background: np.ndarray
    overall: np.ndarray
    min_size: int
    atoms: object = field(default=None, repr=False, compare=False)
    member_sq: Optional[np.ndarray] = field(default=None, repr=False, compare=False)
    background_sq: Optional[np.ndarray] = field(default=None, repr=False, compare=False)
    overall_sq: Optional[np.ndarray] = field(default=None, repr=False, compare=False)

    @classmethod
    def compute(cls, y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: str = "uniform",
                sample_weight=None, func: str = "calibration_counts") -> "CalibrationCounts":
        """Bin the scores once and take the sums (weighted sums with `sample_weight`); see :func:`calibration_counts`."""
        y = as_binary(y_true, "y_true", func).astype(np.float64)
        p = as_probabilities(y_prob, "y_prob", func)
        check_length(p, len(y), "y_prob", func)
        n_bins = check_int(n_bins, 1, "n_bins", func)
        check_option(strategy, STRATEGIES, "strategy", func)
        w = check_sample_weight(sample_weight, len(y), func)
        groups = as_subgroups(subgroups, len(y), func)
        if w is not None:
            return cls._weighted(groups, y, p, w, n_bins, strategy)
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

    @classmethod
    def _weighted(cls, groups, y: np.ndarray, p: np.ndarray, w: np.ndarray, n_bins: int,
                  strategy: str) -> "CalibrationCounts":
        """The weighted sums per (subgroup, bin): sum of w, w y_prob, w y_true, w (y_prob - y_true) ** 2 and
        w ** 2, from the weighted atoms (:meth:`CalibrationAtoms._count`), which keep the rows for the bootstrap.
        Quantile edges are those of the scores with frequency weights (:func:`weighted_quantile_edges`)."""
        edges = (uniform_edges(n_bins) if strategy == "uniform" or not len(p)
                 else weighted_quantile_edges(p, w, n_bins))
        atoms, sum_p, sum_sq = CalibrationAtoms._count(groups, p, y, bin_index(p, edges), edges, weights=w)
        counts = cls.of_atoms(list(groups.names), edges, strategy, atoms, sum_p, sum_sq, groups.min_size)
        squares = atoms.squares.reshape(len(atoms.squares), n_bins, -1).sum(axis=-1)   # (P, n_bins)
        m_sq, b_sq = (over_patterns(masks, squares) for masks in (atoms.atoms.member, atoms.atoms.background))
        return replace(counts, member_sq=m_sq, background_sq=b_sq, overall_sq=squares.sum(axis=0))

    @property
    def n_bins(self) -> int:
        """Number of bins."""
        return len(self.edges) - 1

    @property
    def weighted(self) -> bool:
        """True when the sums are weighted by sample weights (``member_sq`` is set)."""
        return self.member_sq is not None

    @property
    def sizes(self) -> np.ndarray:
        """Rows per subgroup; with sample weights Kish's effective sample size (sum w)^2 / sum w^2."""
        if self.weighted:
            return effective_size(self.member[:, 0, :].sum(axis=1), self.member_sq.sum(axis=1))
        return self.member[:, 0, :].sum(axis=1)

    @property
    def background_sizes(self) -> np.ndarray:
        """Rows in each subgroup's background (effective sample sizes with sample weights)."""
        if self.weighted:
            return effective_size(self.background[:, 0, :].sum(axis=1), self.background_sq.sum(axis=1))
        return self.background[:, 0, :].sum(axis=1)

    @property
    def overall_size(self) -> float:
        """All rows (their effective sample size with sample weights)."""
        if self.weighted:
            return float(effective_size(self.overall[0].sum(), self.overall_sq.sum()))
        return self.overall[0].sum()

    def _small(self) -> tuple[np.ndarray, np.ndarray]:
        """Per subgroup: small (fewer rows than ``min_size``; effective rows with weights) and the reason."""
        sizes = self.sizes
        small = sizes < self.min_size
        if self.weighted:
            reasons = np.array([f"{size_text(n)} effective rows < minimum {self.min_size}" if s else ""
                                for n, s in zip(sizes, small)], dtype=object)
            return small, reasons
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
            ``fraction_positive``. With sample weights, Wilson's interval on the bin's effective
            sample size (``_stats.intervals.weighted_wilson_interval``, from the sums of squared
            weights of its positives and negatives, at most its rows); unit weights give Wilson's.

        Returns
        -------
        DataFrame with n_subgroups * n_bins rows and columns ``subgroup, bin, bin_lower,
        bin_upper, count, mean_predicted, fraction_positive`` (and the two interval columns,
        with the level in ``attrs["ci"]``). With sample weights ``count`` is the bin's sum of
        weights and the means are weighted means.

        Raises
        ------
        ValueError
            If `ci` is not None or a level strictly between 0 and 1 (``CI_MESSAGE``), or is given
            for weighted counts built by hand (``CALIBRATION_NO_ATOMS_MESSAGE``).
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
            "count": count.reshape(-1) if self.weighted else count.reshape(-1).astype(np.int64),
            "mean_predicted": mean_pred.reshape(-1),
            "fraction_positive": frac_pos.reshape(-1),
        }
        if level is not None and self.weighted:   # on each bin's effective sample size
            atoms = self._calibration_atoms("reliability_diagram")
            cells = (len(atoms.squares), b, SUB_BINS, 2)
            positives_sq, rows = (over_patterns(atoms.atoms.member, x) for x in (   # (k, bins)
                atoms.squares.reshape(cells)[..., 1].sum(axis=-1),
                row_counts(atoms.atoms).reshape(cells).sum(axis=(-2, -1))))
            low, high = weighted_wilson_interval(positives.reshape(-1), count.reshape(-1), positives_sq.reshape(-1),
                                                 np.maximum(self.member_sq - positives_sq, 0.0).reshape(-1), level,
                                                 rows=rows.reshape(-1))
        elif level is not None:
            # The labels are 0/1, so the sum of labels in a bin is an integer count (rounding guards
            # against float sums).
            low, high = wilson_interval(np.rint(positives).reshape(-1), count.reshape(-1), level)
        table = pd.DataFrame(columns)
        if level is not None:
            table["fraction_positive_ci_low"], table["fraction_positive_ci_high"] = low, high
            table.attrs["ci"] = level  # the level, for chart hovers
        return table

    def error_table(self, *, min_per_group: int = 5, ci: Optional[float] = None, n_boot: int = 1000,
                    random_state=0) -> pd.DataFrame:
        """Per-subgroup ECE, ℓ2 ECE, debiased squared calibration error, MCE and Brier score, with bootstrap
        intervals when `ci` is a level.

        The estimates are those of :func:`calibration_errors`, from the exact per-bin sums:
        the plug-in ECE (ExFairness), the debiased squared calibration error
        Σ_b (n_b / n)[(ȳ_b − p̄_b)² − ȳ_b (1 − ȳ_b) / (n_b − 1)] (Kumar, Liang & Ma 2019; unbiased
        whatever the true miscalibration, so below 0 for many calibrated groups) and its square
        root floored at 0, the ℓ2 ECE.

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

        The debiased squared error's interval is the studentized bootstrap's
        (``_disparity.calibration_errors.studentized``): each replicate's deviation from the
        bootstrap's truth (the resampled rows' plug-in) over its own standard error, times the
        estimate's; the ℓ2 ECE's is its square root. The Brier score's is the percentile interval,
        widened where needed to contain the estimate. The plug-in ECE and the MCE have none: both
        lie above their truth by the bins' noise, and their percentile intervals covered 0 % and
        0-9 % of calibrated groups.

        With sample weights (the sums are then sums of weights) the atoms keep their rows, and the
        bootstrap deals each row with its weight into buckets and reweights the buckets
        (``_stats.bootstrap.BucketSplit.of_rows``): a replicate's per-bin sums are its sums of
        weights times the cells' weighted means, and each bin counts as its Kish effective rows in
        the squared error. A subgroup whose effective size is below `min_per_group` has no ECE or
        MCE (nor interval); the replicates of the others are not held to it (a replicate has no
        effective size).

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
        small_reason, ece, l2_ece, squared_ce, mce, brier_score, note``; with `ci`, each of
        ``l2_ece, squared_ce, brier_score`` is followed by ``<col>_ci_low, <col>_ci_high``, and
        ``attrs`` holds ``ci`` (the level), ``n_boot`` and ``n_boot_undefined`` (per column, the largest number of replicates in
        which a subgroup's value was undefined).

        Raises
        ------
        ValueError
            For a bad `min_per_group`, `ci`, `n_boot` or `random_state`, or with `ci` on counts
            built by hand (``CALIBRATION_NO_ATOMS_MESSAGE``).
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


def calibration_counts(y_true, y_prob, subgroups, *, n_bins: int = 10, strategy: Strategy = "uniform",
                       sample_weight=None):
    """Per-(subgroup, bin) sums behind every calibration number, computed once.

    With `sample_weight` the sums are weighted: per bin, sum w (the bin's mass), sum w y_prob,
    sum w y_true and sum w (y_prob - y_true) ** 2, so the reliability diagram shows weighted means
    and ECE = sum_b |sum w y - sum w p| / sum w weighs each bin by its mass; the sums of squared
    weights per bin are kept too (``member_sq``...), and sizes and the small-subgroup flag use
    Kish's effective sample size (sum w)^2 / sum w^2.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_prob : array-like of shape (n_samples,)
        Predicted probabilities in [0, 1].
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
        Exact uniform edges ``arange(n_bins + 1) / n_bins``, or quantiles of the pooled scores
        (with weights, of the scores with frequency weights: integer weights give the edges of the
        repeated rows).
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row; None counts rows. With weights the atoms keep each row's
        pattern, cell and weight, and the intervals bootstrap the rows with their weights (see
        :meth:`CalibrationCounts.error_table`).

    Returns
    -------
    CalibrationCounts
        Call ``.reliability_table()``, ``.error_table()`` or ``.disparity(...)``; with ``ci=``
        these resample its ``atoms`` (counts per membership pattern, bin, sub-bin and label)
        without touching the rows again.

    Raises
    ------
    ValueError
        If a score is outside [0, 1], an option is invalid or a weight is negative, NaN,
        infinite or of the wrong length.
    """
    return CalibrationCounts.compute(y_true, y_prob, subgroups, n_bins=n_bins, strategy=strategy,
                                     sample_weight=sample_weight)
