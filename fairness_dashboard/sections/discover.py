"""The Discover subgroups page's parts: its controls, the search (``fc.discover_subgroups``, memoized per session and
bounded), its findings in plain words, the chart and table of the subgroups found, and the button that makes a
subgroup found the slice of every page."""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
import streamlit as st

import fairness_core as fc
from fairness_core import plotting

from ..data import analysis, profiling
from ..presentation import captions, escape, formats, labels
from ..presentation.definitions import definition_link
from ..results import computations
from ..session import progress, state
from ..session.memo import memo
from ..settings import controls
from .discover_slice import applied_note, parse, readable, slice_conditions, slice_section

TOP_K = 10            # subgroups kept by the search, estimated and tested (Benjamini-Hochberg over them)
HOLDOUT = 0.5         # share of the rows kept apart to estimate the subgroups found on the others
SEED = 0              # seed of that split: the same data and settings always give the same subgroups
MAX_VALUES = 100      # fc.discover_subgroups refuses a column of more values; such a column is not offered
MAX_COLUMNS = 8       # columns one search may intersect
# Intersections a search may have to count: the sum, over every set of at most `depth` columns, of the product of
# their numbers of values (at most the rows). Measured at 10^6 rows: 6 columns of 100 values at depth 3 (2 * 10^7)
# took 1.8 s of CPU; 10 such columns (1.2 * 10^8) 4.5 s. Beyond the bound the depth is lowered, and the page says so.
MAX_INTERSECTIONS = 50_000_000
DEPTHS = (1, 2, 3)
SHOWN = 3             # findings written out above the controls; the table lists every subgroup found
DEFAULT_DEPTH = 2
AUC = "subgroup_auc"
CALIBRATION = "calibration_error"
# The quantities of the Model's score, each subgroup against everyone else: the AUC family (lower is worse) and the
# calibration error (the Calibration page's debiased ℓ2 ECE; higher is worse, and offered for a score in [0, 1]).
SCORE_QUANTITIES = {AUC: "Subgroup AUC", "bpsn_auc": "BPSN AUC", "bnsp_auc": "BNSP AUC",
                    CALIBRATION: "Calibration error (ℓ2 ECE)"}
QUANTITY_LABELS = {**labels.RATE_LABELS, **SCORE_QUANTITIES}
# What each quantity of a score is, in words (after "the"), for the findings and the ranking's caption.
SCORE_WORDS = {AUC: "AUC", "bpsn_auc": "BPSN AUC (everyone else's positives against the subgroup's negatives)",
               "bnsp_auc": "BNSP AUC (the subgroup's positives against everyone else's negatives)",
               CALIBRATION: "calibration error (ℓ2 ECE)"}
# What a rate counts in words: (who it is about, what happened to them), with {pos} / {neg} the predictions and
# {pos_out} / {neg_out} the labels in the mapping's words (fc.outcome_words), as the library's findings say them.
RATE_WORDS = {
    "selection_rate": ("", "were {pos}"),
    "true_positive_rate": (" who {pos_out}", "were {pos}"),
    "false_positive_rate": (" who {neg_out}", "were {pos}"),
    "false_negative_rate": (" who {pos_out}", "were {neg}"),
    "false_omission_rate": (" who were {neg}", "{pos_out}"),
    "false_discovery_rate": (" who were {pos}", "{neg_out}"),
    "error_rate": ("", "received a wrong prediction"),
}
SMALL_TEXT = "too few held-out rows"   # the table's interval of a subgroup too small to judge on the held-out rows
NO_PREDICTIONS = ("Subgroup discovery needs predictions: map a score column or a predicted label column on the "
                  "Data page.")


