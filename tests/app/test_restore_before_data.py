"""AppTest: a configuration restored before its data is kept until a file with its columns is loaded, then applied
without a second restore (as a link's settings wait for their file)."""

import fairness_core as fc
from tests.app.helpers import csv_bytes, scored_table, widget
from tests.app.review_helpers import restore, upload
from fairness_dashboard.settings import review_restore


def _saved_config() -> bytes:
    """A saved review of the generated table: score_b, protected sex, small subgroups included, 500 resamples."""
    mapping = fc.ColumnMapping(label="label", positive_label=1, scores=("score_a", "score_b"), protected=("sex",),
                               predicted_label="approved")
    config = fc.ReviewConfig(mapping=mapping, n_boot=500, include_small=True,
                             view=(("source", {"name": "scored.csv", "sha256": None}), ("model", "score_b")))
    return config.to_json().encode()


def test_restore_first_then_upload_applies_the_saved_options(app):
    restore(app, "review-config.json", _saved_config())   # the credit sample is loaded: no column fits
    assert not app.exception and not app.error, [e.value for e in app.error]
    waiting = [i.value for i in app.info if i.value.startswith("Waiting for the data")]
    assert len(waiting) == 1
    assert "until its data file, **scored\\.csv** is loaded" in waiting[0]
    assert "lacks its columns label, score\\_a, score\\_b." in waiting[0]
    assert widget(app, "selectbox", "Label column").value == "repaid"   # nothing applied yet
    assert app.session_state[review_restore.WAITING] is not None

    upload(app, "scored.csv", csv_bytes(scored_table(2_000)))   # no second restore
    assert not app.exception and not app.error, [e.value for e in app.error]
    assert [t.value for t in app.toast] == ["Restored the review's settings on the data just loaded."]
    assert not any(i.value.startswith("Waiting for the data") for i in app.info)
    assert review_restore.WAITING not in app.session_state
    assert widget(app, "selectbox", "Label column").value == "label"
    assert widget(app, "multiselect", "Score column").value == ["score_a", "score_b"]
    assert widget(app, "multiselect", "Protected attributes").value == ["sex"]
    assert widget(app, "selectbox", "Predicted label column").value == "approved"
    assert widget(app, "selectbox", "Model").value == "score_b"
    assert widget(app, "selectbox", "Bootstrap replicates").value == 500
    assert widget(app, "checkbox", "Include small subgroups in summaries").value is True


def test_a_restore_waiting_for_its_data_can_be_forgotten(app):
    restore(app, "review-config.json", _saved_config())
    widget(app, "button", "Forget the restored review").click().run()
    assert not any(i.value.startswith("Waiting for the data") for i in app.info)
    upload(app, "scored.csv", csv_bytes(scored_table(2_000)))
    assert not app.toast
    assert widget(app, "multiselect", "Protected attributes").value != ["sex"]   # the first guess, not the review
