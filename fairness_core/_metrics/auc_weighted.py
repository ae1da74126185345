"""The weighted AUC tables: level histograms of sums of sample weights, and the AUC table read off them.

With sample weights every AUC of the family is the weighted Mann-Whitney statistic
sum_{i pos, j neg} w_i w_j ([s_i > s_j] + [s_i = s_j] / 2) / (sum w_pos * sum w_neg) of its rows, a function of
the sums of weights (and, for intervals, of squared weights) per label and score level of every subgroup, its
background and all rows (:func:`weighted_level_tables`). :func:`weighted_point_table` reads the table without
intervals from them in time linear in each subgroup's own rows; :func:`weighted_auc_table` adds the linearized
DeLong intervals and the replicates behind the power means' intervals.

References: ``sklearn.metrics.roc_auc_score`` with ``sample_weight`` (the statistic); DeLong, DeLong and
Clarke-Pearson (1988), Biometrics 44(3) (the structural components, here with weights); Kish (1965), *Survey
Sampling* (the effective sample size).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .auc_ranking import _weighted_auc_from_hists
from .auc_table import auc_frame
from .._stats.delong import interval_of


def weighted_level_tables(groups, y: np.ndarray, level: np.ndarray, n_levels: int, w: np.ndarray, *,
                          background: bool = True, atoms: bool = True, squares: bool = True):
    """The weighted level histograms of every subgroup, its background and all rows.

    Sums of `w` and of ``w ** 2`` per (membership pattern, label, level), summed by one sparse COO -> CSR
    conversion each (no sort of the rows), then one sparse product with the pattern masks. With
    ``background=False`` the backgrounds' products (each nearly every row) are not formed:
    :func:`level_sides` reads a background as all rows but the subgroup's and those in neither.

    Returns
    -------
    (member, background, overall), (member_sq, background_sq, overall_sq), patterns
        ``member``/``background``: scipy.sparse.csr_matrix of float, shape (n_subgroups, 2 * n_levels) (the
        negatives' levels, then the positives', as ``AucCounts``; with ``background=False`` ``background``
        holds the rows in neither the subgroup nor its background, usually none); ``overall``: ndarray
        (2, n_levels); the second triple holds the sums of squared weights in the same layout; ``patterns``:
        the ``_stats.auc_draws.WeightedLevelAtoms`` of the membership patterns, behind the intervals of the
        power means (None with ``atoms=False``). With ``squares=False`` (and no atoms) the squared weights'
        tables are not formed and the second triple is (None, None, None).
    """
    from scipy import sparse

    from .._stats.auc_draws import weighted_level_atoms

    codes, member, back = groups.patterns
    cell = np.asarray(y, dtype=np.int64) * n_levels + level
    to_sparse = lambda masks: sparse.csr_matrix(masks.T.astype(np.float64))  # noqa: E731 (subgroups x patterns)
    other = back if background else ~member & ~back
    tables, per_pattern = [], []
    for values in ((w, w * w) if squares or atoms else (w,)):   # summed per (pattern, cell) by COO -> CSR: no sort
        by_pattern = sparse.csr_matrix((values, (codes, cell)), shape=(member.shape[0], 2 * n_levels))
        per_pattern.append(by_pattern)
        tables.append(((to_sparse(member) @ by_pattern).tocsr(), (to_sparse(other) @ by_pattern).tocsr(),
                       np.asarray(by_pattern.sum(axis=0)).reshape(2, n_levels).astype(np.float64)))
    return (tables[0], tables[1] if len(tables) > 1 else (None, None, None),
            weighted_level_atoms(*per_pattern, member, back) if atoms else None)


def level_sides(member, background, member_sq, background_sq, overall: np.ndarray, overall_sq: np.ndarray, *,
                complement: bool = False):
    """``sides(j, squares=True)``: subgroup j's (member, background, member_sq, background_sq) level histograms,
    each dense (2, n_levels) (negatives, positives; ``background_sq`` None without `squares`), from sparse
    (k, 2 * n_levels) tables. With `complement` the
    `background` tables hold the rows in neither the subgroup nor its background, and the background is all
    rows but those and the subgroup's (``weighted_level_tables(..., background=False)``)."""
    n_levels = overall.shape[1]

    def dense(table, j):
        return table.getrow(j).toarray().reshape(2, n_levels)

    def sides(j: int, squares: bool = True):
        m, m_sq, b = (dense(t, j) for t in (member, member_sq, background))
        b_sq = dense(background_sq, j) if squares else None
        if complement:
            b = overall - m - b
            b_sq = None if b_sq is None else overall_sq - m_sq - b_sq
        return m, b, m_sq, b_sq
    return sides


