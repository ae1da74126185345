"""Captions: the lines under the pages' tiles (the worst comparison, zeros, left-outs, the interval), the
small-subgroup line, a verdict's badge, a page's Findings and the Data page's outcome sentence; all Markdown-safe."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

import fairness_core as fc
from fairness_core import DENOMINATOR_NAMES, wilson_interval
from fairness_core.plotting import RATE_LABELS

from . import escape, formats, labels


def _pair(subgroup: str, reference: str) -> str:
    """'Other vs rest', 'A vs B', 'Other vs whole population' (Markdown-escaped)."""
    ref = {"rest": "rest", "overall": "whole population"}.get(reference, reference)
    return f"{escape.md(subgroup)} vs {escape.md(ref)}"


def _comparison_size(row, rate: str | None) -> str:
    """'244 actual negatives', '244 and 310 actual negatives' (pair), or '1,234 rows'."""
    if rate is not None and "denominator" in row:
        den, ref_den = int(row["denominator"]), int(row["reference_denominator"])
        who = DENOMINATOR_NAMES[rate]
        if row["reference"] in ("rest", "overall"):
            return f"{den:,} {who}"
        return f"{den:,} and {ref_den:,} {who}"
    return f"{int(row['size']):,} rows"


def _zero_side(row, rate: str) -> str:
    """'Other has a false positive rate of 0 (0 of 69 actual negatives)' for an infinite ratio."""
    label = RATE_LABELS[rate].lower()
    if float(row["subgroup_value"]) == 0:
        name, den = escape.md(row["subgroup"]), row.get("denominator")
    else:
        name = {"rest": "The rest", "overall": "The whole population"}.get(row["reference"], escape.md(row["reference"]))
        den = row.get("reference_denominator")
    counted = f" (0 of {int(den):,} {DENOMINATOR_NAMES[rate]})" if den is not None else ""
    return f"{name} has a {label} of 0{counted}"


def disparity_caption(result, rate: str | None) -> str:
    """The line under a reduced-disparity tile: its worst comparison and size, zeros, left-outs, interval.

    `result` is a DisparityResult (rate disparity or equalized odds); `rate` the rate it compares
    (None for equalized odds, whose comparisons carry no single denominator). Markdown-safe.
    """
    table = result.table
    used = table if result.n_small_excluded == 0 else table[~table["small"].astype(bool)]
    disparity = used["disparity"].astype(float)
    parts = []
    if result.reduction == "max" and result.worst is not None:
        row = table[(table["subgroup"] == result.worst[0]) & (table["reference"] == result.worst[1])].iloc[0]
        parts.append(f"{_pair(row['subgroup'], row['reference'])} ({_comparison_size(row, rate)})")
        if math.isinf(result.value):
            if rate is not None:
                parts.append(_zero_side(row, rate))
            else:
                larger = "true" if float(row["tpr_disparity"]) >= float(row["fpr_disparity"]) else "false"
                parts.append(f"its {larger} positive rate is 0 on one side")
    elif result.reduction == "mean":
        finite = used[np.isfinite(disparity)]
        largest = ""
        if len(finite):
            row = finite.loc[finite["disparity"].astype(float).idxmax()]
            largest = f"; largest: {_pair(row['subgroup'], row['reference'])} ({_comparison_size(row, rate)})"
        parts.append(f"Mean of {result.n_used:,} comparison{'s' if result.n_used != 1 else ''}{largest}")
        if result.n_infinite:
            zeros = used[np.isinf(disparity)]
            which = "; ".join(_zero_side(r, rate) for _, r in zeros.iterrows()) if rate is not None else ""
            parts.append(f"{result.n_infinite:,} infinite left out" + (f": {which}" if which else ""))
    if result.n_undefined:
        parts.append(f"{result.n_undefined:,} undefined left out")
    if math.isnan(result.value):
        small = f" ({result.n_small_excluded:,} with a small subgroup)" if result.n_small_excluded else ""
        parts.append(f"no comparison could be used{small}")
    elif result.level is not None:
        interval = formats.ci_text(result.ci_low, result.ci_high, result.level)
        if result.n_boot_undefined:
            interval += f" ({result.n_boot_undefined:,} of {result.n_boot:,} resamples undefined)"
        parts.append(interval)
    return " · ".join(parts)


def ratio_score_caption(result, level: float | None) -> str:
    """The line under a p% / equal opportunity score tile: the lowest subgroup, its size and, when the
    library gives one, the interval of the minimum. Markdown-safe."""
    parts = []
    if result.worst is not None:
        row = result.table[result.table["subgroup"] == result.worst].iloc[0]
        parts.append(f"Lowest: {escape.md(result.worst)} vs rest ({int(row['size']):,} rows)")
    else:
        parts.append("no subgroup could be used")
    low, high = getattr(result, "ci_low", float("nan")), getattr(result, "ci_high", float("nan"))
    if level is not None:
        parts.append(formats.ci_text(low, high, level) if not (formats.undefined(low) or formats.undefined(high))
                     else "no interval is computed for this score")
    return " · ".join(parts)


def bias_auc_caption(result, level: float) -> str:
    """The bootstrap interval of the bias AUC score (and how many resamples left it undefined)."""
    low, high = getattr(result, "ci_low", float("nan")), getattr(result, "ci_high", float("nan"))
    text = formats.ci_text(low, high, level)
    n_undefined, n_boot = getattr(result, "n_boot_undefined", 0), getattr(result, "n_boot", 0)
    if n_undefined:
        text += f" ({n_undefined:,} of {n_boot:,} resamples undefined)"
    return text


def theil_caption(result) -> str:
    """The line under a Theil index tile (a TheilResult): its bootstrap interval, how many resamples
    left it undefined, and the bootstrap size."""
    return (bias_auc_caption(result, result.level)
            + f" · bootstrap with {result.n_boot:,} resamples (seed 0)")


def correlation_caption(result) -> str:
    """The line under the correlation score tile (a CorrelationScoreResult): the score's interval and
    Fisher's z interval of r behind it. Markdown-safe."""
    return (formats.ci_text(result.ci_low, result.ci_high, result.level)
            + f" · from Fisher's z interval of r, {formats.num(result.r_ci_low)} to {formats.num(result.r_ci_high)} "
              f"(r = {formats.num(result.r)}, {result.n:,} rows)")


