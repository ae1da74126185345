"""Overview: a one-screen answer (the bottom line in plain sentences and a scorecard of every rule), then the data
in brief, every policy verdict and the findings of every metric page (collapsed), each linking to its page. Computed
with each page's current settings (or its defaults before it was opened)."""

import streamlit as st

from fairness_core import bottom_line, changes_by_rule, plotting, rule_plain_name, summarize_verdicts
from fairness_dashboard.data import analysis
from fairness_dashboard.presentation import captions, escape, formats, labels, tiles
from fairness_dashboard.results import computations, summaries
from fairness_dashboard.sections import compare, gate, tradeoff
from fairness_dashboard.session import progress, state
from fairness_dashboard.settings import controls, page_frame, review_export

page_frame.draw()
st.title("Overview")
token, mapping_key, scored = analysis.current()
score = st.session_state[state.MODEL]
intervals = controls.intervals()
setting = controls.setting
include_small = controls.include_small()  # the sidebar's one option, as on every page

# 1. Every page's findings and verdicts ---------------------------------------------------------


def model_sections(model: str | None) -> tuple[list, list]:
    """The sections of `model`'s own rules (Subgroup AUCs, Rate disparities at its kept threshold, Calibration), each
    with its page's current settings, and the pages it could not assess (text)."""
    found, missed = [], []
    if model:
        found.append(summaries.auc_section(
            token, mapping_key, scored, model, p=float(setting("auc:p", summaries.DEFAULTS["auc:p"])),
            weight=float(setting("auc:weight", summaries.DEFAULTS["auc:weight"])),
            include_small=include_small, intervals=intervals,
            min_score=(float(setting("auc:min_score", summaries.DEFAULTS["auc:min_score"]))
                       if setting("auc:min_score_on", summaries.DEFAULTS["auc:min_score_on"]) else None)))
    else:
        missed.append("Subgroup AUCs (no score column is mapped)")
    chosen = controls.prediction_settings(scored, model)
    if chosen is not None:
        source, threshold = chosen
        source = source or "given"
        distance, _, reference = controls.disparity_settings(scored.subgroups, "rates")
        metrics = [m for m in setting("rates:metrics", summaries.DEFAULTS["rates:metrics"]) if m in labels.RATE_LABELS]
        found.append(summaries.rate_section(
            token, mapping_key, computations.confusion(token, mapping_key, source, threshold, scored), source=source,
            threshold=threshold, metrics=metrics or summaries.DEFAULTS["rates:metrics"], distance=distance,
            reference=reference, include_small=include_small, intervals=intervals,
            max_difference=float(setting("rates:max_difference", summaries.DEFAULTS["rates:max_difference"])),
            mapping=scored.mapping))
    else:
        missed.append("Rate disparities (no score column or predicted label is mapped)")
    if model:
        distance, reduction, reference = controls.disparity_settings(scored.subgroups, "cal")
        threshold_name = "cal:threshold" if distance == "diff" else "cal:ratio_threshold"
        bound = setting(threshold_name, summaries.DEFAULTS[threshold_name])
        found.append(summaries.calibration_section(
            token, mapping_key, scored, model, n_bins=int(setting("cal:n_bins", summaries.DEFAULTS["cal:n_bins"])),
            strategy=setting("cal:strategy", summaries.DEFAULTS["cal:strategy"]),
            min_per_group=int(setting("cal:min_per_group", summaries.DEFAULTS["cal:min_per_group"])),
            distance=distance, reduction=reduction, reference=reference,
            include_small=include_small,
            threshold=None if bound is None else float(bound), intervals=intervals))
    return found, missed


# With Compare models on, every mapped model gets its own bottom line and scorecard (the sidebar's Model first). The
# answer is drawn into a container made before the toggle, so the toggle sits below it: the first screen holds the
# answer (8 rules at 1,024 x 768: tests/browser/test_scorecard_browser.py).
answer_box = st.container()
comparing = compare.shown(scored)
models = [score] + ([m for m in scored.scores if m != score] if comparing else [])
with progress.computing("every page's findings and verdicts", intervals.ci):
    sections, skipped = model_sections(score)
    others = {model: model_sections(model)[0] for model in models[1:]}
    chosen = controls.prediction_settings(scored, score, allow_score=len(scored.class_names) == 2)
    if chosen is not None:
        source, threshold = chosen
        source = source or "given"
        reduction = setting("classwise:reduction", summaries.DEFAULTS["classwise:reduction"])
        order = None
        if reduction == "difference":
            order = tuple(setting(f"classwise:{k}", default)
                          for k, default in zip(("first", "second"), controls.two_largest(scored.subgroups)))
            reduction = summaries.classwise_reduction(
                reduction, setting("classwise:difference", summaries.DEFAULTS["classwise:difference"]))
        try:
            sections.append(summaries.classwise_section(
                token, mapping_key, computations.class_counts(token, mapping_key, source, threshold, scored), source=source,
                threshold=threshold, metric=setting("classwise:metric", summaries.DEFAULTS["classwise:metric"]),
                reduction=reduction, order=order, include_small=include_small,
                intervals=intervals))
        except ValueError as exc:
            skipped.append(f"Class-wise bias ({escape.md(exc)})")
    else:
        skipped.append("Class-wise bias (no predicted label is mapped)")
    distance, reduction, reference = controls.disparity_settings(scored.subgroups, "dataset")
    sections.append(summaries.dataset_section(
        token, mapping_key, scored, distance=distance, reduction=reduction, reference=reference,
        include_small=include_small,
        max_difference=float(setting("dataset:max_difference", summaries.DEFAULTS["dataset:max_difference"])),
        intervals=intervals))

