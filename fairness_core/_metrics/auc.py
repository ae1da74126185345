# More than 500 lines: one concept (AUCs from ranked scores: subgroup, BPSN, BNSP, their table and the bias AUC score); tests patch its block size.
"""Bias-aware AUCs (subgroup, BPSN, BNSP), the power mean and the bias AUC score (seed 000).

Every AUC is counted from one sort of the score column (``np.argsort``): each row gets its tie
level, and the AUC of any set of positives P and negatives N is

    AUC = sum_t P[t] * (N[< t] + N[t] / 2) / (|P| * |N|)

where P[t], N[t] are the counts at tie level t. This is the Mann-Whitney probability that a
positive outranks a negative, ties counting one half, which equals
``sklearn.metrics.roc_auc_score``. The numerator 2U = sum_t P[t] (2 N[< t] + N[t]) is an exact
integer and the AUC one division. No subgroup is ever sorted on its own, and no per-subgroup
histogram over the levels is built: :func:`_subgroup_counts` walks, in score order, only the
rows outside each subgroup's background, and takes the background's counts as the level totals
minus those rows (see :func:`_counts_by_segments`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from .._data.checks import as_binary, as_scores, check_length
from .._stats.auc_bootstrap import AUC_COLUMNS, auc_replicates, power_means
from .._stats.bootstrap import check_boot_options
from .._stats.delong import auc_interval, interval_of, placement_variance
from .._subgroups.subgroups import as_subgroups
from .._stats.result import ValueResult
from .._counts.weights import check_sample_weight

NO_POSITIVES = "no positive examples"
NO_NEGATIVES = "no negative examples"
_AUC_LABELS = ("subgroup", "BPSN", "BNSP")  # in AUC_COLUMNS order, for notes


# Rows of the per-subgroup segments handled at once (bounds the memory of overlapping subgroups).
_BLOCK_ROWS = 1 << 22


@dataclass(frozen=True)
class _Ranked:
    """One sort of a score column.

    Attributes
    ----------
    n_levels : int
        Distinct scores.
    order : ndarray of int, shape (n_samples,)
        The rows in increasing score order.
    sorted_level : ndarray of int, shape (n_samples,)
        The tie level (0 for the lowest score) of each row in that order.
    below : ndarray of int, shape (n_levels + 1,)
        Rows with a level below each level (``below[-1]`` = n_samples): the rows of level t are
        ``order[below[t]:below[t + 1]]``.
    level : ndarray of int, shape (n_samples,)
        Each row's tie level, as ``np.unique(y_score, return_inverse=True)[1]`` (computed when asked).
    """

    n_levels: int
    order: np.ndarray
    sorted_level: np.ndarray
    below: np.ndarray

    @classmethod
    def of(cls, y_score: np.ndarray) -> "_Ranked":
        order = np.argsort(y_score)
        ordered = y_score[order]
        step = np.empty(len(ordered), dtype=bool)
        step[:1] = True
        np.not_equal(ordered[1:], ordered[:-1], out=step[1:])
        starts = np.flatnonzero(step)
        sorted_level = np.cumsum(step, dtype=np.intp) - 1
        return cls(len(starts), order, sorted_level, np.append(starts, len(ordered)))

    @cached_property
    def level(self) -> np.ndarray:
        level = np.empty_like(self.sorted_level)
        level[self.order] = self.sorted_level
        return level

    def hist(self, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Rows of `mask` (boolean, shape (n_samples,)) per level, shape (n_levels,); with `weights`
        (shape (n_samples,)) the sums of their weights."""
        if weights is None:
            return np.bincount(self.level[mask], minlength=self.n_levels)
        return np.bincount(self.level[mask], weights=weights[mask], minlength=self.n_levels)


