"""The metric registry: one :class:`MetricSpec` per public metric, the one home of what describes a metric.

The scikit-learn scorer, the policy's metric lists and rule labels, the bottom line's plain names, the rate
shortcuts of ``_metrics/rates.py``, the dashboard's labels and definition links and the invariance suite
(``tests/fairness_core/test_common.py``) read this table; none keeps its own. It sits in the lowest layer so that
every other layer may import it, and it imports nothing of fairness_core: a row names its function (a string),
it never holds it.

Adding a metric: its module (the public function, re-exported by ``fairness_core/__init__.py``), one row here,
one entry of ``fairness_dashboard/definitions.md`` (its anchor is the row's ``anchor``).

References
----------
- Fairlearn, ``fairlearn/metrics/_generated_metrics.py`` (``METRICS_SPEC``): public functions generated from one
  table.
- scikit-learn, ``sklearn/metrics/tests/test_common.py``: one table of metrics and their kinds, every invariance
  checked over it.
"""

from __future__ import annotations

from dataclasses import dataclass

ROLES = ("y_true", "y_pred", "y_score", "subgroups", "member", "sensitive", "X", "truth", "prediction",
         "confusion_counts")
DIRECTIONS = ("higher", "lower", "")
KINDS = ("score", "distance", "index", "")
ENGINE_TABLES = ("confusion", "auc", "calibration", "labels", "classes", "")
SCORER_INPUTS = ("pred", "raw", "score", "proba", "none", "")
INVARIANCES = ("weights", "engines", "nan")

UNKNOWN_MESSAGE = "No metric {name!r} is registered. The registered metrics are {allowed}."


@dataclass(frozen=True)
class MetricSpec:
    """One public metric: its function, inputs, support, orientation, names and links.

    Attributes
    ----------
    name : str
        The metric's key: a rule's ``metric``, the scorer's ``metric``, the key of the tables that name it
        (``'false_positive_rate'``); the function's name where the metric has no other key.
    function : str
        The public ``fairness_core`` function that computes it (``'false_positive_rate_disparity'``).
    module : str
        The module that defines `function` (``'fairness_core._metrics.rates'``); the scorer imports it from there.
    family : str
        ``'scores'``, ``'rates'``, ``'theil'``, ``'calibration'``, ``'auc'``, ``'classwise'``, ``'dataset'``.
    roles : tuple of str
        The positional inputs of `function`, in order (``ROLES``): ``y_true``, ``y_pred``, ``y_score``
        (probabilities), ``subgroups``, ``member`` (a boolean mask of one subgroup), ``sensitive`` (a 0/1
        attribute), ``X`` (features), ``truth`` / ``prediction`` (multi-class labels), ``confusion_counts``.
    fixed : tuple of (str, value)
        Keyword arguments every call passes (``rate_disparity``'s ``metric``).
    ci : bool
        Whether `function` takes ``ci=`` (an interval).
    engine : str
        The count table an engine (``fairness_core.engines``) computes it from (``ENGINE_TABLES``), '' for none
        (``limits`` then says why).
    direction : {'higher', 'lower', ''}
        Higher is better, lower is better, or '' for a table of values with no single orientation.
    kind : {'score', 'distance', 'index', ''}
        ``'score'``: 1 is parity, bounded from below; ``'distance'``: a disparity in the units of ``'diff'`` or
        ``'ratio'``, bounded from above; ``'index'``: 0 is parity, no distance measure (the Theil index).
    rule : bool
        Whether a :class:`Rule` may bound it.
    default_rule : tuple
        ``(distance_measure, bound)`` of its rule in ``DEFAULT_RULES``; ``()`` when there is none.
    uses_y_true : bool
        False where the labels are taken but not read (the selection rate).
    plain : str
        Its plain name in the bottom line: the values compared for a distance (``'false positive rates'``, said
        as "Gap in ..." or "Ratio of ..."), else the whole name (``'Selection-rate ratio'``).
    plain_adverse : str
        The plain name when a positive prediction is adverse and the metric then compares the favourable
        prediction (``_policy.defaults.outcome_rule``); '' where the name does not change.
    subject : str
        The technical name in a rule's label (``'false positive rate disparity'``).
    label : str
        Its name on the dashboard (``'False positive rate'``).
    label_key : str
        The column of its per-subgroup values in the tables the dashboard shows (``'false_positive_rate'``,
        whose header is `label`); '' when it has none.
    anchor : str
        Its entry on the Metric definitions page (``'fpr'``).
    scorer : str
        What ``make_fairness_scorer`` takes from the estimator (``SCORER_INPUTS``): ``'pred'`` (``predict ==
        positive_target``), ``'raw'`` (``predict``), ``'score'`` (``predict_proba`` or ``decision_function``),
        ``'proba'``, ``'none'`` (the labels only); '' when it is no scorer metric.
    options : tuple of str
        The keyword options ``make_fairness_scorer`` accepts for it and passes on to `function`.
    undefined : str
        The column of its per-subgroup table that a subgroup without positive labels leaves NaN (with a note);
        ``'value'`` when the summary itself is then undefined; '' when nothing is.
    limits : tuple of (str, str)
        ``(invariance, reason)`` for each invariance of ``INVARIANCES`` it cannot satisfy: ``'weights'`` (integer
        weights equal repeated rows), ``'engines'`` (an engine's count table), ``'nan'`` (NaN and infinite inputs
        refused).
    """

    name: str
    function: str
    module: str
    family: str
    roles: tuple
    fixed: tuple = ()
    ci: bool = False
    engine: str = ""
    direction: str = ""
    kind: str = ""
    rule: bool = False
    default_rule: tuple = ()
    uses_y_true: bool = True
    plain: str = ""
    plain_adverse: str = ""
    subject: str = ""
    label: str = ""
    label_key: str = ""
    anchor: str = ""
    scorer: str = ""
    options: tuple = ()
    undefined: str = ""
    limits: tuple = ()

    def limit(self, invariance: str) -> str:
        """Why the metric cannot satisfy `invariance` (one of ``INVARIANCES``); '' when it can."""
        return dict(self.limits).get(invariance, "")


