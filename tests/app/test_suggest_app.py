"""AppTest: the threshold explorer's "Suggest a threshold" shows fc.suggest_threshold's bands,
suggestion and cost, and applying the suggestion moves every page to the recomputed numbers; the saved
configuration carries the threshold."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

import fairness_core as fc
from tests.app.helpers import csv_bytes, open_section, start, unescape, widget
from tests.app.review_helpers import downloads, restore, upload  # noqa: F401
from tests.support import three_groups
from fairness_dashboard.presentation import formats
from fairness_dashboard.results import computations

RATES, OVERVIEW = "pages/rate_disparities.py", "pages/overview.py"


def fair_frame(n: int = 6_000) -> pd.DataFrame:
    """Two groups scored alike: many thresholds pass every rule; the best balanced accuracy is not at 0.5."""
    rng = np.random.default_rng(11)
    group = rng.choice(["north", "south"], n)
    y = (rng.random(n) < 0.4).astype(int)
    score = np.clip(0.25 * y + 0.55 * rng.random(n), 0, 1).round(1)   # 9 thresholds: a quick assessment
    return pd.DataFrame({"label": y, "region": group, "score": score})


def explorer_of(app, frame: pd.DataFrame, group: str) -> None:
    """Upload `frame`, map label, score and `group`, and open Rate disparities' threshold explorer."""
    upload(app, f"{group}.csv", csv_bytes(frame))
    widget(app, "selectbox", "Label column").set_value("label").run()
    widget(app, "multiselect", "Score column").set_value(["score"]).run()
    widget(app, "multiselect", "Protected attributes").set_value([group]).run()
    app.switch_page(RATES).run()
    open_section(app, "rates:section", "Threshold explorer")
    assert not app.exception and not app.error


def test_suggest_apply_and_save(app, downloads):
    frame = fair_frame()
    explorer_of(app, frame, "region")
    widget(app, "toggle", "Assess every threshold").set_value(True).run()
    assert not app.exception and not app.error
    mapping = fc.ColumnMapping(label="label", positive_label=1, scores=("score",), protected=("region",))
    sd = fc.ScoredData.from_frame(frame, mapping)
    tc = fc.threshold_counts(sd.y_true, sd.scores["score"], sd.subgroups)
    expected = fc.suggest_threshold(tc, n_points=computations.EXPLORER_POINTS)
    assert expected.suggested is not None and expected.suggested != 0.5 and len(expected.passing) > 3
    text = next(unescape(m.value) for m in app.markdown if m.value.startswith("Every rule passes at:"))
    runs = ", ".join(f"{a:g}" if a == b else f"{a:g} to {b:g}" for a, b in expected.bands())
    assert text.startswith(f"Every rule passes at: **{runs}**;")
    assert f"Suggested: **{expected.suggested:g}**, the passing threshold whose balanced accuracy is the highest" in text
    # a passing threshold that predicts positive for everyone is said to pass for that reason
    everyone = expected.table[(expected.table["status"] == "pass") & (expected.table["selection_rate"] == 1.0)]
    assert list(everyone["threshold"]) == [0.0]
    assert ("At 0 every row is predicted positive (the favourable prediction for everyone): every subgroup is "
            "treated alike there") in text
    assert any("passes with its whole interval, and what each threshold costs" in m.value for m in app.markdown)
    widget(app, "checkbox", "Show intervals").set_value(False).run()   # point estimates decide: said so
    assert not any("with its whole interval" in m.value for m in app.markdown)
    assert any("passes on its point estimate (intervals are off), and what each threshold costs" in m.value
               for m in app.markdown)
    widget(app, "checkbox", "Show intervals").set_value(True).run()
    cost = next(df.value for df in app.dataframe if "rows" in df.value.columns)
    at = expected.cost[expected.cost["threshold"] == expected.suggested]
    np.testing.assert_allclose(cost[f"recall at {expected.suggested:g}"], at["recall"].round(4).to_numpy())
    now = fc.performance_table(tc.at(0.5))
    np.testing.assert_allclose(cost["recall at 0.5"], now["recall"].round(4).to_numpy())
    assert list(cost["subgroup"]) == ["All rows", "north", "south"]
    # apply: the page's threshold, its rates and the Overview's verdicts follow
    button = next(b for b in app.button if b.label == f"Apply the threshold {expected.suggested:g} to every page")
    button.click().run()
    assert not app.exception and not app.error
    assert widget(app, "number_input", "Decision threshold").value == expected.suggested
    counts = fc.confusion_counts(sd.y_true, sd.scores["score"] >= expected.suggested, sd.subgroups)
    open_section(app, "rates:section", "Tables")
    rates = next(df.value for df in app.dataframe if "false_positive_rate" in df.value.columns)
    truth = counts.table().set_index("subgroup")
    np.testing.assert_allclose(rates.set_index("subgroup").loc[truth.index, "false_positive_rate"],
                               truth["false_positive_rate"], rtol=0, atol=1e-12)
    app.switch_page(OVERVIEW).run()
    verdicts = fc.rate_conclusions(counts, mapping).verdicts
    shown = [unescape(m.value) for m in app.markdown]
    for v in verdicts:
        assert any(v.sentence in s for s in shown), v.sentence
    saved = downloads.ending("review-config.json")
    assert json.loads(saved)["thresholds"] == {"score": expected.suggested}
    # the saved configuration restores it in a new session
    fresh = start()
    upload(fresh, "fair.csv", csv_bytes(frame))
    restore(fresh, "review-config.json", saved)
    assert not fresh.exception and not fresh.error
    fresh.switch_page(RATES).run()
    assert widget(fresh, "number_input", "Decision threshold").value == expected.suggested


