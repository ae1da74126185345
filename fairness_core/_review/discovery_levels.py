"""Subgroup discovery of the quantities of a score beside the subgroup AUC: the BPSN and BNSP AUCs (Borkan et al.
2019) and the debiased calibration error (Kumar, Liang & Ma 2019), each subgroup against every other row.

The search counts, for every intersection of up to `depth` columns with enough rows, its rows' sums of weights per
(label, score level) (and per calibration bin the sums of scores), from one ``np.bincount`` of the rows on the
intersection's key; the rest of the rows are the totals minus the intersection. Nothing is pruned but by size (these
quantities have no bound of SliceLine's kind). The held-out estimates are exact (every distinct score its own level)
with DeLong's variances and their covariance (the two AUCs compared share a side), or the calibration error's
studentized bootstrap (``_disparity.calibration_errors.squared_errors``' variances, labels redrawn per bin).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from .._counts.binning import bin_index, uniform_edges
from .._disparity.calibration_errors import excess, l2_scale, squared_errors
from .._metrics.discovery_search import Candidates, _ranked
from .._stats.delong import _delong
from .._stats.intervals import z_value

LEVEL_QUANTITIES = ("bpsn_auc", "bnsp_auc", "calibration_error")
CALIBRATION_BINS = 10   # uniform bins of the score, as calibration_errors' default


def calibration_levels(score: np.ndarray) -> np.ndarray:
    """Each score's calibration bin: ``CALIBRATION_BINS`` uniform bins of [0, 1] (``_counts.binning.bin_index``)."""
    return bin_index(score, uniform_edges(CALIBRATION_BINS)).astype(np.int32)


def _sides(quantity: str, pos, neg, pos_t, neg_t):
    """(positives, negatives) histograms of the candidate's AUC and of the rest's AUC."""
    rest = (pos_t - pos, neg_t - neg)
    if quantity == "bpsn_auc":   # the rest's positives against the subgroup's negatives
        return (pos_t - pos, neg), rest
    return (pos, neg_t - neg), rest   # bnsp: the subgroup's positives against the rest's negatives


def _values(quantity: str, h: np.ndarray, total: np.ndarray, psum, psum_t, sq=None, sq_t=None):
    """Value and rest value of candidates from their histograms h (k, 2 labels, levels) and the totals (2, levels).

    AUCs from histograms of weights per score level; the calibration error from histograms per calibration bin with
    the sums of scores `psum` (k, 2, bins) and, with weights, of squared weights `sq` (Kish's effective rows)."""
    if quantity == "calibration_error":
        stats, rest_stats = _calibration_stats(h, psum), _calibration_stats(total[None] - h, psum_t[None] - psum)
        out = []
        for st, s in ((stats, sq), (rest_stats, None if sq is None else sq_t[None] - sq)):
            ratio = sizes = None
            if s is not None:
                mass, squares = st[:, 0], s.sum(axis=1)
                with np.errstate(divide="ignore", invalid="ignore"):
                    ratio = np.where(mass > 0, squares / np.where(mass > 0, mass, 1.0), 0.0)
                    sizes = np.where(squares.sum(-1) > 0, mass.sum(-1) ** 2 / squares.sum(-1), 0.0)
            out.append(squared_errors(st, 1, ratio, sizes))
        return out
    (ap, an), (rp, rn) = _sides(quantity, h[:, 1], h[:, 0], total[1], total[0])
    return _delong(ap, an)[0], _delong(rp, rn)[0]


def _calibration_stats(h: np.ndarray, psum: np.ndarray) -> np.ndarray:
    """``squared_errors``' stats (k, 4, bins): mass, sum of scores, sum of labels and 0 (the Brier sums, unused)."""
    return np.stack([h.sum(axis=1), psum.sum(axis=1), h[:, 1], np.zeros(h.shape[::2])], axis=1)


