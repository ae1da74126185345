"""Several models on the same rows: each one's disparities against a baseline model, with paired intervals."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from .._stats.bootstrap import Atoms, check_boot_options, percentile_interval
from .._data.checks import as_binary, check_option, model_columns
from .._disparity.compare import check_reference
from .._counts.confusion import ConfusionCounts, confusion_counts
from .._counts.weights import check_sample_weight
from .._metrics.explorer import reduced_values
from .._subgroups.subgroups import as_subgroups

MODELS_MESSAGE = ("compare_models needs at least two models as a mapping of name to predicted labels (0/1), "
                  "and a baseline among them; got {got}.")
# The quantities compared: a rate's reduced disparity (by its rate_disparity name), equalized odds,
# the two ratio scores, and the overall accuracy and selection rate.
QUANTITIES = ("statistical_parity", "true_positive_rate", "false_positive_rate", "false_negative_rate",
              "false_omission_rate", "false_discovery_rate", "error_rate", "equalized_odds", "p_percent_score",
              "equal_opportunity_score", "accuracy", "selection_rate")
_OVERALL = {"accuracy": ((0, 3), (0, 1, 2, 3)), "selection_rate": ((1, 3), (0, 1, 2, 3))}


def compare_models(y_true, predictions: Mapping[str, object], subgroups, *, baseline: str,
                   quantities: Sequence[str] = ("false_positive_rate", "false_negative_rate", "equalized_odds",
                                                "p_percent_score", "accuracy"),
                   distance_measure: str = "diff", reduction: str = "max", reference: str = "rest",
                   include_small: bool = False, ci=0.95, n_boot: int = 1000, random_state=0,
                   positive_outcome: str = "favourable", sample_weight=None, _replicates=None) -> pd.DataFrame:
    """Each model's disparities and performance, and its difference from a baseline model with a paired interval.

    Every model's value is what the single-model functions give for its predictions (a reduced
    rate disparity as :meth:`ConfusionCounts.disparity`, equalized odds, the p% or equal
    opportunity score as :meth:`ConfusionCounts.ratio_scores`, the overall accuracy or
    selection rate). Since the models score the same rows, their differences are assessed with
    a *paired* bootstrap: a replicate resamples rows (stratified by subgroup membership, as
    every interval here) and recomputes both models on the same resampled rows, through the
    counts per (membership pattern, confusion cell of the model, confusion cell of the
    baseline), 16 cells per pattern. Pairing removes the row-to-row variation the models share,
    so the interval of a difference is narrower than two independent intervals suggest.

    With `sample_weight` every count is a sum of weights (TP = sum of w_i over the rows with
    y_i = 1 and prediction 1, ...), so every model's value is the weighted one that
    ``confusion_counts(y_true, predictions[model], subgroups, sample_weight=w)`` gives (e.g. a
    weighted FPR = sum_{y=0, pred=1} w / sum_{y=0} w); subgroup sizes and the small flags are
    Kish's effective sample sizes (sum w)^2 / sum w^2. The paired bootstrap then deals the rows
    themselves, each with its weight and its 16-cell index (confusion cell of the model, of the
    baseline), into ``BUCKETS`` = 200 buckets at random and reweights the buckets
    (``Atoms.rows``, ``BucketSplit.of_rows``; the bootstrap of the single-model weighted
    disparities): both models are recomputed on the same re-dealt rows, so the pairing is kept.
    That bootstrap is not stratified by membership pattern (subgroup weights vary between
    replicates), so unit weights give the unweighted values exactly but intervals that differ from
    the unweighted ones by bootstrap noise.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Binary labels, 0 or 1.
    predictions : mapping of str to array-like of shape (n_samples,)
        Each model's predicted labels (0/1), e.g. ``{"hgb": p_hgb >= 0.3, "logreg": p_lr >= 0.5}``
        (each model at its own threshold).
    subgroups : Subgroups, or protected attributes
    baseline : str
        The model the others are compared with (a key of `predictions`).
    quantities : sequence of str, default=('false_positive_rate', 'false_negative_rate', 'equalized_odds', 'p_percent_score', 'accuracy')
        From ``QUANTITIES``: rate disparities by their :func:`rate_disparity` names,
        ``'equalized_odds'``, ``'p_percent_score'``, ``'equal_opportunity_score'``, ``'accuracy'``,
        ``'selection_rate'``.
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'}, default='max'
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    positive_outcome : {'favourable', 'adverse'}, default='favourable'
        Whether a positive prediction is favourable for the person: for
        ``'adverse'`` the p% and equal opportunity scores compare the favourable (negative)
        prediction, as :meth:`ConfusionCounts.favourable` does.
        Of the disparities (the ratio scores always compare with the rest).
    include_small : bool, default=False
    ci : float in (0, 1) or None, default=0.95
    n_boot : int >= 100, default=1000
    random_state : None, int >= 0 or numpy Generator, default=0
    sample_weight : array-like of shape (n_samples,) or None, default=None
        Finite weights >= 0, one per row (e.g. survey weights; a row of weight 0 takes no part);
        None counts every row once (the results are then those without the parameter).
    _replicates : dict or None, default=None
        For the release gate (``_review.change_levels``): a dict that receives, under each other model's name, a
        list of (quantities, replicates) pairs: the paired replicates of (model - baseline), an ndarray of shape
        (n_boot, len(quantities)), drawn jointly within a pair. One pair; two with ``positive_outcome='adverse'``
        and a ratio score (the ratio scores' from a second bootstrap). Left empty without `ci`.

    Returns
    -------
    DataFrame
        One row per (model, quantity), models in the order given (the baseline included, with a
        difference of 0): ``model, quantity, value, baseline_value, difference`` (model - baseline)
        and, with `ci`, ``difference_ci_low, difference_ci_high, excludes_zero`` (None where the
        interval is undefined); ``attrs`` record the baseline and the level.

    Raises
    ------
    ValueError
        For fewer than two models, an unknown baseline or quantity (``MODELS_MESSAGE``), labels or
        predictions that are not 0/1, lengths that differ, bad options, or weights that are
        negative, NaN, infinite, not numbers or of the wrong length (``WEIGHT_*_MESSAGE``).

    References
    ----------
    Efron, B. & Tibshirani, R. (1993), "An Introduction to the Bootstrap", ch. 6 and 16 (paired
    and stratified resampling). Oracle AutoMLx fairness metrics: distances, reductions.
    """
    func = "compare_models"
    check_option(positive_outcome, ("favourable", "adverse"), "positive_outcome", func)
    favourable = [q for q in quantities if q in ("p_percent_score", "equal_opportunity_score")]
    if positive_outcome == "adverse" and favourable:   # those of the favourable prediction: labels and predictions swapped
        kw = dict(baseline=baseline, distance_measure=distance_measure, reduction=reduction, reference=reference,
                  include_small=include_small, ci=ci, n_boot=n_boot, random_state=random_state,
                  sample_weight=sample_weight)
        others = [q for q in quantities if q not in favourable]
        flipped = compare_models(1 - as_binary(y_true, "y_true", func), {
            name: 1 - as_binary(p, "predictions", func) for name, p in predictions.items()}, subgroups,
            quantities=favourable, _replicates=_replicates, **kw)
        parts = [flipped] + ([compare_models(y_true, predictions, subgroups, quantities=others, _replicates=_replicates,
                                             **kw)] if others else [])
        out = pd.concat(parts, ignore_index=True)
        out["order"] = out["quantity"].map({q: i for i, q in enumerate(quantities)})
        models = {str(name): i for i, name in enumerate(predictions)}
        out = out.assign(m=out["model"].map(models)).sort_values(["m", "order"], kind="stable")
        result = out.drop(columns=["m", "order"]).reset_index(drop=True)
        result.attrs.update(parts[-1].attrs)
        return result
    if not isinstance(predictions, Mapping) or len(predictions) < 2 or baseline not in predictions:
        raise ValueError(MODELS_MESSAGE.format(got=list(predictions) if isinstance(predictions, Mapping)
                                               else type(predictions).__name__))
    for q in quantities:
        check_option(q, list(QUANTITIES), "quantities", func)
    check_option(distance_measure, ("diff", "ratio"), "distance_measure", func)
    check_option(reduction, ("max", "mean"), "reduction", func)
    level, n_boot, rng = check_boot_options(ci, n_boot, random_state, func)
    y = as_binary(y_true, "y_true", func)
    preds = model_columns(predictions, len(y), as_binary, "predictions", func)
    w = check_sample_weight(sample_weight, len(y), func)
    groups = as_subgroups(subgroups, len(y), func)
    check_reference(reference, groups.names, func)
    opts = dict(distance_measure=distance_measure, reduction=reduction, reference=reference)
    counts = {name: confusion_counts(y, p, groups, sample_weight=w) for name, p in preds.items()}
    point, used = {}, {}
    for name, c in counts.items():
        for q in quantities:
            point[name, q], used[name, q] = _value(c.member[None], c.background[None], c.overall[None], c, q, opts,
                                                  include_small)
    rows = []
    base = str(baseline)
    for name in preds:
        draws = None
        if level is not None and name != base:
            draws = _paired_draws(y, preds[name], preds[base], groups, counts[name], counts[base], quantities, opts,
                                  used, name, base, n_boot, rng, w)
            if _replicates is not None:
                _replicates.setdefault(name, []).append((tuple(quantities), draws))
        for i, q in enumerate(quantities):
            value, base_value = float(point[name, q][0]), float(point[base, q][0])
            row = {"model": name, "quantity": q, "value": value, "baseline_value": base_value,
                   "difference": value - base_value}
            if level is not None:
                if name == base:
                    low = high = 0.0 if not np.isnan(value) else np.nan
                else:
                    low, high, _ = percentile_interval(draws[:, i:i + 1], level)
                    low, high = float(low[0]), float(high[0])
                row |= {"difference_ci_low": low, "difference_ci_high": high,
                        "excludes_zero": None if np.isnan(low) or name == base else bool(low > 0 or high < 0)}
            rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs.update(baseline=base, ci=level, n_boot=n_boot if level is not None else None)
    return out


def _value(member, background, overall, counts: ConfusionCounts, quantity: str, opts: dict, include_small: bool,
           used=None):
    """Quantity of counts with a leading axis -> (values (n,), the comparisons used).

    Without `used` (the point estimate) the small flags of weighted counts take their effective sizes
    (the squared-weight tables of `counts`); a replicate passes the estimate's `used`."""
    if quantity in _OVERALL:
        num, den = _OVERALL[quantity]
        n = overall[..., list(den)].sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, overall[..., list(num)].sum(axis=-1) / n, np.nan), None
    squares = None
    if counts.weighted and used is None:
        squares = (counts.member_sq[None], counts.background_sq[None], counts.overall_sq[None])
    value, used_rows, _, _ = reduced_values(member, background, overall, counts.sizes, counts.names, counts.min_size,
                                            quantity, include_small=include_small, used=used, squares=squares,
                                            **opts)
    return value, used_rows[0]


