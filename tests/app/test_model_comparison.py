"""AppTest: model comparison. With two score columns mapped, each page's "Compare models"
section shows every model side by side, each at its own threshold: the numbers equal fairness_core's for each
model and the single-model page's when that model is picked under Model; only what a control changes is
recomputed. Acceptance: TOXICITY@1 against TOXICITY@6 on the Jigsaw madlibs with 51 identity columns."""


import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

import fairness_core as fc
from tests.app.helpers import (
    count_calls, csv_bytes, figures, metrics, open_section, plotly_array as array, scored_table, tile, unescape, widget,
)
from tests.support import two_models_frame
from fairness_dashboard.presentation import formats, labels
from fairness_dashboard.sections import compare, gate

AUC_PAGE, RATE_PAGE = "pages/subgroup_aucs.py", "pages/rate_disparities.py"
CAL_PAGE, OVERVIEW = "pages/calibration.py", "pages/overview.py"
MODELS = ["TOXICITY@1", "TOXICITY@6"]


def upload(app, name: str, data: bytes) -> None:
    widget(app, "radio", "Source").set_value("upload").run()
    app.file_uploader[0].set_value((name, data, "text/csv")).run()
    assert not app.exception


def upload_three_scores(app, frame) -> None:
    """Upload `frame` and map label, the scores score_a, score_b and score_c, and race."""
    upload(app, "three_scores.csv", csv_bytes(frame))
    widget(app, "selectbox", "Label column").set_value("label").run()
    widget(app, "multiselect", "Score column").set_value(["score_a", "score_b", "score_c"]).run()
    widget(app, "multiselect", "Protected attributes").set_value(["race"]).run()
    assert not app.exception and not app.error


@pytest.fixture
def madlibs(app, madlibs_csv):
    """The app with the madlibs uploaded and mapped on the Data page (label toxicity / toxic, both scores, every
    identity column as the first guess offers them); returns (app, frame, independent ScoredData)."""
    upload(app, madlibs_csv.name, madlibs_csv.read_bytes())
    frame = pd.read_csv(madlibs_csv)
    identities = [c for c in frame.columns if c not in ("template", "toxicity", *MODELS)]
    widget(app, "selectbox", "Label column").set_value("toxicity").run()
    widget(app, "selectbox", "Positive label").set_value("toxic").run()
    widget(app, "multiselect", "Score column").set_value(MODELS).run()
    widget(app, "multiselect", "Identity columns").set_value(identities).run()
    assert not app.exception and not app.error
    assert metrics(app)["Rows used"] == "30,240"
    assert widget(app, "radio", labels.OUTCOME).value == "adverse"   # guessed: "toxicity" reads like a harm
    mapping = fc.ColumnMapping(label="toxicity", positive_label="toxic", scores=tuple(MODELS),
                               indicators=tuple(identities), positive_outcome="adverse")
    return app, frame, fc.ScoredData.from_frame(frame, mapping)


def table_with(app, *columns) -> pd.DataFrame:
    """The one dataframe on the page that has every column of `columns`."""
    found = [df.value for df in app.dataframe if set(columns) <= set(df.value.columns)]
    assert len(found) == 1, [list(df.value.columns) for df in app.dataframe]
    return found[0]


def side_by_side(app) -> pd.DataFrame:
    """The models side by side (index: quantity, a column per model)."""
    found = [df.value for df in app.dataframe if df.value.index.name == "Quantity"]
    assert len(found) == 1
    return found[0]


def pick_model(app, model: str) -> None:
    widget(app, "selectbox", "Model").set_value(model).run()
    assert not app.exception


def compare_on(app) -> None:
    """Turn Compare models on (on Rate disparities, in its section, opened first)."""
    open_section(app, "rates:section", "Compare models")
    widget(app, "toggle", "Compare models").set_value(True).run()
    assert not app.exception and not app.error


def same(a, b) -> None:
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=0, atol=1e-12)


