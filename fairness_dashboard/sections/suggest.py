"""The threshold explorer's "Suggest a threshold": where every rate rule of the page passes with its whole interval
across thresholds (``fc.suggest_threshold``), what each threshold costs each subgroup, the passing threshold that
best keeps a measure, and a button that applies it to every page (the kept threshold of the score)."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

import fairness_core as fc
from fairness_core import plotting

from ..data import analysis
from ..presentation import escape, labels
from ..results import computations
from ..session import progress, state
from ..settings import controls

MEASURES = {"balanced_accuracy": "Balanced accuracy (the highest)", "accuracy": "Accuracy (the highest)",
            "recall": "Recall (kept as at the current threshold)",
            "precision": "Precision (kept as at the current threshold)",
            "selection_rate": "Selection rate (kept as at the current threshold)"}
COST_COLUMNS = ("size", "selection_rate", "recall", "precision", "accuracy", "balanced_accuracy")


def suggest_section(token: str, mapping_key: str, scored: fc.ScoredData, score: str, threshold: float, tc,
                    metrics: list, *, distance: str, reference: str, include_small: bool, max_difference: float,
                    intervals) -> None:
    """The suggestion, on request: it assesses every rule at every threshold of the explorer's grid (seconds)."""
    st.markdown(f"**Suggest a threshold**: where every rule of the Policy above passes {_passes(intervals.ci)}, "
                "and what each threshold costs.")
    if not isinstance(tc, fc.ThresholdCounts) or analysis.needs_rows("Suggesting a threshold"):
        st.caption("The suggestion reads the counts of the rows in memory at every threshold: analyse the rows (or a "
                   "sample of them) to use it.")
        return
    measure = controls.kept(st.selectbox, "Keep", "rates:suggest_measure", "balanced_accuracy",
                            options=list(MEASURES), format_func=MEASURES.get,
                            help="Among the thresholds where every rule passes, the suggestion is the one with the "
                                 "highest balanced accuracy or accuracy, or the one whose recall, precision or "
                                 "selection rate is closest to its value at the current threshold.")
    if not controls.kept(st.toggle, "Assess every threshold", "rates:suggest_on", False,
                         help=f"Assesses the Policy's rules with their intervals at each of up to "
                              f"{computations.EXPLORER_POINTS} thresholds; this takes a few seconds."):
        return
    current = threshold if fc.ThresholdSuggestion.MEASURES[measure] == "keep" else None
    options = (token, mapping_key, score, tuple(metrics), distance, reference, include_small, float(max_difference),
               intervals.ci, intervals.n_boot, intervals.adjust, scored.mapping.positive_outcome, measure)
    with progress.stage(f"Assessing the rules at up to {computations.EXPLORER_POINTS} thresholds ..."):
        found = computations.suggestion(*options, current, tc)
        # the current threshold's own point (off the grid, mostly): one threshold more, memoized apart
        here = computations.suggestion(*options, None, tc, thresholds=(float(threshold),)).table
    st.markdown(_summary(found, score, threshold, scored.mapping.positive_outcome))
    points = pd.concat([found.table, here]).drop_duplicates("threshold").sort_values("threshold")
    label = MEASURES[measure].split(" (")[0]
    key = (token, mapping_key, score, tuple(metrics), distance, reference, include_small, max_difference,
           intervals, measure, current, threshold)
    st.plotly_chart(computations.chart("suggestion", key, lambda: plotting.threshold_tradeoff_chart(
        points, measure, measure_label=label,
        disparity_label=f"Worst rate disparity ({labels.DISTANCE_LABELS[distance]})", current=threshold,
        suggested=found.suggested, title=f"{label} against the worst disparity at each threshold of {score}")),
        width="stretch")
    st.caption(f"Each point is a threshold, coloured by the status of its rules: pass (every rule passes "
               f"{_passes(intervals.ci)})" + (", inconclusive (none fails, an interval straddles its bound)"
                                               if intervals.ci is not None else "")
               + " or fail. The star is the suggestion; the ring the current threshold, where it is on the grid.")
    if found.suggested is None:
        return
    st.dataframe(_cost(found, threshold, computations.performance_at(token, mapping_key, score, threshold, tc)),
                 hide_index=True)
    st.button(f"Apply the threshold {found.suggested:g} to every page", on_click=_apply,
              args=(score, found.suggested), disabled=found.suggested == threshold, type="primary")


