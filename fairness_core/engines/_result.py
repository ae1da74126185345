"""ScoredCounts: the count tables of a source under a column mapping, as the in-memory library uses them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np
import pandas as pd

from .._counts.calibration import CalibrationCounts
from .._counts.classes import ClassCounts
from .._counts.confusion import ConfusionCounts, base_rate_counts
from .._counts.scored_data import ColumnMapping, _as_text
from .._metrics.auc_counts import AucCounts
from .._stats.auc_bootstrap import level_groups
from .._stats.bootstrap import BUCKET_PATTERNS, Atoms, BucketTables
from ._atoms import _AtomQueries
from . import _limits
from ._limits import MAX_PATTERNS, WEIGHTED_AUC_NOT_COMPUTED, TooManyPatterns


@dataclass(frozen=True, eq=False)
class ScoredCounts:
    """The count tables of a mapped source, per score column, with the rows excluded and why.

    With a weight column (``mapping.weight``, :attr:`weighted`) every table is the weighted one of
    the in-memory library (``sample_weight=``): its cells sums of weights, beside them the sums of
    squared weights (``member_sq``, ``background_sq``, ``overall_sq``), its sizes Kish's effective
    sizes; ``n_input``, ``n_rows``, ``exclusions`` and ``class_sizes`` still count rows.

    Attributes
    ----------
    mapping : ColumnMapping
    n_input : int
        Rows in the source.
    n_rows : int
        Rows kept (no missing label or score).
    exclusions : DataFrame
        Columns ``reason, rows``: the rows left out, counted by the first reason that applies, with
        the texts of ``ScoredData.exclusions``.
    threshold : float
        Decision threshold of ``confusion`` (``score >= threshold`` predicts positive).
    confusion : dict of str -> ConfusionCounts
        Per score column, at `threshold`.
    auc : dict of str -> AucCounts
        Per score column: exact levels or bins (see `auc_bins` of :func:`scored_counts`).
    calibration : dict of str -> CalibrationCounts or None
        Per score column (uniform bins); None when the scores leave [0, 1] (see ``calibration_notes``).
    calibration_notes : dict of str -> str
        Why a score column has no calibration counts ('' when it has).
    engine : str
    score_ranges : dict of str -> (float, float, bool)
        Per score column over the kept rows: smallest and largest score, and whether every score is a
        whole number (what ``default_threshold`` needs).
    label_values : tuple
        The label's two values as the source holds them.
    given : ConfusionCounts or None
        The confusion counts of the predicted label column, when one is mapped.
    classes : ClassCounts or None
        With ``all_classes`` and a predicted label column: true against predicted class per
        subgroup, every class (``ScoredData.class_counts()``).
    class_sizes : dict of str -> int
        With ``all_classes``: kept rows per class (the label's values as text).
    atoms : bool
        True when every table holds the atoms its bootstrap resamples (see :meth:`with_atoms`), so
        the library's intervals (``ci=``) work on it as on rows in memory.
    labels : ConfusionCounts or None
        With `atoms`: the labels counted against themselves, atoms included (:meth:`label_counts`).
    not_computed : tuple of str
        What was asked for but could not be computed within the bounds, and why, each a phrase a review lists
        (``Review.source["not_computed"]``): exact AUC levels over ``max_levels`` of :func:`scored_counts` (with
        its ``levels_fallback``), intervals over ``max_patterns`` of :meth:`with_atoms` (with ``too_many="skip"``).
    """

    mapping: ColumnMapping
    n_input: int
    n_rows: int
    exclusions: pd.DataFrame
    threshold: float
    confusion: dict
    auc: dict
    calibration: dict
    calibration_notes: dict
    engine: str
    score_ranges: dict = field(default_factory=dict)
    _requery: Optional[Callable] = field(default=None, repr=False)
    _recalibrate: Optional[Callable] = field(default=None, repr=False)
    label_values: tuple = ()
    given: Optional[ConfusionCounts] = None
    classes: Optional[ClassCounts] = None
    class_sizes: dict = field(default_factory=dict)
    atoms: bool = False
    labels: Optional[ConfusionCounts] = None
    _atom_queries: Optional["_AtomQueries"] = field(default=None, repr=False)
    _count_rows: Optional[Callable] = field(default=None, repr=False)
    not_computed: tuple = ()

    def with_atoms(self, max_patterns: Optional[int] = MAX_PATTERNS, *, too_many: str = "buckets") -> "ScoredCounts":
        """The same counts with the atoms of the bootstrap: what ``ci=`` needs on every table.

        The bootstrap of ``fairness_core`` resamples counts per (row membership pattern, cell), never
        rows (``_stats.bootstrap``). The engine counts them with one more GROUP BY per table, over the
        protected values and each identity column's membership instead of per-subgroup sums: the
        confusion counts at ``threshold`` together with the AUC counts (one query per score, per
        prediction and level group: score levels merged into at most 256 groups of about equal rows,
        64 above ``_stats.bootstrap.BUCKET_PATTERNS`` patterns, as in memory,
        ``_stats.auc_bootstrap.level_groups``), the predicted label column and its class-wise counts,
        and the calibration counts (each bin in sub-bins, as in memory); the labels' atoms are summed
        from a score's confusion atoms. Without identity columns a pattern
        is a protected key, which the counts queries grouped by already: every table but the
        class-wise counts is then summed from their rows, with no query. Patterns are numbered as
        ``Subgroups.patterns`` numbers them, so a seed gives the in-memory library's intervals.
        Afterwards :meth:`confusion_at` and :meth:`calibration_at` count atoms too (one scan each).

        With a weight column (:attr:`weighted`) the tables get the atoms their weighted intervals take
        in memory: the confusion counts of each score at ``threshold``, of the predicted label column
        and of the labels (the rate disparities, equalized odds and the dataset's statistical parity)
        sums of weights per (pattern, cell, bucket), the engine dealing each row into one of the
        bootstrap's 1,000 buckets of weighted rows by a hash of its identity (``_buckets``), one GROUP BY per table, so
        the intervals differ from in-memory ones only by that assignment of rows to buckets; the AUC
        counts their weighted level atoms (``_stats.auc_draws.WeightedLevelAtoms``: sums of weights
        and of squared weights per pattern, merged level group and label, one GROUP BY per score),
        from which the power means' replicates are drawn; the calibration counts sums of w, w p,
        w (p - y)^2 and w^2 per (pattern, bin, sub-bin, label, bucket). The class-wise counts keep their
        counts (their weighted intervals need the rows).

        Parameters
        ----------
        max_patterns : int or None, default=MAX_PATTERNS
            Read no atoms per pattern for rows with more membership patterns than this (see `too_many`), decided
            before any pattern is read: the engine
            counts the distinct membership keys (``_sql_patterns.pattern_count_query``, one number; at least the
            patterns, and equal to them but where two keys give one pattern; without identity columns,
            the protected keys the counts queries found):
            reading the atoms grows with patterns x cells, up to the rows themselves (many independent
            identity columns can give tens of thousands of patterns); the bootstrap's work does not
            (above ``_stats.bootstrap.BUCKET_PATTERNS`` it reweights buckets of rows). None: no bound.
        too_many : {"buckets", "raise", "skip"}, default="buckets"
            More patterns than `max_patterns`: "buckets" (or "skip", the command line's choice, now the same) gives
            the bootstrap's per-bucket tables instead of atoms per pattern (``_bucket_atoms``: each row dealt into one
            of ``BUCKETS`` = 200 buckets by a hash of its identity, ``_buckets``; one GROUP BY (bucket, protected key,
            label, cells) per table, each identity column summed, so the engine returns buckets x keys x cells rows
            whatever the patterns; every interval of a review is then the bucket bootstrap's). Weighted counts get
            per-bucket sums of weights for the confusion counts (each score's, the labels', the predicted label's)
            and the calibration counts; their AUC counts and class-wise counts keep no replicates (the bias AUC
            score's interval is then added to :attr:`not_computed`, ``WEIGHTED_AUC_NOT_COMPUTED``). "raise" refuses
            with ``TooManyPatterns``.

        Returns
        -------
        ScoredCounts
            With ``atoms=True``: equal counts (calibration sums up to summation order), and the
            atoms in ``ConfusionCounts.atoms``, ``CalibrationCounts.atoms`` and ``AucCounts.patterns``.
            With too many patterns (``too_many`` "buckets" or "skip"): every table's atoms per-bucket tables
            (``Atoms.buckets``, no pattern; the point tables equal).

        Raises
        ------
        ValueError
            If this result has no engine to query again; ``TooManyPatterns`` (a ValueError) with more
            than `max_patterns` patterns and ``too_many="raise"`` (its message ``TOO_MANY_PATTERNS``).
        """
        if too_many not in ("buckets", "raise", "skip"):
            raise ValueError("ScoredCounts.with_atoms: too_many must be 'buckets', 'raise' or 'skip'. "
                             f"Got {too_many!r} instead.")
        if self.atoms:
            return self
        q = self._atom_queries
        if q is None:
            raise ValueError("ScoredCounts.with_atoms: this result has no engine to query again.")
        n_patterns = q.n_patterns()   # one number counted where the data lies, before any pattern is read
        if max_patterns is not None and n_patterns > max_patterns:
            if too_many != "raise":   # per-bucket tables: a cost independent of the patterns
                done = self._with_bucket_tables(n_patterns)
                why = (WEIGHTED_AUC_NOT_COMPUTED.format(n=n_patterns, max=max_patterns),) if self.weighted else ()
                return dataclasses.replace(done, not_computed=self.not_computed + why)
            raise TooManyPatterns(n_patterns, max_patterns)
        if self.weighted:   # the bucketed atoms of the confusion counts, the AUCs' weighted level atoms
            confusion = {s: q.confusion(s, self.threshold) for s in self.confusion}
            return dataclasses.replace(self, atoms=True, confusion=confusion,
                                       labels=q.labels(next(iter(confusion.values()), None)),
                                       given=None if self.given is None else q.given(),
                                       auc={s: q.auc(s, counts, n_patterns) for s, counts in self.auc.items()},
                                       calibration={s: None if c is None else q.calibration(s, c.edges, c.strategy)
                                                    for s, c in self.calibration.items()})
        # a score's confusion and AUC atoms from one query (the prediction and the level group in one GROUP BY)
        both = {s: q.confusion_and_auc(s, self.threshold, self.auc[s], n_patterns) for s in self.confusion
                if s in self.auc}
        confusion = {s: both[s][0] if s in both else q.confusion(s, self.threshold) for s in self.confusion}
        # the labels' atoms from a score's confusion atoms (the same kept rows and patterns): no scan of their own
        labels = q.labels(next(iter(confusion.values()), None) if self.mapping.indicators else None)
        return dataclasses.replace(
            self, atoms=True, labels=labels, given=None if self.given is None else q.given(),
            classes=None if self.classes is None else q.classes(),
            confusion=confusion,
            auc={s: both[s][1] if s in both else q.auc(s, counts, n_patterns) for s, counts in self.auc.items()},
            calibration={s: None if c is None else q.calibration(s, c.edges, c.strategy)
                         for s, c in self.calibration.items()})

    def _with_bucket_tables(self, n_patterns: int) -> "ScoredCounts":
        """These counts with the bootstrap's per-bucket tables as every table's atoms (``_bucket_atoms``): a score's
        confusion and AUC tables from one query (with its calibration tables too from ``_limits.MERGED_SCAN_ROWS``
        kept rows, else the calibration from one more), the labels from its confusion tables, the predicted label and
        its class-wise counts from one query each; `n_patterns` (at least the
        patterns) chooses the AUC's level groups, as for atoms per pattern."""
        from ._bucket_atoms import _BucketQueries

        a = self._atom_queries
        q = _BucketQueries(a.run, a.plan, a.m, a.binned, a.with_missing, a.auc_bins, a.ranges, a.buckets)
        both, calibration = {}, {}
        merged = self.n_rows >= _limits.MERGED_SCAN_ROWS   # one scan fewer, about twice the cells read back
        for s in self.confusion:   # a score's three tables from one scan where it has all three, on many rows
            cal = self.calibration.get(s)
            if merged and s in self.auc and cal is not None:
                *both[s], calibration[s] = q.confusion_auc_and_calibration(s, self.threshold, self.auc[s], n_patterns,
                                                                            cal.edges, cal.strategy)
            elif s in self.auc:
                both[s] = q.confusion_and_auc(s, self.threshold, self.auc[s], n_patterns)
        confusion = {s: both[s][0] if s in both else q.confusion(s, self.threshold) for s in self.confusion}
        return dataclasses.replace(
            self, atoms=True, _atom_queries=q, labels=q.labels(next(iter(confusion.values()), None)),
            given=None if self.given is None else q.given(),
            classes=None if self.classes is None or self.weighted else q.classes(), confusion=confusion,
            auc={s: both[s][1] if s in both else q.auc(s, counts, n_patterns) for s, counts in self.auc.items()},
            calibration={s: None if c is None else calibration[s] if s in calibration else
                         q.calibration(s, c.edges, c.strategy) for s, c in self.calibration.items()})

    def confusion_at(self, score: str, threshold: float) -> ConfusionCounts:
        """The confusion counts of `score` at another threshold.

        Read off the AUC counts when they can answer exactly (exact levels, or a threshold on a bin
        edge); otherwise the engine runs the counts query of that score again. With :attr:`atoms`, the
        atoms at a threshold of :meth:`atom_thresholds` are read off the AUC counts' atoms (no query);
        at any other threshold the engine counts them (one GROUP BY).

        Raises
        ------
        KeyError
            If `score` is not a mapped score column.
        ValueError
            For a NaN threshold.
        """
        counts = self.auc[score]
        if np.isnan(float(threshold)):
            raise ValueError("ScoredCounts.confusion_at: the threshold is NaN. Tip: choose a number.")
        if float(threshold) == self.threshold:   # counted with the rest (atoms included when they are)
            return self.confusion[score]
        if self.atoms:   # the atoms at this threshold: read off the AUC counts' atoms, else one GROUP BY of the patterns
            read = confusion_of_patterns(counts, float(threshold))
            return read if read is not None else self._atom_queries.confusion(score, float(threshold))
        if counts.exact or float(threshold) in counts.edges[:-1] or not (
                counts.edges[0] < float(threshold) <= counts.edges[-1]):
            return counts.confusion_at(threshold)
        if self._requery is None:
            raise ValueError("ScoredCounts.confusion_at: this result has no engine to query again.")
        return self._requery(score, float(threshold))

    def needs_query(self, score: str, threshold: float) -> bool:
        """Whether :meth:`confusion_at` of `score` at `threshold` runs a query where the data lies (a scan).

        False when the counts answer it: the counted threshold, a threshold the AUC counts read (any
        with exact levels, a bin edge with bins) or, with :attr:`atoms`, one that splits none of the
        AUC counts' merged level groups (:meth:`atom_thresholds`).
        """
        counts, t = self.auc[score], float(threshold)
        if t == self.threshold:
            return False
        if self.atoms:
            return confusion_of_patterns(counts, t) is None
        return not (counts.exact or counts.reads(t))

    def atom_thresholds(self, score: str) -> np.ndarray:
        """The thresholds at which :meth:`confusion_at` answers without a query, for `score`.

        Without :attr:`atoms`: every level (exact levels) or every bin edge. With atoms: the
        thresholds that split the AUC counts' merged level groups (``AucCounts.patterns``: at most
        256 groups of about equal rows), where the confusion atoms are sums of those groups' atoms,
        plus the smallest score's bin edge (every row predicted positive). Any threshold at or below
        the first or above the largest score is answered too.

        Returns
        -------
        ndarray of float
            Increasing thresholds (for exact levels, the first score of each group).
        """
        counts = self.auc[score]
        lows = counts.levels if counts.exact else counts.edges[:-1]
        if not self.atoms:
            return np.asarray(lows, dtype=np.float64)
        starts = _group_starts(counts)
        return np.asarray(lows, dtype=np.float64)[np.concatenate([[0], starts])] if starts is not None \
            else np.asarray(lows[:1], dtype=np.float64)

    def calibration_at(self, score: str, n_bins: int, strategy: str = "uniform") -> Optional[CalibrationCounts]:
        """The calibration counts of `score` with `n_bins` uniform bins over [0, 1], or quantile bins.

        The counts already computed when `n_bins` and `strategy` are theirs; otherwise the engine
        runs the calibration query of that score again (one GROUP BY over the source; quantile bins
        first read the score's distinct values and counts, as for ``strategy`` of :func:`scored_counts`).

        Returns
        -------
        CalibrationCounts or None
            None when the score leaves [0, 1] (``calibration_notes`` says why).

        Raises
        ------
        KeyError
            If `score` is not a mapped score column.
        ValueError
            For `n_bins` not an integer >= 1, an unknown strategy, too many distinct scores for quantile
            bins, or a result with no engine to query again.
        """
        counts = self.calibration[score]
        if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
            raise ValueError(f"ScoredCounts.calibration_at: n_bins must be an integer >= 1. Got {n_bins!r} instead.")
        if strategy not in ("uniform", "quantile"):
            raise ValueError(f"ScoredCounts.calibration_at: strategy must be 'uniform' or 'quantile'. Got {strategy!r}.")
        if counts is None or (len(counts.edges) == int(n_bins) + 1 and counts.strategy == strategy):
            return counts
        if self._recalibrate is None:
            raise ValueError("ScoredCounts.calibration_at: this result has no engine to query again.")
        if self.atoms and getattr(self._atom_queries, "per_bucket", False):   # the edges, then per-bucket tables
            edges = self._recalibrate(score, int(n_bins), strategy, False).edges
            return self._atom_queries.calibration(score, edges, strategy)
        return self._recalibrate(score, int(n_bins), strategy, self.atoms)

    def subgroup_rows(self) -> np.ndarray:
        """Kept rows per subgroup, in the tables' subgroup order (``confusion``'s ``names``).

        Without weights the confusion counts' row totals; with a weight column (whose tables hold
        sums of weights) counted where the data lies: one GROUP BY of the kept rows.

        Returns
        -------
        ndarray of int64, shape (n_subgroups,)

        Raises
        ------
        ValueError
            For weighted counts with no engine to query again.
        """
        first = self.confusion[self.mapping.scores[0]] if self.mapping.scores else self.given
        if not self.weighted:
            return first.member.sum(axis=1).astype(np.int64)
        if self._count_rows is None:
            raise ValueError("ScoredCounts.subgroup_rows: this result has no engine to query again.")
        return self._count_rows()

    @property
    def weighted(self) -> bool:
        """True when the mapping has a weight column: every count is a sum of weights (``ColumnMapping.weight``)."""
        return self.mapping.weight is not None

    @property
    def class_names(self) -> list:
        """The label's values as text, sorted (``ScoredData.class_names``)."""
        return sorted(str(t) for t in _as_text(list(self.label_values)))

    @property
    def n_classes(self) -> int:
        """Classes of the label."""
        return len(self.label_values)

    def class_counts_at(self, score: Optional[str] = None, threshold: Optional[float] = None) -> ClassCounts:
        """The class-wise counts of `score` at `threshold` (None: of the predicted label column): true against
        predicted class per subgroup.

        Equal to ``ScoredData.class_counts(score, threshold)`` on the same rows: the two classes are
        the label's values as text, sorted, and ``score >= threshold`` (or the predicted label's
        positive value) predicts the positive one. With :attr:`atoms`, atoms included; weighted
        counts give weighted class counts (``class_counts(..., sample_weight=)``: sums of weights and
        each subgroup's sum of squared weights, no atoms).

        Raises
        ------
        ValueError
            For ``score=None`` without a predicted label column.
        """
        if score is None and self.given is None:
            raise ValueError("No predicted label column is mapped; choose a score column and a threshold.")
        if score is None and self.classes is not None:
            return self.classes
        if len(self.label_values) != 2:
            raise ValueError(f"A score can only predict a label with two classes; this label has "
                             f"{len(self.label_values)}. Tip: map a predicted label column for a multi-class label.")
        c = self.given if score is None else self.confusion_at(score, threshold)
        labels = self.class_names
        positive = str(_as_text([self.mapping.positive_label])[0])
        # (true, predicted) of the sorted classes from TN, FP, FN, TP: positive second -> as is.
        order = [0, 1, 2, 3] if labels[1] == positive else [3, 2, 1, 0]

        def matrices(table: np.ndarray) -> np.ndarray:
            return np.asarray(table, dtype=np.float64)[..., order].reshape(*np.shape(table)[:-1], 2, 2)

        if c.weighted:   # sums of weights and of squared weights per cell; the atoms keep rows (or buckets)
            atoms = None if c.atoms is None else Atoms(
                c.atoms.counts[:, order], c.atoms.member, c.atoms.background,
                rows=(c.atoms.rows[0], np.asarray(order)[c.atoms.rows[1]], *c.atoms.rows[2:]))
            return ClassCounts(list(c.names), labels, matrices(c.member), matrices(c.overall),
                               np.zeros(len(c.names)), 0, c.min_size, atoms=atoms, member_sq=matrices(c.member_sq))
        atoms = None if c.atoms is None else Atoms(c.atoms.counts[:, order], c.atoms.member, c.atoms.background) \
            if c.atoms.buckets is None else Atoms.of_buckets(c.atoms.buckets.permuted(order))
        return ClassCounts(list(c.names), labels, matrices(c.member), matrices(c.overall),
                           np.zeros(len(c.names)), 0, c.min_size, atoms=atoms)

    def label_counts(self) -> ConfusionCounts:
        """The labels counted against themselves per subgroup (TN = negatives, TP = positives, no FP or FN).

        Their selection rate is the base rate, as ``confusion_counts(y_true, y_true, subgroups)``
        in memory (dataset statistical parity, base rates); with :attr:`atoms`, atoms included.
        """
        
        if self.labels is not None:
            return self.labels
        return base_rate_counts(self.confusion[self.mapping.scores[0]] if self.mapping.scores else self.given)


def _group_starts(counts: AucCounts) -> Optional[np.ndarray]:
    """The first level of each merged level group of ``counts.patterns`` but the first (``level_groups`` of the
    level totals, as the atoms were counted), or None when the counts hold no patterns or other groups. Per-bucket
    tables (``Atoms.buckets``, no pattern) were grouped as few or as many patterns: the grouping with their number
    of groups."""
    if counts.patterns is None or counts.weighted or not len(counts.levels):   # weighted: no atoms of rows
        return None
    atoms, totals = counts.patterns[0], np.asarray(counts.overall).sum(axis=0)
    # per-bucket tables hold no pattern: their groups are those of few or of many patterns (level_groups)
    sizes = [len(atoms.counts)] if atoms.buckets is None else [0, BUCKET_PATTERNS + 1]
    for n_patterns in sizes:
        group = level_groups(totals, n_patterns)
        if int(group[-1]) + 1 == int(counts.patterns[1]):
            return np.flatnonzero(np.diff(group)) + 1
    return None


def confusion_of_patterns(counts: AucCounts, threshold: float) -> Optional[ConfusionCounts]:
    """The confusion counts of ``score >= threshold``, atoms included, summed from the AUC counts' atoms.

    ``counts.patterns`` holds the rows per (membership pattern, merged level group, label); a
    threshold whose first level at or above it starts a group (or lies below every level or above
    them all) splits no group, so each pattern's confusion cells are sums of its groups: the same
    atoms, pattern for pattern, that the engine's pattern query counts at that threshold.

    Parameters
    ----------
    counts : AucCounts
        With ``patterns`` (``ScoredCounts.with_atoms``).
    threshold : float

    Returns
    -------
    ConfusionCounts or None
        None when the threshold splits a group or a bin, or the counts hold no patterns.
    """
    starts = _group_starts(counts)
    t = float(threshold)
    if starts is None or not counts.reads(t):
        return None
    n_levels = len(counts.levels)
    if counts.exact:
        first = int(np.searchsorted(counts.levels, t, side="left"))
    else:
        first = n_levels if t > counts.edges[-1] else min(int(np.searchsorted(counts.edges, t, side="left")), n_levels)
    atoms, n_merged = counts.patterns
    if first == 0:
        g = 0
    elif first == n_levels:
        g = int(n_merged)
    else:
        j = int(np.searchsorted(starts, first))
        if j >= len(starts) or starts[j] != first:
            return None
        g = j + 1
    def split(cells: np.ndarray) -> np.ndarray:   # (..., n_merged * 2) -> (..., 4): TN, FP, FN, TP at group g
        cells = np.asarray(cells, dtype=np.float64).reshape(*np.shape(cells)[:-1], int(n_merged), 2)
        negatives, positives = cells[..., 0], cells[..., 1]
        return np.stack([negatives[..., :g].sum(axis=-1), negatives[..., g:].sum(axis=-1),
                         positives[..., :g].sum(axis=-1), positives[..., g:].sum(axis=-1)], axis=-1)

    if atoms.buckets is not None:   # per-bucket tables: each bucket's confusion cells from its level groups
        from ._bucket_atoms import _confusion_of

        return _confusion_of(list(counts.names), BucketTables(*(split(t) for t in atoms.buckets.tables)),
                             counts.min_size, counts.disjoint)
    table = split(atoms.counts)
    return ConfusionCounts.of_atoms(list(counts.names), Atoms(table, atoms.member, atoms.background), counts.min_size,
                                    disjoint=counts.disjoint)
