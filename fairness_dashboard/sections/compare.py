"""Model comparison: every mapped score column side by side, each at its own decision threshold.

One function per page draws that page's "Compare models" section, below a toggle shown only when at
least two score columns are mapped (one toggle, kept across pages). Every number comes from the
memoized computations of :mod:`fairness_dashboard.results.computations` and :mod:`fairness_dashboard.results.summaries`, called per score column with the
page's own settings, so a model's column here shows what its page shows when that model is picked
under Model; the tables assembled from them are memoized too (keys: token, mapping key, the models'
thresholds and the options). Each model's threshold is its kept ``threshold:<score>`` value (the
Rate disparities page sets it while that model is picked), default :func:`fairness_core.default_threshold`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

import fairness_core as fc
from fairness_core import plotting

from ..data import analysis
from ..presentation import coverage, escape, formats, labels
from ..results import computations, summaries
from ..session import progress, state
from ..session.memo import memo
from ..settings import controls

TOGGLE = "Compare models"
BASELINE = "Baseline model"
ON_KEY = "compare:on"
HELP = ("Show every mapped score column side by side, each at its own decision threshold. The Model picker in "
        "the sidebar still chooses the model the rest of the page analyses.")
AUC_TYPES = {"subgroup_auc": "Subgroup AUC", "bpsn_auc": "BPSN AUC", "bnsp_auc": "BNSP AUC"}
SCORES = {"p_percent_score": "p% score (min)", "equal_opportunity_score": "Equal opportunity score (min)"}
# compare_models' columns as the difference table shows them.
# compare_model_aucs / compare_model_calibration's columns as their difference tables show them.
AUC_DIFFERENCE_COLUMNS = {"model": "Model", "subgroup": "Subgroup", "auc": "AUC", "n_positive": "Positives",
                          "n_negative": "Negatives", "size": "Rows", "value": "Value",
                          "baseline_value": "Baseline value", "difference": "Difference", "p_value": "p-value (DeLong)",
                          "excludes_zero": "Interval excludes 0", "note": "Note"}
AUC_KIND_LABELS = {"overall_auc": "Overall AUC", **AUC_TYPES}
ALL_ROWS = "All rows"       # the subgroup cell of a difference over every row (the overall AUC, the ECE of all rows)
LISTED = 10                 # differences listed in words below a difference table (the largest first)
DIFFERENCE_COLUMNS = {"model": "Model", "quantity": "Quantity", "value": "Value", "baseline_value": "Baseline value",
                      "difference": "Difference", "excludes_zero": "Interval excludes 0"}


def shown(scored: fc.ScoredData) -> bool:
    """Draw the "Compare models" toggle when two or more score columns are mapped; whether it is on.

    The toggle's value is kept across pages (one key for every page), so a reviewer who turns it on
    sees the comparison on each page. With fewer than two score columns nothing is drawn (False).
    """
    if len(scored.scores) < 2:
        return False
    if analysis.needs_rows("Comparing models (paired intervals and differences)"):
        return False
    return bool(controls.kept(st.toggle, TOGGLE, ON_KEY, False, help=HELP))


def thresholds(token: str, mapping_key: str, scored: fc.ScoredData) -> tuple:
    """``((score, threshold), ...)`` for every mapped score column, in mapping order: each one's own kept
    decision threshold (set on the Rate disparities page while it is the Model), else its default."""
    return tuple((score, float(controls.setting(f"threshold:{score}", analysis.default_threshold(scored, score))))
                 for score in scored.scores)


def threshold_inputs(token: str, mapping_key: str, scored: fc.ScoredData) -> None:
    """A decision threshold box per model, four a row, each editing that model's own kept ``threshold:<score>``.

    A box is seeded from the kept value on every run; its change is written, in its callback, to the
    kept value and to the state of the page's Decision threshold box of that model (as
    :func:`fairness_dashboard.settings.controls.threshold_slider` does), so the current model's two boxes always show
    one value and no other model's threshold changes.
    """
    columns = st.columns(min(4, len(scored.scores)))
    for i, score in enumerate(scored.scores):
        name, key = f"threshold:{score}", f"w:compare:threshold:{score}"
        st.session_state[key] = float(controls.setting(name, analysis.default_threshold(scored, score)))

        def changed(name: str = name, key: str = key) -> None:
            st.session_state["w:" + name] = st.session_state[state.KEEP_PREFIX + name] = float(st.session_state[key])

        columns[i % 4].number_input(f"Threshold of {escape.md(score)}", key=key, format="%g", on_change=changed,
                                    step=1.0 if scored.score_ranges[score][2] else 0.01,
                                    help=labels.HELP[labels.THRESHOLD] + " The same value as the Decision threshold "
                                         "at the top of the page while this model is picked under Model.")


def cell(value: float, low: float = float("nan"), high: float = float("nan")) -> str:
    """'0.1234 [0.1000, 0.1500]': a value and its interval (when both ends are defined), as fairness_dashboard.presentation.formats.num writes them.

    A comma, not a dash, between the ends: differences have negative ends ('-0.06 [-0.09, -0.03]')."""
    out = formats.num(value)
    if not (low is None or high is None or math.isnan(low) or math.isnan(high)):
        out += f" [{formats.num(low)}, {formats.num(high)}]"
    return out


def verdict_cell(verdict) -> str:
    """'Pass: 0.0812 [0.0511, 0.1104]': a verdict's status and the value it assessed."""
    return f"{labels.STATUS_BADGES[verdict.status][0]}: {cell(verdict.value, verdict.ci_low, verdict.ci_high)}"


