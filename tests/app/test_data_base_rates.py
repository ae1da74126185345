"""The Data page's base-rate chart: one bar per subgroup, its share of positive labels (from pandas on the same rows)
with its Wilson interval, small subgroups hatched; with intervals off, no error bars. Collapsed: drawn on the session's
first view of the page (so the browser loads its chart library there) and whenever it is opened, never redrawn unseen."""

import numpy as np
from statsmodels.stats.proportion import proportion_confint
from streamlit.testing.v1 import AppTest

from tests.app.helpers import ROOT, csv_bytes, figures, plotly_array, scored_table, widget
from fairness_dashboard.presentation import labels
from fairness_dashboard.session import state


def _upload(frame) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    widget(at, "radio", "Source").set_value("upload").run()
    at.file_uploader[0].set_value(("scored.csv", csv_bytes(frame), "text/csv")).run()
    widget(at, "multiselect", labels.PROTECTED).set_value(["race", "sex"]).run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    assert not figures(at)   # collapsed, and drawn on the first view only (the bundled sample's)
    at.session_state[state.BASE_RATES_OPEN] = True   # opened
    at.run()
    return at


def test_the_chart_is_drawn_on_the_first_view_and_when_opened_only():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert [f["layout"]["title"]["text"] for f in figures(at)] == ["Base rate per subgroup"]   # the first view
    at.run()
    assert not figures(at) and "Base rate per subgroup (chart)" in [e.label for e in at.expander]   # not redrawn
    at.session_state[state.BASE_RATES_OPEN] = True
    at.run()
    assert [f["layout"]["title"]["text"] for f in figures(at)] == ["Base rate per subgroup"]


def _bars(at) -> dict:
    (chart,) = [f for f in figures(at) if f["layout"]["title"]["text"] == "Base rate per subgroup"]
    (bars,) = [t for t in chart["data"] if t["type"] == "bar"]
    return chart, bars


def test_base_rate_chart_shows_each_subgroups_share_of_positives_with_wilson_intervals():
    frame = scored_table(3000, seed=4)
    frame.loc[frame.index[:25], "race"] = "Other"   # a small subgroup (fewer rows than the minimum size)
    at = _upload(frame)
    _, bars = _bars(at)
    x, plus, minus = (plotly_array(v) for v in (bars["x"], bars["error_x"]["array"], bars["error_x"]["arrayminus"]))
    rates = frame.groupby(["race", "sex"])["label"].agg(["sum", "count"])
    names = [f"race={r}, sex={s}" for r, s in rates.index]
    assert sorted(n.removesuffix(" (small)") for n in bars["y"]) == sorted(names)
    shown = dict(zip((n.removesuffix(" (small)") for n in bars["y"]), x))
    low, high = proportion_confint(rates["sum"], rates["count"], alpha=0.05, method="wilson")
    for name, k, n, lo, hi in zip(names, rates["sum"], rates["count"], low, high):
        assert np.isclose(shown[name], k / n), name
        i = [y.removesuffix(" (small)") for y in bars["y"]].index(name)
        assert np.isclose(x[i] + plus[i], hi) and np.isclose(x[i] - minus[i], lo), name
    small = {y.removesuffix(" (small)") for y in bars["y"] if y.endswith(" (small)")}
    assert small == {n for n in names if n.startswith("race=Other")} and len(small) == 2
    assert any("share of rows labelled 1 in each subgroup, with its 95 % Wilson interval" in c.value
               for c in at.caption)


def test_base_rate_chart_without_intervals_has_no_error_bars():
    at = _upload(scored_table(1000, seed=5))
    assert len(plotly_array(_bars(at)[1]["error_x"]["array"])) == 8
    widget(at, "checkbox", labels.SHOW_INTERVALS).set_value(False).run()
    assert not at.exception
    assert "array" not in _bars(at)[1].get("error_x", {})
    assert any(c.value.startswith("The share of rows labelled 1 in each subgroup; hatched") for c in at.caption)