def _paired_draws(y, pred, pred_base, groups, counts, counts_base, quantities, opts, used, name, base, n_boot, rng,
                  weights=None):
    """Replicates of (model - baseline) for each quantity, shape (n_boot, n_quantities).

    The atoms count the rows per (membership pattern, 16 cells); with `weights` they are sums of
    weights and keep each row's (pattern, cell, weight), which the bootstrap deals into buckets
    row by row (``Atoms.rows``)."""
    cell = (2 * y.astype(np.intp) + pred) * 4 + (2 * y.astype(np.intp) + pred_base)
    if weights is None:
        atoms = Atoms.of(groups, cell, 16)
    else:
        codes, member, background = groups.patterns
        sums = np.bincount(codes * 16 + cell, weights=weights, minlength=member.shape[0] * 16)
        atoms = Atoms(sums.reshape(member.shape[0], 16), member, background, rows=(codes, cell, weights))
    out = []
    for block in atoms.replicates(n_boot, rng):
        member, background, overall = atoms.tables(block)            # (B, k, 16), (B, k, 16), (B, 16)
        split = [(m.reshape(*m.shape[:-1], 4, 4).sum(axis=-1), m.reshape(*m.shape[:-1], 4, 4).sum(axis=-2))
                 for m in (member, background, overall)]
        model = [s[0] for s in split]
        baseline = [s[1] for s in split]
        out.append(np.stack([
            _value(*model, counts, q, opts, False, used[name, q])[0] - _value(*baseline, counts_base, q, opts, False,
                                                                                used[base, q])[0]
            for q in quantities], axis=1))
    return np.concatenate(out)

