"""AppTest: the metric pages show their point first — the verdicts, the findings and the main
chart come before the tabs of the secondary sections, and only the open section is computed and drawn
(fairness_dashboard.settings.controls.sections)."""

from collections import Counter

import pytest

from tests.app.helpers import count_calls, figures, metrics, open_section, section_titles, start
from fairness_dashboard.results import computations
from fairness_dashboard.sections import compare

AUC, CALIBRATION, DATASET = "pages/subgroup_aucs.py", "pages/calibration.py", "pages/dataset_metrics.py"
RATES = "pages/rate_disparities.py"
# Each page's sections on the credit sample (two score columns mapped: "Compare models" is offered).
TITLES = {AUC: ["Table", "Compare models"], CALIBRATION: ["Calibration errors", "ECE comparisons", "Compare models"],
          DATASET: ["Tables", "Smoothed EDF", "Consistency"]}


def layout(app) -> list[tuple[str, str]]:
    """(kind, text) of the page's subheaders ("subheader", title), charts ("chart", "") and the tabs of its
    secondary sections ("tab", label), top to bottom."""
    found = []
    for node in app.main:
        kind = getattr(node, "type", "")
        if kind == "subheader":
            found.append(("subheader", node.value))
        elif kind == "plotly_chart":
            found.append(("chart", ""))
        elif kind == "tab":
            found.append(("tab", node.label))
    return found


def subheaders(app) -> list[str]:
    return [s.value for s in app.subheader]


@pytest.mark.parametrize("page, first", [(AUC, ["Policy", "Findings"]), (CALIBRATION, ["Policy", "Findings"]),
                                         (DATASET, ["Findings", "Base rates (dataset statistical parity)"])])
def test_verdicts_findings_and_the_main_chart_come_before_the_sections(app, page, first):
    tabs = TITLES[page]
    app.switch_page(page).run()
    assert not app.exception and not app.error
    assert section_titles(app) == tabs
    shown = layout(app)
    heads = [text for kind, text in shown if kind == "subheader"]
    assert heads[:len(first)] == first
    chart = shown.index(("chart", ""))
    sections = shown.index(("tab", tabs[0]))
    assert all(shown.index(("subheader", h)) < chart for h in first) and chart < sections
    assert [text for kind, text in shown[sections:] if kind == "tab" and text in tabs] == tabs  # (nested tabs too)


def test_auc_table_is_drawn_only_when_its_tab_is_open(app):
    app.switch_page(AUC).run()
    assert "AUCs per subgroup" in subheaders(app) and len(app.dataframe) == 1
    open_section(app, "auc:section", "Compare models")
    assert "AUCs per subgroup" not in subheaders(app) and not len(app.dataframe)
    assert [t.label for t in app.toggle] == [compare.TOGGLE]  # the comparison's own toggle, off
    assert len(figures(app)) == 1  # the AUC chart stays
    # The choice is kept across pages.
    app.switch_page(DATASET).run()
    app.switch_page(AUC).run()
    assert "AUCs per subgroup" not in subheaders(app)
    open_section(app, "auc:section", "Table")
    assert "AUCs per subgroup" in subheaders(app) and len(app.dataframe) == 1


def test_calibration_sections_are_computed_only_when_open(app, monkeypatch):
    from fairness_core import plotting

    drawn = count_calls(monkeypatch, plotting, ["calibration_error_chart"])
    app.switch_page(CALIBRATION).run()
    assert not app.exception
    assert drawn and "Calibration errors per subgroup" in subheaders(app) and "ECE comparisons" not in subheaders(app)
    assert len(figures(app)) == 2 and len(app.dataframe) == 1
    drawn.clear()
    open_section(app, "cal:section", "ECE comparisons")
    assert not drawn and "Calibration errors per subgroup" not in subheaders(app)
    assert "ECE comparisons" in subheaders(app) and len(figures(app)) == 1  # the reliability diagram alone
    assert "verdict" in app.dataframe[0].value.columns


def test_dataset_smoothed_edf_is_computed_only_when_open(app, monkeypatch):
    calls = count_calls(monkeypatch, computations, ["smoothed_edf"])
    app.switch_page(DATASET).run()
    assert not app.exception
    assert not calls and "Smoothed empirical differential fairness" not in subheaders(app)
    assert "Smoothed EDF (ε)" not in [m.label for m in app.metric]
    open_section(app, "dataset:section", "Smoothed EDF")
    assert calls and "Smoothed empirical differential fairness" in subheaders(app)
    assert "Smoothed EDF (ε)" in [m.label for m in app.metric]
    assert "Consistency (similar rows, similar labels)" not in subheaders(app)
    open_section(app, "dataset:section", "Consistency")
    assert "Consistency (similar rows, similar labels)" in subheaders(app)
    assert "Smoothed empirical differential fairness" not in subheaders(app)


# What only one section computes (the fairness_dashboard.results.computations function behind it).
SECTION_WORK = {"Performance at the threshold": "performance", "Theil index": "theil_indices",
                "Threshold explorer": "explorer_grid", "Correlation": "correlation"}


@pytest.fixture
def calls(monkeypatch) -> Counter:
    """Calls of the section-only computations, by name."""
    return count_calls(monkeypatch, computations, SECTION_WORK.values())


def test_the_point_comes_first_and_only_the_open_section_is_computed(calls):
    at = start()
    at.switch_page(RATES).run()
    assert not at.exception
    headings = [s.value for s in at.subheader]
    assert headings[:2] == ["Policy", "Findings"]   # then the rates chart, then the tabs (Tables open first)
    assert headings[2:] == ["Rates per subgroup", "Disparities"]
    assert section_titles(at) == ["Tables", "Performance at the threshold", "Theil index", "p% scores",
                                  "Threshold explorer", "Correlation", "Compare models"]   # two scores mapped
    assert [f["layout"]["title"]["text"] for f in figures(at)] == ["Rates per subgroup"]
    assert "False positive rate disparity (max)" in metrics(at) and "Equalized odds (max)" in metrics(at)
    assert not calls   # no closed section was computed
    for title, work in SECTION_WORK.items():
        calls.clear()
        open_section(at, "rates:section", title)
        assert calls[work] >= 1, title
        assert not calls.keys() - {work}, (title, dict(calls))   # and no other section's work
        assert [s.value for s in at.subheader][:2] == ["Policy", "Findings"]
    # the chosen section is kept across pages
    at.switch_page("pages/calibration.py").run()
    at.switch_page(RATES).run()
    assert "Correlation score" in [s.value for s in at.subheader]
    assert at.session_state["keep:rates:section"] == "Correlation"


def test_a_section_that_is_no_longer_offered_falls_back_to_the_first():
    at = start()
    open_section(at, "rates:section", "Compare models", run=False)
    at.switch_page("pages/data.py").run()
    # one score column left: no Compare models section
    score_box = next(w for w in at.multiselect if w.label == "Score column")
    score_box.set_value(score_box.value[:1]).run()
    at.switch_page(RATES).run()
    assert not at.exception
    assert "Compare models" not in section_titles(at)
    assert [s.value for s in at.subheader][2:] == ["Rates per subgroup", "Disparities"]   # Tables, the first
