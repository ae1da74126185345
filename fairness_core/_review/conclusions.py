"""What each page of the dashboard concludes: its findings and its policy verdicts, in one place.

One function per page. The app's pages and the Overview (``fairness_dashboard/summaries.py``), the review that the
report and the command line print (:func:`fairness_core.build_review`) and the counts-based review
of an engine all call these, so the same configuration gives the same sentences and verdicts
wherever it is read. Each takes the page's computed inputs (an AUC table, confusion, calibration,
label or class counts) and the page's options (the :class:`ReviewConfig` fields of that page) and
returns :class:`Conclusions`: the findings, the verdicts and the results they were read from.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Optional

from .._metrics.auc import summarize_bias_auc
from .._metrics.classwise import classwise_findings
from .._counts.rates import RATE_TO_METRIC
from .bottom_line import who
from .auc_findings import auc_findings, direction_warning
from .outcome_words import mapping_phrases
from .findings import rate_findings
from .result_findings import disparity_findings, reduction_finding
from .._policy.defaults import DEFAULT_RULES, outcome_rule
from .._policy.rules import Rule
from .._policy.verdicts import evaluate_result

_RULES = {rule.name: rule for rule in DEFAULT_RULES}
# A rate's name as rate_disparity knows it (the selection rate's disparity is "statistical parity").


@dataclass(frozen=True)
class Conclusions:
    """A page's findings and verdicts, and the results they read.

    Attributes
    ----------
    findings : tuple of str
        Plain-text sentences, most important first (escape them before rendering them as Markdown).
    verdicts : tuple of Verdict
        The page's policy verdicts (:func:`evaluate_result`), in the page's order.
    results : dict
        The computed results the findings and verdicts were read from, by name (each function
        lists its keys), so a page can show them without computing them again.
    subjects : tuple of str
        For each verdict, whom its value is about (:func:`result_subject`, e.g. "Group C against
        everyone else"); '' where the value names no subgroup (a bias AUC score). Empty when
        there is no verdict.
    """

    findings: tuple = ()
    verdicts: tuple = ()
    results: Mapping = field(default_factory=dict, compare=False)
    subjects: tuple = ()

    def weighted_if(self, weighted: bool) -> "Conclusions":
        """These conclusions, with every finding and verdict sentence opened by ``WEIGHTED`` when `weighted` (the
        counts behind them are sums of sample weights, so every number in them is weighted)."""
        if not weighted:
            return self
        return replace(
            self, findings=tuple(WEIGHTED + f for f in self.findings),
            verdicts=tuple(replace(v, sentence=WEIGHTED + v.sentence) for v in self.verdicts))


# How a finding or verdict over sums of sample weights opens: its numbers are weighted shares and weighted AUCs.
WEIGHTED = "Weighted: "


def rate_rules(metrics, distance: str, max_difference: float) -> list:
    """The rules the Rate disparities page applies besides the four-fifths and equal opportunity rules.

    Parameters
    ----------
    metrics : sequence of str
        Rate names (``RATE_NAMES``).
    distance : {'diff', 'ratio'}
    max_difference : float in [0, 1]

    Returns
    -------
    list of Rule
        Under 'ratio': the default ratio rules (every rate's ratio within [0.8, 1.25]). Under
        'diff': each selected rate's max difference, and equalized odds', at most `max_difference`.
    """
    if distance == "ratio":
        return [r for r in DEFAULT_RULES if r.distance_measure == "ratio"]
    return [Rule(metric=m, distance_measure="diff", bound=float(max_difference))
            for m in [RATE_TO_METRIC[r] for r in metrics] + ["equalized_odds"]]


def rate_page_rules(positive_outcome: str, metrics, distance: str, max_difference: float) -> list:
    """Every rule of the Rate disparities page, in its order: the four-fifths and equal opportunity rules on the
    favourable prediction's ratio scores (named for the declared outcome, :func:`outcome_rule`), then
    :func:`rate_rules`.

    Parameters
    ----------
    positive_outcome : {'favourable', 'adverse'}
    metrics, distance, max_difference
        As in :func:`rate_rules`.

    Returns
    -------
    list of Rule
    """
    return [outcome_rule(_RULES["four_fifths"], positive_outcome),
            outcome_rule(_RULES["equal_opportunity"], positive_outcome), *rate_rules(metrics, distance, max_difference)]


def dataset_rule(distance: str, max_difference: float) -> Rule:
    """The Dataset metrics page's rule on the largest base-rate disparity.

    Under 'diff' the largest base-rate difference must be at most `max_difference`; under
    'ratio' the base-rate ratio must lie within [0.8, 1.25].

    Parameters
    ----------
    distance : {'diff', 'ratio'}
    max_difference : float in [0, 1]

    Returns
    -------
    Rule
    """
    if distance == "ratio":
        return Rule.ratio_within("dataset_statistical_parity")
    return Rule(metric="dataset_statistical_parity", distance_measure="diff", bound=float(max_difference))


def no_auc_finding(level: float, overall_auc: float) -> str:
    """The AUC finding when no AUC is distinguishable from the overall AUC.

    Parameters
    ----------
    level : float in (0, 1)
    overall_auc : float

    Returns
    -------
    str
    """
    return (f"No subgroup, BPSN or BNSP AUC has a {level * 100:g} % interval entirely below the overall AUC "
            f"({overall_auc:.4g}): no AUC is distinguishable from it at this sample size.")


def auc_conclusions(table, mapping, *, p: float = -5.0, overall_weight: float = 0.25, include_small: bool = False,
                    ci: Optional[float] = 0.95, min_score: Optional[float] = None) -> Conclusions:
    """The Subgroup AUCs page's conclusions.

    Findings: the direction warning when the overall AUC is below 0.5 (:func:`direction_warning`),
    then, with intervals, the lowest subgroup, BPSN and BNSP AUC whose interval lies below the
    overall AUC (:func:`auc_findings`), or one sentence saying none does. Verdict: the bias AUC
    score (the weighted power mean of the AUCs, Borkan et al. 2019) at least `min_score`, when set.

    Parameters
    ----------
    table : DataFrame
        The per-subgroup AUC table (:func:`bias_auc_table` or ``AucCounts.table``), with interval
        columns when `ci` is set.
    mapping : ColumnMapping
        For the warning's words (the label and its positive value).
    p : float, default=-5
        The power mean's exponent.
    overall_weight : float in [0, 1], default=0.25
    include_small : bool, default=False
    ci : float in (0, 1) or None, default=0.95
        The level of the table's intervals; None: no AUC finding (only the warning).
    min_score : float in [0, 1] or None
        The bias AUC score rule's bound; None: no verdict.

    Returns
    -------
    Conclusions
        ``results = {"bias_auc": BiasAucResult}``.
    """
    bias = summarize_bias_auc(table, p=float(p), overall_weight=float(overall_weight), include_small=include_small)
    findings = [] if ci is None else (list(auc_findings(table, include_small=include_small,
                                                        phrases=mapping_phrases(mapping)))
                                      or [no_auc_finding(ci, bias.overall_auc)])
    warning = direction_warning(bias.overall_auc, mapping.label, mapping.positive_label)
    verdicts = () if min_score is None else (
        evaluate_result(Rule(metric="bias_auc_score", bound=float(min_score)), bias),)
    return Conclusions(tuple(([warning] if warning else []) + findings), verdicts, {"bias_auc": bias},
                       ("",) * len(verdicts)).weighted_if(bool(table.attrs.get("weighted", False)))


def rate_conclusions(counts, mapping, *, rate_metrics=("false_positive_rate", "false_negative_rate"),
                     distance_measure: str = "diff", max_difference: float = 0.1, reference: str = "rest",
                     include_small: bool = False, ci: Optional[float] = 0.95, n_boot: int = 1000,
                     adjust: Optional[str] = None, random_state=0,
                     disparity: Optional[Callable] = None) -> Conclusions:
    """The Rate disparities page's conclusions.

    Findings: the top three rate comparisons (:func:`rate_findings`), then the comparison that
    drives each rate's largest disparity (:func:`reduction_finding`), in the data's own words
    (:func:`outcome_words`: the label's values, or the mapping's ``label_words``). Verdicts: the
    four-fifths rule on the p% score and the equal opportunity rule, both of the favourable prediction (``mapping.positive_outcome``,
    the declared outcome), then :func:`rate_rules` on each rate's largest disparity (max) against
    `reference`.

    Parameters
    ----------
    counts : ConfusionCounts
        The predictions' confusion counts per subgroup (positive = the event the score predicts).
    mapping : ColumnMapping
        Its label, positive value, ``positive_outcome`` and ``label_words``.
    rate_metrics : sequence of str
        Rate names (``RATE_NAMES``, e.g. 'selection_rate', 'false_positive_rate').
    distance_measure : {'diff', 'ratio'}, default='diff'
    max_difference : float in [0, 1], default=0.1
        The bound of the difference rules.
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    include_small : bool, default=False
    ci : float in (0, 1) or None, default=0.95
    n_boot : int, default=1000
    adjust : {None, 'bonferroni', 'holm'}
    random_state : int, default=0
    disparity : callable, optional
        ``disparity(metric, distance_measure, reduction) -> DisparityResult`` for the rate
        disparities (``metric`` a rate_disparity name or 'equalized_odds'); the app passes its
        memoized one. Default: computed from `counts` with the options above.

    Returns
    -------
    Conclusions
        ``results = {"p_percent": RatioScoreResult, "equal_opportunity": RatioScoreResult,
        "max": {(rule metric, distance): DisparityResult}}`` (each rule's largest disparity).

    Raises
    ------
    KeyError
        For a rate name not in ``RATE_NAMES``.
    """
    boot = dict(ci=ci, n_boot=n_boot, random_state=random_state)
    if disparity is None:
        def disparity(metric: str, distance: str, reduction: str):
            kw = dict(distance_measure=distance, reduction=reduction, reference=reference,
                      include_small=include_small, adjust=adjust, **boot)
            return counts.equalized_odds(**kw) if metric == "equalized_odds" else counts.disparity(metric, **kw)

    metrics = [RATE_TO_METRIC[r] for r in rate_metrics]
    words = mapping_phrases(mapping).texts()   # the data's own words: a denial is never called "positive"
    side = dict(words, positive_outcome=mapping.positive_outcome)   # a pair is spoken from its disadvantaged side
    top = rate_findings(counts, metrics, reference=reference, include_small=include_small, adjust=adjust, limit=3,
                        **boot, **side) if metrics else []
    drivers = [reduction_finding(disparity(m, distance_measure, "max"), m, **side) for m in metrics]
    verdicts, results = rate_verdicts(counts, mapping.positive_outcome, rate_metrics=rate_metrics,
                                      distance_measure=distance_measure, max_difference=max_difference,
                                      include_small=include_small, disparity=disparity, **boot)
    largest, rules = results["max"], rate_rules(rate_metrics, distance_measure, max_difference)
    findings = tuple(f.sentence for f in top) + tuple(f.sentence for f in drivers if f is not None)
    subjects = ((who(results["p_percent"]), who(results["equal_opportunity"]))
                + tuple(who(largest[r.metric, r.distance_measure]) for r in rules))
    return Conclusions(findings, verdicts, results, subjects).weighted_if(counts.weighted)


def rate_verdicts(counts, positive_outcome: str, *, rate_metrics, distance_measure: str, max_difference: float,
                  include_small: bool, ci: Optional[float], n_boot: int, random_state, disparity: Callable) -> tuple:
    """The Rate disparities page's verdicts alone (no findings): the four-fifths and equal opportunity rules on
    the favourable prediction's ratio scores, then :func:`rate_rules` on each rate's largest disparity.

    Parameters
    ----------
    counts : ConfusionCounts
    positive_outcome : {'favourable', 'adverse'}
    rate_metrics, distance_measure, max_difference, include_small, ci, n_boot, random_state
        As in :func:`rate_conclusions`.
    disparity : callable
        ``disparity(metric, distance_measure, reduction) -> DisparityResult`` (:func:`rate_conclusions`'s).

    Returns
    -------
    (tuple of Verdict, dict)
        The verdicts in :func:`rate_conclusions`' order and its ``results``.
    """
    boot = dict(ci=ci, n_boot=n_boot, random_state=random_state)
    favourable = counts.favourable(positive_outcome)
    p_percent, opportunity = (favourable.ratio_scores(rate, include_small=include_small, **boot)
                              for rate in ("selection_rate", "true_positive_rate"))
    four_fifths, opportunity_rule, *rules = rate_page_rules(positive_outcome, rate_metrics, distance_measure,
                                                            max_difference)
    largest = {(rule.metric, rule.distance_measure): disparity(rule.metric, rule.distance_measure, "max")
               for rule in rules}
    verdicts = [evaluate_result(four_fifths, p_percent), evaluate_result(opportunity_rule, opportunity)]
    verdicts += [evaluate_result(rule, largest[rule.metric, rule.distance_measure]) for rule in rules]
    return tuple(verdicts), {"p_percent": p_percent, "equal_opportunity": opportunity, "max": largest}


def calibration_conclusions(counts, *, threshold: Optional[float] = None, min_per_group: int = 5,
                            distance_measure: str = "diff", reduction: str = "max", reference: str = "rest",
                            include_small: bool = False, ci: Optional[float] = 0.95, n_boot: int = 1000,
                            adjust: Optional[str] = None, random_state=0) -> Conclusions:
    """The Calibration page's conclusions.

    Findings: the ECE comparisons whose interval excludes parity (:func:`disparity_findings`; the
    difference compares debiased squared calibration errors as the excess ℓ2 ECE). Verdict: the calibration rule
    (:meth:`CalibrationCounts.disparity`), when it applies.

    Parameters
    ----------
    counts : CalibrationCounts
    threshold : float or None
        The rule's bound in the units of `distance_measure`; None: the default rule (a
        difference of at most 0.1; no rule under ratio).
    min_per_group : int >= 1, default=5
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'}, default='max'
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    include_small : bool, default=False
    ci : float in (0, 1) or None, default=0.95
    n_boot : int, default=1000
    adjust : {None, 'bonferroni', 'holm'}
    random_state : int, default=0

    Returns
    -------
    Conclusions
        ``results = {"calibration": CalibrationDisparityResult}``.
    """
    result = counts.disparity(threshold=threshold, min_per_group=int(min_per_group),
                              distance_measure=distance_measure, reduction=reduction, reference=reference,
                              include_small=include_small, ci=ci, n_boot=n_boot, random_state=random_state,
                              adjust=adjust)
    findings = tuple(f.sentence for f in disparity_findings(result.disparity, calibration_words(result)))
    verdicts = () if result.verdict is None else (result.verdict,)
    return Conclusions(findings, verdicts, {"calibration": result}, (who(result),) * len(verdicts)).weighted_if(
        counts.weighted)


def calibration_words(result) -> str:
    """What a calibration disparity's findings call the compared quantity: "ℓ2 ECE" for debiased squared
    calibration errors (the default), "expected calibration error" for ExFairness's plug-in ECEs."""
    return "ℓ2 ECE" if getattr(result, "debiased", False) else "expected calibration error"


def dataset_conclusions(label_counts, *, distance_measure: str = "diff", reduction: str = "max",
                        reference: str = "rest", include_small: bool = False, max_difference: float = 0.1,
                        ci: Optional[float] = 0.95, n_boot: int = 1000, adjust: Optional[str] = None,
                        random_state=0) -> Conclusions:
    """The Dataset metrics page's conclusions: about the labels, never counted in a model's pass or fail.

    Findings: the base-rate comparisons whose interval excludes parity, at `reduction`.
    Verdict: :func:`dataset_rule` on the largest base-rate disparity (max).

    Parameters
    ----------
    label_counts : ConfusionCounts
        The labels' counts against themselves (``confusion_counts(y, y, groups)``).
    distance_measure : {'diff', 'ratio'}, default='diff'
    reduction : {'max', 'mean'}, default='max'
    reference : {'rest', 'overall', 'pairwise'} or a subgroup name, default='rest'
    include_small : bool, default=False
    max_difference : float in [0, 1], default=0.1
    ci : float in (0, 1) or None, default=0.95
    n_boot : int, default=1000
    adjust : {None, 'bonferroni', 'holm'}
    random_state : int, default=0

    Returns
    -------
    Conclusions
        ``results = {"parity": DisparityResult at reduction, "parity_max": DisparityResult}``.
    """
    def parity_of(red: str):
        return label_counts.disparity("statistical_parity", distance_measure=distance_measure, reduction=red,
                                      reference=reference, include_small=include_small, ci=ci, n_boot=n_boot,
                                      random_state=random_state, adjust=adjust, func="dataset_statistical_parity")

    parity = parity_of(reduction)
    largest = parity if reduction == "max" else parity_of("max")
    findings = tuple(f.sentence for f in disparity_findings(parity, "base rate", percent=True))
    verdict = evaluate_result(dataset_rule(distance_measure, max_difference), largest)
    return Conclusions(findings, (verdict,), {"parity": parity, "parity_max": largest}, (who(largest),)).weighted_if(
        label_counts.weighted)


def classwise_conclusions(class_counts, *, metric: str = "fscore", reduction: str = "std", subgroups=None,
                          include_small: bool = False, ci: Optional[float] = 0.95, n_boot: int = 1000,
                          random_state=0) -> Conclusions:
    """The Class-wise bias page's conclusions: the classes whose scores differ most between subgroups.

    No policy rule applies to the unweighted average bias, so there is no verdict.

    Parameters
    ----------
    class_counts : ClassCounts
    metric : {'precision', 'recall', 'fscore'}, default='fscore'
    reduction : {'std', 'difference', 'absolute_difference'}, default='std'
    subgroups : list of two subgroup names or None
        The pair of a difference (None: every subgroup, for 'std').
    include_small : bool, default=False
    ci : float in (0, 1) or None, default=0.95
    n_boot : int, default=1000
    random_state : int, default=0

    Returns
    -------
    Conclusions
        ``results = {"classwise": UnweightedAverageBiasResult}``.

    Raises
    ------
    ValueError
        As :meth:`ClassCounts.unweighted_average_bias` (e.g. subgroups it does not know).
    """
    result = class_counts.unweighted_average_bias(metric=metric, reduction=reduction,
                                                  subgroups=None if subgroups is None else list(subgroups),
                                                  include_small=include_small, ci=ci, n_boot=n_boot,
                                                  random_state=random_state)
    return Conclusions(tuple(classwise_findings(result)), (), {"classwise": result}).weighted_if(class_counts.weighted)