def level_search(codes: list, cards: list, y: np.ndarray, level: np.ndarray, n_levels: int, score: np.ndarray,
                 weight, quantity: str, *, depth: int, min_size: int, direction: str) -> Candidates:
    """Every intersection of up to `depth` columns with at least `min_size` rows and `min_size` rows in the
    quantity's own part (the subgroup's negatives for the BPSN AUC, its positives for the BNSP AUC, its rows for the
    calibration error), scored against every other row and ranked (score, then depth, then columns and values).

    Parameters
    ----------
    codes : list of ndarray of int, shape (n_rows,) each
        Each column's code of each row.
    cards : list of int
        Number of codes of each column.
    y : ndarray of int, shape (n_rows,)
        Labels, 0 or 1.
    level : ndarray of int32, shape (n_rows,)
        Each row's score level (AUCs: increasing score order) or calibration bin.
    n_levels : int
    score : ndarray of float, shape (n_rows,)
        The scores (summed per calibration bin).
    weight : ndarray of float, shape (n_rows,), or None
    quantity : {'bpsn_auc', 'bnsp_auc', 'calibration_error'}
    depth, min_size : int
    direction : {'higher', 'lower', 'either'}

    Returns
    -------
    fairness_core._metrics.discovery_search.Candidates
        ``value`` and ``rest`` the two AUCs (the candidate's BPSN or BNSP AUC, the AUC of every other row) or the
        two ℓ2 calibration errors; ``difference`` their difference (for the calibration error the excess ℓ2 ECE
        sign(d) sqrt(|d|) of the difference d of the debiased squared errors); ``num``, ``den`` the positives and
        rows (sums of weights).

    References
    ----------
    Borkan, D. et al. (2019). Nuanced metrics for measuring unintended bias with real data for text
    classification. WWW 2019 Companion. Kumar, A., Liang, P. & Ma, T. (2019). Verified uncertainty calibration.
    NeurIPS 2019. Sagadeeva, S. & Boehm, M. (2021). SliceLine. SIGMOD 2021 (candidates from kept parents).
    """
    w = np.ones(len(y)) if weight is None else weight
    calib = quantity == "calibration_error"
    yl = y.astype(np.int64) * n_levels + level

    def hist(keep_key, n_cells, x):
        out = np.bincount(keep_key, weights=x, minlength=n_cells * 2 * n_levels)
        return out.astype(np.float64, copy=False).reshape(n_cells, 2, n_levels)

    total = hist(yl, 1, w)[0]
    psum_t = hist(yl, 1, w * score)[0] if calib else None
    sq_t = hist(yl, 1, w * w)[0] if weight is not None else None
    found, alive, examined = [], {(): True}, 0
    for d in range(1, depth + 1):
        for cols in combinations(range(len(cards)), d):
            if not all(alive.get(p, False) for p in combinations(cols, d - 1)):
                continue
            key = np.zeros(len(y), dtype=np.int64)
            for c in cols:
                key = key * cards[c] + codes[c]
            size = int(np.prod([cards[c] for c in cols]))
            if size <= 4 * len(y):   # the key itself indexes the cells
                cell, uniques = key, np.arange(size)
            else:
                cell, uniques = pd.factorize(key)
            n_rows = np.bincount(cell, minlength=len(uniques))
            examined += int(np.count_nonzero(n_rows))
            big = n_rows >= min_size
            alive[cols] = bool(big.any())
            if not big.any():
                continue
            index = np.full(len(uniques), -1)
            index[big] = np.arange(int(big.sum()))
            at = index[cell]
            rows = at >= 0
            k = int(big.sum())
            kk = at[rows] * (2 * n_levels) + yl[rows]
            rows_h = hist(kk, k, None)
            h = rows_h if weight is None else hist(kk, k, w[rows])
            psum = hist(kk, k, (w * score)[rows]) if calib else None
            sq = hist(kk, k, (w * w)[rows]) if weight is not None else None
            own = {"bpsn_auc": rows_h[:, 0].sum(-1), "bnsp_auc": rows_h[:, 1].sum(-1)}.get(quantity, n_rows[big])
            if calib:
                (s_sq, _, _), (r_sq, _, _) = _values(quantity, h, total, psum, psum_t, sq, sq_t)
                value, rest, diff = l2_scale(s_sq), l2_scale(r_sq), excess(s_sq - r_sq)
            else:
                value, rest = _values(quantity, h, total, None, None)
                diff = value - rest
            ok = np.flatnonzero((own >= min_size) & np.isfinite(value) & np.isfinite(rest))
            if not len(ok):
                continue
            cand = np.asarray(uniques)[big][ok]
            col_codes = np.full((len(ok), 3), -1, dtype=np.int64)
            for j in range(d - 1, -1, -1):
                col_codes[:, j] = cand % cards[cols[j]]
                cand = cand // cards[cols[j]]
            columns = np.full((len(ok), 3), -1, dtype=np.int64)
            columns[:, :d] = cols
            num, den = h[ok, 1].sum(-1), h[ok].sum(axis=(1, 2))
            diff = diff[ok]
            found.append({"columns": columns, "codes": col_codes, "rows": n_rows[big][ok].astype(np.int64),
                          "weight": den, "num": num, "den": den, "rest_num": total[1].sum() - num,
                          "rest_den": total.sum() - den, "value": value[ok], "rest": rest[ok], "difference": diff,
                          "score": {"higher": diff, "lower": -diff, "either": np.abs(diff)}[direction]})
    return _ranked(found, len(cards), depth, examined, 0)