@dataclass(frozen=True)
class Choice:
    """What the page's controls chose.

    Attributes
    ----------
    columns : tuple of str
        The columns searched, in the order chosen.
    quantity : str
        A rate name of ``labels.RATE_LABELS`` or ``'subgroup_auc'``.
    depth : int
        The depth searched (1-3): the one chosen, or lower when the bound on intersections applies.
    asked_depth : int
        The depth chosen.
    source : str or None
        The score thresholded, or None for the predicted label column (or for the subgroup AUC).
    threshold : float or None
    score : str or None
        The sidebar's Model (the score of the subgroup AUC).
    """

    columns: tuple
    quantity: str
    depth: int
    asked_depth: int
    source: str | None
    threshold: float | None
    score: str | None


@dataclass(frozen=True)
class Found:
    """The search's result and, per subgroup found, its conditions and whether the slice can hold it.

    Attributes
    ----------
    discovery : fairness_core.SubgroupDiscovery
    names : list of str
        Each subgroup's conditions in words, e.g. ``race = Black and single = no`` (plain text: escape it).
    conditions : list of tuple of fairness_core.Condition, or None
        The slice conditions that select exactly its rows, or None when the slice cannot hold it.
    reasons : list of str
        Why not, where ``conditions`` is None (plain text); '' elsewhere.
    """

    discovery: fc.SubgroupDiscovery
    names: list
    conditions: list
    reasons: list


# Controls ------------------------------------------------------------------------------------------------------

def offered_columns(token: str, frame: pd.DataFrame, mapping: fc.ColumnMapping) -> tuple[list, list]:
    """The columns a search may intersect, and those left out for having too many values.

    Every column but the label, scores, predicted label and weight: the protected attributes and identity columns
    first, then the others in the file's order. A non-numeric column of more than ``MAX_VALUES`` distinct values
    (``profiling.column_profile``'s count) is left out; a numeric one is cut into quantile bins, as the subgroups
    cut a numeric attribute.

    Parameters
    ----------
    token : str
        The dataset's token (memo key of its profile).
    frame : DataFrame
        The dataset as loaded.
    mapping : fairness_core.ColumnMapping

    Returns
    -------
    offered : list of str
    too_many : list of str
    """
    roles = {mapping.label, *mapping.scores, mapping.predicted_label, mapping.weight}
    profile = profiling.column_profile(token, frame).set_index("column")
    protected = [c for c in (*mapping.protected, *mapping.indicators) if c in profile.index]
    others = [c for c in profile.index if c not in roles and c not in protected]
    fits = profile["numeric"] | (profile["n_unique"] <= MAX_VALUES)
    return protected + [c for c in others if fits[c]], [c for c in others if not fits[c]]


def choose(token: str, scored: fc.ScoredData, score: str | None) -> Choice:
    """Draw the page's controls (columns, quantity, depth, and the model's predictions as the other pages choose
    them) and return what they chose; stops the page when nothing can be searched."""
    mapping = scored.mapping
    protected = {*mapping.protected, *mapping.indicators}
    offered, too_many = offered_columns(token, st.session_state[state.FRAME], mapping)
    default = [c for c in offered if c in protected][:MAX_COLUMNS]
    columns = controls.kept(
        st.multiselect, labels.DISCOVER_COLUMNS, "discover:columns", default, options=offered,
        max_selections=MAX_COLUMNS, format_func=lambda c: c if c in protected else c + labels.NOT_PROTECTED,
        help=f"Every intersection of up to the depth's number of these columns is a candidate subgroup. By "
             f"default the protected attributes and identity columns; any other column may be added (at most "
             f"{MAX_COLUMNS}). A numeric column of more than 10 values is cut into the sidebar's bins.")
    if too_many:
        st.caption(escape.md(f"Not offered (more than {MAX_VALUES} distinct values): {', '.join(too_many)}."))
    quantities = list(labels.RATE_LABELS) + (score_quantities(scored, score) if score else [])
    c2, c3 = st.columns(2)
    with c2:
        quantity = controls.kept(st.selectbox, labels.DISCOVER_QUANTITY, "discover:quantity", "selection_rate",
                                 options=quantities, format_func=QUANTITY_LABELS.get,
                                 help="The rate (at the model's predictions), or the subgroup, BPSN or BNSP AUC or "
                                      "the calibration error (of the Model's score; the calibration error for a "
                                      "probability) compared between each subgroup and everyone else.")
    with c3:
        asked = int(controls.kept(st.radio, labels.DISCOVER_DEPTH, "discover:depth", DEFAULT_DEPTH,
                                  options=list(DEPTHS), horizontal=True,
                                  help="The most columns one subgroup's conditions combine: 2 finds, say, race = "
                                       "Black and sex = Female."))
    source = threshold = None
    if quantity not in SCORE_QUANTITIES:
        chosen = controls.predictions(scored, score)
        if chosen is None:
            st.info(NO_PREDICTIONS)
            st.stop()
        source, threshold = chosen
    if not columns:
        st.info("Choose one or more columns to search above.")
        st.stop()
    columns = list(dict.fromkeys(columns))   # a kept value (a link, a restored review) may repeat a column
    depth = bounded_depth(token, st.session_state[state.FRAME], tuple(columns), asked, scored.n_rows,
                          mapping.n_bins)
    return Choice(tuple(columns), quantity, depth, asked, source, threshold, score)


