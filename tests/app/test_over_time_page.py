"""AppTest: the Over time page shows what ``fairness_core.over_time`` computes on the bundled credit sample (its
decision_date column mapped), the planted drop of Group B's selection rate as a pandas count sees it, how to map a
time column when none is, a refusal of too many periods, and data text (a column and subgroup made of markup, with
integer times) escaped in every sentence and chart."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

import fairness_core as fc
from fairness_core.plotting import plot_text
from tests.app.helpers import figures, plotly_array, start, widget
from tests.app.test_intervals_ui import upload
from fairness_dashboard.data import loading
from fairness_dashboard.presentation import escape, formats
from fairness_dashboard.sections import over_time as section
from fairness_dashboard.sections import over_time_charts as charts_module

PAGE = "pages/over_time.py"
CREDIT = loading.SAMPLE_DIR / loading.SAMPLES["credit"]["file"]
MODEL = "score_logistic"


def _series(figure: dict) -> dict:
    """The value trace of a rule's chart (the one with error bars): its y values and interval ends."""
    trace = next(t for t in figure["data"] if "error_y" in t and t.get("mode") == "lines+markers")
    y = plotly_array(trace["y"])
    return {"value": y, "high": y + plotly_array(trace["error_y"]["array"]),
            "low": y - plotly_array(trace["error_y"]["arrayminus"])}


def _owner(rule) -> str:
    """The model a rule of the page belongs to: the labels' base-rate rule, or the sidebar's model's."""
    return "labels" if rule.metric == "dataset_statistical_parity" else MODEL


def _open(at=None):
    at = at or start()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def test_every_rule_chart_and_sentence_equal_a_direct_over_time_call():
    at = _open()
    frame = fc.read_table(CREDIT)
    direct = fc.over_time(frame, fc.ReviewConfig(mapping=loading.SAMPLES["credit"]["mapping"], ci=0.95),
                          period="month")
    charts = figures(at)
    rules = [v.rule for v in next(r for r in direct.models[MODEL] if r is not None).verdicts]
    rules += [v.rule for v in next(c for c in direct.labels if c is not None).verdicts]
    assert len(charts) == 1 + len(rules) + 1   # the verdict strip, one chart per rule, the subgroups' rates
    for rule, chart in zip(rules, charts[1:]):
        expected = direct.series(rule.name, _owner(rule))
        shown = _series(chart)
        np.testing.assert_allclose(shown["value"], expected["value"].to_numpy(float), rtol=1e-12, equal_nan=True)
        np.testing.assert_allclose(shown["low"], expected["ci_low"].to_numpy(float), rtol=1e-9, atol=1e-12,
                                   equal_nan=True)
        np.testing.assert_allclose(shown["high"], expected["ci_high"].to_numpy(float), rtol=1e-9, atol=1e-12,
                                   equal_nan=True)
    # The strip: each status's squares are the periods the direct call gives that status, per rule.
    strip = charts[0]
    for trace in strip["data"]:
        status = next(s for s, w in section.labels.STATUS_WORDS.items() if w == trace["name"])
        shown = sorted(zip(trace["y"], trace["x"]))
        expected = sorted((charts_module.strip_label(rule), str(start)[:10]) for rule in rules
                          for start, s in zip(direct.periods["start"], direct.series(rule.name, _owner(rule))["status"])
                          if s == status)
        assert [(name, x[:10]) for name, x in shown] == expected, status
    # The sentences: the first month the four-fifths rule failed, and its trend, as the direct call says.
    text = " ".join(m.value for m in at.markdown)
    assert direct.first_failure("four_fifths", MODEL) == "2024-08"
    assert f"first failed in **{escape.md('2024-08')}**" in text
    trend = direct.trend("four_fifths", MODEL)
    assert trend.ci_high < 0 and f"{formats.num(trend.slope, 3)} per month" in text
    assert "falls (worsening)" in text