def level_estimates(member: np.ndarray, y: np.ndarray, score: np.ndarray, weight, quantity: str,
                    level: float) -> pd.DataFrame:
    """Each candidate's value, the rest's, their difference, its interval and p-value, on the rows given.

    BPSN / BNSP AUC: exact AUCs (every distinct score its own level), DeLong's variances (weighted: their
    linearized form, ``_stats.delong.weighted_auc_variance``) and the covariance of the two AUCs through the side
    they share (the rest's positives for BPSN, the rest's negatives for BNSP):

        Cov = n*/(n* - 1) Σ_l S(l) (V_a(l) - A_a)(V_b(l) - A_b) / W²,

    with V the placements of that side's examples in each AUC, S(l) their sums of squared weights (the counts
    without weights), W their sum of weights and n* = W² / Σ S; Var(difference) = Var_a + Var_b - 2 Cov. The
    calibration error: the difference d of the debiased squared errors, its studentized bootstrap interval
    (:func:`_bootstrap_t`; a Wald interval on ``squared_errors``' variances covered 99.7 % of calibrated groups of
    200 rows and 89 % of miscalibrated ones) mapped to the excess ℓ2 ECE sign(d) sqrt(|d|) (monotone).

    Parameters
    ----------
    member : ndarray of bool, shape (k, n_rows)
        Each candidate's rows among the rows given.
    y, score : ndarray of shape (n_rows,)
    weight : ndarray of shape (n_rows,) or None
    quantity : {'bpsn_auc', 'bnsp_auc', 'calibration_error'}
    level : float
        Confidence level of the intervals.

    Returns
    -------
    DataFrame with columns ``size, value, rest_value, difference, ci_low, ci_high, p_value, k, n, rest_k, rest_n,
    own`` (``own``: the rows of the candidate's own part, as the search counts them).

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two or more correlated
    receiver operating characteristic curves. Biometrics 44(3), 837-845. Kumar, Liang & Ma (2019).
    """
    from scipy.special import ndtr

    calib = quantity == "calibration_error"
    lv = calibration_levels(score) if calib else np.unique(score, return_inverse=True)[1]
    n_levels = CALIBRATION_BINS if calib else int(lv.max(initial=0)) + 1
    w = np.ones(len(y)) if weight is None else weight
    yl = y.astype(np.int64) * n_levels + lv

    def hists(x):   # (k, 2 labels, levels) sums of x over each candidate's rows, and the totals (2, levels)
        t = np.bincount(yl, weights=x, minlength=2 * n_levels).reshape(2, n_levels)
        return np.stack([np.bincount(yl[m], weights=x[m], minlength=2 * n_levels).reshape(2, n_levels)
                         for m in member]) if len(member) else np.zeros((0, 2, n_levels)), t

    h, total = hists(w)
    rows_h = h if weight is None else hists(np.ones(len(y)))[0]
    sq, sq_t = hists(w * w) if weight is not None else (h, total)
    if calib:
        psum, psum_t = hists(w * score)
        stats = _calibration_stats(h, psum), _calibration_stats(total[None] - h, psum_t[None] - psum)
        squares = (None, None) if weight is None else (sq.sum(axis=1), (sq_t[None] - sq).sum(axis=1))
        (s_sq, _, _), (r_sq, _, _) = _values(quantity, h, total, psum, psum_t, sq if weight is not None else None, sq_t)
        d = s_sq - r_sq
        value, rest, diff = l2_scale(s_sq), l2_scale(r_sq), excess(d)
        low, high, p = _bootstrap_t(stats, squares, level)
        low, high, se = excess(low), excess(high), np.ones(len(d))
        own = rows_h.sum(axis=(1, 2))
    else:
        pos, neg, pos_t, neg_t = h[:, 1], h[:, 0], total[1], total[0]
        spos, sneg, spos_t, sneg_t = sq[:, 1], sq[:, 0], sq_t[1], sq_t[0]
        (ap, an), (rp, rn) = _sides(quantity, pos, neg, pos_t, neg_t)
        (sap, san), (srp, srn) = _sides(quantity, spos, sneg, spos_t, sneg_t)
        a, a_var = _delong(ap, an, sap, san)[:2]
        b, b_var = _delong(rp, rn, srp, srn)[:2]
        if quantity == "bpsn_auc":   # shared: the rest's positives; placements against each side's negatives
            cov = _covariance(rp, srp, _below(an), _below(rn), a, b)
        else:                        # shared: the rest's negatives; placements against each side's positives
            cov = _covariance(rn, srn, _above(ap), _above(rp), a, b)
        value, rest, diff = a, b, a - b
        d, se = diff, np.sqrt(np.maximum(a_var + b_var - 2.0 * cov, 0.0))
        z = z_value(level)
        low, high = diff - z * se, diff + z * se
        own = rows_h[:, 0].sum(-1) if quantity == "bpsn_auc" else rows_h[:, 1].sum(-1)
    if not calib:
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(se > 0, 2.0 * ndtr(-np.abs(d) / np.where(se > 0, se, 1.0)), np.nan)
    p = np.where(np.isfinite(d) & np.isfinite(se), p, np.nan)
    return pd.DataFrame({"size": member.sum(axis=1).astype(np.int64), "value": value, "rest_value": rest,
                         "difference": diff, "ci_low": low, "ci_high": high, "p_value": p,
                         "k": h[:, 1].sum(-1), "n": h.sum(axis=(1, 2)), "rest_k": total[1].sum() - h[:, 1].sum(-1),
                         "rest_n": total.sum() - h.sum(axis=(1, 2)), "own": own})


