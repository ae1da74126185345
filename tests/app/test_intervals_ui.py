"""AppTest: intervals, findings and policy verdicts on the Rate disparities and Subgroup AUCs pages.

Every number the pages show is checked against a value computed here: rates, counts and AUCs with
pandas and scikit-learn, intervals with fairness_core called directly with the app's options
(level, 1,000 resamples, seed 0).
"""

import io
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import fairness_core as fc
from tests.app.helpers import CI, as_shown, figures, interval, metrics, tile, unescape, widget
from fairness_dashboard.presentation import escape, formats

RATE_PAGE, AUC_PAGE = "pages/rate_disparities.py", "pages/subgroup_aucs.py"


# Helpers ---------------------------------------------------------------------------------------


def upload(app, name: str, data: bytes) -> None:
    app.switch_page("pages/data.py").run()
    widget(app, "radio", "Source").set_value("upload").run()
    app.file_uploader[0].set_value((name, data, "text/csv")).run()
    assert not app.exception


def load_compas(app, compas_csv) -> pd.DataFrame:
    """COMPAS mapped as in the issue (label two_year_recid, score decile_score, race), on the rate page at 5."""
    upload(app, compas_csv.name, compas_csv.read_bytes())
    widget(app, "selectbox", "Label column").set_value("two_year_recid").run()
    widget(app, "selectbox", "Positive label").set_value(1).run()
    widget(app, "multiselect", "Score column").set_value(["decile_score"]).run()
    widget(app, "multiselect", "Protected attributes").set_value(["race"]).run()
    assert not app.exception and not app.error
    app.switch_page(RATE_PAGE).run()
    widget(app, "number_input", "Decision threshold").set_value(5.0).run()
    assert not app.exception
    return pd.read_csv(compas_csv)






def findings(app) -> str:
    """The Markdown of the Findings panel: the element right after the 'Findings' subheader."""
    main = list(app.main)
    at = next(i for i, el in enumerate(main) if getattr(el, "type", "") == "subheader" and el.value == "Findings")
    return main[at + 1].value


def verdicts(app) -> dict:
    """Policy badges: {rule subject (sentence up to its first number): status}."""
    found = {}
    for md in app.markdown:
        m = re.match(r":(\w+)-badge\[([\w ]+)\] (.*)", md.value)
        if m:
            sentence = m.group(3).replace("\\", "")
            found[re.split(r" \d", sentence, maxsplit=1)[0]] = (m.group(2), sentence)
    return found


def has_interval_columns(frame: pd.DataFrame) -> bool:
    return any(c.endswith(("_ci_low", "_ci_high")) or c in ("p_value", "excludes_parity") for c in frame.columns)


def compas_counts(frame: pd.DataFrame, threshold: float = 5.0):
    y = (frame["two_year_recid"] == 1).to_numpy()
    pred = (frame["decile_score"] >= threshold).to_numpy()
    groups = fc.Subgroups.from_attributes(frame, ["race"], intersect=True, min_size=30)
    return y, pred, groups, fc.confusion_counts(y, pred, groups)


# Tests -----------------------------------------------------------------------------------------


def test_both_pages_run_with_intervals_on_and_off(app, compas_csv):
    for page in (RATE_PAGE, AUC_PAGE):  # the credit sample
        app.switch_page(page).run()
        assert not app.exception and not app.error
    load_compas(app, compas_csv)
    for show in (True, False):
        widget(app, "checkbox", "Show intervals").set_value(show).run()
        for page in (RATE_PAGE, AUC_PAGE):
            app.switch_page(page).run()
            assert not app.exception, (show, page, app.exception)
            assert not app.error, (show, page, [e.value for e in app.error])
            assert len(figures(app)) == 1  # the rates chart (its tables open); the AUC chart


