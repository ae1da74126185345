"""AppTest: the Discover subgroups page shows what ``fc.discover_subgroups`` finds on the same rows, searches once per
choice, says when its bound applies, escapes data text, shows the no-data state, and makes a subgroup found the slice
of every page."""

import json

import numpy as np
import pandas as pd
import pytest

import fairness_core as fc
from fairness_dashboard.presentation import escape, labels
from fairness_dashboard.sections import discover
from fairness_dashboard.session import state
from tests import hostile_data as hostile
from tests.app.helpers import ROOT, count_calls, csv_bytes, plotly_array, scored_table, start, unescape, widget
from tests.app.review_helpers import upload
from tests.app.test_injection_escaped import assert_escaped

PAGE = "pages/discover.py"
CREDIT = ROOT / "sample_data" / "credit_decisions.csv"
COLUMNS = ["ethnicity", "sex", "age_group"]


def credit() -> pd.DataFrame:
    return pd.read_csv(CREDIT)


@pytest.fixture
def page():
    """The page on the credit sample, searching ethnicity, sex and age group (sex and age group not protected)."""
    at = start()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    widget(at, "multiselect", "Columns to search").set_value(COLUMNS).run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    return at


def shown_table(at) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "Excludes parity" in d.value.columns)


def test_the_table_is_a_direct_call_of_discover_subgroups_on_the_same_rows(page):
    at = page
    widget(at, "radio", "Predictions from").set_value("given").run()
    shown = shown_table(at)
    data = credit()
    direct = fc.discover_subgroups(
        (data["repaid"] == 1).astype(int), data["approved"], data[COLUMNS], quantity="selection_rate", depth=2,
        min_size=30, top_k=10, positive_outcome="favourable", ci=0.95, holdout=0.5, random_state=0).table
    assert len(shown) == len(direct) == 10
    # the subgroup as readable conditions: "ethnicity=Group D & sex=Female" -> "ethnicity = Group D and sex = Female"
    assert list(shown["Subgroup"]) == [s.replace("=", " = ").replace(" & ", " and ") for s in direct["subgroup"]]
    assert list(shown["Rows"]) == list(direct["size"])
    for mine, theirs in (("Subgroup value", "value"), ("Everyone else", "rest_value"), ("Difference", "difference")):
        np.testing.assert_allclose(shown[mine], 100 * direct[theirs], rtol=1e-12, err_msg=mine)   # percent, points
    # A subgroup with fewer than min_size held-out rows is too small to judge: no interval.
    assert direct["small"].any() and (direct["size"][direct["small"]] < 30).all()
    assert list(shown["Interval"]) == [discover.SMALL_TEXT if small else f"{100 * lo:+.1f} to {100 * hi:+.1f}"
                                       for lo, hi, small in zip(direct["ci_low"], direct["ci_high"], direct["small"])]
    assert list(shown["Excludes parity"]) == list(direct["excludes_parity"])
    # an independent count: the rows of each subgroup on all rows are its held-out rows plus its search rows
    for name, rows in zip(shown["Subgroup"], direct["size"] + direct["search_size"]):
        mask = np.ones(len(data), dtype=bool)
        for condition in name.split(" and "):
            column, value = condition.split(" = ")
            mask &= (data[column].astype(str) == value).to_numpy()
        assert mask.sum() == rows, name
    # the held-out selection rate of the top subgroup, from its counts, is the rate shown
    top = direct.iloc[0]
    assert shown["Subgroup value"].iloc[0] == pytest.approx(100 * top["k"] / top["n"])
    # findings in plain words for the subgroups that exclude parity, numbers as in the table
    findings = [unescape(line) for m in at.markdown for line in m.value.split("\n") if line.startswith("- People")]
    found = int(direct["excludes_parity"].sum())
    assert len(findings) == min(found, discover.SHOWN) > 0   # the first few above the controls; the table has all
    if found > discover.SHOWN:
        assert any(f"{found - discover.SHOWN} more subgroups found exclude parity" in c.value for c in at.caption)
    first = direct[direct["excludes_parity"]].iloc[0]
    name = first["subgroup"].replace("=", " = ").replace(" & ", " and ")
    assert findings[0] == (
        f"- People with {name} were predicted repaid = 1 at {100 * first['value']:.1f} % against "
        f"{100 * first['rest_value']:.1f} % for everyone else (difference {100 * first['difference']:+.1f} points, "
        f"95 % interval {100 * first['ci_low']:+.1f} to {100 * first['ci_high']:+.1f}), on {int(first['size']):,} "
        "held-out rows of the subgroup.")
    # the chart: one marker per subgroup, its difference and interval, a line at 0
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    xs = {y: x for trace in fig["data"] for x, y in zip(plotly_array(trace["x"]), trace["y"])}
    assert len(xs) == 10
    assert xs[name.replace(" and ", "<br>and ")] == pytest.approx(100 * first["difference"])
    assert any(shape.get("x0") == 0 and shape.get("x1") == 0 for shape in fig["layout"]["shapes"])
    # the subgroups too small to judge are a trace of their own, never "interval includes parity"
    by_legend = {trace["name"]: len(trace["y"]) for trace in fig["data"]}
    assert by_legend["Too few held-out rows to judge (no interval)"] == int(direct["small"].sum())
    assert sum(by_legend.values()) == 10
    captions = " ".join(c.value for c in at.caption)
    assert "3,000 held-out rows" in captions and "seed 0" in captions and "Benjamini–Hochberg" in captions
    assert "/metric-definitions#subgroup-discovery" in captions