def _cumulative(levels: np.ndarray, weights: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(weight below, weight at) each level of `at`, of the weights at sorted `levels` (shape (n,))."""
    cum = np.concatenate([[0.0], np.cumsum(weights)])
    low, high = np.searchsorted(levels, at, side="left"), np.searchsorted(levels, at, side="right")
    return cum[low], cum[high] - cum[low]


def weighted_point_table(names: list, member, other, overall: np.ndarray, member_sq: np.ndarray,
                         min_size: int) -> pd.DataFrame:
    """The weighted AUC table without intervals, in time linear in each subgroup's own rows.

    A background is all rows but the subgroup's and those in neither (`other`: usually none), so each AUC's
    pairs with the background are those with all rows less those with the subgroup and with `other`; and
    the double sum swaps sides, sum_{i pos} sum_{r neg} w_i w_r ([s_i > s_r] + [s_i = s_r] / 2) = sum_{r neg}
    w_r G(s_r), G(t) = the positives' weight above t plus half of it at t. So the BPSN numerator is
    sum over the subgroup's negatives of w_r (G_all - G_subgroup - G_other)(s_r) and the BNSP numerator the
    sum over its positives of w_i (F_all - F_subgroup - F_other)(s_i), F(t) the negatives' weight below t plus
    half at t: lookups into the overall cumulative sums (once) and searches among the subgroup's own levels,
    never an array over every level per subgroup. Equal to :func:`weighted_auc_table` (tested).

    Parameters
    ----------
    names : list of str
    member, other : scipy.sparse matrix of float, shape (k, 2 * n_levels)
        Sums of weights per subgroup and level (negatives' levels, then positives'), of the subgroup's rows
        and of the rows in neither the subgroup nor its background.
    overall : ndarray of shape (2, n_levels)
    member_sq : ndarray of shape (k,)
        Each subgroup's sum of squared weights (its effective size).
    min_size : int

    Returns
    -------
    DataFrame
        As :func:`weighted_auc_table`'s table without `level`.
    """
    from .._counts.weights import effective_size

    k, n_levels = len(names), overall.shape[1]
    neg_all, pos_all = overall
    cum_neg, cum_pos = np.cumsum(neg_all), np.cumsum(pos_all)
    f_all = cum_neg - 0.5 * neg_all                          # negatives below t + half at t
    g_all = cum_pos[-1] - cum_pos + 0.5 * pos_all if n_levels else pos_all   # positives above t + half at t
    member, other = member.tocsr(), other.tocsr()
    aucs, n = np.full((k, 3), np.nan), np.zeros((k, 4))

    def split(table, j):
        row = table.getrow(j).tocoo()
        order = np.argsort(row.col, kind="stable")
        col, data = row.col[order], row.data[order]
        neg = col < n_levels
        return (col[neg], data[neg]), (col[~neg] - n_levels, data[~neg])

    for j in range(k):   # subgroups, not rows: searches among the subgroup's own levels
        (ln, wn), (lp, wp) = split(member, j)
        (on, own), (op, owp) = split(other, j)
        w1, w0 = wp.sum(), wn.sum()
        b1, b0 = pos_all.sum() - w1 - owp.sum(), neg_all.sum() - w0 - own.sum()
        below, at = _cumulative(ln, wn, lp)
        sub = (wp * (below + 0.5 * at)).sum()
        below_p, at_p = _cumulative(lp, wp, ln)
        o_below, o_at = _cumulative(op, owp, ln)
        bpsn = (wn * (g_all[ln] - (w1 - below_p - 0.5 * at_p) - (owp.sum() - o_below - 0.5 * o_at))).sum()
        o_below, o_at = _cumulative(on, own, lp)
        bnsp = (wp * (f_all[lp] - (below + 0.5 * at) - (o_below + 0.5 * o_at))).sum()
        n[j] = w1, w0, b1, b0
        with np.errstate(divide="ignore", invalid="ignore"):
            aucs[j] = [sub / (w1 * w0) if w1 > 0 and w0 > 0 else np.nan,
                       bpsn / (b1 * w0) if b1 > 0 and w0 > 0 else np.nan,
                       bnsp / (w1 * b0) if w1 > 0 and b0 > 0 else np.nan]
    # BPSN and BNSP are sums less the subgroup's own part: a true 0 or 1 may come out 1e-15 beyond it
    np.clip(aucs, 0.0, 1.0, out=aucs)
    sizes = effective_size(np.asarray(member.sum(axis=1)).reshape(-1), member_sq)
    table = auc_frame(list(names), n, aucs, min_size, None, sizes=sizes)
    table.attrs["overall_auc"] = _weighted_auc_from_hists(pos_all, neg_all)
    table.attrs["n_positive"], table.attrs["n_negative"] = float(pos_all.sum()), float(neg_all.sum())
    table.attrs["ci"] = None
    table.attrs["weighted"] = True
    return table


def weighted_auc_table(names: list, sides, overall: np.ndarray, overall_sq: np.ndarray, min_size: int, *,
                       level: float | None = None, patterns=None, n_boot: int = 1000,
                       rng: np.random.Generator | None = None):
    """The AUC table of weighted level histograms, one subgroup at a time (no (k, 3, n_levels) arrays).

    Each subgroup's, BPSN and BNSP AUC is the weighted Mann-Whitney statistic of its histograms
    (``_stats.delong._delong``: sum_t P[t] (N[< t] + N[t] / 2) / (sum P sum N)); the counts are sums of
    weights and ``size`` / ``small`` the effective sample size (sum w)^2 / sum w^2 of the subgroup's rows.
    With `level`, every AUC gets the Wald interval on the logit scale of its linearized variance
    (``_stats.delong.weighted_auc_variance``: DeLong's structural components with weights; unit weights give
    DeLong's interval), or where that cannot be formed the score interval with the Hanley-McNeil variance of
    the effective sizes (``interval_of``, said in ``note``). With `level` and `patterns` (the
    ``_stats.auc_draws.WeightedLevelAtoms`` of the membership patterns), `n_boot` replicates of every AUC are
    drawn from `rng` from their linearized joint law (``_stats.auc_draws.drawn_replicates``), behind the
    intervals of the power means and the bias AUC score.

    Parameters
    ----------
    names : list of str, length k
    sides : callable
        ``sides(j)`` -> (member, background, member_sq, background_sq) of subgroup j, each (2, n_levels)
        (:func:`level_sides`).
    overall, overall_sq : ndarray of shape (2, n_levels)
        Sums of weights and of squared weights per label and level over all rows.
    min_size : int
    level, patterns, n_boot, rng
        As above.

    Returns
    -------
    table : DataFrame
        The columns of :func:`bias_auc_table`; ``attrs``: ``overall_auc``, ``n_positive``, ``n_negative``
        (sums of weights), ``ci`` (`level`), ``weighted`` and with `level` ``overall_auc_ci``,
        ``overall_auc_ci_note`` and, with `patterns`, ``replicates`` (an ``AucReplicates``).
    bound : ndarray of shape (k * 3,)
        1/2 sum_t (P[t] / |P|) (N[t] / |N|) of each AUC's histograms (its binning bound when levels are bins).
    """
    from .._counts.weights import effective_size
    from .._stats.delong import _delong

    k = len(names)
    aucs, var, n_pos, n_neg, bound = (np.full((k, 3), np.nan) for _ in range(5))
    n, sizes = np.zeros((k, 4)), np.zeros(k)
    for j in range(k):   # subgroups, not rows: each one's three AUCs from its (3, n_levels) histograms
        m, b, m_sq, b_sq = sides(j, level is not None)
        pos, neg = np.stack([m[1], b[1], m[1]]), np.stack([m[0], m[0], b[0]])   # subgroup, BPSN, BNSP
        totals_pos, totals_neg = pos.sum(axis=1), neg.sum(axis=1)
        if level is None:   # the AUCs alone: one cumulative sum each
            with np.errstate(divide="ignore", invalid="ignore"):
                u = np.einsum("ij,ij->i", pos, np.cumsum(neg, axis=1) - 0.5 * neg)
                aucs[j] = np.where((totals_pos > 0) & (totals_neg > 0), u / (totals_pos * totals_neg), np.nan)
        else:
            pos_sq, neg_sq = np.stack([m_sq[1], b_sq[1], m_sq[1]]), np.stack([m_sq[0], m_sq[0], b_sq[0]])
            aucs[j], var[j], n_pos[j], n_neg[j] = _delong(pos, neg, pos_sq, neg_sq)
        n[j] = totals_pos[0], totals_neg[0], totals_pos[1], totals_neg[2]
        sizes[j] = effective_size(m.sum(), m_sq.sum())
        with np.errstate(divide="ignore", invalid="ignore"):
            bound[j] = 0.5 * (pos * neg).sum(axis=1) / (totals_pos * totals_neg)
    interval = overall_interval = None
    (neg_all, pos_all), (neg_all_sq, pos_all_sq) = overall, overall_sq
    if level is not None:
        from .._stats.delong import weighted_auc_variance

        interval = [x.reshape(k, 3) for x in interval_of(aucs.ravel(), var.ravel(), n_pos.ravel(), n_neg.ravel(),
                                                         level)]
        a, v, n1, n0 = weighted_auc_variance(pos_all[None], neg_all[None], pos_all_sq[None], neg_all_sq[None])
        overall_interval = interval_of(a, v, n1, n0, level)
    table = auc_frame(list(names), n, aucs, min_size, interval, sizes=sizes)
    table.attrs["overall_auc"] = _weighted_auc_from_hists(pos_all, neg_all)
    table.attrs["n_positive"], table.attrs["n_negative"] = float(pos_all.sum()), float(neg_all.sum())
    table.attrs["ci"] = level
    table.attrs["weighted"] = True
    if overall_interval is not None:
        low, high, why = overall_interval
        table.attrs["overall_auc_ci"] = (float(low[0]), float(high[0]))
        table.attrs["overall_auc_ci_note"] = str(why[0])
        if patterns is not None:
            from .._stats.auc_draws import drawn_replicates

            table.attrs["replicates"] = drawn_replicates(
                patterns, aucs, table.attrs["overall_auc"], var, float(v[0]), np.r_[n_pos.ravel(), n1],
                np.r_[n_neg.ravel(), n0], n_boot=n_boot, rng=rng)
    return table, bound.ravel()
