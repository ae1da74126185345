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


def _adjust(app):
    from fairness_dashboard.session import state

    return app.session_state[state.INTERVALS].adjust


def _rate_caption(app) -> str:
    found = [c.value for c in app.caption if "bootstrap with" in c.value and "resamples (seed 0)" in c.value]
    assert found, [c.value for c in app.caption]
    return found[0]


def _comparison_table(app):
    """The first comparison table of the Rate disparities page (one row per compared pair), in pair order."""
    found = [d.value for d in app.dataframe if "disparity_ci_low" in d.value.columns]
    assert found, [list(d.value.columns) for d in app.dataframe]
    return found[0].sort_values(["subgroup", "reference"]).reset_index(drop=True)


def test_max_t_is_the_default_above_five_comparisons_and_an_explicit_choice_wins(app):
    from fairness_dashboard.presentation import labels
    from fairness_dashboard.settings import controls

    assert widget(app, "selectbox", "Multiple comparisons").value == "auto"
    # credit sample, ethnicity: 5 subgroups, each against the rest: 5 comparisons, no adjustment
    app.switch_page("pages/rate_disparities.py").run()
    assert _adjust(app) is None
    assert "adjusted per table" not in _rate_caption(app)
    assert "Automatic: no adjustment, since a table compares at most 5 pairs (5 or fewer)." in [
        c.value for c in app.sidebar.caption]
    # pairwise on the same 5 subgroups: 10 comparisons in the table, so simultaneous max-t intervals
    widget(app, "selectbox", "Reference").set_value("pairwise").run()
    assert _adjust(app) == "max_t"
    assert ", adjusted per table (Simultaneous (max-t))." in _rate_caption(app)
    assert any(c.value.startswith("Automatic: adjusted for multiple comparisons (Simultaneous (max-t)), since a "
                                  "table compares up to 10 pairs (more than 5).") for c in app.sidebar.caption)
    simultaneous = _comparison_table(app)
    # an explicit choice wins, whatever the number of comparisons
    widget(app, "selectbox", "Multiple comparisons").set_value("none").run()
    assert _adjust(app) is None and "adjusted per table" not in _rate_caption(app)
    unadjusted = _comparison_table(app)
    widget(app, "selectbox", "Multiple comparisons").set_value("bonferroni").run()
    bonferroni = _comparison_table(app)
    assert len(simultaneous) == len(unadjusted) == len(bonferroni) == 10
    # max-t's intervals lie between the unadjusted ones and Bonferroni's, and are narrower than Bonferroni's overall
    width = {name: (t["disparity_ci_high"] - t["disparity_ci_low"]).to_numpy()
             for name, t in (("max_t", simultaneous), ("none", unadjusted), ("bonferroni", bonferroni))}
    assert (width["max_t"] >= width["none"] - 1e-12).all() and (width["max_t"] <= width["bonferroni"] + 1e-12).all()
    assert width["max_t"].sum() < width["bonferroni"].sum() and width["max_t"].sum() > width["none"].sum()
    assert not any(c.value.startswith("Automatic") for c in app.sidebar.caption)
    widget(app, "selectbox", "Multiple comparisons").set_value("auto").run()
    assert _adjust(app) == "max_t"
    # the rule itself
    assert [controls.resolve_adjust("auto", n) for n in (0, 5, 6, 45)] == [None, None, "max_t", "max_t"]
    assert labels.AUTO_ADJUST_ABOVE == 5