def test_auc_heatmaps_and_table_on_madlibs(madlibs):
    app, frame, sd = madlibs
    app.switch_page(AUC_PAGE).run()
    widget(app, "checkbox", "Show intervals").set_value(False).run()  # point estimates: the AUCs alone
    open_section(app, "auc:section", "Compare models")
    compare_on(app)
    single = {}
    for model in reversed(MODELS):  # each model's own page: its AUC table and tiles
        pick_model(app, model)
        open_section(app, "auc:section", "Table")
        single[model] = (app.dataframe[0].value.set_index("subgroup"), metrics(app))
        order = list(app.dataframe[0].value["subgroup"])  # the page's order (worst first by the picked model)
    open_section(app, "auc:section", "Compare models")
    heatmaps = [f for f in figures(app) if f["data"][0]["type"] == "heatmap"]
    assert len(heatmaps) == 3
    for fig, column in zip(heatmaps, compare.AUC_TYPES):
        trace = fig["data"][0]
        assert trace["x"] == MODELS and trace["y"] == order  # both models; subgroups in the page's order
        z = array(trace["z"])
        for j, model in enumerate(MODELS):
            expected = fc.bias_auc_table(sd.y_true, sd.scores[model], sd.subgroups).set_index("subgroup")
            same(z[:, j], expected.loc[order, column])           # fairness_core's AUC table of that model
            same(z[:, j], single[model][0].loc[order, column])   # = the page's table when the model is picked
    summary = table_with(app, "model", "bias_auc_score").set_index("model")
    assert list(summary.index) == MODELS
    for model in MODELS:
        tiles = single[model][1]
        result = fc.summarize_bias_auc(fc.bias_auc_table(sd.y_true, sd.scores[model], sd.subgroups), p=-5.0,
                                       overall_weight=0.25)
        same(summary.loc[model, ["overall_auc", "subgroup_power_mean", "bpsn_power_mean", "bnsp_power_mean",
                                 "bias_auc_score"]],
             [result.overall_auc, result.subgroup_power_mean, result.bpsn_power_mean, result.bnsp_power_mean,
              result.value])
        assert tiles["Bias AUC score"] == formats.tile(summary.loc[model, "bias_auc_score"])
        assert tiles["Power mean: BPSN"] == formats.tile(summary.loc[model, "bpsn_power_mean"])
    # the page's p changes the power means of every model
    widget(app, "number_input", "Power mean p").set_value(1.0).run()
    summary = table_with(app, "model", "bias_auc_score").set_index("model")
    for model in MODELS:
        table = fc.bias_auc_table(sd.y_true, sd.scores[model], sd.subgroups)
        same(summary.loc[model, "subgroup_power_mean"], fc.summarize_bias_auc(table, p=1.0).subgroup_power_mean)


def as_tile(cell: str) -> str:
    """The value of a side-by-side cell ('0.6707 [0.6, 0.7]', written by fairness_dashboard.sections.compare.cell with fairness_dashboard.presentation.formats.num) as
    a tile writes it (fairness_dashboard.presentation.formats.tile, the tiles' precision policy)."""
    text = cell.split(" [")[0]
    return text if text in ("undefined", "∞", "-∞") else formats.tile(float(text.replace(",", "")))


def test_rate_comparison_each_model_at_its_own_threshold(madlibs):
    app, frame, sd = madlibs
    app.switch_page(RATE_PAGE).run()
    compare_on(app)
    pick_model(app, "TOXICITY@6")
    widget(app, "number_input", "Decision threshold").set_value(0.3).run()
    tiles6 = {label: tile(app, label)[0] for label in ("False positive rate disparity (max)",
                                                        "False negative rate disparity (max)", "Equalized odds (max)")}
    pick_model(app, "TOXICITY@1")
    # changing the model never changes another model's threshold: TOXICITY@1 keeps its default
    assert widget(app, "number_input", "Decision threshold").value == 0.5
    tiles1 = {label: tile(app, label)[0] for label in tiles6}
    side = side_by_side(app)
    assert list(side.columns) == MODELS
    assert list(side.loc["Decision threshold"]) == [">= 0.5", ">= 0.3"]
    for label in tiles6:  # each model's column = its own page's tile (value [interval]), at the tile's precision
        assert as_tile(side.loc[label, "TOXICITY@1"]) == tiles1[label]
        assert as_tile(side.loc[label, "TOXICITY@6"]) == tiles6[label]
    p1 = tile(open_section(app, "rates:section", "p% scores"), "p% score (min)")[0]
    assert side.loc["p% score (min)", "TOXICITY@1"].split(" [")[0] == p1
    open_section(app, "rates:section", "Compare models")
    assert any(row.startswith("Rule: ") for row in side.index)
    four_fifths = fc.outcome_rule(fc.DEFAULT_RULES[0], "adverse")   # toxicity, guessed adverse: on the rest
    assert side.loc[f"Rule: {four_fifths.label}", "TOXICITY@1"].split(":")[0] in (
        "Pass", "Fail", "Inconclusive", "Not assessable")

    # differences from the baseline (default: the first score), paired intervals
    thresholds = {"TOXICITY@1": 0.5, "TOXICITY@6": 0.3}
    predictions = {m: sd.scores[m] >= t for m, t in thresholds.items()}
    quantities = ["false_positive_rate", "false_negative_rate", "equalized_odds", "p_percent_score",
                  "equal_opportunity_score"]
    for baseline in MODELS:
        widget(app, "selectbox", "Baseline model").set_value(baseline).run()
        assert not app.exception
        shown = table_with(app, "model", "quantity", "difference")
        other = next(m for m in MODELS if m != baseline)
        assert list(shown["model"]) == [other] * len(quantities)
        expected = fc.compare_models(sd.y_true, predictions, sd.subgroups, baseline=baseline, quantities=quantities,
                                     ci=0.95, n_boot=1000, random_state=0, positive_outcome="adverse")
        expected = expected[expected["model"] == other].reset_index(drop=True)
        for column in ("value", "baseline_value", "difference", "difference_ci_low", "difference_ci_high"):
            same(shown[column], expected[column])
        same(shown["difference"], shown["value"] - shown["baseline_value"])  # model - baseline
        for q, row in zip(quantities, shown.itertuples()):  # the values are each model's side-by-side value
            label = compare.quantity_label(q, "max")
            assert row.quantity == label
            assert side.loc[label, other].split(" [")[0] == formats.num(row.value)
            assert side.loc[label, baseline].split(" [")[0] == formats.num(row.baseline_value)
        excluding = shown[shown["excludes_zero"].fillna(False).astype(bool)]
        sentence = next(md.value for md in app.markdown if "excludes 0" in md.value or "excludes 0" in
                        unescape(md.value))
        if len(excluding):
            assert len([line for line in sentence.split("\n") if line.startswith("- ")]) == len(excluding)
            assert all(unescape(f"{r.model} - {baseline}: {r.quantity}") in unescape(sentence)
                       for r in excluding.itertuples())
        else:
            assert unescape(sentence) == f"No difference from {baseline} has an interval that excludes 0."