def overall_auc_caption(table, level: float) -> str:
    """DeLong's interval of the overall AUC (from ``table.attrs``), with its note when it is not DeLong's."""
    low, high = table.attrs.get("overall_auc_ci", (float("nan"), float("nan")))
    note = table.attrs.get("overall_auc_ci_note") or ""
    return formats.ci_text(float(low), float(high), level) + (f" ({escape.md(note)})" if note else "")


def power_mean_caption(result, table, column: str, include_small: bool, level: float | None) -> str:
    """The line under a power-mean tile: the power mean's bootstrap interval, then the lowest AUC of
    `column` among the subgroups used and its size. Markdown-safe."""
    used = table if include_small else table[~table["small"].astype(bool)]
    values = used[column].astype(float)
    parts = []
    if level is not None:  # first: the interval is the power mean's, not the lowest subgroup's
        low, high = (getattr(result, "power_mean_ci", None) or {}).get(column, (float("nan"), float("nan")))
        parts.append(formats.ci_text(low, high, level))
    if values.notna().any():
        row = used.loc[values.idxmin()]
        pos, neg = float(row["n_positive"]), float(row["n_negative"])
        if table.attrs.get("weighted"):   # sizes are effective sizes, positives and negatives sums of weights
            sizes = (f"{float(row['size']):,.0f} effective rows, weight {pos + neg:,.0f} ({pos:,.0f} positive and "
                     f"{neg:,.0f} negative by weight)")
        else:
            sizes = f"{int(row['size']):,} rows: {int(pos):,} positive, {int(neg):,} negative"
        parts.append(f"Lowest: {escape.md(row['subgroup'])} {formats.num(float(row[column]))} ({sizes})")
    else:
        parts.append("no subgroup has this AUC defined")
    return " · ".join(parts)


def binned_auc_caption(largest: float) -> str:
    """The note under AUCs computed from binned score levels, with the largest bound on their error."""
    return (f"Each AUC is computed from the score's counts in equal bins, so it lies within its max binning error "
            f"(a column of the table; largest {formats.num(largest)}) of the exact AUC. For exact AUCs choose AUC score "
            "levels: Exact on the Data page.")


def base_rate_caption(scored, level: float | None) -> str:
    """'3,251 of 7,214 rows positive · 95 % CI 0.439–0.462 (Wilson)' under a base-rate tile."""
    n = int(scored.n_rows)
    if scored.weighted and n:   # the positives' share of the weight, Wilson on the effective size
        out = f"weighted share of {n:,} rows (effective sample size {scored.effective_rows:,.0f})"
        if level is not None:
            low, high = scored.base_rate_interval(level)
            out += f" · {formats.ci_text(low, high, level, 3)} (Wilson, effective size)"
        return out
    k = int(round(scored.base_rate * n)) if n else 0   # the base rate is k / n exactly
    out = f"{k:,} of {n:,} rows positive"
    if level is not None and n:
        low, high = wilson_interval(k, n, level)
        out += f" · {formats.ci_text(float(low), float(high), level, 3)} (Wilson)"
    return out


def weight_caption(column: str, scored) -> str:
    """'Weighted by fnlwgt: total weight 1.86e+08 · effective sample size 26,134 (Kish)' under the rows tile
    (Markdown-safe); `scored` is the ScoredData (or the counted data's facade) of the weighted mapping."""
    return (f"Weighted by {escape.md(column)}: total weight {scored.weight_total:,.6g} · effective sample size "
            f"{scored.effective_rows:,.0f} (Kish)")