def test_a_thresholded_score_and_the_subgroup_auc_are_the_direct_calls(page):
    at = page
    widget(at, "radio", "Predictions from").set_value("score:score_logistic").run()
    widget(at, "number_input", "Decision threshold").set_value(0.6).run()
    widget(at, "selectbox", "Compare").set_value("false_negative_rate").run()
    widget(at, "radio", "Conditions per subgroup (depth)").set_value(3).run()
    data = credit()
    y = (data["repaid"] == 1).astype(int)
    direct = fc.discover_subgroups(y, (data["score_logistic"] >= 0.6).astype(int), data[COLUMNS],
                                   quantity="false_negative_rate", depth=3).table
    shown = shown_table(at)
    np.testing.assert_allclose(shown["Difference"], 100 * direct["difference"], rtol=1e-12)
    assert list(shown["Rows"]) == list(direct["size"])

    widget(at, "selectbox", "Compare").set_value("subgroup_auc").run()
    assert not at.exception and not at.error
    direct = fc.discover_subgroups(y, y, data[COLUMNS], y_score=data["score_logistic"], quantity="subgroup_auc",
                                   depth=3).table
    shown = shown_table(at)
    np.testing.assert_allclose(shown["Subgroup value"], direct["value"], rtol=1e-12)   # AUCs as they are
    assert list(shown["Interval"]) == [f"{lo:+.3f} to {hi:+.3f}" for lo, hi in zip(direct["ci_low"], direct["ci_high"])]
    assert list(shown["Excludes parity"]) == list(direct["excludes_parity"])


def test_a_rerun_with_the_same_choices_does_not_search_again(page, monkeypatch):
    at = page
    calls = count_calls(monkeypatch, fc, ["discover_subgroups"])
    at.run()
    at.switch_page("pages/overview.py").run()
    at.switch_page(PAGE).run()
    assert calls["discover_subgroups"] == 0
    widget(at, "radio", "Conditions per subgroup (depth)").set_value(1).run()
    assert calls["discover_subgroups"] == 1
    assert widget(at, "multiselect", "Columns to search").value == COLUMNS   # kept across pages


def test_the_depth_is_lowered_beyond_the_bound_on_intersections(page, monkeypatch):
    at = page
    # 5, 2 and 4 values: 11 intersections at depth 1, 11 + 5 x 2 + 5 x 4 + 2 x 4 at depth 2, 40 more at depth 3
    assert discover.intersections([5, 2, 4], 1, 6000) == 11
    assert discover.intersections([5, 2, 4], 2, 6000) == 11 + 10 + 20 + 8
    assert discover.intersections([5, 2, 4], 3, 6000) == 49 + 40
    assert discover.intersections([5, 2, 4], 3, 30) == 11 + 10 + 20 + 8 + 30   # no more than the rows
    data = credit()[COLUMNS]
    cards = [data[c].nunique() + int(data[c].isna().any()) for c in COLUMNS]   # a missing value is a value
    monkeypatch.setattr(discover, "MAX_INTERSECTIONS", discover.intersections(cards, 2, len(data)))
    widget(at, "radio", "Conditions per subgroup (depth)").set_value(3).run()
    captions = " ".join(c.value for c in at.caption)
    assert "Depth lowered to 2" in captions and "up to 2 of the 3 columns" in captions
    assert shown_table(at)["Subgroup"].str.count(" and ").max() == 1