def test_turning_intervals_off_removes_interval_columns_and_bars(app):
    app.switch_page(RATE_PAGE).run()
    assert widget(app, "checkbox", "Show intervals").value is True  # on by default
    rates, comparison = app.dataframe[0].value, app.dataframe[1].value
    assert {"false_positive_rate_ci_low", "false_positive_rate_ci_high"} <= set(rates.columns)
    assert {"disparity_ci_low", "disparity_ci_high", "p_value", "excludes_parity"} <= set(comparison.columns)
    bars = [t for t in figures(app)[0]["data"] if t["type"] == "bar"]
    assert all("array" in t.get("error_x", {}) for t in bars)
    # the Wilson interval of each shown FPR, recomputed from the shown counts
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(rates["fp"], rates["fp"] + rates["tn"], alpha=0.05, method="wilson")
    np.testing.assert_allclose(rates["false_positive_rate_ci_low"], low, atol=1e-12)
    np.testing.assert_allclose(rates["false_positive_rate_ci_high"], high, atol=1e-12)

    widget(app, "checkbox", "Show intervals").set_value(False).run()
    assert not app.exception
    assert not any(has_interval_columns(df.value) for df in app.dataframe)
    bars = [t for t in figures(app)[0]["data"] if t["type"] == "bar"]
    assert not any(t.get("error_x") for t in bars)
    assert not any(CI.search(c.value) for c in app.caption)
    app.switch_page(AUC_PAGE).run()
    assert not has_interval_columns(app.dataframe[0].value)
    assert not any(t.get("error_x") for t in figures(app)[0]["data"])
    assert "Findings" not in [h.value for h in app.subheader]
    # the choice is kept across pages and back on
    widget(app, "checkbox", "Show intervals").set_value(True).run()
    assert {"subgroup_auc_ci_low", "bpsn_auc_ci_high"} <= set(app.dataframe[0].value.columns)
    assert any(t.get("error_x") for t in figures(app)[0]["data"])


def test_fpr_tile_shows_the_library_interval_and_names_the_worst_subgroup(app, compas_csv):
    frame = load_compas(app, compas_csv)
    widget(app, "selectbox", "Distance").set_value("ratio").run()
    assert widget(app, "selectbox", "Reduction").value == "max"
    assert widget(app, "selectbox", "Reference").value == "rest"

    # Independently: FPR of each race against everyone else, with pandas (groups of >= 30 rows and negatives).
    negative = frame["two_year_recid"] == 0
    flagged = frame["decile_score"] >= 5
    ratios = {}
    for race, rows in frame.groupby("race"):
        member = frame["race"] == race
        n_neg = int((member & negative).sum())
        if len(rows) < 30 or n_neg < 30:
            continue
        a = (flagged & member & negative).sum() / n_neg
        b = (flagged & ~member & negative).sum() / (~member & negative).sum()
        ratios[race] = (max(a, b) / min(a, b), n_neg)
    worst = max(ratios, key=lambda r: ratios[r][0])
    value, captions = tile(app, "False positive rate disparity (max)")
    assert value == f"{formats.tile(ratios[worst][0])}" == "2.271"
    assert worst == "Other" and captions[0].startswith(f"Other vs rest ({ratios[worst][1]:,} actual negatives)")

    _, _, _, counts = compas_counts(frame)
    for level in (0.95, 0.90, 0.99):
        widget(app, "selectbox", "Confidence level").set_value(level).run()
        assert not app.exception
        result = counts.disparity("false_positive_rate", distance_measure="ratio", reduction="max", reference="rest",
                                  ci=level, n_boot=1000, random_state=0)
        value, captions = tile(app, "False positive rate disparity (max)")
        shown = interval(captions[0])
        assert shown == (level, as_shown(result.ci_low), as_shown(result.ci_high))
        assert f"{formats.level_text(level)} CI {formats.tile(result.ci_low)}–{formats.tile(result.ci_high)}" in captions[0]
        if level == 0.95:
            at_95 = shown
            # the interval of the max: the low end the largest of the comparisons' low ends at the simultaneous (max-t)
            # level, the high end the largest of their high ends at 95 % (narrower than Bonferroni's join, 1.808-3.441)
            assert shown[1:] == (1.811, 3.175)
        else:  # the level select changes the interval: narrower at 90 %, wider at 99 %
            assert shown != at_95
            inner, outer = (shown, at_95) if level == 0.90 else (at_95, shown)
            assert outer[1] <= inner[1] and inner[2] <= outer[2]

    # fewer resamples: another interval, still the library's
    widget(app, "selectbox", "Confidence level").set_value(0.95).run()
    widget(app, "selectbox", "Bootstrap replicates").set_value(500).run()
    result = counts.disparity("false_positive_rate", distance_measure="ratio", reduction="max", reference="rest",
                              ci=0.95, n_boot=500, random_state=0)
    assert interval(tile(app, "False positive rate disparity (max)")[1][0])[1:] == (as_shown(result.ci_low),
                                                                                  as_shown(result.ci_high))