def score_quantities(scored: fc.ScoredData, score: str) -> list:
    """The quantities of the Model's score the page offers: the AUC family, and the calibration error when the score
    is a probability (within [0, 1])."""
    values = np.asarray(scored.scores[score], dtype=float)
    probability = bool(len(values)) and float(np.nanmin(values)) >= 0.0 and float(np.nanmax(values)) <= 1.0
    return [q for q in SCORE_QUANTITIES if q != CALIBRATION or probability]


def intersections(cards, depth: int, n_rows: int) -> int:
    """The intersections a search of `depth` may count: the sum over every set of at most `depth` columns of the
    product of their numbers of values, each product at most `n_rows` (a table has no more distinct rows).

    Examples
    --------
    >>> intersections([3, 4], 2, 100)
    19
    """
    return sum(min(math.prod(s), n_rows) for d in range(1, depth + 1) for s in combinations(cards, d))


def bounded_depth(token: str, frame: pd.DataFrame, columns: tuple, depth: int, n_rows: int, n_bins: int) -> int:
    """`depth`, or the deepest below it whose :func:`intersections` stay within ``MAX_INTERSECTIONS`` (at least 1).

    A column's number of values is counted as the profile counts it (``profiling.column_profile``, plus one for
    missing values); a numeric column of more than 10 values as its `n_bins` bins and a missing bin.
    """
    profile = profiling.column_profile(token, frame).set_index("column")
    cards = [n_bins + 1 if profile.at[c, "numeric"] and profile.at[c, "n_unique"] > 10
             else int(profile.at[c, "n_unique"]) + int(profile.at[c, "n_missing"] > 0) for c in columns]
    while depth > 1 and intersections(cards, depth, n_rows) > MAX_INTERSECTIONS:
        depth -= 1
    return depth


# The search ----------------------------------------------------------------------------------------------------

