"""AppTest: performance at the threshold, the threshold explorer (curves, band, slider), per-subgroup thresholds
and per-model thresholds on the Rate disparities page, checked against thresholding the rows with numpy/sklearn."""

import base64

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, precision_score, recall_score

import fairness_core as fc
from tests.app.helpers import ROOT, as_shown, figures, metrics, open_section, widget
from fairness_dashboard.presentation import formats

PAGE = "pages/rate_disparities.py"
CREDIT = pd.read_csv(ROOT / "sample_data" / "credit_decisions.csv")
Y = CREDIT["repaid"].to_numpy()
GROUPS = CREDIT["ethnicity"].to_numpy()
NAMES = sorted(set(GROUPS))
# rate -> (numerator cells, denominator cells) of sklearn's confusion matrix (tn, fp, fn, tp)
CELLS = {"false_positive_rate": (("fp",), ("fp", "tn")), "false_negative_rate": (("fn",), ("fn", "tp")),
         "selection_rate": (("fp", "tp"), ("tn", "fp", "fn", "tp")), "true_positive_rate": (("tp",), ("tp", "fn"))}


def cells(y, pred) -> dict:
    tn, fp, fn, tp = confusion_matrix(y, pred, labels=[0, 1]).ravel()
    return {"tn": tn, "fp": fp, "fn": fn, "tp": tp}


def rate(y, pred, metric: str) -> float:
    c = cells(y, pred)
    num, den = (sum(c[k] for k in part) for part in CELLS[metric])
    return num / den if den else np.nan


def array(value) -> np.ndarray:
    """A Plotly trace's x or y as numbers (plotly writes numpy arrays as base64 typed arrays)."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"])).astype(np.float64)
    return np.asarray([np.nan if v is None else v for v in value], dtype=np.float64)


def explorer_figure(at) -> dict | None:
    """The explorer's chart (one figure, a panel per rate), or None when it is not drawn."""
    found = [f for f in figures(at) if "across thresholds" in f["layout"].get("title", {}).get("text", "")]
    assert len(found) <= 1, len(found)
    return found[0] if found else None


def panels(figure: dict) -> dict:
    """The explorer's panels by their titles: 'False positive rate' -> {trace name: trace} (the lines)."""
    titles = [a["text"] for a in figure["layout"]["annotations"] if a.get("yref") == "paper"]
    out = {title: {} for title in titles}
    for trace in figure["data"]:
        if trace.get("mode") == "lines":
            axis = trace.get("xaxis", "x")
            out[titles[0 if axis == "x" else int(axis[1:]) - 1]][trace["name"]] = trace
    return out


def threshold_lines(figure: dict) -> list:
    """The x of each panel's chosen-threshold line."""
    return [s["x0"] for s in figure["layout"]["shapes"] if s["type"] == "line"]


def table_with(at, column: str) -> pd.DataFrame:
    found = [d.value for d in at.dataframe if column in d.value.columns]
    assert len(found) == 1, [list(d.value.columns) for d in at.dataframe]
    return found[0]


EXPLORER, PERFORMANCE, TABLES = "Threshold explorer", "Performance at the threshold", "Tables"


def section(app, title: str):
    """Open the Rate disparities section `title` (only the open one is drawn)."""
    return open_section(app, "rates:section", title)


def rates_page(app, score: str = "score_logistic", opened: str = EXPLORER):
    app.session_state["keep:rates:section"] = opened
    app.switch_page(PAGE).run()
    if widget(app, "selectbox", "Model").value != score:
        widget(app, "selectbox", "Model").set_value(score).run()
    widget(app, "radio", "Predictions from").set_value(f"score:{score}").run()
    assert not app.exception
    return app


