"""Several models' calibration on the same rows: each one's ECE per subgroup and its difference from a baseline model.

Sufficient statistic of a pair (model A, baseline B): the rows counted per *joint cell*, (membership
pattern, bin of A, bin of B, label), with the sums of A's and of B's probabilities in each cell. A
subgroup's ECE under A is sum_b |sum_y_b - sum_p_b| / n over A's bins, and every per-bin sum is a
sum of joint cells, so both ECEs (and their difference) come from the same table. A bootstrap
replicate redraws each pattern's cell counts from Multinomial(n_p, counts_p / n_p): the cell counts
of a resample of that pattern's rows, the same rows for both models (a paired bootstrap, stratified
by membership pattern as every interval of the package; ``_bootstrap.Atoms``).

With sample weights every sum is weighted (ECE = sum_b |sum_b w y - sum_b w p| / sum w) and a
multinomial redraw of counts has no meaning for sums of weights: the paired bootstrap deals the rows
themselves, each with its weight, into ``BUCKETS`` buckets and reweights the buckets
(:class:`_PairedRows`, ``BucketSplit.of_rows``, as the weighted rate disparities), each row keeping
its own probabilities under both models (no cell means: nothing is approximated).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from .._stats.bootstrap import BUCKETS, Atoms, BucketDraws, BucketSplit, check_boot_options, percentile_interval
from .._disparity.calibration_errors import _errors
from .._data.checks import as_binary, as_probabilities, check_int, check_option, model_columns
from .._counts.binning import STRATEGIES, bin_index
from .._counts.calibration import CalibrationCounts
from .._counts.weights import check_sample_weight
from .._counts.patterns import over_patterns
from .aucs import check_models
from .._subgroups.subgroups import as_subgroups


def compare_model_calibration(y_true, probabilities: Mapping[str, object], subgroups, *, baseline: str,
                              n_bins: int = 10, strategy: str = "uniform", min_per_group: int = 5, ci=0.95,
                              n_boot: int = 1000, random_state=0, sample_weight=None,
                              _replicates=None) -> pd.DataFrame:
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

    With `sample_weight` each model's ECE is the weighted one of
    ``calibration_counts(y_true, p, subgroups, sample_weight=w)`` (:func:`calibration_errors`
    with weights),

        ECE = sum_b |sum_{i in b} w_i y_i - sum_{i in b} w_i p_i| / sum_i w_i,

    every bin weighed by its mass, over the model's own bins (quantile edges of the scores with
    frequency weights); ``size`` is Kish's effective sample size (sum w)^2 / sum w^2, which
    ``min_per_group`` and the small flag are compared with. The difference's interval comes from a
    paired bootstrap of the rows with their weights: each row, with its weight, its label and its
    probability under both models, is dealt at random into one of ``BUCKETS`` = 200 buckets
    (``BucketSplit.of_rows``), and a replicate reweights the buckets (Multinomial(200, 1/200)
    bucket counts, as the bootstrap of the weighted rate disparities), recomputing both models'
    weighted ECEs, each divided by the replicate's own sum of weights, from the same re-dealt rows.
    Each row keeps its own probabilities, so nothing is approximated; bins stay as computed on the
    data, and a subgroup's ECE is left out (NaN) in the replicates when the estimate is. That
    bootstrap is not stratified by membership pattern, so unit weights give the unweighted values
    (up to the order of floating-point sums) but intervals that differ by bootstrap noise.

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
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row (a row of weight 0 takes no part); None counts every
        row once.
    _replicates : dict or None, default=None
        For the release gate (``_review.change_levels``): a dict that receives, under each other model's name, a
        list of one (subgroups, replicates) pair: the subgroups ``(None, *names)`` (None: all rows) and the paired
        replicates of ECE_model - ECE_baseline, an ndarray of shape (n_boot, 1 + n_subgroups) in that order; left
        empty without `ci`.

    Returns
    -------
    DataFrame
        One row per (model, subgroup): models in the order given (the baseline included, with a
        difference of 0), each with all rows first (``subgroup`` None) and then the subgroups in
        ``subgroups.names`` order. Columns ``model, subgroup, size, small, value`` (the ECE;
        with weights ``size`` is the effective sample size, a float),
        ``baseline_value, difference`` (model - baseline) and, with `ci`, ``difference_ci_low,
        difference_ci_high, excludes_zero`` (None for the baseline and where undefined); then
        ``note``. ``attrs``: ``baseline``, ``ci``, ``n_boot``, ``n_bins``, ``strategy``.

    Raises
    ------
    ValueError
        For fewer than two models or an unknown baseline, a probability outside [0, 1], labels
        that are not 0/1, lengths that differ, a bad option, or weights that are negative, NaN,
        infinite, not numbers or of the wrong length.

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
    w = check_sample_weight(sample_weight, len(y), func)
    groups = as_subgroups(subgroups, len(y), func)
    base = names.index(str(baseline))
    patterns = groups.patterns
    counts = [CalibrationCounts.compute(y, p, groups, n_bins=n_bins, strategy=strategy, sample_weight=w, func=func)
              for p in probs]
    bins = [bin_index(p, c.edges) for p, c in zip(probs, counts)]   # weighted quantile edges with weights
    if w is None:
        sizes = np.concatenate([[len(y)], groups.sizes]).astype(np.int64)
        small = np.concatenate([[False], groups.small])
    else:   # effective sample sizes (the same for every model: they depend on the weights alone)
        sizes = np.concatenate([[counts[0].overall_size], counts[0].sizes])
        small = np.concatenate([[False], counts[0]._small()[0]])
    ece, draws = {}, {}
    for i, name in enumerate(names):
        stats = np.concatenate([counts[i].overall[None], counts[i].member])
        ece[name], _, _, notes = _errors(stats, min_per_group, None if w is None else sizes)
        if level is not None and i != base and np.array_equal(probs[i], probs[base]):
            draws[name] = np.zeros((n_boot, len(sizes)))   # the same rows and probabilities in every replicate
        elif level is not None and i != base and w is not None:
            paired = _PairedRows(patterns, y, (bins[i], bins[base]), (probs[i], probs[base]), w, n_bins, rng)
            draws[name] = np.subtract(*paired.ece(n_boot, rng, sizes >= min_per_group))
        elif level is not None and i != base:
            cells = _PairedCells.of(patterns, y, (bins[i], bins[base]), (probs[i], probs[base]), n_bins)
            draws[name] = np.concatenate([np.subtract(*cells.ece(block, min_per_group))
                                          for block in cells.atoms.replicates(n_boot, rng)])
    if _replicates is not None:
        _replicates.update({name: [((None, *groups.names), d)] for name, d in draws.items()})
    rows = []
    for name in names:
        difference = ece[name] - ece[names[base]]
        part = {"model": name, "size": sizes, "small": small, "value": ece[name],
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


class _PairedRows:
    """The rows of a model and the baseline with their sample weights, dealt at random into ``BUCKETS`` buckets.

    Each row (its membership pattern, weight w, label y, bin and probability under the model and under
    the baseline) goes to one bucket drawn uniformly (``BucketSplit.of_rows`` with the row itself as its
    cell, so every entry of the split is one row); the per-bucket sums, over all rows and each subgroup's
    rows, are

        sum w (y - p_model) per bin of the model,  sum w (y - p_baseline) per bin of the baseline,  sum w,

    one sparse product per column (``BucketSplit.spread``). A replicate reweights the buckets
    (Multinomial(K, 1/K) counts: the bootstrap of the buckets as units) and reads both weighted ECEs off
    the same reweighted sums.
    """

    def __init__(self, patterns, y: np.ndarray, bins: tuple, probs: tuple, weights: np.ndarray, n_bins: int,
                 rng: np.random.Generator):
        codes, member, _ = patterns
        n = len(y)
        split = BucketSplit.of_rows(codes, np.arange(n), weights, (member.shape[0], max(n, 1)), BUCKETS, rng)
        row = split.cell                                   # each entry one row: its count is the row's weight
        w, label = split.count, y[row].astype(np.float64)
        columns = np.stack([bins[0][row], n_bins + bins[1][row], np.full(len(row), 2 * n_bins)], axis=1)
        values = np.stack([w * (label - probs[0][row]), w * (label - probs[1][row]), w], axis=1)
        m, _, o = split.spread(columns, values, 2 * n_bins + 1, member, None)   # (K, k, C), (K, C)
        self.sums = np.concatenate([o[:, None, :], m], axis=1)              # (K, 1 + k, 2 n_bins + 1)
        self.n_bins = n_bins

    def ece(self, n_boot: int, rng: np.random.Generator, enough: np.ndarray) -> np.ndarray:
        """The model's and the baseline's weighted ECEs in `n_boot` replicates: shape (2, n_boot, 1 + k), NaN where
        the estimate is left out (not `enough`, shape (1 + k,)) or a replicate holds no weight."""
        k = self.sums.shape[0]
        counts = rng.multinomial(k, np.full(k, 1.0 / k), size=n_boot).astype(np.float64)   # (B, K)
        sums = np.matmul(counts, self.sums.reshape(k, -1)).reshape((n_boot,) + self.sums.shape[1:])
        gaps, mass = sums[..., :-1], sums[..., -1]
        total = np.abs(gaps.reshape(gaps.shape[:2] + (2, self.n_bins))).sum(axis=-1)   # (B, 1 + k, 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(enough[None, :, None] & (mass > 0)[..., None], total / mass[..., None], np.nan)
        return out.transpose(2, 0, 1)
