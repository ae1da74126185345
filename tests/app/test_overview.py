"""AppTest: the Overview page lists the data in brief, every policy verdict and every page's findings,
computed with each page's own settings and identical to what the pages show."""

import json
import re

import fairness_core as fc
import pytest

from tests.app.helpers import figures, metrics, widget
from tests.app.test_intervals_ui import (AUC_PAGE, RATE_PAGE, compas_counts, findings, load_compas, unescape,
                                         verdicts)
from fairness_dashboard.presentation import captions

OVERVIEW = "pages/overview.py"


def page_links(app) -> list:
    return [el.proto.label for el in app.get("page_link")]


def bullets(markdown: str) -> list:
    return [unescape(line[2:]) for line in markdown.split("\n") if line.startswith("- ")]


def test_overview_on_compas_shows_the_rate_page_verdicts_and_findings(app, compas_csv):
    frame = load_compas(app, compas_csv)
    rate_verdicts = verdicts(app)
    rate_findings = findings(app)
    app.switch_page(OVERVIEW).run()
    assert not app.exception and not app.error
    shown = metrics(app)
    assert shown["Rows analysed"] == f"{len(frame):,}" and shown["Subgroups"] == str(frame["race"].nunique())
    # Native American (18 rows) is the one subgroup below 30 rows.
    assert any(c.value.startswith("1 of 6 subgroups are smaller than 30 rows; they hold 18 of 7,214 rows (0.2 %)")
               for c in app.caption)
    # The same verdicts (status and sentence) as on the Rate disparities page, with its link.
    shown_verdicts = verdicts(app)
    assert {k: shown_verdicts[k] for k in rate_verdicts} == rate_verdicts and len(rate_verdicts) >= 5
    # ... and the Dataset metrics verdict, at its page's defaults (difference of base rates <= 0.1).
    labels = compas_counts(frame)[2]
    parity = fc.dataset_statistical_parity(frame["two_year_recid"], labels, reduction="max", ci=0.95)
    expected = fc.evaluate_result(fc.Rule(metric="dataset_statistical_parity", distance_measure="diff", bound=0.1),
                                  parity)
    assert captions.verdict_markdown(expected) in [md.value for md in app.markdown]
    assert set(shown_verdicts) == set(rate_verdicts) | {"Base rate disparity of the labels (difference)"}
    assert {"Data: columns, exclusions and subgroups", "Subgroup AUCs", "Rate disparities"} <= set(page_links(app))
    # The findings of both pages; the rate findings name African-American and the false positive rate.
    panel = [md.value for md in app.markdown if md.value.startswith("- ")]
    assert rate_findings in panel
    first = bullets(rate_findings)[0]
    assert "African-American" in first and "false positive rate" in first
    _, _, _, counts = compas_counts(frame)
    adverse = fc.ColumnMapping(label="two_year_recid", positive_label=1, positive_outcome="adverse")   # guessed
    # six races against the rest: more than 5 comparisons, so the Automatic adjustment is simultaneous (max-t)
    expected = fc.rate_findings(counts, ["false_positive_rate", "false_negative_rate"], reference="rest", ci=0.95,
                                n_boot=1000, random_state=0, adjust="max_t", limit=3, **fc.outcome_words(adverse))
    assert bullets(rate_findings)[: len(expected)] == [f.sentence for f in expected]
    tally = next(md.value for md in app.markdown if "across" in md.value and md.value.startswith("**"))
    # The model's rules are counted; the labels' rule (base rates) is listed apart and not counted.
    statuses = [s.lower() for name, (s, _) in shown_verdicts.items() if not name.startswith("Base rate")]
    counts_text = ", ".join(f"{statuses.count(s)} {s}" for s in ("pass", "fail", "inconclusive", "not assessable")
                            if statuses.count(s))
    assert tally.startswith(f"**{counts_text}** across the model's {len(statuses)} rules.")
    assert any(md.value.startswith("**Rules about the labels**") for md in app.markdown)


def test_overview_follows_each_page_settings(app, compas_csv):
    frame = load_compas(app, compas_csv)
    widget(app, "selectbox", "Distance").set_value("ratio").run()
    app.switch_page(AUC_PAGE).run()
    widget(app, "checkbox", "Require a minimum bias AUC score").set_value(True).run()
    widget(app, "number_input", "Minimum bias AUC score").set_value(0.6).run()
    assert not app.exception
    auc_verdicts = verdicts(app)
    y = frame["two_year_recid"].to_numpy()
    groups = fc.Subgroups.from_attributes(frame, ["race"], intersect=True, min_size=30)
    table = fc.bias_auc_table(y, frame["decile_score"].to_numpy(dtype=float), groups, ci=0.95, n_boot=1000,
                              random_state=0)
    result = fc.summarize_bias_auc(table, p=-5.0, overall_weight=0.25)
    expected = fc.evaluate_result(fc.Rule(metric="bias_auc_score", bound=0.6), result)
    assert [captions.verdict_markdown(expected)] == [md.value for md in app.markdown if md.value.startswith(":")
                                                 and "bias auc score" in md.value.lower()]
    assert expected.status == ("pass" if result.ci_low >= 0.6 else "inconclusive")
    app.switch_page(OVERVIEW).run()
    assert not app.exception
    shown = verdicts(app)
    assert set(auc_verdicts) <= set(shown)
    # the rate page's ratio distance carried over: no rate is judged against a difference bound
    assert not any("rate disparity (difference)" in k for k in shown)
    assert any(k.startswith("False positive rate band") for k in shown)