def _interval_note(intervals) -> str:
    if intervals.ci is None:
        return "Intervals are off (sidebar, Intervals): values and verdicts rest on point estimates."
    return (f"In brackets: {formats.level_text(intervals.ci)} intervals (bootstrap with {intervals.n_boot:,} "
            "resamples, seed 0).")


def _frame(rows: dict, models: list) -> pd.DataFrame:
    """Rows (label -> one text per model) as a table with the quantity as its index and a column per model."""
    out = pd.DataFrame.from_dict(rows, orient="index", columns=models)
    out.index.name = "Quantity"
    return out


# Subgroup AUCs -----------------------------------------------------------------------------------------------

@memo(analysis.SMALL, ignore=("scored",))
def auc_models(token: str, mapping_key: str, scored: fc.ScoredData, *, p: float, weight: float, include_small: bool,
               intervals, min_score: float | None) -> tuple:
    """(AUC tables by model, per-model table of the overall AUC, power means and bias AUC score) at p and
    weight, from each model's memoized ``summaries.auc_section`` (what the page shows for that model)."""
    sections = {score: summaries.auc_section(token, mapping_key, scored, score, p=p, weight=weight,
                                             include_small=include_small, intervals=intervals, min_score=min_score)
                for score in scored.scores}
    rows = []
    for score, section in sections.items():
        table, result = section.extra["table"], section.extra["result"]
        row = {"model": score, "overall_auc": result.overall_auc, "subgroup_power_mean": result.subgroup_power_mean,
               "bpsn_power_mean": result.bpsn_power_mean, "bnsp_power_mean": result.bnsp_power_mean,
               "bias_auc_score": result.value}
        if intervals.ci is not None:
            row["overall_auc_ci_low"], row["overall_auc_ci_high"] = table.attrs.get("overall_auc_ci",
                                                                                    (np.nan, np.nan))
            for column in AUC_TYPES:
                low, high = (result.power_mean_ci or {}).get(column, (np.nan, np.nan))
                row[column.replace("_auc", "_power_mean") + "_ci_low"] = low
                row[column.replace("_auc", "_power_mean") + "_ci_high"] = high
            row["bias_auc_score_ci_low"], row["bias_auc_score_ci_high"] = result.ci_low, result.ci_high
        if section.verdicts:
            row["verdict"] = labels.STATUS_BADGES[section.verdicts[0].status][0]
        rows.append(row)
    summary = pd.DataFrame(rows)
    ordered = ["model"] + [c for base in ("overall_auc", "subgroup_power_mean", "bpsn_power_mean", "bnsp_power_mean",
                                          "bias_auc_score") for c in (base, base + "_ci_low", base + "_ci_high")
                           if c in summary] + (["verdict"] if "verdict" in summary else [])
    return {score: s.extra["table"] for score, s in sections.items()}, summary[ordered]