def tradeoff_charts(app) -> list:
    """The Overview's trade-off scatter (not its scorecard, whose rows are scatters too)."""
    return [f for f in figures(app) if "against worst disparity" in f["layout"].get("title", {}).get("text", "")]


def test_overview_tradeoff_one_point_per_model(madlibs):
    app, frame, sd = madlibs
    app.switch_page(RATE_PAGE).run()
    pick_model(app, "TOXICITY@6")
    widget(app, "number_input", "Decision threshold").set_value(0.3).run()
    app.switch_page(OVERVIEW).run()
    compare_on(app)
    chart = tradeoff_charts(app)
    assert len(chart) == 1
    traces = chart[0]["data"]
    assert [t["name"] for t in traces] == MODELS
    # Balanced accuracy by default (a model denying everyone scores 0.5 on it, not the share of negatives)
    assert widget(app, "radio", "Performance measure").value == "balanced_accuracy"
    points = table_with(app, "model", "balanced_accuracy", "accuracy", "disparity").set_index("model")
    aucs = {}
    for trace, (model, threshold) in zip(traces, (("TOXICITY@1", 0.5), ("TOXICITY@6", 0.3))):
        counts = fc.confusion_counts(sd.y_true, sd.scores[model] >= threshold, sd.subgroups)
        overall = fc.performance_table(counts).iloc[0]
        worst = max(counts.disparity(m, reduction="max").value for m in ("false_positive_rate", "false_negative_rate"))
        balanced = balanced_accuracy_score(sd.y_true, sd.scores[model] >= threshold)
        same([trace["x"][0], trace["y"][0]], [balanced, worst])
        same(points.loc[model, ["threshold", "balanced_accuracy", "accuracy", "precision", "recall", "disparity"]],
             [threshold, balanced, overall["accuracy"], overall["precision"], overall["recall"], worst])
        aucs[model] = roc_auc_score(sd.y_true, sd.scores[model])
        same(points.loc[model, "auc"], aucs[model])
        assert trace["error_x"]["array"][0] > 0 and trace["error_y"]["array"][0] > 0  # intervals drawn
        # the axes hold each point's whole interval
        x_range, y_range = chart[0]["layout"]["xaxis"]["range"], chart[0]["layout"]["yaxis"]["range"]
        assert x_range[0] <= trace["x"][0] - trace["error_x"]["arrayminus"][0]
        assert trace["x"][0] + trace["error_x"]["array"][0] <= x_range[1]
        assert y_range[0] <= trace["y"][0] - trace["error_y"]["arrayminus"][0]
        assert trace["y"][0] + trace["error_y"]["array"][0] <= y_range[1]
    widget(app, "radio", "Performance measure").set_value("auc").run()
    chart = tradeoff_charts(app)
    same([t["x"][0] for t in chart[0]["data"]], [aucs[m] for m in MODELS])
    assert chart[0]["layout"]["xaxis"]["title"]["text"].startswith("Overall AUC")
    # the Overview's own sections are unchanged by the comparison: the same verdicts with it off and on
    on = [md.value for md in app.markdown if md.value.startswith(":")]
    widget(app, "toggle", "Compare models").set_value(False).run()
    assert [md.value for md in app.markdown if md.value.startswith(":")] == on
    assert not tradeoff_charts(app)


