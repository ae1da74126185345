"""The release gate on the Overview: each other model's changes from the baseline model, judged as the command line's
``--baseline`` judges them (``fc.model_changes``), with the tolerance as a setting kept in the saved configuration."""

from __future__ import annotations

import dataclasses

import streamlit as st

import fairness_core as fc

from ..presentation import captions, escape, labels
from ..results import computations
from ..session import progress
from ..settings import controls, review_config
from . import compare

CHANGES_SHOWN = 6   # changes that are not a pass listed in full; the rest in an expander
FAILS_IN_ANSWER = 2   # failing changes quoted in a candidate's bottom line


def judged_changes(token: str, mapping_key: str, scored: fc.ScoredData, *, intervals,
                   baseline: str | None = None, tolerance: float | None = None) -> tuple:
    """Every other model's changes from the baseline, fails first (``fc.model_changes``, memoized): the baseline
    and tolerance given, else as last set in :func:`changes_section` (so a page can show them above it).

    Returns
    -------
    (str, float, list of ChangeVerdict)
        The baseline, the tolerance and the changes, failing ones first, then inconclusive and not assessable ones,
        then passes.
    """
    models = list(scored.scores)
    if baseline is None:
        baseline = controls.setting("compare:baseline", models[0])
        baseline = baseline if baseline in models else models[0]
    if tolerance is None:
        tolerance = controls.setting("gate:max_worsening", review_config.GATE_TOLERANCE)
        tolerance = tolerance if isinstance(tolerance, (int, float)) and 0 <= tolerance <= 1 else (
            review_config.GATE_TOLERANCE)
    config = dataclasses.replace(review_config.config_from_session(), baseline=baseline,
                                 max_worsening=float(tolerance), view=())
    with progress.computing("each model's changes from the baseline", intervals.ci):
        changes = computations.model_changes(token, mapping_key, config.to_json(), scored)
    return baseline, float(tolerance), sorted(changes, key=lambda c: labels.FAILS_FIRST.index(c.status))


def answer_line(model: str, baseline: str, tolerance: float, changes: list) -> str:
    """A candidate's bottom line against the baseline (Markdown-safe), as the release gate judges it: how many of
    its changes fail, the first failing ones in full, how many are inconclusive and pass. '' for the baseline."""
    own = [c for c in changes if c.model == model]
    if model == baseline or not own:
        return ""
    fails = [c for c in own if c.status == "fail"]
    head = (f"**Against the baseline {escape.md(baseline)}** (release gate, {_tolerances(own, tolerance)}): "
            f"{'the candidate fails' if fails else 'no change fails'}; {_tally(own)} of {len(own)} changes.")
    quoted = "".join("\n- " + captions.verdict_markdown(c) for c in fails[:FAILS_IN_ANSWER])
    more = (f"\n\n{len(fails) - FAILS_IN_ANSWER} more failing changes under *Changes from the baseline* below."
            if len(fails) > FAILS_IN_ANSWER else "")
    return head + quoted + more


def _tally(changes) -> str:
    """'2 fail, 5 inconclusive, 10 pass': the changes counted by status, what fails first."""
    counts = ((s, sum(c.status == s for c in changes)) for s in labels.FAILS_FIRST)
    return ", ".join(f"{n} {labels.STATUS_WORDS[s]}" for s, n in counts if n)


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
                 "interval is within it, and is otherwise inconclusive. In the units of a difference of rates (rate "
                 "disparities, AUCs, ECEs); the p% and equal opportunity scores, ratios of rates, get twice it.")
    baseline, tolerance, changes = judged_changes(token, mapping_key, scored, intervals=intervals,
                                                  baseline=baseline, tolerance=float(tolerance))
    if not changes:
        st.caption("No change to judge: every other model's values are undefined.")
        return
    level = max((c.level for c in changes if c.level is not None), default=None)   # the most a low end is adjusted
    pass_level = changes[0].pass_level
    st.markdown(_tally(changes)
                + f" of {len(changes)} changes from {escape.md(baseline)} ({_tolerances(changes, tolerance)}: the "
                  f"largest worsening that still counts as no worse"
                + ("; intervals are off, so each change is judged on its point value" if level is None else
                   f"; paired intervals: a change fails when their low end, a joint bound over the {len(changes)} changes "
                   f"(max-t within the rates' and the ECEs' paired replicates, Bonferroni for the AUCs; at most "
                   f"{level * 100:.4g} %), is above the tolerance, and passes when their high end, at "
                   f"{(pass_level or level) * 100:.4g} %, is within it") + ").")
    shown = [c for c in changes if c.status != "pass"]
    for change in shown[:CHANGES_SHOWN]:
        st.markdown("- " + captions.verdict_markdown(change))
    if len(shown) > CHANGES_SHOWN:
        with st.expander(f"{len(shown) - CHANGES_SHOWN} more changes that are not a pass"):
            for change in shown[CHANGES_SHOWN:]:
                st.markdown("- " + captions.verdict_markdown(change))


def _tolerances(changes, tolerance: float) -> str:
    """'tolerance 0.01' and, where changes have their own in other units (ratios of rates), ', ratios 0.02'."""
    others = sorted({c.tolerance for c in changes} - {float(tolerance)})
    return f"tolerance {float(tolerance):g}" + "".join(f", ratios {t:g}" for t in others)