AUC_SUMMARY_LABELS = {"model": "Model", "overall_auc": "Overall AUC", "subgroup_power_mean": "Power mean: subgroup",
                      "bpsn_power_mean": "Power mean: BPSN", "bnsp_power_mean": "Power mean: BNSP",
                      "bias_auc_score": "Bias AUC score", "verdict": "Minimum bias AUC score"}


def number_config(columns, labels: dict) -> dict:
    """column_config: `labels` for headers, numbers to 4 significant digits, '<base>: CI low/high' for intervals."""
    config = {}
    for col in columns:
        bound = next((b for b in ("_ci_low", "_ci_high") if col.endswith(b)), None)
        if bound is not None:
            base = col[: -len(bound)]
            config[col] = st.column_config.NumberColumn(f"{labels.get(base, base)}: CI {bound[4:]}", format="%.4g")
        elif col in ("model", "verdict", "quantity", "rate", "excludes_zero", "subgroup", "auc", "note"):
            config[col] = labels.get(col, col)
        else:
            config[col] = st.column_config.NumberColumn(labels.get(col, col), format="%.4g")
    return config


def auc_section(token: str, mapping_key: str, scored: fc.ScoredData, *, p: float, weight: float,
                include_small: bool, intervals, min_score: float | None, order) -> None:
    """Subgroup AUCs page: a subgroup x model heatmap per AUC type (subgroups in the page's `order`, None: the
    table's) and a table of each model's overall AUC, power means and bias AUC score at the page's p and weight."""
    if not shown(scored):
        return
    st.subheader("Compare models")
    with progress.computing("the AUCs of every model", intervals.ci):
        tables, summary = auc_models(token, mapping_key, scored, p=float(p), weight=float(weight),
                                     include_small=include_small, intervals=intervals, min_score=min_score)
    models = list(tables)
    key = (token, mapping_key, tuple(models), intervals.ci, intervals.n_boot, tuple(order or ()))
    for tab, (column, label) in zip(st.tabs(list(AUC_TYPES.values())), AUC_TYPES.items()):
        with tab:
            st.plotly_chart(computations.chart("model_auc_heatmap", (*key, column), lambda column=column, label=label:
                                       plotting.model_auc_heatmap(tables, column, order=order,
                                                                  title=f"{label} per subgroup and model")),
                            width="stretch")
    st.caption("Subgroups top to bottom as in the chart above: "
               + ("worst first by the model picked under Model." if order is not None else "in name order."))
    st.dataframe(summary, hide_index=True, column_config=number_config(summary.columns, AUC_SUMMARY_LABELS))
    st.caption(f"Power means with p = {float(p):g}; bias AUC score with overall weight {float(weight):g}"
               + (f"; intervals {formats.level_text(intervals.ci)}: DeLong's for the overall AUC, a bootstrap "
                  f"({intervals.n_boot:,} resamples, seed 0) for the power means and the score." if intervals.ci
                  is not None else "; intervals are off.")
               + (f" Minimum bias AUC score: {float(min_score):g}." if min_score is not None else ""))
    baseline = pick_baseline(models)
    with progress.computing("the AUC differences from the baseline", intervals.ci):
        differences = auc_differences(token, mapping_key, scored, baseline=baseline, level=intervals.ci,
                                      order=tuple(order or ()))
    st.dataframe(differences, hide_index=True, column_config=number_config(differences.columns,
                                                                           AUC_DIFFERENCE_COLUMNS))
    method = ("DeLong's paired variance of two AUCs on the same rows (DeLong, DeLong & Clarke-Pearson 1988), as a "
              "Wald interval; the p-value tests equal AUCs")
    difference_notes(differences, baseline, intervals.ci, method,
                     lambda r: r.auc if r.subgroup == ALL_ROWS else f"{r.subgroup}: {r.auc}",
                     measured=[f"difference between models: {kind}"
                               for kind in ("subgroup AUC", "BPSN AUC", "BNSP AUC", "overall AUC")])


