"""Fairness over time: the review's rate and label verdicts per period of a time column, with intervals, sizes and
small flags, the first period a rule failed across its whole interval, and the change over time judged honestly.

Every period's confusion counts come from one ``bincount`` over (period, membership pattern, cell): the period is
one more key of the count table, so no row is filtered per period. Each period's tables then go through the
review's own builders (``review._rate_review``, ``conclusions.dataset_conclusions``), so a period's numbers,
intervals (seed 0) and verdicts are those of :func:`build_review` on that period's rows with the same thresholds.
A caller that shows one model's verdicts (the app's Over time page) asks for that model alone and for the verdicts
alone (``models=``, ``verdicts_only=``): the same numbers, without the other models, findings and tables.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Union

import numpy as np
import pandas as pd

from .._counts.confusion import ConfusionCounts, confusion_counts
from .._counts.scored_data import ScoredData
from .._data.periods import assign_periods
from .._stats.bootstrap import Atoms
from .._policy.verdicts import evaluate_result
from .._stats.trend import PeriodTrend, period_changes, period_trend
from .bottom_line import who
from .conclusions import WEIGHTED, Conclusions, dataset_conclusions, dataset_rule, rate_rules, rate_verdicts
from .config import ReviewConfig, dataset_options
from .records import ModelReview
from .review import _disparities, _rate_review

LABELS = "labels"
NO_ROWS = "no rows in this period"
NO_TIME_MESSAGE = ("over_time needs the mapping's time column (ColumnMapping(time=...)); "
                   "this configuration's mapping has none.")
NO_LEVEL_MESSAGE = "{what} needs intervals: set the configuration's ci (e.g. 0.95)."
RULE_MESSAGE = "No rule {rule!r} for {model!r} over time. The rules are: {known}."
PERIOD_MESSAGE = "No period {got!r}. The periods are: {known}."
MODEL_MESSAGE = "No model {got!r} to assess over time. The models are: {known}."
VERDICT_COLUMNS = ["period", "position", "model", "rule", "metric", "value", "ci_low", "ci_high", "level", "status",
                   "note", "left_out", "rows", "sentence"]


@dataclass(frozen=True, eq=False)
class OverTime:
    """A review's verdicts per period, with each period's rows and subgroups' sizes.

    Attributes
    ----------
    config : ReviewConfig
    period : str, tuple or None
        The period asked for ('day', 'week', 'month', 'quarter'), the edges, or None (integer times).
    time_zone : str or None
        The zone the calendar periods were cut in (the data's own); None for naive times or integers.
    periods : DataFrame
        ``period, position, start, rows, n_positive, small_subgroups``: every period in time order, with
        its rows (0 for a period without rows: it is not assessable, never a value of 0).
    subgroups : DataFrame
        ``period, subgroup, size, n_positive, small`` (with sample weights, ``size`` is the effective size and
        ``n_positive`` the positives' sum of weights).
    verdicts : DataFrame
        One row per (period, model, rule): ``period, position, model, rule, metric, value, ci_low, ci_high,
        level, status, note, left_out, rows, sentence``; ``model`` is a score column, the predicted label
        column, or ``'labels'`` for the rule about the labels. A period without rows, or whose subgroups are
        all too small, is ``'not_assessable'`` with the reason in ``note`` or ``left_out``.
    models : dict of str to tuple
        Each model's ``ModelReview`` per period (the rate part: performance, rate table, disparities, Theil
        index, p% and equal opportunity scores, findings, verdicts; with ``verdicts_only``, no performance, rates
        or findings); None for a period without rows.
    labels : tuple
        The labels' ``Conclusions`` per period (base-rate disparity); None for a period without rows (empty when
        the rule about the labels was left out).
    thresholds : dict of str to float
        Each score's threshold, the same in every period (that of the whole data, as :func:`build_review`).
    exclusions : DataFrame
        ``reason, rows``: rows the review leaves out, then rows without a period (no time, outside the edges).
    """

    config: ReviewConfig
    period: Any
    time_zone: Optional[str]
    periods: pd.DataFrame
    subgroups: pd.DataFrame
    verdicts: pd.DataFrame
    models: dict
    labels: tuple
    thresholds: dict
    exclusions: pd.DataFrame

    def series(self, rule: str, model: Optional[str] = None) -> pd.DataFrame:
        """One rule's verdicts in time order (rows of :attr:`verdicts`).

        Parameters
        ----------
        rule : str
            The rule's name or metric (e.g. ``'four_fifths'`` or ``'p_percent_score'``).
        model : str, optional
            A score or predicted label column, or ``'labels'``; default: the first that has the rule.

        Returns
        -------
        DataFrame

        Raises
        ------
        ValueError
            When no model has that rule.
        """
        table = self.verdicts
        mask = (table["rule"] == rule) | (table["metric"] == rule)
        if model is not None:
            mask &= table["model"] == model
        if not mask.any():
            known = sorted(set(zip(table["model"], table["rule"])))
            raise ValueError(RULE_MESSAGE.format(rule=rule, model=model, known=known))
        chosen = table.loc[mask]
        first = chosen["model"].iloc[0]
        chosen = chosen.loc[chosen["model"] == first]
        return chosen.loc[chosen["rule"] == chosen["rule"].iloc[0]].sort_values("position").reset_index(drop=True)

    def first_failure(self, rule: str, model: Optional[str] = None) -> Optional[str]:
        """The first period where `rule` failed with its whole interval (None if it never did).

        A verdict fails when its whole interval (at the configuration's ``ci``) is beyond the rule's bound
        (without intervals, when the estimate is). Each period is judged at that level alone: over m periods a
        rule that holds can still fail in one of them by chance (see :meth:`changes` for a corrected look).

        Parameters
        ----------
        rule : str
        model : str, optional

        Returns
        -------
        str or None
            The period's label.
        """
        rows = self.series(rule, model)
        failed = rows.loc[rows["status"] == "fail", "period"]
        return None if failed.empty else str(failed.iloc[0])

    def trend(self, rule: str, model: Optional[str] = None) -> PeriodTrend:
        """The weighted trend, and equality across periods, of `rule`'s estimates (:func:`period_trend`).

        Periods without a value or interval are left out (``PeriodTrend.left_out``); positions keep gaps.

        Parameters
        ----------
        rule : str
        model : str, optional

        Returns
        -------
        PeriodTrend

        Raises
        ------
        ValueError
            Without intervals (``config.ci`` None).
        """
        rows = self._with_level(rule, model, "trend")
        return period_trend(rows["value"], rows["ci_low"], rows["ci_high"], level=self.config.ci,
                            index=rows["position"])

    def changes(self, rule: str, model: Optional[str] = None, baseline: Optional[str] = None,
                adjust: str = "holm") -> pd.DataFrame:
        """Each period's change of `rule`'s estimate from a baseline period, corrected for the periods compared.

        :func:`period_changes` (Bonferroni-level intervals, Holm's step-down) with a ``period`` column.
        A change between two chosen periods is the row of the second with the first as baseline.

        Parameters
        ----------
        rule : str
        model : str, optional
        baseline : str, optional
            A period's label; default: the first period with a value and an interval.
        adjust : {'holm', 'bonferroni'}, default='holm'

        Returns
        -------
        DataFrame
            ``period, position, change, ci_low, ci_high, p_value, changed``.

        Raises
        ------
        ValueError
            Without intervals, for an unknown period, or a baseline period without a value or interval.
        """
        rows = self._with_level(rule, model, "changes")
        labels = list(rows["period"])
        if baseline is None:
            usable = np.isfinite(rows[["value", "ci_low", "ci_high"]].to_numpy(np.float64)).all(axis=1)
            usable &= (rows["ci_high"] > rows["ci_low"]).to_numpy()
            position = int(np.argmax(usable)) if usable.any() else 0
        elif baseline in labels:
            position = labels.index(baseline)
        else:
            raise ValueError(PERIOD_MESSAGE.format(got=baseline, known=labels))
        out = period_changes(rows["value"], rows["ci_low"], rows["ci_high"], level=self.config.ci,
                             baseline=position, adjust=adjust)
        out.insert(0, "period", labels)
        out["position"] = rows["position"].to_numpy()
        return out

    def change(self, rule: str, first: str, second: str, model: Optional[str] = None) -> pd.Series:
        """The change of `rule`'s estimate from period `first` to period `second`, corrected for the periods looked at.

        The row of `second` in :meth:`changes` with `first` as baseline: its interval is at the Bonferroni level
        over every period compared with `first` (choosing a pair after seeing the series is looking at them all).

        Parameters
        ----------
        rule : str
        first, second : str
            Periods' labels.
        model : str, optional

        Returns
        -------
        Series
            ``period, position, change, ci_low, ci_high, p_value, changed`` (NaN and False when `second` has no
            value or interval).

        Raises
        ------
        ValueError
            As :meth:`changes`, or for an unknown `second`.
        """
        table = self.changes(rule, model, baseline=first)
        if second not in set(table["period"]):
            raise ValueError(PERIOD_MESSAGE.format(got=second, known=list(table["period"])))
        return table.loc[table["period"] == second].iloc[0]

    def _with_level(self, rule: str, model: Optional[str], what: str) -> pd.DataFrame:
        if self.config.ci is None:
            raise ValueError(NO_LEVEL_MESSAGE.format(what=what))
        return self.series(rule, model)


def over_time(frame: pd.DataFrame, config: ReviewConfig, *, period: Any = "month",
              models: Union[str, Sequence[str], None] = None, verdicts_only: bool = False,
              labels: bool = True) -> OverTime:
    """Assess fairness per period of the mapping's time column: every rate and label rule of the review per period.

    Each row is assigned to a period (``_data.periods.assign_periods``: the time zone kept,
    every calendar period from the first to the last). Per model (each score at its threshold over the whole
    data, and the predicted label column) and per period: the rate part of :func:`build_review` (performance,
    rate table, each assessed rate's disparity, equalized odds, Theil index, p% and equal opportunity scores
    with their intervals, findings and verdicts); per period the labels' base-rate disparity and its rule.
    All periods' confusion counts are one ``bincount`` over (period, membership pattern, cell) with
    ``membership.T @ atoms`` per period (with sample weights, each period's rows are counted apart, as the
    weighted bootstrap keeps its rows). Subgroups are those of the whole data, so a subgroup keeps its name
    and bins in every period; a subgroup with fewer than ``min_size`` rows in a period is small there. Per
    period the result equals :func:`build_review` on that period's rows with the same thresholds and subgroups.
    Subgroup AUCs and calibration per period are not computed here (they need each period's ranks).

    A model left out of `models` costs nothing, and those kept are computed exactly as without `models` (each
    period's bootstrap has its own seed 0, so one model's intervals do not depend on another's). With
    `verdicts_only`, each period's ``ModelReview`` holds what the verdicts and the rate table need and no more: the
    same verdicts, subjects, rate table, p% and equal opportunity scores, but no performance table (None), no
    ``rates`` ({}) and no findings (()); the labels' ``Conclusions`` the same verdict without findings and with
    ``results = {"parity_max": ...}`` alone. Findings and the tables no verdict reads are most of a period's cost;
    the app's Over time page shows only verdicts and rate tables.

    Parameters
    ----------
    frame : DataFrame
        The table as loaded (before the slice).
    config : ReviewConfig
        Its mapping names the ``time`` column.
    period : {'month', 'day', 'week', 'quarter'}, sequence of edges, or None, default='month'
        Calendar periods of datetimes (in the data's own zone; weeks end on Sunday), the edges ``[e_i, e_{i+1})``
        of custom periods (times or integers), or None for integer times (each value a period).
    models : str or sequence of str, optional
        The score and predicted label columns to assess (default: every score and the predicted label column).
    verdicts_only : bool, default=False
        True: leave out each period's performance table, ``rates`` and findings (see above).
    labels : bool, default=True
        False: leave out the rule about the labels (``labels`` is then empty and ``verdicts`` has no ``'labels'``
        rows); the periods and subgroups are the same.

    Returns
    -------
    OverTime

    Raises
    ------
    ValueError
        Without a time column, for times that are not dates, datetimes or integers, a period that does not fit
        them, a model in `models` that is not a score or the predicted label column of the mapping, or as
        :func:`build_review` for a mapping that does not fit the data.
    """
    chosen = _chosen_models(config, models)
    column = config.mapping.time
    if column is None:
        raise ValueError(NO_TIME_MESSAGE)
    if column not in frame.columns:
        raise ValueError(f"The time column {column!r} is not a column of the data.")
    sliced = frame if not config.slice.conditions else frame.loc[config.slice.mask(frame)].reset_index(drop=True)
    scored = ScoredData.from_frame(sliced, config.mapping)
    found = assign_periods(sliced[column].iloc[scored.rows], period, column)
    codes, n = found.codes, len(found.labels)
    groups, y, w = scored.subgroups, scored.y_true, scored.weights

    thresholds, predictions = {}, {}
    for score, values in scored.scores.items():
        if score in chosen:
            thresholds[score] = config.threshold_of(score, values)
            predictions[score] = (values >= thresholds[score]).astype(np.int8)
    if scored.predicted is not None and config.mapping.predicted_label in chosen:
        predictions[config.mapping.predicted_label] = scored.y_pred()

    label_counts = _per_period(y, y, groups, codes, n, w)
    label_review = _label_verdicts if verdicts_only else dataset_conclusions
    label_reviews = tuple(None if c is None else label_review(c, **dataset_options(config))
                          for c in label_counts) if labels else ()
    review = _verdict_review if verdicts_only else _rate_review
    models = {}
    for name, predicted in predictions.items():
        kind = "score" if name in thresholds else "predictions"
        models[name] = tuple(None if c is None else review(c, name, kind, thresholds.get(name), config)
                             for c in _per_period(y, predicted, groups, codes, n, w))

    rows = np.bincount(codes[codes >= 0], minlength=n)
    verdicts = [_verdict_rows(name, [None if r is None else r.verdicts for r in reviews], found.labels, rows)
                for name, reviews in models.items()]
    if labels:
        verdicts.append(_verdict_rows(LABELS, [None if c is None else c.verdicts for c in label_reviews],
                                      found.labels, rows))
    subgroups = _subgroup_rows(label_counts, found.labels)
    periods = pd.DataFrame({
        "period": found.labels, "position": np.arange(n), "start": found.starts, "rows": rows,
        "n_positive": np.bincount(codes[codes >= 0], weights=y[codes >= 0], minlength=n).astype(np.int64),
        "small_subgroups": subgroups.groupby("position", sort=True)["small"].sum().reindex(
            range(n), fill_value=0).to_numpy(np.int64)})
    no_period = pd.DataFrame({"reason": list(found.reasons), "rows": list(found.reasons.values())})
    exclusions = pd.concat([scored.exclusions, no_period.loc[no_period["rows"] > 0]], ignore_index=True)
    return OverTime(config=config, period=period if period is None or isinstance(period, str) else tuple(period),
                    time_zone=found.time_zone, periods=periods, subgroups=subgroups.drop(columns="position"),
                    verdicts=_joined(verdicts), models=models, labels=label_reviews,
                    thresholds=thresholds, exclusions=exclusions)


def _chosen_models(config: ReviewConfig, models) -> tuple:
    """The models `models` names (every score and the predicted label column when None), checked."""
    known = (*config.mapping.scores, *(() if config.mapping.predicted_label is None
                                       else (config.mapping.predicted_label,)))
    if models is None:
        return known
    wanted = (models,) if isinstance(models, str) else tuple(models)
    for name in wanted:
        if name not in known:
            raise ValueError(MODEL_MESSAGE.format(got=name, known=list(known)))
    return wanted


def _verdict_review(counts, name: str, kind: str, threshold: Optional[float], config: ReviewConfig) -> ModelReview:
    """The part of ``review._rate_review`` the verdicts need: the same verdicts (``rate_verdicts``, as
    ``rate_conclusions`` calls it, seed 0), subjects and rate table; no performance, rates or findings."""
    boot, _, disparity = _disparities(counts, config)
    verdicts, results = rate_verdicts(counts, config.mapping.positive_outcome, rate_metrics=config.rate_metrics,
                                      distance_measure=config.rate_distance,
                                      max_difference=config.rate_max_difference,
                                      include_small=config.include_small, disparity=disparity, **boot)
    rules = rate_rules(config.rate_metrics, config.rate_distance, config.rate_max_difference)
    subjects = ((who(results["p_percent"]), who(results["equal_opportunity"]))
                + tuple(who(results["max"][r.metric, r.distance_measure]) for r in rules))
    if counts.weighted:
        verdicts = tuple(dataclasses.replace(v, sentence=WEIGHTED + v.sentence) for v in verdicts)
    return ModelReview(name=name, kind=kind, threshold=threshold, performance=None,
                       rate_table=counts.table(ci=config.ci), rates={}, p_percent=results["p_percent"],
                       equal_opportunity=results["equal_opportunity"], findings=(), verdicts=verdicts,
                       subjects=subjects if len(subjects) == len(verdicts) else ("",) * len(verdicts))


def _label_verdicts(label_counts, *, distance_measure: str, reduction: str, reference: str, include_small: bool,
                    max_difference: float, ci, n_boot: int, adjust) -> Conclusions:
    """``dataset_conclusions``' verdict alone (its largest base-rate disparity, seed 0): no findings, and the
    disparity at `reduction` only when that is the largest's ('max')."""
    largest = label_counts.disparity("statistical_parity", distance_measure=distance_measure, reduction="max",
                                     reference=reference, include_small=include_small, ci=ci, n_boot=n_boot,
                                     random_state=0, adjust=adjust, func="dataset_statistical_parity")
    verdict = evaluate_result(dataset_rule(distance_measure, max_difference), largest)
    return Conclusions((), (verdict,), {"parity_max": largest}, (who(largest),)).weighted_if(label_counts.weighted)


def _per_period(y: np.ndarray, predicted: np.ndarray, groups, codes: np.ndarray, n: int, w) -> list:
    """Each period's ConfusionCounts (None without rows): one bincount over (period, pattern, cell); with weights,
    each period's rows counted apart (the weighted atoms keep their rows)."""
    cell = (2 * y.astype(np.intp) + predicted.astype(np.intp))
    kept = codes >= 0
    if w is not None:
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(n + 1))
        return [None if lo == hi else confusion_counts(y[rows], predicted[rows], groups.take(rows),
                                                       sample_weight=w[rows])
                for lo, hi in zip(bounds[:-1], bounds[1:]) for rows in [order[lo:hi]]]
    pattern, member, background = groups.patterns
    n_patterns = member.shape[0]
    key = (codes[kept] * n_patterns + pattern[kept]) * 4 + cell[kept]
    counts = np.bincount(key, minlength=n * n_patterns * 4).reshape(n, n_patterns, 4).astype(np.float64)
    out = []
    for table in counts:   # a loop over periods on count tables, never over rows
        keep = table.sum(axis=1) > 0
        out.append(None if not keep.any() else ConfusionCounts.of_atoms(
            list(groups.names), Atoms(table[keep], member[keep], background[keep]), groups.min_size,
            disjoint=groups.codes is not None))
    return out


def _verdict_rows(model: str, per_period: list, labels: list, rows: np.ndarray) -> pd.DataFrame:
    """The verdicts of one model per period as rows; a period without rows gets each rule not assessable."""
    rules = next((tuple(v.rule for v in verdicts) for verdicts in per_period if verdicts is not None), ())
    out = []
    for position, (label, verdicts) in enumerate(zip(labels, per_period)):
        if verdicts is None:
            out += [dict(period=label, position=position, model=model, rule=r.name, metric=r.metric, value=np.nan,
                         ci_low=np.nan, ci_high=np.nan, level=None, status="not_assessable", note=NO_ROWS,
                         left_out="", rows=0, sentence=f"{r.label or r.name}: not assessable: {NO_ROWS}.")
                    for r in rules]
            continue
        out += [dict(period=label, position=position, model=model, rule=v.rule.name, metric=v.rule.metric,
                     value=v.value, ci_low=v.ci_low, ci_high=v.ci_high, level=v.level, status=v.status, note=v.note,
                     left_out="; ".join(v.left_out), rows=int(rows[position]), sentence=v.sentence)
                for v in verdicts]
    return pd.DataFrame(out, columns=VERDICT_COLUMNS)


def _joined(parts: list) -> pd.DataFrame:
    """The verdict rows of every model, one table (empty, with its columns, when there are none)."""
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=VERDICT_COLUMNS)


def _subgroup_rows(label_counts: list, labels: list) -> pd.DataFrame:
    """``period, position, subgroup, size, n_positive, small`` of every period with rows."""
    parts = [pd.DataFrame({"period": label, "position": position, "subgroup": list(c.names), "size": c.sizes,
                           "n_positive": c.member[:, 3], "small": c.small})
             for position, (label, c) in enumerate(zip(labels, label_counts)) if c is not None]
    if not parts:
        return pd.DataFrame(columns=["period", "position", "subgroup", "size", "n_positive", "small"])
    return pd.concat(parts, ignore_index=True)
