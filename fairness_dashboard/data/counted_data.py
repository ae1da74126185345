"""Data counted where it lies, as the pages read it: the counts facade and the thresholds the counts answer.

``fairness_core.engines.scored_counts`` returns count tables, not rows; :class:`CountsData` answers from them
what the pages read of ``ScoredData`` (mapping, row counts, exclusions, base rate, subgroup sizes and flags,
score ranges, class names, the subgroup table), and :func:`threshold_note`, :func:`nearest_edges` and
:func:`counted_edges` say which thresholds the count tables answer without a scan of the source
(``fairness_dashboard.data.local`` reads the source and counts it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

import fairness_core as fc

from ..presentation import escape

BETWEEN_EDGES = (
    "The threshold {threshold} of {score} lies {where}: DuckDB counts {what} again at this threshold, a scan where "
    "the data lie. Choose a counted edge near it, such as {near}, for an instant answer from the count tables."
)


@dataclass(frozen=True)
class CountsSubgroups:
    """What the pages read of ``Subgroups``, from count tables: names, sizes and the small flags.

    ``codes`` is None (there are no rows); ``n_rows_small`` is None when the subgroups overlap,
    since marginal counts cannot say how many rows lie in at least one small subgroup.
    """

    names: list
    sizes: np.ndarray
    min_size: int
    disjoint: bool
    n_samples: int
    codes = None

    @property
    def small(self) -> np.ndarray:
        """Boolean flag per subgroup: fewer rows than ``min_size``."""
        return self.sizes < self.min_size

    @property
    def n_rows_small(self) -> int | None:
        """Rows in small subgroups when the subgroups are disjoint, else None."""
        return int(self.sizes[self.small].sum()) if self.disjoint else None

    def with_min_size(self, min_size: int) -> "CountsSubgroups":
        """The same subgroups with another small-subgroup threshold."""
        return CountsSubgroups(self.names, self.sizes, int(min_size), self.disjoint, self.n_samples)


@dataclass(frozen=True, eq=False)
class CountsData:
    """What the pages read of ``ScoredData``, answered from an engine's count tables.

    Attributes
    ----------
    counts : fairness_core.engines.ScoredCounts
    labels : ConfusionCounts
        The labels counted against themselves (``ScoredCounts.label_counts``).
    subgroups : CountsSubgroups
    """

    counts: object
    labels: fc.ConfusionCounts
    subgroups: CountsSubgroups

    @classmethod
    def of(cls, counts, min_size: int) -> "CountsData":
        """The facade of `counts` with subgroups flagged small below `min_size`."""
        labels = counts.label_counts()
        sizes = labels.member[:, [0, 3]].sum(axis=1)
        return cls(counts, labels, CountsSubgroups(list(labels.names), sizes, int(min_size), bool(labels.disjoint),
                                                   int(counts.n_rows)))

    mapping = property(lambda self: self.counts.mapping, doc="The column mapping.")
    predicted = property(lambda self: self.counts.given,
                         doc="The predicted label column's confusion counts, or None when none is mapped.")
    n_input = property(lambda self: self.counts.n_input, doc="Rows in the source.")
    n_rows = property(lambda self: self.counts.n_rows, doc="Rows kept.")
    exclusions = property(lambda self: self.counts.exclusions, doc="Rows left out, by reason.")
    score_ranges = property(lambda self: self.counts.score_ranges,
                            doc="Per score column: (smallest, largest, every score whole).")

    @property
    def scores(self) -> dict:
        """The mapped score columns (their values stay in the source: read ranges with ``score_ranges``)."""
        return {s: None for s in self.counts.mapping.scores}

    weights = None   # the rows' weights stay where they lie; ``weighted`` says whether the counts sum them (as
    # ScoredData's ``weights``, ``weighted``, ``weight_total`` and ``effective_rows``, which the pages read of both)

    @property
    def weighted(self) -> bool:
        """Whether the counts are sums of sample weights (the mapping names a weight column)."""
        return bool(self.labels.weighted)

    @property
    def base_rate(self) -> float:
        """Share of positive labels among the kept rows (with weights: of the total weight)."""
        negatives, positives = float(self.labels.overall[0]), float(self.labels.overall[3])
        return positives / (negatives + positives) if negatives + positives else float("nan")

    def base_rate_interval(self, level: float) -> tuple[float, float]:
        """As ``ScoredData.base_rate_interval``: Wilson's interval of the base rate, on the effective sample size
        with weights."""
        positives, n = self.labels.overall[3], self.labels.overall.sum()
        if not self.weighted:
            low, high = fc.wilson_interval(int(positives), int(n), level)
        else:
            squares = self.labels.overall_sq
            low, high = fc.weighted_wilson_interval(positives, n, squares[3], squares[0], level)
        return float(np.asarray(low).reshape(-1)[0]), float(np.asarray(high).reshape(-1)[0])

    @property
    def effective_rows(self) -> float:
        """Kish's effective sample size of the kept rows; the rows without weights."""
        if not self.weighted:
            return float(self.n_rows)
        return float(fc.effective_size(self.labels.overall.sum(), self.labels.overall_sq.sum()))

    @property
    def weight_total(self) -> float:
        """The kept rows' sum of weights (the rows without weights)."""
        return float(self.labels.overall.sum())

    @property
    def class_names(self) -> list:
        """The label's two values as text, sorted (the engines count no multi-class label)."""
        return self.counts.class_names

    def subgroup_table(self) -> pd.DataFrame:
        """As ``ScoredData.subgroup_table``: ``subgroup, size, share, n_positive, n_negative, small`` (with weights
        the effective sizes, shares of the weight, sums of weights, then ``rows`` and ``weight``)."""
        member = self.labels.member
        if self.weighted:
            total = member.sum(axis=1)
            sizes = fc.effective_size(total, self.labels.member_sq.sum(axis=1))
            return pd.DataFrame({
                "subgroup": self.subgroups.names, "size": sizes, "share": total / max(self.weight_total, 1e-300),
                "n_positive": member[:, 3], "n_negative": member[:, 0], "small": sizes < self.subgroups.min_size,
                "rows": self.counts.subgroup_rows(), "weight": total})
        sizes = self.subgroups.sizes.astype(np.int64)
        return pd.DataFrame({
            "subgroup": self.subgroups.names, "size": sizes, "share": sizes / max(self.n_rows, 1),
            "n_positive": member[:, 3].astype(np.int64), "n_negative": member[:, 0].astype(np.int64),
            "small": self.subgroups.small,
        })



