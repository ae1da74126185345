"""Several models' AUCs on the same rows, and each one's difference from a baseline model with DeLong's paired interval.

Two models that score the same rows have correlated AUCs: a hard example is hard for both. DeLong,
DeLong & Clarke-Pearson (1988) estimate the covariance of the two AUCs from the examples'
*placements*. For a set of m positives and n negatives (the rows of one AUC: a subgroup's
positives and negatives, the background's positives and the subgroup's negatives for BPSN, ...),
model X gives positive i the placement V10_X(i) (the share of the negatives it outranks, ties
counting one half) and negative j the placement V01_X(j) (the share of the positives that outrank
it), and

    AUC_X = mean_i V10_X(i) = mean_j V01_X(j),
    S10_XY = sum_i (V10_X(i) - AUC_X)(V10_Y(i) - AUC_Y) / (m - 1),   S01_XY likewise over negatives,
    Var(AUC_A - AUC_B) = (S10_AA + S10_BB - 2 S10_AB) / m + (S01_AA + S01_BB - 2 S01_AB) / n
                       = sum_i (d_A(i) - d_B(i))^2 / ((m - 1) m) + sum_j (e_A(j) - e_B(j))^2 / ((n - 1) n),

with d and e the positives' and negatives' placement deviations: the second line is the first
written per example, and is what is computed (:func:`._delong.placement_variance` of the paired
deviations).

With sample weights (W1, W0 the positives' and negatives' sums of weights, S1, S0 their sums of
squared weights, n* = W^2 / S Kish's effective sizes) the placements are shares of weight (V10_X(i)
the weight of the negatives positive i outranks over W0, ties one half), AUC_X = sum_i w_i V10_X(i) / W1,
and the linearized (DeLong) variance of a difference takes each row's squared weight in place of 1,

    Var(AUC_A - AUC_B) = n1* / (n1* - 1) sum_i w_i^2 (d_A(i) - d_B(i))^2 / W1^2
                       + n0* / (n0* - 1) sum_j w_j^2 (e_A(j) - e_B(j))^2 / W0^2
                       = sum_i w_i^2 (d_A(i) - d_B(i))^2 / ((n1* - 1) S1) + (the same over the negatives),

the finite-sample factor of ``_delong.weighted_auc_variance`` (:func:`_weighted_placement_variance`; unit
weights give the unweighted sums and DeLong's variance, bit for bit).

The placements come from one sort per score column (``_metrics.auc_ranking._Ranked``: every row's tie level).
For a set of rows, its count per level is one ``bincount`` of the rows' levels, and the placement
numerators of every level are cumulative sums of it: twice the negatives a positive at level t
outranks is 2 N[<= t] - N[t], twice the positives above a negative 2 (n_pos - P[<= t]) + P[t];
they are taken back to the rows by indexing with their levels. No subgroup is sorted on its own and
no Python loop runs over rows (loops run over subgroups and models). The sums 2U are exact integers,
so the AUCs equal ``bias_auc_table``'s (and ``sklearn.metrics.roc_auc_score`` on the same rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Mapping, Optional

import numpy as np
import pandas as pd

from .._metrics.auc_ranking import _ratio, _Ranked
from .._metrics.auc_table import _note
from .._data.checks import as_binary, as_scores, model_columns
from .._counts.weights import check_sample_weight, effective_size
from .._stats.delong import UNDEFINED_NOTE, interval_of, placement_variance
from .._stats.intervals import check_ci, z_value
from .._subgroups.subgroups import as_subgroups

MODELS_MESSAGE = ("{func} needs at least two models as a mapping of name to score column, and a baseline among "
                  "them; got {got}.")
# The AUCs compared, in the table's order within each subgroup (the overall AUC first, on all rows).
AUC_KINDS = ("overall_auc", "subgroup_auc", "bpsn_auc", "bnsp_auc")
ZERO_VARIANCE_NOTE = ("DeLong variance of the difference 0 (each example's placement differs between the models by "
                      "the same amount, e.g. both rank these rows alike): its interval is a point")
ONE_EXAMPLE_NOTE = "difference interval undefined: only 1 {side} example (DeLong's variance needs 2)"
FEW_EFFECTIVE_NOTE = ("difference interval undefined: {size} effective {side} examples (the linearized variance needs "
                      "at least 2)")


def check_models(models, baseline, func: str) -> None:
    """ValueError (``MODELS_MESSAGE``) unless `models` maps at least two names to columns and holds `baseline`."""
    if not isinstance(models, Mapping) or len(models) < 2 or baseline not in models:
        raise ValueError(MODELS_MESSAGE.format(func=func, got=list(models) if isinstance(models, Mapping)
                                               else type(models).__name__))


@dataclass(frozen=True)
class _Side:
    """A set of rows seen by every model: each row's tie level under each model and the levels' counts.

    Attributes
    ----------
    level : ndarray of int, shape (n_models, n_rows)
        The rows' tie levels under each model.
    n_levels : tuple of int
        Distinct scores of each model.
    weight : ndarray of float, shape (n_rows,), or None
        The rows' sample weights; None counts rows (and every count below is then an exact integer).
    """

    level: np.ndarray
    n_levels: tuple
    weight: Optional[np.ndarray] = None

    @property
    def size(self):
        """Rows, or with weights their sum of weights."""
        return self.level.shape[1] if self.weight is None else float(self.weight.sum())

    @property
    def squares(self) -> float:
        """Sum of squared weights (the rows without weights)."""
        return float(self.level.shape[1]) if self.weight is None else float((self.weight * self.weight).sum())

    @property
    def effective(self) -> float:
        """Kish's effective size W^2 / S (the rows without weights)."""
        return float(self.level.shape[1]) if self.weight is None else float(effective_size(self.size, self.squares))

    @cached_property
    def hist(self) -> list:
        """Rows per level of each model (int64, shape (n_levels[i],)); with weights their sums of weights."""
        return [np.bincount(lv, weights=self.weight, minlength=n) for lv, n in zip(self.level, self.n_levels)]

    @cached_property
    def below(self) -> list:
        """As the negatives of an AUC: 2 N[<= t] - N[t] = twice the negatives a positive at level t outranks."""
        return [2 * np.cumsum(h) - h for h in self.hist]

    @cached_property
    def above(self) -> list:
        """As the positives of an AUC: 2 (n - P[<= t]) + P[t] = twice the positives above a negative at level t."""
        return [2 * (self.size - np.cumsum(h)) + h for h in self.hist]


