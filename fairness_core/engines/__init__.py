"""Count tables computed where the data lives: DuckDB (embedded, out of core), Spark (a cluster), polars
(streaming) or an ibis table's own backend (a SQL database).

Every metric of ``fairness_core`` is a function of small count tables (``ConfusionCounts``,
``CalibrationCounts``, ``AucCounts``). :func:`scored_counts` computes them with three kinds of
GROUP BY queries in the engine (see ``_sql``), so no row reaches Python: only one row per
(protected values, label, score level, calibration bin, prediction) comes back, and everything
after the counts is the in-memory library's own code.

``import fairness_core`` imports nothing from here; this package imports an engine only inside
the function that uses it. DuckDB and SQLGlot come with the default install; the extras add the others
(from this project's checkout, ``pip install '.[engines]'`` for polars and ibis, ``'.[spark]'`` for pyspark).
"""

from __future__ import annotations

from ._discovery import discover_subgroups_counted
from ._result import ScoredCounts
from ._limits import ENGINES, TooManyPatterns, default_memory_limit
from ._periods import counts_over_time
from ._scored_counts import preview, scored_counts
from ._sources import read_source


__all__ = ["ScoredCounts", "scored_counts", "preview", "read_source", "ENGINES", "TooManyPatterns",
           "default_memory_limit", "discover_subgroups_counted", "counts_over_time"]