def nearest_edges(counts, score: str, threshold: float) -> list[float]:
    """The thresholds nearest `threshold` (one below, one above, when there are) that `counts`
    (``fairness_core.engines.ScoredCounts``) answer without a scan (``ScoredCounts.atom_thresholds``)."""
    edges = counts.atom_thresholds(score)
    if not len(edges):
        return []
    i = int(np.searchsorted(edges, float(threshold)))
    return [float(edges[j]) for j in (i - 1, i) if 0 <= j < len(edges)]


def counted_edges(data, score: str):
    """The thresholds of `score` that data counted where they lie answer from their counted atoms without a scan
    (``ScoredCounts.atom_thresholds``), or None when `data` are rows in memory or counts without atoms (every
    threshold is then cheap)."""
    counts = getattr(data, "counts", None) if isinstance(data, CountsData) else None
    if counts is None or not counts.atoms:
        return None
    return np.asarray(counts.atom_thresholds(score), dtype=np.float64)


def scans(counts, score: str, threshold: float) -> bool:
    """Whether the confusion counts of `score` at `threshold` need a scan of the source (``ScoredCounts.needs_query``:
    neither read off the AUC counts nor, with atoms, off their atoms)."""
    return bool(counts.needs_query(score, float(threshold)))


def threshold_note(counts, score: str, threshold: float) -> str | None:
    """Why a threshold on data counted where it lies costs a scan and which thresholds nearby do not (Markdown-safe),
    or None when the count tables answer it (``BETWEEN_EDGES``)."""
    if threshold is None or not scans(counts, score, threshold):
        return None
    near = " or ".join(f"{t:.6g}" for t in nearest_edges(counts, score, threshold)) or "another threshold"
    if counts.atoms:
        where = "between the edges of the score groups that the intervals' counts were taken at"
        what = "every row per membership pattern"
    else:
        where, what = "inside a score bin of the count tables", "the rows between its bin edges"
    return BETWEEN_EDGES.format(threshold=escape.md(f"{float(threshold):g}"), score=escape.md(repr(score)),
                                where=where, what=what, near=escape.md(near))