def _twice_u(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """2 U = sum_t pos[t] (2 N[< t] + N[t]) of integer level histograms (..., n_levels), exact."""
    pos = np.asarray(pos, dtype=np.int64)
    neg = np.asarray(neg, dtype=np.int64)
    return (pos * (2 * np.cumsum(neg, axis=-1) - neg)).sum(axis=-1)


def _weighted_auc_from_hists(pos: np.ndarray, neg: np.ndarray) -> float:
    """The weighted Mann-Whitney AUC of histograms of weights per level (shape (n_levels,)):
    sum_t P[t] (2 N[< t] + N[t]) / (2 sum P sum N), NaN when a side weighs 0."""
    pos = np.asarray(pos, dtype=np.float64)
    neg = np.asarray(neg, dtype=np.float64)
    n_pos, n_neg = float(pos.sum()), float(neg.sum())
    if not (n_pos > 0 and n_neg > 0):
        return float("nan")
    return float((pos * (2.0 * np.cumsum(neg) - neg)).sum()) / (2.0 * n_pos * n_neg)


def _auc_from_hists(pos: np.ndarray, neg: np.ndarray) -> float:
    n_pos, n_neg = int(pos.sum()), int(neg.sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return float(_twice_u(pos, neg)) / float(2 * n_pos * n_neg)


def _ratio(u2: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray) -> np.ndarray:
    """AUC = 2U / (2 n_pos n_neg) (both exact integers, one rounding); NaN where a side is empty."""
    pairs = 2 * n_pos * n_neg
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pairs > 0, u2.astype(np.float64) / pairs.astype(np.float64), np.nan)


@dataclass(frozen=True)
class _SubgroupCounts:
    """What every AUC of the bias AUC family needs, per subgroup (shape (k,) or (k, 3)).

    ``n`` holds, per subgroup, the subgroup positives and negatives and the background positives
    and negatives (columns in that order); ``u2`` twice the Mann-Whitney U of the subgroup, BPSN
    and BNSP AUCs (exact integers); ``s10``/``s01`` (with variances) DeLong's sums of squared
    placement deviations of the positives and of the negatives of each AUC.
    """

    n: np.ndarray
    u2: np.ndarray
    s10: np.ndarray | None = None
    s01: np.ndarray | None = None

    def aucs(self) -> np.ndarray:
        """Subgroup, BPSN and BNSP AUC, shape (k, 3)."""
        return _ratio(self.u2, self.n[:, _POS_SIDE], self.n[:, _NEG_SIDE])


# For the subgroup, BPSN and BNSP AUC: which column of _SubgroupCounts.n holds its positives
# (subgroup, background, subgroup) and its negatives (subgroup, subgroup, background).
_POS_SIDE = np.array([0, 2, 0])
_NEG_SIDE = np.array([1, 1, 3])


def _segment_sums(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Sums of consecutive slices ``values[bounds[j]:bounds[j + 1]]`` (axis 0), exact for integers."""
    total = np.zeros((len(values) + 1,) + values.shape[1:], dtype=values.dtype)
    np.cumsum(values, axis=0, out=total[1:])
    return total[bounds[1:]] - total[bounds[:-1]]


def _counts_by_segments(level: np.ndarray, y: np.ndarray, member: np.ndarray | None, sizes: np.ndarray,
                        levels: "_LevelTotals", variance: bool) -> _SubgroupCounts:
    """AUC counts of subgroups from the rows that are *not* in their background, in score order.

    Segment j lists the rows of S_j = (not background of subgroup j) in increasing level: its
    members and the *other* rows of S_j (in neither mask). The background is everything else, so
    its counts at and below a level are the totals minus those of S_j, and no background row is
    visited. Within a segment, rows of one level form a *run*. With P(t), N(t) all positives and
    negatives below level t and g_P(t) = P(t) + P(t + 1) (twice the positives below t plus those
    at t; `levels`), the numerators are exact integers:

        2 U_subgroup = sum over runs  mp (2 mn_below + mn)
        2 U_BNSP     = sum over runs  mp g_N(t) - 2 U_subgroup - sum over runs mp (2 on_below + on)
        2 U_BPSN     = 2 n_bp n_sn - sum over runs mn g_P(t) + (2 n_sp n_sn - 2 U_subgroup)
                       + sum over runs mn (2 op_below + op)

    (mp, mn, op, on: member and other positives and negatives of the run; "below": in the segment,
    at lower levels), since the background's 2 x (negatives below + half tied) of a member
    positive is g_N(t) minus that of the member and other rows of S_j, and likewise for BPSN.

    Parameters
    ----------
    level, y : ndarray of shape (n_entries,)
        Level and label (bool) of each entry; segments one after the other.
    member : ndarray of bool of shape (n_entries,), or None
        Whether the entry is a member of its segment's subgroup (None: every entry is).
    sizes : ndarray of int, shape (k,)
        Entries per segment.
    levels : _LevelTotals
    variance : bool
        Also compute DeLong's sums of squared placement deviations.
    """
    k, n_entries = len(sizes), len(level)
    bounds = np.zeros(k + 1, dtype=np.intp)
    np.cumsum(sizes, out=bounds[1:])
    new_run = np.ones(n_entries + 1, dtype=bool)        # a run starts here (position n_entries: the end)
    np.not_equal(level[1:], level[:-1], out=new_run[1:n_entries])
    new_run[bounds] = True
    edges = np.flatnonzero(new_run)                     # run starts, then n_entries
    first = edges[:-1]
    run_bounds = np.searchsorted(edges, bounds)         # runs of segment j: run_bounds[j]:run_bounds[j + 1]

    def counted(mask):
        """Entries of `mask` before each run, in each run, and before each segment (int64)."""
        c = np.zeros(n_entries + 1, dtype=np.int64)
        np.cumsum(mask, out=c[1:])
        at_edges = c[edges]
        return at_edges[:-1], np.diff(at_edges), c[bounds]

    pos_b, pos_r, pos_s = counted(y)
    if member is None:      # S_j = the subgroup: no other rows
        mp, mp_b, mp_s = pos_r, pos_b, pos_s
        mn, mn_b, mn_s = np.diff(edges) - mp, first - mp_b, bounds - mp_s
        op = on = op_b = on_b = op_s = on_s = None
    else:
        mp_b, mp, mp_s = counted(member & y)
        m_b, m_r, m_s = counted(member)
        mn, mn_b, mn_s = m_r - mp, m_b - mp_b, m_s - mp_s
        op, op_b, op_s = pos_r - mp, pos_b - mp_b, pos_s - mp_s
        on = np.diff(edges) - m_r - op
        on_b, on_s = first - m_b - op_b, bounds - m_s - op_s
    t = level[first]
    n_pos, n_neg = int(levels.below[0, -1]), int(levels.below[1, -1])
    n_sp, n_sn = np.diff(mp_s), np.diff(mn_s)
    n_op, n_on = (0, 0) if member is None else (np.diff(op_s), np.diff(on_s))
    n = np.column_stack([n_sp, n_sn, n_pos - n_sp - n_op, n_neg - n_sn - n_on])

    sub = _segment_sums(mp * (2 * mn_b + mn), run_bounds) - 2 * mn_s[:-1] * n_sp
    bnsp = _segment_sums(mp * levels.twice[1][t], run_bounds) - sub
    bpsn = 2 * n[:, 2] * n_sn - _segment_sums(mn * levels.twice[0][t], run_bounds) + 2 * n_sp * n_sn - sub
    if member is not None:
        bnsp -= _segment_sums(mp * (2 * on_b + on), run_bounds) - 2 * on_s[:-1] * n_sp
        bpsn += _segment_sums(mn * (2 * op_b + op), run_bounds) - 2 * op_s[:-1] * n_sn
    u2 = np.column_stack([sub, bpsn, bnsp])
    if not variance:
        return _SubgroupCounts(n, u2)
    seg = _run_segment(run_bounds)

    def in_segment(before, at_start):   # counts below the run within its segment
        return None if before is None else before - at_start[:-1][seg]

    return _SubgroupCounts(n, u2, *_placement_sums(
        n, u2, t, seg, run_bounds, levels, mp, mn, in_segment(mp_b, mp_s), in_segment(mn_b, mn_s), op, on,
        in_segment(op_b, op_s), in_segment(on_b, on_s)))


def _run_segment(run_bounds: np.ndarray) -> np.ndarray:
    """The segment of each run."""
    return np.repeat(np.arange(len(run_bounds) - 1), np.diff(run_bounds))


def _placement_sums(n, u2, t, seg, run_bounds, levels, mp, mn, mp_lt, mn_lt, op, on, op_lt, on_lt):
    """DeLong's sums of squared placement deviations, S10 (positives) and S01 (negatives), shape (k, 3).

    A positive of an AUC at level t has placement V10 = (2 N(< t) + N(t)) / (2 n_neg) over the
    AUC's negatives, a negative V01 = (2 P(> t) + P(t)) / (2 n_pos) over its positives. Rows of
    S_j are visited run by run; background rows at levels without a row of S_j lie in the gaps
    between runs (and below the first one), where the member counts below and above are constant,
    so each gap adds (rows in it) x (placement - AUC)^2 from the level totals.
    """
    k = len(run_bounds) - 1
    n_levels = levels.twice.shape[1]
    pos_lt, neg_lt = levels.below
    if op is None:
        op = on = op_lt = on_lt = 0
    aucs = _ratio(u2, n[:, _POS_SIDE], n[:, _NEG_SIDE])
    a_sub, a_bpsn, a_bnsp = (aucs[seg, i] for i in range(3))
    with np.errstate(divide="ignore", invalid="ignore"):
        h_sp, h_sn, h_bp, h_bn = ((0.5 / n[:, c])[seg] for c in range(4))   # placement = 2 x count * h

    def squares(count, twice, h, a):
        """count * (twice * h - a) ** 2: the squared deviations of `count` equal placements."""
        with np.errstate(invalid="ignore"):
            d = twice * h
            d -= a
            d *= d
            d *= count
        return d

    def total(values):
        return np.bincount(seg, weights=values, minlength=k).astype(np.float64, copy=False)  # (int if empty)

    # x10_*: twice the placement numerator of a positive of the run (negatives below + half tied),
    # x01_*: that of a negative of the run (positives above + half tied), for each AUC.
    t1 = t + 1
    pos_t, neg_t = pos_lt[t], neg_lt[t]
    bp_at = pos_lt[t1] - pos_t - mp - op                      # background positives at the run's level
    bn_at = neg_lt[t1] - neg_t - mn - on
    x10_sub = 2 * mn_lt + mn
    mp_gt = n[seg, 0] - mp_lt - mp
    x01_sub = 2 * mp_gt + mp
    x10_bnsp = 2 * (neg_t - mn_lt - on_lt) + bn_at
    x01_bpsn = 2 * n[seg, 2] - 2 * (pos_t - mp_lt - op_lt) - bp_at
    last = np.zeros(len(t), dtype=bool)
    last[run_bounds[1:][np.diff(run_bounds) > 0] - 1] = True
    upper = np.where(last, n_levels, np.append(t[1:], 0))    # the next run's level in the segment
    gap_pos = pos_lt[upper] - pos_lt[t1]                      # background rows above the run, below the next
    gap_neg = neg_lt[upper] - neg_lt[t1]
    s10 = np.column_stack([
        total(squares(mp, x10_sub, h_sn, a_sub)),
        total(squares(bp_at, x10_sub, h_sn, a_bpsn) + squares(gap_pos, 2 * (mn_lt + mn), h_sn, a_bpsn)),
        total(squares(mp, x10_bnsp, h_bn, a_bnsp))])
    s01 = np.column_stack([
        total(squares(mn, x01_sub, h_sp, a_sub)),
        total(squares(mn, x01_bpsn, h_bp, a_bpsn)),
        total(squares(bn_at, x01_sub, h_sp, a_bnsp) + squares(gap_neg, 2 * mp_gt, h_sp, a_bnsp))])
    has_runs = np.diff(run_bounds) > 0
    t0 = np.full(k, n_levels, dtype=np.intp)                 # the segment's lowest level
    t0[has_runs] = t[run_bounds[:-1][has_runs]]
    s10[:, 1] += pos_lt[t0] * aucs[:, 1] ** 2                 # background positives below: V10 = 0
    s01[:, 2] += neg_lt[t0] * (1.0 - aucs[:, 2]) ** 2         # background negatives below: V01 = 1
    return s10, s01


@dataclass(frozen=True)
class _LevelTotals:
    """All positives and negatives below each level, ``below`` of shape (2, n_levels + 1), and
    ``twice`` = 2 x (below) + (at) = below[:, t] + below[:, t + 1], shape (2, n_levels)."""

    below: np.ndarray
    twice: np.ndarray

    @classmethod
    def of(cls, ys: np.ndarray, ranked: _Ranked) -> "_LevelTotals":
        """From the labels in score order (`ys`, bool)."""
        pos_lt = np.zeros(len(ys) + 1, dtype=np.int64)
        np.cumsum(ys, out=pos_lt[1:])
        pos_lt = pos_lt[ranked.below]
        below = np.stack([pos_lt, ranked.below - pos_lt])
        return cls(below, below[:, :-1] + below[:, 1:])


def _subgroup_counts(ys: np.ndarray, ranked: _Ranked, levels: _LevelTotals, groups, variance: bool) -> _SubgroupCounts:
    """AUC counts of every subgroup from the one sort of the scores (no per-subgroup row masks).

    `ys` are the labels in score order and `levels` their totals per level. Disjoint subgroups:
    the rows in score order are split by subgroup with one stable (radix) sort of their codes.
    Overlapping subgroups: each row is listed once per subgroup whose background it is not in
    (through its membership pattern). Subgroups are taken in blocks of at most ``_BLOCK_ROWS``
    listed rows (at least one subgroup each), which bounds the memory.
    """
    n, k = len(ys), len(groups.names)
    parts = []
    if groups.codes is not None:
        codes = groups.codes[ranked.order]
        by_subgroup = np.argsort(codes.astype(_small_int(k), copy=False), kind="stable")
        sizes = np.bincount(codes, minlength=k)
        bounds = np.append(0, np.cumsum(sizes))
        for block in _blocks(sizes, _BLOCK_ROWS):
            rows = by_subgroup[bounds[block[0]]:bounds[block[-1] + 1]]
            parts.append(_counts_by_segments(ranked.sorted_level[rows], ys[rows], None, sizes[block], levels,
                                             variance))
    else:
        codes, member, background = groups.patterns
        codes = codes[ranked.order]
        outside = ~background                                             # (n_patterns, k)
        sizes = np.bincount(codes, minlength=member.shape[0]) @ outside  # rows listed per subgroup
        for block in _blocks(sizes, _BLOCK_ROWS):
            sel = outside[:, block]
            per_pattern = sel.sum(axis=1)
            _, sub_of_pair = np.nonzero(sel)             # pairs (pattern, subgroup), by pattern
            count = per_pattern[codes]
            rows = np.repeat(np.arange(n), count)        # each row once per subgroup of its pattern
            # Entry e of row i is pair (first pair of i's pattern) + (e - first entry of row i).
            shift = (np.cumsum(per_pattern) - per_pattern)[codes] - (np.cumsum(count) - count)
            sub = sub_of_pair[np.arange(len(rows)) + np.repeat(shift, count)]
            by_subgroup = np.argsort(sub.astype(_small_int(len(block)), copy=False), kind="stable")
            rows, sub = rows[by_subgroup], sub[by_subgroup]
            is_member = member[:, block][codes[rows], sub]
            parts.append(_counts_by_segments(ranked.sorted_level[rows], ys[rows],
                                             None if is_member.all() else is_member, sizes[block], levels, variance))
    if not parts:
        return _SubgroupCounts(np.zeros((0, 4), np.int64), np.zeros((0, 3), np.int64),
                               *(2 * [np.zeros((0, 3))] if variance else []))
    return _SubgroupCounts(*(None if getattr(parts[0], f) is None else np.concatenate([getattr(p, f) for p in parts])
                             for f in ("n", "u2", "s10", "s01")))


def _small_int(k: int):
    """The smallest integer type for codes below `k` (numpy's stable sort is a radix sort up to 16 bits)."""
    return np.int16 if k <= np.iinfo(np.int16).max else np.intp


def _blocks(sizes: np.ndarray, limit: int) -> list[np.ndarray]:
    """Consecutive groups of subgroup indices whose sizes sum to at most `limit` (at least one each)."""
    blocks, start, total = [], 0, 0
    for j, size in enumerate(sizes.tolist()):
        if j > start and total + size > limit:
            blocks.append(np.arange(start, j))
            start, total = j, 0
        total += size
    if len(sizes):
        blocks.append(np.arange(start, len(sizes)))
    return blocks


def _note(n_pos: int, n_neg: int) -> str:
    if n_pos == 0 and n_neg == 0:
        return "no rows"
    if n_pos == 0:
        return NO_POSITIVES
    if n_neg == 0:
        return NO_NEGATIVES
    return ""


def _prepare(y_true, y_score, member, background, func, sample_weight=None):
    y = as_binary(y_true, "y_true", func).astype(bool)
    s = as_scores(y_score, "y_score", func)
    check_length(s, len(y), "y_score", func)
    m = np.asarray(member, dtype=bool).reshape(-1)
    check_length(m, len(y), "member", func)
    b = ~m if background is None else np.asarray(background, dtype=bool).reshape(-1)
    check_length(b, len(y), "background", func)
    w = check_sample_weight(sample_weight, len(y), func)
    return y, _Ranked.of(s), m, b, w


def subgroup_auc(y_true, y_score, member, *, sample_weight=None) -> float:
    """ROC AUC on the subgroup's rows.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Scores on any scale; higher means more likely positive.
    member : array-like of bool, shape (n_samples,)
        True for the subgroup's rows.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0: the weighted AUC (see :func:`bias_auc_table`), equal to
        ``roc_auc_score(y_true[member], y_score[member], sample_weight=w[member])``.

    Returns
    -------
    float
        The AUC, or NaN when the subgroup has no positives or no negatives (or they weigh 0).

    Raises
    ------
    ValueError
        For bad labels, scores, masks or weights (negative, NaN, infinite, wrong length).

    References
    ----------
    Borkan et al. (2019), "Nuanced Metrics for Measuring Unintended Bias with Real Data for Text
    Classification"; seed 000 (Jigsaw Unintended Bias in Toxicity Classification).
    """
    y, ranked, m, _, w = _prepare(y_true, y_score, member, None, "subgroup_auc", sample_weight)
    return (_auc_from_hists if w is None else _weighted_auc_from_hists)(ranked.hist(m & y, w), ranked.hist(m & ~y, w))


def bpsn_auc(y_true, y_score, member, background=None, *, sample_weight=None) -> float:
    """BPSN AUC: ROC AUC on subgroup negatives together with background positives.

    A low value means the model scores the subgroup's negative examples higher than the
    background's positive ones (false positives concentrated in the subgroup).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
    member : array-like of bool, shape (n_samples,)
    background : array-like of bool, shape (n_samples,), default=None
        Rows validly outside the subgroup; defaults to ``~member``.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0: the weighted AUC of the same rows (see :func:`bias_auc_table`).

    Returns
    -------
    float
        The AUC, or NaN when either side is empty (or weighs 0).

    Raises
    ------
    ValueError
        For bad labels, scores, masks or weights (negative, NaN, infinite, wrong length).

    References
    ----------
    Borkan et al. (2019); seed 000.
    """
    y, ranked, m, b, w = _prepare(y_true, y_score, member, background, "bpsn_auc", sample_weight)
    return (_auc_from_hists if w is None else _weighted_auc_from_hists)(ranked.hist(b & y, w), ranked.hist(m & ~y, w))


def bnsp_auc(y_true, y_score, member, background=None, *, sample_weight=None) -> float:
    """BNSP AUC: ROC AUC on subgroup positives together with background negatives.

    A low value means the model scores the subgroup's positive examples lower than the
    background's negative ones (false negatives concentrated in the subgroup).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
    y_score : array-like of shape (n_samples,)
    member : array-like of bool, shape (n_samples,)
    background : array-like of bool, shape (n_samples,), default=None
        Rows validly outside the subgroup; defaults to ``~member``.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0: the weighted AUC of the same rows (see :func:`bias_auc_table`).

    Returns
    -------
    float
        The AUC, or NaN when either side is empty (or weighs 0).

    Raises
    ------
    ValueError
        For bad labels, scores, masks or weights (negative, NaN, infinite, wrong length).

    References
    ----------
    Borkan et al. (2019); seed 000.
    """
    y, ranked, m, b, w = _prepare(y_true, y_score, member, background, "bnsp_auc", sample_weight)
    return (_auc_from_hists if w is None else _weighted_auc_from_hists)(ranked.hist(m & y, w), ranked.hist(b & ~y, w))


def power_mean(values, p: float) -> float:
    """Generalized (power) mean M_p = (mean(v ** p)) ** (1 / p); p = 0 is the geometric mean.

    NaN values are left out (count them with ``np.isnan``); with p < 0 (or p = 0) a value of 0
    gives 0. Negative p stresses the smallest values (seed 000 uses p = -5); p = inf gives the
    maximum and -inf the minimum. It is evaluated as exp((logsumexp(p ln v) - ln n) / p), so it
    stays between the minimum and the maximum for every p (a literal ``mean(v ** p) ** (1 / p)``
    overflows or underflows for large |p| and loses all precision for p near 0).

    Parameters
    ----------
    values : array-like of shape (n_values,)
        Non-negative numbers such as AUCs.
    p : float
        The exponent.

    Returns
    -------
    float
        The power mean of the defined values, NaN if none is defined.

    Examples
    --------
    >>> round(power_mean([0.5, 1.0], p=1), 3)
    0.75
    >>> round(power_mean([0.5, 1.0], p=0), 4)
    0.7071
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if np.any(v[~np.isnan(v)] < 0):
        raise ValueError(f"power_mean needs non-negative values. Got a minimum of {np.nanmin(v):g} instead.")
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)) or np.isnan(p):
        raise ValueError(f"The 'p' parameter of power_mean must be a number (inf and -inf allowed). Got {p!r} instead.")
    return float(power_means(v, float(p)))


def bias_auc_table(y_true, y_score, subgroups, *, ci=None, n_boot: int = 1000, random_state=0,
                   sample_weight=None) -> pd.DataFrame:
    """Per-subgroup AUC table: subgroup, BPSN and BNSP AUC, with the counts behind them.

    With `ci` a confidence level, every AUC gets DeLong's interval (:func:`auc_interval`): the
    variance S10 / n_pos + S01 / n_neg of the placement values (DeLong et al. 1988, computed as
    Sun & Xu 2014 do, from the same tie-level histograms as the AUC), and the Wald interval on the
    logit scale, expit(logit(A) -/+ z sqrt(Var) / (A (1 - A))), so the bounds stay in [0, 1].
    At A = 0 or 1, with a single example on a side, or with a DeLong variance of 0, a score-type
    interval with the Hanley-McNeil variance is used instead and ``note`` says so; where an AUC
    is undefined its bounds are NaN.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Scores on any scale.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
        Every subgroup is listed, small ones with ``small=True``.
    ci : float in (0, 1) or None, default=None
        Confidence level of the intervals, e.g. 0.95; None adds no interval columns.
    n_boot : int >= 100, default=1000
        With `ci`: bootstrap replicates of every AUC, kept in ``attrs["replicates"]`` so that
        :func:`summarize_bias_auc` gives intervals of the power means and the bias AUC score for
        any p and weight without recomputing (see ``_stats.auc_bootstrap``: stratified multinomial over
        (membership pattern, label, score level) counts, levels merged into at most 256 groups (64 above
        200 patterns), replicates centred on the exact AUCs).
    random_state : int, numpy Generator or None, default=0
        Seed of the bootstrap.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row. Every AUC is then the weighted Mann-Whitney statistic
        sum_{i pos, j neg} w_i w_j ([s_i > s_j] + [s_i = s_j] / 2) / (sum w_pos * sum w_neg) over
        its rows (equal to ``sklearn.metrics.roc_auc_score(..., sample_weight=w)``), computed from
        the weighted level histograms of :func:`auc_counts`; ``n_positive`` and the other counts
        are sums of weights, ``size`` and ``small`` use Kish's effective sample size
        (sum w)^2 / sum w^2 of the subgroup's rows. With `ci`, each AUC's interval is the logit Wald
        interval of its linearized variance (``_stats.delong.weighted_auc_variance``: DeLong's structural
        components with weights; unit weights give DeLong's), and the replicates kept are drawn from the AUCs'
        linearized joint law (``_stats.auc_draws``).

    Returns
    -------
    DataFrame with one row per subgroup, in ``subgroups.names`` order, and columns
        ``subgroup, size, n_positive, n_negative, n_background_positive, n_background_negative,
        small, subgroup_auc, bpsn_auc, bnsp_auc, note``. ``note`` says why an AUC is NaN (and,
        with `ci`, which intervals are not DeLong's and why). With `ci`, each AUC column is
        followed by its bounds: ``subgroup_auc, subgroup_auc_ci_low, subgroup_auc_ci_high,
        bpsn_auc, bpsn_auc_ci_low, bpsn_auc_ci_high, bnsp_auc, bnsp_auc_ci_low,
        bnsp_auc_ci_high``. ``table.attrs``: ``"overall_auc"`` (the AUC of all rows), ``"ci"``
        (the level, or None), and with `ci` ``"overall_auc_ci"`` = (low, high),
        ``"overall_auc_ci_note"`` (empty for DeLong's interval) and ``"replicates"`` (an
        ``AucReplicates``).

    Raises
    ------
    ValueError
        If `ci` is not None or a number strictly between 0 and 1 (``CI_MESSAGE``), for bad
        labels, scores, subgroups or weights, and for `ci` together with `sample_weight`.

    References
    ----------
    Borkan et al. (2019); seed 000.
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988), Biometrics 44(3), 837-845.
    Sun, X. and Xu, W. (2014), IEEE Signal Processing Letters 21(11), 1389-1393.
    """
    func = "bias_auc_table"
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    if sample_weight is not None:
        y = as_binary(y_true, "y_true", func).astype(np.int64)
        s = as_scores(y_score, "y_score", func)
        check_length(s, len(y), "y_score", func)
        w = check_sample_weight(sample_weight, len(y), func)
        groups = as_subgroups(subgroups, len(y), func)
        levels, index = np.unique(s, return_inverse=True)
        (m, b, o), (m_sq, b_sq, o_sq), patterns = weighted_level_tables(
            groups, y, index.reshape(-1), len(levels), w, background=False, atoms=level is not None,
            squares=level is not None)
        if level is None:   # sizes from each subgroup's sum of squared weights, no level table of them
            codes, member_masks, _ = groups.patterns
            squares = np.bincount(codes, weights=w * w, minlength=member_masks.shape[0]) @ member_masks
            return weighted_point_table(list(groups.names), m, b, o, squares, groups.min_size)
        table, _ = weighted_auc_table(list(groups.names), level_sides(m, b, m_sq, b_sq, o, o_sq, complement=True),
                                      o, o_sq, groups.min_size, level=level, patterns=patterns, n_boot=n_boot, rng=rng)
        return table
    y = as_binary(y_true, "y_true", func).astype(bool)
    s = as_scores(y_score, "y_score", func)
    check_length(s, len(y), "y_score", func)
    groups = as_subgroups(subgroups, len(y), func)
    ranked = _Ranked.of(s)
    ys = y[ranked.order]
    levels = _LevelTotals.of(ys, ranked)
    counts = _subgroup_counts(ys, ranked, levels, groups, variance=level is not None)
    aucs = counts.aucs()
    interval = None
    if level is not None:
        n_pos, n_neg = counts.n[:, _POS_SIDE], counts.n[:, _NEG_SIDE]
        var = placement_variance(counts.s10, counts.s01, n_pos, n_neg)
        interval = [a.reshape(aucs.shape) for a in interval_of(
            aucs.ravel(), var.ravel(), n_pos.ravel(), n_neg.ravel(), level)]
    table = auc_frame(list(groups.names), counts.n, aucs, groups.min_size, interval)
    pos_all, neg_all = np.diff(levels.below, axis=1)
    table.attrs["overall_auc"] = _auc_from_hists(pos_all, neg_all)
    table.attrs["n_positive"], table.attrs["n_negative"] = int(pos_all.sum()), int(neg_all.sum())
    table.attrs["ci"] = level
    if level is not None:
        low, high, why = auc_interval(pos_all, neg_all, level)
        table.attrs["overall_auc_ci"] = (low, high)
        table.attrs["overall_auc_ci_note"] = why
        table.attrs["replicates"] = auc_replicates(
            y, ranked.level, np.diff(ranked.below), groups, table[list(AUC_COLUMNS)].to_numpy(dtype=np.float64),
            table.attrs["overall_auc"], n_boot=n_boot, rng=rng)
    return table


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


def auc_frame(names: list, n: np.ndarray, aucs: np.ndarray, min_size: int, interval=None,
              sizes: np.ndarray | None = None) -> pd.DataFrame:
    """The per-subgroup AUC table from its counts and AUCs: the one place its columns and notes are written.

    Parameters
    ----------
    names : list of str, length k
    n : ndarray of int, shape (k, 4)
        Subgroup positives, subgroup negatives, background positives, background negatives.
    aucs : ndarray of float, shape (k, 3)
        Subgroup, BPSN and BNSP AUC (NaN where undefined).
    min_size : int
        Subgroups with fewer rows are flagged small.
    interval : (low, high, why) of arrays of shape (k, 3), or None
        Bounds and notes of :func:`interval_of`; None adds no interval columns.
    sizes : ndarray of float, shape (k,), or None
        With sample weights: each subgroup's effective sample size, which ``size`` and ``small``
        then report (and `n` holds sums of weights); None: ``size`` is n_positive + n_negative.

    Returns
    -------
    DataFrame
        The columns of :func:`bias_auc_table` (without its ``attrs``).
    """
    n = np.asarray(n, dtype=np.int64 if sizes is None else np.float64).reshape(-1, 4)
    n_sp, n_sn, n_bp, n_bn = n.T
    notes = [[] for _ in names]
    for j in range(len(notes)):
        if n_sp[j] == 0 or n_sn[j] == 0:
            notes[j].append(f"subgroup AUC undefined: {_note(n_sp[j], n_sn[j])}")
        if n_bp[j] == 0 or n_sn[j] == 0:
            notes[j].append("BPSN AUC undefined: " + ("no background positives" if n_bp[j] == 0
                                                       else "no subgroup negatives"))
        if n_sp[j] == 0 or n_bn[j] == 0:
            notes[j].append("BNSP AUC undefined: " + ("no subgroup positives" if n_sp[j] == 0
                                                       else "no background negatives"))
    columns = {
        "subgroup": list(names),
        "size": n_sp + n_sn if sizes is None else np.asarray(sizes, dtype=np.float64),
        "n_positive": n_sp,
        "n_negative": n_sn,
        "n_background_positive": n_bp,
        "n_background_negative": n_bn,
        "small": (n_sp + n_sn if sizes is None else np.asarray(sizes, dtype=np.float64)) < min_size,
    }
    estimates = list(AUC_COLUMNS)
    if interval is None:
        columns.update(zip(AUC_COLUMNS, np.asarray(aucs).reshape(-1, 3).T))
    else:
        low, high, why = interval
        for i, column in enumerate(AUC_COLUMNS):
            columns.update({column: aucs[:, i], f"{column}_ci_low": low[:, i], f"{column}_ci_high": high[:, i]})
        for j, i in zip(*np.nonzero(why != "")):
            if not why[j, i].startswith("AUC undefined"):
                notes[j].append(f"{_AUC_LABELS[i]} AUC interval: {why[j, i]}")
        estimates = [c for e in estimates for c in (e, f"{e}_ci_low", f"{e}_ci_high")]
    columns["note"] = ["; ".join(parts) for parts in notes]
    return pd.DataFrame(columns if len(notes) else None, columns=[   # no subgroup: empty object columns
        "subgroup", "size", "n_positive", "n_negative", "n_background_positive",
        "n_background_negative", "small", *estimates, "note"])


@dataclass(frozen=True)
class BiasAucResult(ValueResult):
    """The bias AUC score and its parts.

    Attributes
    ----------
    value : float
        w * overall_auc + (1 - w) * mean(subgroup_power_mean, bpsn_power_mean, bnsp_power_mean).
    overall_auc : float
    subgroup_power_mean, bpsn_power_mean, bnsp_power_mean : float
        M_p of each AUC column over the subgroups used.
    p : float
    overall_weight : float
    n_used : int
        Subgroups that entered the power means.
    n_small_excluded : int
        Small subgroups left out (``include_small=False``).
    n_undefined : dict
        For each AUC column, how many used subgroups had NaN (left out of its power mean).
    table : DataFrame
        The per-subgroup table of :func:`bias_auc_table`.
    ci_low, ci_high : float
        Percentile bootstrap interval of ``value`` (NaN without intervals).
    power_mean_ci : dict or None
        ``{"subgroup_auc": (low, high), "bpsn_auc": ..., "bnsp_auc": ...}``: bootstrap intervals of
        the three power means.
    overall_auc_ci : tuple of float
        DeLong interval of the overall AUC.
    level : float or None
    n_boot : int
    n_boot_undefined : int
        Replicates in which the score was undefined (left out of the interval).
    """

    value: float
    overall_auc: float
    subgroup_power_mean: float
    bpsn_power_mean: float
    bnsp_power_mean: float
    p: float
    overall_weight: float
    n_used: int
    n_small_excluded: int
    n_undefined: dict
    table: pd.DataFrame
    ci_low: float = float("nan")
    ci_high: float = float("nan")
    power_mean_ci: dict = None
    overall_auc_ci: tuple = (float("nan"), float("nan"))
    level: float | None = None
    n_boot: int = 0
    n_boot_undefined: int = 0


def summarize_bias_auc(table: pd.DataFrame, *, p: float = -5.0, overall_weight: float = 0.25,
                       include_small: bool = False) -> BiasAucResult:
    """Reduce a :func:`bias_auc_table` to the bias AUC score without recomputing any AUC.

    score = w * AUC_overall + (1 - w) * mean(M_p(subgroup AUCs), M_p(BPSN AUCs), M_p(BNSP AUCs))

    Parameters
    ----------
    table : DataFrame
        Output of :func:`bias_auc_table` (with ``attrs["overall_auc"]``).
    p : float, default=-5
        Power-mean exponent.
    overall_weight : float in [0, 1], default=0.25
    include_small : bool, default=False
        Whether small subgroups enter the power means.

    Returns
    -------
    BiasAucResult
        With intervals (``ci_low``, ``ci_high``, ``power_mean_ci``) when `table` was built with
        ``ci``: its bootstrap replicates are reduced with the same p, weight and subgroups, and the
        interval is the bias-corrected percentile interval of those replicates
        (:func:`fairness_core._stats.bootstrap.bias_corrected_interval`; with many small subgroups a
        power mean with p < 0 acts as a minimum, whose plain percentile interval lies too low).

    Raises
    ------
    ValueError
        If `overall_weight` is outside [0, 1].
    """
    if not 0.0 <= overall_weight <= 1.0:
        raise ValueError(
            f"The 'overall_weight' parameter of bias_auc_score must be in [0, 1]. Got {overall_weight!r} instead.")
    used = table if include_small else table[~table["small"].astype(bool)]
    columns = ("subgroup_auc", "bpsn_auc", "bnsp_auc")
    means = [power_mean(used[c].to_numpy(dtype=float), p) for c in columns]
    overall = float(table.attrs["overall_auc"])
    value = overall_weight * overall + (1.0 - overall_weight) * float(np.mean(means))
    extra = {}
    reps = table.attrs.get("replicates")
    level = table.attrs.get("ci")
    if reps is not None and level is not None:
        from .._stats.bootstrap import bias_corrected_interval

        keep = np.ones(len(table), bool) if include_small else ~table["small"].to_numpy(dtype=bool)
        rep_means = power_means(reps.aucs[:, keep, :], float(p), axis=1)  # (n_boot, 3)
        scores = overall_weight * reps.overall + (1.0 - overall_weight) * rep_means.mean(axis=1)
        # Bias-corrected percentiles: a power mean with p < 0 behaves like a minimum, whose replicates sit below it.
        low, high, undefined = bias_corrected_interval(np.column_stack([rep_means, scores]), np.array(means + [value]),
                                                       level)
        extra = dict(ci_low=float(low[3]), ci_high=float(high[3]), level=level, n_boot=len(scores),
                     n_boot_undefined=int(undefined[3]),
                     power_mean_ci={c: (float(low[i]), float(high[i])) for i, c in enumerate(columns)},
                     overall_auc_ci=tuple(map(float, table.attrs["overall_auc_ci"])))
    return BiasAucResult(
        value=value, overall_auc=overall, subgroup_power_mean=means[0], bpsn_power_mean=means[1],
        bnsp_power_mean=means[2], p=p, overall_weight=overall_weight, n_used=len(used),
        n_small_excluded=len(table) - len(used),
        n_undefined={c: int(used[c].isna().sum()) for c in columns}, table=table, **extra)


def bias_auc_score(y_true, y_score, subgroups, *, p: float = -5.0, overall_weight: float = 0.25,
                   include_small: bool = False, ci=None, n_boot: int = 1000, random_state=0,
                   sample_weight=None) -> BiasAucResult:
    """Bias AUC score of seed 000: overall AUC blended with power means of per-subgroup AUCs.

    score = w * AUC_overall + (1 - w) * (M_p(subgroup AUCs) + M_p(BPSN AUCs) + M_p(BNSP AUCs)) / 3

    where M_p is :func:`power_mean` over the subgroups (NaN AUCs and, unless `include_small`,
    small subgroups left out).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    y_score : array-like of shape (n_samples,)
        Scores on any scale.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    p : float, default=-5
        Power-mean exponent; negative values stress the worst subgroups.
    overall_weight : float in [0, 1], default=0.25
        Weight w of the overall AUC.
    include_small : bool, default=False
    ci, n_boot, random_state
        Intervals: DeLong for each AUC, a stratified bootstrap for the power means and the score
        (see :func:`bias_auc_table`).
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0: weighted AUCs and effective sample sizes as in :func:`bias_auc_table`
        (the power means and the blend are unchanged). With `ci`, the intervals of the power means and the
        score come from replicates drawn from the AUCs' linearized joint law (``_stats.auc_draws``).

    Returns
    -------
    BiasAucResult
        ``.value`` is the score (higher is better, 1 is perfect ranking in every subgroup).

    References
    ----------
    Borkan et al. (2019); Jigsaw Unintended Bias in Toxicity Classification (2019); seed 000.
    """
    table = bias_auc_table(y_true, y_score, subgroups, ci=ci, n_boot=n_boot, random_state=random_state,
                           sample_weight=sample_weight)
    return summarize_bias_auc(table, p=p, overall_weight=overall_weight, include_small=include_small)
