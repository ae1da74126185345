"""Fairness metrics as scikit-learn scorers: ``scorer(estimator, X, y_true)`` (scikit-lego, Oracle AutoMLx).

A :class:`FairnessScorer` predicts with the estimator, reads the protected attributes from `X` or
from supplementary features, builds the subgroups (observed combinations of the listed columns,
nothing flagged small, as Oracle AutoMLx's scorers do) and returns one number, oriented so that
larger is better, as ``GridSearchCV`` expects.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np
import pandas as pd

from .. import _registry as registry
from .._counts.confusion import confusion_counts


def __getattr__(name: str) -> dict:
    """``METRICS`` (scorer metric -> its ``MetricSpec``) and ``ALIASES`` (a metric's function name -> the metric),
    read from the metric registry at each use."""
    if name == "METRICS":
        return _metrics()
    if name == "ALIASES":
        return _aliases()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _metrics() -> dict:
    return {row.name: row for row in registry.specs() if row.scorer}


def _aliases() -> dict:
    """A metric is also known by its function's name (``'false_positive_rate_disparity'``)."""
    return {row.function: row.name for row in registry.specs() if row.scorer and row.function != row.name}


METRIC_MESSAGE = (
    "The 'metric' parameter of make_fairness_scorer must be one of {allowed}. Got {got!r} instead."
)
OPTION_MESSAGE = (
    "make_fairness_scorer: the metric {metric!r} takes the options {allowed}. Got the unexpected "
    "option {got!r}."
)
REDUCTION_NONE_MESSAGE = (
    "make_fairness_scorer: reduction=None returns a table, but a scorer must return one number. "
    "Got reduction=None for the metric {metric!r}. Tip: use reduction='max' or 'mean', or call "
    "fairness_core.{function}(..., reduction=None) directly to see the table."
)
GREATER_MESSAGE = (
    "The 'greater_is_better' parameter of make_fairness_scorer must be None, True or False. "
    "Got {got!r} instead."
)
PROTECTED_MESSAGE = (
    "The 'protected_attributes' parameter of make_fairness_scorer must be a column name (or, for a "
    "numpy X, an integer column index) or a non-empty list of them. Got {got!r} instead."
)
SUPPLEMENTARY_TYPE_MESSAGE = (
    "The 'supplementary_features' parameter of {func} must be a pandas DataFrame. Got {got} instead."
)
SUPPLEMENTARY_INDEX_MESSAGE = (
    "The 'supplementary_features' given to make_fairness_scorer must have a unique index, to align "
    "its rows with X by index. Got {n} repeated index labels. Tip: reset the index of the full data "
    "before splitting it into X and the supplementary features."
)
X_FRAME_MESSAGE = (
    "FairnessScorer: supplementary features given to make_fairness_scorer are aligned with X by its "
    "index, so X must be a pandas DataFrame. Got {got} instead. Tip: pass X as a DataFrame, or pass "
    "supplementary_features (row-aligned with X) when calling the scorer."
)
X_INDEX_MESSAGE = (
    "FairnessScorer: {n} of X's index labels (e.g. {examples}) are not in the index of the "
    "supplementary features. Tip: give the supplementary features of the full data, with the same "
    "index as the DataFrame that X was taken from."
)
CALL_LENGTH_MESSAGE = (
    "FairnessScorer: 'supplementary_features' has {got} rows but X has {expected}. Supplementary "
    "features passed at call time are aligned with X row by row."
)
BOTH_MESSAGE = (
    "FairnessScorer: the protected attribute {name!r} is both a column of X and a column of "
    "supplementary_features, so it is ambiguous. Tip: drop it from one of them."
)
NOT_FOUND_MESSAGE = (
    "FairnessScorer: the protected attribute {name!r} is neither a column of X ({x_columns}) nor "
    "of supplementary_features ({s_columns})."
)
Y_TRUE_MESSAGE = (
    "FairnessScorer: the metric {metric!r} needs y_true. Got None instead. Tip: call "
    "scorer(estimator, X, y_true)."
)
ONE_COLUMN_MESSAGE = (
    "FairnessScorer: correlation_score correlates the predictions with one column. Got the "
    "protected attributes {got!r} instead. Tip: make one scorer per column."
)
POSITIVE_MESSAGE = (
    "FairnessScorer: positive_target={target!r} is not one of the estimator's classes {classes}. "
    "Tip: pass positive_target= to make_fairness_scorer."
)
NO_SCORE_MESSAGE = (
    "FairnessScorer: the metric {metric!r} needs scores, but the estimator {estimator} has "
    "{needed}. Tip: use a classifier that predicts probabilities{extra}."
)
UNAVAILABLE_MESSAGE = (
    "FairnessScorer: the metric {metric!r} needs fairness_core.{function}, which this version of "
    "fairness_core does not provide."
)


def _function(metric: str, spec: registry.MetricSpec):
    """The public function computing `spec`, from the module the registry names."""
    try:
        return getattr(importlib.import_module(spec.module), spec.function)
    except (ImportError, AttributeError):
        raise ValueError(UNAVAILABLE_MESSAGE.format(metric=metric, function=spec.function)) from None


def _canonical(metric: Any) -> str:
    metrics, aliases = _metrics(), _aliases()
    if isinstance(metric, str):
        name = aliases.get(metric, metric)
        if name in metrics:
            return name
    raise ValueError(METRIC_MESSAGE.format(allowed=sorted([*metrics, *aliases]), got=metric))


def _protected_list(protected: Any) -> tuple:
    if isinstance(protected, (str, int, np.integer)) and not isinstance(protected, bool):
        return (protected,)
    if isinstance(protected, (list, tuple, pd.Index)):
        items = tuple(protected)
        if items and all(isinstance(p, (str, int, np.integer)) and not isinstance(p, bool) for p in items):
            return items
    raise ValueError(PROTECTED_MESSAGE.format(got=protected))


def _as_frame(features: Any, func: str) -> pd.DataFrame:
    if isinstance(features, pd.Series) and features.name is not None:
        return features.to_frame()
    if not isinstance(features, pd.DataFrame):
        raise TypeError(SUPPLEMENTARY_TYPE_MESSAGE.format(func=func, got=type(features).__name__))
    return features


def _shown(columns, limit: int = 20) -> str:
    columns = list(columns)
    return ", ".join(map(repr, columns[:limit])) + (", ..." if len(columns) > limit else "") if columns else "none"


@dataclass(frozen=True, eq=False)
class FairnessScorer:
    """A fairness metric as a scikit-learn scorer: ``scorer(estimator, X, y_true=None)`` -> float.

    Build it with :func:`make_fairness_scorer`. Calling it predicts with the estimator, reads
    the protected attributes, builds the subgroups (observed combinations of the protected
    columns; nothing is flagged small) and returns ``sign * metric``, so that larger is always
    better, as ``GridSearchCV(scoring=scorer)`` expects.

    Parameters
    ----------
    metric : str
        A metric name (see :func:`make_fairness_scorer`); aliases are resolved.
    protected_attributes : str, int or list of them
        Columns of X (names; integer indices for a numpy X) or of the supplementary features.
    supplementary_features : DataFrame, optional
        Extra columns (protected attributes the model does not use) for the full data, aligned
        with X by index at each call.
    greater_is_better : bool or None, default=None
        None: the metric's natural orientation (disparities negated). True: returned as is.
        False: negated.
    positive_target : scalar, default=1
        The positive class of the labels and predictions.
    options : dict
        Keyword options passed to the metric function.

    Attributes
    ----------
    metric : str
        The canonical metric name (``'model_statistical_parity'`` becomes
        ``'statistical_parity'``, ``'true_positive_rate_disparity'`` becomes
        ``'true_positive_rate'``).
    protected_attributes : tuple
    supplementary_features : DataFrame or None
    greater_is_better : bool or None
    positive_target : scalar
    options : dict
    sign : int
        +1 or -1: the scorer returns ``sign * metric value``.
    """

    metric: str
    protected_attributes: Any
    supplementary_features: Optional[pd.DataFrame] = field(default=None, repr=False)
    greater_is_better: Optional[bool] = None
    positive_target: Any = 1
    options: dict = field(default_factory=dict)
    sign: int = field(init=False)

    def __post_init__(self) -> None:
        metric = _canonical(self.metric)
        spec = registry.spec(metric)
        options = dict(self.options)
        for key in options:
            if key not in spec.options:
                raise TypeError(OPTION_MESSAGE.format(metric=metric, allowed=list(spec.options), got=key))
        if "reduction" in options and options["reduction"] is None:
            raise ValueError(REDUCTION_NONE_MESSAGE.format(metric=metric, function=spec.function))
        if metric == "theil_index":
            from .._metrics.theil import check_distance_measure

            check_distance_measure(options.get("distance_measure"))
        if self.greater_is_better is not None and not isinstance(self.greater_is_better, (bool, np.bool_)):
            raise ValueError(GREATER_MESSAGE.format(got=self.greater_is_better))
        supplementary = self.supplementary_features
        if supplementary is not None:
            supplementary = _as_frame(supplementary, "make_fairness_scorer")
            repeated = int(supplementary.index.duplicated().sum())
            if repeated:
                raise ValueError(SUPPLEMENTARY_INDEX_MESSAGE.format(n=repeated))
        _function(metric, spec)
        if self.greater_is_better is None:
            sign = -1 if spec.direction == "lower" else 1
        else:
            sign = 1 if self.greater_is_better else -1
        object.__setattr__(self, "metric", metric)
        object.__setattr__(self, "protected_attributes", _protected_list(self.protected_attributes))
        object.__setattr__(self, "supplementary_features", supplementary)
        object.__setattr__(self, "options", options)
        object.__setattr__(self, "sign", sign)

    # ---------------------------------------------------------------------------------------

    def protected_frame(self, X, supplementary_features: Optional[pd.DataFrame] = None) -> pd.DataFrame:
        """The protected attribute columns for the rows of `X`, as a DataFrame with a fresh index.

        Parameters
        ----------
        X : DataFrame or array of shape (n_samples, n_features)
        supplementary_features : DataFrame, optional
            Row-aligned with X; replaces the supplementary features given at construction.

        Returns
        -------
        DataFrame of shape (n_samples, n_protected), one column per protected attribute.

        Raises
        ------
        ValueError
            If an attribute is in both X and the supplementary features, or in neither, or the
            supplementary features do not cover X's rows.
        TypeError
            If supplementary features given at construction must be aligned with a non-DataFrame X.
        """
        n = len(X)
        supp = None
        if supplementary_features is not None:
            supp = _as_frame(supplementary_features, "FairnessScorer")
            if len(supp) != n:
                raise ValueError(CALL_LENGTH_MESSAGE.format(got=len(supp), expected=n))
            supp = supp.reset_index(drop=True)
        elif self.supplementary_features is not None:
            if not isinstance(X, pd.DataFrame):
                raise TypeError(X_FRAME_MESSAGE.format(got=type(X).__name__))
            stored = self.supplementary_features
            wanted = [c for c in self.protected_attributes if c in stored.columns]
            missing = ~X.index.isin(stored.index)
            if missing.any():
                examples = ", ".join(map(repr, X.index[missing][:3].tolist()))
                raise ValueError(X_INDEX_MESSAGE.format(n=int(missing.sum()), examples=examples))
            supp = stored.loc[X.index, wanted].reset_index(drop=True)
        is_frame = isinstance(X, pd.DataFrame)
        array = None if is_frame else np.asarray(X)
        columns = {}
        for name in self.protected_attributes:
            if is_frame:
                in_x = name in X.columns
            else:
                in_x = (isinstance(name, (int, np.integer)) and array.ndim == 2 and 0 <= name < array.shape[1])
            in_s = supp is not None and name in supp.columns
            if in_x and in_s:
                raise ValueError(BOTH_MESSAGE.format(name=name))
            if in_x:
                columns[name] = X[name].to_numpy() if is_frame else array[:, name]
            elif in_s:
                columns[name] = supp[name].to_numpy()
            else:
                x_columns = _shown(X.columns) if is_frame else f"integer indices 0..{array.shape[-1] - 1}"
                raise ValueError(NOT_FOUND_MESSAGE.format(name=name, x_columns=x_columns,
                                                          s_columns=_shown([] if supp is None else supp.columns)))
        return pd.DataFrame(columns)

    def _positive_column(self, estimator) -> Optional[int]:
        classes = getattr(estimator, "classes_", None)
        if classes is None:
            return None
        hits = np.flatnonzero(np.asarray(classes) == self.positive_target)
        if len(hits) == 0:
            raise ValueError(POSITIVE_MESSAGE.format(target=self.positive_target, classes=list(classes)))
        return int(hits[0])

    def _scores(self, estimator, X, proba_only: bool) -> np.ndarray:
        column = self._positive_column(estimator)
        if hasattr(estimator, "predict_proba"):
            proba = np.asarray(estimator.predict_proba(X))
            return proba[:, 1 if column is None else column]
        if proba_only or not hasattr(estimator, "decision_function"):
            needed = "no predict_proba" if proba_only else "neither predict_proba nor decision_function"
            extra = "" if proba_only else " or has a decision function"
            raise TypeError(NO_SCORE_MESSAGE.format(metric=self.metric, estimator=type(estimator).__name__,
                                                    needed=needed, extra=extra))
        decision = np.asarray(estimator.decision_function(X))
        if decision.ndim == 2:
            return decision[:, 1 if column is None else column]
        return -decision if column == 0 else decision  # 1-D: larger means classes_[1]

    def __call__(self, estimator, X, y_true=None, supplementary_features=None, sample_weight=None) -> float:
        """Score `estimator` on `X`: ``sign * metric``.

        Parameters
        ----------
        estimator : fitted estimator
            With ``predict`` (and ``predict_proba`` or ``decision_function`` for
            ``bias_auc_score``, ``predict_proba`` for ``calibration_disparity``); unused, and may
            be None, for the dataset metrics.
        X : DataFrame or array of shape (n_samples, n_features)
        y_true : array-like of shape (n_samples,), optional
            Required by every metric except ``statistical_parity``, ``p_percent_score`` and
            ``correlation_score``.
        supplementary_features : DataFrame, optional
            Protected attributes row-aligned with X (replaces the ones given at construction).
        sample_weight : array-like of shape (n_samples,), optional
            Row weights (finite, >= 0), passed to the metric function as its ``sample_weight``: what
            scikit-learn hands a scorer when weights are routed to scoring (e.g.
            ``cross_validate(..., params={"sample_weight": w})`` with metadata routing on).

        Returns
        -------
        float
        """
        spec = registry.spec(self.metric)
        func = _function(self.metric, spec)
        roles = spec.roles
        if spec.uses_y_true and {"y_true", "truth"} & set(roles) and y_true is None:
            raise ValueError(Y_TRUE_MESSAGE.format(metric=self.metric))
        groups = self.protected_frame(X, supplementary_features)
        y = None if y_true is None else (np.asarray(y_true).reshape(-1) == self.positive_target).astype(np.int8)
        options = dict(self.options)
        if spec.scorer == "pred":
            pred = (np.asarray(estimator.predict(X)).reshape(-1) == self.positive_target).astype(np.int8)
        if "sensitive" in roles and spec.scorer == "pred":   # a ratio score
            result = self._ratio_score(func, "y_true" in roles, y, pred, groups, options, sample_weight)
        elif "sensitive" in roles:   # the raw predictions against one column
            if groups.shape[1] != 1:
                raise ValueError(ONE_COLUMN_MESSAGE.format(got=list(self.protected_attributes)))
            raw = np.asarray(estimator.predict(X)).reshape(-1)
            if raw.dtype.kind not in "biuf":
                raw = (raw == self.positive_target).astype(np.int8)
            result = func(raw, groups.iloc[:, 0].to_numpy(), sample_weight=sample_weight)
        elif "truth" in roles:   # multi-class labels and predictions as they are
            if "class_metric" in options:
                options["metric"] = options.pop("class_metric")
            result = func(np.asarray(y_true).reshape(-1), np.asarray(estimator.predict(X)).reshape(-1), groups,
                          sample_weight=sample_weight, **options)
        else:
            values = {"y_true": y, "subgroups": groups}
            if "y_pred" in roles:
                values["y_pred"] = pred
            if "y_score" in roles:
                values["y_score"] = self._scores(estimator, X, spec.scorer == "proba")
            result = func(*[values[role] for role in roles], sample_weight=sample_weight, **dict(spec.fixed),
                          **options)
        return self.sign * float(getattr(result, "value", result))

    def _ratio_score(self, func, labels: bool, y, pred, groups, options, sample_weight=None) -> Any:
        """The binary score on a 0/1 attribute, else the minimum over subgroups against the rest: of the
        selection rate, or of the true positive rate when the score reads the labels."""
        column = groups.iloc[:, 0]
        binary = (groups.shape[1] == 1 and (column.dtype == bool or (
            pd.api.types.is_numeric_dtype(column) and bool(column.isin([0, 1]).all()))))
        if binary:
            if not labels:
                return func(pred, column.to_numpy(), sample_weight=sample_weight)
            return func(y, pred, column.to_numpy(), sample_weight=sample_weight)
        rate = "true_positive_rate" if labels else "selection_rate"
        truth = y if labels else np.zeros(len(pred), np.int8)
        return confusion_counts(truth, pred, groups, sample_weight=sample_weight).ratio_scores(rate, **options)


def make_fairness_scorer(metric: str, protected_attributes, *, supplementary_features=None,
                         greater_is_better: Optional[bool] = None, positive_target=1, **options) -> FairnessScorer:
    """Make a scikit-learn scorer of a fairness metric, for ``GridSearchCV(scoring=...)`` and the like.

    The scorer is called as ``scorer(estimator, X, y_true=None, supplementary_features=None)``
    and returns ``sign * value`` where value is the metric of ``estimator`` on ``X`` over the
    subgroups formed by the protected attributes (their observed value combinations; nothing is
    flagged small). scikit-learn maximises scores, so metrics where lower is better (every
    disparity, the Theil index, the unweighted average bias, the smoothed EDF, the calibration
    disparity) are negated by default, like scikit-learn's ``neg_*`` scorers; the p%, equal
    opportunity, correlation and bias AUC scores are returned as they are.

    Parameters
    ----------
    metric : str
        One of (what is taken from the estimator in brackets):

        - rate disparities (``predict(X) == positive_target``): ``'statistical_parity'`` (alias
          ``'model_statistical_parity'``), ``'true_positive_rate'``, ``'false_positive_rate'``,
          ``'false_negative_rate'``, ``'false_omission_rate'``, ``'false_discovery_rate'``,
          ``'error_rate'`` (aliases ``'<rate>_disparity'``); see :func:`rate_disparity`;
        - ``'equalized_odds'``, ``'theil_index'`` (predictions);
        - ``'p_percent_score'``, ``'equal_opportunity_score'`` (predictions): on one 0/1 or
          boolean attribute, :func:`p_percent_score` / :func:`equal_opportunity_score`; for any
          other attribute(s), the minimum over subgroups of each subgroup against the rest
          (``ConfusionCounts.ratio_scores``);
        - ``'correlation_score'`` (raw ``predict(X)``; non-numeric predictions are read as
          ``== positive_target``), with exactly one numeric or boolean protected column;
        - ``'unweighted_average_bias'`` (raw multi-class ``predict(X)`` and raw `y_true`);
        - ``'dataset_statistical_parity'``, ``'smoothed_edf'`` (the labels only; the estimator
          is not used);
        - ``'bias_auc_score'`` (``predict_proba`` column of `positive_target`, else
          ``decision_function``), ``'calibration_disparity'`` (``predict_proba``).
    protected_attributes : str, int or list of them
        Column names of X (for a numpy X, integer column indices) or of the supplementary
        features. Several columns are intersected.
    supplementary_features : DataFrame, optional
        Columns the model does not see (typically the protected attributes), for the full data.
        At each call its rows are taken with ``.loc[X.index]``, which works inside
        ``GridSearchCV`` because cross-validation keeps the DataFrame index; X must then be a
        DataFrame. Supplementary features passed at call time are row-aligned instead and take
        precedence.
    greater_is_better : bool or None, default=None
        None: the metric's natural orientation as above. True: the value is returned as is.
        False: it is negated.
    positive_target : scalar, default=1
        The positive class: binary metrics use ``y_true == positive_target`` and
        ``predict(X) == positive_target``.
    **options
        Options of the metric function, e.g. ``distance_measure``, ``reduction`` (``'max'`` or
        ``'mean'``; None is refused), ``reference``, ``include_small`` for the disparities;
        ``p``, ``overall_weight`` for the bias AUC score; ``n_bins``, ``strategy``,
        ``threshold``, ``min_per_group`` for the calibration disparity; ``concentration`` for the
        smoothed EDF; ``labels``, ``subgroups``, ``reduction`` and ``class_metric`` (passed as
        ``metric``) for the unweighted average bias.

    Returns
    -------
    FairnessScorer
        With attributes ``metric`` (the canonical name) and ``sign`` (+1 or -1).

    Raises
    ------
    ValueError
        For an unknown metric (``METRIC_MESSAGE``), ``reduction=None`` (``REDUCTION_NONE_MESSAGE``:
        a scorer returns one number), a bad `greater_is_better` or `protected_attributes`. At
        call time: a protected attribute in both X and the supplementary features
        (``BOTH_MESSAGE``, as Oracle AutoMLx) or in neither, a missing `y_true`.
        A `distance_measure` other than None for ``'theil_index'``.
    TypeError
        For an option the metric does not take (``OPTION_MESSAGE``), or supplementary features
        that are not a DataFrame.

    Notes
    -----
    A metric that is undefined on a validation fold (e.g. a subgroup without positives) gives
    NaN, which ``GridSearchCV`` reports with a warning and ranks last. With
    ``reduction='difference'`` the unweighted average bias is signed; choose
    `greater_is_better` explicitly then.

    References
    ----------
    Oracle AutoMLx (its fairness scorers, ``supplementary_features``); scikit-lego (its
    scorer-style ``p_percent_score``, ``equal_opportunity_score``,
    ``correlation_score``).

    Examples
    --------
    >>> scorer = make_fairness_scorer("model_statistical_parity", "sex", reduction="max")
    >>> scorer.metric, scorer.sign
    ('statistical_parity', -1)
    """
    return FairnessScorer(metric, protected_attributes, supplementary_features, greater_is_better, positive_target,
                          options)
