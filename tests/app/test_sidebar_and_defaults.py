"""AppTest: the sidebar is current on the run that changes the mapping, and the multiple-comparison adjustment
is on by default when a table holds more than a handful of comparisons."""

from tests.app.helpers import widget


def _sidebar_count(app) -> str:
    """The sidebar's Subgroups box sentence (how many subgroups, how many small)."""
    found = [c.value for c in app.sidebar.caption if "subgroups" in c.value]
    assert len(found) == 1, [c.value for c in app.sidebar.caption]
    return found[0]


def test_sidebar_counts_the_new_subgroups_on_the_run_that_maps_them(app):
    assert _sidebar_count(app) == "All 5 subgroups have at least 30 rows."   # ethnicity alone
    widget(app, "multiselect", "Protected attributes").set_value(["ethnicity", "sex"]).run()   # one run
    assert not app.exception
    expected = ("1 of 10 subgroups are smaller than 30 rows; they hold 28 of 6,000 rows (0.5 %), left out of "
                "summaries unless small subgroups are included.")
    assert _sidebar_count(app) == expected
    # the Data page's own summary says the same on that run
    assert any(m.value.startswith("**10 subgroups**. " + expected) for m in app.markdown)
    # and a mapping back to one attribute is counted at once too
    widget(app, "multiselect", "Protected attributes").set_value(["sex"]).run()
    assert _sidebar_count(app) == "All 2 subgroups have at least 30 rows."
