"""Replicates of the weighted AUC family drawn from its linearization, for intervals of composite numbers.

With sample weights a multinomial redraw of counts has no meaning, and a bootstrap of the weighted rows
under-covered the AUCs (89-91 % at 1,000 rows); the AUC table's intervals are the logit Wald intervals of
the linearized variance (``delong.weighted_auc_variance``). The power means and the bias AUC score combine
every AUC of the table, so their intervals need the AUCs' joint distribution. It is taken from the same
linearization: with ``psi_j(r)`` the influence of row r on AUC j (DeLong's structural component with
weights, ``w_r (V10_j(r) - A_j) / W1_j`` for a positive of AUC j, ``w_r (V01_j(r) - A_j) / W0_j`` for a
negative),

    Cov(A_j, A_k) = sum_r psi_j(r) psi_k(r),

and ``psi_j(r) / w_r`` depends on the row only through its membership pattern, score level and label,
so the covariance is a sum over (pattern, level, label) atoms of their sums of squared weights. Levels
are merged into the groups of the bootstrap (``auc_bootstrap.level_groups``) for this correlation only;
each AUC keeps its exact variance (the table's), so

    Sigma = D R D,   D = diag(sd of each AUC as in the table),   R = correlation of the merged levels.

The replicates are draws logit(A) + Z, Z ~ N(0, J Sigma J), J = diag(1 / (A (1 - A))), in antithetic pairs
(Z, -Z), mapped back by the logistic function: each AUC's replicates reproduce its table interval, and their
joint law carries the correlations (a subgroup AUC and its BNSP AUC share the subgroup's positives). The
power means and the score are reduced from them exactly as from bootstrap replicates (``summarize_bias_auc``). An AUC
with a variance that cannot be formed (an effective size below 2 on a side) takes the Hanley-McNeil
variance of its effective sizes; an AUC of 0 or 1 is drawn as a constant; an undefined AUC is NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .auc_bootstrap import AucReplicates, level_groups

# Entries of the (atom x AUC) matrix formed at once for the covariance: bounds its memory to about 64 MB.
_BLOCK_ENTRIES = 8_000_000


@dataclass(frozen=True)
class WeightedLevelAtoms:
    """Sums of weights and of squared weights per (membership pattern, merged level group, label).

    Attributes
    ----------
    weights, squares : ndarray of float, shape (n_patterns, 2 * n_groups)
        Column ``2 * g + label`` (label 1 = positive) of pattern p: the sum of the weights (of their
        squares) of the pattern's rows with that label in level group g. Patterns without rows dropped.
    member, background : ndarray of bool, shape (n_patterns, n_subgroups)
        The patterns' subgroup masks, as ``bootstrap.Atoms``.
    n_groups : int
        Level groups (``auc_bootstrap.level_groups`` of the weight per level).
    """

    weights: np.ndarray
    squares: np.ndarray
    member: np.ndarray
    background: np.ndarray
    n_groups: int


def weighted_level_atoms(weights, squares, member: np.ndarray, background: np.ndarray) -> WeightedLevelAtoms:
    """The atoms of weighted level histograms per membership pattern.

    Parameters
    ----------
    weights, squares : scipy.sparse matrix of float, shape (n_patterns, 2 * n_levels)
        Per membership pattern, the sums of weights (of squared weights) of the negatives at each level and
        then of the positives (the layout of ``AucCounts``' histograms).
    member, background : ndarray of bool, shape (n_patterns, n_subgroups)

    Returns
    -------
    WeightedLevelAtoms
        Levels merged into the groups of :func:`~fairness_core._stats.auc_bootstrap.level_groups` of the
        weight per level (the weights scaled to a large total, so that the groups hold about equal weight).
    """
    w, q = weights.tocsr(), squares.tocsr()
    n_levels = w.shape[1] // 2
    per_level = np.asarray(w.sum(axis=0)).reshape(2, n_levels).sum(axis=0)
    total = per_level.sum()
    n_patterns = int(np.count_nonzero(np.asarray(w.sum(axis=1)).reshape(-1) > 0))
    scaled = np.floor(per_level * (2.0 ** 40 / total)) if total > 0 else np.zeros(n_levels)
    group = level_groups(scaled, n_patterns) if n_levels else np.zeros(0, np.int64)
    n_groups = int(group[-1]) + 1 if n_levels else 0
    column = np.concatenate([2 * group, 2 * group + 1])        # full-level column -> group column
    merge = _column_map(column, 2 * n_groups)
    w_g, q_g = np.asarray((w @ merge).todense()), np.asarray((q @ merge).todense())
    keep = w_g.sum(axis=1) > 0
    return WeightedLevelAtoms(w_g[keep], q_g[keep], np.asarray(member)[keep], np.asarray(background)[keep], n_groups)


def _column_map(column: np.ndarray, n_columns: int):
    """The sparse 0/1 matrix sending column i to ``column[i]``."""
    from scipy import sparse

    return sparse.csr_matrix((np.ones(len(column)), (np.arange(len(column)), column)), shape=(len(column), n_columns))


def _sides(atoms: WeightedLevelAtoms) -> tuple[np.ndarray, np.ndarray]:
    """(positives' masks, negatives' masks), shape (n_patterns, 3 k + 1): whose positives and whose negatives
    each AUC compares (subgroup, BPSN, BNSP of each subgroup in turn, then the overall AUC)."""
    m, b = atoms.member, atoms.background
    n_patterns, k = m.shape
    pos = np.ones((n_patterns, 3 * k + 1), dtype=bool)
    neg = np.ones_like(pos)
    pos[:, 0:3 * k:3], neg[:, 0:3 * k:3] = m, m       # subgroup AUC
    pos[:, 1:3 * k:3], neg[:, 1:3 * k:3] = b, m       # BPSN: background positives, subgroup negatives
    pos[:, 2:3 * k:3], neg[:, 2:3 * k:3] = m, b       # BNSP: subgroup positives, background negatives
    return pos, neg


def auc_covariance(atoms: WeightedLevelAtoms) -> np.ndarray:
    """The linearized covariance of the 3 k + 1 weighted AUCs of the atoms' merged levels (module docstring).

    Returns
    -------
    ndarray of float, shape (3 k + 1, 3 k + 1)
        Order: subgroup, BPSN and BNSP AUC of each subgroup in turn, then the overall AUC. Rows and
        columns of an AUC with an empty side are 0.
    """
    pos_mask, neg_mask = _sides(atoms)
    w_neg, w_pos = atoms.weights[:, 0::2], atoms.weights[:, 1::2]            # (P, G)
    hist_pos = pos_mask.T.astype(np.float64) @ w_pos                          # (J, G)
    hist_neg = neg_mask.T.astype(np.float64) @ w_neg
    total_pos, total_neg = hist_pos.sum(axis=1), hist_neg.sum(axis=1)
    defined = (total_pos > 0) & (total_neg > 0)
    tp, tn = np.where(defined, total_pos, 1.0)[:, None], np.where(defined, total_neg, 1.0)[:, None]
    v10 = (np.cumsum(hist_neg, axis=1) - hist_neg / 2) / tn                   # negatives below + half at
    v01 = (tp - np.cumsum(hist_pos, axis=1) + hist_pos / 2) / tp              # positives above + half at
    auc = (hist_pos * v10).sum(axis=1, keepdims=True) / tp
    f_pos = np.where(defined[:, None], (v10 - auc) / tp, 0.0)                 # (J, G): psi / w of a positive
    f_neg = np.where(defined[:, None], (v01 - auc) / tn, 0.0)
    n_auc = pos_mask.shape[1]
    cov = np.zeros((n_auc, n_auc))
    for mask, f, squares in ((pos_mask, f_pos, atoms.squares[:, 1::2]), (neg_mask, f_neg, atoms.squares[:, 0::2])):
        p, g = np.nonzero(squares)
        root = np.sqrt(squares[p, g])
        step = max(1, _BLOCK_ENTRIES // max(n_auc, 1))
        for start in range(0, len(p), step):
            pp, gg = p[start:start + step], g[start:start + step]
            x = mask[pp] * f[:, gg].T * root[start:start + step, None]       # (entries, J): psi per unit weight
            cov += x.T @ x
    return cov


def drawn_replicates(atoms: WeightedLevelAtoms, aucs: np.ndarray, overall: float, var: np.ndarray,
                     overall_var: float, n_pos: np.ndarray, n_neg: np.ndarray, *, n_boot: int,
                     rng: np.random.Generator) -> AucReplicates:
    """Replicates of every weighted AUC drawn from their linearized joint law (module docstring).

    Parameters
    ----------
    atoms : WeightedLevelAtoms
    aucs : ndarray of shape (k, 3)
        The table's subgroup, BPSN and BNSP AUCs.
    overall : float
        The overall AUC.
    var : ndarray of shape (k, 3)
        Their linearized variances (``delong.weighted_auc_variance``; NaN where a side's effective size is
        below 2).
    overall_var : float
    n_pos, n_neg : ndarray of shape (3 k + 1,)
        The effective sizes of each AUC's positives and negatives (the table's order, then the overall AUC),
        for the Hanley-McNeil variance where `var` is NaN.
    n_boot : int
    rng : numpy Generator

    Returns
    -------
    AucReplicates
        ``aucs`` (n_boot, k, 3), ``overall`` (n_boot,), ``n_levels`` the atoms' level groups.
    """
    from .delong import _hanley_mcneil

    k = np.asarray(aucs).shape[0]
    a = np.concatenate([np.asarray(aucs, dtype=np.float64).reshape(-1), [overall]])
    v = np.concatenate([np.asarray(var, dtype=np.float64).reshape(-1), [overall_var]])
    regular = np.isfinite(a) & (a > 0) & (a < 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        fallback = _hanley_mcneil(np.where(regular, a, 0.5), np.asarray(n_pos, float), np.asarray(n_neg, float))
    v = np.where(np.isfinite(v), v, fallback)
    regular &= np.isfinite(v) & (v > 0)
    cov = auc_covariance(atoms)
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(sd, sd)
    corr = np.where(np.outer(sd > 0, sd > 0), corr, 0.0)
    np.fill_diagonal(corr, 1.0)
    idx = np.flatnonzero(regular)
    reps = np.tile(a, (n_boot, 1))
    if len(idx):
        scale = np.sqrt(v[idx]) / (a[idx] * (1.0 - a[idx]))                  # the logit scale's sd
        sigma = corr[np.ix_(idx, idx)] * np.outer(scale, scale)
        values, vectors = np.linalg.eigh(sigma)
        half = rng.standard_normal((-(-n_boot // 2), len(idx)))
        # antithetic pairs (xi, -xi): the draws are symmetric about 0 whatever the seed, so a fixed seed shifts no
        # AUC's replicates to one side
        z = np.concatenate([half, -half])[:n_boot] @ (vectors * np.sqrt(np.clip(values, 0.0, None))).T
        centre = np.log(a[idx]) - np.log1p(-a[idx])
        reps[:, idx] = 1.0 / (1.0 + np.exp(-(centre + z)))
    return AucReplicates(aucs=reps[:, :3 * k].reshape(n_boot, k, 3), overall=reps[:, 3 * k], n_levels=atoms.n_groups)