def test_making_a_subgroup_found_the_slice_changes_every_pages_subgroups(page):
    at = page
    widget(at, "radio", "Predictions from").set_value("given").run()
    shown = shown_table(at)
    choice = widget(at, "selectbox", "Subgroup").value   # "<rank>. <subgroup>"
    name = shown["Subgroup"].iloc[int(choice.split(".")[0]) - 1]
    assert choice == f"{choice.split('.')[0]}. {name}"
    rows = int((credit()[[c.split(" = ")[0] for c in name.split(" and ")]].astype(str)
                == [c.split(" = ")[1] for c in name.split(" and ")]).all(axis=1).sum())
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert any(f"Every page now analyses the rows of {escape.md(name)}" in s.value for s in at.success)
    assert any(f"— {rows:,} of 6,000 rows" in c.value for c in at.caption)
    # another page analyses the slice: its subgroups (ethnicity values) hold the subgroup's rows alone
    at.switch_page("pages/data.py").run()
    groups = next(d.value for d in at.dataframe if "subgroup" in d.value.columns)
    assert groups["size"].sum() == rows
    at.switch_page("pages/rate_disparities.py").run()
    assert not at.exception and not at.error
    assert any(f"{rows:,} of 6,000 rows" in c.value for c in at.caption)


def test_the_page_without_data_says_so():
    at = start()
    upload(at, "empty.csv", b"")   # a failed upload clears the data
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert [t.value for t in at.title] == ["Discover subgroups"]
    assert any("No data is loaded" in w.value for w in at.warning), [w.value for w in at.warning]
    assert not at.dataframe and not at.get("plotly_chart")


def test_data_text_is_escaped_on_the_page():
    at = start()
    upload(at, hostile.FILE_NAME, hostile.csv_bytes())
    widget(at, "number_input", "Minimum subgroup size").set_value(10).run()
    at.switch_page(PAGE).run()
    assert widget(at, "multiselect", "Columns to search").value == [hostile.RACE]
    assert_escaped(at, PAGE)
    shown = shown_table(at)
    assert set(shown["Subgroup"]) <= {f"{hostile.RACE} = {v}" for v in hostile.VALUES}
    assert any(hostile.SCRIPT in s for s in shown["Subgroup"])   # tables show the data as it is
    ticks = {y for trace in json.loads(at.get("plotly_chart")[0].proto.spec)["data"] for y in trace["y"]}
    assert any("&lt;script&gt;" in t for t in ticks)
    # the subgroup made the slice: said escaped, and the slice holds the markup value as it is
    name = widget(at, "selectbox", "Subgroup").value.split(". ", 1)[1]
    at.button[0].click().run()
    texts = assert_escaped(at, PAGE + " after the slice button")
    assert any(escape.md(name) in t for t in texts)
    value = name.split(" = ", 1)[1]
    assert at.session_state["slice"].conditions == (fc.Condition(hostile.RACE, values=(value,)),)


def test_weights_and_an_adverse_outcome_apply_as_on_the_other_pages():
    frame = scored_table(3000, seed=11)
    frame["weight"] = np.round(np.random.default_rng(5).uniform(0.2, 4.0, len(frame)), 3)
    at = start()
    upload(at, "weighted.csv", csv_bytes(frame))
    widget(at, "selectbox", labels.WEIGHT_COLUMN).set_value("weight").run()
    widget(at, "radio", labels.OUTCOME).set_value("adverse").run()
    mapping = at.session_state[state.MAPPING]
    assert mapping.weight == "weight" and mapping.positive_outcome == "adverse"
    at.switch_page(PAGE).run()
    searched = list(dict.fromkeys([*mapping.protected, "age"]))
    widget(at, "multiselect", "Columns to search").set_value(searched).run()
    widget(at, "radio", "Predictions from").set_value("given").run()
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    scored = fc.ScoredData.from_frame(frame, mapping)
    direct = fc.discover_subgroups(scored.y_true, scored.predicted, frame[searched],
                                   sample_weight=frame["weight"], positive_outcome="adverse",
                                   n_bins=mapping.n_bins).table
    assert direct["difference"].iloc[0] > 0   # a positive prediction is adverse: a higher selection rate is worse
    shown = shown_table(at)
    np.testing.assert_allclose(shown["Subgroup value"], 100 * direct["value"], rtol=1e-12)
    np.testing.assert_allclose(shown["Difference"], 100 * direct["difference"], rtol=1e-12)
    assert list(shown["Rows"]) == list(direct["size"])   # rows, whatever their weights
    assert [n.replace(" = ", "=").replace(" and ", " & ") for n in shown["Subgroup"]] == list(direct["subgroup"])
    captions = " ".join(c.value for c in at.caption)
    assert "Ranked by how much higher a subgroup's selection rate is" in captions and "is adverse for" in captions
    assert f"weighted by {escape.md('weight')}" in captions
