"""Per-subgroup decision thresholds beside the single one: every chosen rate and accuracy, and the disparities."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from .._counts.rates import RATE_NAMES, RATE_TO_METRIC
from .._counts.thresholds import ThresholdCounts
from .performance import performance_table
from .._data.checks import check_option

# A rate's metric name as ConfusionCounts.disparity knows it (the selection rate's is "statistical_parity").


@dataclass(frozen=True)
class SubgroupThresholdEffect:
    """Rates and accuracy with a threshold per subgroup, against the single threshold.

    Attributes
    ----------
    threshold : float
        The single threshold.
    thresholds : dict of str to float
        Every subgroup's own threshold (a subgroup not given one follows `threshold`).
    table : DataFrame
        All rows first, then each subgroup: ``subgroup``, ``threshold`` (its own; NaN for all
        rows), and for each chosen rate and for accuracy the value at the single threshold
        (``<name>_single``) and at the per-subgroup thresholds (``<name>_own``).
    disparities : DataFrame
        One row per chosen rate: ``rate``, ``single``, ``own`` (its reduced disparity at the
        single and at the per-subgroup thresholds, point estimates).
    """

    threshold: float
    thresholds: dict
    table: pd.DataFrame
    disparities: pd.DataFrame


def subgroup_threshold_effect(counts: ThresholdCounts, threshold: float, thresholds: Mapping[str, float],
                              metrics: Sequence[str], *, distance_measure: str = "diff", reduction: str = "max",
                              reference: str = "rest", include_small: bool = False) -> SubgroupThresholdEffect:
    """What per-subgroup thresholds do to each rate and to accuracy, beside one threshold for every row.

    Row i of subgroup g is predicted positive when ``score_i >= t_g``, with t_g from `thresholds`
    (or the single `threshold` for a subgroup not in it); the rates are then
    ``rate = numerator cells / denominator cells`` of each group's confusion counts (e.g. FPR =
    FP / (FP + TN)), and accuracy ``(TP + TN) / n``, as :func:`performance_table`. The
    disparities are :meth:`ConfusionCounts.disparity` of both sets of predictions (no intervals).
    This is the Rate disparities page's per-subgroup thresholds table (the What-If Tool's group
    thresholds, Hardt et al. 2016), and the review's.

    Parameters
    ----------
    counts : ThresholdCounts
        From :func:`threshold_counts` of disjoint subgroups that cover every row.
    threshold : float
        The single threshold.
    thresholds : mapping of str to float
        Own thresholds of some or all subgroups, by name.
    metrics : sequence of str
        Rates (``RATE_NAMES``), e.g. ``["false_positive_rate", "false_negative_rate"]``.
    distance_measure, reduction, reference, include_small
        As :func:`rate_disparity`, for `disparities`.

    Returns
    -------
    SubgroupThresholdEffect

    Raises
    ------
    ValueError
        For overlapping subgroups, an unknown subgroup in `thresholds`, or an unknown rate (as
        :meth:`ThresholdCounts.at_each`).

    Examples
    --------
    >>> import fairness_core as fc
    >>> tc = fc.threshold_counts([0, 1, 1, 0], [0.2, 0.7, 0.4, 0.9], ["a", "a", "b", "b"])
    >>> effect = subgroup_threshold_effect(tc, 0.5, {"b": 0.3}, ["true_positive_rate"])
    >>> effect.table[["subgroup", "true_positive_rate_single", "true_positive_rate_own"]].values.tolist()
    [['All rows', 0.5, 1.0], ['a', 1.0, 1.0], ['b', 0.0, 1.0]]
    """
    for metric in metrics:
        check_option(metric, list(RATE_NAMES), "metrics", "subgroup_threshold_effect")
    own_t = {name: float(thresholds.get(name, threshold)) for name in counts.names}
    unknown = [name for name in thresholds if name not in own_t]
    if unknown:
        raise ValueError(f"Thresholds given for subgroups that do not exist: {unknown}. "
                         f"The subgroups are: {list(counts.names)}.")
    sides = {"single": counts.at(float(threshold)), "own": counts.at_each(own_t)}
    names = list(counts.names)
    table = pd.DataFrame({"subgroup": ["All rows", *names], "threshold": [np.nan, *[own_t[n] for n in names]]})
    rates = {side: c.table() for side, c in sides.items()}
    for metric in metrics:
        for side, c in sides.items():
            overall = c.comparison(RATE_TO_METRIC[metric], reference="overall")["reference_value"].iloc[0]
            table[f"{metric}_{side}"] = np.concatenate([[float(overall)], rates[side][metric].to_numpy(np.float64)])
    for side, c in sides.items():
        table[f"accuracy_{side}"] = performance_table(c)["accuracy"].to_numpy()
    disparities = pd.DataFrame({"rate": list(metrics), **{side: [
        float(c.disparity(RATE_TO_METRIC[m], distance_measure=distance_measure, reduction=reduction, reference=reference,
                          include_small=include_small).value) for m in metrics] for side, c in sides.items()}})
    return SubgroupThresholdEffect(threshold=float(threshold), thresholds=own_t, table=table, disparities=disparities)