def _paired(pos: _Side, neg: _Side, base: int):
    """Every model's AUC over positives `pos` and negatives `neg`, and the sums behind the DeLong variances.

    With weights (`pos.weight`, `neg.weight`) the placements are shares of the other side's weight, the
    AUC the weighted mean placement of the positives, and each squared deviation is multiplied by its row's
    squared weight (the sums of :func:`_weighted_placement_variance`); with unit weights every number is
    the unweighted one, bit for bit (sums of integer-valued floats, products by 1).

    Returns
    -------
    auc : ndarray of shape (n_models,)
        NaN when a side is empty (weighs 0).
    own : tuple of two ndarrays of shape (n_models,)
        Sums of squared placement deviations of the positives and of the negatives, per model.
    paired : tuple of two ndarrays of shape (n_models,)
        The same sums of the deviations' differences from the baseline model's, d_X(i) - d_base(i).
    """
    m, n = pos.size, neg.size
    n_models = pos.level.shape[0]
    if pos.weight is None:
        u2 = np.array([int(neg.below[i][pos.level[i]].sum()) for i in range(n_models)], dtype=np.int64)
        auc = _ratio(u2, np.int64(m), np.int64(n))
    else:   # 2 U with weights: sum_i w_i (2 W0[< t_i] + W0[t_i]); one rounding less than sum w V10 / W1
        u2 = np.array([float((pos.weight * neg.below[i][pos.level[i]]).sum()) for i in range(n_models)])
        with np.errstate(divide="ignore", invalid="ignore"):
            auc = np.where((m > 0) & (n > 0), u2 / (2.0 * m * n), np.nan)
    if not (m > 0 and n > 0):
        nan = np.full(n_models, np.nan)
        return auc, (nan, nan), (nan, nan)
    # Deviations of the placements from the AUC: V10 = (2 N[<= t] - N[t]) / (2 n), V01 = (...) / (2 m).
    d = np.stack([neg.below[i][pos.level[i]] / (2.0 * n) - auc[i] for i in range(n_models)])   # (n_models, m)
    e = np.stack([pos.above[i][neg.level[i]] / (2.0 * m) - auc[i] for i in range(n_models)])   # (n_models, n)
    sq_pos, sq_neg = (1.0, 1.0) if pos.weight is None else (pos.weight * pos.weight, neg.weight * neg.weight)
    own = ((sq_pos * d * d).sum(axis=1), (sq_neg * e * e).sum(axis=1))
    d -= d[base]
    e -= e[base]
    return auc, own, ((sq_pos * d * d).sum(axis=1), (sq_neg * e * e).sum(axis=1))


