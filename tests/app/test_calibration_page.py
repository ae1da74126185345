"""AppTest: the Calibration page with intervals, findings and its policy verdict, on the bundled credit sample.

Expected numbers come from fairness_core called directly on the sample file with the app's options
(uniform bins, ten of them, reference rest, max, 95 %, 1,000 resamples, seed 0).
"""

import re

import pytest

import fairness_core as fc
from tests.app.helpers import CI, figures, open_section, tile, widget
from fairness_dashboard.data.loading import SAMPLE_DIR, SAMPLES
from fairness_dashboard.presentation import formats, labels

PAGE = "pages/calibration.py"
TILE = "ECE disparity (max)"


@pytest.fixture(scope="module")
def credit_counts():
    frame = fc.read_table(SAMPLE_DIR / SAMPLES["credit"]["file"])
    scored = fc.ScoredData.from_frame(frame, SAMPLES["credit"]["mapping"])
    return fc.calibration_counts(scored.y_true, scored.scores["score_logistic"], scored.subgroups)




def badges(app) -> list[tuple[str, str, str]]:
    """(colour, label, sentence without escapes) of every badge line on the page."""
    found = []
    for md in app.markdown:
        m = re.match(r":(\w+)-badge\[([\w ]+)\] (.*)", md.value, flags=re.S)
        if m:
            found.append((m.group(1), m.group(2), m.group(3).replace("\\", "")))
    return found


def findings(app) -> str:
    main = list(app.main)
    at = next(i for i, el in enumerate(main) if getattr(el, "type", "") == "subheader" and el.value == "Findings")
    return main[at + 1].value.replace("\\", "")


def open_page(app):
    app.switch_page(PAGE).run()
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]


def test_page_shows_the_interval_the_verdict_and_the_findings(app, credit_counts):
    open_page(app)
    expected = credit_counts.disparity(ci=0.95, n_boot=1000, random_state=0)
    value, captions = tile(app, TILE)
    assert value == formats.tile(expected.value)
    # The caption names the comparison that drives the max, its size, and the interval of the max.
    worst, _ = expected.disparity.worst
    size = int(expected.table.set_index("subgroup").loc[worst, "size"])
    caption = next(c for c in captions if "CI" in c).replace("\\", "")
    assert f"{worst} vs rest ({size:,} rows)" in caption
    level, low, high = CI.search(caption).groups()
    assert (level, low, high) == ("95", formats.tile(expected.ci_low), formats.tile(expected.ci_high))
    # The verdict badge: the default rule (excess ℓ2 ECE <= 0.1) on the interval.
    status = expected.verdict.status
    label, color = labels.STATUS_BADGES[status]
    shown = badges(app)
    assert (color, label, expected.verdict.sentence) in shown
    assert "(excess ℓ2 ECE)" in expected.verdict.sentence
    # Findings: the driver of the max, in words, with its interval.
    panel = findings(app)
    first = fc.disparity_findings(expected.disparity, "ℓ2 ECE")[0].sentence
    assert first in panel and worst in panel and "The largest ℓ2 ECE difference" in panel
    # Charts: the reliability diagram with Wilson error bars, the ECE chart with bootstrap error bars.
    reliability, ece = figures(app)
    curves = [t for t in reliability["data"] if t.get("error_y")]
    assert curves and all(t["error_y"]["type"] == "data" for t in curves)
    ece_bars = [t for t in ece["data"] if t["type"] == "bar"]
    assert len(ece_bars) == 2 and all(t.get("error_x") for t in ece_bars)
    assert any(s.get("type") == "line" for s in ece["layout"]["shapes"])  # the 0.1 policy line
    # Tables with interval columns (the comparisons in their own section).
    errors = app.dataframe[0].value
    for col in ("l2_ece_ci_low", "l2_ece_ci_high", "squared_ce_ci_low", "brier_score_ci_high"):
        assert col in errors.columns
    # The plug-in ECE and the MCE have no interval (theirs covered 0 % and 0-9 % of calibrated groups).
    assert "mce_ci_low" not in errors.columns and "ece_ci_low" not in errors.columns
    # rows worst first (largest debiased squared error, the quantity judged) by default: compare by subgroup
    assert list(errors["squared_ce"]) == sorted(errors["squared_ce"], reverse=True)
    shown = errors.set_index("subgroup").loc[expected.errors["subgroup"]]
    assert list(shown["l2_ece_ci_low"]) == pytest.approx(list(expected.errors["l2_ece_ci_low"]), abs=1e-12)
    open_section(app, "cal:section", "ECE comparisons")
    comparisons = app.dataframe[0].value
    for col in ("disparity_ci_low", "disparity_ci_high", "excludes_parity", "verdict"):
        assert col in comparisons.columns