_M = "fairness_core._metrics."
BINARY = ("y_true", "y_pred", "subgroups")
SCORED = ("y_true", "y_score", "subgroups")
DISPARITY_OPTIONS = ("distance_measure", "reduction", "reference", "include_small")
_RATIO = ("ratio", 1.25)
_NOT_COUNTED = ("engines", "reads every row's own values, which no count table holds")
# scikit-lego's convention: a prediction (or label) is positive when it equals positive_target, so any other
# value, NaN or infinite too, is the other label.
_POSITIVE_TARGET = ("nan", "reads y == positive_target (scikit-lego's convention): any other value, NaN or "
                           "infinite too, is the other label")
# The debiased squared calibration error subtracts each bin's sampling variance, which counts effective rows.
_DEBIASED = ("weights", "the debiased ℓ2 ECE subtracts each bin's sampling variance, which counts Kish's "
                        "effective rows, not repeated ones (the plug-in ECE, MCE and Brier score do not)")


def _rate(name: str, function: str, rate: str, anchor: str, default_rule: tuple = (), undefined: str = "",
          uses_y_true: bool = True) -> MetricSpec:
    """A rate's disparity: the seven rates differ only in their names."""
    words = rate.replace("_", " ")
    return MetricSpec(name, function, _M + "rates", "rates", BINARY, ci=True, engine="confusion", direction="lower",
                      kind="distance", rule=True, default_rule=default_rule, uses_y_true=uses_y_true,
                      plain=f"{words}s", subject=f"{words} disparity", label=words.capitalize(), label_key=rate,
                      anchor=anchor, scorer="pred", options=DISPARITY_OPTIONS, undefined=undefined)


