"""fairness_core: metrics to assess the fairness of scored data, without any UI.

Everything public is re-exported here; import from ``fairness_core``, never from a module.
Figure builders live in :mod:`fairness_core.plotting` (Plotly, imported only when called).
docs/architecture.md maps the modules behind each name.
"""

from ._version import __version__

from ._metrics.auc import (
    BiasAucResult,
    bias_auc_score,
    bias_auc_table,
    bnsp_auc,
    bpsn_auc,
    power_mean,
    subgroup_auc,
    summarize_bias_auc,
)
from ._counts.calibration import CalibrationCounts, calibration_counts
from ._counts.classes import ClassCounts, class_counts
from ._counts.confusion import ConfusionCounts, confusion_counts
from ._counts.rates import DENOMINATOR_NAMES
from ._counts.thresholds import ThresholdCounts, threshold_counts
from ._metrics.calibration import (
    CalibrationDisparityResult,
    calibration_disparity,
    calibration_errors,
    calibration_rule,
    expected_calibration_error,
    maximum_calibration_error,
    reliability_diagram,
)
from ._disparity.compare import DisparityResult, NamedReference, distance, named_reference, reduce_disparities
from ._disparity.compare import keyword as reference_keyword
from ._data.reading import read_table
from ._metrics.rates import (
    equalized_odds,
    error_rate_disparity,
    false_discovery_rate_disparity,
    false_negative_rate_disparity,
    false_omission_rate_disparity,
    false_positive_rate_disparity,
    group_rates,
    model_statistical_parity,
    rate_disparity,
    true_positive_rate_disparity,
)
from ._metrics.theil import TheilResult, between_group_theil_index, individual_theil_index, theil_index
from ._metrics.ratio_scores import (
    CorrelationScoreResult,
    RatioScoreResult,
    RatioScoresResult,
    correlation_score,
    equal_opportunity_score,
    p_percent_score,
)
from ._integrations.sklearn_scorer import FairnessScorer, make_fairness_scorer
from ._metrics.classwise import UnweightedAverageBiasResult, classwise_findings, unweighted_average_bias
from ._metrics.consistency import ConsistencyResult, consistency
from ._metrics.dataset import base_rates, base_rates_from_counts, dataset_statistical_parity
from ._metrics.smoothed_edf import SmoothedEdfResult, smoothed_edf, smoothed_edf_from_counts
from ._counts.scored_data import ScoredData
from ._data.columns import ColumnMapping
from ._data.mapping_guess import MappingGuess, guess_mapping, guess_outcome, guess_positive, numbers_as_text
from ._stats.intervals import weighted_wilson_interval, wilson_interval
from ._counts.weights import effective_size
from ._stats.delong import auc_interval, delong_variance
from ._policy.defaults import DEFAULT_RULES, outcome_rule
from ._policy.rules import Rule
from ._policy.rules_json import rules_from_json, rules_to_json
from ._policy.verdicts import Verdict, evaluate, evaluate_result, rows_factor, summarize_verdicts
from ._metrics.explorer import disparity_curve, explorer_thresholds, rule_band, threshold_curves
from ._metrics.auc_counts import AucCounts, auc_counts
from ._metrics.subgroup_thresholds import SubgroupThresholdEffect, subgroup_threshold_effect
from ._metrics.performance import performance_table
from ._review.report import render_report
from ._models.rates import compare_models
from ._models.aucs import compare_model_aucs
from ._models.calibration import compare_model_calibration
from ._review.bottom_line import bottom_line, plain_name as rule_plain_name, who as result_subject
from ._review.conclusions import (Conclusions, auc_conclusions, calibration_conclusions, classwise_conclusions,
                           dataset_conclusions, dataset_rule, no_auc_finding, rate_conclusions, rate_rules)
from ._review.config import ReviewConfig, default_threshold, threshold_for_range
from ._review.records import ModelReview, Review
from ._review.review import build_review, model_changes
from ._review.gate import ChangeVerdict, changes_by_rule
from ._review.suggest import ThresholdSuggestion, suggest_threshold
from ._review.group_thresholds import GroupThresholds, group_thresholds
from ._review.discovery import SubgroupDiscovery, discover_subgroups
from ._review.from_counts import build_review_from_counts
from ._review.over_time import OverTime, over_time
from ._review.history import ReviewHistory, review_history
from ._stats.trend import PeriodTrend, period_changes, period_trend
from ._review.config_schema import CONFIG_BOUNDS, MAX_CONFIG_BYTES
from ._review.export import export_name, neutralize_formulas, table_from_json, table_to_csv, table_to_json
from ._review.auc_findings import auc_findings, direction_warning
from ._review.outcome_words import outcome_phrases, outcome_words
from ._review.finding import Finding, findings_table
from ._review.findings import rate_findings
from ._review.result_findings import disparity_findings, reduction_finding
from ._subgroups.slices import Condition, Slice, subset_score
from ._subgroups.patterns import MISSING
from ._subgroups.subgroups import Subgroups

