"""The default policy: DEFAULT_RULES, one rule per metric the review assesses."""

from __future__ import annotations

import dataclasses

from .rules import Rule


DEFAULT_RULES: tuple[Rule, ...] = (
    Rule(name="four_fifths", metric="p_percent_score", bound=0.8, direction="min",
         label="Four-fifths rule: p% score >= 0.8"),
    Rule(name="equal_opportunity", metric="equal_opportunity_score", bound=0.8, direction="min",
         label="Four-fifths rule on true positive rates: equal opportunity score >= 0.8"),
    Rule.ratio_within("statistical_parity", low=0.8, high=1.25, name="selection_rate_ratio",
                      label="Selection rate band: ratio within [0.8, 1.25]"),
    Rule.ratio_within("true_positive_rate", low=0.8, high=1.25, name="true_positive_rate_ratio",
                      label="True positive rate band: ratio within [0.8, 1.25]"),
    Rule.ratio_within("false_positive_rate", low=0.8, high=1.25, name="false_positive_rate_ratio",
                      label="False positive rate band: ratio within [0.8, 1.25]"),
    Rule(name="calibration_diff", metric="calibration_disparity", distance_measure="diff", bound=0.1,
         direction="max", label="Calibration: excess ℓ2 ECE <= 0.1"),
)
"""The rules the dashboard starts with (a tuple; ``list(DEFAULT_RULES)`` to edit).

1. ``four_fifths``: p% score >= 0.8, the four-fifths rule of the EEOC Uniform Guidelines on
   Employee Selection Procedures, 29 CFR 1607.4(D).
2. ``equal_opportunity``: equal opportunity score >= 0.8, the same rule on true positive rates.
3. ``selection_rate_ratio``, ``true_positive_rate_ratio``, ``false_positive_rate_ratio``: the ratio
   disparity of the selection rate, TPR and FPR within [0.8, 1.25], i.e. <= 1.25 (Aequitas's
   default band, Saleiro et al. 2018, arXiv:1811.05577).
4. ``calibration_diff``: calibration disparity <= 0.1, the default threshold of ExFairness
   (ExFairness.Metrics.Calibration), on the excess ℓ2 ECE (the square root of the difference of
   debiased squared calibration errors; the plug-in ECE difference with ``debias=False``).

There is no default rule on the bias AUC score: no source sets a level; add one with
``Rule(metric="bias_auc_score", bound=...)``.
"""

# When a positive prediction is adverse for the person (deny, default, high risk), the p% and equal opportunity
# scores compare the favourable prediction (``ConfusionCounts.favourable``): the rate of not being predicted
# positive, and that rate among people whose label is the favourable value, the true negative rate of the label's
# positive value. Their default labels are said in those words then.
_ADVERSE_LABELS = {
    "Four-fifths rule: p% score >= 0.8":
        "Four-fifths rule on the favourable prediction (not predicted positive): p% score >= 0.8",
    "Four-fifths rule on true positive rates: equal opportunity score >= 0.8":
        "Four-fifths rule on true negative rates (the favourable prediction among people with the favourable "
        "label): equal opportunity score >= 0.8",
}
#: The labels of :data:`DEFAULT_RULES`' two ratio-score rules when a positive prediction is adverse.
ADVERSE_LABELS = frozenset(_ADVERSE_LABELS.values())


def outcome_rule(rule: Rule, positive_outcome: str = "favourable") -> Rule:
    """`rule` labelled for what its metric compares under `positive_outcome`.

    With ``'adverse'`` the default four-fifths and equal opportunity rules (their default labels) are relabelled:
    their scores compare the favourable prediction, so "p% score" is the ratio of the rates of *not* being
    predicted positive and the "equal opportunity score" the ratio of true negative rates. Name, metric, bound and
    direction are kept (a gate names the rule as before); any other rule is returned as it is.

    Parameters
    ----------
    rule : Rule
    positive_outcome : {'favourable', 'adverse'}, default='favourable'

    Returns
    -------
    Rule

    Examples
    --------
    >>> outcome_rule(DEFAULT_RULES[1], "adverse").label.split(":")[0]
    'Four-fifths rule on true negative rates (the favourable prediction among people with the favourable label)'
    >>> outcome_rule(DEFAULT_RULES[1]) is DEFAULT_RULES[1]
    True
    """
    if positive_outcome != "adverse" or rule.label not in _ADVERSE_LABELS:
        return rule
    return dataclasses.replace(rule, label=_ADVERSE_LABELS[rule.label])