def pick_baseline(models: list) -> str:
    """The "Baseline model" picker, one kept value shared by every page's comparison; the model chosen."""
    return controls.kept(st.selectbox, BASELINE, "compare:baseline", models[0], options=models,
                         help="The model the others are compared with: each difference is model - baseline, with a "
                              "paired interval (both models score the same rows).")


def in_page_order(table: pd.DataFrame, baseline: str, order: tuple) -> pd.DataFrame:
    """The rows of every model but `baseline`, models in table order; in each, all rows first (subgroup None, shown
    as ``ALL_ROWS``) and then the subgroups in the page's `order` (empty: the table's), other columns kept in order."""
    out = table[table["model"] != baseline]
    rank = {name: i for i, name in enumerate(order)}
    position = out["subgroup"].map(lambda name: -1 if name is None else rank.get(name, len(rank)))
    model = out["model"].map({m: i for i, m in enumerate(dict.fromkeys(table["model"]))})
    out = out.assign(_model=model, _rank=position).sort_values(["_model", "_rank"], kind="stable")
    out = out.drop(columns=["_model", "_rank"]).reset_index(drop=True)
    out["subgroup"] = [ALL_ROWS if name is None else name for name in out["subgroup"]]
    return out


@memo(analysis.SMALL, ignore=("scored",))
def auc_differences(token: str, mapping_key: str, scored: fc.ScoredData, *, baseline: str, level: float | None,
                    order: tuple) -> pd.DataFrame:
    """Every other model's overall, subgroup, BPSN and BNSP AUCs and their differences from `baseline`'s with
    DeLong's paired intervals (``fc.compare_model_aucs``, memoized in :func:`fairness_dashboard.results.computations.model_auc_differences`), in
    the page's subgroup `order`, each AUC type in words; ``attrs``: the baseline and the level."""
    table = computations.model_auc_differences(token, mapping_key, baseline, level, scored)
    columns = [c for c in ("model", "subgroup", "auc", "n_positive", "n_negative", "value", "baseline_value",
                           "difference", "difference_ci_low", "difference_ci_high", "p_value", "excludes_zero", "note")
               if c in table]
    out = in_page_order(table, baseline, order)[columns]
    out["auc"] = out["auc"].map(AUC_KIND_LABELS)
    out.attrs = dict(table.attrs)
    return out


def difference_notes(differences: pd.DataFrame, baseline: str, level: float | None, method: str, describe,
                     measured=()) -> None:
    """The caption of a difference table (model - baseline, how its intervals are made: `method`; the measured
    coverage of the quantities `measured` names, :func:`fairness_dashboard.presentation.coverage.note`) and, with intervals, the differences whose
    interval excludes 0 in words, the largest first (at most ``LISTED``; `describe(row)` names what a row
    compares)."""
    if level is None:
        st.caption("Difference: model - baseline. Intervals are off (sidebar, Intervals), so no difference can be "
                   "said to exclude 0.")
        return
    st.caption(f"Difference: model - baseline, with its {formats.level_text(level)} interval: {method}."
               + coverage.note(measured))
    excluding = differences[differences["excludes_zero"].fillna(False).astype(bool)]
    if not len(excluding):
        st.markdown(f"No difference from {escape.md(baseline)} has an interval that excludes 0.")
        return
    largest = excluding.iloc[np.argsort(-excluding["difference"].abs().to_numpy(), kind="stable")]
    more = len(largest) - LISTED
    st.markdown(f"{len(excluding):,} of {len(differences):,} differences have an interval that excludes 0"
                + (f"; the {LISTED} largest:\n" if more > 0 else ":\n") + "\n".join(
                    f"- {escape.md(r.model)} - {escape.md(baseline)}: {escape.md(describe(r))} "
                    f"{cell(r.difference, r.difference_ci_low, r.difference_ci_high)}"
                    for r in largest.head(LISTED).itertuples())
                + (f"\n\nand {more:,} more (in the table)." if more > 0 else ""))


