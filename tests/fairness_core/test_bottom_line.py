"""The bottom line (fairness_core.bottom_line), whom a result is about (result_subject), the subjects of each
page's conclusions, and the scorecard chart."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core import plotting

FPR = fc.Rule(metric="false_positive_rate", distance_measure="diff", bound=0.1)
FNR = fc.Rule(metric="false_negative_rate", distance_measure="diff", bound=0.1)
P_PERCENT = fc.Rule(metric="p_percent_score", bound=0.8)
ODDS_RATIO = fc.Rule(metric="equalized_odds", distance_measure="ratio", bound=1.25)
BASE_RATES = fc.Rule(metric="dataset_statistical_parity", distance_measure="diff", bound=0.1)


def verdict(rule, value, low=np.nan, high=np.nan):
    return fc.evaluate(rule, value, ci_low=low, ci_high=high)


def test_what_fails_for_whom_and_by_how_much():
    line = fc.bottom_line([verdict(P_PERCENT, 0.61, 0.55, 0.66), verdict(FPR, 0.05, 0.02, 0.08)],
                          ["African-American against everyone else", ""])
    assert line == ("Fails 1 of 2 rules: the selection-rate ratio is 0.61 for African-American against everyone "
                    "else, below the minimum of 0.8.",)


def test_nothing_fails():
    assert fc.bottom_line([verdict(FPR, 0.05, 0.02, 0.08)] * 2) == ("Passes every rule.",)
    line = fc.bottom_line([verdict(FPR, 0.05, 0.02, 0.08), verdict(FNR, 0.12, 0.05, 0.2)])
    assert line[0] == "No rule fails; 1 of 2 rules pass."
    assert line[1] == ("1 rule cannot be decided at this sample size, as the interval straddles the bound (gap in "
                       "false negative rates).")


def test_undecided_and_unassessed_share_one_sentence():
    line = fc.bottom_line([verdict(FPR, 0.3, 0.2, 0.4), verdict(FNR, 0.12, 0.05, 0.2),
                           verdict(ODDS_RATIO, np.nan)], ["C against everyone else", "", ""])
    assert line[0] == ("Fails 1 of 3 rules: the gap in false positive rates is 0.3 for C against everyone else, "
                       "above the limit of 0.1.")
    assert line[1] == ("1 rule cannot be decided at this sample size, as the interval straddles the bound (gap in "
                       "false negative rates); 1 could not be assessed, as every comparison was too small or "
                       "undefined (ratio of true or false positive rates (equalized odds)).")
    assert len(line) == 2


def test_more_than_two_failures_are_named_after_the_first_two():
    rules = [P_PERCENT, FPR, FNR, fc.Rule(metric="error_rate", distance_measure="diff", bound=0.1),
             fc.Rule(metric="equalized_odds", distance_measure="diff", bound=0.1)]
    values = [0.5, 0.3, 0.3, 0.3, 0.3]
    line = fc.bottom_line([verdict(r, v, v - 0.01, v + 0.01) for r, v in zip(rules, values)])
    assert line[0].startswith("Fails 5 of 5 rules: the selection-rate ratio is 0.5, below the minimum of 0.8; ")
    assert line[0].endswith("; the gap in false positive rates is 0.3, above the limit of 0.1; and the gap in false "
                            "negative rates, gap in error rates and gap in true or false positive rates (equalized "
                            "odds).")


def test_the_labels_are_a_property_of_the_data():
    labels = [verdict(BASE_RATES, 0.162, 0.114, 0.328)]
    line = fc.bottom_line([verdict(FPR, 0.05, 0.02, 0.08)], None, labels, ["C against everyone else"])
    assert line == ("Passes every rule.",
                    "The labels themselves differ between subgroups: the gap in base rates of the labels is 0.162 "
                    "for C against everyone else, above the limit of 0.1. This is a property of the data, not of "
                    "the model.")
    # A label rule that passes says nothing.
    assert fc.bottom_line([verdict(FPR, 0.05, 0.02, 0.08)], None, [verdict(BASE_RATES, 0.02, 0.0, 0.05)]) == (
        "Passes every rule.",)


def test_without_intervals_it_says_each_verdict_rests_on_a_point_estimate():
    line = fc.bottom_line([verdict(FPR, 0.3)], intervals=False)
    assert line[0].startswith("Fails 1 of 1 rule (intervals are off: each verdict rests on its point estimate "
                              "alone): ")
    assert fc.bottom_line([]) == ()


def test_one_subject_per_verdict_or_an_error():
    with pytest.raises(ValueError, match="one text per verdict"):
        fc.bottom_line([verdict(FPR, 0.3)], ["a", "b"])


def test_plain_names_keep_the_units_of_the_rule():
    assert fc.rule_plain_name(FPR) == "Gap in false positive rates"
    assert fc.rule_plain_name(fc.Rule(metric="false_positive_rate", distance_measure="ratio", bound=1.25)) == \
        "Ratio of false positive rates"
    assert fc.rule_plain_name(fc.Rule(metric="theil_index", bound=0.1)).endswith("(Theil index)")


@pytest.fixture(scope="module")
def counts():
    rng = np.random.default_rng(3)
    n = 4000
    group = rng.choice(["A", "B", "C"], n, p=[0.5, 0.3, 0.2])
    y = rng.integers(0, 2, n)
    pred = (rng.random(n) < np.where(group == "C", 0.7, 0.4)).astype(int)   # C selected far more often
    return fc.confusion_counts(y, pred, fc.Subgroups.from_attributes(pd.DataFrame({"g": group}), ["g"]))


@pytest.mark.parametrize("reference,expected", [("rest", "C against everyone else"),
                                                ("overall", "C against the whole population")])
def test_result_subject_names_the_comparison_behind_the_value(counts, reference, expected):
    result = counts.disparity("statistical_parity", reduction="max", reference=reference, ci=None)
    assert result.worst[0] == "C" and fc.result_subject(result) == expected


def test_result_subject_of_pairwise_and_named_references(counts):
    pairwise = counts.disparity("statistical_parity", reduction="max", reference="pairwise", ci=None)
    assert fc.result_subject(pairwise) == f"{pairwise.worst[0]} against {pairwise.worst[1]}"
    assert "C" in pairwise.worst
    # a subgroup named like a keyword is a subgroup, never "everyone else"
    named = counts.disparity("statistical_parity", reduction="max", reference=fc.named_reference("A"), ci=None)
    assert fc.result_subject(named) == f"{named.worst[0]} against A"
    assert fc.result_subject(None) == ""


def test_each_rate_verdict_has_its_subject(counts):
    mapping = fc.ColumnMapping(label="y", positive_label=1)
    concluded = fc.rate_conclusions(counts, mapping, ci=None)
    assert len(concluded.subjects) == len(concluded.verdicts) == 5
    p_percent = concluded.results["p_percent"]
    assert concluded.subjects[0] == f"{p_percent.worst} against everyone else" == "C against everyone else"
    for v, subject in zip(concluded.verdicts[2:], concluded.subjects[2:]):
        worst = concluded.results["max"][v.rule.metric, v.rule.distance_measure].worst
        assert subject == f"{worst[0]} against everyone else"


def test_scorecard_one_row_per_rule_against_its_band():
    verdicts = [verdict(P_PERCENT, 0.61, 0.55, 0.66), verdict(FPR, 0.05, 0.02, 0.08), verdict(FNR, 0.12, 0.05, 0.2),
                verdict(ODDS_RATIO, np.nan)]
    names = [fc.rule_plain_name(v.rule) for v in verdicts]
    names[1] = "<b>x</b>"   # markup is shown as text
    figure = plotting.scorecard_chart(verdicts, names, details=["<i>C</i> against everyone else", "", "", ""])
    assert [t.y[0] for t in figure.data] == ["Selection-rate ratio", "&lt;b&gt;x&lt;/b&gt;",
                                             "Gap in false negative rates", "Ratio of true or false positive rates "
                                             "(equalized odds)"]
    assert [t.marker.color for t in figure.data] == ["#D55E00", "#009E73", "#E69F00", "#7F7F7F"]
    assert "&lt;i&gt;C&lt;/i&gt;" in figure.data[0].hovertext[0]
    # the pass band runs from parity to the bound: [0.8, 1] for the p% score, [0, 0.1] for a difference,
    # [1, 1.25] for a ratio; the bound is a dashed line
    bands = [(s.x0, s.x1) for s in figure.layout.shapes if s.type == "rect"]
    lines = [s.x0 for s in figure.layout.shapes if s.type == "line"]
    assert bands == [(0.8, 1.0), (0.0, 0.1), (0.0, 0.1), (1.0, 1.25)] and lines == [0.8, 0.1, 0.1, 1.25]
    # rows of one kind share one scale (the p% score and the ratio: parity 1; the two gaps: parity 0) holding
    # every such row's interval, parity and bound; no tick labels (stacked, they read as the next row's)
    ranges = [figure.layout[f"xaxis{'' if i == 1 else i}"].range for i in range(1, 5)]
    assert ranges[1] == ranges[2] and ranges[0] == ranges[3] and ranges[0] != ranges[1]
    for v, (low, high) in zip(verdicts, ranges):
        ends = [v.rule.bound, 1.0 if v.rule.metric == "p_percent_score" or v.rule.distance_measure == "ratio"
                else 0.0] + [x for x in (v.ci_low, v.ci_high) if np.isfinite(x)]
        assert low <= min(ends) and max(ends) <= high
    assert not any(figure.layout[f"xaxis{'' if i == 1 else i}"].showticklabels for i in range(1, 5))
    notes = {kind: [a for a in figure.layout.annotations if a.name == kind] for kind in ("rule", "value", "bound")}
    # each row's name above its bar, with whom (escaped); the estimate, its interval and the verdict right of it;
    # the bound labelled at its line
    assert [a.text for a in notes["rule"]] == [
        "<b>Selection-rate ratio</b>  <span style='color:#555555'>&lt;i&gt;C&lt;/i&gt; against everyone else</span>",
        "<b>&lt;b&gt;x&lt;/b&gt;</b>", "<b>Gap in false negative rates</b>",
        "<b>Ratio of true or false positive rates (equalized odds)</b>"]
    assert [(a.text, a.xref, a.yref, a.x, a.xanchor) for a in notes["value"]] == [
        ("<b>0.61</b> (0.55–0.66) Fail", "x domain", "y", 1, "left"),
        ("<b>0.05</b> (0.02–0.08) Pass", "x2 domain", "y2", 1, "left"),
        ("<b>0.12</b> (0.05–0.2) Inconclusive", "x3 domain", "y3", 1, "left"),
        ("Not assessable", "x4 domain", "y4", 1, "left")]
    assert [a.font.color for a in notes["value"]] == [t.marker.color for t in figure.data]
    assert [(a.text, a.x, a.xref) for a in notes["bound"]] == [("≥ 0.8", 0.8, "x"), ("≤ 0.1", 0.1, "x2"),
                                                                ("≤ 0.1", 0.1, "x3"), ("≤ 1.25", 1.25, "x4")]
    # each name sits in its row's slot, above the row's bar
    for i, note in enumerate(notes["rule"], start=1):
        low, high = figure.layout[f"yaxis{'' if i == 1 else i}"].domain
        assert high < note.y <= high + 0.5 / len(verdicts) and note.yanchor == "top"
    assert figure.data[3].error_x.array is None
    with pytest.raises(ValueError, match="one name per verdict"):
        plotting.scorecard_chart(verdicts, names[:2])


def test_scorecard_rows_are_compact_and_wrap_whom_only_when_it_would_not_fit():
    """A row is its bar under one line of name and whom, or two when they would be wider than the chart at a 1,024-px
    window: 8 rules of short names take 8 x (22 + 16) px plus the margins, so they fit above the fold."""
    from fairness_core.plotting import _scorecard as S

    long = "sex=Female, age_group=18-24, ethnicity=Group A against everyone else"
    verdicts = [verdict(FPR, 0.05, 0.02, 0.08)] * 8
    names = [fc.rule_plain_name(v.rule) for v in verdicts]
    short = plotting.scorecard_chart(verdicts, names, details=["C against everyone else"] * 8)
    assert short.layout.height == 8 * (S.BAR_HEIGHT + S.NAME_HEIGHT) + 2 * S.MARGIN == 312
    assert not any("<br>" in a.text for a in short.layout.annotations if a.name == "rule")
    odds = fc.Rule(metric="equalized_odds", distance_measure="diff", bound=0.1)
    mixed = plotting.scorecard_chart([verdicts[0], verdict(odds, 0.3, 0.2, 0.4)],
                                     ["Gap in false positive rates", fc.rule_plain_name(odds)], details=[long, long])
    rules = [a.text for a in mixed.layout.annotations if a.name == "rule"]
    assert ["<br>" in t for t in rules] == [False, True]   # 503 px fit in 545; 628 px do not
    assert mixed.layout.height == 2 * S.BAR_HEIGHT + 3 * S.NAME_HEIGHT + 2 * S.MARGIN
    # each bar below its name's lines: the second row's plot area leaves two lines above it
    top2 = 1 - (S.BAR_HEIGHT + S.NAME_HEIGHT) / (2 * S.BAR_HEIGHT + 3 * S.NAME_HEIGHT)
    assert mixed.layout.yaxis2.domain[1] == pytest.approx(top2 - 2 * S.NAME_HEIGHT / (2 * S.BAR_HEIGHT
                                                                                     + 3 * S.NAME_HEIGHT))


def test_tradeoff_labels_of_coincident_points_go_to_different_sides():
    points = pd.DataFrame({"model": ["a", "b", "c"], "auc": [0.9034, 0.9034, 0.7], "disparity": [0.2, 0.2, 0.1],
                           "auc_ci_low": [0.88, 0.88, 0.6], "auc_ci_high": [0.93, 0.93, 0.8],
                           "disparity_ci_low": [0.1, 0.1, 0.05], "disparity_ci_high": [0.35, 0.35, 0.2]})
    figure = plotting.tradeoff_chart(points, x="auc", y="disparity", bound=0.1)
    positions = [t.textposition for t in figure.data]
    assert positions[0] != positions[1]
    x_low, x_high = figure.layout.xaxis.range
    y_low, y_high = figure.layout.yaxis.range
    assert x_low <= 0.6 and 0.93 <= x_high and y_low <= 0.05 and 0.35 <= y_high


def test_scorecard_vs_baseline_line_under_a_candidates_row():
    """A candidate's row with a change from the baseline in its quantity gets a line under its numbers (the "vs
    baseline" column), coloured by the change's verdict; rows without one are unchanged."""
    from types import SimpleNamespace

    from fairness_core.plotting import _scorecard as S

    verdicts = [verdict(P_PERCENT, 0.61, 0.55, 0.66), verdict(FPR, 0.05, 0.02, 0.08), verdict(FNR, 0.12, 0.05, 0.2)]
    names = [fc.rule_plain_name(v.rule) for v in verdicts]
    worse = SimpleNamespace(worsening=0.0793, status="fail", sentence="m2 against the baseline m1: <b>worse</b>")
    better = SimpleNamespace(worsening=-0.02, status="pass", sentence="m2 against the baseline m1: better")
    figure = plotting.scorecard_chart(verdicts, names, changes=[worse, None, better])
    notes = [a for a in figure.layout.annotations if a.name == "change"]
    assert [(a.text, a.yref, a.font.color) for a in notes] == [
        ("vs baseline: worse by 0.0793 Fail", "y domain", "#D55E00"),
        ("vs baseline: better by 0.02 Pass", "y3 domain", "#009E73")]
    assert figure.layout.height == 3 * (S.BAR_HEIGHT + S.NAME_HEIGHT) + 2 * S.NAME_HEIGHT + 2 * S.MARGIN
    assert "&lt;b&gt;worse&lt;/b&gt;" in figure.data[0].hovertext[0]   # the change's sentence, escaped, on hover
    plain = plotting.scorecard_chart(verdicts, names)
    assert plain.layout.height == 3 * (S.BAR_HEIGHT + S.NAME_HEIGHT) + 2 * S.MARGIN
    assert not [a for a in plain.layout.annotations if a.name == "change"]
    with pytest.raises(ValueError, match="one name per verdict"):
        plotting.scorecard_chart(verdicts, names, changes=[worse])


def test_changes_by_rule_match_a_rules_metric_of_the_whole_model():
    from types import SimpleNamespace

    verdicts = [verdict(P_PERCENT, 0.61, 0.55, 0.66), verdict(FPR, 0.05, 0.02, 0.08), verdict(FNR, 0.12, 0.05, 0.2)]
    change = lambda model, quantity, subgroup=None: SimpleNamespace(model=model, quantity=quantity, subgroup=subgroup)
    p_percent, fnr = change("m2", "p_percent_score"), change("m2", "false_negative_rate")
    changes = [p_percent, change("m2", "false_positive_rate", "A"), change("m3", "false_positive_rate"), fnr,
               change("m2", "subgroup_auc", "A")]
    assert fc.changes_by_rule(verdicts, changes, "m2") == [p_percent, None, fnr]
    assert fc.changes_by_rule(verdicts, changes, "m1") is None   # the baseline: no change of its own
    assert fc.changes_by_rule(verdicts, [], "m2") is None
