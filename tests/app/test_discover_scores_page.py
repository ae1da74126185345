"""AppTest: the Discover subgroups page offers the BPSN and BNSP AUCs and the calibration error of the Model's score
(the calibration error only for a probability) and shows what ``fc.discover_subgroups`` finds for them; mapped
identity columns define only their members."""

import numpy as np
import pandas as pd

import fairness_core as fc
from fairness_dashboard.presentation import labels
from fairness_dashboard.sections import discover
from fairness_dashboard.session import state
from tests.app.helpers import csv_bytes, scored_table, start, widget
from tests.app.review_helpers import upload
from tests.app.test_discover_page import COLUMNS, PAGE, credit, shown_table


def test_the_quantities_of_a_score_are_offered_and_are_the_direct_calls():
    at = start()
    at.switch_page(PAGE).run()
    widget(at, "multiselect", "Columns to search").set_value(COLUMNS).run()
    compare = widget(at, "selectbox", "Compare")
    assert {discover.QUANTITY_LABELS[q] for q in ("subgroup_auc", "bpsn_auc", "bnsp_auc", "calibration_error")} <= set(
        compare.options)   # the options as shown
    data = credit()
    y = (data["repaid"] == 1).astype(int)
    score = at.session_state[state.MODEL]
    for quantity in ("bpsn_auc", "bnsp_auc", "calibration_error"):
        widget(at, "selectbox", "Compare").set_value(quantity).run()
        assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
        direct = fc.discover_subgroups(y, y, data[COLUMNS], y_score=data[score], quantity=quantity, depth=2).table
        shown = shown_table(at)
        assert list(shown["Subgroup"]) == [s.replace("=", " = ").replace(" & ", " and ") for s in direct["subgroup"]]
        np.testing.assert_allclose(shown["Subgroup value"], direct["value"], rtol=1e-12)   # as they are
        np.testing.assert_allclose(shown["Difference"], direct["difference"], rtol=1e-12)
        assert list(shown["Interval"]) == [discover.SMALL_TEXT if small else f"{lo:+.3f} to {hi:+.3f}"
                                           for lo, hi, small in zip(direct["ci_low"], direct["ci_high"],
                                                                    direct["small"])]
        assert list(shown["Excludes parity"]) == list(direct["excludes_parity"])
        captions = " ".join(c.value for c in at.caption)
        assert ("calibration error" if quantity == "calibration_error" else "AUC among everyone else") in captions


def test_no_calibration_error_for_a_score_outside_zero_one():
    frame = scored_table(1500, seed=3)
    frame["risk"] = np.round(frame["score_a"] * 10, 2)   # a 0-10 risk score, not a probability
    scored = fc.ScoredData.from_frame(frame, fc.ColumnMapping(label="label", positive_label=1,
                                                             scores=("risk", "score_a"), protected=("race",)))
    assert "calibration_error" not in discover.score_quantities(scored, "risk")
    assert discover.score_quantities(scored, "score_a") == list(discover.SCORE_QUANTITIES)


def test_identity_columns_define_only_their_members():
    frame = scored_table(4000, seed=21)
    rng = np.random.default_rng(21)
    frame["gay"] = rng.choice([0, 1], len(frame), p=[0.8, 0.2])
    frame["muslim"] = rng.choice([0, 1], len(frame), p=[0.85, 0.15])
    frame["approved"] = np.where((frame["gay"] == 1) & (frame["sex"] == "Female"), 0, frame["approved"])
    at = start()
    upload(at, "identities.csv", csv_bytes(frame))
    widget(at, "multiselect", labels.IDENTITY).set_value(["gay", "muslim"]).run()
    mapping = at.session_state[state.MAPPING]
    assert mapping.indicators == ("gay", "muslim")
    at.switch_page(PAGE).run()
    searched = ["race", "sex", "gay", "muslim"]
    widget(at, "multiselect", "Columns to search").set_value(searched).run()
    widget(at, "radio", "Predictions from").set_value("given").run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    shown = shown_table(at)
    assert not shown["Subgroup"].str.contains("gay = 0|muslim = 0").any()
    scored = fc.ScoredData.from_frame(frame, mapping)
    direct = fc.discover_subgroups(scored.y_true, scored.predicted, frame[searched], n_bins=mapping.n_bins,
                                   positive_outcome=mapping.positive_outcome, indicators=["gay", "muslim"]).table
    assert list(shown["Subgroup"]) == [s.replace("=", " = ").replace(" & ", " and ") for s in direct["subgroup"]]
    assert shown["Subgroup"].iloc[0] == "sex = Female and gay = 1"
    plain = fc.discover_subgroups(scored.y_true, scored.predicted, frame[searched], n_bins=mapping.n_bins,
                                  positive_outcome=mapping.positive_outcome, top_k=50).table
    assert pd.Series(plain["subgroup"]).str.contains("gay=0|muslim=0").any()   # what the page no longer offers