# Rate disparities ----------------------------------------------------------------------------------------------

def quantity_label(quantity: str, reduction: str) -> str:
    """A compare_models quantity in words: 'False positive rate disparity (max)', 'p% score (min)'."""
    if quantity in SCORES:
        return SCORES[quantity]
    if quantity == "equalized_odds":
        return f"Equalized odds ({reduction})"
    if quantity in ("accuracy", "selection_rate"):  # over all rows (a selection-rate disparity is statistical_parity)
        return quantity.replace("_", " ").capitalize() + " (all rows)"
    rate = next(r for r, m in labels.RATE_TO_METRIC.items() if m == quantity)
    return f"{labels.RATE_LABELS[rate]} disparity ({reduction})"


def rate_quantities(metrics) -> tuple:
    """The compare_models quantities of the Rate disparities page's selected rates (page keys, e.g.
    'selection_rate'), then equalized odds and the two ratio scores, as the page shows them."""
    return tuple(labels.RATE_TO_METRIC[m] for m in metrics) + ("equalized_odds", *SCORES)


@memo(analysis.SMALL, ignore=("scored",))
def rate_models(token: str, mapping_key: str, scored: fc.ScoredData, *, thresholds: tuple, metrics: tuple,
                distance: str, reduction: str, reference: str, include_small: bool, intervals,
                max_difference: float) -> pd.DataFrame:
    """Each model's reduced disparities, equalized odds, ratio scores and the page's policy verdicts, at its own
    threshold: rows = quantity (then one per rule), columns = models, cells 'value [interval]' ('Status: value
    [interval]' for a rule). The values are the page's memoized results for that model and threshold."""
    level, n_boot, adjust = intervals.ci, intervals.n_boot, intervals.adjust
    models = [score for score, _ in thresholds]
    rows: dict = {"Decision threshold": [f">= {t:g}" for _, t in thresholds]}
    rules: dict = {}
    for j, (score, threshold) in enumerate(thresholds):
        counts = computations.confusion(token, mapping_key, score, threshold, scored)
        section = summaries.rate_section(token, mapping_key, counts, source=score, threshold=threshold,
                                         metrics=list(metrics), distance=distance, reference=reference,
                                         include_small=include_small, intervals=intervals,
                                         max_difference=max_difference, mapping=scored.mapping)
        results = {q: computations.disparity(token, mapping_key, score, threshold, q, distance, reduction, reference,
                                     include_small, level, n_boot, adjust, counts)
                   for q in rate_quantities(metrics)[:-len(SCORES)]}
        results |= {"p_percent_score": section.extra["p_percent"],
                    "equal_opportunity_score": section.extra["opportunity"]}
        for quantity, result in results.items():
            rows.setdefault(quantity_label(quantity, reduction), [""] * len(models))[j] = cell(
                result.value, getattr(result, "ci_low", np.nan), getattr(result, "ci_high", np.nan))
        for verdict in section.verdicts:
            rules.setdefault(f"Rule: {verdict.rule.label}", [""] * len(models))[j] = verdict_cell(verdict)
    return _frame(rows | rules, models)


@memo(analysis.SMALL, ignore=("scored",))
def rate_differences(token: str, mapping_key: str, scored: fc.ScoredData, *, thresholds: tuple, baseline: str,
                     metrics: tuple, distance: str, reduction: str, reference: str, include_small: bool,
                     intervals) -> pd.DataFrame:
    """compare_models of every model against `baseline` (paired bootstrap, seed 0), the baseline's own rows left
    out and each quantity in words (``attrs``: the baseline and the level)."""
    table = computations.model_comparison(token, mapping_key, thresholds, baseline, rate_quantities(metrics), distance,
                                  reduction, reference, include_small, intervals.ci, intervals.n_boot, scored)
    out = table[table["model"] != baseline].reset_index(drop=True)
    out["quantity"] = [quantity_label(q, reduction) for q in out["quantity"]]
    out.attrs = dict(table.attrs)
    return out


