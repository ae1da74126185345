"""The per-subgroup AUC table's layout: its columns and the notes saying why an AUC or its interval is missing.

Every AUC table (exact or weighted, from rows or from ``AucCounts``) is written by :func:`auc_frame`, from
per-subgroup counts, AUCs and (optionally) interval bounds. The three AUCs are Borkan et al. (2019), "Nuanced
Metrics for Measuring Unintended Bias with Real Data for Text Classification".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._stats.auc_bootstrap import AUC_COLUMNS

NO_POSITIVES = "no positive examples"
NO_NEGATIVES = "no negative examples"
_AUC_LABELS = ("subgroup", "BPSN", "BNSP")  # in AUC_COLUMNS order, for notes


def _note(n_pos: int, n_neg: int) -> str:
    if n_pos == 0 and n_neg == 0:
        return "no rows"
    if n_pos == 0:
        return NO_POSITIVES
    if n_neg == 0:
        return NO_NEGATIVES
    return ""



def auc_frame(names: list, n: np.ndarray, aucs: np.ndarray, min_size: int, interval=None,
              sizes: np.ndarray | None = None) -> pd.DataFrame:
    """The per-subgroup AUC table from its counts and AUCs: the one place its columns and notes are written.

    Parameters
    ----------
    names : list of str, length k
    n : ndarray of int, shape (k, 4)
        Subgroup positives, subgroup negatives, background positives, background negatives.
    aucs : ndarray of float, shape (k, 3)
        Subgroup, BPSN and BNSP AUC (NaN where undefined).
    min_size : int
        Subgroups with fewer rows are flagged small.
    interval : (low, high, why) of arrays of shape (k, 3), or None
        Bounds and notes of :func:`interval_of`; None adds no interval columns.
    sizes : ndarray of float, shape (k,), or None
        With sample weights: each subgroup's effective sample size, which ``size`` and ``small``
        then report (and `n` holds sums of weights); None: ``size`` is n_positive + n_negative.

    Returns
    -------
    DataFrame
        The columns of :func:`bias_auc_table` (without its ``attrs``).
    """
    n = np.asarray(n, dtype=np.int64 if sizes is None else np.float64).reshape(-1, 4)
    n_sp, n_sn, n_bp, n_bn = n.T
    notes = [[] for _ in names]
    for j in range(len(notes)):
        if n_sp[j] == 0 or n_sn[j] == 0:
            notes[j].append(f"subgroup AUC undefined: {_note(n_sp[j], n_sn[j])}")
        if n_bp[j] == 0 or n_sn[j] == 0:
            notes[j].append("BPSN AUC undefined: " + ("no background positives" if n_bp[j] == 0
                                                       else "no subgroup negatives"))
        if n_sp[j] == 0 or n_bn[j] == 0:
            notes[j].append("BNSP AUC undefined: " + ("no subgroup positives" if n_sp[j] == 0
                                                       else "no background negatives"))
    columns = {
        "subgroup": list(names),
        "size": n_sp + n_sn if sizes is None else np.asarray(sizes, dtype=np.float64),
        "n_positive": n_sp,
        "n_negative": n_sn,
        "n_background_positive": n_bp,
        "n_background_negative": n_bn,
        "small": (n_sp + n_sn if sizes is None else np.asarray(sizes, dtype=np.float64)) < min_size,
    }
    estimates = list(AUC_COLUMNS)
    if interval is None:
        columns.update(zip(AUC_COLUMNS, np.asarray(aucs).reshape(-1, 3).T))
    else:
        low, high, why = interval
        for i, column in enumerate(AUC_COLUMNS):
            columns.update({column: aucs[:, i], f"{column}_ci_low": low[:, i], f"{column}_ci_high": high[:, i]})
        for j, i in zip(*np.nonzero(why != "")):
            if not why[j, i].startswith("AUC undefined"):
                notes[j].append(f"{_AUC_LABELS[i]} AUC interval: {why[j, i]}")
        estimates = [c for e in estimates for c in (e, f"{e}_ci_low", f"{e}_ci_high")]
    columns["note"] = ["; ".join(parts) for parts in notes]
    return pd.DataFrame(columns if len(notes) else None, columns=[   # no subgroup: empty object columns
        "subgroup", "size", "n_positive", "n_negative", "n_background_positive",
        "n_background_negative", "small", *estimates, "note"])