def test_findings_panel_names_african_american_and_the_false_positive_rate(app, compas_csv):
    frame = load_compas(app, compas_csv)
    widget(app, "selectbox", "Distance").set_value("ratio").run()
    panel = findings(app)
    bullets = [unescape(line[2:]) for line in panel.split("\n") if line.startswith("- ")]
    first = bullets[0]
    assert "African-American" in first and "false positive rate" in first
    # the numbers in the sentence, from pandas
    aa = frame["race"] == "African-American"
    negative = frame["two_year_recid"] == 0
    flagged = frame["decile_score"] >= 5
    a = (flagged & aa & negative).sum() / (aa & negative).sum()
    b = (flagged & ~aa & negative).sum() / (~aa & negative).sum()
    assert f"at {a / b:.2f}× the rate of everyone else" in first
    assert f"false positive rate {100 * a:.1f} % vs {100 * b:.1f} %" in first
    assert "44.8 % vs 22.0 %" in first
    assert f"{(aa & negative).sum():,} vs {(~aa & negative).sum():,} people" in first  # 1,795 vs 2,168
    # the same sentences as the library's, escaped for Markdown
    _, _, _, counts = compas_counts(frame)
    mapping = fc.ColumnMapping(label="two_year_recid", positive_label=1, positive_outcome="adverse")   # guessed
    # six races against the rest: more than 5 comparisons, so the app's Automatic adjustment is simultaneous (max-t)
    expected = fc.rate_findings(counts, ["false_positive_rate", "false_negative_rate"], reference="rest", ci=0.95,
                                n_boot=1000, random_state=0, adjust="max_t", limit=3, **fc.outcome_words(mapping))
    assert "95 % intervals (max-t-adjusted for 6 comparisons)" in first
    assert panel.split("\n")[: len(expected)] == [f"- {escape.md(f.sentence)}" for f in expected]
    # ... and the driving comparison of each max
    assert any(b.startswith("The largest false positive rate ratio, 2.27 (95 % interval for the largest of 4 "
                            "comparisons: 1.81–3.17), is Other")
               for b in bullets)
    assert any(b.startswith("The largest false negative rate ratio") for b in bullets)
    # Native American (18 rows) is small: left out of every reduction, and said to be too few to assess
    assert any("Native American has too few people to assess" in b for b in bullets)


def two_group_csv() -> bytes:
    """Groups A and B, 3,000 rows each: 2,000 negatives with 600 flagged in both (FPR 0.3 = 0.3), and
    1,000 positives with 500 (A) and 800 (B) flagged. Selection rates 1,100 / 3,000 and 1,400 / 3,000."""
    def block(group, fp, tp):
        return pd.DataFrame({"outcome": [0] * 2000 + [1] * 1000,
                             "risk": [0.8] * fp + [0.2] * (2000 - fp) + [0.8] * tp + [0.2] * (1000 - tp),
                             "group": group})
    buffer = io.StringIO()
    pd.concat([block("A", 600, 500), block("B", 600, 800)], ignore_index=True).to_csv(buffer, index=False)
    return buffer.getvalue().encode()


def map_upload(app, name: str, data: bytes) -> pd.DataFrame:
    upload(app, name, data)
    widget(app, "selectbox", "Label column").set_value("outcome").run()
    widget(app, "multiselect", "Score column").set_value(["risk"]).run()
    widget(app, "multiselect", "Protected attributes").set_value(["group"]).run()
    assert not app.exception and not app.error
    return pd.read_csv(io.BytesIO(data))


