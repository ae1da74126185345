"""fairness_dashboard.sections.comparison_table.draw: the pairwise heatmap above the table only for a pairwise reference, the table sorted
worst first, as each metric page drew it before it was one helper."""

from streamlit.testing.v1 import AppTest


def script(reference: str, order: str):
    import numpy as np
    import pandas as pd
    import streamlit as st

    import fairness_core as fc
    from fairness_dashboard.sections import comparison_table
    from fairness_dashboard.session import state

    st.session_state[state.KEEP_PREFIX + "subgroups:order"] = order
    rng = np.random.default_rng(0)
    group = rng.choice(["a", "b", "c"], 600)
    y_true, y_pred = rng.integers(0, 2, 600), rng.integers(0, 2, 600)
    counts = fc.confusion_counts(y_true, y_pred, fc.Subgroups.from_attributes(pd.DataFrame({"g": group}), ["g"]))
    table = counts.disparity("statistical_parity", reference=reference).table
    comparison_table.draw(table, pairwise=reference == "pairwise", order=None, level=None,
                          title="Selection rate: every pair of subgroups", distance_measure="diff",
                          value_label="selection rate")


def run(reference: str, order: str = "worst") -> AppTest:
    at = AppTest.from_function(script, args=(reference, order), default_timeout=60)
    at.run()
    assert not at.exception
    return at


def test_a_pairwise_reference_draws_the_heatmap_then_the_table_worst_first():
    at = run("pairwise")
    charts = at.get("plotly_chart")
    assert len(charts) == 1 and "every pair of subgroups" in charts[0].proto.spec
    shown = at.dataframe[0].value
    assert list(shown["disparity"]) == sorted(shown["disparity"], reverse=True)


def test_another_reference_draws_the_table_alone_in_its_own_order_by_name():
    at = run("rest", order="name")
    assert len(at.get("plotly_chart")) == 0 and len(at.dataframe) == 1
    assert list(at.dataframe[0].value["subgroup"]) == ["a", "b", "c"]
