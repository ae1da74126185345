"""AppTest: weighted words. A column named like ``sampling_weight`` is proposed as sample weights,
never applied unasked (weights change every number); once chosen, every count of positives and negatives a page
shows is said as weights beside the effective rows, "56 effective rows, weight 70 (25 positive and 45 negative by
weight)", never "56 rows: 25 positive, 45 negative" (25 + 45 != 56); the "(no weights ...)" choice is then shown as
chosen (its placeholder in Chromium: tests/browser/test_weights_browser.py)."""

from __future__ import annotations

import re

import numpy as np

import fairness_core as fc
from tests.app.helpers import PAGES, csv_bytes, scored_table, start, widget
from tests.app.test_intervals_ui import upload
from tests.app.test_outcome_words_app import _texts
from fairness_dashboard.presentation import labels
from fairness_dashboard.session import state

WEIGHTED = re.compile(r"([\d,]+) effective rows, weight ([\d,]+) \(([\d,]+) (?:labelled )?positive and ([\d,]+) "
                      r"(?:labelled )?negative by weight\)")
ROWS = re.compile(r"[\d,]+ rows: [\d,]+ (?:labelled )?positive, [\d,]+ (?:labelled )?negative")


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def test_a_sampling_weight_is_proposed_never_applied_and_weighted_counts_are_said_as_weights():
    frame = scored_table(3000, seed=11)
    rng = np.random.default_rng(5)
    frame["sampling_weight"] = np.round(rng.uniform(0.2, 4.0, len(frame)) * np.where(frame["race"] == "Black", 3, 1), 3)
    app = start()
    upload(app, "survey.csv", csv_bytes(frame))
    assert not app.exception and not app.error
    # proposed from its name and values, not applied: the box shows the "(no weights ...)" choice
    assert fc.guess_mapping(frame).weight == "sampling_weight" and fc.guess_mapping(frame).mapping.weight is None
    assert widget(app, "selectbox", labels.WEIGHT_COLUMN).value is None
    assert app.session_state[state.MAPPING].weight is None
    assert any("**sampling\\_weight** looks like a column of sample weights" in c.value for c in app.caption)
    next(b for b in app.button if b.label == "Weigh the rows by sampling\\_weight").click().run()   # escaped name
    assert widget(app, "selectbox", labels.WEIGHT_COLUMN).value == "sampling_weight"
    mapping = app.session_state[state.MAPPING]
    assert mapping.weight == "sampling_weight"

    seen = []
    for page in PAGES:
        app.switch_page(page).run()
        assert not app.exception and not app.error, page
        text = _texts(app)
        assert not ROWS.search(text), (page, ROWS.search(text).group(0))   # rows and weights never mixed
        for found in WEIGHTED.finditer(text):
            effective, weight, pos, neg = map(_number, found.groups())
            assert abs(pos + neg - weight) <= 1, found.group(0)   # the parts add up to the weight (rounded)
            seen.append((page, found.group(0)))
    # the Subgroup AUCs page's power-mean tiles name the lowest subgroup with its weighted counts (the library's)
    scored = fc.ScoredData.from_frame(frame, mapping)
    table = fc.bias_auc_table(scored.y_true, scored.scores["score_a"], scored.subgroups, sample_weight=scored.weights)
    used = table[~table["small"].astype(bool)]
    row = used.loc[used["subgroup_auc"].astype(float).idxmin()]
    want = (f"{row['size']:,.0f} effective rows, weight {row['n_positive'] + row['n_negative']:,.0f} "
            f"({row['n_positive']:,.0f} positive and {row['n_negative']:,.0f} negative by weight)")
    assert ("pages/subgroup_aucs.py", want) in seen, seen

    # taken off again: the box holds the "(no weights ...)" choice (None), and the counts are rows again
    app.switch_page("pages/data.py").run()
    widget(app, "selectbox", labels.WEIGHT_COLUMN).set_value(None).run()
    assert not app.exception
    assert widget(app, "selectbox", labels.WEIGHT_COLUMN).value is None
    assert app.session_state[state.MAPPING].weight is None
    app.switch_page("pages/subgroup_aucs.py").run()
    assert not WEIGHTED.search(_texts(app)) and ROWS.search(_texts(app))