@memo(analysis.COUNTS)
def search(token: str, mapping_key: str, columns: tuple, quantity: str, depth: int, source: str | None,
           threshold: float | None, score: str | None, level: float, _scored: fc.ScoredData) -> Found:
    """``fc.discover_subgroups`` on the analysed rows, memoized per session: a rerun with the same data, mapping,
    slice and choices does not search again.

    Parameters
    ----------
    token, mapping_key : str
        The dataset and its mapping and slice (``analysis.current``); the mapping holds the minimum size, the
        weights and the favourable outcome used.
    columns : tuple of str
        The columns searched.
    quantity : str
        A rate name or ``'subgroup_auc'``.
    depth : int in {1, 2, 3}
    source, threshold : str or None, float or None
        The predictions: the score `source` at `threshold`, or the predicted label column (None, None).
    score : str or None
        The score of the subgroup AUC (keyed only for it).
    level : float in (0, 1)
        Confidence level of the intervals; 1 - `level` is the false discovery rate of "excludes parity".
    _scored : fairness_core.ScoredData

    Returns
    -------
    Found

    Raises
    ------
    ValueError
        As ``fc.discover_subgroups`` does (a column of more than 100 values, say).
    """
    attributes = analysis.sliced_frame()[list(columns)].iloc[_scored.rows].reset_index(drop=True)
    of_score = quantity in SCORE_QUANTITIES
    y_pred = _scored.y_true if of_score else _scored.y_pred(source, threshold)
    mapping = _scored.mapping
    found = fc.discover_subgroups(
        _scored.y_true, y_pred, attributes, y_score=_scored.scores[score] if of_score else None,
        columns=list(columns), quantity=quantity, depth=depth, min_size=mapping.min_size, top_k=TOP_K,
        positive_outcome=mapping.positive_outcome, ci=level, holdout=HOLDOUT, random_state=SEED,
        sample_weight=_scored.weights, n_bins=mapping.n_bins,
        indicators=[c for c in mapping.indicators if c in columns], indicator_threshold=mapping.indicator_threshold)
    names, conditions, reasons = [], [], []
    for _, row in found.table.iterrows():
        parsed = parse(row["subgroup"], columns)
        names.append(readable(parsed) if parsed else row["subgroup"].replace("=", " = ").replace(" & ", " and "))
        held, why = slice_conditions(token, parsed, attributes, int(row["size"] + row["search_size"]))
        conditions.append(held)
        reasons.append(why)
    return Found(found, names, conditions, reasons)


# Rendering -----------------------------------------------------------------------------------------------------

def sentences(found: Found, choice: Choice, mapping: fc.ColumnMapping) -> list:
    """A plain sentence for each subgroup found whose interval excludes parity after the correction, best first
    (plain text: escape it), e.g. "People with race = Black and single = no were predicted deny = yes at 13.9 %
    against 0.9 % for everyone else (difference 13.0 points, 95 % interval 9.1 to 16.8), on 1,234 held-out rows."
    """
    result, out = found.discovery, []
    words = fc.outcome_words(mapping)
    texts = {"pos": words["positive_text"], "neg": words["negative_text"],
             "pos_out": words["positive_outcome_text"], "neg_out": words["negative_outcome_text"]}
    level = formats.level_text(result.level)
    for i, row in result.table.iterrows():
        if not row["excludes_parity"]:
            continue
        rows = f"on {int(row['size']):,} held-out rows of the subgroup"
        if choice.quantity in SCORE_QUANTITIES:
            rest = "the AUC of everyone else" if choice.quantity != CALIBRATION else "everyone else's"
            differ = "difference" if choice.quantity != CALIBRATION else "excess ℓ2 ECE"
            out.append(f"The {SCORE_WORDS[choice.quantity]} of {choice.score} among people with {found.names[i]} is "
                       f"{row['value']:.3f} against {row['rest_value']:.3f} for {rest} ({differ} "
                       f"{row['difference']:+.3f}, {level} interval {row['ci_low']:+.3f} to {row['ci_high']:+.3f}), "
                       f"{rows}.")
            continue
        who, what = (part.format(**texts) for part in RATE_WORDS[choice.quantity])
        weighted = mapping.weight is not None
        value = _rate(row["value"], row["k"], row["n"], weighted)
        rest = _rate(row["rest_value"], row["rest_k"], row["rest_n"], weighted)
        out.append(f"People with {found.names[i]}{who} {what} at {value} against {rest} for everyone else (difference "
                   f"{_points(row['difference'])} points, {level} interval {_points(row['ci_low'])} to "
                   f"{_points(row['ci_high'])}), {rows}.")
    return out