def test_explorer_curves_equal_thresholding_the_rows(app):
    rates_page(app)
    widget(app, "number_input", "Decision threshold").set_value(0.43).run()
    figure = explorer_figure(app)
    assert figure["layout"]["title"]["text"] == "Rates across thresholds"
    charts = panels(figure)
    assert list(charts) == ["False positive rate", "False negative rate"]   # one panel per rate, in page order
    score = CREDIT["score_logistic"].to_numpy()
    rng = np.random.default_rng(0)
    for title, metric in (("False positive rate", "false_positive_rate"),
                          ("False negative rate", "false_negative_rate")):
        traces = charts[title]
        # in the page's order, all rows last (the order itself: tests/app/test_review_extras_app.py)
        assert sorted(traces) == sorted([*NAMES, "All rows"]) and list(traces)[-1] == "All rows"
        x = array(traces["All rows"]["x"])
        assert len(x) == 101   # the fixed grid, whatever the threshold (the chosen one is marked by a line)
        assert np.all(np.diff(x) > 0) and x[0] == score.min() and x[-1] == score.max()
        picks = np.sort(rng.choice(len(x), 20, replace=False))
        for name, trace in traces.items():
            xs, ys = array(trace["x"]), array(trace["y"])
            np.testing.assert_array_equal(xs, x)
            rows = slice(None) if name == "All rows" else GROUPS == name
            expected = [rate(Y[rows], score[rows] >= t, metric) for t in x[picks]]
            np.testing.assert_allclose(ys[picks], expected, rtol=0, atol=1e-12, err_msg=f"{title}: {name}")
    # a subgroup has one legend entry for its lines in every panel
    legend = [t["name"] for t in figure["data"] if t.get("mode") == "lines" and t.get("showlegend", True)]
    assert sorted(legend) == sorted([*NAMES, "All rows"])
    # the chosen threshold is drawn as a line in each panel
    lines = [s for s in figure["layout"]["shapes"] if s["type"] == "line"]
    assert [(s["x0"], s["x1"], s["xref"]) for s in lines] == [(0.43, 0.43, "x"), (0.43, 0.43, "x2")]
    # Another threshold moves the lines alone: the same curves (the memoized figure, with the new lines)
    widget(app, "number_input", "Decision threshold").set_value(0.47).run()
    moved = explorer_figure(app)
    assert moved["data"] == figure["data"]
    assert threshold_lines(moved) == [0.47, 0.47]


