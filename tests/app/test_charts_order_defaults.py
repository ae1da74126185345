"""AppTest: charts that fit the data and sensible defaults — the pairwise heatmap
equals the pairwise disparity table, subgroups worst first (or by name) in charts and tables, the AUC axis
zoomed (or 0–1), the named reference defaulting to the largest subgroup, and one "Include small subgroups"
option for every page and the Overview."""

import math
import re

import numpy as np
import pandas as pd
import pytest

from fairness_core.plotting import plot_text
from tests.app.helpers import ROOT, figures, open_section, widget
from tests.app.test_intervals_ui import verdicts
from fairness_dashboard.presentation import labels

CREDIT = pd.read_csv(ROOT / "sample_data" / "credit_decisions.csv")
RATES, CALIBRATION, DATASET, AUC = ("pages/rate_disparities.py", "pages/calibration.py", "pages/dataset_metrics.py",
                                    "pages/subgroup_aucs.py")


def heatmaps(app) -> list:
    return [f for f in figures(app) if f["data"] and f["data"][0]["type"] == "heatmap"]


def pairwise_tables(app, k: int) -> list:
    """The displayed comparison tables with one row per unordered pair of k subgroups."""
    return [d.value for d in app.dataframe if "reference" in d.value.columns and len(d.value) == k * (k - 1) // 2]


def assert_heatmap_equals_table(fig: dict, table: pd.DataFrame) -> None:
    """Every cell (row g, column h) is the table's disparity of the pair {g, h}; the diagonal is blank."""
    trace = fig["data"][0]
    rows, cols, z = trace["y"], trace["x"], trace["z"]
    assert rows == cols and len(rows) * (len(rows) - 1) // 2 == len(table)
    seen = set()
    for sub, ref, value in zip(table["subgroup"], table["reference"], table["disparity"]):
        i, j = rows.index(plot_text(sub)), rows.index(plot_text(ref))
        for a, b in ((i, j), (j, i)):
            seen.add((a, b))
            if math.isnan(value):
                assert z[a][b] is None
            elif math.isinf(value):
                assert trace["text"][a][b].strip("()*") == "∞"
            else:
                assert z[a][b] == pytest.approx(value, rel=1e-12)
    assert all(z[i][i] is None for i in range(len(rows)))
    assert len(seen) == len(rows) * (len(rows) - 1)  # every off-diagonal cell comes from the table


def use_sex_and_ethnicity(app) -> None:
    widget(app, "multiselect", "Protected attributes").set_value(["sex", "ethnicity"]).run()
    assert not app.exception


def test_pairwise_heatmap_cells_equal_the_pairwise_disparity_table(app):
    app.switch_page(RATES).run()
    widget(app, "selectbox", "Reference").set_value("pairwise").run()
    assert not app.exception and not app.error
    k = CREDIT["ethnicity"].nunique()
    maps, tables = heatmaps(app), pairwise_tables(app, k)
    # one heatmap per pairwise table: the two rates and equalized odds in the Tables, the Theil index in its section
    assert len(maps) == len(tables) == 3
    for fig, table in zip(maps, tables):
        assert_heatmap_equals_table(fig, table)
    open_section(app, "rates:section", "Theil index")
    theil_maps, theil_tables = heatmaps(app), pairwise_tables(app, k)
    assert len(theil_maps) == len(theil_tables) == 1
    assert_heatmap_equals_table(theil_maps[0], theil_tables[0])
    open_section(app, "rates:section", "Tables")
    # hover: both sides' rates with their counts, and the disparity's interval (intervals are on by default; the
    # 10 pairs of 5 subgroups are more than 5 comparisons, so the Automatic adjustment is simultaneous (max-t):
    # its level lies between the unadjusted 95 % and Bonferroni's 1 - 0.05 / 10 = 99.5 %)
    fpr = maps[0]["data"][0]
    hover = fpr["hovertext"][0][1]
    level = float(re.search(r"\(([\d.]+) % CI ", hover).group(1))
    assert 95 < level <= 99.5 and "adjusted for 10 comparisons" in hover and " of " in hover
    # ... under the ratio distance as well, and without intervals
    widget(app, "selectbox", "Distance").set_value("ratio").run()
    widget(app, "checkbox", "Show intervals").set_value(False).run()
    assert not app.exception
    for fig, table in zip(heatmaps(app), pairwise_tables(app, k)):
        assert_heatmap_equals_table(fig, table)
        assert not any("CI" in cell for row in fig["data"][0]["hovertext"] for cell in row)


@pytest.mark.parametrize("page", [CALIBRATION, DATASET])
def test_pairwise_heatmap_on_calibration_and_dataset_metrics(app, page):
    app.switch_page(page).run()
    widget(app, "selectbox", "Reference").set_value("pairwise").run()
    if page == CALIBRATION:  # the ECE comparisons are a section of their own
        open_section(app, "cal:section", "ECE comparisons")
    assert not app.exception and not app.error
    k = CREDIT["ethnicity"].nunique()
    maps, tables = heatmaps(app), pairwise_tables(app, k)
    assert len(maps) == len(tables) == 1
    assert_heatmap_equals_table(maps[0], tables[0])


def test_subgroups_worst_first_or_by_name_in_charts_and_tables(app):
    app.switch_page(RATES).run()
    assert widget(app, "radio", labels.ORDER_SUBGROUPS).value == "worst"
    fpr, fnr = app.dataframe[1].value, app.dataframe[2].value  # comparisons with the rest
    worst = pd.concat([fpr, fnr]).groupby("subgroup")["disparity"].max().sort_values(ascending=False)
    expected = list(worst.index)
    assert list(app.dataframe[0].value["subgroup"]) == expected  # the rates table
    assert figures(app)[0]["data"][0]["y"] == [plot_text(n) for n in expected]  # the rate chart, top first
    assert list(fpr["disparity"]) == sorted(fpr["disparity"], reverse=True)
    assert any(c.value.startswith("Subgroups are ordered worst first: the largest disparity") for c in app.caption)
    widget(app, "radio", labels.ORDER_SUBGROUPS).set_value("name").run()
    names = sorted(CREDIT["ethnicity"].unique())
    assert list(app.dataframe[0].value["subgroup"]) == names
    assert figures(app)[0]["data"][0]["y"] == names
    # the option is shared: the AUC page is in name order too, then lowest AUC first
    app.switch_page(AUC).run()
    assert list(app.dataframe[0].value["subgroup"]) == names
    widget(app, "radio", labels.ORDER_SUBGROUPS).set_value("worst").run()
    table = app.dataframe[0].value
    lowest = table[["subgroup_auc", "bpsn_auc", "bnsp_auc"]].min(axis=1).to_numpy()
    assert np.all(np.diff(lowest) >= 0) and list(table["subgroup"]) != names
    assert figures(app)[0]["data"][0]["y"] == list(table["subgroup"])


def test_rate_chart_keeps_each_subgroup_colour_in_either_order(app):
    app.switch_page(RATES).run()
    bars = figures(app)[0]["data"][0]
    worst = dict(zip(bars["y"], bars["marker"]["color"]))
    widget(app, "radio", labels.ORDER_SUBGROUPS).set_value("name").run()
    bars = figures(app)[0]["data"][0]
    assert dict(zip(bars["y"], bars["marker"]["color"])) == worst and len(set(worst.values())) == len(worst)


def test_auc_axis_fits_the_data_unless_full_range_is_asked(app):
    app.switch_page(AUC).run()
    table = app.dataframe[0].value
    ends = table.filter(regex="auc").to_numpy(dtype=float)
    low, high = figures(app)[0]["layout"]["xaxis"]["range"]
    assert low > 0.3 and low < np.nanmin(ends) and high > np.nanmax(ends)
    assert widget(app, "checkbox", "Full 0–1 range").value is False
    widget(app, "checkbox", "Full 0–1 range").set_value(True).run()
    assert figures(app)[0]["layout"]["xaxis"]["range"] == [-0.02, 1.02]
    assert any(s.get("x0") == 0.5 for s in figures(app)[0]["layout"].get("shapes", []))


def test_named_reference_defaults_to_the_largest_subgroup(app):
    widget(app, "multiselect", "Protected attributes").set_value(["sex"]).run()
    sizes = CREDIT["sex"].value_counts()
    assert sizes.idxmax() == "Male" and sorted(sizes.index)[0] == "Female"  # largest is not first by name
    for page in (RATES, CALIBRATION, DATASET):
        app.switch_page(page).run()
        widget(app, "selectbox", "Reference").set_value("named").run()
        assert not app.exception
        assert widget(app, "selectbox", "Reference subgroup").value == "Male"
        if page == CALIBRATION:  # the ECE comparisons are a section of their own
            open_section(app, "cal:section", "ECE comparisons")
        comparisons = next(d.value for d in app.dataframe if "reference" in d.value.columns)
        assert set(comparisons["reference"]) == {"Male"}


def test_classwise_difference_defaults_to_the_two_largest_subgroups(app):
    use_sex_and_ethnicity(app)
    sizes = (("sex=" + CREDIT["sex"] + ", ethnicity=" + CREDIT["ethnicity"]).value_counts())
    largest = list(sizes.index[:2])
    assert largest != sorted(sizes.index)[:2]  # not the first two by name
    app.switch_page("pages/classwise.py").run()
    widget(app, "selectbox", "Across subgroups").set_value("difference").run()
    assert not app.exception
    assert [widget(app, "selectbox", label).value for label in ("First subgroup", "Second subgroup")] == largest


def small_tile_help(app) -> str:
    return next(m for m in app.metric if m.label.startswith("False positive rate disparity")).proto.help


def test_include_small_is_one_sidebar_option_for_every_page_and_the_overview(app):
    use_sex_and_ethnicity(app)  # Female/Male x Group E hold 37 and 28 rows: small subgroups at min size 30
    app.switch_page(AUC).run()
    caption = next(c.value for c in app.caption if c.value.startswith("Score column"))
    assert "small subgroups left out: 1" in caption
    assert [w.label for w in app.checkbox].count(labels.INCLUDE_SMALL) == 1
    widget(app, "checkbox", labels.INCLUDE_SMALL).set_value(True).run()
    caption = next(c.value for c in app.caption if c.value.startswith("Score column"))
    assert "small subgroups left out" not in caption
    # the same option on the next page, and the Overview's verdicts follow it
    app.switch_page(RATES).run()
    assert widget(app, "checkbox", labels.INCLUDE_SMALL).value is True
    assert " 0 with a small subgroup" in small_tile_help(app)
    with_small = verdicts(app)
    app.switch_page("pages/overview.py").run()
    assert not app.exception
    assert {k: v for k, v in verdicts(app).items() if k in with_small} == with_small
    widget(app, "checkbox", labels.INCLUDE_SMALL).set_value(False).run()  # changed on the Overview's sidebar
    overview_without = verdicts(app)
    app.switch_page(RATES).run()
    assert widget(app, "checkbox", labels.INCLUDE_SMALL).value is False
    assert " 0 with a small subgroup" not in small_tile_help(app)
    without_small = verdicts(app)
    assert without_small != with_small  # the option changes the verdicts on this data ...
    assert {k: v for k, v in overview_without.items() if k in without_small} == without_small  # ... and both follow