_data_names = ["read_table", "ColumnMapping", "ScoredData", "guess_mapping", "guess_positive", "guess_outcome", "MappingGuess", "Subgroups", "MISSING",
               "numbers_as_text",
               "Slice", "Condition",
               "subset_score"]
_auc_names = ["subgroup_auc", "bpsn_auc", "bnsp_auc", "power_mean", "bias_auc_table", "bias_auc_score",
              "summarize_bias_auc", "BiasAucResult", "AucCounts", "auc_counts"]
_rate_names = ["DENOMINATOR_NAMES", "group_rates", "confusion_counts", "ConfusionCounts", "threshold_counts",
               "ThresholdCounts", "rate_disparity", "model_statistical_parity",
               "true_positive_rate_disparity", "false_positive_rate_disparity", "false_negative_rate_disparity",
               "false_omission_rate_disparity", "false_discovery_rate_disparity", "error_rate_disparity",
               "equalized_odds"]
_disparity_names = ["distance", "reduce_disparities", "DisparityResult", "named_reference", "NamedReference",
                    "reference_keyword"]
_calibration_names = ["reliability_diagram", "expected_calibration_error", "maximum_calibration_error",
                      "calibration_errors", "calibration_disparity", "calibration_counts", "CalibrationCounts",
                      "CalibrationDisparityResult", "calibration_rule"]
_theil_names = ["theil_index", "individual_theil_index", "between_group_theil_index", "TheilResult"]
_ratio_score_names = ["p_percent_score", "equal_opportunity_score", "correlation_score", "CorrelationScoreResult",
                      "RatioScoreResult",
                      "RatioScoresResult"]
_scorer_names = ["make_fairness_scorer", "FairnessScorer"]

_classwise_names = ["unweighted_average_bias", "class_counts", "ClassCounts", "UnweightedAverageBiasResult",
                    "classwise_findings"]
_dataset_names = ["dataset_statistical_parity", "base_rates", "base_rates_from_counts", "consistency", "smoothed_edf", "smoothed_edf_from_counts", "ConsistencyResult",
                  "SmoothedEdfResult"]

_interval_names = ["wilson_interval", "weighted_wilson_interval", "effective_size", "delong_variance", "auc_interval"]
_policy_names = ["Rule", "Verdict", "DEFAULT_RULES", "outcome_rule", "evaluate", "evaluate_result", "rows_factor", "summarize_verdicts",
                 "rules_to_json", "rules_from_json"]
_review_names = ["compare_models", "compare_model_aucs", "compare_model_calibration", "render_report", "ReviewConfig", "Review", "ModelReview", "build_review", "build_review_from_counts", "default_threshold", "threshold_for_range", "rate_rules",
                 "dataset_rule", "no_auc_finding", "CONFIG_BOUNDS", "MAX_CONFIG_BYTES", "Conclusions", "auc_conclusions",
                 "rate_conclusions", "calibration_conclusions", "dataset_conclusions", "classwise_conclusions",
                 "bottom_line", "rule_plain_name", "result_subject", "model_changes", "ChangeVerdict", "changes_by_rule",
                 "suggest_threshold", "ThresholdSuggestion", "group_thresholds", "GroupThresholds"]
_discovery_names = ["discover_subgroups", "SubgroupDiscovery"]
_over_time_names = ["over_time", "OverTime", "period_trend", "PeriodTrend", "period_changes", "review_history",
                    "ReviewHistory"]
_export_names = ["neutralize_formulas", "table_to_csv", "table_to_json", "table_from_json", "export_name"]
_threshold_names = ["performance_table", "explorer_thresholds", "threshold_curves", "disparity_curve", "rule_band",
                    "subgroup_threshold_effect", "SubgroupThresholdEffect"]
_findings_names = ["Finding", "disparity_findings", "rate_findings", "reduction_finding", "findings_table", "auc_findings",
                   "direction_warning", "outcome_words", "outcome_phrases"]

__all__ = (_data_names + _auc_names + _rate_names + _disparity_names + _calibration_names + _theil_names
           + _ratio_score_names + _scorer_names + _classwise_names + _dataset_names + _interval_names + _policy_names
           + _findings_names + _threshold_names + _export_names + _review_names + _over_time_names + _discovery_names)