def test_calibration_side_by_side_and_a_score_that_is_not_a_probability(app):
    frame = scored_table(3000, seed=3).assign(score_c=lambda f: np.round(f["score_b"] * 10, 3))
    upload_three_scores(app, frame)
    app.switch_page(CAL_PAGE).run()
    open_section(app, "cal:section", "Compare models")
    compare_on(app)
    tiles = {}
    for model in ("score_b", "score_a"):
        pick_model(app, model)
        tiles[model] = tile(app, "ECE disparity (max)")[0]
    side = side_by_side(app)
    assert list(side.columns) == ["score_a", "score_b", "score_c"]
    groups = fc.Subgroups.from_attributes(frame, ["race"], min_size=30)
    for model in ("score_a", "score_b"):
        result = fc.calibration_counts(frame["label"], frame[model], groups).disparity(threshold=0.1, ci=0.95,
                                                                                      random_state=0)
        assert side.loc["ECE disparity (max)", model] == compare.cell(result.value, result.disparity.ci_low,
                                                                       result.disparity.ci_high)
        assert as_tile(side.loc["ECE disparity (max)", model]) == tiles[model]
        assert side.loc["Verdict", model] == compare.verdict_cell(result.verdict)
    assert side.loc["ECE disparity (max)", "score_c"].startswith("not assessed: ranges from")
    assert "not a probability" in side.loc["ECE disparity (max)", "score_c"]


def test_no_comparison_with_one_score(app):
    widget(app, "multiselect", "Score column").set_value(["score_logistic"]).run()
    for page in (AUC_PAGE, RATE_PAGE, CAL_PAGE, OVERVIEW):
        app.switch_page(page).run()
        assert not app.exception
        assert not [t for t in app.toggle if t.label == "Compare models"]
        assert "Compare models" not in [h.value for h in app.subheader]


@pytest.fixture
def calls(monkeypatch):
    """Counts of the calls that read rows or compare models."""
    return count_calls(monkeypatch, fc, ("confusion_counts", "threshold_counts", "bias_auc_table",
                                         "calibration_counts", "compare_models", "performance_table"))


def test_controls_recompute_only_what_they_change(app, calls):
    """On the credit sample (two scores): a baseline or model change, and a page switch, reuse every count."""
    app.switch_page(RATE_PAGE).run()
    open_section(app, "rates:section", "Compare models")
    compare_on(app)
    assert calls["compare_models"] == 1 and calls["threshold_counts"] == 2  # each score sorted once
    calls.clear()
    widget(app, "selectbox", "Baseline model").set_value("score_boosting").run()
    assert dict(calls) == {"compare_models": 1}  # only the differences
    calls.clear()
    pick_model(app, "score_boosting")  # the picked model's disparities were computed for the comparison
    widget(app, "selectbox", "Baseline model").set_value("score_logistic").run()
    assert not (calls.keys() & {"compare_models", "threshold_counts", "confusion_counts", "bias_auc_table"})
    widget(app, "number_input", "Decision threshold").set_value(0.6).run()
    assert calls["compare_models"] == 1 and not calls["threshold_counts"] and not calls["confusion_counts"]
    app.switch_page(OVERVIEW).run()
    assert not calls["threshold_counts"] and calls["compare_models"] == 1  # the Overview compares no baseline
    calls.clear()
    app.switch_page(AUC_PAGE).run()
    # every model's AUC table with intervals was counted for the Overview (its section and its trade-off's AUC)
    assert calls["bias_auc_table"] == 0
    calls.clear()
    widget(app, "number_input", "Power mean p").set_value(1.0).run()
    widget(app, "slider", "Overall AUC weight").set_value(0.5).run()
    app.switch_page(OVERVIEW).run()
    assert not calls  # p and the weight reuse the AUC tables; the Overview its own results


