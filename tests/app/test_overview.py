"""AppTest: the Overview page lists the data in brief, every policy verdict and every page's findings,
computed with each page's own settings and identical to what the pages show."""

import fairness_core as fc
from tests.app.helpers import metrics, widget
from tests.app.test_intervals_ui import (AUC_PAGE, RATE_PAGE, compas_counts, findings, load_compas, unescape,
                                         verdicts)
from ui import captions

OVERVIEW = "pages/overview.py"


def page_links(app) -> list:
    return [el.proto.label for el in app.get("page_link")]


def bullets(markdown: str) -> list:
    return [unescape(line[2:]) for line in markdown.split("\n") if line.startswith("- ")]


def test_overview_on_compas_shows_the_rate_page_verdicts_and_findings(app, compas_csv):
    frame = load_compas(app, compas_csv)
    rate_verdicts = verdicts(app)
    rate_findings = findings(app)
    app.switch_page(OVERVIEW).run()
    assert not app.exception and not app.error
    shown = metrics(app)
    assert shown["Rows analysed"] == f"{len(frame):,}" and shown["Subgroups"] == str(frame["race"].nunique())
    # Native American (18 rows) is the one subgroup below 30 rows.
    assert any(c.value.startswith("1 of 6 subgroups are smaller than 30 rows; they hold 18 of 7,214 rows (0.2 %)")
               for c in app.caption)
    # The same verdicts (status and sentence) as on the Rate disparities page, with its link.
    shown_verdicts = verdicts(app)
    assert {k: shown_verdicts[k] for k in rate_verdicts} == rate_verdicts and len(rate_verdicts) >= 5
    # ... and the Dataset metrics verdict, at its page's defaults (difference of base rates <= 0.1).
    labels = compas_counts(frame)[2]
    parity = fc.dataset_statistical_parity(frame["two_year_recid"], labels, reduction="max", ci=0.95)
    expected = fc.evaluate_result(fc.Rule(metric="dataset_statistical_parity", distance_measure="diff", bound=0.1),
                                  parity)
    assert captions.verdict_markdown(expected) in [md.value for md in app.markdown]
    assert set(shown_verdicts) == set(rate_verdicts) | {"Base rate disparity of the labels (difference)"}
    assert {"Data: columns, exclusions and subgroups", "Subgroup AUCs", "Rate disparities"} <= set(page_links(app))
    # The findings of both pages; the rate findings name African-American and the false positive rate.
    panel = [md.value for md in app.markdown if md.value.startswith("- ")]
    assert rate_findings in panel
    first = bullets(rate_findings)[0]
    assert "African-American" in first and "false positive rate" in first
    _, _, _, counts = compas_counts(frame)
    adverse = fc.ColumnMapping(label="two_year_recid", positive_label=1, positive_outcome="adverse")   # guessed
    # six races against the rest: more than 5 comparisons, so the Automatic adjustment is Holm's
    expected = fc.rate_findings(counts, ["false_positive_rate", "false_negative_rate"], reference="rest", ci=0.95,
                                n_boot=1000, random_state=0, adjust="holm", limit=3, **fc.outcome_words(adverse))
    assert bullets(rate_findings)[: len(expected)] == [f.sentence for f in expected]
    tally = next(md.value for md in app.markdown if "across" in md.value and md.value.startswith("**"))
    # The model's rules are counted; the labels' rule (base rates) is listed apart and not counted.
    statuses = [s.lower() for name, (s, _) in shown_verdicts.items() if not name.startswith("Base rate")]
    counts_text = ", ".join(f"{statuses.count(s)} {s}" for s in ("pass", "fail", "inconclusive", "not assessable")
                            if statuses.count(s))
    assert tally.startswith(f"**{counts_text}** across the model's {len(statuses)} rules.")
    assert any(md.value.startswith("**Rules about the labels**") for md in app.markdown)


def test_overview_follows_each_page_settings(app, compas_csv):
    frame = load_compas(app, compas_csv)
    widget(app, "selectbox", "Distance").set_value("ratio").run()
    app.switch_page(AUC_PAGE).run()
    widget(app, "checkbox", "Require a minimum bias AUC score").set_value(True).run()
    widget(app, "number_input", "Minimum bias AUC score").set_value(0.6).run()
    assert not app.exception
    auc_verdicts = verdicts(app)
    y = frame["two_year_recid"].to_numpy()
    groups = fc.Subgroups.from_attributes(frame, ["race"], intersect=True, min_size=30)
    table = fc.bias_auc_table(y, frame["decile_score"].to_numpy(dtype=float), groups, ci=0.95, n_boot=1000,
                              random_state=0)
    result = fc.summarize_bias_auc(table, p=-5.0, overall_weight=0.25)
    expected = fc.evaluate_result(fc.Rule(metric="bias_auc_score", bound=0.6), result)
    assert [captions.verdict_markdown(expected)] == [md.value for md in app.markdown if md.value.startswith(":")
                                                 and "bias auc score" in md.value.lower()]
    assert expected.status == ("pass" if result.ci_low >= 0.6 else "inconclusive")
    app.switch_page(OVERVIEW).run()
    assert not app.exception
    shown = verdicts(app)
    assert set(auc_verdicts) <= set(shown)
    # the rate page's ratio distance carried over: no rate is judged against a difference bound
    assert not any("rate disparity (difference)" in k for k in shown)
    assert any(k.startswith("False positive rate band") for k in shown)


def test_overview_without_intervals_says_so(app):
    widget(app, "checkbox", "Show intervals").set_value(False).run()
    app.switch_page(OVERVIEW).run()
    assert not app.exception
    assert any("Intervals are off" in i.value for i in app.info)
    shown = verdicts(app)
    assert shown and all("no interval was available" in sentence for _, sentence in shown.values())


def test_base_rate_tiles_carry_the_wilson_interval(app, compas_csv):
    from statsmodels.stats.proportion import proportion_confint

    frame = load_compas(app, compas_csv)
    k, n = int(frame["two_year_recid"].sum()), len(frame)
    low, high = proportion_confint(k, n, alpha=0.05, method="wilson")
    expected = f"{k:,} of {n:,} rows positive · 95 % CI {low:.3f}–{high:.3f} (Wilson)"
    for page in ("pages/data.py", OVERVIEW):
        app.switch_page(page).run()
        assert not app.exception
        assert expected in [c.value for c in app.caption], page