def _passes(ci) -> str:
    """How a rule passes: with its whole interval, or on its point estimate when intervals are off."""
    return "with its whole interval" if ci is not None else "on its point estimate (intervals are off)"


def _summary(found: fc.ThresholdSuggestion, score: str, threshold: float, outcome: str = "favourable") -> str:
    """The passing and inconclusive thresholds and the suggestion, in words (Markdown-safe); a passing band that
    starts where everyone gets the same prediction is said to pass for that reason."""
    runs = found.bands_text
    head = (f"Every rule passes at: **{runs('pass')}**; none fails but one is inconclusive at: {runs('inconclusive')} "
            f"({len(found.table):,} thresholds of {escape.md(score)}).")   # numbers and our words: no escaping
    head += _alike(found, outcome)
    if found.suggested is None:
        return head + " At every threshold a rule fails or cannot be assessed, so none is suggested."
    how = ("the highest" if fc.ThresholdSuggestion.MEASURES[found.measure] == "max"
           else f"the closest to its value at the current threshold {threshold:g}")
    cost = f"The table gives what it costs each subgroup against the current threshold {threshold:g}."
    if found.basis == "no_fail":   # nothing passes with its interval: the best threshold where nothing fails
        needed = found.rows_needed
        return (head + f" No threshold passes every rule with its interval. Suggested: **{found.suggested:g}**, the "
                f"threshold where **no rule fails** whose {found.measure.replace('_', ' ')} is {how}; a rule is "
                f"inconclusive there, the data too few to decide it"
                + (f" (about {needed:,.0f} rows in the smallest subgroup would)" if math.isfinite(needed) else "")
                + f". {cost}")
    return (head + f" Suggested: **{found.suggested:g}**, the passing threshold whose "
            f"{found.measure.replace('_', ' ')} is {how}. {cost}")


def _alike(found: fc.ThresholdSuggestion, outcome: str) -> str:
    """A sentence when a passing threshold predicts the same for every row (selection rate 1 or 0): every subgroup
    is then treated alike, which passes the rate rules whatever the model; '' otherwise."""
    table = found.table[found.table["status"] == "pass"]
    said = []
    for rate, who in ((1.0, "positive"), (0.0, "negative")):
        alike = table.loc[table["selection_rate"] == rate, "threshold"]
        if len(alike):
            favourable = (who == "positive") == (outcome == "favourable")
            word = "the favourable" if favourable else "the adverse"
            said.append(f"at {', '.join(f'{t:g}' for t in alike)} every row is predicted {who} ({word} prediction "
                        f"for everyone)")
    if not said:
        return ""
    return (" " + "; ".join(said)[0].upper() + "; ".join(said)[1:] + ": every subgroup is treated alike there, so "
            "the rules pass whatever the model ranks, and such a threshold decides nothing.")


def _cost(found: fc.ThresholdSuggestion, threshold: float, current: pd.DataFrame) -> pd.DataFrame:
    """Per subgroup (all rows first): each cost measure at the current and at the suggested threshold."""
    suggested = found.cost[found.cost["threshold"] == found.suggested].set_index("subgroup")
    now = current.set_index("subgroup")
    out = pd.DataFrame({"subgroup": list(now.index)})
    for column in COST_COLUMNS:
        if column == "size":
            out["rows"] = now[column].to_numpy()
            continue
        name = column.replace("_", " ")
        out[f"{name} at {threshold:g}"] = now[column].to_numpy(dtype=float)
        out[f"{name} at {found.suggested:g}"] = suggested.reindex(now.index)[column].to_numpy(dtype=float)
    return out.round(4)


def _apply(score: str, value: float) -> None:
    """The suggested threshold as the score's kept threshold (every page's), and in the page's threshold box."""
    name = f"threshold:{score}"
    st.session_state["w:" + name] = st.session_state[state.KEEP_PREFIX + name] = float(value)
