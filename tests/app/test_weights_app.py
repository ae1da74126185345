"""AppTest: a weight column is proposed from its name and values on the Data page (never applied unasked), and once
chosen the page shows the effective sample size; every page's tiles are then the weighted numbers (each against the library's weighted computation of the
same mapping, which tests/fairness_core checks against scikit-learn, Fairlearn and literal formulas) and differ
from the unweighted ones; taking the weights off gives the unweighted numbers back."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import fairness_core as fc
from tests.app.helpers import csv_bytes, metrics, scored_table, widget
from tests.app.test_intervals_ui import upload
from fairness_dashboard.presentation import formats, labels
from fairness_dashboard.session import state


def _frame():
    frame = scored_table(4000, seed=3)
    rng = np.random.default_rng(1)
    # weights that depend on the group, the label and the score, so that every weighted number moves
    frame["weight"] = np.where(frame["race"] == "Black", 3.0, 1.0) * np.where(frame["label"] == 1, 0.6, 1.0) \
        * np.exp(1.5 * frame["score_a"]) * rng.lognormal(0, 0.3, len(frame))
    return frame


def _expected(frame, mapping, threshold: float) -> dict:
    """The tiles each page shows, computed by the library from the rows with the mapping's weights (or none)."""
    scored = fc.ScoredData.from_frame(frame, mapping)
    y, groups, w = scored.y_true, scored.subgroups, scored.weights
    score = scored.scores[mapping.scores[0]]
    counts = fc.threshold_counts(y, score, groups, sample_weight=w).at(threshold)
    labels_ = fc.confusion_counts(y, y, groups, sample_weight=w)
    return {
        "Base rate (share positive)": scored.base_rate,
        "Overall AUC": roc_auc_score(y, score, sample_weight=w),
        "False positive rate disparity (max)": counts.disparity("false_positive_rate", reduction="max").value,
        "ECE disparity (max)": fc.calibration_counts(y, score, groups, sample_weight=w).disparity(
            reduction="max").disparity.value,
        "Base-rate disparity (max)": labels_.disparity("statistical_parity", reduction="max").value,
    }


PAGES = {"Base rate (share positive)": "pages/overview.py", "Overall AUC": "pages/subgroup_aucs.py",
         "False positive rate disparity (max)": "pages/rate_disparities.py",
         "ECE disparity (max)": "pages/calibration.py", "Base-rate disparity (max)": "pages/dataset_metrics.py"}


def _shown(app) -> dict:
    out = {}
    for tile, page in PAGES.items():
        app.switch_page(page).run()
        assert not app.exception, page
        out[tile] = metrics(app)[tile]
    return out


def test_a_weight_column_weights_every_page_and_shows_the_effective_size(app):
    frame = _frame()
    upload(app, "weighted.csv", csv_bytes(frame))
    assert not app.exception and not app.error
    # proposed from its name and values, not applied: weights change every number
    assert widget(app, "selectbox", labels.WEIGHT_COLUMN).value is None
    assert app.session_state[state.MAPPING].weight is None
    assert any("**weight** looks like a column of sample weights" in c.value for c in app.caption)
    next(b for b in app.button if b.label == "Weigh the rows by weight").click().run()
    assert not app.exception
    assert widget(app, "selectbox", labels.WEIGHT_COLUMN).value == "weight"
    assert not [b for b in app.button if b.label.startswith("Weigh the rows by")]
    w = frame["weight"].to_numpy()
    effective = w.sum() ** 2 / (w ** 2).sum()
    assert any(f"effective sample size {effective:,.0f} (Kish)" in c.value for c in app.caption)
    mapping = app.session_state[state.MAPPING]
    assert mapping.weight == "weight"
    app.switch_page("pages/rate_disparities.py").run()
    threshold = float(widget(app, "number_input", "Decision threshold").value)

    weighted = _shown(app)
    want = _expected(frame, mapping, threshold)
    unweighted = _expected(frame, fc.ColumnMapping(**{**mapping.__dict__, "weight": None}), threshold)
    for tile, value in want.items():
        assert weighted[tile] == formats.tile(value), (tile, weighted[tile], value)
        assert formats.tile(value) != formats.tile(unweighted[tile]), tile   # the weights change every one
    app.switch_page("pages/overview.py").run()
    assert any(m.value.startswith("Weighted: ") or "Weighted: " in m.value for m in app.markdown)

    app.switch_page("pages/data.py").run()
    widget(app, "selectbox", labels.WEIGHT_COLUMN).set_value(None).run()
    assert not app.exception
    assert not any("effective sample size" in c.value for c in app.caption)
    plain = _shown(app)
    for tile, value in unweighted.items():
        assert plain[tile] == formats.tile(value), (tile, plain[tile], value)


