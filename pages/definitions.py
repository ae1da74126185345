"""Metric definitions: a guide to choosing metrics, then every metric's formula and how to read it.

The content is the Markdown file ``fairness_dashboard/definitions.md``, loaded by ``fairness_dashboard/presentation/definitions.py``; this page only
lays it out. No user data is shown.
"""

import streamlit as st

from fairness_dashboard.presentation import coverage, escape
from fairness_dashboard.presentation import definitions as defs
from fairness_dashboard.settings import page_frame

page_frame.draw(context=False)
st.title("Metric definitions")
st.caption("Every metric the dashboard computes: its formula, its perfect value, what a disparity in it means "
           "for the people affected, where it comes from, and where this implementation departs from the "
           "source's reference code. Names in code font are the functions of the `fairness_core` library.")


def _links(keys) -> str:
    return ", ".join(f"[{defs.BY_KEY[k].name}](#{k})" for k in keys)


# Guide ---------------------------------------------------------------------------------------
st.header("Which metrics to look at", anchor="guide", divider="gray")
st.markdown(defs.GUIDE_INTRO)
for number, question in enumerate(defs.GUIDE, start=1):
    lines = [f"**{number}. {question.question}** {question.hint}", ""]
    for answer in question.answers:
        line = f"- *{answer.answer}*: {answer.look_at}"
        if answer.page:
            line += f", on the **{answer.page}** page"
        if answer.metrics:
            line += f" ({_links(answer.metrics)})"
        lines.append(line + ".")
    st.markdown("\n".join(lines))

# Notation and contents -------------------------------------------------------------------------
st.header("Notation and contents", anchor="notation", divider="gray")
st.markdown(defs.NOTATION)
st.markdown("\n".join(
    f"- **[{family.title}](#{family.key})** ({family.page} page): "
    + " · ".join(f"[{m.name}](#{m.key})" for m in family.metrics)
    for family in defs.FAMILIES))

# One section per family, one bordered block per metric ------------------------------------------
for family in defs.FAMILIES:
    st.header(family.title, anchor=family.key, divider="gray")
    st.markdown(f"{family.intro} Shown on the **{family.page}** page"
                + (" unless noted." if any(m.where for m in family.metrics) else "."))
    for metric in family.metrics:
        with st.container(border=True):
            st.subheader(metric.name, anchor=metric.key)
            st.latex(metric.formula)
            fields = [
                f"- **Perfect value:** {metric.perfect}",
                f"- **What a disparity means:** {metric.meaning}",
                f"- **Source:** {metric.source}",
            ]
            if metric.differs:
                fields.append(f"- **Where we differ from the reference implementation:** {metric.differs}")
            st.markdown("\n".join(fields))
            st.caption(f"In the app: {metric.where or f'the {family.page} page'}. In `fairness_core`: "
                       + ", ".join(f"`{name}`" for name in metric.functions) + ".")

# How far to trust the intervals -----------------------------------------------------------------
st.header("How far to trust the intervals", anchor=coverage.ANCHOR, divider="gray")
st.markdown(
    "A 95 % interval is a claim: over many samples it should contain the true value 95 times in 100. "
    "`benchmarks/coverage.py` measures that claim by simulation: five generating models whose true values are "
    "known (disjoint groups with and without disparities, overlapping identity columns, calibrated and "
    "miscalibrated scores; a second model to compare with, and a numeric attribute), 300 data sets of 2,000 "
    "rows each, one subgroup of about 3 % of rows, the intervals the app shows: every class-wise metric and "
    "reduction, the comparison tables with each multiple-comparison adjustment (read as the adjustment claims), "
    "rate disparities against the rest, all rows, a named subgroup or pairwise, and consistency on a sample of "
    "rows. Intervals of one rate, one base rate or one AUC mostly reach 93–97 %; "
    f"{len(coverage.table())} of the {len(coverage.MEASURED['rows'])} quantities measured (below) leave that band "
    "in at least one setting, and the pages that show them say so beside them. Coverage above 97 % means the interval is wider than it needs to "
    "be (a verdict is more often inconclusive, rarely wrong: every rule's wrong verdicts stayed at or below "
    "1.3 % of data sets); below 93 % it is too narrow, and a star or a verdict can come from chance more often "
    "than the level says. Three patterns explain most rows. The largest of several comparisons (equalized "
    "odds, the p% score, every reduced disparity) runs from the largest low end of the comparisons' "
    "simultaneous (max-t) intervals to the largest high end of their own: its high end must reach every "
    "comparison that could be the largest, and a small group's wide interval reaches far past the true max, so "
    "it covers 95–100 %, mostly 97–99 %; the mean of several comparisons covers 94–100 % (above 97 % where "
    "some comparisons sit at parity, which its low end counts at 0). The plug-in ECE and the MCE of one subgroup lie above their truth "
    "by the bins' noise and have no interval; the ℓ2 ECE (the square root of the debiased squared calibration "
    "error of Kumar, Liang & Ma 2019, unbiased whether a group is calibrated or not) has a studentized bootstrap "
    "interval, and so has the excess ℓ2 ECE the calibration verdict judges (see the table for their measured "
    "coverage); a difference between two models' plug-in ECEs inherits the plug-in's bias (47–99 %). DeLong intervals of BPSN and BNSP AUCs and Brier intervals of a group of about 60 rows "
    "cover 88–93 %. With max-t, a table's intervals hold every comparison's truth at once in 95–98 % of data "
    "sets (with Bonferroni or Holm 95–100 %); with Benjamini–Hochberg each interval covers 98–100 % and the starred ones hold their truth "
    "in 95–99 % on average (the false coverage rate it keeps under 5 %), except for the ECE comparisons, which "
    "inherit the calibration shortfalls above. Class-wise, each score and each class's difference between two "
    "subgroups covers 92–97 % (their signed average over classes 91–96 %); a class's standard deviation across "
    "subgroups covers 91–94 % where the subgroups score the same (its misses above: with a 60-row group the test "
    "of equal scores rejects a little too often) and 95–97 % where they differ, and the average over classes of "
    "a standard deviation or an absolute difference 88–99 % (below 93 % where every subgroup scores the same). Consistency on a sample of rows, ± 1.96 standard errors, covers its value over every row in "
    "95–97 %.")
st.dataframe(coverage.table(), hide_index=True,
             column_config={s: st.column_config.NumberColumn(s, format="%.1f %%")
                            for s in coverage.MEASURED["settings"]})
st.caption(f"Coverage in % of the nominal 95 % intervals per setting. {escape.md(coverage.MEASURED['run'])} "
           "Reproduce with `python benchmarks/coverage.py --out docs/coverage.md --json fairness_dashboard/measured_coverage.json "
           "--raw benchmarks/results-coverage.json --previous benchmarks/results-coverage-previous.json` "
           "(about 25 minutes on two idle cores); `docs/coverage.md` has every quantity, the misses above and below, the "
           "intervals' mean widths beside the previous release's, and the error rates and power "
           "of every policy rule.")