def test_overview_without_intervals_says_so(app):
    widget(app, "checkbox", "Show intervals").set_value(False).run()
    app.switch_page(OVERVIEW).run()
    assert not app.exception
    assert any("Intervals are off" in i.value for i in app.info)
    shown = verdicts(app)
    assert shown and all("no interval was available" in sentence for _, sentence in shown.values())


def test_base_rate_tiles_carry_the_wilson_interval(app, compas_csv):
    from statsmodels.stats.proportion import proportion_confint

    frame = load_compas(app, compas_csv)
    k, n = int(frame["two_year_recid"].sum()), len(frame)
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    expected = f"{k:,} of {n:,} rows positive · 95 % CI {low:.3f}–{high:.3f} (Wilson)"
    for page in ("pages/data.py", OVERVIEW):
        app.switch_page(page).run()
        assert not app.exception
        assert expected in [c.value for c in app.caption], page



# Plain names (the bottom line's) of the rules of the Rate disparities page, and the start of their technical ones.
# COMPAS's positive label (recidivism) is guessed adverse: the two ratio scores compare the favourable prediction.
_TECHNICAL = {"favourable-prediction-rate ratio": "Four-fifths rule on the favourable prediction",
              "true-negative-rate ratio": "Four-fifths rule on true negative rates",
              "gap in false positive rates": "False positive rate disparity",
              "gap in false negative rates": "False negative rate disparity",
              "gap in true or false positive rates (equalized odds)": "Equalized odds disparity"}


# The bottom line's first words name the model: "**Bottom line for decile\_score.** Fails ...".
LEAD = re.compile(r"^\*\*Bottom line for (.+?)\.\*\* ")


def test_overview_opens_with_the_bottom_line_and_the_scorecard(app, compas_csv):
    """Above everything else: one or two plain sentences in one paragraph, then one scorecard row per rule of the
    model; the labels' sentence after the scorecard, under "About the labels"; the Compare models toggle below."""
    frame = load_compas(app, compas_csv)
    app.switch_page(OVERVIEW).run()
    assert not app.exception and not app.error
    main = list(app.main)
    heading = next(i for i, el in enumerate(main) if LEAD.match(getattr(el, "value", None) or ""))
    assert heading == next(i for i, el in enumerate(main) if getattr(el, "type", "") == "markdown")  # first text
    assert unescape(LEAD.match(main[heading].value).group(1)) == "decile_score"
    text = unescape(LEAD.sub("", main[heading].value))
    assert "\n" not in text   # one paragraph: the answer fits one screen
    shown = verdicts(app)   # the full list (collapsed below): {name: (status, sentence)}
    model = {name: status for name, (status, _) in shown.items() if not name.startswith("Base rate")}
    failing = [name for name, status in model.items() if status == "Fail"]
    _, _, groups, counts = compas_counts(frame)
    if failing:
        assert text.startswith(f"Fails {len(failing)} of {len(model)} rules: ")
    else:
        assert text.startswith(("Passes every rule", "No rule fails"))
    first = [name for name in model][0]
    assert first.startswith("Four-fifths rule") and model[first] == "Fail"   # listed first, in full, with whom
    p_percent = counts.favourable("adverse").ratio_scores("selection_rate", ci=None)
    assert (f"the favourable-prediction-rate ratio is {p_percent.value:.3g} for {p_percent.worst} against everyone "
            "else, below the minimum of 0.8") in text
    # ... and every failing rule is named (after the first two, by name only)
    for name in ("favourable-prediction-rate ratio", "true-negative-rate ratio", "gap in false positive rates",
                 "gap in false negative rates", "gap in true or false positive rates (equalized odds)"):
        assert (name in text) == any(n.startswith(_TECHNICAL[name]) for n in failing), name
    undecided = [name for name, status in model.items() if status == "Inconclusive"]
    if undecided:
        assert f". {len(undecided)} rule" in text and "cannot be decided" in text
    # The scorecard right below: one row per model rule, in the verdicts' order, coloured by verdict.
    chart = next(i for i, el in enumerate(main) if getattr(el, "type", "") == "plotly_chart")
    assert chart == heading + 1
    scorecard = main[chart]
    # COMPAS's base rates differ by race by more than 0.1: said after the scorecard, as a property of the labels (the
    # same for every model), not in the model's bottom line; then the Compare models toggle (not drawn here: COMPAS
    # has one score).
    assert "The labels themselves" not in text
    texts = [unescape(getattr(el, "value", "") or "") for el in main[chart:]]
    about = texts.index("**About the labels** (a property of the data, not of the model; not counted above)")
    assert texts[about + 1].startswith("The labels themselves differ between subgroups: the gap in base rates of the "
                                       "labels is ")
    assert texts[about + 1].endswith("This is a property of the data, not of the model.")
    figure = json.loads(scorecard.proto.spec)
    rows = [trace["y"][0] for trace in figure["data"]]
    assert len(rows) == len(model)
    assert rows[:2] == ["Favourable-prediction-rate ratio", "True-negative-rate ratio"]
    assert "Gap in true or false positive rates (equalized odds)" in rows
    colours = {"Fail": "#D55E00", "Inconclusive": "#E69F00", "Pass": "#009E73", "Not assessable": "#7F7F7F"}
    assert [t["marker"]["color"] for t in figure["data"]] == [colours[s] for s in model.values()]
    # The details are there, collapsed.
    assert {"Policy verdicts in full", "Findings of every page"} <= {e.label for e in app.expander}


