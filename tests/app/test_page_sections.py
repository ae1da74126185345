"""AppTest: Rate disparities shows its point first (verdicts, findings, the rates chart, the headline tiles) and
computes and draws only the secondary section that is open (ui.controls.sections)."""

from collections import Counter

import pytest

from tests.app.helpers import figures, metrics, open_section, section_titles, start
from ui import computations

PAGE = "pages/rate_disparities.py"
# What only one section computes (the ui.computations function behind it).
SECTION_WORK = {"Performance at the threshold": "performance", "Theil index": "theil_indices",
                "Threshold explorer": "explorer_curves", "Correlation": "correlation"}


@pytest.fixture
def calls(monkeypatch) -> Counter:
    """Calls of the section-only computations, by name."""
    counted = Counter()
    for name in SECTION_WORK.values():
        original = getattr(computations, name)

        def wrapper(*args, _name=name, _original=original, **kwargs):
            counted[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(computations, name, wrapper)
    return counted


def test_the_point_comes_first_and_only_the_open_section_is_computed(calls):
    at = start()
    at.switch_page(PAGE).run()
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
    at.switch_page(PAGE).run()
    assert "Correlation score" in [s.value for s in at.subheader]
    assert at.session_state["keep:rates:section"] == "Correlation"


def test_a_section_that_is_no_longer_offered_falls_back_to_the_first():
    at = start()
    open_section(at, "rates:section", "Compare models", run=False)
    at.switch_page("pages/data.py").run()
    # one score column left: no Compare models section
    score_box = next(w for w in at.multiselect if w.label == "Score column")
    score_box.set_value(score_box.value[:1]).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    assert "Compare models" not in section_titles(at)
    assert [s.value for s in at.subheader][2:] == ["Rates per subgroup", "Disparities"]   # Tables, the first