def _rate(value: float, k: float, n: float, weighted: bool) -> str:
    """A rate in percent, or "k of n" when it is 0 or 1 on unweighted rows (as the library's findings write it)."""
    if not weighted and n > 0 and k in (0, n):
        return f"{int(k):,} of {int(n):,}"
    return f"{100.0 * value:.1f} %"


def _points(value: float) -> str:
    return f"{100.0 * value:+.1f}"


def ranking_text(found: Found, choice: Choice, mapping: fc.ColumnMapping) -> str:
    """What the ranking counts as worse, and why (Markdown-safe)."""
    result = found.discovery
    if choice.quantity == CALIBRATION:
        return (f"Ranked by how much higher the calibration error of {escape.md(choice.score)} is among a subgroup's "
                "rows than among everyone else's: the excess ℓ2 ECE, √(CE² of the subgroup − CE² of everyone else), "
                "signed, with CE² the Calibration page's debiased squared error over 10 bins.")
    if choice.quantity in SCORE_QUANTITIES:
        return (f"Ranked by how much lower the {escape.md(SCORE_WORDS[choice.quantity])} of {escape.md(choice.score)} "
                "is for a subgroup than the AUC among everyone else's rows (a lower AUC ranks positives above "
                "negatives less often).")
    side = {"higher": "higher", "lower": "lower", "either": "further from"}[result.direction]
    positive = fc.outcome_words(mapping)["positive_text"]
    why = ("a wrong prediction is always adverse" if choice.quantity == "error_rate" else
           f"a positive prediction ({positive}) is {mapping.positive_outcome} for the person, as the Data page says")
    return escape.md(f"Ranked by how much {side} a subgroup's {QUANTITY_LABELS[choice.quantity].lower()} is than "
                     f"everyone else's: {why}.")


def split_caption(found: Found, choice: Choice, weighted: str | None) -> str:
    """The held-out split, the correction and the bounds, in one caption (Markdown-safe), with the definition link."""
    r = found.discovery
    text = (f"The search ranked every intersection of up to {min(r.depth, len(r.columns))} of the {len(r.columns)} "
            f"columns with at least {r.min_size:,} rows on a random half of the rows ({r.search_rows:,} rows, seed "
            f"{SEED}); every number above and below is estimated on the other half alone ({r.estimate_rows:,} "
            f"held-out rows), so the intervals hold for the subgroups the search picked. "
            f"{formats.level_text(r.level)} intervals: "
            + {CALIBRATION: "the studentized bootstrap's (as the Calibration page's), of the difference of the two "
                            "debiased squared calibration errors",
               AUC: "DeLong's, of the difference of two AUCs"}.get(
                choice.quantity, "DeLong's, of the difference of two AUCs that share rows" if choice.quantity in
                SCORE_QUANTITIES else "Newcombe's (MOVER from Wilson intervals) of the difference of two rates")
            + f"; \"excludes parity\" after Benjamini–Hochberg over the {len(r.table)} subgroups shown (false "
            f"discovery rate {formats.level_text(1.0 - r.level)}). {r.examined:,} intersections counted, "
            f"{r.pruned:,} not expanded because they could not beat the {r.top_k}th (SliceLine's pruning).")
    small = int(r.table["small"].sum())
    if small:
        text += (f" {small} of the subgroups found {'has' if small == 1 else 'have'} fewer than {r.min_size:,} "
                 "held-out rows (or rows the quantity counts): too few to judge, so no interval.")
    if weighted:
        text += f" Rates and AUCs are weighted by {escape.md(weighted)}; sizes are rows."
    if choice.depth < choice.asked_depth:
        text += (f" **Depth lowered to {choice.depth}**: depth {choice.asked_depth} over these columns could count "
                 f"more than {MAX_INTERSECTIONS:,} intersections, the page's bound; search fewer columns or columns "
                 "of fewer values to go deeper.")
    return text + " " + definition_link("subgroup-discovery")


