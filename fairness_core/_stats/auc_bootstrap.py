"""Bootstrap replicates of every AUC of the bias AUC family, for intervals of composite numbers.

Sufficient statistic: per membership pattern, label and score level, the row count. For speed the
score levels are merged into at most ``MAX_LEVELS`` adjacent groups of about equal size (ties are
never split), the resampled AUCs are computed on those groups, and each replicate is shifted by the
difference between the exact AUC and the AUC of the merged levels on the original data. The shift
makes the bootstrap distribution centre on the exact estimate; the merging changes an AUC by at
most ½ Σ_g (P_g / P)(N_g / N) (pairs inside one group counted as ties), below 2e-3 for 256 groups
of evenly spread scores. With fewer distinct scores than ``MAX_LEVELS`` nothing is merged. The
bucket bootstrap (many membership patterns, ``_bootstrap.BUCKET_PATTERNS``) merges into at most
``BUCKET_LEVELS`` groups.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import bootstrap
from .bootstrap import Atoms, BucketDraws

MAX_LEVELS = 256
# Level groups of the bucket bootstrap (many patterns): each replicate holds every subgroup's and background's
# histogram, so its cost is K x subgroups x levels; merging changes an AUC by at most about 1 / (2 x groups), and
# the shift below centres the replicates on the exact AUCs.
BUCKET_LEVELS = 64
AUC_COLUMNS = ("subgroup_auc", "bpsn_auc", "bnsp_auc")


@dataclass(frozen=True)
class AucReplicates:
    """Bootstrap replicates of the per-subgroup AUCs and the overall AUC.

    Attributes
    ----------
    aucs : ndarray of shape (n_boot, n_subgroups, 3)
        Subgroup, BPSN and BNSP AUC of each replicate (NaN where a side is empty).
    overall : ndarray of shape (n_boot,)
        Overall AUC of each replicate.
    n_levels : int
        Score levels used for resampling (after merging).
    """

    aucs: np.ndarray
    overall: np.ndarray
    n_levels: int


def _stat(atoms: Atoms, n_levels: int):
    """Every AUC of a stack of (pattern, level, label) counts -> shape (..., 3 k + 1).

    Columns: subgroup, BPSN and BNSP AUC of each subgroup in turn, then the overall AUC. The
    numerators are sums of integer counts (exact in float64): 2 U = sum_t P[t] (2 N[<= t] - N[t]).
    When every pattern lies in exactly one subgroup and the background is the rest (disjoint
    subgroups), the background counts are total - member and the member counts a scatter of the
    patterns, so BPSN and BNSP need no histogram of their own. A block of the bucket bootstrap
    (``BucketDraws``, many patterns) gives its replicates' member, background and overall counts
    directly (``Atoms.tables``).
    """
    k = atoms.member.shape[1]
    member = atoms.member.astype(np.float64)
    background = atoms.background.astype(np.float64)
    disjoint = k > 0 and bool(np.all(atoms.member.sum(axis=1) == 1) and np.all(atoms.background == ~atoms.member))
    owner = np.argmax(atoms.member, axis=1) if disjoint else None   # distinct: patterns are distinct rows

    def twice_u(pos, neg_climb):
        return np.einsum("...l,...l->...", pos, neg_climb)

    def stat(counts):
        if isinstance(counts, BucketDraws):   # the bucket bootstrap: its replicates' tables, every pattern summed
            m, b, total = atoms.tables(counts)
            lead = m.shape[:-2]
            return of_tables(m.reshape(*lead, k, n_levels, 2), total.reshape(*lead, n_levels, 2),
                             b.reshape(*lead, k, n_levels, 2))
        lead = counts.shape[:-2]
        c = counts.reshape(*lead, counts.shape[-2], n_levels, 2)
        total = c.sum(axis=-3)                                     # (..., L, 2)
        if owner is not None:
            m = np.zeros((*lead, k, n_levels, 2))
            m[..., owner, :, :] = c
            return of_tables(m, total, None)
        return of_tables(_over_patterns(c, member), total, _over_patterns(c, background))

    def of_tables(m, total, b):
        """Every AUC from member (..., k, L, 2), overall (..., L, 2) and background counts (None: total - member
        per subgroup, with the disjoint shortcut)."""
        lead = total.shape[:-2]
        neg_m, pos_m = m[..., 0], m[..., 1]
        climb_m = 2.0 * np.cumsum(neg_m, axis=-1) - neg_m          # 2 N[<= t] - N[t]
        climb_t = 2.0 * np.cumsum(total[..., 0], axis=-1) - total[..., 0]
        n_sp, n_sn = pos_m.sum(axis=-1), neg_m.sum(axis=-1)
        n_pos, n_neg = total[..., 1].sum(axis=-1), total[..., 0].sum(axis=-1)
        sub = twice_u(pos_m, climb_m)
        if b is None:
            n_bp, n_bn = n_pos[..., None] - n_sp, n_neg[..., None] - n_sn
            bpsn = twice_u(total[..., None, :, 1], climb_m) - sub
            bnsp = twice_u(pos_m, climb_t[..., None, :]) - sub
        else:
            neg_b, pos_b = b[..., 0], b[..., 1]
            n_bp, n_bn = pos_b.sum(axis=-1), neg_b.sum(axis=-1)
            bpsn = twice_u(pos_b, climb_m)
            bnsp = twice_u(pos_m, 2.0 * np.cumsum(neg_b, axis=-1) - neg_b)
        whole = twice_u(total[..., 1], climb_t)
        with np.errstate(divide="ignore", invalid="ignore"):
            aucs = np.stack([sub / (2.0 * n_sp * n_sn), bpsn / (2.0 * n_bp * n_sn), bnsp / (2.0 * n_sp * n_bn)], axis=-1)
            aucs = np.where(np.stack([n_sp * n_sn, n_bp * n_sn, n_sp * n_bn], axis=-1) > 0, aucs, np.nan)
            overall = np.where(n_pos * n_neg > 0, whole / (2.0 * n_pos * n_neg), np.nan)
        return np.concatenate([aucs.reshape(*lead, 3 * k), overall[..., None]], axis=-1)
    return stat


def _over_patterns(c: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Sum (..., pattern, level, label) counts into (..., subgroup, level, label) through the (pattern, subgroup) masks.

    A matrix product per replicate: masks.T (k, P) @ counts (P, levels x 2). With many patterns and
    overlapping subgroups (identity columns) this is most of the bootstrap's work, and BLAS does it
    many times faster than ``einsum``'s loops; the sums of integer counts stay exact.
    """
    lead, (p, n_levels, two) = c.shape[:-3], c.shape[-3:]
    flat = c.reshape(*lead, p, n_levels * two)
    # masks.T copied C-contiguous: a transposed operand can take numpy's batched matmul off its BLAS path
    out = np.matmul(np.ascontiguousarray(masks.T), flat)    # (..., k, levels x 2)
    return out.reshape(*lead, masks.shape[1], n_levels, two)