def _weighted_placement_variance(s10, s01, squares_pos: float, squares_neg: float, n_pos: float, n_neg: float):
    """The linearized variance of a weighted AUC (or of a paired difference) from the sums of squared weights
    times squared placement deviations, `s10` over the positives and `s01` over the negatives:

        Var = s10 / ((n1* - 1) S1) + s01 / ((n0* - 1) S0)
            = n1* / (n1* - 1) s10 / W1^2 + n0* / (n0* - 1) s01 / W0^2,

    S the sums of squared weights and n* = W^2 / S the effective sizes (``_delong.weighted_auc_variance``'s
    factor); NaN where an effective size is below 2. Unit weights (S = n* = the rows) give
    :func:`._delong.placement_variance`'s divisions in its order, so the same number."""
    with np.errstate(divide="ignore", invalid="ignore"):
        var = s10 / (n_pos - 1) / squares_pos + s01 / (n_neg - 1) / squares_neg
    return np.where((n_pos >= 2) & (n_neg >= 2), var, np.nan)


def compare_model_aucs(y_true, scores: Mapping[str, object], subgroups, *, baseline: str, ci=0.95,
                       sample_weight=None) -> pd.DataFrame:
    """Each model's overall, subgroup, BPSN and BNSP AUCs, and its difference from a baseline model (DeLong, paired).

    The models score the same rows, so their AUCs are correlated and the variance of a difference
    is that of DeLong, DeLong & Clarke-Pearson (1988) for correlated AUCs: with each example's
    placement V (a positive's share of the AUC's negatives it outranks, a negative's share of the
    positives that outrank it, ties counting one half) under model A and under the baseline B,

        Var(AUC_A - AUC_B) = (S10_AA + S10_BB - 2 S10_AB) / m + (S01_AA + S01_BB - 2 S01_AB) / n,

    where S10_XY is the sample covariance (denominator m - 1) of the m positives' placements
    under X and Y, and S01_XY that of the n negatives'. The interval is the Wald interval
    d -/+ z sqrt(Var) (clipped to [-1, 1]) and ``p_value`` DeLong's two-sided test of equal AUCs,
    2 (1 - Phi(|d| / sqrt(Var))). Each AUC's own interval is DeLong's logit interval, as in
    :func:`bias_auc_table` (the Hanley-McNeil score interval where that one cannot be formed).
    Every placement comes from one sort per score column (see the module's notes).

    With `sample_weight` every AUC is the weighted Mann-Whitney statistic of its rows,

        AUC_X = sum_{i pos} sum_{j neg} w_i w_j (1[s_X(i) > s_X(j)] + 1/2 1[s_X(i) = s_X(j)]) / (W1 W0),

    equal to ``sklearn.metrics.roc_auc_score(y[rows], s_X[rows], sample_weight=w[rows])`` on the
    AUC's rows, and every variance its linearization (the weighted form of DeLong's structural
    components, as for the single-model weighted AUCs of :func:`bias_auc_table`): with W1, W0 the
    sums of weights of the AUC's positives and negatives, S1, S0 their sums of squared weights and
    n* = W^2 / S Kish's effective sizes, the placements are shares of weight (V10_X(i) = the
    negatives' weight below s_X(i), ties one half, over W0; V01 likewise over W1), and

        Var(AUC_A - AUC_B) = Var A + Var B - 2 Cov(A, B)
            = n1* / (n1* - 1) sum_i w_i^2 (d_A(i) - d_B(i))^2 / W1^2
              + n0* / (n0* - 1) sum_j w_j^2 (e_A(j) - e_B(j))^2 / W0^2,

    d_X(i) = V10_X(i) - AUC_X over the positives and e_X(j) = V01_X(j) - AUC_X over the negatives
    (Cov(A, B) is the same sum of w^2 d_A d_B: each row's influence on both AUCs); each AUC's own
    interval is the logit interval of its variance Var A (the same sum with d_A alone), as the
    weighted :func:`bias_auc_table` gives it. Unit weights give exactly the unweighted table
    (values, standard errors, intervals, p-values; the counts then as floats).

    The differences of the models' power means and bias AUC scores are not given here (their
    paired interval would need a joint bootstrap of both models' score levels).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    scores : mapping of str to array-like of shape (n_samples,)
        Each model's scores on any scale (higher means more likely positive), e.g.
        ``{"TOXICITY@1": p1, "TOXICITY@6": p6}``; at least two.
    subgroups : Subgroups, or DataFrame / Series / array of protected attributes
    baseline : str
        The model the others are compared with (a key of `scores`).
    ci : float in (0, 1) or None, default=0.95
        Level of the intervals; None gives the values, differences and standard errors only.
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row (a row of weight 0 takes no part); None counts every
        row once. With weights ``n_positive`` and ``n_negative`` are sums of weights (float),
        ``small`` compares the subgroup's effective sample size with ``min_size``, and an interval
        needs an effective size of at least 2 on each side.

    Returns
    -------
    DataFrame
        One row per (model, AUC): models in the order given (the baseline included, with a
        difference of 0), each with the overall AUC (``subgroup`` None) and then, per subgroup in
        ``subgroups.names`` order, its subgroup, BPSN and BNSP AUC. Columns ``model, subgroup,
        auc`` (one of ``AUC_KINDS``), ``n_positive, n_negative`` (the AUC's positives and
        negatives), ``small`` (the subgroup has fewer rows than ``min_size``), ``value``,
        ``baseline_value``, ``difference`` (model - baseline), ``difference_se`` (the square root
        of DeLong's paired variance; NaN with fewer than 2 positives or negatives) and, with
        `ci`, ``value_ci_low, value_ci_high`` (after ``value``), ``difference_ci_low,
        difference_ci_high, p_value, excludes_zero`` (None where the interval is undefined, for
        the baseline, and where the variance is 0 but the difference is not); then ``note``
        (why a value or interval is undefined or not DeLong's). An AUC without positives or
        negatives is NaN, never 0. ``attrs``: ``baseline``, ``ci``.

    Raises
    ------
    ValueError
        For fewer than two models or an unknown baseline (``MODELS_MESSAGE``), labels that are
        not 0/1, scores that are not finite numbers, lengths that differ, a bad `ci`, or weights
        that are negative, NaN, infinite, not numbers or of the wrong length.

    References
    ----------
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988), "Comparing the areas under two
    or more correlated receiver operating characteristic curves: a nonparametric approach",
    Biometrics 44(3), 837-845. Sun, X. and Xu, W. (2014), "Fast implementation of DeLong's
    algorithm for comparing the areas under correlated receiver operating characteristic curves",
    IEEE Signal Processing Letters 21(11), 1389-1393. Borkan et al. (2019) for the subgroup, BPSN
    and BNSP AUCs.

    Examples
    --------
    >>> y = [0, 0, 1, 1, 0, 1, 0, 1]
    >>> a = [.1, .4, .35, .8, .2, .7, .3, .9]
    >>> b = [.2, .3, .6, .7, .5, .65, .4, .4]
    >>> table = compare_model_aucs(y, {"a": a, "b": b}, ["x"] * 4 + ["z"] * 4, baseline="a")
    >>> row = table[(table["model"] == "b") & (table["auc"] == "overall_auc")].iloc[0]
    >>> float(row["value"]), float(row["baseline_value"]), float(row["difference"])
    (0.90625, 0.9375, -0.03125)
    """
    func = "compare_model_aucs"
    check_models(scores, baseline, func)
    level = check_ci(ci, func)
    y = as_binary(y_true, "y_true", func).astype(bool)
    checked = model_columns(scores, len(y), as_scores, "scores", func)
    names, columns = list(checked), list(checked.values())
    w = check_sample_weight(sample_weight, len(y), func)
    groups = as_subgroups(subgroups, len(y), func)
    ranked = [_Ranked.of(s) for s in columns]
    levels = np.stack([r.level for r in ranked])
    n_levels = tuple(r.n_levels for r in ranked)
    base = names.index(str(baseline))

    def side(mask):
        rows = np.flatnonzero(mask)
        return _Side(levels[:, rows], n_levels, None if w is None else w[rows])

    parts = [_rows("overall_auc", None, False, side(y), side(~y), base)]
    if w is None:
        small = groups.small
    else:   # effective sizes, as the weighted AUC table
        member = groups.membership.astype(np.float64)
        small = effective_size(w @ member, (w * w) @ member) < groups.min_size
    for j, subgroup in enumerate(groups.names):
        member, background = groups.membership[:, j], groups.background[:, j]
        mp, mn = side(member & y), side(member & ~y)
        bp, bn = side(background & y), side(background & ~y)
        for kind, pos, neg in (("subgroup_auc", mp, mn), ("bpsn_auc", bp, mn), ("bnsp_auc", mp, bn)):
            parts.append(_rows(kind, subgroup, bool(small[j]), pos, neg, base))
    return _table(parts, names, base, level, weighted=w is not None)


