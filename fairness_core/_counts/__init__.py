"""The count tables: the sufficient statistics behind every metric, in one home.

Every metric is a function of a small table of counts, never of the rows. This package holds
those tables and the code that takes them from rows, one module each:

- ``confusion``: :class:`ConfusionCounts`, TN, FP, FN, TP of every subgroup, its background and all
  rows (one bincount), with the seven rates (``rates``), their comparisons and disparities,
  equalized odds, and the Theil indices and ratio scores computed from the same cells.
- ``thresholds``: :class:`ThresholdCounts`, the scores of one column sorted once within each
  (membership pattern, label) cell, so the ``ConfusionCounts`` at any decision threshold is a few
  array lookups.
- ``calibration``: :class:`CalibrationCounts`, per (subgroup, bin) the count, sum of y_prob, sum of
  y_true and sum of squared errors, with the atoms its bootstrap resamples (bins: ``binning``).
- ``classes``: :class:`ClassCounts`, per-subgroup K x K confusion matrices of true against
  predicted classes (rows encoded by ``rows``).
- ``patterns``: sums over membership patterns; ``scored_data``: :class:`ScoredData`, the mapped
  table with its subgroups.

Each table carries its atoms (counts per membership pattern and cell, ``_stats.bootstrap.Atoms``),
which is what every interval resamples. The metric modules (``_metrics``) import this package to
count rows; the tables' methods compute from the counts with the functions of ``_disparity``,
which never import this package, so the modules form no import cycle.

Private: import the public names from ``fairness_core``. This package re-exports nothing.
"""