# In this order the rule metrics are listed (their messages name them so).
SPECS: tuple[MetricSpec, ...] = (
    # scikit-lego's scores
    MetricSpec("p_percent_score", "p_percent_score", _M + "ratio_scores", "scores", ("y_pred", "sensitive"),
               engine="confusion", direction="higher", kind="score", rule=True, default_rule=(None, 0.8),
               uses_y_true=False, plain="Selection-rate ratio", plain_adverse="Favourable-prediction-rate ratio",
               subject="p% score", label="p% score", anchor="p-percent", scorer="pred",
               options=("include_small",), limits=(_POSITIVE_TARGET,)),
    MetricSpec("equal_opportunity_score", "equal_opportunity_score", _M + "ratio_scores", "scores",
               ("y_true", "y_pred", "sensitive"), engine="confusion", direction="higher", kind="score", rule=True,
               default_rule=(None, 0.8), plain="True-positive-rate ratio", plain_adverse="True-negative-rate ratio",
               subject="equal opportunity score", label="Equal opportunity score", anchor="equal-opportunity",
               scorer="pred", options=("include_small",), undefined="value", limits=(_POSITIVE_TARGET,)),
    MetricSpec("correlation_score", "correlation_score", _M + "ratio_scores", "scores", ("y_score", "sensitive"),
               ci=True, direction="higher", kind="score", uses_y_true=False, label="Correlation score",
               anchor="correlation", scorer="raw", limits=(_NOT_COUNTED,)),
    # rates at a threshold
    MetricSpec("group_rates", "group_rates", _M + "rates", "rates", BINARY, ci=True, engine="confusion",
               label="Rates per subgroup", anchor="selection-rate", undefined="true_positive_rate"),
    MetricSpec("rate_disparity", "rate_disparity", _M + "rates", "rates", BINARY, (("metric", "true_positive_rate"),),
               ci=True, engine="confusion", direction="lower", kind="distance", label="Rate disparity",
               anchor="disparity", undefined="disparity"),
    _rate("statistical_parity", "model_statistical_parity", "selection_rate", "selection-rate", _RATIO,
          uses_y_true=False),
    _rate("true_positive_rate", "true_positive_rate_disparity", "true_positive_rate", "tpr", _RATIO, "disparity"),
    _rate("false_positive_rate", "false_positive_rate_disparity", "false_positive_rate", "fpr", _RATIO),
    _rate("false_negative_rate", "false_negative_rate_disparity", "false_negative_rate", "fnr", undefined="disparity"),
    _rate("false_omission_rate", "false_omission_rate_disparity", "false_omission_rate", "for"),
    _rate("false_discovery_rate", "false_discovery_rate_disparity", "false_discovery_rate", "fdr"),
    _rate("error_rate", "error_rate_disparity", "error_rate", "error-rate"),
    MetricSpec("equalized_odds", "equalized_odds", _M + "rates", "rates", BINARY, ci=True, engine="confusion",
               direction="lower", kind="distance", rule=True, plain="true or false positive rates (equalized odds)",
               subject="equalized odds disparity", label="Equalized odds", anchor="equalized-odds", scorer="pred",
               options=DISPARITY_OPTIONS),
    MetricSpec("performance_table", "performance_table", _M + "performance", "rates", ("confusion_counts",), ci=True,
               engine="confusion", label="Performance at the threshold", anchor="performance", undefined="recall",
               limits=(("weights", "takes a count table, not rows: weights enter through "
                                   "confusion_counts(sample_weight=...)"),
                       ("nan", "takes a count table, not rows: confusion_counts refuses NaN and infinite inputs"))),
    # Theil indices of the benefit
    MetricSpec("theil_index", "theil_index", _M + "theil", "theil", BINARY, ci=True, engine="confusion",
               direction="lower", kind="index", rule=True, plain="Inequality of benefit between people (Theil index)",
               subject="Theil index", label="Theil index", anchor="theil-disparity", scorer="pred",
               options=DISPARITY_OPTIONS),
    MetricSpec("individual_theil_index", "individual_theil_index", _M + "theil", "theil", ("y_true", "y_pred"),
               ci=True, engine="confusion", direction="lower", kind="index", label="Theil index (individual)",
               anchor="theil-individual"),
    MetricSpec("between_group_theil_index", "between_group_theil_index", _M + "theil", "theil", BINARY, ci=True,
               engine="confusion", direction="lower", kind="index", label="Between-group Theil index",
               anchor="theil-between"),
    # calibration
    MetricSpec("reliability_diagram", "reliability_diagram", _M + "calibration", "calibration", SCORED, ci=True,
               engine="calibration", label="Reliability diagram", anchor="reliability"),
    MetricSpec("expected_calibration_error", "expected_calibration_error", _M + "calibration", "calibration",
               ("y_true", "y_score"), engine="calibration", direction="lower", label="ECE", label_key="ece",
               anchor="ece"),
    MetricSpec("maximum_calibration_error", "maximum_calibration_error", _M + "calibration", "calibration",
               ("y_true", "y_score"), engine="calibration", direction="lower", label="MCE", label_key="mce",
               anchor="mce"),
    MetricSpec("calibration_errors", "calibration_errors", _M + "calibration", "calibration", SCORED, ci=True,
               engine="calibration", label="Calibration errors", anchor="ece", limits=(_DEBIASED,)),
    MetricSpec("calibration_disparity", "calibration_disparity", _M + "calibration", "calibration", SCORED, ci=True,
               engine="calibration", direction="lower", kind="distance", rule=True, default_rule=("diff", 0.1),
               plain="calibration error (ECE)", subject="calibration disparity", label="Calibration disparity",
               anchor="calibration-disparity", scorer="proba",
               options=("n_bins", "strategy", "threshold", "min_per_group", "distance_measure", "reduction",
                               "reference", "include_small"), limits=(_DEBIASED,)),
    # AUCs
    MetricSpec("subgroup_auc", "subgroup_auc", _M + "auc", "auc", ("y_true", "y_score", "member"), engine="auc",
               direction="higher", label="Subgroup AUC", label_key="subgroup_auc", anchor="subgroup-auc"),
    MetricSpec("bpsn_auc", "bpsn_auc", _M + "auc", "auc", ("y_true", "y_score", "member"), engine="auc",
               direction="higher", label="BPSN AUC", label_key="bpsn_auc", anchor="bpsn-auc"),
    MetricSpec("bnsp_auc", "bnsp_auc", _M + "auc", "auc", ("y_true", "y_score", "member"), engine="auc",
               direction="higher", label="BNSP AUC", label_key="bnsp_auc", anchor="bnsp-auc"),
    MetricSpec("bias_auc_table", "bias_auc_table", _M + "auc", "auc", SCORED, ci=True, engine="auc",
               label="Subgroup AUCs", anchor="subgroup-auc", undefined="subgroup_auc"),
    MetricSpec("bias_auc_score", "bias_auc_score", _M + "auc", "auc", SCORED, ci=True, engine="auc",
               direction="higher", kind="score", rule=True,
               plain="Ranking quality in every subgroup (bias AUC score)", subject="bias AUC score",
               label="Bias AUC score", anchor="bias-auc-score", scorer="score",
               options=("p", "overall_weight", "include_small"), undefined="subgroup_auc"),
    # class-wise bias
    MetricSpec("unweighted_average_bias", "unweighted_average_bias", _M + "classwise", "classwise",
               ("truth", "prediction", "subgroups"), ci=True, engine="classes", direction="lower",
               label="Unweighted average bias", anchor="uab", scorer="raw",
               options=("labels", "subgroups", "class_metric", "reduction", "include_small")),
    # the labels alone
    MetricSpec("dataset_statistical_parity", "dataset_statistical_parity", _M + "dataset", "dataset",
               ("y_true", "subgroups"), ci=True, engine="labels", direction="lower", kind="distance", rule=True,
               plain="base rates of the labels", subject="base rate disparity of the labels",
               label="Dataset statistical parity", anchor="base-rate", scorer="none", options=DISPARITY_OPTIONS),
    MetricSpec("base_rates", "base_rates", _M + "dataset", "dataset", ("y_true", "subgroups"), ci=True,
               engine="labels", label="Base rate", label_key="base_rate", anchor="base-rate"),
    MetricSpec("smoothed_edf", "smoothed_edf", _M + "smoothed_edf", "dataset", ("y_true", "subgroups"), ci=True,
               engine="labels", direction="lower", label="Smoothed EDF", anchor="smoothed-edf", scorer="none",
               options=("concentration", "include_small")),
    MetricSpec("consistency", "consistency", _M + "consistency", "dataset", ("X", "y_true"), direction="higher",
               label="Consistency", anchor="consistency",
               limits=(("engines", "compares each row with its k nearest neighbours in the features, which no "
                                   "count table holds"),
                       ("weights", "a row repeated is its own nearest neighbour, so repeated rows are not "
                                   "weighted ones (k nearest neighbours of distinct rows)"),
                       ("nan", "a row with a missing or infinite feature has no distance to the others: it is left "
                               "out and counted (n_excluded), as a row outside every subgroup is"))),
)


def specs() -> tuple[MetricSpec, ...]:
    """Every registered metric, in the registry's order.

    Returns
    -------
    tuple of MetricSpec
        Read at each call, so a row registered later (a test's fixture, a plug-in) is seen by every reader.
    """
    return SPECS


def spec(name: str) -> MetricSpec:
    """The registered metric called `name`.

    Parameters
    ----------
    name : str
        A :attr:`MetricSpec.name`, e.g. ``'false_positive_rate'``.

    Returns
    -------
    MetricSpec

    Raises
    ------
    KeyError
        When no metric of that name is registered (``UNKNOWN_MESSAGE``).
    """
    for row in specs():
        if row.name == name:
            return row
    raise KeyError(UNKNOWN_MESSAGE.format(name=name, allowed=list(names())))


def names(**fields) -> tuple[str, ...]:
    """The names of the registered metrics whose fields have the given values, in the registry's order.

    Parameters
    ----------
    **fields
        :class:`MetricSpec` fields and their values, e.g. ``rule=True, kind='score'``.

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> names(rule=True, kind="score")
    ('p_percent_score', 'equal_opportunity_score', 'bias_auc_score')
    """
    return tuple(row.name for row in specs() if all(getattr(row, k) == v for k, v in fields.items()))

