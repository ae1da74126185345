"""The ranking engine of the AUC family: one sort of a score column, and every subgroup's exact AUC counts.

Every AUC is counted from one sort of the score column (``auc_order.score_order``: ``np.argsort``'s order from one
``np.sort`` of packed 64-bit keys): each row gets its tie level, and the AUC of any set of positives P and negatives
N is

    AUC = sum_t P[t] * (N[< t] + N[t] / 2) / (|P| * |N|)

where P[t], N[t] are the counts at tie level t. This is the Mann-Whitney probability that a
positive outranks a negative, ties counting one half, which equals
``sklearn.metrics.roc_auc_score``. The numerator 2U = sum_t P[t] (2 N[< t] + N[t]) is an exact
integer and the AUC one division. No subgroup is ever sorted on its own, and no per-subgroup
histogram over the levels is built: :func:`_subgroup_counts` walks, in score order, only the
rows outside each subgroup's background, and takes the background's counts as the level totals
minus those rows (see :func:`_counts_by_segments`; without tied scores, :func:`_untied_counts` needs only each
subgroup's places in the order).

The engine gives, per subgroup, the counts of its positives and negatives and of its background's, twice
the Mann-Whitney U of its subgroup, BPSN and BNSP AUCs and, when asked, DeLong's sums of squared
placement deviations (:func:`_subgroup_counts`); the AUC table is built from them by
:func:`fairness_core._metrics.auc.bias_auc_table`.

References: Mann and Whitney (1947), Ann. Math. Statist. 18(1); DeLong, DeLong and Clarke-Pearson (1988),
Biometrics 44(3); Sun and Xu (2014), IEEE Signal Processing Letters 21(11) (DeLong's variance from one sort).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .auc_order import score_order

# Rows of the per-subgroup segments handled at once (bounds the memory of overlapping subgroups).
_BLOCK_ROWS = 1 << 22
# Overlapping subgroups are listed from their (subgroups, rows) table when it has at most this many cells per row
# listed (a pass over the table costs less than a sort of the list), else pattern by pattern (see _listed).
_DENSE_CELLS_PER_ROW = 32


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
        """The sort of `y_score` (finite numbers, shape (n_samples,); float64 through :func:`score_order`)."""
        order, ordered = score_order(y_score)
        n = len(ordered)
        step = np.empty(n, dtype=bool)
        step[:1] = True
        np.not_equal(ordered[1:], ordered[:-1], out=step[1:])
        if step.all():   # no ties: row i of the order is level i (one array serves as both)
            below = np.arange(n + 1, dtype=np.intp)
            return cls(n, order, below[:-1], below)
        starts = np.flatnonzero(step)
        sorted_level = np.cumsum(step, dtype=np.intp)
        sorted_level -= 1
        return cls(len(starts), order, sorted_level, np.append(starts, n))

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


def _untied_counts(rows: np.ndarray, ys: np.ndarray, levels: "_LevelTotals") -> tuple[list, list]:
    """The counts and 2U of :class:`_SubgroupCounts` for one subgroup when no two rows share a score (the level of the
    row at position i of the score order is i) and every row outside its background is a member.

    `rows` are the subgroup's positions in the score order, increasing. With p_1 < ... < p_m the places of its
    positives among its own rows (0-based), the negatives below the r-th positive are p_r - (r - 1), so

        2 U_subgroup = 2 (sum_r p_r - m (m - 1) / 2)
        2 U_BNSP     = sum over its positives g_N(t) - 2 U_subgroup
        2 U_BPSN     = 2 n_bp n_sn - sum over its negatives g_P(t) + (2 n_sp n_sn - 2 U_subgroup)

    (g as in :func:`_counts_by_segments`): the same exact integers as the run-by-run sums, with no cumulative count.
    Returns ``([n_sp, n_sn, n_bp, n_bn], [u2_subgroup, u2_bpsn, u2_bnsp])`` as Python integers.
    """
    own = ys[rows]
    at_pos = np.flatnonzero(own)
    n_sp = len(at_pos)
    n_sn = len(rows) - n_sp
    n_bp, n_bn = int(levels.below[0, -1]) - n_sp, int(levels.below[1, -1]) - n_sn
    sub = 2 * (int(at_pos.sum()) - n_sp * (n_sp - 1) // 2)
    bnsp = int(levels.twice[1][rows[at_pos]].sum()) - sub
    bpsn = 2 * n_bp * n_sn - int(levels.twice[0][rows[~own]].sum()) + 2 * n_sp * n_sn - sub
    return [n_sp, n_sn, n_bp, n_bn], [sub, bpsn, bnsp]


def _untied_table(listed) -> _SubgroupCounts:
    """:class:`_SubgroupCounts` from :func:`_untied_counts` of each subgroup (an iterable of its results)."""
    n, u2 = zip(*listed) if listed else ((), ())
    return _SubgroupCounts(np.array(n, dtype=np.int64).reshape(-1, 4), np.array(u2, dtype=np.int64).reshape(-1, 3))


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
        below = np.empty((2, ranked.n_levels + 1), dtype=np.int64)
        if ranked.n_levels == len(ys):   # no ties: level t is position t of the order
            below[0, 0] = 0
            np.cumsum(ys, out=below[0, 1:])
        else:
            pos_lt = np.zeros(len(ys) + 1, dtype=np.int64)
            np.cumsum(ys, out=pos_lt[1:])
            np.take(pos_lt, ranked.below, out=below[0])
        np.subtract(ranked.below, below[0], out=below[1])
        return cls(below, below[:, :-1] + below[:, 1:])

    def overall_auc(self) -> tuple[float, int, int]:
        """The AUC of all rows, 2U / (2 n_pos n_neg) with 2U = sum_t P[t] g_N(t) (NaN when a side is empty),
        and n_pos, n_neg: the numbers of :func:`_auc_from_hists` of the level histograms."""
        n_pos, n_neg = int(self.below[0, -1]), int(self.below[1, -1])
        if n_pos == 0 or n_neg == 0:
            return float("nan"), n_pos, n_neg
        return float(int(np.dot(np.diff(self.below[0]), self.twice[1]))) / float(2 * n_pos * n_neg), n_pos, n_neg


def _subgroup_counts(ys: np.ndarray, ranked: _Ranked, levels: _LevelTotals, groups, variance: bool) -> _SubgroupCounts:
    """AUC counts of every subgroup from the one sort of the scores (no per-subgroup row masks).

    `ys` are the labels in score order and `levels` their totals per level. Disjoint subgroups:
    the rows in score order are split by subgroup with one stable (radix) sort of their codes.
    Overlapping subgroups: each row is listed once per subgroup whose background it is not in
    (through its membership pattern; :func:`_listed`). Subgroups are taken in blocks of at most
    ``_BLOCK_ROWS`` listed rows (and table cells, when read from the table; at least one subgroup
    each), which bounds the memory.
    """
    n, k = len(ys), len(groups.names)
    parts = []
    untied = ranked.n_levels == n and not variance   # no tied scores, no variance: _untied_counts per subgroup
    if groups.codes is not None:
        codes = groups.codes.astype(_small_int(k), copy=False)[ranked.order]   # a narrow gather
        by_subgroup = np.argsort(codes, kind="stable")
        sizes = np.bincount(codes, minlength=k)
        bounds = np.append(0, np.cumsum(sizes))
        if untied:
            return _untied_table([_untied_counts(by_subgroup[bounds[j]:bounds[j + 1]], ys, levels) for j in range(k)])
        for block in _blocks(sizes, _BLOCK_ROWS):
            rows = by_subgroup[bounds[block[0]]:bounds[block[-1] + 1]]
            parts.append(_counts_by_segments(ranked.sorted_level[rows], ys[rows], None, sizes[block], levels,
                                             variance))
    else:
        codes, member, background = groups.patterns
        codes = codes.astype(_small_int(member.shape[0]), copy=False)[ranked.order]
        outside = ~background                                             # (n_patterns, k)
        sizes = np.bincount(codes, minlength=member.shape[0]) @ outside  # rows listed per subgroup
        # Members are the rows outside the background unless an indicator is missing somewhere.
        any_other = not np.array_equal(member, outside)
        # Read from the (subgroups, rows) table when it has few cells per listed row, else listed pattern by pattern.
        dense = k * n <= _DENSE_CELLS_PER_ROW * int(sizes.sum())
        if untied and dense and not any_other:   # each subgroup's rows read from its column of the table, in turn
            by_pattern, wide = np.ascontiguousarray(outside.T), codes.astype(np.intp)   # take() wants intp indices
            return _untied_table([_untied_counts(np.flatnonzero(by_pattern[j].take(wide)), ys, levels)
                                  for j in range(k)])
        for block in _blocks(sizes, _BLOCK_ROWS, np.full(k, max(n, 1)) if dense else None):
            rows, sub = _listed(codes, outside[:, block], sizes[block], dense)
            is_member = member[:, block][codes[rows], sub] if any_other else None
            parts.append(_counts_by_segments(ranked.sorted_level[rows], ys[rows],
                                             None if is_member is None or is_member.all() else is_member,
                                             sizes[block], levels, variance))
    if not parts:
        return _SubgroupCounts(np.zeros((0, 4), np.int64), np.zeros((0, 3), np.int64),
                               *(2 * [np.zeros((0, 3))] if variance else []))
    return _SubgroupCounts(*(None if getattr(parts[0], f) is None else np.concatenate([getattr(p, f) for p in parts])
                             for f in ("n", "u2", "s10", "s01")))


def _listed(codes: np.ndarray, outside: np.ndarray, sizes: np.ndarray, dense: bool) -> tuple[np.ndarray, np.ndarray]:
    """The rows (positions in score order) outside the background of each subgroup of a block, and their subgroup:
    subgroup by subgroup, each in score order.

    `codes` are the rows' patterns in score order, `outside` (n_patterns, block) whether a pattern's rows are outside
    a subgroup's background, `sizes` the rows so listed per subgroup. `dense`: the positions of the True values of
    the (block, rows) table, read row by row (no sort); otherwise each row is listed once per subgroup of its pattern
    and the list put in subgroup order by one stable (radix) sort, which costs in proportion to the rows listed.
    """
    n = len(codes)
    if dense:
        listed = np.flatnonzero(outside.T.take(codes, axis=1))
        sub = np.repeat(np.arange(outside.shape[1]), sizes)
        return listed - sub * n, sub
    per_pattern = outside.sum(axis=1)
    _, sub_of_pair = np.nonzero(outside)             # pairs (pattern, subgroup), by pattern
    count = per_pattern[codes]
    rows = np.repeat(np.arange(n), count)            # each row once per subgroup of its pattern
    # Entry e of row i is pair (first pair of i's pattern) + (e - first entry of row i).
    shift = (np.cumsum(per_pattern) - per_pattern)[codes] - (np.cumsum(count) - count)
    sub = sub_of_pair[np.arange(len(rows)) + np.repeat(shift, count)]
    by_subgroup = np.argsort(sub.astype(_small_int(outside.shape[1]), copy=False), kind="stable")
    return rows[by_subgroup], sub[by_subgroup]


def _small_int(k: int):
    """The smallest integer type for codes below `k` (numpy's stable sort is a radix sort up to 16 bits)."""
    return np.int16 if k <= np.iinfo(np.int16).max else np.intp


def _blocks(sizes: np.ndarray, limit: int, cells: np.ndarray | None = None) -> list[np.ndarray]:
    """Consecutive groups of subgroup indices whose sizes (and `cells`, when given) each sum to at most `limit`
    (at least one subgroup each)."""
    blocks, start, total, total_cells = [], 0, 0, 0
    cells = np.zeros(len(sizes), np.int64) if cells is None else cells
    for j, (size, cell) in enumerate(zip(sizes.tolist(), cells.tolist())):
        if j > start and (total + size > limit or total_cells + cell > limit):
            blocks.append(np.arange(start, j))
            start, total, total_cells = j, 0, 0
        total += size
        total_cells += cell
    if len(sizes):
        blocks.append(np.arange(start, len(sizes)))
    return blocks