def test_the_link_and_a_saved_configuration_keep_the_weight_column(app):
    """The page's link holds the weight column, and a configuration restored onto the same file maps it again."""
    from tests.app.helpers import start
    from tests.app.review_helpers import restore
    from fairness_dashboard.settings import review_url

    frame = _frame()
    data = csv_bytes(frame)
    upload(app, "weighted.csv", data)
    next(b for b in app.button if b.label == "Weigh the rows by weight").click().run()
    param = app.query_params["review"]
    config = review_url.decode(param[0] if isinstance(param, list) else param)
    assert config.mapping.weight == "weight"
    fresh = start()
    upload(fresh, "weighted.csv", data)
    widget(fresh, "selectbox", labels.WEIGHT_COLUMN).set_value(None).run()   # taken off, then restored
    assert fresh.session_state[state.MAPPING].weight is None
    restore(fresh, "review-config.json", config.to_json().encode())
    assert not fresh.exception and not fresh.error
    fresh.switch_page("pages/data.py").run()
    assert widget(fresh, "selectbox", labels.WEIGHT_COLUMN).value == "weight"
    assert fresh.session_state[state.MAPPING].weight == "weight"


def test_weights_on_data_counted_where_it_lies_show_the_uploads_numbers(monkeypatch, tmp_path):
    """"Data on this machine" with a weight column: DuckDB sums the weights where the rows lie, the Data page shows
    the same effective sample size and every page the same (weighted) tiles as the same rows uploaded."""
    from tests.app.test_local_source import _map, _opened

    _frame().to_parquet(tmp_path / "rows.parquet", index=False)
    shown = []
    for source in ("local", "upload"):
        at = _opened(monkeypatch, tmp_path, "rows.parquet", source)
        widget(at, "selectbox", labels.WEIGHT_COLUMN).set_value("weight").run()   # chosen: never applied unasked
        _map(at, ("race",))
        assert not at.exception and not at.error, [e.value for e in at.error]
        assert at.session_state[state.MAPPING].weight == "weight"
        tiles = {"caption": next(c.value for c in at.caption if c.value.startswith("Weighted by weight"))}
        for page in PAGES.values():
            at.switch_page(page).run()
            assert not at.exception and not at.error, (source, page, [e.value for e in at.error])
            tiles |= {f"{page}: {k}": v for k, v in metrics(at).items()}
        shown.append(tiles)
    counted, upload = shown
    assert counted == upload


def test_the_correlation_score_with_weights_says_it_has_no_interval(app):
    """The correlation section with weights: the weighted Pearson correlation (the library's), and a caption saying
    why it has no interval, not an error."""
    from tests.app.helpers import open_section

    frame = _frame()
    upload(app, "weighted.csv", csv_bytes(frame))
    widget(app, "selectbox", labels.WEIGHT_COLUMN).set_value("weight").run()
    open_section(app, "rates:section", "Correlation", run=False)
    app.switch_page("pages/rate_disparities.py").run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    assert any("no interval with sample weights" in c.value for c in app.caption)
    column = widget(app, "selectbox", "Correlate predictions with").value
    scored = fc.ScoredData.from_frame(frame, app.session_state[state.MAPPING])
    threshold = float(widget(app, "number_input", "Decision threshold").value)
    want = fc.correlation_score(scored.y_pred("score_a", threshold), frame[column].to_numpy(dtype=float)[scored.rows],
                                sample_weight=scored.weights)
    shown = next(v for k, v in metrics(app).items() if k.startswith("Correlation score"))
    assert shown == formats.tile(float(want))


def test_a_body_weight_is_neither_applied_nor_proposed(app):
    """A column named weight holding kilograms made every count a sum of kilograms."""
    frame = scored_table(2000, seed=4)
    frame["weight"] = np.round(np.random.default_rng(2).normal(75, 12, len(frame)), 1)   # kg
    upload(app, "people.csv", csv_bytes(frame))
    assert not app.exception and not app.error
    assert widget(app, "selectbox", labels.WEIGHT_COLUMN).value is None
    assert not [b for b in app.button if b.label.startswith("Weigh the rows by")]
    assert not any("effective sample size" in c.value for c in app.caption)
    assert metrics(app)["Rows used"] == "2,000"


@pytest.mark.parametrize("value, word", [(1e308, "large"), (1e-320, "small")])
def test_weights_out_of_a_float_s_range_are_refused_with_a_message(app, value, word):
    """All-1e308 or all-1e-320 weights crashed the Overview."""
    frame = scored_table(500, seed=5)
    frame["w"] = value
    upload(app, f"w{word}.csv", csv_bytes(frame))
    widget(app, "selectbox", labels.WEIGHT_COLUMN).set_value("w").run()
    assert not app.exception
    assert any(f"has weights as {word} as" in e.value and "rescale the column" in e.value for e in app.error), \
        [e.value for e in app.error]
    for page in ("pages/overview.py", "pages/calibration.py"):
        app.switch_page(page).run()
        assert not app.exception, (value, page)