@pytest.mark.parametrize("bound", [0.3, 0.15, 0.1])
def test_the_bound_gives_pass_inconclusive_or_fail(app, credit_counts, bound):
    open_page(app)
    widget(app, "number_input", "Maximum excess ℓ2 ECE").set_value(bound).run()
    assert not app.exception
    expected = credit_counts.disparity(threshold=bound, ci=0.95, n_boot=1000, random_state=0)
    label, color = labels.STATUS_BADGES[expected.verdict.status]
    assert (color, label, expected.verdict.sentence) in badges(app)


def test_the_three_verdicts_occur_on_the_sample(credit_counts):
    # The bounds above give all three statuses on this sample (so the AppTest above covers each).
    statuses = [credit_counts.disparity(threshold=b, ci=0.95, n_boot=1000, random_state=0).verdict.status
                for b in (0.3, 0.15, 0.1)]
    assert statuses == ["pass", "inconclusive", "fail"]


def test_a_ratio_is_never_judged_against_the_difference_bound(app, credit_counts):
    open_page(app)
    widget(app, "selectbox", "Distance").set_value("ratio").run()
    assert not app.exception and not app.error
    expected = credit_counts.disparity(distance_measure="ratio", ci=0.95, n_boot=1000, random_state=0)
    value, _ = tile(app, TILE)
    assert value == formats.tile(expected.value) and float(value) >= 1
    shown = badges(app)
    assert [(c, lab) for c, lab, _ in shown] == [("gray", "No rule")]
    assert not any("0.1" in s and "ratio" in s and "exceeds" in s for s in (i.value for i in app.info))
    # With a ratio bound the verdict is in ratio units.
    widget(app, "number_input", "Maximum ratio of ECEs (optional)").set_value(100.0).run()
    assert not app.exception
    judged = credit_counts.disparity(distance_measure="ratio", threshold=100.0, ci=0.95, n_boot=1000,
                                     random_state=0)
    assert judged.verdict.status == "pass"
    assert ("green", "Pass", judged.verdict.sentence) in badges(app)
    assert "(ratio of ECEs)" in judged.verdict.sentence


def test_intervals_off_the_point_decides(app, credit_counts):
    open_page(app)
    widget(app, "checkbox", labels.SHOW_INTERVALS).set_value(False).run()
    assert not app.exception and not app.error
    expected = credit_counts.disparity()
    _, captions = tile(app, TILE)
    assert not any("CI" in c for c in captions)
    label, color = labels.STATUS_BADGES[expected.verdict.status]
    assert (color, label, expected.verdict.sentence) in badges(app)
    assert "no interval was available" in expected.verdict.sentence
    assert "l2_ece_ci_low" not in app.dataframe[0].value.columns


@pytest.mark.parametrize("reference", ["overall", "pairwise", "named"])
def test_every_reference_draws_the_page(app, credit_counts, reference):
    open_page(app)
    widget(app, "selectbox", "Reference").set_value(reference).run()
    assert not app.exception and not app.error
    named = {"named": "Group A"}.get(reference, reference)
    expected = credit_counts.disparity(reference=named, ci=0.95, n_boot=1000, random_state=0)
    value, captions = tile(app, TILE)
    assert value == formats.tile(expected.value)
    assert any(f"95 % CI {formats.tile(expected.ci_low)}–{formats.tile(expected.ci_high)}" in c for c in captions)
    reliability, ece = figures(app)
    # Pairwise comparisons have no single reference per subgroup: the ECE chart keeps only its first panel,
    # and the comparisons (in their own section) are drawn as a subgroup x subgroup heatmap.
    assert len([t for t in ece["data"] if t["type"] == "bar"]) == (1 if reference == "pairwise" else 2)
    against = {"overall": "the whole population", "pairwise": "every other subgroup (pairwise)",
               "named": "the subgroup Group A"}[reference]
    assert any(f"Each subgroup's ℓ2 ECE is compared with {against}; distance: " in c.value for c in app.caption)
    open_section(app, "cal:section", "ECE comparisons")
    reliability, *heatmap = figures(app)
    assert [f["data"][0]["type"] for f in heatmap] == (["heatmap"] if reference == "pairwise" else [])
    assert len(app.dataframe[0].value) == len(expected.table)
