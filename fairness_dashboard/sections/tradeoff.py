"""The Overview's trade-off: every mapped model's performance at its own threshold against its worst rate disparity.

Shown when two or more score columns are mapped and Compare models is on (:mod:`fairness_dashboard.sections.compare`). The performance is
balanced accuracy or the overall AUC, chosen by the user: both are 0.5 for a model that cannot rank or that predicts
one class for everyone, so a trivial model never wins the chart as it would on accuracy.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

import fairness_core as fc
from fairness_core import plotting

from ..data import analysis
from ..presentation import labels
from ..results import computations, summaries
from ..session import progress
from ..session.memo import memo
from ..settings import controls
from . import compare


@memo(analysis.SMALL, ignore=("scored",))
def overview_models(token: str, mapping_key: str, scored: fc.ScoredData, *, thresholds: tuple, metrics: tuple,
                    distance: str, reduction: str, reference: str, include_small: bool, intervals) -> pd.DataFrame:
    """One row per model at its own threshold: overall AUC (with its DeLong interval), the "All rows" balanced
    accuracy, accuracy, precision and recall of ``fc.performance_table`` (with their intervals), and its worst
    disparity: the largest over the Rate disparities page's `metrics` of the reduced disparity (with that result's
    interval) and the rate it is of."""
    level, n_boot, adjust = intervals.ci, intervals.n_boot, intervals.adjust
    rows = []
    for score, threshold in thresholds:
        counts = computations.confusion(token, mapping_key, score, threshold, scored)
        overall = computations.performance(token, mapping_key, score, threshold, level, n_boot, counts).iloc[0]
        aucs = (computations.auc_table(token, mapping_key, score, scored) if level is None
                else computations.auc_intervals(token, mapping_key, score, level, n_boot, scored))
        row = {"model": score, "threshold": threshold, "auc": float(aucs.attrs["overall_auc"])}
        if level is not None:
            row["auc_ci_low"], row["auc_ci_high"] = (float(v) for v in aucs.attrs["overall_auc_ci"])
        for name in ("balanced_accuracy", "accuracy", "precision", "recall"):
            row[name] = float(overall[name])
            if level is not None:
                row[f"{name}_ci_low"], row[f"{name}_ci_high"] = (float(overall[f"{name}_ci_low"]),
                                                                 float(overall[f"{name}_ci_high"]))
        results = {m: computations.disparity(token, mapping_key, score, threshold, labels.RATE_TO_METRIC[m], distance,
                                     reduction, reference, include_small, level, n_boot, adjust, counts)
                   for m in metrics}
        defined = {m: r for m, r in results.items() if not math.isnan(r.value)}
        worst = max(defined, key=lambda m: defined[m].value) if defined else None
        row["disparity"] = defined[worst].value if worst else np.nan
        if level is not None:
            row["disparity_ci_low"] = defined[worst].ci_low if worst else np.nan
            row["disparity_ci_high"] = defined[worst].ci_high if worst else np.nan
        row["rate"] = labels.RATE_LABELS[worst] if worst else "undefined"
        rows.append(row)
    return pd.DataFrame(rows)


# The trade-off chart's performance measures: both are 0.5 for a model that cannot rank or that predicts one class
# for everyone, whatever the base rate (accuracy is not: at a 12 % base rate, denying everyone scores 0.88).
MEASURES = {"balanced_accuracy": "Balanced accuracy (all rows, at the threshold)",
            "auc": "Overall AUC (all rows, any threshold)"}
OVERVIEW_LABELS = {"model": "Model", "threshold": "Threshold", "auc": "Overall AUC",
                   "balanced_accuracy": "Balanced accuracy", "accuracy": "Accuracy",
                   "precision": "Precision", "recall": "Recall", "disparity": "Worst disparity",
                   "rate": "Worst disparity is of"}


def overview_section(token: str, mapping_key: str, scored: fc.ScoredData, *, intervals, include_small: bool,
                     comparing: bool) -> None:
    """Overview page: every model's overall performance at its own threshold against its worst rate disparity
    (the Rate disparities page's rates, distance, reduction and reference), as a scatter and a table; drawn when
    `comparing` (the page's Compare models toggle, :func:`fairness_dashboard.sections.compare.shown`, is on)."""
    if not comparing:
        return
    st.subheader("Compare models")
    metrics = [m for m in controls.setting("rates:metrics", summaries.DEFAULTS["rates:metrics"])
               if m in labels.RATE_LABELS] or summaries.DEFAULTS["rates:metrics"]
    distance, reduction, reference = controls.disparity_settings(scored.subgroups, "rates")
    chosen = compare.thresholds(token, mapping_key, scored)
    with progress.computing("the performance and disparities of every model", intervals.ci):
        points = overview_models(token, mapping_key, scored, thresholds=chosen, metrics=tuple(metrics),
                                 distance=distance, reduction=reduction, reference=reference,
                                 include_small=include_small, intervals=intervals)
    bound = None
    if distance == "diff" and reduction == "max":
        bound = float(controls.setting("rates:max_difference", summaries.DEFAULTS["rates:max_difference"]))
    y_label = f"Worst disparity ({labels.DISTANCE_LABELS[distance]}, {reduction})"
    measure = st.radio("Performance measure", list(MEASURES), format_func=MEASURES.get, horizontal=True,
                       key="overview:measure",
                       help="Both are 0.5 for a model that cannot rank, or that predicts one class for everyone, "
                            "whatever the base rate; accuracy is not (at a 12 % base rate, denying everyone scores "
                            "0.88), so the chart never plots it.")
    key = (token, mapping_key, chosen, tuple(metrics), distance, reduction, reference, include_small, intervals, bound,
           measure)
    name = OVERVIEW_LABELS[measure]
    st.plotly_chart(computations.chart("tradeoff", key, lambda: plotting.tradeoff_chart(
        points, x=measure, y="disparity", x_label=MEASURES[measure], y_label=y_label, bound=bound,
        title=f"{name} against worst disparity, each model at its own threshold")), width="stretch")
    st.dataframe(points, hide_index=True, column_config=compare.number_config(points.columns, OVERVIEW_LABELS))
    ref_text = labels.against(reference)
    st.caption("Performance from the confusion counts of all rows at each model's threshold"
               + (" (Wilson intervals; balanced accuracy: MOVER from the Wilson intervals of the true positive and "
                  "true negative rates; AUC: DeLong)" if intervals.ci is not None else "") + "; "
               f"worst disparity: the largest {reduction} disparity over the rates chosen on Rate disparities ("
               + ", ".join(labels.RATE_LABELS[m] for m in metrics) + f") against {ref_text}"
               + (", with its interval. " if intervals.ci is not None else ". ")
               + ("The line is the policy bound on a difference. " if bound is not None else "")
               + ("Intervals are off." if intervals.ci is None else ""))
    st.page_link("pages/rate_disparities.py", label="Rate disparities: each model's disparities and differences",
                 icon=":material/arrow_forward:")