def rate_section(token: str, mapping_key: str, scored: fc.ScoredData, *, metrics, distance: str, reduction: str,
                 reference: str, include_small: bool, intervals, max_difference: float) -> None:
    """Rate disparities page: each model at its own threshold with the page's rates, distance, reduction,
    reference and policy bound; a baseline model and every other model's differences from it (paired intervals)."""
    if not shown(scored):
        return
    st.subheader("Compare models")
    models = list(scored.scores)
    threshold_inputs(token, mapping_key, scored)
    chosen = thresholds(token, mapping_key, scored)
    options = dict(metrics=tuple(metrics), distance=distance, reduction=reduction, reference=reference,
                   include_small=include_small, intervals=intervals)
    with progress.computing("the disparities of every model", intervals.ci):
        side = rate_models(token, mapping_key, scored, thresholds=chosen, max_difference=float(max_difference),
                           **options)
    ref_text = labels.against(reference)
    st.caption("Each model at its own decision threshold (the boxes above; the current Model's is the Decision "
               f"threshold at the top of the page). Against {ref_text}, distance {labels.DISTANCE_LABELS[distance]}, reduction {reduction}; "
               "the rules as under Policy above (assessed on the largest disparity). " + _interval_note(intervals))
    st.dataframe(side, height="content")
    baseline = pick_baseline(models)
    with progress.computing("the differences from the baseline", intervals.ci):
        differences = rate_differences(token, mapping_key, scored, thresholds=chosen, baseline=baseline, **options)
    st.dataframe(differences, hide_index=True, column_config=number_config(differences.columns, DIFFERENCE_COLUMNS))
    if intervals.ci is None:
        st.caption("Difference: model - baseline. Intervals are off (sidebar, Intervals), so no difference can be "
                   "said to exclude 0.")
        return
    st.caption(f"Difference: model - baseline, with its {formats.level_text(intervals.ci)} interval from a paired "
               f"bootstrap ({intervals.n_boot:,} resamples of the rows, stratified by subgroup, seed 0): both models "
               "are recomputed on the same resampled rows." + coverage.note(["difference between models"]))
    excluding = differences[differences["excludes_zero"].fillna(False).astype(bool)]
    if len(excluding):
        st.markdown("Differences whose interval excludes 0:\n" + "\n".join(
            f"- {escape.md(r.model)} - {escape.md(baseline)}: {escape.md(r.quantity)} "
            f"{cell(r.difference, r.difference_ci_low, r.difference_ci_high)}" for r in excluding.itertuples()))
    else:
        st.markdown(f"No difference from {escape.md(baseline)} has an interval that excludes 0.")


# Calibration ---------------------------------------------------------------------------------------------------

@memo(analysis.SMALL, ignore=("scored",))
def calibration_models(token: str, mapping_key: str, scored: fc.ScoredData, *, n_bins: int, strategy: str,
                       min_per_group: int, distance: str, reduction: str, reference: str, include_small: bool,
                       threshold: float | None, intervals) -> pd.DataFrame:
    """Each model's ECE disparity 'value [interval]' and verdict (rows) side by side (columns), from its memoized
    ``summaries.calibration_section`` at the page's settings; a score that is not a probability says why not."""
    models = list(scored.scores)
    rows = {f"ECE disparity ({reduction})": [""] * len(models), "Verdict": [""] * len(models)}
    for j, score in enumerate(models):
        section = summaries.calibration_section(
            token, mapping_key, scored, score, n_bins=n_bins, strategy=strategy, min_per_group=min_per_group,
            distance=distance, reduction=reduction, reference=reference, include_small=include_small,
            threshold=threshold, intervals=intervals)
        if "result" not in section.extra:
            low, high, _ = scored.score_ranges[score]
            rows[f"ECE disparity ({reduction})"][j] = (f"not assessed: ranges from {low:g} to {high:g}, "
                                                       "not a probability")
            rows["Verdict"][j] = "not assessed"
            continue
        result = section.extra["result"]
        rows[f"ECE disparity ({reduction})"][j] = cell(result.value, result.disparity.ci_low, result.disparity.ci_high)
        rows["Verdict"][j] = verdict_cell(result.verdict) if result.verdict is not None else "no rule (ratio without a bound)"
    return _frame(rows, models)