def display_table(found: Found, quantity: str) -> pd.DataFrame:
    """The subgroups found as the page's table: rank, readable conditions, the difference, its interval as text,
    whether it excludes parity after the correction, the subgroup's value and everyone else's, and its held-out rows;
    rates in percent and differences in points (AUCs as they are)."""
    t = found.discovery.table
    scale, digits = (1.0, 3) if quantity in SCORE_QUANTITIES else (100.0, 1)
    interval = [SMALL_TEXT if small else f"{scale * lo:+.{digits}f} to {scale * hi:+.{digits}f}"
                if np.isfinite(lo) and np.isfinite(hi) else ""
                for lo, hi, small in zip(t["ci_low"].to_numpy(dtype=float), t["ci_high"].to_numpy(dtype=float),
                                         t["small"].to_numpy(dtype=bool))]
    return pd.DataFrame({   # what decides first (the difference, its interval), then its parts
        "Rank": t["rank"].to_numpy(), "Subgroup": found.names, "Difference": scale * t["difference"].to_numpy(),
        "Interval": interval, "Excludes parity": t["excludes_parity"].to_numpy(),
        "Subgroup value": scale * t["value"].to_numpy(), "Everyone else": scale * t["rest_value"].to_numpy(),
        "Rows": t["size"].to_numpy()})


def table_config(quantity: str, level: float) -> dict:
    """st.dataframe's column_config of :func:`display_table`'s columns (rates in %, differences in points)."""
    unit = "%.3f" if quantity in SCORE_QUANTITIES else "%.1f"
    value = "" if quantity in SCORE_QUANTITIES else " %"
    number = st.column_config.NumberColumn
    return {"Rank": number("Rank", format="%d", width=45),
            "Subgroup": st.column_config.TextColumn("Subgroup", width="medium"),
            "Rows": number("Rows", format="%d", width=55, help="The subgroup's held-out rows"),
            "Subgroup value": number(f"Subgroup{value}", format=unit, width="small"),
            "Everyone else": number(f"Others{value}", format=unit, width=70, help="Every other held-out row"),
            "Difference": number("Difference", format=unit, width="small",
                                 help="Subgroup minus everyone else" + ("" if quantity in SCORE_QUANTITIES else ", in points")),
            "Interval": st.column_config.TextColumn(f"{formats.level_text(level)} interval", width=115),
            "Excludes parity": st.column_config.CheckboxColumn(
                "Excludes parity", width=100,
                help="Its interval excludes 0, after Benjamini–Hochberg over the table's rows")}