def test_each_verdict_reaches_the_policy_badges(app):
    frame = map_upload(app, "verdicts.csv", two_group_csv())
    app.switch_page(RATE_PAGE).run()
    widget(app, "multiselect", "Rates").set_value(["selection_rate", "false_positive_rate",
                                                   "false_negative_rate"]).run()
    assert widget(app, "number_input", "Maximum difference").value == pytest.approx(0.1)
    assert not app.exception
    # The constructed differences, from pandas: 0 (FPR), 0.3 (FNR), 0.1 = the bound (selection rate).
    flagged = frame["risk"] >= 0.5
    by = frame.assign(flagged=flagged).groupby("group")
    sel = by["flagged"].mean()
    fpr = by.apply(lambda g: g.loc[g["outcome"] == 0, "flagged"].mean())
    fnr = by.apply(lambda g: 1 - g.loc[g["outcome"] == 1, "flagged"].mean())
    assert abs(fpr["A"] - fpr["B"]) == 0 and round(abs(fnr["A"] - fnr["B"]), 12) == 0.3
    assert round(abs(sel["A"] - sel["B"]), 12) == 0.1

    shown = verdicts(app)
    assert shown["False positive rate disparity (difference)"][0] == "Pass"
    assert shown["False negative rate disparity (difference)"][0] == "Fail"
    assert shown["Selection rate disparity (difference)"][0] == "Inconclusive"
    assert "0.3 (95 % interval" in shown["False negative rate disparity (difference)"][1]
    assert "but the interval straddles 0.1" in shown["Selection rate disparity (difference)"][1]
    assert shown["Four-fifths rule: p% score"][1].startswith(
        f"Four-fifths rule: p% score {sel.min() / sel.max():.3g} (95 % interval")
    # the same verdicts in the ratio band [0.8, 1.25]: FPR ratio 1, TPR ratio 0.8 / 0.5 = 1.6, selection 1.27
    widget(app, "selectbox", "Distance").set_value("ratio").run()
    assert not app.exception
    shown = verdicts(app)
    assert shown["False positive rate band: false positive rate disparity (ratio)"][0] == "Pass"
    assert shown["True positive rate band: true positive rate disparity (ratio)"][0] == "Fail"
    assert shown["Selection rate band: selection rate disparity (ratio)"][0] == "Inconclusive"
    assert f"(ratio) {sel.max() / sel.min():.3g} (95 % interval" in \
        shown["Selection rate band: selection rate disparity (ratio)"][1]
    assert not any("(difference)" in k for k in shown)  # never a difference bound under ratio
    assert not any(w.label == "Maximum difference" for w in app.number_input)
    # a tighter user bound turns the selection-rate verdict into a failure
    widget(app, "selectbox", "Distance").set_value("diff").run()
    widget(app, "number_input", "Maximum difference").set_value(0.05).run()
    assert verdicts(app)["Selection rate disparity (difference)"][0] == "Fail"
    # without intervals the point value decides, and the sentence says so
    widget(app, "checkbox", "Show intervals").set_value(False).run()
    widget(app, "number_input", "Maximum difference").set_value(0.1).run()
    status, sentence = verdicts(app)["Selection rate disparity (difference)"]
    assert status == "Pass" and "no interval was available" in sentence


def test_a_zero_rate_is_named_with_its_count_under_ratio(app):
    # C: 69 actual negatives, none flagged; A and B flag some.
    rows = ([("A", 0, 0.8)] * 40 + [("A", 0, 0.2)] * 60 + [("A", 1, 0.8)] * 70 + [("A", 1, 0.2)] * 30
            + [("B", 0, 0.8)] * 25 + [("B", 0, 0.2)] * 75 + [("B", 1, 0.8)] * 60 + [("B", 1, 0.2)] * 40
            + [("C", 0, 0.2)] * 69 + [("C", 1, 0.8)] * 30 + [("C", 1, 0.2)] * 10)
    frame = pd.DataFrame(rows, columns=["group", "outcome", "risk"])
    map_upload(app, "zero.csv", frame.to_csv(index=False).encode())
    app.switch_page(RATE_PAGE).run()
    widget(app, "selectbox", "Distance").set_value("ratio").run()
    value, captions = tile(app, "False positive rate disparity (max)")
    assert value == "∞"
    assert "C has a false positive rate of 0 (0 of 69 actual negatives)" in unescape(captions[0])
    widget(app, "selectbox", "Reduction").set_value("mean").run()
    value, captions = tile(app, "False positive rate disparity (mean)")
    # the mean of the two finite ratios (A and B against the rest), from pandas
    neg = frame[frame["outcome"] == 0].assign(flagged=lambda d: d["risk"] >= 0.5)
    finite = []
    for g in ("A", "B"):
        a, b = neg.loc[neg["group"] == g, "flagged"].mean(), neg.loc[neg["group"] != g, "flagged"].mean()
        finite.append(max(a, b) / min(a, b))
    assert value == f"{formats.tile(np.mean(finite))}"
    caption = unescape(captions[0])
    assert caption.startswith("Mean of 2 comparisons")
    assert "1 infinite left out: C has a false positive rate of 0 (0 of 69 actual negatives)" in caption
    assert not app.exception