def bottom_lines(app) -> dict:
    """{model: (its bottom line's Markdown, its scorecard's row labels)} in the order shown."""
    main = list(app.main)
    out = {}
    for i, el in enumerate(main):
        lead = LEAD.match(getattr(el, "value", None) or "") if getattr(el, "type", "") == "markdown" else None
        if lead:
            chart = next(c for c in main[i + 1:] if getattr(c, "type", "") == "plotly_chart")
            out[unescape(lead.group(1))] = (LEAD.sub("", el.value),
                                            [t["y"][0] for t in json.loads(chart.proto.spec)["data"]])
    return out


def test_compare_models_gives_each_model_its_own_bottom_line_and_scorecard(app):
    """On the credit sample (two scores): with Compare models on, a tab per model (the sidebar's Model first),
    each the very bottom line and scorecard the Overview shows when that model is the one picked."""
    app.switch_page(OVERVIEW).run()
    # the toggle sits below the answer (bottom line, scorecard), which fills the first screen
    kinds = [getattr(el, "type", "") for el in app.main]
    assert kinds.index("plotly_chart") < [i for i, el in enumerate(app.main)
                                          if getattr(el, "label", "") == "Compare models"][0]
    alone = {}
    for model in ("score_logistic", "score_boosting"):
        widget(app, "selectbox", "Model").set_value(model).run()
        assert not app.exception
        alone.update(bottom_lines(app))
    assert list(alone) == ["score_logistic", "score_boosting"] and alone["score_logistic"] != alone["score_boosting"]
    widget(app, "toggle", "Compare models").set_value(True).run()
    assert not app.exception and not app.error
    assert [unescape(t.label) for t in app.tabs][:2] == ["score_boosting", "score_logistic"]   # the picked model first
    assert bottom_lines(app) == {"score_boosting": alone["score_boosting"], "score_logistic": alone["score_logistic"]}


def test_each_rule_per_subgroup_opens_below_the_scorecard(app):
    """On the credit sample: "Each rule per subgroup", collapsed and not drawn until opened, then one facet per row of
    the scorecard, each subgroup's value behind the row, the deciding subgroup's the scorecard's value."""
    from fairness_dashboard.session import state

    app.switch_page(OVERVIEW).run()
    assert not app.exception
    assert "Each rule per subgroup" in [e.label for e in app.expander]
    (scorecard,) = figures(app)   # collapsed: not drawn
    app.session_state[f"{state.RULE_SUBGROUPS_OPEN}:score_logistic"] = True
    app.run()
    assert not app.exception and not app.error
    first, view = figures(app)
    assert first == scorecard
    rows = [t["y"][0] for t in scorecard["data"]]
    facets = [a for a in view["layout"]["annotations"] if a.get("name") == "facet"]
    assert len(view["data"]) == len(facets) == len(rows) == 6   # 2 ratio scores, 3 gaps, calibration
    assert [re.match(r"<b>(.*?)</b>", a["text"]).group(1) for a in facets] == rows
    subgroups = {"Group A", "Group B", "Group C", "Group D", "Group E"}   # the sample's subgroups (ethnicity)
    for row, panel in zip(scorecard["data"], view["data"]):
        assert set(panel["y"]) == subgroups
        axis = view["layout"]["yaxis" + panel["yaxis"][1:]]
        decides = [x for x, tick in zip(panel["x"], axis["ticktext"]) if tick.startswith("<b>")]
        assert decides == [pytest.approx(row["x"][0])]   # the largest gap, the smallest ratio score
    assert any(c.value.startswith("One panel per row of the scorecard") for c in app.caption)