def calibration_section(token: str, mapping_key: str, scored: fc.ScoredData, *, n_bins: int, strategy: str,
                        min_per_group: int, distance: str, reduction: str, reference: str, include_small: bool,
                        threshold: float | None, intervals, order=None) -> None:
    """Calibration page: every model's ECE disparity and verdict side by side, at the page's settings (scores
    that are not probabilities are named, with their range, and not assessed); then each probability column's ECE
    of all rows and of every subgroup (in the page's `order`) and its difference from the baseline model's."""
    if not shown(scored):
        return
    st.subheader("Compare models")
    with progress.computing("the calibration of every model", intervals.ci):
        side = calibration_models(token, mapping_key, scored, n_bins=int(n_bins), strategy=strategy,
                                  min_per_group=int(min_per_group), distance=distance, reduction=reduction,
                                  reference=reference, include_small=include_small, threshold=threshold,
                                  intervals=intervals)
    st.dataframe(side)
    ref_text = labels.against(reference)
    st.caption(f"ECE of each subgroup against {ref_text}, distance {labels.DISTANCE_LABELS[distance]}, "
               f"{int(n_bins)} {strategy} bins, as above; calibration needs no threshold. Only scores in [0, 1] "
               "are probabilities whose calibration can be assessed. " + _interval_note(intervals))
    baseline = pick_baseline(list(scored.scores))
    models = probability_columns(token, mapping_key, scored)
    if baseline not in models or len(models) < 2:
        st.caption(f"No ECE differences: the baseline model {escape.md(baseline)} is not a probability (pick one that "
                   "is)." if baseline not in models else
                   "No ECE differences: only the baseline model is a probability.")
        return
    with progress.computing("the ECE differences from the baseline", intervals.ci):
        differences = calibration_differences(token, mapping_key, scored, models=models, baseline=baseline,
                                              n_bins=int(n_bins), strategy=strategy, min_per_group=int(min_per_group),
                                              level=intervals.ci, n_boot=intervals.n_boot, order=tuple(order or ()))
    st.dataframe(differences, hide_index=True, column_config=number_config(differences.columns,
                                                                           AUC_DIFFERENCE_COLUMNS))
    left_out = [m for m in scored.scores if m not in models]
    method = (f"a paired bootstrap ({intervals.n_boot:,} resamples of the rows, stratified by subgroup, seed 0) that "
              f"recomputes both models' ECE ({int(n_bins)} {strategy} bins each) on the same resampled rows"
              + (f"; not probabilities, so left out: {', '.join(left_out)}" if left_out else ""))
    difference_notes(differences, baseline, intervals.ci, method, lambda r: f"ECE of {r.subgroup.lower()}"
                     if r.subgroup == ALL_ROWS else f"ECE of {r.subgroup}",
                     measured=["difference between models: ECE"])


@memo(analysis.SMALL, ignore=("scored",))
def probability_columns(token: str, mapping_key: str, scored: fc.ScoredData) -> tuple:
    """The score columns whose values all lie in [0, 1] (probabilities), in mapping order."""
    return tuple(s for s, (low, high, _) in scored.score_ranges.items() if low >= 0 and high <= 1)


@memo(analysis.SMALL, ignore=("scored",))
def calibration_differences(token: str, mapping_key: str, scored: fc.ScoredData, *, models: tuple, baseline: str,
                            n_bins: int, strategy: str, min_per_group: int, level: float | None, n_boot: int,
                            order: tuple) -> pd.DataFrame:
    """Every other probability column's ECE of all rows and of each subgroup (in the page's `order`) and its
    difference from `baseline`'s with a paired bootstrap interval (``fc.compare_model_calibration``, memoized in
    :func:`fairness_dashboard.results.computations.model_calibration_differences`); ``attrs``: the baseline and the
    options."""
    table = computations.model_calibration_differences(token, mapping_key, models, baseline, n_bins, strategy, min_per_group,
                                               level, n_boot, scored)
    out = in_page_order(table, baseline, order).drop(columns=["small"])
    out.attrs = dict(table.attrs)
    return out
