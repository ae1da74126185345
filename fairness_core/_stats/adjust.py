"""Multiple-comparison adjustment: which comparisons of a table a procedure rejects."""

from __future__ import annotations

import numpy as np


def rejections(p: np.ndarray, alpha: float, adjust: str) -> np.ndarray:
    """Which of `p` (m p-values, none NaN) a multiple-comparison procedure rejects at family level `alpha`.

    Holm's step-down (Holm 1979): with the p-values sorted, p(1) <= ... <= p(m), reject
    H(1), ..., H(k-1) where k is the first i with p(i) > alpha / (m - i + 1) (all of them when there is
    none). Computed here because statsmodels' ``multipletests(method="holm")`` calls ``gc.collect()``
    on every call, which takes tenths of a second in a process holding a large table (once per
    disparity table on every rerun); it gives the same rejections (tests/fairness_core/
    test_adjustments.py). Bonferroni ('bonferroni') and Benjamini-Hochberg ('fdr_bh') are statsmodels'.

    Parameters
    ----------
    p : ndarray of shape (m,)
        P-values in [0, 1].
    alpha : float
        Family-wise error rate (Bonferroni, Holm) or false discovery rate (Benjamini-Hochberg).
    adjust : {'bonferroni', 'holm', 'fdr_bh'}

    Returns
    -------
    ndarray of bool, shape (m,)
    """
    if adjust == "holm":
        order = np.argsort(p, kind="stable")
        passes = p[order] <= alpha / np.arange(len(p), 0, -1)
        k = len(p) if passes.all() else int(np.argmin(passes))
        reject = np.zeros(len(p), dtype=bool)
        reject[order[:k]] = True
        return reject
    from statsmodels.stats.multitest import multipletests

    return multipletests(p, alpha=alpha, method=adjust)[0]
