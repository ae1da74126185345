"""AppTest: data where no comparison can be made — a protected attribute with one value, an attribute that is
entirely missing, every subgroup small — is answered on every page and section as "not assessable", never with
an error box (a one-valued attribute crashed the Overview and Calibration)."""

import pytest

from tests.app.helpers import PAGES, csv_bytes, each_section, start, widget
from tests.app.review_helpers import upload
from tests.fairness_core.test_one_subgroup import degenerate


@pytest.mark.parametrize("kind", ["one", "missing", "small"])
def test_every_page_answers_data_that_allows_no_comparison(kind):
    at = start()
    upload(at, f"{kind}.csv", csv_bytes(degenerate(kind, 600, 3)))
    widget(at, "multiselect", "Protected attributes").set_value(["region"]).run()
    assert not at.exception, at.exception
    for page in PAGES:
        at.switch_page(page).run()
        for section in each_section(at, page):
            assert not at.exception, (kind, page, section, at.exception)
    at.switch_page("pages/overview.py").run()
    if kind == "small":   # every rule not assessable, none passed
        bottom = next(m.value for m in at.markdown if m.value.startswith("**Bottom line"))
        assert "No rule fails; 0 of 6 rules pass" in bottom and "6 could not be assessed" in bottom, bottom
    else:   # one subgroup: said on every metric page, and Calibration says why it has no verdict
        for page in PAGES[1:-1]:
            at.switch_page(page).run()
            assert any("so there is nothing to compare it with" in w.value for w in at.warning), page
        at.switch_page("pages/calibration.py").run()
        assert any("every row is in this subgroup" in i.value for i in at.info), [i.value for i in at.info]