own_sections = [s for s in sections if s.page != "pages/dataset_metrics.py"]
label_sections = [s for s in sections if s.page == "pages/dataset_metrics.py"]
verdicts = [v for s in own_sections for v in s.verdicts]
label_verdicts = [v for s in label_sections for v in s.verdicts]
label_subjects = [w for s in label_sections for w in (s.subjects or ("",) * len(s.verdicts))]


# The result each rule's verdict was evaluated on, by the key of its section's ``extra`` (fairness_dashboard.results.summaries): the ratio
# scores by metric, the rate rules' largest disparities by (metric, distance), else the section's one result.
_RESULT_KEYS = {"p_percent_score": "p_percent", "equal_opportunity_score": "opportunity"}


def rule_results(own: list) -> list:
    """For each verdict of the sections `own`, the result it was evaluated on, as the section computed it (its
    comparisons are what "Each rule per subgroup" draws); None where the section keeps none."""
    out = []
    for section in own:
        for verdict in section.verdicts:
            metric, largest = verdict.rule.metric, section.extra.get("max", {})
            out.append(section.extra.get(_RESULT_KEYS[metric]) if metric in _RESULT_KEYS
                       else largest.get((metric, verdict.rule.distance_measure), section.extra.get("result")))
    return out


def answer(model: str | None, own: list) -> None:
    """The bottom line of `model` (plain sentences), its scorecard (one row per rule of the model) and, collapsed,
    each of its rules per subgroup."""
    rules = [v for s in own for v in s.verdicts]
    whom = [w for s in own for w in (s.subjects or ("",) * len(s.verdicts))]
    # The model's name leads the first sentence (not a heading of its own: the answer must fit one screen). The
    # labels' sentence, the same for every model, follows the scorecard (label_line).
    weighted = f", weighted by {escape.md(scored.mapping.weight)}" if scored.mapping.weight else ""
    lead = f"**Bottom line for {escape.md(model or 'the predicted label')}{weighted}.** "
    line = bottom_line(rules, whom, intervals=intervals.ci is not None)
    if not rules:
        st.markdown(lead + "No policy rule applies to the current data and settings.")
        return
    st.markdown(lead + " ".join(escape.md(sentence) for sentence in line))
    if judged is not None and model is not None:   # a candidate: its release gate against the baseline, fails first
        against = gate.answer_line(model, *judged)
        if against:
            st.markdown(against)
    # a candidate's rows also say how the gate judges the change in their quantity from the baseline
    vs_baseline = changes_by_rule(rules, judged[2], model) if judged is not None and model else None
    key = (token, mapping_key, model, tuple((v.rule, v.value, v.ci_low, v.ci_high, v.status) for v in rules),
           None if vs_baseline is None else tuple(None if c is None else c.sentence for c in vs_baseline))
    names = [rule_plain_name(v.rule) for v in rules]
    st.plotly_chart(computations.chart("scorecard", key, lambda: plotting.scorecard_chart(
        rules, names, details=whom, changes=vs_baseline)), width="stretch", config={"displayModeBar": False})
    st.caption("Each row is a rule: the dot is the estimate"
               + (f", the bar its {formats.level_text(intervals.ci)} interval" if intervals.ci is not None else "")
               + "; the green band is where the rule passes, the dashed line its bound; the numbers are printed "
                 "on the right. Ratios share one scale, gaps another. Hover a row for the "
                 "rule's technical name and its verdict in full."
               + (" Under a row's numbers, its change from the baseline as the release gate judges it."
                  if vs_baseline is not None and any(c is not None for c in vs_baseline) else ""))
    # Every subgroup's value behind each row, against the rule's band: drawn only while open.
    box = st.expander("Each rule per subgroup", key=f"{state.RULE_SUBGROUPS_OPEN}:{model or ''}", on_change="rerun",
                      icon=":material/view_agenda:")
    if box.open:
        every = key + (include_small, intervals, tuple(s.settings for s in own))
        box.plotly_chart(computations.chart("rule_subgroups", every, lambda: plotting.rule_subgroups_chart(
            rules, rule_results(own), names, details=whom)), width="stretch", config={"displayModeBar": False})
        box.caption("One panel per row of the scorecard: each subgroup's value (against the rest, or the compared "
                    "pair)" + (f" with its {formats.level_text(intervals.ci)} interval" if intervals.ci is not None
                               else "") + "; the green band is where the rule passes, the dashed line its bound. "
                    "The subgroup that decides the rule is in bold, its dot in the verdict's colour; small subgroups "
                    "are open and faded.")