def test_subgroup_auc_page_intervals_worst_subgroups_and_findings(app, compas_csv):
    frame = load_compas(app, compas_csv)
    app.switch_page(AUC_PAGE).run()
    assert not app.exception
    y = (frame["two_year_recid"] == 1).to_numpy()
    score = frame["decile_score"].to_numpy()
    overall = roc_auc_score(y, score)
    value, captions = tile(app, "Overall AUC")
    assert value == f"{formats.tile(overall)}"
    groups = fc.Subgroups.from_attributes(frame, ["race"], intersect=True, min_size=30)
    table = fc.bias_auc_table(y, score, groups, ci=0.95, n_boot=1000, random_state=0)
    low, high = table.attrs["overall_auc_ci"]
    assert interval(captions[0]) == (0.95, as_shown(low), as_shown(high))
    assert low < overall < high
    summary = fc.summarize_bias_auc(table)
    value, captions = tile(app, "Bias AUC score")
    assert value == f"{formats.tile(summary.value)}"
    assert interval(captions[0]) == (0.95, as_shown(summary.ci_low), as_shown(summary.ci_high))

    # The table and chart carry DeLong intervals.
    shown = app.dataframe[0].value.set_index("subgroup").loc[table["subgroup"]]  # shown lowest AUC first
    np.testing.assert_allclose(shown["subgroup_auc_ci_low"], table["subgroup_auc_ci_low"])
    auc_trace = figures(app)[0]["data"][0]
    assert auc_trace["name"] == "Subgroup AUC" and auc_trace["error_x"]["type"] == "data"

    # The lowest AUC of each column among the subgroups used (>= 30 rows), from scikit-learn.
    aucs = {}
    for race in frame["race"].unique():
        member = (frame["race"] == race).to_numpy()
        if member.sum() < 30:
            continue
        sub = roc_auc_score(y[member], score[member])
        bpsn_rows = (member & ~y) | (~member & y)
        bnsp_rows = (member & y) | (~member & ~y)
        aucs[race] = {"subgroup_auc": sub, "bpsn_auc": roc_auc_score(y[bpsn_rows], score[bpsn_rows]),
                      "bnsp_auc": roc_auc_score(y[bnsp_rows], score[bnsp_rows]), "size": int(member.sum())}
    assert "Native American" not in aucs  # 18 rows: small, left out of the power means
    for label, column in (("Power mean: subgroup", "subgroup_auc"), ("Power mean: BPSN", "bpsn_auc"),
                          ("Power mean: BNSP", "bnsp_auc")):
        lowest = min(aucs, key=lambda r: aucs[r][column])
        _, captions = tile(app, label)
        caption = unescape(captions[0])
        assert f"Lowest: {lowest} {formats.num(aucs[lowest][column])} ({aucs[lowest]['size']:,} rows" in caption
        pm_low, pm_high = summary.power_mean_ci[column]
        assert interval(caption) == (0.95, as_shown(pm_low), as_shown(pm_high))
    assert min(aucs, key=lambda r: aucs[r]["bpsn_auc"]) == "African-American"

    # Findings: the lowest AUC of each kind whose interval lies entirely below the overall AUC.
    panel = unescape(findings(app))
    by = table.set_index("subgroup")
    for column, name in (("subgroup_auc", "subgroup AUC"), ("bpsn_auc", "BPSN AUC"), ("bnsp_auc", "BNSP AUC")):
        below = [r for r in aucs if by.loc[r, f"{column}_ci_high"] < overall]
        if below:
            lowest = min(below, key=lambda r: aucs[r][column])
            assert f"The {name} of {lowest} is {aucs[lowest][column]:.4f} (95 % CI" in panel
    assert "The BPSN AUC of African-American is 0.5275" in panel
    assert f"below the overall AUC of {overall:.4f} across its whole interval" in panel