def small_effective_text(groups, min_size: int) -> str:
    """'2 of 34 subgroups have an effective sample size below 30 ...' for weighted rows (`groups`: the subgroup
    table of ``ScoredData.subgroup_table``, with its ``small`` flag by effective size)."""
    k, n_small = len(groups), int(groups["small"].sum())
    if n_small == 0:
        return f"All {k:,} subgroups have an effective sample size of at least {min_size:,}."
    return (f"{n_small:,} of {k:,} subgroups have an effective sample size below {min_size:,}; they are left out of "
            "summaries unless small subgroups are included.")


def small_rows_text(subgroups) -> str:
    """'14 of 34 subgroups are smaller than 30 rows; they hold 120 rows (1.7 %) ...' (Markdown-safe)."""
    k, n_small = len(subgroups.names), int(subgroups.small.sum())
    if n_small == 0:
        return f"All {k:,} subgroups have at least {subgroups.min_size:,} rows."
    rows, total = subgroups.n_rows_small, subgroups.n_samples
    if rows is None:   # overlapping subgroups counted where the data lies: rows in several are not known
        return (f"{n_small:,} of {k:,} subgroups are smaller than {subgroups.min_size:,} rows; they are left out of "
                "summaries unless small subgroups are included.")
    share = f" ({100 * rows / total:.1f} %)" if total else ""
    return (f"{n_small:,} of {k:,} subgroups are smaller than {subgroups.min_size:,} rows; they hold {rows:,} of "
            f"{total:,} rows{share}, left out of summaries unless small subgroups are included.")


def classwise_caption(result) -> str:
    """The line under the unweighted average bias tile (an UnweightedAverageBiasResult): the interval of
    the mean, then the class with the largest reduced value and how many subgroups it rests on. Markdown-safe."""
    per = result.per_class[result.per_class["value"].notna()]
    parts = []
    if result.level is not None and not math.isnan(result.value):  # first: the interval is the mean's
        parts.append(bias_auc_caption(result, result.level))
    if len(per):
        row = per.loc[per["value"].abs().idxmax()]
        parts.append(f"Largest: class {escape.md(row['class'])} {formats.num(float(row['value']))} "
                     f"({int(row['n_subgroups']):,} subgroups)")
    else:
        parts.append(escape.md(result.reason) if result.reason else "no class could be used")
    return " · ".join(parts)


def edf_caption(result) -> str:
    """The line under the smoothed EDF tile (a SmoothedEdfResult): the pair that attains it with their
    sizes, then the interval. Markdown-safe."""
    parts = []
    if result.pair is not None:
        sizes = result.table.set_index("subgroup")["size"]
        a, b = result.pair
        parts.append(f"{escape.md(a)} ({int(sizes[a]):,} rows) vs {escape.md(b)} ({int(sizes[b]):,} rows)")
    if result.level is not None and not math.isnan(result.value):
        parts.append(bias_auc_caption(result, result.level))
    return " · ".join(parts)


NO_FINDINGS = "No comparison could be assessed: every one is undefined or left out as small."


def write_findings(findings: list, empty: str = NO_FINDINGS) -> None:
    """Write a page's "Findings": its sentences as a bulleted list (each escaped), or `empty` as a caption.

    Parameters
    ----------
    findings : list of str
        The page's finding sentences (``summaries.Section.findings``), plain text.
    empty : str, default ``NO_FINDINGS``
        Markdown shown when there is no finding.
    """
    st.subheader("Findings")
    if findings:
        st.markdown("\n".join(f"- {escape.md(s)}" for s in findings))
    else:
        st.caption(empty)


def verdict_markdown(verdict) -> str:
    """A policy verdict as a coloured badge and its sentence (escaped)."""
    label, color = labels.STATUS_BADGES[verdict.status]
    return f":{color}-badge[{label}] {escape.md(verdict.sentence)}"


def outcome_sentence(label, positive, outcome: str, guessed_because: str = "", words=()) -> str:
    """The Data page's one sentence on what a positive prediction means for the person (Markdown-safe), with the
    words the findings use for the predictions (``ColumnMapping.label_words``, ``fc.outcome_phrases``) when given.

    >>> outcome_sentence("deny", "yes", "adverse", "the label's name reads like a harm (deny)")[:60]
    'A positive prediction means deny = yes, which is **adverse**'
    """
    phrases = fc.outcome_phrases(label, positive, outcome, dict(words))
    event = f"{escape.md(label)} = {escape.md(positive)}"
    word = dict(words).get(str(positive))
    named = f" (said “{escape.md(word)}” in the findings)" if word else ""
    if outcome == "adverse":
        text_ = (f"A positive prediction means {event}{named}, which is **adverse** for the person: the four-fifths "
                 f"rule, the p% and equal opportunity scores and the Theil index compare the favourable prediction "
                 f"({escape.md(phrases.favourable_prediction)}).")
    else:
        text_ = (f"A positive prediction means {event}{named}, which is **favourable** for the person: the "
                 f"four-fifths rule, the p% and equal opportunity scores and the Theil index compare it.")
    return text_ + (f" Proposed because {escape.md(guessed_because)}; change it above if it is wrong."
                    if guessed_because else "")