def test_a_model_and_period_change_show_what_the_full_call_computes():
    """The page computes the chosen model and the labels alone, verdicts only, memoized apart: after a model change,
    a period change and a change back, every rule chart equals the full ``fc.over_time`` call of every model."""
    at = _open()
    frame = fc.read_table(CREDIT)
    config = fc.ReviewConfig(mapping=loading.SAMPLES["credit"]["mapping"], ci=0.95)
    full = {p: fc.over_time(frame, config, period=p) for p in ("month", "quarter")}
    for model, period in (("score_boosting", "month"), ("score_boosting", "quarter"), (MODEL, "quarter"),
                          (MODEL, "month")):
        picker = next(w for w in at.main.selectbox if w.label == "Model")
        if picker.value != model:
            picker.set_value(model).run()
        if widget(at, "selectbox", "Period").value != period:
            widget(at, "selectbox", "Period").set_value(period).run()
        assert not at.exception and not at.error
        direct = full[period]
        rules = [(model, v.rule) for v in next(r for r in direct.models[model] if r is not None).verdicts]
        rules += [("labels", v.rule) for v in next(c for c in direct.labels if c is not None).verdicts]
        charts = figures(at)
        assert len(charts) == 1 + len(rules) + 1, (model, period)
        for (owner, rule), chart in zip(rules, charts[1:]):
            expected = direct.series(rule.name, owner)
            shown = _series(chart)
            np.testing.assert_allclose(shown["value"], expected["value"].to_numpy(float), rtol=1e-12, equal_nan=True)
            np.testing.assert_allclose(shown["low"], expected["ci_low"].to_numpy(float), rtol=1e-9, atol=1e-12,
                                       equal_nan=True)
        text = " ".join(m.value for m in at.markdown)
        first = direct.first_failure("four_fifths", model)
        assert (f"first failed in **{escape.md(first)}**" if first else "never failed across its whole interval") \
            in text


def test_the_planted_drop_of_group_b_equals_a_pandas_count():
    at = _open()
    frame = pd.read_csv(CREDIT)
    rates = figures(at)[-1]
    trace = next(t for t in rates["data"] if t["name"] == "Group B" and t.get("mode") == "lines+markers")
    shown = plotly_array(trace["y"])
    b = frame.loc[frame["ethnicity"] == "Group B"]
    month = b["decision_date"].str[:7]
    selected = (b["score_logistic"] >= 0.5).groupby(month).agg(["mean", "size"])
    expected = np.where(selected["size"] >= 30, selected["mean"], np.nan)   # small months are off the line
    np.testing.assert_allclose(shown, expected, rtol=1e-12, equal_nan=True)
    # the drop over the last six months, as the generator planted it
    np.testing.assert_allclose(selected["mean"].iloc[-6:].to_numpy(), [28 / 46, 25 / 48, 22 / 49, 15 / 43,
                                                                         13 / 46, 10 / 50])


def test_without_a_time_column_the_page_says_how_to_map_one():
    at = start()
    at.switch_page("pages/data.py").run()
    widget(at, "selectbox", "Time column").set_value(None).run()
    assert not at.exception and at.session_state["mapping"].time is None
    at = _open(at)
    assert any(section.NO_TIME_MESSAGE == i.value for i in at.info), [i.value for i in at.info]
    assert not figures(at)


def test_too_many_periods_are_refused_with_a_message():
    at = _open()
    widget(at, "selectbox", "Period").set_value("day").run()
    assert not at.exception and not at.error
    expected = section.TOO_MANY_MESSAGE.format(word="day", column=escape.md("decision_date"), n=731,
                                               limit=section.MAX_PERIODS)
    assert [w.value for w in at.warning] == [expected]
    assert not figures(at)


def test_markup_in_the_time_column_and_subgroups_is_escaped_with_integer_periods():
    column, group = "<img src=x onerror=alert(1)>*week*", "[click](http://evil.example)"
    rng = np.random.default_rng(3)
    n = 1200
    frame = pd.DataFrame({"y_true": rng.integers(0, 2, n), "score": rng.random(n).round(4),
                          "sex": rng.choice([group, "plain"], n), column: rng.integers(1, 5, n)})
    at = start()
    upload(at, "hostile.csv", frame.to_csv(index=False).encode())
    widget(at, "selectbox", "Time column").set_value(column).run()
    assert not at.exception and at.session_state["mapping"].time == column
    at = _open(at)
    period = widget(at, "selectbox", "Period")
    assert period.options == ["Each value of the time column"]
    caption = next(c.value for c in at.caption if c.value.startswith("4 periods"))
    assert escape.md(column) in caption and column not in caption
    shown = json.dumps(figures(at), ensure_ascii=False)
    assert "<img" not in shown and "http://" not in shown
    assert plot_text(group) in shown
    direct = fc.over_time(frame, fc.ReviewConfig(mapping=at.session_state["mapping"], ci=0.95), period=None)
    assert list(direct.periods["period"]) == ["1", "2", "3", "4"]
    value = _series(figures(at)[1])["value"]
    np.testing.assert_allclose(value, direct.series("four_fifths", "score")["value"].to_numpy(float), rtol=1e-12)