def test_per_subgroup_thresholds_suggested_and_used(app):
    y, s, g = three_groups(50)
    explorer_of(app, pd.DataFrame({"label": y, "group": g, "score": s}), "group")
    widget(app, "toggle", "Per-subgroup thresholds").set_value(True).run()
    assert not app.exception and not app.error
    expected = fc.group_thresholds(fc.threshold_counts(y, s, g), "equalized_odds", tolerance=0.05,
                                   n_points=computations.EXPLORER_POINTS, single=0.5)
    assert len(set(expected.thresholds.values())) > 1   # the groups get different thresholds
    assert any("may not be lawful in every setting" in c.value for c in app.caption)
    table = next(df.value for df in app.dataframe if "balanced_accuracy_single" in df.value.columns)
    pd.testing.assert_frame_equal(table, expected.table.round(4))
    # The gap to expect on new rows is said beside the fitted one, and a warning where it cannot be kept.
    said = next(unescape(m.value) for m in app.markdown if "on new rows of the same sizes expect up to" in m.value)
    assert f"**{formats.num(expected.expected_gap)}**" in said
    # ... and how the thresholds move who is selected, beside the objective they keep
    overall = expected.table.iloc[-1]
    assert said.startswith(
        f"With these thresholds, balanced accuracy **{formats.num(expected.value)}** ({formats.num(expected.single_value)}"
        f" at the single threshold 0.5); selection rate **{100 * overall['selection_rate']:.1f} %** "
        f"({100 * overall['selection_rate_single']:.1f} % at the single threshold 0.5)")
    assert [unescape(w.value) for w in app.warning if "on the rows they were fitted on only" in w.value] == (
        [] if expected.kept else [expected.note])
    # The objective: keep the selection rate as at the single threshold, at the best balanced accuracy
    objective = widget(app, "selectbox", "Objective")
    assert objective.options[:3] == ["Highest balanced accuracy", "Highest accuracy", "Keep the selection rate"]
    objective.set_value("selection_rate").run()
    assert not app.exception and not app.error
    kept = fc.group_thresholds(fc.threshold_counts(y, s, g), "equalized_odds", tolerance=0.05, measure="selection_rate",
                               n_points=computations.EXPLORER_POINTS, single=0.5)
    moved = abs(expected.table.iloc[-1]["selection_rate"] - kept.single_value)   # the objective's own answer
    assert kept.thresholds != expected.thresholds and abs(kept.value - kept.single_value) < moved / 10
    table = next(df.value for df in app.dataframe if "balanced_accuracy_single" in df.value.columns)
    pd.testing.assert_frame_equal(table, kept.table.round(4))
    said = next(unescape(m.value) for m in app.markdown if "on new rows of the same sizes expect up to" in m.value)
    assert said.startswith(f"With these thresholds, selection rate **{100 * kept.value:.1f} %** "
                           f"({100 * kept.single_value:.1f} % at the single threshold 0.5); balanced accuracy **")
    objective.set_value("balanced_accuracy").run()
    next(b for b in app.button if b.label == "Use these thresholds in the boxes below").click().run()
    assert not app.exception and not app.error
    for name, t in expected.thresholds.items():
        assert widget(app, "number_input", name).value == t
    effect = next(unescape(m.value) for m in app.markdown if m.value.startswith("With these thresholds, overall"))
    pred = s >= np.array([expected.thresholds[k] for k in g])
    assert f"overall accuracy is **{(pred == y).mean():.4g}**" in effect
