"""The public surface of fairness_core, pinned: the three ``__all__`` lists and that each name resolves.

Written before fairness_core was split into private subpackages; a reorganisation must leave these
lists exactly as they are (same names; ``__all__`` order is checked as a set plus no duplicates). Names are only
added with a feature: the Overview's bottom line (``bottom_line``, ``rule_plain_name``, ``result_subject``) and its
scorecard (``plotting.scorecard_chart``); the release gate's judgement of a candidate against a baseline
(``model_changes``, ``ChangeVerdict``); thresholds suggested with their cost (``suggest_threshold``,
``ThresholdSuggestion``, ``plotting.threshold_tradeoff_chart``, ``group_thresholds``, ``GroupThresholds``); sample
weights (``effective_size``, ``weighted_wilson_interval``, for a weighted share's size and interval); subgroup
discovery (``discover_subgroups``, ``SubgroupDiscovery``); fairness over time (``over_time``, ``OverTime``,
``period_trend``, ``PeriodTrend``, ``period_changes``); saved reviews side by side in time
(``review_history``, ``ReviewHistory``).
"""

from __future__ import annotations

import importlib

import pytest

PACKAGE_ALL = ['AucCounts', 'BiasAucResult', 'CONFIG_BOUNDS', 'CalibrationCounts', 'CalibrationDisparityResult',
 'ChangeVerdict', 'ClassCounts', 'ColumnMapping', 'Conclusions', 'Condition', 'ConfusionCounts', 'ConsistencyResult',
 'CorrelationScoreResult', 'DEFAULT_RULES', 'DENOMINATOR_NAMES', 'DisparityResult', 'FairnessScorer',
 'Finding', 'GroupThresholds', 'MAX_CONFIG_BYTES', 'MISSING', 'MappingGuess', 'ModelReview', 'NamedReference', 'OverTime', 'PeriodTrend', 'RatioScoreResult',
 'RatioScoresResult', 'Review', 'ReviewConfig', 'ReviewHistory', 'Rule', 'ScoredData', 'Slice', 'SmoothedEdfResult',
 'SubgroupDiscovery', 'SubgroupThresholdEffect', 'Subgroups', 'TheilResult', 'ThresholdCounts', 'ThresholdSuggestion', 'UnweightedAverageBiasResult',
 'Verdict', 'auc_conclusions', 'auc_counts', 'auc_findings', 'auc_interval', 'base_rates',
 'base_rates_from_counts', 'between_group_theil_index', 'bias_auc_score', 'bias_auc_table', 'bnsp_auc', 'bottom_line',
 'bpsn_auc', 'build_review', 'build_review_from_counts', 'calibration_conclusions', 'calibration_counts',
 'calibration_disparity', 'calibration_errors', 'calibration_rule', 'changes_by_rule', 'class_counts', 'classwise_conclusions',
 'classwise_findings', 'compare_model_aucs', 'compare_model_calibration', 'compare_models',
 'confusion_counts', 'consistency', 'correlation_score', 'dataset_conclusions', 'dataset_rule',
 'dataset_statistical_parity', 'default_threshold', 'delong_variance', 'direction_warning', 'discover_subgroups', 'disparity_curve',
 'disparity_findings', 'distance', 'effective_size', 'equal_opportunity_score', 'equalized_odds', 'error_rate_disparity',
 'evaluate', 'evaluate_result', 'expected_calibration_error', 'explorer_thresholds', 'export_name',
 'false_discovery_rate_disparity', 'false_negative_rate_disparity', 'false_omission_rate_disparity',
 'false_positive_rate_disparity', 'findings_table', 'group_rates', 'group_thresholds', 'guess_mapping', 'guess_outcome',
 'guess_positive', 'individual_theil_index', 'make_fairness_scorer', 'maximum_calibration_error', 'model_changes',
 'model_statistical_parity', 'named_reference', 'neutralize_formulas', 'no_auc_finding', 'numbers_as_text',
 'outcome_phrases', 'outcome_rule', 'outcome_words', 'over_time', 'p_percent_score', 'performance_table', 'period_changes', 'period_trend', 'power_mean', 'rate_conclusions', 'rate_disparity',
 'rate_findings', 'rate_rules', 'read_table', 'reduce_disparities', 'reduction_finding', 'reference_keyword',
 'reliability_diagram', 'render_report', 'result_subject', 'review_history', 'rows_factor', 'rule_band', 'rule_plain_name', 'rules_from_json', 'rules_to_json', 'smoothed_edf',
 'smoothed_edf_from_counts', 'subgroup_auc', 'subgroup_threshold_effect', 'subset_score',
 'suggest_threshold', 'summarize_bias_auc', 'summarize_verdicts', 'table_from_json', 'table_to_csv', 'table_to_json',
 'theil_index', 'threshold_counts', 'threshold_curves', 'threshold_for_range', 'true_positive_rate_disparity',
 'unweighted_average_bias', 'weighted_wilson_interval', 'wilson_interval']

PLOTTING_ALL = ['AUC_COLUMNS', 'RATE_LABELS', 'STATUS_COLORS', 'add_rule_line', 'auc_chart', 'calibration_error_chart', 'classwise_chart',
 'model_auc_heatmap', 'pairwise_heatmap', 'plot_text', 'rate_chart', 'ratio_score_chart', 'reliability_chart',
 'rule_line_parts', 'rule_subgroups_chart', 'scorecard_chart', 'subgroup_colors', 'threshold_chart', 'threshold_tradeoff_chart', 'tradeoff_chart']

ENGINES_ALL = ['ENGINES', 'ScoredCounts', 'TooManyPatterns', 'counts_over_time', 'default_memory_limit',
               'discover_subgroups_counted', 'preview', 'read_source', 'scored_counts']


MODULES = {"fairness_core": PACKAGE_ALL, "fairness_core.plotting": PLOTTING_ALL, "fairness_core.engines": ENGINES_ALL}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_all_is_exactly_the_pinned_list(module):
    names = list(importlib.import_module(module).__all__)
    assert len(names) == len(set(names)), f"{module}.__all__ has duplicates"
    assert sorted(names) == MODULES[module]


@pytest.mark.parametrize("module,name", [(m, n) for m in sorted(MODULES) for n in MODULES[m]])
def test_every_public_name_resolves(module, name):
    assert hasattr(importlib.import_module(module), name), f"{module}.{name} does not resolve"