def test_band_shades_where_the_rule_holds(app):
    rates_page(app)
    figure = explorer_figure(app)
    rule = widget(app, "selectbox", "Shade where this rule holds")
    assert rule.value == "false_positive_rate_diff_max_0.1"
    rects = [(s["x0"], s["x1"]) for s in figure["layout"]["shapes"] if s["type"] == "rect" and s["xref"] == "x"]
    assert rects
    # the same band in the second panel
    assert rects == [(s["x0"], s["x1"]) for s in figure["layout"]["shapes"] if s["type"] == "rect" and s["xref"] == "x2"]
    score = CREDIT["score_logistic"].to_numpy()
    x = array(panels(figure)["False positive rate"]["All rows"]["x"])
    for t in x[:: max(1, len(x) // 20)][:20]:
        pred = score >= t
        worst = -np.inf
        for name in NAMES:  # max |FPR(g) - FPR(rest)| over comparisons that are not small (min size 30)
            g, rest = GROUPS == name, GROUPS != name
            neg_g, neg_rest = int((Y[g] == 0).sum()), int((Y[rest] == 0).sum())
            if g.sum() < 30 or 0 < neg_g < 30 or 0 < neg_rest < 30:
                continue
            worst = max(worst, abs(rate(Y[g], pred[g], "false_positive_rate")
                                   - rate(Y[rest], pred[rest], "false_positive_rate")))
        shaded = any(a <= t <= b for a, b in rects)
        assert shaded == (worst <= 0.1), (t, worst)


def test_performance_table_equals_sklearn_at_the_threshold(app):
    rates_page(app, opened=TABLES)
    widget(app, "number_input", "Decision threshold").set_value(0.62).run()
    score = CREDIT["score_logistic"].to_numpy()
    pred = (score >= 0.62).astype(int)
    rates = table_with(app, "false_omission_rate")
    table = table_with(section(app, PERFORMANCE), "f1")
    assert table["subgroup"].iloc[0] == "All rows"
    assert list(table["subgroup"].iloc[1:]) == list(rates["subgroup"])  # the page's order
    for _, row in table.iterrows():
        rows = slice(None) if row["subgroup"] == "All rows" else GROUPS == row["subgroup"]
        y, p = Y[rows], pred[rows]
        assert {k: int(row[k]) for k in ("tn", "fp", "fn", "tp")} == cells(y, p)
        for column, func in (("accuracy", accuracy_score), ("precision", precision_score),
                             ("recall", recall_score), ("f1", f1_score)):
            assert row[column] == pytest.approx(func(y, p), abs=1e-12), (row["subgroup"], column)
            assert row[f"{column}_ci_low"] <= row[column] <= row[f"{column}_ci_high"]
        assert row["selection_rate"] == pytest.approx(p.mean(), abs=1e-12)
    shown = metrics(app)
    for label, func in (("Accuracy", accuracy_score), ("Precision", precision_score), ("Recall", recall_score),
                        ("F1", f1_score)):
        assert float(shown[label]) == as_shown(func(Y, pred))


def test_performance_of_the_given_predictions_and_no_explorer(app):
    app.session_state["keep:rates:section"] = PERFORMANCE
    app.switch_page(PAGE).run()
    widget(app, "radio", "Predictions from").set_value("given").run()
    assert not app.exception
    table = table_with(app, "f1")
    pred = CREDIT["approved"].to_numpy()
    row = table[table["subgroup"] == "Group B"].iloc[0]
    g = GROUPS == "Group B"
    assert row["f1"] == pytest.approx(f1_score(Y[g], pred[g]), abs=1e-12)
    section(app, EXPLORER)
    assert explorer_figure(app) is None
    assert not [s for s in app.slider if s.label == "Move the threshold"]
    assert any("choose **Predictions from** the score" in c.value for c in app.caption)


def test_slider_and_number_input_move_the_same_threshold(app):
    rates_page(app)
    slider = widget(app, "slider", "Move the threshold")
    assert slider.value == 0.5 and slider.min == 0.02 and slider.max == 1.0 and slider.step == 0.01
    slider.set_value(0.65).run()
    assert widget(app, "number_input", "Decision threshold").value == 0.65
    assert widget(app, "slider", "Move the threshold").value == 0.65
    score = CREDIT["score_logistic"].to_numpy()
    # the slider moved the page's predictions: the headline tiles and the performance follow it
    assert metrics(app)["False positive rate disparity (max)"] == formats.tile(
        fc.false_positive_rate_disparity(Y, (score >= 0.65).astype(int), GROUPS, reduction="max").value)
    assert metrics(section(app, PERFORMANCE))["Accuracy"] == formats.tile(accuracy_score(Y, score >= 0.65)) != \
        formats.tile(accuracy_score(Y, score >= 0.5))
    section(app, EXPLORER)
    assert threshold_lines(explorer_figure(app)) == [0.65, 0.65]
    widget(app, "number_input", "Decision threshold").set_value(0.337).run()
    assert widget(app, "slider", "Move the threshold").value == 0.337
    # a threshold typed outside the score's range widens the slider to it
    widget(app, "number_input", "Decision threshold").set_value(1.2).run()
    assert not app.exception
    assert (widget(app, "slider", "Move the threshold").value, widget(app, "slider", "Move the threshold").max) == \
        (1.2, 1.2)


def test_each_model_keeps_its_own_threshold(app):
    rates_page(app, "score_logistic")
    widget(app, "number_input", "Decision threshold").set_value(0.3).run()
    assert widget(app, "slider", "Move the threshold").value == 0.3
    widget(app, "selectbox", "Model").set_value("score_boosting").run()
    assert widget(app, "number_input", "Decision threshold").value == 0.5
    assert widget(app, "slider", "Move the threshold").value == 0.5
    widget(app, "slider", "Move the threshold").set_value(0.7).run()
    assert widget(app, "number_input", "Decision threshold").value == 0.7
    widget(app, "selectbox", "Model").set_value("score_logistic").run()
    assert widget(app, "number_input", "Decision threshold").value == 0.3
    assert widget(app, "slider", "Move the threshold").value == 0.3
    widget(app, "selectbox", "Model").set_value("score_boosting").run()
    assert widget(app, "number_input", "Decision threshold").value == 0.7
    # and through a page switch
    app.switch_page("pages/calibration.py").run()
    app.switch_page(PAGE).run()
    assert widget(app, "number_input", "Decision threshold").value == 0.7
    assert widget(app, "slider", "Move the threshold").value == 0.7


def test_a_threshold_change_does_not_recount_the_grid(app, monkeypatch):
    calls = []
    original = fc.threshold_curves

    def counted(tc, metrics, thresholds=None, **kw):
        calls.append(len(thresholds))
        return original(tc, metrics, thresholds, **kw)

    monkeypatch.setattr(fc, "threshold_curves", counted)
    rates_page(app)
    assert 101 in calls
    calls.clear()
    for t in (0.41, 0.57, 0.6):
        widget(app, "number_input", "Decision threshold").set_value(t).run()
    assert calls == []  # the curves are the grid's, from the memo: a new threshold moves the line alone


def test_per_subgroup_thresholds_equal_thresholding_each_row_at_its_own(app):
    rates_page(app)
    widget(app, "number_input", "Decision threshold").set_value(0.55).run()
    widget(app, "toggle", "Per-subgroup thresholds").set_value(True).run()
    assert {w.label: w.value for w in app.number_input if w.label in NAMES} == dict.fromkeys(NAMES, 0.55)
    own = {"Group A": 0.6, "Group B": 0.45, "Group D": 0.5}
    for name, t in own.items():
        widget(app, "number_input", name).set_value(t).run()
    assert not app.exception
    table = table_with(app, "accuracy_own")
    assert list(table.columns) == ["subgroup", "threshold", "false_positive_rate_single", "false_positive_rate_own",
                                   "false_negative_rate_single", "false_negative_rate_own", "accuracy_single",
                                   "accuracy_own"]
    score = CREDIT["score_logistic"].to_numpy()
    own_pred = score >= np.array([own.get(g, 0.55) for g in GROUPS])
    single = score >= 0.55
    assert table["subgroup"].iloc[0] == "All rows"
    for _, row in table.iterrows():
        rows = slice(None) if row["subgroup"] == "All rows" else GROUPS == row["subgroup"]
        if row["subgroup"] != "All rows":
            assert float(row["threshold"]) == own.get(row["subgroup"], 0.55)
        for metric in ("false_positive_rate", "false_negative_rate"):
            assert row[f"{metric}_own"] == pytest.approx(rate(Y[rows], own_pred[rows], metric), abs=1e-12)
            assert row[f"{metric}_single"] == pytest.approx(rate(Y[rows], single[rows], metric), abs=1e-12)
        assert row["accuracy_own"] == pytest.approx(accuracy_score(Y[rows], own_pred[rows]), abs=1e-12)
        assert row["accuracy_single"] == pytest.approx(accuracy_score(Y[rows], single[rows]), abs=1e-12)
    sentence = next(m.value for m in app.markdown if m.value.startswith("With these thresholds, overall"))
    assert f"overall accuracy is **{formats.num(accuracy_score(Y, own_pred))}**" in sentence
    # the rest of the page keeps the single threshold
    assert float(metrics(section(app, PERFORMANCE))["Accuracy"]) == as_shown(accuracy_score(Y, single))
    section(app, EXPLORER)
    # a subgroup never set follows the single threshold; set ones stay
    widget(app, "number_input", "Decision threshold").set_value(0.52).run()
    shown = {w.label: w.value for w in app.number_input if w.label in NAMES}
    assert shown == {**dict.fromkeys(NAMES, 0.52), **own}
    app.button[[b.label for b in app.button].index("Reset to the single threshold")].click().run()
    assert {w.label: w.value for w in app.number_input if w.label in NAMES} == dict.fromkeys(NAMES, 0.52)


def test_per_subgroup_thresholds_need_disjoint_subgroups(app):
    app.switch_page("pages/data.py").run()
    widget(app, "radio", "Source").set_value("moderation").run()
    app.session_state["keep:rates:section"] = EXPLORER
    app.switch_page(PAGE).run()
    assert not app.exception
    assert explorer_figure(app) is not None  # the explorer works on overlapping identity columns
    assert not [t for t in app.toggle if t.label == "Per-subgroup thresholds"]
    assert any("Per-subgroup thresholds need subgroups that do not overlap" in c.value for c in app.caption)
