"""AppTest: differences from a baseline model for the AUCs (DeLong's paired intervals) and the ECE (paired
bootstrap) in the "Compare models" sections of Subgroup AUCs and Calibration: the shown
values equal fairness_core's, the baseline picker is the one the Rate disparities page uses. (The madlibs pair is
checked in the library's tests: through the app it takes about 45 s, most of it the pages' own AUC bootstraps.)"""

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from tests.app.helpers import open_section, scored_table, widget
from tests.app.helpers import unescape
from tests.app.test_model_comparison import (AUC_PAGE, CAL_PAGE, RATE_PAGE, compare_on, table_with,
                                             upload_three_scores)
from fairness_dashboard.sections import compare

KEY = ["model", "subgroup", "auc"]


def expected_aucs(sd: fc.ScoredData, baseline: str) -> pd.DataFrame:
    """fc.compare_model_aucs without the baseline's rows, labelled as the page labels them."""
    table = fc.compare_model_aucs(sd.y_true, sd.scores, sd.subgroups, baseline=baseline, ci=0.95)
    table = table[table["model"] != baseline].copy()
    table["subgroup"] = [compare.ALL_ROWS if s is None else s for s in table["subgroup"]]
    table["auc"] = table["auc"].map(compare.AUC_KIND_LABELS)
    return table


def same_rows(shown: pd.DataFrame, expected: pd.DataFrame, key: list, columns: list) -> None:
    """The same rows (matched on `key`) with the same numbers in `columns` (to 1e-12) and the same notes."""
    assert len(shown) == len(expected)
    merged = shown.merge(expected, on=key, suffixes=("", "_lib"), validate="one_to_one")
    assert len(merged) == len(shown)
    for column in columns:
        np.testing.assert_allclose(merged[column].astype(float), merged[column + "_lib"].astype(float), rtol=0,
                                   atol=1e-12, err_msg=column)
    assert merged["excludes_zero"].tolist() == merged["excludes_zero_lib"].tolist()
    assert merged["note"].tolist() == merged["note_lib"].tolist()


def listed(app, baseline: str) -> str:
    """The words under a difference table: which differences exclude 0."""
    return next(unescape(md.value) for md in app.markdown
                if "excludes 0" in unescape(md.value) and (f" - {baseline}:" in unescape(md.value)
                                                            or md.value.startswith("No difference")))


AUC_COLUMNS = ["n_positive", "n_negative", "value", "baseline_value", "difference", "difference_ci_low",
               "difference_ci_high", "p_value"]


@pytest.fixture
def three_scores(app):
    """A generated file with two probability scores and a 1-10 score, mapped with race as the protected attribute."""
    frame = scored_table(2500, seed=11).assign(score_c=lambda f: np.round(f["score_b"] * 10, 2))
    upload_three_scores(app, frame)
    mapping = fc.ColumnMapping(label="label", positive_label=1, scores=("score_a", "score_b", "score_c"),
                               protected=("race",))
    return app, fc.ScoredData.from_frame(frame, mapping)


def test_auc_differences_equal_compare_model_aucs(three_scores):
    app, sd = three_scores
    app.switch_page(AUC_PAGE).run()
    open_section(app, "auc:section", "Compare models")
    compare_on(app)
    for baseline in ("score_a", "score_c"):
        widget(app, "selectbox", "Baseline model").set_value(baseline).run()
        assert not app.exception
        shown = table_with(app, "model", "subgroup", "auc", "difference")
        expected = expected_aucs(sd, baseline)
        same_rows(shown, expected, KEY, AUC_COLUMNS)
        others = [m for m in ("score_a", "score_b", "score_c") if m != baseline]
        assert list(dict.fromkeys(shown["model"])) == others
        first = shown.groupby("model", sort=False).head(1)           # each model's overall AUC first
        assert first["subgroup"].tolist() == [compare.ALL_ROWS] * 2 and first["auc"].tolist() == ["Overall AUC"] * 2
        excluding = shown[shown["excludes_zero"].fillna(False).astype(bool)]
        words = listed(app, baseline)
        if len(excluding):
            assert words.startswith(f"{len(excluding):,} of {len(shown):,} differences have an interval that "
                                    "excludes 0")
            largest = excluding.loc[excluding["difference"].abs().idxmax()]
            assert f"- {largest.model} - {baseline}:" in words
        else:
            assert words == f"No difference from {baseline} has an interval that excludes 0."
    # score_c is score_b x 10 (rounded): the same ranking but for ties, so their AUCs barely differ
    c_vs_b = shown[(shown["model"] == "score_b") & (shown["subgroup"] == compare.ALL_ROWS)].iloc[0]
    assert abs(c_vs_b["difference"]) < 0.01
    # intervals off: the differences without intervals, and the caption says why nothing excludes 0
    widget(app, "checkbox", "Show intervals").set_value(False).run()
    assert not app.exception
    shown = table_with(app, "model", "subgroup", "auc", "difference")
    assert "difference_ci_low" not in shown and "excludes_zero" not in shown
    np.testing.assert_allclose(shown["difference"], expected["difference"].loc[
        shown.merge(expected.reset_index(), on=KEY)["index"]].to_numpy(), rtol=0, atol=1e-12)
    assert any("Intervals are off" in c.value for c in app.caption)
    # the picker is the Rate disparities page's: the same kept baseline there
    app.switch_page(RATE_PAGE).run()
    open_section(app, "rates:section", "Compare models")
    assert widget(app, "selectbox", "Baseline model").value == "score_c"


def test_ece_differences_equal_compare_model_calibration(three_scores):
    app, sd = three_scores
    app.switch_page(CAL_PAGE).run()
    open_section(app, "cal:section", "Compare models")
    compare_on(app)
    widget(app, "selectbox", "Baseline model").set_value("score_b").run()
    shown = table_with(app, "model", "subgroup", "size", "difference")
    expected = fc.compare_model_calibration(sd.y_true, {m: sd.scores[m] for m in ("score_a", "score_b")},
                                            sd.subgroups, baseline="score_b", ci=0.95, n_boot=1000, random_state=0)
    expected = expected[expected["model"] == "score_a"].assign(
        subgroup=lambda t: [compare.ALL_ROWS if s is None else s for s in t["subgroup"]])
    same_rows(shown, expected, ["model", "subgroup"], ["size", "value", "baseline_value", "difference",
                                                       "difference_ci_low", "difference_ci_high"])
    assert shown["subgroup"].iloc[0] == compare.ALL_ROWS and set(shown["model"]) == {"score_a"}
    assert any("not probabilities, so left out: score_c" in unescape(c.value) for c in app.caption)
    single = fc.calibration_errors(sd.y_true, sd.scores["score_a"], sd.subgroups).set_index("subgroup")["ece"]
    np.testing.assert_allclose(shown.set_index("subgroup").loc[single.index, "value"], single, rtol=0, atol=1e-12)
    listed(app, "score_b")
    widget(app, "selectbox", "Baseline model").set_value("score_c").run()
    assert not app.exception
    assert any("the baseline model score_c is not a probability" in unescape(c.value) for c in app.caption)
    assert not [df for df in app.dataframe if "size" in df.value.columns and "difference" in df.value.columns]
