"""AppTest: the Data page proposes whether a positive prediction is favourable or adverse for the person and says
so in one sentence; the Rate disparities page's four-fifths rule then compares approval rates; a score that ranks
the other class higher gets a visible warning (issue 19, item 1)."""

from tests.app.helpers import widget
from tests.app.test_intervals_ui import upload
from tests.fairness_core.test_outcome import credit
from ui import captions, labels


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
    four_fifths = next(m.value.replace("\\", "") for m in app.markdown if "Four\\-fifths rule: p%" in m.value)
    assert f"p% score {by_hand:.3g} " in four_fifths, (four_fifths, by_hand)
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