# 2. The bottom line and the scorecard: the answer, above the fold (a tab per model when comparing) -------------
# Comparing, each candidate's tab also says how the release gate judges its changes from the baseline (section 5).
judged = gate.judged_changes(token, mapping_key, scored, intervals=intervals) if comparing else None
with answer_box:
    if len(models) > 1:
        for tab, model in zip(st.tabs([escape.md(m) for m in models]), models):
            with tab:
                answer(model, own_sections if model == score else others[model])
    else:
        answer(score, own_sections)
    # What is a property of the labels, the same for every model: the bottom line's sentence about them (when a rule
    # on them fails or is undecided), then their verdicts.
    if label_verdicts:
        st.markdown("**About the labels** (a property of the data, not of the model; not counted above)")
        label_line = bottom_line((), None, label_verdicts, label_subjects, intervals=intervals.ci is not None)
        if label_line:
            st.markdown(" ".join(escape.md(sentence) for sentence in label_line))
        for verdict in label_verdicts:
            st.markdown(captions.verdict_markdown(verdict))

# 3. The data in brief ------------------------------------------------------------------------------------------
st.subheader("Data")
m = tiles.row(4)
m[0].metric("Rows analysed", f"{scored.n_rows:,}")
m[1].metric("Rows excluded", f"{scored.n_input - scored.n_rows:,}",
            help="Rows left out of every page (missing or invalid label, score or attribute); the Data page "
                 "lists them by reason.")
m[2].metric("Base rate (share positive)", formats.tile(scored.base_rate))
m[2].caption(captions.base_rate_caption(scored, controls.intervals().ci))
m[3].metric("Subgroups", f"{len(scored.subgroups.names):,}")
st.caption(computations.small_rows(token, mapping_key, scored))
st.page_link("pages/data.py", label="Data: columns, exclusions and subgroups", icon=":material/table:")

# 4. The details, collapsed: every verdict in full and every page's findings ------------------------------------
with st.expander("Policy verdicts in full", icon=":material/policy:"):
    # The model's rules are counted; the rules about the labels (Dataset metrics) are properties of the data, apart.
    if verdicts:
        tally = summarize_verdicts(verdicts).attrs["counts"]
        st.markdown("**" + ", ".join(f"{n} {labels.STATUS_WORDS[status]}" for status, n in tally.items() if n)
                    + f"** across the model's {len(verdicts)} rule{'s' if len(verdicts) != 1 else ''}."
                    + (" A rule is inconclusive when its interval straddles the bound, and not assessable when every "
                       "comparison was left out as small or undefined." if intervals.ci is not None
                       else " Intervals are off, so each verdict rests on the point estimate alone."))
        for section in own_sections:
            if section.verdicts:
                st.page_link(section.page, label=section.title, icon=":material/policy:")
                for verdict in section.verdicts:
                    st.markdown(captions.verdict_markdown(verdict))
    else:
        st.caption("No policy rule applies to the current data and settings.")
    for section in label_sections:
        if section.verdicts:
            st.markdown("**Rules about the labels**: properties of the data, not of the model; they are not counted "
                        "above.")
            st.page_link(section.page, label=section.title, icon=":material/policy:")
            for verdict in section.verdicts:
                st.markdown(captions.verdict_markdown(verdict))

with st.expander("Findings of every page", icon=":material/search:"):
    if intervals.ci is None:
        st.info("Intervals are off (sidebar, Intervals), so no finding can say which differences are larger than "
                "chance. The findings below rest on point estimates alone.")
    for section in sections:
        st.page_link(section.page, label=section.title, icon=":material/arrow_forward:")
        if section.findings:
            st.markdown("\n".join(f"- {escape.md(s)}" for s in section.findings))
        elif section.note:
            st.caption(section.note)
        else:
            st.caption("Nothing to report with these settings.")
        if section.settings:
            st.caption(f"Settings: {section.settings}. Change them on the page.")
    if skipped:
        st.caption("Not assessed: " + "; ".join(skipped) + ".")

# 5. Every mapped model's performance against its worst disparity (shown when two or more are mapped) ------------
tradeoff.overview_section(token, mapping_key, scored, intervals=intervals, include_small=include_small,
                          comparing=comparing)
if comparing:   # the release gate's judgement of each other model against the baseline (as the command line's)
    gate.changes_section(token, mapping_key, scored, intervals=intervals)

# 6. A record of the review: the report, the review's JSON, every table as CSV, the configuration -----------------
review_export.export_section()
