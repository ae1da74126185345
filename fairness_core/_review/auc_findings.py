"""AUC findings: direction_warning, auc_findings (their words of the labels from ``outcome_words``)."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from .outcome_words import NEUTRAL, OutcomePhrases


# What a low AUC of each kind means for the people of a subgroup {name}, with the labels' phrases
# ({pos}: "labelled deny = yes"; {neg}; {pred_pos}: "predicted deny = yes" or "denied"; {pred_neg}).
_AUC_WORDS = {
    "subgroup_auc": ("subgroup AUC", "the score separates the rows {pos} from those {neg} less well within {name} "
                                     "than in the whole population"),
    "bpsn_auc": ("BPSN AUC", "the rows of {name} {neg} are scored above the rows of everyone else {pos} more "
                             "often than overall, which tends to mean that more people in {name} who were {neg} "
                             "were {pred_pos} (false positives)"),
    "bnsp_auc": ("BNSP AUC", "the rows of {name} {pos} are scored below the rows of everyone else {neg} more "
                             "often than overall, which tends to mean that more people in {name} who were {pos} "
                             "were {pred_neg} (false negatives)"),
}

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


def _auc_rows(table: pd.DataFrame, row, column: str, said: OutcomePhrases) -> str:
    """The rows an AUC of `row` compares (a BPSN AUC: the subgroup's rows labelled negative and the other rows'
    labelled positive), the labels in `said`'s words. With weights the counts are sums of weights, said as weights,
    and the size is Kish's effective size: '56 effective rows, weight 70 (25 labelled positive and 45 labelled
    negative by weight)'."""
    pos, neg = float(row["n_positive"]), float(row["n_negative"])
    total_pos, total_neg = table.attrs.get("n_positive"), table.attrs.get("n_negative")
    weighted = bool(table.attrs.get("weighted"))   # sums of weights: said as weights, never as rows
    p_, n_ = said.labelled_positive, said.labelled_negative

    def count(value: float, what: str) -> str:
        return f"rows {what} of weight {value:,.0f}" if weighted else f"{int(value):,} rows {what}"

    if column == "subgroup_auc" or total_pos is None or total_neg is None:
        if weighted:
            return (f"{float(row['size']):,.0f} effective rows, weight {pos + neg:,.0f} ({pos:,.0f} {p_} and "
                    f"{neg:,.0f} {n_} by weight)")
        return f"{int(pos + neg):,} rows: {int(pos):,} {p_}, {int(neg):,} {n_}"
    if column == "bpsn_auc":
        return f"{count(neg, n_)} in the subgroup against {count(total_pos - pos, p_)} in the other rows"
    return f"{count(pos, p_)} in the subgroup against {count(total_neg - neg, n_)} in the other rows"


def auc_findings(table: pd.DataFrame, *, include_small: bool = False,
                 phrases: Optional[OutcomePhrases] = None) -> list[str]:
    """Sentences on the lowest subgroup, BPSN and BNSP AUC whose interval lies below the overall AUC.

    For each AUC column, among the subgroups used (small ones only with `include_small`), the
    subgroup with the lowest AUC whose whole interval (``<column>_ci_high``) lies below the overall
    AUC's point estimate is named, with its AUC, interval and the rows it compares (a BPSN AUC: the
    subgroup's rows labelled negative against the other rows labelled positive), and what a low value of that
    AUC means for the people in it (Borkan et al. 2019). Plain text: escape it before rendering it
    as Markdown or HTML.

    Parameters
    ----------
    table : DataFrame
        From :func:`bias_auc_table` with ``ci`` (its ``attrs["ci"]`` and ``attrs["overall_auc"]``).
    include_small : bool, default=False
    phrases : OutcomePhrases, optional
        The labels and predictions in the data's words (:func:`mapping_phrases` of the mapping); by
        default "labelled positive" / "labelled negative".

    Returns
    -------
    list of str
        At most three sentences; empty when the table has no intervals or no AUC lies below.

    References
    ----------
    Borkan et al. (2019), "Nuanced Metrics for Measuring Unintended Bias with Real Data for Text
    Classification"; Jigsaw Unintended Bias benchmark.
    """
    level, overall = table.attrs.get("ci"), table.attrs.get("overall_auc")
    if level is None or overall is None or np.isnan(overall):
        return []
    used = table if include_small else table[~table["small"].astype(bool)]
    said = phrases or NEUTRAL
    words = dict(pos=said.labelled_positive, neg=said.labelled_negative, pred_pos=said.predicted_positive,
                 pred_neg=said.predicted_negative)
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
            f"{_auc_rows(table, row, column, said)}), below the overall AUC of {overall:.4f} across its whole "
            "interval: "
            + meaning.format(name=group, **words) + ".")
    return sentences
