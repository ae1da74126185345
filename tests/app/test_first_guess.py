"""AppTest: the first screen after an upload whose mapping guess is incomplete says, in one sentence per
role, what to choose, and is never an error."""

import numpy as np
import pandas as pd

from fairness_core._data.mapping_guess import MISSING_GROUPS, MISSING_OUTPUT
from tests.app.helpers import metrics, widget
from tests.app.test_intervals_ui import upload


def test_an_incomplete_first_guess_says_what_to_choose_instead_of_an_error(app):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"outcome": rng.integers(0, 2, 200), "risk_score": rng.random(200),
                          "region": rng.choice(list("NSEW"), 200)})
    upload(app, "no_groups.csv", frame.to_csv(index=False).encode())
    assert not app.exception and not app.error
    shown = [i.value for i in app.info]
    assert any(MISSING_GROUPS in v and "first guess" in v for v in shown), shown
    # Choosing the missing role completes the mapping.
    widget(app, "multiselect", "Protected attributes").set_value(["region"]).run()
    assert not app.exception and not app.error and metrics(app)["Rows used"] == "200"


def test_no_score_and_no_group_are_both_named(app):
    frame = pd.DataFrame({"outcome": [0, 1] * 50, "region": list("NS") * 50, "amount": np.arange(100.0)})
    upload(app, "bare.csv", frame.to_csv(index=False).encode())
    assert not app.exception and not app.error
    assert any(MISSING_OUTPUT in i.value and MISSING_GROUPS in i.value for i in app.info)