def _rows(kind: str, subgroup, small: bool, pos: _Side, neg: _Side, base: int) -> dict:
    """The numbers of one AUC for every model (arrays of shape (n_models,)); with weights ``n_positive`` and
    ``n_negative`` are sums of weights and ``effective`` the two sides' effective sizes."""
    auc, own, paired = _paired(pos, neg, base)
    m, n = pos.size, neg.size
    if pos.weight is None:
        variance, difference = placement_variance(*own, m, n), placement_variance(*paired, m, n)
    else:
        sides = (pos.squares, neg.squares, pos.effective, neg.effective)
        variance, difference = (_weighted_placement_variance(*sums, *sides) for sums in (own, paired))
    return {"auc": kind, "subgroup": subgroup, "small": small, "n_positive": m, "n_negative": n, "value": auc,
            "variance": variance, "difference_variance": difference,
            "effective": (pos.effective, neg.effective)}


def _table(parts: list, names: list, base: int, level, weighted: bool = False) -> pd.DataFrame:
    """The long table of :func:`compare_model_aucs` from the per-AUC numbers, models outermost (with
    `weighted`, counts are sums of weights and the intervals take the effective sizes)."""
    n_models, n_parts = len(names), len(parts)
    value = np.stack([p["value"] for p in parts], axis=1)                   # (n_models, n_parts)
    variance = np.stack([p["variance"] for p in parts], axis=1)
    diff_var = np.stack([p["difference_variance"] for p in parts], axis=1)
    count_type = np.float64 if weighted else np.int64
    n_pos = np.array([p["n_positive"] for p in parts], dtype=count_type)
    n_neg = np.array([p["n_negative"] for p in parts], dtype=count_type)
    eff_pos, eff_neg = (np.array([p["effective"][i] for p in parts], dtype=np.float64) for i in (0, 1))
    baseline_value = np.broadcast_to(value[base], value.shape)
    difference = value - baseline_value
    with np.errstate(invalid="ignore"):
        se = np.sqrt(diff_var)
    out = {
        "model": np.repeat(np.asarray(names, dtype=object), n_parts),
        "subgroup": np.tile(np.array([p["subgroup"] for p in parts], dtype=object), n_models),
        "auc": np.tile(np.array([p["auc"] for p in parts], dtype=object), n_models),
        "n_positive": np.tile(n_pos, n_models), "n_negative": np.tile(n_neg, n_models),
        "small": np.tile(np.array([p["small"] for p in parts], dtype=bool), n_models),
        "value": value.reshape(-1)}
    defined = (n_pos > 0) & (n_neg > 0)
    notes = np.tile(np.array([UNDEFINED_NOTE.format(why=_note(int(a > 0), int(b > 0))) if not ok else ""
                              for a, b, ok in zip(n_pos, n_neg, defined)], dtype=object), n_models)
    if level is not None:   # the effective sizes (the counts without weights) behind the fallback and its notes
        pos_all, neg_all = np.tile(eff_pos, n_models), np.tile(eff_neg, n_models)
        low, high, value_note = interval_of(value.reshape(-1), variance.reshape(-1), pos_all, neg_all, level)
        out |= {"value_ci_low": low, "value_ci_high": high}
        notes = value_note.astype(object)
    out |= {"baseline_value": baseline_value.reshape(-1), "difference": difference.reshape(-1),
            "difference_se": se.reshape(-1)}
    own = np.zeros(value.shape, dtype=bool)
    own[base] = True
    own = own.reshape(-1)
    diff = difference.reshape(-1)
    flat_se = se.reshape(-1)
    point = (flat_se == 0) & ~own                                 # zero variance: the interval is a point
    if level is not None:
        z = z_value(level)
        low = np.clip(diff - z * flat_se, -1.0, 1.0)
        high = np.clip(diff + z * flat_se, -1.0, 1.0)
        from scipy.stats import norm  # scipy.stats on first use: import fairness_core stays light

        with np.errstate(divide="ignore", invalid="ignore"):
            p_value = np.where(flat_se > 0, 2.0 * norm.sf(np.abs(diff) / flat_se), np.nan)
        p_value[own] = np.nan
        excludes = [None if o or np.isnan(lo) or (pt and d != 0) else bool(lo > 0 or hi < 0)
                    for o, lo, hi, pt, d in zip(own, low, high, point, diff)]
        out |= {"difference_ci_low": low, "difference_ci_high": high, "p_value": p_value,
                "excludes_zero": np.array(excludes, dtype=object)}
    pair_notes = np.full(len(diff), "", dtype=object)
    tiled_pos, tiled_neg = np.tile(eff_pos, n_models), np.tile(eff_neg, n_models)
    for i in np.flatnonzero(~own & np.isnan(flat_se) & np.tile(defined, n_models)):
        side, size = ("positive", tiled_pos[i]) if tiled_pos[i] < 2 else ("negative", tiled_neg[i])
        pair_notes[i] = (FEW_EFFECTIVE_NOTE.format(size=f"{size:.2f}", side=side) if weighted
                         else ONE_EXAMPLE_NOTE.format(side=side))
    pair_notes[point] = ZERO_VARIANCE_NOTE
    out["note"] = np.array(["; ".join(t for t in (a, b) if t) for a, b in zip(notes, pair_notes)], dtype=object)
    table = pd.DataFrame(out)
    table["subgroup"] = pd.Series(out["subgroup"], dtype=object)   # None (not NaN) on the overall rows
    table.attrs.update(baseline=names[base], ci=level)
    return table