def _merged_levels(level_counts: np.ndarray, max_levels: int = MAX_LEVELS) -> np.ndarray:
    """Group of each level: adjacent levels merged into at most `max_levels` groups of about equal rows."""
    n_levels = len(level_counts)
    if n_levels <= max_levels:
        return np.arange(n_levels)
    start = np.cumsum(level_counts) - level_counts  # rows below each level
    group = np.minimum((start * max_levels) // max(int(level_counts.sum()), 1), max_levels - 1)
    step = np.ones(n_levels, dtype=bool)  # group never decreases: number its distinct values in order
    np.not_equal(group[1:], group[:-1], out=step[1:])
    return np.cumsum(step) - 1


def level_groups(level_counts: np.ndarray, n_patterns: int) -> np.ndarray:
    """Group of each score level for the AUC atoms of rows with `n_patterns` membership patterns: adjacent levels
    merged into at most ``MAX_LEVELS`` groups of about equal rows, or ``BUCKET_LEVELS`` above
    ``bootstrap.BUCKET_PATTERNS`` patterns (what the bucket bootstrap evaluates: four times fewer cells per
    pattern to count, keep and split). The in-memory library and every engine group by this one rule, so their
    atoms, and a seed's intervals, are the same."""
    many = n_patterns > bootstrap.BUCKET_PATTERNS
    return _merged_levels(np.asarray(level_counts), BUCKET_LEVELS if many else MAX_LEVELS)


def auc_replicates(y: np.ndarray, level: np.ndarray, level_counts: np.ndarray, subgroups, exact: np.ndarray,
                   exact_overall: float, *, n_boot: int, rng: np.random.Generator) -> AucReplicates:
    """Resample (pattern, merged level, label) counts of rows and compute every AUC per replicate.

    Parameters
    ----------
    y : ndarray of bool, shape (n_samples,)
    level : ndarray of int, shape (n_samples,)
        Each row's tie level in increasing score order (from the one sort of the score column).
    level_counts : ndarray of int, shape (n_levels,)
        Rows per level.
    subgroups : Subgroups
    exact : ndarray of shape (n_subgroups, 3)
        The exact subgroup, BPSN and BNSP AUCs (the table's values), used to centre the replicates.
    exact_overall : float
    n_boot : int
    rng : numpy Generator

    Returns
    -------
    AucReplicates
    """
    codes = subgroups.patterns[0]
    group = level_groups(level_counts, int(np.count_nonzero(np.bincount(codes)))) if len(codes) else np.zeros(0, int)
    n_merged = int(group[-1]) + 1 if len(group) else 0
    cell = (2 * group[level] + y.astype(np.intp)).astype(np.intp)
    return replicates_of(Atoms.of(subgroups, cell, 2 * n_merged), n_merged, exact, exact_overall,
                         n_boot=n_boot, rng=rng)


def level_atoms(counts, member: np.ndarray, background: np.ndarray) -> tuple[Atoms, int]:
    """Atoms over (merged level, label) cells from counts per (pattern, label, level).

    Parameters
    ----------
    counts : scipy.sparse matrix of int, shape (n_patterns, 2 * n_levels)
        Per membership pattern, the negatives at each level and then the positives (the layout of
        ``AucCounts``' histograms).
    member, background : ndarray of bool, shape (n_patterns, n_subgroups)

    Returns
    -------
    (Atoms, n_merged)
        The atoms (cell ``2 * group + label``, patterns without rows dropped) and the number of
        merged level groups (:func:`level_groups` of the rows per level, as for rows in memory).
    """
    coo = counts.tocoo()
    n_levels = counts.shape[1] // 2
    label, lev = np.divmod(coo.col.astype(np.int64), n_levels)
    n_patterns = len(np.unique(coo.row[coo.data > 0]))
    group = level_groups(np.bincount(lev, weights=coo.data, minlength=n_levels).astype(np.int64), n_patterns)
    n_merged = int(group[-1]) + 1 if len(group) else 0
    n_cells = 2 * n_merged
    flat = np.bincount(coo.row.astype(np.int64) * n_cells + 2 * group[lev] + label, weights=coo.data,
                       minlength=counts.shape[0] * n_cells).reshape(counts.shape[0], n_cells)
    keep = flat.sum(axis=1) > 0
    return Atoms(flat[keep], np.asarray(member)[keep], np.asarray(background)[keep]), n_merged


def replicates_of(atoms: Atoms, n_merged: int, exact: np.ndarray, exact_overall: float, *, n_boot: int,
                  rng: np.random.Generator) -> AucReplicates:
    """Every AUC of `n_boot` resamples of (pattern, merged level, label) atoms, centred on the exact AUCs.

    Each replicate is shifted by (exact AUC - AUC of the merged levels on the original counts), then
    clipped to [0, 1]; see the module docstring. The atoms' levels are grouped by :func:`level_groups`: with
    more patterns than ``_bootstrap.BUCKET_PATTERNS`` (the bucket bootstrap, whose replicates hold every
    subgroup's and background's histogram) into at most ``BUCKET_LEVELS`` groups.
    """
    stat = _stat(atoms, n_merged)
    # per-bucket tables alone (``Atoms.buckets``): the point is every bucket's tables summed
    point = stat(atoms.counts) if getattr(atoms, "buckets", None) is None else stat(atoms.buckets.whole())[0]
    reps = np.concatenate([stat(block) for block in atoms.replicates(n_boot, rng)])
    target = np.concatenate([np.asarray(exact, dtype=np.float64).reshape(-1), [exact_overall]])
    reps = np.clip(reps + (target - point)[None, :], 0.0, 1.0)
    k = atoms.member.shape[1]
    return AucReplicates(aucs=reps[:, :3 * k].reshape(n_boot, k, 3), overall=reps[:, 3 * k], n_levels=n_merged)


def power_means(values, p: float, axis: int = -1) -> np.ndarray:
    """Power mean M_p along `axis`, NaN left out, computed stably for every p.

    M_p = (mean(v ** p)) ** (1 / p) evaluated as exp((logsumexp(p ln v) - ln n) / p), which neither
    overflows nor underflows for large |p|; |p| < 1e-9 gives the geometric mean exp(mean(ln v)) (the
    limit p -> 0; the difference is below |p| var(ln v)); p = +inf gives the maximum and -inf the
    minimum. With p <= 0 a value of 0 gives 0. The result always lies between the minimum and the
    maximum of the defined values; NaN where none is defined.
    """
    from scipy.special import logsumexp

    v = np.asarray(values, dtype=np.float64)
    v = np.moveaxis(v, axis, -1)
    defined = ~np.isnan(v)
    n = defined.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if np.isposinf(p):
            out = np.where(defined, v, -np.inf).max(axis=-1, initial=-np.inf)
        elif np.isneginf(p):
            out = np.where(defined, v, np.inf).min(axis=-1, initial=np.inf)
        else:
            logv = np.where(defined, np.log(np.where(defined, v, 1.0)), np.nan)
            if abs(p) < 1e-9:
                out = np.exp(np.nansum(np.where(defined, logv, 0.0), axis=-1) / np.maximum(n, 1))
            else:
                terms = np.where(defined, p * logv, -np.inf)
                out = np.exp((logsumexp(terms, axis=-1) - np.log(np.maximum(n, 1))) / p)
            lo = np.where(defined, v, np.inf).min(axis=-1, initial=np.inf)
            hi = np.where(defined, v, -np.inf).max(axis=-1, initial=-np.inf)
            out = np.clip(out, lo, hi)  # rounding can leave [min, max] by an ulp
            if p <= 0:
                out = np.where((lo == 0) & (n > 0), 0.0, out)
    return np.where(n > 0, out, np.nan)
