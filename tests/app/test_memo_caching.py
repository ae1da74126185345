"""Caching by dependency: each control change recomputes only what depends on it, results are kept per
session (never shared between sessions), and the memo is bounded."""

from collections import Counter

import pytest
from streamlit.testing.v1 import AppTest

import fairness_core as fc
from tests.app.helpers import ROOT, each_section, metrics, widget
from fairness_dashboard.data import analysis
from fairness_dashboard.results import computations
from fairness_dashboard.session import memo


@pytest.fixture
def calls(monkeypatch):
    """Counts of the calls that read rows: validation, confusion and threshold counts, the AUC table,
    calibration counts."""
    seen = Counter()

    def counting(name, function):
        def wrapper(*args, **kwargs):
            seen[name] += 1
            return function(*args, **kwargs)
        return wrapper

    from_frame = fc.ScoredData.from_frame
    monkeypatch.setattr(fc.ScoredData, "from_frame", classmethod(
        lambda cls, *args, **kwargs: counting("from_frame", from_frame)(*args, **kwargs)))
    for name in ("confusion_counts", "threshold_counts", "bias_auc_table", "calibration_counts"):
        monkeypatch.setattr(fc, name, counting(name, getattr(fc, name)))
    return seen


def fresh() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    return at


def test_each_change_recomputes_only_what_depends_on_it(calls):
    at = fresh()
    at.switch_page("pages/rate_disparities.py").run()
    widget(at, "radio", "Predictions from").set_value("score:score_logistic").run()
    assert calls["from_frame"] == 1  # the sample's rows were validated once
    assert calls["threshold_counts"] == 1  # and the score column sorted once

    calls.clear()
    for reference in ("overall", "pairwise"):
        widget(at, "selectbox", "Reference").set_value(reference).run()
    widget(at, "selectbox", "Distance").set_value("ratio").run()
    widget(at, "selectbox", "Reduction").set_value("mean").run()
    assert not at.exception and not calls  # post-aggregation options: no counting of rows

    for threshold in (0.7, 0.3, 0.62):
        widget(at, "number_input", "Decision threshold").set_value(threshold).run()
    assert not at.exception and not calls  # a threshold change: lookups in the sorted scores, no pass over rows

    calls.clear()
    widget(at, "number_input", "Decision threshold").set_value(0.5).run()
    at.switch_page("pages/data.py").run()
    at.switch_page("pages/rate_disparities.py").run()
    assert not calls  # values seen before, and a page switch, are answered from the memo

    at.switch_page("pages/subgroup_aucs.py").run()
    widget(at, "number_input", "Power mean p").set_value(2.0).run()
    widget(at, "slider", "Overall AUC weight").set_value(0.5).run()
    assert calls["bias_auc_table"] == 1 and calls["from_frame"] == 0  # one AUC table; p and weight reuse it

    calls.clear()
    before = metrics(at)["Bias AUC score"]
    widget(at, "number_input", "Minimum subgroup size").set_value(200).run()
    assert not at.exception
    assert calls["from_frame"] == 0  # a new minimum size re-flags the subgroups; rows are not validated again
    assert metrics(at)["Bias AUC score"] != before  # ... and small subgroups leave the power means


def test_results_are_kept_per_session(calls):
    fresh().switch_page("pages/calibration.py").run()
    first = calls["calibration_counts"]
    fresh().switch_page("pages/calibration.py").run()
    assert first >= 1 and calls["calibration_counts"] == 2 * first  # a new session computes its own


def test_memo_is_bounded_and_runs_plainly_outside_a_session():
    runs = Counter()

    @memo.memo(2)
    def square(x, _big=None):
        runs[x] += 1
        return x * x

    assert square(3) == square(3) == 9 and runs[3] == 2  # no session here: no memo
    assert square.peek(3) is None
    assert analysis.scored_rows.__wrapped__ is not None and computations.consistency.peek is not None


def test_memo_keeps_the_most_recent_entries_of_a_session():
    def script():
        import streamlit as st

        from fairness_dashboard.session.memo import memo

        @memo(2)
        def double(x, _ignored=None):
            st.session_state["runs"] = st.session_state.get("runs", 0) + 1
            return 2 * x

        for x in (1, 2, 3, 2, 3):
            double(x, _ignored=object())
        st.write(str([dict(key)["x"] for key in double.keys()]))
        st.write(str(st.session_state["runs"]))

    at = AppTest.from_function(script)
    at.run()
    assert not at.exception
    assert [m.value for m in at.markdown] == ["[2, 3]", "3"]  # least recently used out; hits do not run


def page_views(at: AppTest, pages) -> dict:
    """Every metric and table each page shows (in each of its secondary sections)."""
    views = {}
    for page in pages:
        at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        shown, tables = {}, []
        for _ in each_section(at, page):
            shown.update(metrics(at))
            tables += [frame.value for frame in at.dataframe]
        views[page] = (shown, tables)
    return views


def test_a_new_minimum_size_reflags_memoized_counts_exactly(calls):
    from tests.app.helpers import PAGES

    # Discover subgroups and Over time compute from the rows with the minimum size (the search counts only
    # intersections that large; each period's review flags its own small subgroups): they are memoized on it instead.
    pages = [p for p in PAGES if p not in ("pages/data.py", "pages/definitions.py", "pages/discover.py",
                                           "pages/over_time.py")]
    reused = fresh()
    page_views(reused, pages)  # every count table memoized at the default minimum size (30)
    calls.clear()
    widget(reused, "number_input", "Minimum subgroup size").set_value(200).run()
    after = page_views(reused, pages)
    assert not calls  # nothing was counted again
    direct = fresh()
    widget(direct, "number_input", "Minimum subgroup size").set_value(200).run()
    expected = page_views(direct, pages)  # counted from scratch at 200
    for page in pages:
        assert after[page][0] == expected[page][0], page
        assert len(after[page][1]) == len(expected[page][1])
        for shown, fresh_table in zip(after[page][1], expected[page][1]):
            assert shown.equals(fresh_table), page


def test_a_slice_that_keeps_every_row_reuses_the_unsliced_rows(calls):
    at = fresh()
    at.switch_page("pages/rate_disparities.py").run()
    before = metrics(at)
    calls.clear()
    widget(at, "multiselect", "Slice by").set_value(["sex"]).run()  # every value chosen: every row kept
    assert not at.exception and not calls and metrics(at) == before
    widget(at, "multiselect", "sex").set_value(["Female"]).run()
    assert not at.exception and calls["from_frame"] == 1 and metrics(at) != before
