"""AUC findings and the words of an outcome: outcome_words, direction_warning, auc_findings."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd


_AUC_WORDS = {
    "subgroup_auc": ("subgroup AUC", "the score separates positives from negatives less well within {name} "
                                     "than in the whole population"),
    "bpsn_auc": ("BPSN AUC", "the negatives of {name} are scored above the positives of everyone else more "
                             "often than overall, which tends to mean more false positives for {name}"),
    "bnsp_auc": ("BNSP AUC", "the positives of {name} are scored below the negatives of everyone else more "
                             "often than overall, which tends to mean more false negatives for {name}"),
}


def outcome_words(mapping) -> dict:
    """The words of findings for a mapping whose positive prediction is adverse for the person (§5.0).

    Parameters
    ----------
    mapping : ColumnMapping

    Returns
    -------
    dict
        For ``positive_outcome='adverse'``: ``positive_text``, ``negative_text``,
        ``positive_outcome_text`` and ``negative_outcome_text`` naming the label and its value
        ("were predicted deny = yes", "who actually had deny ≠ yes"), for :func:`rate_findings` and
        :func:`reduction_finding`, so a finding never calls a denial "positive". Empty for a
        favourable one (the neutral defaults).

    Examples
    --------
    >>> from fairness_core import ColumnMapping
    >>> outcome_words(ColumnMapping(label="deny", positive_label="yes", positive_outcome="adverse"))["positive_text"]
    'predicted deny = yes'
    """
    if getattr(mapping, "positive_outcome", "favourable") != "adverse":
        return {}
    event = f"{mapping.label} = {mapping.positive_label}"
    other = f"{mapping.label} ≠ {mapping.positive_label}"
    return {"positive_text": f"predicted {event}", "negative_text": f"predicted {other}",
            "positive_outcome_text": f"actually had {event}", "negative_outcome_text": f"actually had {other}"}


def direction_warning(overall_auc: float, label: object, positive: object) -> Optional[str]:
    """The warning an overall AUC below 0.5 deserves: the score ranks the other label value higher.

    Parameters
    ----------
    overall_auc : float
    label, positive : object
        The label column's name and the positive label (the event the score is taken to predict).

    Returns
    -------
    str or None
        None at 0.5 or above (or NaN).

    Examples
    --------
    >>> direction_warning(0.146, "deny", "no")[:75]
    'The overall AUC is 0.146, below 0.5: the score ranks the other class higher'
    """
    if not overall_auc < 0.5:
        return None
    return (f"The overall AUC is {overall_auc:.3f}, below 0.5: the score ranks the other class higher. Is the "
            f"positive label ({label} = {positive}) the event the score predicts? If not, choose the other value: "
            f"whether that event is good or bad for the person is set apart, so every verdict keeps its meaning.")


def _auc_rows(table: pd.DataFrame, row, column: str) -> str:
    """The rows an AUC of `row` compares (a BPSN AUC: the subgroup's negatives and the other rows' positives)."""
    pos, neg = float(row["n_positive"]), float(row["n_negative"])
    total_pos, total_neg = table.attrs.get("n_positive"), table.attrs.get("n_negative")
    weighted = bool(table.attrs.get("weighted"))   # sums of weights: said as weights, never as rows

    def count(value: float, what: str) -> str:
        return f"{what} of weight {value:,.0f}" if weighted else f"{int(value):,} {what}"

    if column == "subgroup_auc" or total_pos is None or total_neg is None:
        if weighted:
            return f"weight {pos + neg:,.0f}: {pos:,.0f} positive and {neg:,.0f} negative by weight"
        return f"{int(pos + neg):,} rows: {int(pos):,} positive, {int(neg):,} negative"
    if column == "bpsn_auc":
        return (f"{count(neg, 'negatives')} of the subgroup against {count(total_pos - pos, 'positives')} of the "
                "other rows")
    return f"{count(pos, 'positives')} of the subgroup against {count(total_neg - neg, 'negatives')} of the other rows"


def auc_findings(table: pd.DataFrame, *, include_small: bool = False) -> list[str]:
    """Sentences on the lowest subgroup, BPSN and BNSP AUC whose interval lies below the overall AUC.

    For each AUC column, among the subgroups used (small ones only with `include_small`), the
    subgroup with the lowest AUC whose whole interval (``<column>_ci_high``) lies below the overall
    AUC's point estimate is named, with its AUC, interval and the rows it compares (a BPSN AUC: the
    subgroup's negatives against the positives of the other rows), and what a low value of that
    AUC means for the people in it (Borkan et al. 2019). Plain text: escape it before rendering it
    as Markdown or HTML.

    Parameters
    ----------
    table : DataFrame
        From :func:`bias_auc_table` with ``ci`` (its ``attrs["ci"]`` and ``attrs["overall_auc"]``).
    include_small : bool, default=False

    Returns
    -------
    list of str
        At most three sentences; empty when the table has no intervals or no AUC lies below.

    References
    ----------
    Borkan et al. (2019), "Nuanced Metrics for Measuring Unintended Bias with Real Data for Text
    Classification"; seed 000.
    """
    level, overall = table.attrs.get("ci"), table.attrs.get("overall_auc")
    if level is None or overall is None or np.isnan(overall):
        return []
    used = table if include_small else table[~table["small"].astype(bool)]
    sentences = []
    for column, (name, meaning) in _AUC_WORDS.items():
        below = used[used[f"{column}_ci_high"].astype(float) < overall]
        if below.empty:
            continue
        row = below.loc[below[column].astype(float).idxmin()]
        group = str(row["subgroup"])
        sentences.append(
            f"The {name} of {group} is {float(row[column]):.4f} ({level * 100:g} % CI "
            f"{float(row[f'{column}_ci_low']):.4f}–{float(row[f'{column}_ci_high']):.4f}; "
            f"{_auc_rows(table, row, column)}), below the overall AUC of {overall:.4f} across its whole interval: "
            + meaning.format(name=group) + ".")
    return sentences