def figure(found: Found, quantity: str):
    """A horizontal chart of each subgroup's difference from everyone else with its interval, best at the top, a
    line at 0 (parity), coloured by whether the interval excludes parity after the correction."""
    import plotly.graph_objects as go

    t = found.discovery.table
    scale = 1.0 if quantity in SCORE_QUANTITIES else 100.0
    unit = "" if quantity in SCORE_QUANTITIES else " points"
    axis = "" if quantity in SCORE_QUANTITIES else " (percentage points)"
    names = ["<br>and ".join(plotting.plot_text(part) for part in name.split(" and ")) for name in found.names]
    fig = go.Figure()
    small = t["small"].to_numpy(dtype=bool) if "small" in t else np.zeros(len(t), dtype=bool)
    excludes = t["excludes_parity"].astype("boolean").fillna(False).to_numpy(dtype=bool)
    digits = 1 if scale > 1 else 3
    for kind, color, symbol, legend in (
            ("excludes", "#882255", "circle", "Interval excludes parity (after Benjamini–Hochberg)"),
            ("includes", "#888888", "circle", "Interval includes parity"),
            ("small", "#888888", "circle-open", "Too few held-out rows to judge (no interval)")):
        keep = {"excludes": excludes & ~small, "includes": ~excludes & ~small, "small": small}[kind] & np.isfinite(t["difference"].to_numpy(dtype=float))
        if not keep.any():
            continue
        d, low, high = (scale * t[c].to_numpy(dtype=float)[keep] for c in ("difference", "ci_low", "ci_high"))
        hover = [f"{y}<br>difference {v:+.{digits}f}{unit} "
                 + ("(too few held-out rows for an interval)" if kind == "small" else
                    f"({lo:+.{digits}f} to {hi:+.{digits}f})") + f", {n:,} held-out rows"
                 for y, v, lo, hi, n in zip(np.array(names)[keep], d, low, high, t["size"].to_numpy()[keep])]
        fig.add_trace(go.Scatter(
            x=d, y=np.array(names)[keep].tolist(), mode="markers", name=legend,
            marker=dict(color=color, size=10, symbol=symbol),
            error_x=dict(type="data", symmetric=False, array=np.nan_to_num(high - d),
                         arrayminus=np.nan_to_num(d - low), color=color, thickness=2),
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"))
    plotting.add_rule_line(fig, 0.0, "parity", axis="x", color="#444444")
    label = QUANTITY_LABELS[quantity]
    fig.update_layout(
        title=plotting.plot_text(f"{label}: each subgroup found minus everyone else (held-out rows)"),
        height=190 + 44 * len(names), margin=dict(l=10, r=20, t=100, b=40), showlegend=True,
        legend=dict(orientation="h", x=0, xanchor="left", y=1.0, yanchor="bottom"),
        xaxis=dict(title=f"Difference from everyone else{axis}", zeroline=False),
        yaxis=dict(categoryorder="array", categoryarray=names[::-1], automargin=True))
    return fig


def chart(token: str, mapping_key: str, found: Found, choice: Choice):
    """:func:`figure`, built once per search (``computations.chart``)."""
    key = (token, mapping_key, choice, found.discovery.level)
    return computations.chart("discovery", key, lambda: figure(found, choice.quantity))


def draw(token: str, mapping_key: str, scored: fc.ScoredData, score: str | None) -> None:
    """The page below its title: the findings first, then the controls, the chart, the caption, the table and the
    slice button."""
    applied_note()
    findings_box = st.container()
    choice = choose(token, scored, score)
    level = controls.intervals().level
    try:
        with progress.stage(f"Searching every intersection of up to {choice.depth} of {len(choice.columns)} "
                            "columns ..."):
            found = search(token, mapping_key, choice.columns, choice.quantity, choice.depth, choice.source,
                           choice.threshold, choice.score if choice.quantity in SCORE_QUANTITIES else None, level, scored)
    except ValueError as exc:
        st.error(escape.md(str(exc)))
        st.stop()
    with findings_box:
        said = sentences(found, choice, scored.mapping)
        if len(found.discovery.table):
            empty = ("No subgroup's interval excludes parity on the held-out rows after the correction: the largest "
                     f"differences the search found may be chance. The {len(found.discovery.table)} below are the "
                     "candidates to watch.")
        else:
            empty = (f"No intersection has {scored.mapping.min_size:,} rows (the sidebar's minimum subgroup size) "
                     "among the rows searched: lower the minimum size, or search fewer columns or a lower depth.")
        captions.write_findings(said[:SHOWN], empty)
        if len(said) > SHOWN:
            st.caption(f"{len(said) - SHOWN} more subgroups found exclude parity: the table below lists them all.")
    if not len(found.discovery.table):
        return
    if not controls.intervals().show:
        st.caption("Intervals are off in the sidebar; this page shows them anyway: what tells a discovery from "
                   "chance is the interval on the held-out rows.")
    st.plotly_chart(chart(token, mapping_key, found, choice), width="stretch")
    st.caption(ranking_text(found, choice, scored.mapping) + " " + split_caption(found, choice, scored.mapping.weight))
    st.dataframe(display_table(found, choice.quantity), hide_index=True,
                 column_config=table_config(choice.quantity, found.discovery.level))
    slice_section(token, found.names, found.conditions, found.reasons,
                  list(found.discovery.table["excludes_parity"]))
