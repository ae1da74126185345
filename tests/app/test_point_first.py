"""AppTest: the Subgroup AUCs, Calibration and Dataset metrics pages show their point first (issue 22, item 2) —
the verdicts, the findings and the main chart come before the tabs of the secondary sections, and only the
open section is computed and drawn."""

import pytest

from tests.app.helpers import figures
from tests.app.sections import SECTIONS, open_section
from ui import compare, computations

AUC, CALIBRATION, DATASET = "pages/subgroup_aucs.py", "pages/calibration.py", "pages/dataset_metrics.py"


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
    tabs = SECTIONS[page][1]   # the credit sample maps two scores: "Compare models" is offered
    app.switch_page(page).run()
    assert not app.exception and not app.error
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

    drawn = []
    error_chart = plotting.calibration_error_chart
    monkeypatch.setattr(plotting, "calibration_error_chart", lambda *a, **k: drawn.append(1) or error_chart(*a, **k))
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
    calls = []
    smoothed_edf = computations.smoothed_edf
    monkeypatch.setattr(computations, "smoothed_edf", lambda *a, **k: calls.append(1) or smoothed_edf(*a, **k))
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
