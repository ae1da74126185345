"""AppTest: the Data page proposes whether a positive prediction is favourable or adverse for the person and says
so in one sentence; the Rate disparities page's four-fifths rule then compares approval rates; a score that ranks
the other class higher gets a visible warning."""

import json

import fairness_core as fc
from tests.app.helpers import open_section, widget
from tests.app.test_intervals_ui import upload
from tests.fairness_core.test_outcome import credit
from fairness_dashboard.presentation import captions, labels


def test_denial_is_proposed_as_adverse_and_the_four_fifths_rule_compares_approvals(app):
    frame = credit(n=3000, seed=7)
    upload(app, "bank.csv", frame.to_csv(index=False).encode())
    assert not app.exception and not app.error
    widget(app, "selectbox", labels.POSITIVE_LABEL).set_value("yes").run()
    outcome = widget(app, "radio", labels.OUTCOME)
    assert outcome.value == "adverse"
    sentence = next(m.value for m in app.markdown if m.value.startswith("A positive prediction means"))
    assert sentence == captions.outcome_sentence("deny", "yes", "adverse", "the label's name reads like a harm (deny)")
    app.switch_page("pages/rate_disparities.py").run()
    widget(app, "number_input", "Decision threshold").set_value(0.5).run()
    assert not app.exception
    denied = frame["score"] >= 0.5
    approval = (~denied).groupby(frame["race"]).mean()
    by_hand = min(approval["Black"] / approval["White"], approval["White"] / approval["Black"])
    texts = [m.value.replace("\\", "") for m in app.markdown]
    four_fifths = next(t for t in texts if t.startswith((":green-badge", ":red-badge", ":orange-badge"))
                       and "Four-fifths rule on the favourable prediction (not predicted positive): p% score" in t)
    assert f"p% score {by_hand:.3g} " in four_fifths, (four_fifths, by_hand)
    # the equal opportunity score is the ratio of approval rates among applicants labelled "no": true negative rates
    kept = frame["deny"] == "no"
    tnr = (~denied)[kept].groupby(frame["race"][kept]).mean()
    tnr_by_hand = min(tnr["Black"] / tnr["White"], tnr["White"] / tnr["Black"])
    opportunity = next(t for t in texts if "Four-fifths rule on true negative rates (the favourable prediction among "
                                           "people with the favourable label): equal opportunity score" in t)
    assert f"equal opportunity score {tnr_by_hand:.3g} " in opportunity, (opportunity, tnr_by_hand)
    # the explorer judges (and names) the four-fifths rule on approvals too, as the verdict above
    open_section(app, "rates:section", "Threshold explorer")
    rule = widget(app, "selectbox", "Shade where this rule holds")
    adverse = fc.outcome_rule(fc.DEFAULT_RULES[0], "adverse")
    assert adverse.label in rule.options and "Four-fifths rule: p% score >= 0.8" not in rule.options
    rule.set_value("four_fifths").run()
    assert not app.exception
    counts = fc.threshold_counts((frame["deny"] == "yes").to_numpy(), frame["score"].to_numpy(),
                                 fc.Subgroups.from_attributes(frame, ["race"]))
    holds = bool(fc.rule_band(counts, adverse, [0.5], positive_outcome="adverse")["holds"].iloc[0])
    assert holds == (by_hand >= 0.8)
    shaded = next(c.value for c in app.caption if "Shaded: thresholds where" in c.value).replace("\\", "")
    assert f"**{adverse.label}** holds" in shaded
    assert f"at the chosen threshold it **{'holds' if holds else 'does not hold'}**" in shaded
    # the Overview's scorecard names the two scores for what they compare
    app.switch_page("pages/overview.py").run()
    chart = next(el for el in app.main if getattr(el, "type", "") == "plotly_chart")
    rows = [trace["y"][0] for trace in json.loads(chart.proto.spec)["data"]]
    assert rows[:2] == ["Favourable-prediction-rate ratio", "True-negative-rate ratio"]
    app.switch_page("pages/rate_disparities.py").run()
    # Declared favourable instead, the same predictions give the ratio of denial rates.
    app.switch_page("pages/data.py").run()
    widget(app, "radio", labels.OUTCOME).set_value("favourable").run()
    assert any(m.value.startswith("A positive prediction means deny = yes, which is **favourable**")
               for m in app.markdown)


def test_a_score_that_ranks_the_other_class_higher_is_warned_about(app):
    frame = credit(n=2000, seed=8)
    upload(app, "bank.csv", frame.to_csv(index=False).encode())
    widget(app, "selectbox", labels.POSITIVE_LABEL).set_value("no").run()   # the score predicts "yes"
    assert not app.exception
    app.switch_page("pages/subgroup_aucs.py").run()
    assert not app.exception
    warnings = [w.value for w in app.warning]
    assert any(w.startswith("The overall AUC is") and "below 0\\.5" in w and "deny = no" in w for w in warnings), \
        warnings
    app.switch_page("pages/overview.py").run()
    assert not app.exception
    assert any("below 0\\.5" in m.value for m in app.markdown)
