"""Several models' calibration on the same rows: each one's ECE per subgroup and its difference from a baseline model.

Sufficient statistic of a pair (model A, baseline B): the rows counted per *joint cell*, (membership
pattern, bin of A, bin of B, label), with the sums of A's and of B's probabilities in each cell. A
subgroup's ECE under A is sum_b |sum_y_b - sum_p_b| / n over A's bins, and every per-bin sum is a
sum of joint cells, so both ECEs (and their difference) come from the same table. A bootstrap
replicate redraws each pattern's cell counts from Multinomial(n_p, counts_p / n_p): the cell counts
of a resample of that pattern's rows, the same rows for both models (a paired bootstrap, stratified
by membership pattern as every interval of the package; ``_bootstrap.Atoms``).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from .._stats.bootstrap import Atoms, BucketDraws, check_boot_options, percentile_interval
from .._disparity.calibration_errors import _errors
from .._data.checks import as_binary, as_probabilities, check_int, check_option, model_columns
from .._counts.binning import STRATEGIES, bin_edges, bin_index
from .._counts.calibration import CalibrationCounts
from .._counts.patterns import over_patterns
from .aucs import check_models
from .._subgroups.subgroups import as_subgroups


def compare_model_calibration(y_true, probabilities: Mapping[str, object], subgroups, *, baseline: str,
                              n_bins: int = 10, strategy: str = "uniform", min_per_group: int = 5, ci=0.95,
                              n_boot: int = 1000, random_state=0) -> pd.DataFrame:
    """Each model's expected calibration error per subgroup and overall, and its paired difference from a baseline model.

    ECE = sum_b |sum_y_b - sum_p_b| / n = sum_b (n_b / n) |fraction_positive_b - mean_predicted_b|
    over each model's own bins, exactly as :func:`calibration_errors` gives it for that model (the
    same bins, the same ``min_per_group`` rule). The difference ECE_model - ECE_baseline gets a
    paired bootstrap percentile interval: each replicate resamples the rows, stratified by
    membership pattern (subgroup sizes stay fixed), and recomputes both models' ECEs on the same
    resampled rows. It works from the counts per (membership pattern, bin of the model, bin of the
    baseline, label), which keep the sums of both models' probabilities; no row is resampled.

    What is approximated: a replicate's sum of probabilities in a joint cell is its resampled count
    times the cell's mean probability, which drops the spread of the probabilities inside the cell
    (each cell is already narrower than a bin: it is cut by the other model's bin too). Bins stay
    as computed on the data: uniform edges are fixed anyway; quantile edges (each model's own
    quantiles of its probabilities, as for a single model) are not recomputed per replicate, as in
    :meth:`CalibrationCounts.error_table`. The estimates themselves are exact. A model whose
    probabilities equal the baseline's differs from it by exactly 0 in every replicate.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    probabilities : mapping of str to array-like of shape (n_samples,)
        Each model's predicted probabilities, in [0, 1]; at least two.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    baseline : str
        The model the others are compared with (a key of `probabilities`).
    n_bins : int >= 1, default=10
    strategy : {'uniform', 'quantile'}, default='uniform'
    min_per_group : int >= 1, default=5
        A subgroup with fewer rows has no ECE (NaN, with a note).
    ci : float in (0, 1) or None, default=0.95
        Level of the difference's interval; None: no interval.
    n_boot : int >= 100, default=1000
    random_state : None, int >= 0 or numpy Generator, default=0
        Seed of the bootstrap (the models after the baseline draw from it in turn).

    Returns
    -------
    DataFrame
        One row per (model, subgroup): models in the order given (the baseline included, with a
        difference of 0), each with all rows first (``subgroup`` None) and then the subgroups in
        ``subgroups.names`` order. Columns ``model, subgroup, size, small, value`` (the ECE),
        ``baseline_value, difference`` (model - baseline) and, with `ci`, ``difference_ci_low,
        difference_ci_high, excludes_zero`` (None for the baseline and where undefined); then
        ``note``. ``attrs``: ``baseline``, ``ci``, ``n_boot``, ``n_bins``, ``strategy``.

    Raises
    ------
    ValueError
        For fewer than two models or an unknown baseline, a probability outside [0, 1], labels
        that are not 0/1, lengths that differ, or a bad option.

    References
    ----------
    Naeini, Cooper and Hauskrecht (2015); Guo et al. (2017), "On Calibration of Modern Neural
    Networks" (ECE). Efron, B. and Tibshirani, R. (1993), "An Introduction to the Bootstrap",
    ch. 6 and 16 (paired and stratified resampling, percentile intervals).

    Examples
    --------
    >>> y = [0, 1] * 20
    >>> table = compare_model_calibration(y, {"a": [0.3, 0.7] * 20, "b": [0.1, 0.9] * 20}, ["x"] * 40,
    ...                                   baseline="a", ci=None)
    >>> [round(v, 3) for v in table.loc[table["model"] == "b", "difference"]]
    [-0.2, -0.2]
    """
    func = "compare_model_calibration"
    check_models(probabilities, baseline, func)
    n_bins = check_int(n_bins, 1, "n_bins", func)
    check_option(strategy, STRATEGIES, "strategy", func)
    min_per_group = check_int(min_per_group, 1, "min_per_group", func)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    y = as_binary(y_true, "y_true", func).astype(np.intp)
    checked = model_columns(probabilities, len(y), as_probabilities, "probabilities", func)
    names, probs = list(checked), list(checked.values())
    groups = as_subgroups(subgroups, len(y), func)
    bins = [bin_index(p, bin_edges(p, n_bins, strategy)) for p in probs]
    base = names.index(str(baseline))
    patterns = groups.patterns
    sizes = np.concatenate([[len(y)], groups.sizes])
    small = np.concatenate([[False], groups.small])
    ece, draws = {}, {}
    for i, name in enumerate(names):
        counts = CalibrationCounts.compute(y, probs[i], groups, n_bins=n_bins, strategy=strategy, func=func)
        stats = np.concatenate([counts.overall[None], counts.member])
        ece[name], _, _, notes = _errors(stats, min_per_group)
        if level is not None and i != base and np.array_equal(probs[i], probs[base]):
            draws[name] = np.zeros((n_boot, len(sizes)))   # the same rows and probabilities in every replicate
        elif level is not None and i != base:
            cells = _PairedCells.of(patterns, y, (bins[i], bins[base]), (probs[i], probs[base]), n_bins)
            draws[name] = np.concatenate([np.subtract(*cells.ece(block, min_per_group))
                                          for block in cells.atoms.replicates(n_boot, rng)])
    rows = []
    for name in names:
        difference = ece[name] - ece[names[base]]
        part = {"model": name, "size": sizes.astype(np.int64), "small": small, "value": ece[name],
                "baseline_value": ece[names[base]], "difference": difference}
        if level is not None:
            if name == names[base]:
                low = high = np.where(np.isnan(difference), np.nan, 0.0)
                excludes = [None] * len(difference)
            else:
                low, high, _ = percentile_interval(draws[name], level)
                low, high = np.where(np.isnan(difference), np.nan, low), np.where(np.isnan(difference), np.nan, high)
                excludes = [None if np.isnan(lo) else bool(lo > 0 or hi < 0) for lo, hi in zip(low, high)]
            part |= {"difference_ci_low": low, "difference_ci_high": high,
                     "excludes_zero": np.array(excludes, dtype=object)}
        part["note"] = notes
        rows.append(pd.DataFrame(part))
    table = pd.concat(rows, ignore_index=True)
    table.insert(1, "subgroup", pd.Series([None, *groups.names] * len(names), dtype=object))
    table.attrs.update(baseline=names[base], ci=level, n_boot=n_boot if level is not None else None, n_bins=n_bins,
                       strategy=strategy)
    return table


class _PairedCells:
    """The rows of a model and the baseline per membership pattern and joint cell (bin of each, label).

    Each pattern keeps only its occupied cells, in *slots* (padded with empty ones): ``atoms`` holds
    the slot counts, shape (n_patterns, n_slots), and the patterns' subgroup masks (what the
    bootstrap redraws); ``weights`` (n_patterns, n_slots, 2 n_bins) puts each slot's label - mean
    probability under the model in the column of its bin under the model, and the same under the
    baseline in the column n_bins + its bin under the baseline.
    """

    def __init__(self, atoms: Atoms, weights: np.ndarray, n_bins: int):
        self.atoms, self.weights, self.n_bins = atoms, weights, n_bins
        self.n = np.concatenate([[atoms.counts.sum()], atoms.member.T.astype(np.float64) @ atoms.counts.sum(axis=1)])

    @classmethod
    def of(cls, patterns, y: np.ndarray, bins: tuple, probs: tuple, n_bins: int) -> "_PairedCells":
        """From the rows: `patterns` as ``Subgroups.patterns``, labels `y` (0/1), the model's and the
        baseline's `bins` and probabilities `probs` (each shape (n_samples,))."""
        codes, member, background = patterns
        n_cells = 2 * n_bins * n_bins
        pair, occupied = pd.factorize(codes * n_cells + (bins[0] * n_bins + bins[1]) * 2 + y, sort=True)
        count = np.bincount(pair, minlength=len(occupied)).astype(np.float64)
        pattern, cell = occupied // n_cells, occupied % n_cells
        per_pattern = np.bincount(pattern, minlength=member.shape[0])
        slot = np.arange(len(occupied)) - (np.cumsum(per_pattern) - per_pattern)[pattern]
        n_slots = max(1, int(per_pattern.max(initial=0)))
        counts = np.zeros((member.shape[0], n_slots))
        counts[pattern, slot] = count
        weights = np.zeros((member.shape[0], n_slots, 2 * n_bins))
        label, joint = cell % 2, cell // 2
        for model, bin_of in enumerate((joint // n_bins, joint % n_bins)):
            mean = np.bincount(pair, weights=probs[model], minlength=len(occupied)) / count
            weights[pattern, slot, model * n_bins + bin_of] = label - mean
        keep = per_pattern > 0
        return cls(Atoms(counts[keep], member[keep], background[keep]), weights[keep], n_bins)

    def ece(self, counts, min_per_group: int) -> np.ndarray:
        """ECEs of resampled slot counts (B, n_patterns, n_slots): shape (2, B, 1 + n_subgroups), model then baseline.

        Per pattern and bin, sum_y - sum_p = sum over the bin's slots of count x (label - mean p):
        one stacked matrix product with ``weights``; then sums over each subgroup's patterns. The
        rows per subgroup are fixed by the stratified resampling, so ECE = sum_b |sum_y_b - sum_p_b| / n
        with the n and ``min_per_group`` rule of the estimate. A block of the bucket bootstrap
        (``_bootstrap.BucketDraws``, many patterns) reweights per-bucket sums (:meth:`_linear`); its
        rows per subgroup vary, so each replicate divides by its own n.
        """
        if isinstance(counts, BucketDraws):
            gaps, n = counts.reweight(counts.split.dense_tables(self._linear))   # (B, 1 + k, 2 n_bins), (B, 1 + k)
            total = np.abs(gaps.reshape(gaps.shape[:2] + (2, self.n_bins))).sum(axis=-1)   # (B, 1 + k, 2)
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.where((self.n >= min_per_group)[None, :, None] & (n > 0)[..., None], total / n[..., None], np.nan)
            return out.transpose(2, 0, 1)
        lead, n_patterns = counts.shape[:2]
        gaps = np.matmul(counts.transpose(1, 0, 2), self.weights)                 # (patterns, B, 2 n_bins)
        per_subgroup = over_patterns(self.atoms.member, gaps.reshape(n_patterns, -1))
        every = np.concatenate([gaps.sum(axis=0)[None], per_subgroup.reshape((-1,) + gaps.shape[1:])])
        total = np.abs(every.reshape(every.shape[:2] + (2, self.n_bins))).sum(axis=-1)   # (1 + k, B, 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.n >= min_per_group, np.moveaxis(total, 0, -1) / self.n, np.nan).transpose(1, 0, 2)

    def _linear(self, counts: np.ndarray) -> tuple:
        """The sums linear in slot counts (..., n_patterns, n_slots): (..., 1 + k, 2 n_bins) of label - mean p per
        bin (overall, then each subgroup) and (..., 1 + k) rows."""
        gaps = np.einsum("...ps,psg->...pg", counts, self.weights)               # (..., patterns, 2 n_bins)
        member = self.atoms.member.T.astype(np.float64)                         # (k, patterns)
        rows = counts.sum(axis=-1)                                               # (..., patterns)
        every = np.concatenate([gaps.sum(axis=-2)[..., None, :], np.matmul(member, gaps)], axis=-2)
        n = np.concatenate([rows.sum(axis=-1)[..., None], rows @ member.T], axis=-1)
        return every, n