def test_overview_judges_each_model_against_the_baseline_as_the_command_line_does(app):
    frame = two_models_frame()   # the candidate is worse for the positives of subgroup a
    upload(app, "two_models.csv", csv_bytes(frame))
    widget(app, "selectbox", "Label column").set_value("label").run()
    widget(app, "multiselect", "Score column").set_value(["score_a", "score_b"]).run()
    widget(app, "multiselect", "Protected attributes").set_value(["race"]).run()
    app.switch_page(OVERVIEW).run()
    compare_on(app)
    mapping = fc.ColumnMapping(label="label", positive_label=1, scores=("score_a", "score_b"), protected=("race",))
    sd = fc.ScoredData.from_frame(frame, mapping)
    expected = fc.model_changes(sd, fc.ReviewConfig(mapping=mapping, baseline="score_a"))
    failing = [c for c in expected if c.status != "pass"]
    assert {c.status for c in failing} == {"fail"} and any(c.quantity == "subgroup_auc" for c in failing)
    texts = [unescape(md.value) for md in app.markdown]
    summary = next(t for t in texts if t.endswith(
        f"of {len(expected)} changes from score_a (tolerance 0.01, ratios 0.02: the largest worsening that still counts as no "
        f"worse; paired intervals: a change fails when their low end, a joint bound over the {len(expected)} changes "
        f"(max-t within the rates' and the ECEs' paired replicates, Bonferroni for the AUCs; at most "
        f"{max(c.level for c in expected) * 100:.4g} %), is above the tolerance, and passes when their high end, at "
        f"95 %, is within it)."))
    assert summary.startswith(f"{len(failing)} fail, {len(expected) - len(failing)} pass")   # fails first
    # the candidate's own tab says it fails against the baseline, its first two failing changes in full
    against = next(t for t in texts if t.startswith("**Against the baseline score_a**"))
    assert against.splitlines() == [
        f"**Against the baseline score_a** (release gate, tolerance 0.01, ratios 0.02): the candidate fails; {len(failing)} fail, "
        f"{len(expected) - len(failing)} pass of {len(expected)} changes.",
        *(f"- :red-badge[Fail] {c.sentence}" for c in failing[:gate.FAILS_IN_ANSWER]), "",
        f"{len(failing) - gate.FAILS_IN_ANSWER} more failing changes under *Changes from the baseline* below."]
    # the candidate's scorecard: under each rate rule's numbers, its change from the baseline in the same quantity
    cards = [f for f in figures(app) if any(a.get("name") == "change" for a in f["layout"].get("annotations", []))]
    assert len(cards) == 1   # the candidate's only: the baseline's own scorecard has no change
    lines = [a["text"] for a in cards[0]["layout"]["annotations"] if a.get("name") == "change"]
    verdicts = fc.rate_conclusions(fc.confusion_counts(sd.y_true, sd.scores["score_b"] >= 0.5, sd.subgroups),
                                   mapping).verdicts
    own = {c.quantity: c for c in expected if c.model == "score_b" and c.subgroup is None}
    matched = [own[v.rule.metric] for v in verdicts if v.rule.metric in own]
    assert len(matched) >= 3 and lines[:len(matched)] == [
        f"vs baseline: {'no change' if c.worsening == 0 else 'worse' if c.worsening > 0 else 'better'}"
        f"{'' if c.worsening == 0 else f' by {abs(c.worsening):.3g}'} "
        f"{ {'fail': 'Fail', 'pass': 'Pass', 'inconclusive': 'Inconclusive'}[c.status]}" for c in matched]
    shown = [t for t in texts if t.startswith("- :red-badge[")]
    assert [s.split("] ", 1)[1] for s in shown] == [c.sentence for c in failing]   # the first ones, then the rest
    assert len(failing) > gate.CHANGES_SHOWN   # ... in the expander
    assert [e.label for e in app.expander if "changes that are not a pass" in e.label] == [
        f"{len(failing) - gate.CHANGES_SHOWN} more changes that are not a pass"]
    # a larger tolerance: the same intervals judged against it, as fc.model_changes judges them
    widget(app, "number_input", "Largest worsening that passes").set_value(1.0).run()
    relaxed = fc.model_changes(sd, fc.ReviewConfig(mapping=mapping, baseline="score_a", max_worsening=1.0))
    assert not [c for c in relaxed if c.status == "fail"]
    texts = [unescape(md.value) for md in app.markdown]
    assert any(t.startswith(f"{len(relaxed)} pass of {len(relaxed)} changes from score_a (tolerance 1, ratios 2:")
               for t in texts)
    assert any(t == f"**Against the baseline score_a** (release gate, tolerance 1, ratios 2): no change fails; "
                    f"{len(relaxed)} pass of {len(relaxed)} changes." for t in texts)
