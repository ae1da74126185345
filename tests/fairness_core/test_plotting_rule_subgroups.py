"""plotting.rule_subgroups_chart: one facet per rule, each subgroup's value (from the results the verdicts were read
from) with its interval, against the rule's band, the deciding subgroup marked; the values checked against pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_core import plotting

RATES = ("false_positive_rate", "selection_rate")


def _frame(n: int = 1_200, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c", "d"], size=n, p=[0.4, 0.3, 0.2, 0.1])
    y = rng.integers(0, 2, size=n)
    lift = pd.Series(group).map({"a": 0.0, "b": 0.1, "c": 0.25, "d": -0.15}).to_numpy()
    y_pred = (rng.random(n) < 0.35 + lift + 0.2 * y).astype(int)
    return pd.DataFrame({"group": group, "y": y, "y_pred": y_pred})


def _conclusions(frame: pd.DataFrame, ci):
    groups = fc.Subgroups.from_attributes(frame, ["group"], min_size=30)
    counts = fc.confusion_counts(frame["y"].to_numpy(), frame["y_pred"].to_numpy(), groups)
    mapping = fc.ColumnMapping(label="y", positive_label=1, predicted_label="y_pred", protected=("group",))
    return fc.rate_conclusions(counts, mapping, rate_metrics=RATES, distance_measure="diff", reference="rest",
                               ci=ci, n_boot=200, random_state=0)


def _results(concluded) -> list:
    """The result each verdict was read from (as the Overview finds them)."""
    keys = {"p_percent_score": "p_percent", "equal_opportunity_score": "equal_opportunity"}
    return [concluded.results[keys[v.rule.metric]] if v.rule.metric in keys
            else concluded.results["max"][v.rule.metric, v.rule.distance_measure] for v in concluded.verdicts]


def _rest_gap(frame: pd.DataFrame, rate) -> dict:
    """|rate(subgroup) - rate(everyone else)| per subgroup, by pandas."""
    return {g: abs(rate(frame[frame["group"] == g]) - rate(frame[frame["group"] != g]))
            for g in sorted(frame["group"].unique())}


def test_each_facet_carries_every_subgroups_value_and_interval():
    frame = _frame()
    concluded = _conclusions(frame, ci=0.95)
    verdicts, results = concluded.verdicts, _results(concluded)
    names = [fc.rule_plain_name(v.rule) for v in verdicts]
    figure = plotting.rule_subgroups_chart(verdicts, results, names, details=concluded.subjects)
    # one facet per rule: p% score, equal opportunity, the two rates' gaps and equalized odds
    assert [v.rule.metric for v in verdicts] == ["p_percent_score", "equal_opportunity_score", "false_positive_rate",
                                                 "statistical_parity", "equalized_odds"]
    facets = [a for a in figure.layout.annotations if a.name == "facet"]
    assert len(figure.data) == len(facets) == len(verdicts) == 5
    assert [a.text.split("</b>")[0].removeprefix("<b>") for a in facets] == names

    def trace(metric):
        return figure.data[[v.rule.metric for v in verdicts].index(metric)]

    # The gaps, recomputed by pandas: the false positive rate among y == 0, the selection rate over all rows.
    fpr = _rest_gap(frame, lambda d: d.loc[d["y"] == 0, "y_pred"].mean())
    selection = _rest_gap(frame, lambda d: d["y_pred"].mean())
    for metric, expected in (("false_positive_rate", fpr), ("statistical_parity", selection)):
        shown = dict(zip(trace(metric).y, trace(metric).x))
        assert set(shown) == set(expected)
        assert all(shown[g] == pytest.approx(expected[g], abs=1e-12) for g in expected), (metric, shown, expected)
    # The p% score: min(a/b, b/a) of each subgroup's selection rate and everyone else's.
    rates = {g: (frame.loc[frame["group"] == g, "y_pred"].mean(), frame.loc[frame["group"] != g, "y_pred"].mean())
             for g in "abcd"}
    shown = dict(zip(trace("p_percent_score").y, trace("p_percent_score").x))
    assert all(shown[g] == pytest.approx(min(a / b, b / a), abs=1e-12) for g, (a, b) in rates.items())
    # The decider: its value is the verdict's (the largest gap, the smallest score), the one dot in the verdict's
    # colour, its name in bold.
    colours = {"fail": "#D55E00", "inconclusive": "#E69F00", "pass": "#009E73"}
    for verdict, t in zip(verdicts, figure.data):
        ticks = dict(zip(figure.layout[t.yaxis.replace("y", "yaxis")].tickvals,
                         figure.layout[t.yaxis.replace("y", "yaxis")].ticktext))
        bold = [i for i, y in enumerate(t.y) if ticks[y].startswith("<b>")]
        assert len(bold) == 1
        assert t.x[bold[0]] == pytest.approx(verdict.value)
        assert t.marker.color[bold[0]] == colours[verdict.status]
        assert all(c == "#555555" for i, c in enumerate(t.marker.color) if i != bold[0])
    # Each dot's whiskers are its comparison's interval, from the same table.
    table = results[2].table.set_index("subgroup")
    t = trace("false_positive_rate")
    for g, x, plus, minus in zip(t.y, t.x, t.error_x.array, t.error_x.arrayminus):
        assert x + plus == pytest.approx(table.loc[g, "disparity_ci_high"])
        assert x - minus == pytest.approx(table.loc[g, "disparity_ci_low"])
    # The band from parity to the bound, and the bound dashed: [0.8, 1] for scores, [0, 0.1] for gaps.
    bands = [(s.x0, s.x1) for s in figure.layout.shapes if s.type == "rect"]
    assert bands == [(0.8, 1.0), (0.8, 1.0), (0.0, 0.1), (0.0, 0.1), (0.0, 0.1)]
    assert [s.x0 for s in figure.layout.shapes if s.type == "line"] == [0.8, 0.8, 0.1, 0.1, 0.1]


def test_without_intervals_pairwise_and_a_result_without_comparisons():
    frame = _frame(seed=5)
    groups = fc.Subgroups.from_attributes(frame, ["group"], min_size=150)   # d (about 120 rows) is small
    counts = fc.confusion_counts(frame["y"].to_numpy(), frame["y_pred"].to_numpy(), groups)
    pairwise = counts.disparity("false_positive_rate", distance_measure="diff", reduction="max",
                                reference="pairwise", ci=None)
    verdict = fc.evaluate_result(fc.Rule(metric="false_positive_rate", distance_measure="diff", bound=0.1), pairwise)
    alone = fc.evaluate(fc.Rule(metric="bias_auc_score", bound=0.6), 0.7, ci_low=0.65, ci_high=0.75)
    figure = plotting.rule_subgroups_chart([verdict, alone], [pairwise, None], ["<i>FPR</i>", "Bias AUC score"],
                                           details=["", "all subgroups"])
    # six pairs of four subgroups, named "A vs B"; no interval, so no whiskers
    assert len(figure.data[0].y) == 6 and all(" vs " in y for y in figure.data[0].y)
    assert figure.data[0].error_x.array is None
    # the pairs with a small subgroup (d by its rows, c by its actual negatives; left out of the largest gap) are
    # open and faded
    small = pairwise.table["small"].tolist()
    assert sum(small) == 5 and not small[list(figure.data[0].y).index("a vs b")]
    assert [o < 1 for o in figure.data[0].marker.opacity] == small
    assert [s == "circle-open" for s in figure.data[0].marker.symbol] == small
    fpr = {g: frame.loc[(frame["group"] == g) & (frame["y"] == 0), "y_pred"].mean() for g in "abcd"}
    for label, x in zip(figure.data[0].y, figure.data[0].x):
        a, b = label.split(" vs ")
        assert x == pytest.approx(abs(fpr[a] - fpr[b]), abs=1e-12)
    # a result without comparisons: one row, the verdict's own value and interval
    assert list(figure.data[1].y) == ["all subgroups"] and list(figure.data[1].x) == [0.7]
    assert figure.data[1].error_x.array[0] == pytest.approx(0.05)
    assert "&lt;i&gt;FPR&lt;/i&gt;" in figure.layout.annotations[0].text   # escaped
    with pytest.raises(ValueError, match="one result and one name per verdict"):
        plotting.rule_subgroups_chart([verdict], [], ["x"])
