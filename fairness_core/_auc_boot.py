"""Bootstrap replicates of every AUC of the bias AUC family, for intervals of composite numbers (§5.6).

Sufficient statistic: per membership pattern, label and score level, the row count. For speed the
score levels are merged into at most ``MAX_LEVELS`` adjacent groups of about equal size (ties are
never split), the resampled AUCs are computed on those groups, and each replicate is shifted by the
difference between the exact AUC and the AUC of the merged levels on the original data. The shift
makes the bootstrap distribution centre on the exact estimate; the merging changes an AUC by at
most ½ Σ_g (P_g / P)(N_g / N) (pairs inside one group counted as ties), below 2e-3 for 256 groups
of evenly spread scores. With fewer distinct scores than ``MAX_LEVELS`` nothing is merged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._bootstrap import Atoms, replicate_stat

MAX_LEVELS = 256
AUC_COLUMNS = ("subgroup_auc", "bpsn_auc", "bnsp_auc")


def auc_of_hists(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Mann-Whitney AUC from level histograms of shape (..., n_levels), ties counting ½; NaN if a side is empty."""
    n_pos = pos.sum(axis=-1)
    n_neg = neg.sum(axis=-1)
    below = np.cumsum(neg, axis=-1) - 0.5 * neg
    with np.errstate(divide="ignore", invalid="ignore"):
        auc = (pos * below).sum(axis=-1) / (n_pos * n_neg)
    return np.where((n_pos > 0) & (n_neg > 0), auc, np.nan)


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


def _stat(n_levels: int):
    def stat(member, background, overall):
        m = member.reshape(*member.shape[:-1], n_levels, 2)
        b = background.reshape(*background.shape[:-1], n_levels, 2)
        o = overall.reshape(*overall.shape[:-1], n_levels, 2)
        sub = auc_of_hists(m[..., 1], m[..., 0])
        bpsn = auc_of_hists(b[..., 1], m[..., 0])
        bnsp = auc_of_hists(m[..., 1], b[..., 0])
        whole = auc_of_hists(o[..., 1], o[..., 0])
        k = sub.shape[-1]
        return np.concatenate([np.stack([sub, bpsn, bnsp], axis=-1).reshape(len(sub), 3 * k), whole[:, None]], axis=1)
    return stat


def auc_replicates(y: np.ndarray, level: np.ndarray, n_levels: int, subgroups, exact: np.ndarray,
                   exact_overall: float, *, n_boot: int, rng: np.random.Generator) -> AucReplicates:
    """Resample (pattern, merged level, label) counts and compute every AUC per replicate.

    Parameters
    ----------
    y : ndarray of bool, shape (n_samples,)
    level : ndarray of int, shape (n_samples,)
        Each row's tie level in increasing score order (from the one sort of the score column).
    n_levels : int
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
    counts = np.bincount(level, minlength=n_levels)
    if n_levels > MAX_LEVELS:
        start = np.cumsum(counts) - counts  # rows below each level
        group = np.minimum((start * MAX_LEVELS) // max(len(level), 1), MAX_LEVELS - 1)
        _, group = np.unique(group, return_inverse=True)
        merged = group[level]
        n_merged = int(group.max()) + 1
    else:
        merged, n_merged = level, n_levels
    cell = (2 * merged + y.astype(np.intp)).astype(np.intp)
    atoms = Atoms.of(subgroups, cell, 2 * n_merged)
    stat = _stat(n_merged)
    point = stat(*atoms.tables(atoms.counts[None]))[0]
    reps = replicate_stat(atoms, stat, n_boot, rng)
    target = np.concatenate([np.asarray(exact, dtype=np.float64).reshape(-1), [exact_overall]])
    reps = reps + (target - point)[None, :]
    reps = np.clip(reps, 0.0, 1.0)
    k = len(subgroups.names)
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
