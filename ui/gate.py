"""The release gate on the Overview: each other model's changes from the baseline model, judged as the command line's
``--baseline`` judges them (``fc.model_changes``), with the tolerance as a setting kept in the saved configuration."""

from __future__ import annotations

import dataclasses

import streamlit as st

import fairness_core as fc

from . import captions, compare, computations, controls, escape, labels, progress, review_config

CHANGES_SHOWN = 6   # changes that are not a pass listed in full; the rest in an expander


def changes_section(token: str, mapping_key: str, scored: fc.ScoredData, *, intervals) -> None:
    """Overview, Compare models: the release gate's judgement of every other model against the baseline
    (``fc.model_changes``, as ``python -m fairness_core --baseline`` judges it), with the tolerance's widget."""
    models = list(scored.scores)
    st.markdown("**Changes from the baseline** (the release gate of a candidate model against the current one)")
    left, right = st.columns(2)
    with left:
        baseline = compare.pick_baseline(models)
    with right:
        tolerance = controls.kept(
            st.number_input, "Largest worsening that passes", "gate:max_worsening", review_config.GATE_TOLERANCE,
            min_value=0.0, max_value=1.0, step=0.005, format="%.3f",
            help="A candidate fails where a rate disparity, ratio score, subgroup/BPSN/BNSP AUC or subgroup ECE is "
                 "worse than the baseline's by more than this across its paired interval, passes where the whole "
                 "interval is within it, and is otherwise inconclusive. In each quantity's units.")
    config = dataclasses.replace(review_config.config_from_session(), baseline=baseline,
                                 max_worsening=float(tolerance), view=())
    with progress.computing("each model's changes from the baseline", intervals.ci):
        changes = computations.model_changes(token, mapping_key, config.to_json(), scored)
    if not changes:
        st.caption("No change to judge: every other model's values are undefined.")
        return
    tally = {s: sum(c.status == s for c in changes) for s in labels.STATUS_WORDS}
    level = changes[0].level
    st.markdown(", ".join(f"{n} {labels.STATUS_WORDS[s]}" for s, n in tally.items() if n)
                + f" of {len(changes)} changes from {escape.md(baseline)} (tolerance {float(tolerance):g}"
                + ("; intervals are off, so each change is judged on its point value" if level is None else
                   f"; paired intervals at {level * 100:.4g} %, Bonferroni over the {len(changes)} changes") + ").")
    shown = [c for c in changes if c.status != "pass"]
    for change in shown[:CHANGES_SHOWN]:
        st.markdown("- " + captions.verdict_markdown(change))
    if len(shown) > CHANGES_SHOWN:
        with st.expander(f"{len(shown) - CHANGES_SHOWN} more changes that are not a pass"):
            for change in shown[CHANGES_SHOWN:]:
                st.markdown("- " + captions.verdict_markdown(change))