BOOTSTRAP = 1000   # replicates of the calibration error's bootstrap-t
SEED = 0


def _sided(stats: np.ndarray, squares):
    """``squared_errors`` of calibration stats (..., 4, bins), with Kish's effective rows when `squares` (sums of
    squared weights per bin, shape (k, bins)) is given."""
    if squares is None:
        return squared_errors(stats, 1)
    mass = stats[..., 0, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(mass > 0, squares / np.where(mass > 0, mass, 1.0), 0.0)
        total = squares.sum(-1)
        sizes = np.where(total > 0, mass.sum(-1) ** 2 / np.where(total > 0, total, 1.0), 0.0)
    return squared_errors(stats, 1, ratio, sizes)


def _bootstrap_t(stats: tuple, squares: tuple, level: float):
    """The studentized bootstrap interval and p-value of d = CE²(S) - CE²(rest) (the calibration page's bootstrap-t,
    ``CalibrationCounts.error_table``): each side's labels are redrawn per bin, ȳ*_b ~ Binomial(n_b, ȳ_b) / n_b (n_b
    the bin's rows, Kish's effective rows with weights; bins and scores fixed), and t* = (d* - d_plug) / se* with
    d_plug the observed plug-in difference (the bootstrap world's truth) and se* from ``squared_errors``'
    variances. Interval [d - q(1 - a/2) se, d - q(a/2) se]; p-value twice the smaller tail of t* beyond d / se."""
    rng = np.random.default_rng(SEED)
    draws, observed = [], []
    for st, sq in zip(stats, squares):
        deb, plug, var = _sided(st, sq)
        observed.append((deb, plug, var))
        mass, sum_y = st[:, 0], st[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = np.clip(np.where(mass > 0, sum_y / np.where(mass > 0, mass, 1.0), 0.0), 0.0, 1.0)
            rows = mass if sq is None else np.where(sq > 0, mass ** 2 / np.where(sq > 0, sq, 1.0), 0.0)
        n_b = np.maximum(np.round(rows), 1).astype(np.int64)
        redrawn = rng.binomial(n_b[None], rate[None], size=(BOOTSTRAP,) + rate.shape) / n_b[None] * mass[None]
        boot = np.broadcast_to(st[None], (BOOTSTRAP,) + st.shape).copy()
        boot[:, :, 2] = redrawn
        draws.append(_sided(boot, sq))
    (d_s, p_s, v_s), (d_r, p_r, v_r) = observed
    d, se = d_s - d_r, np.sqrt(v_s + v_r)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = ((draws[0][0] - draws[1][0]) - (p_s - p_r)[None]) / np.sqrt(draws[0][2] + draws[1][2])
        t = np.where(np.isfinite(t), t, np.nan)
        alpha = 1.0 - level
        lo_q, hi_q = np.nanquantile(t, [alpha / 2, 1 - alpha / 2], axis=0)
        t_obs = d / se
        tail = np.minimum(np.nanmean(t >= t_obs[None], axis=0), np.nanmean(t <= t_obs[None], axis=0))
    p = np.clip(2.0 * tail, 1.0 / BOOTSTRAP, 1.0)
    ok = np.isfinite(d) & (se > 0)
    return (np.where(ok, d - hi_q * se, np.nan), np.where(ok, d - lo_q * se, np.nan), np.where(ok, p, np.nan))


def _below(neg: np.ndarray) -> np.ndarray:
    """A positive's placement at each level among negatives `neg` (k, levels): (N[< l] + N[l] / 2) / N."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.cumsum(neg, axis=-1) - 0.5 * neg) / neg.sum(axis=-1, keepdims=True)


def _above(pos: np.ndarray) -> np.ndarray:
    """A negative's placement at each level among positives `pos` (k, levels): (P[> l] + P[l] / 2) / P."""
    with np.errstate(divide="ignore", invalid="ignore"):
        n = pos.sum(axis=-1, keepdims=True)
        return (n - np.cumsum(pos, axis=-1) + 0.5 * pos) / n


def _covariance(shared: np.ndarray, shared_sq: np.ndarray, v_a: np.ndarray, v_b: np.ndarray, a, b) -> np.ndarray:
    """DeLong's covariance of two AUCs through the examples they share (histograms `shared` of weights and
    `shared_sq` of squared weights per level), from those examples' placements `v_a`, `v_b` in each AUC."""
    big_w = shared.sum(axis=-1)
    s = shared_sq.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = big_w ** 2 / s
        dev = np.einsum("kl,kl->k", shared_sq, (v_a - a[:, None]) * (v_b - b[:, None]))
        return np.where(n_eff > 1, n_eff / (n_eff - 1.0) * dev / big_w ** 2, np.nan)
