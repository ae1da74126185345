"""The engines' names and shared limits and messages (sources, patterns of membership)."""

ENGINES = ("duckdb", "spark", "polars", "ibis")
CSV_TYPES = ["BIGINT", "DOUBLE", "DATE", "TIMESTAMP", "VARCHAR"]   # what DuckDB may guess for a CSV column
SOURCE_MESSAGE = (
    "scored_counts: cannot read {source!r}. Give a Parquet or CSV path or glob (e.g. 'logs/*.parquet'), "
    "a DuckDB relation, a table name with its DuckDB connection, or a pyspark DataFrame."
)
NO_FILES = "scored_counts: no file matches {source!r}. Tip: check the path or glob."
# Membership patterns with_atoms accepts by default. The bootstrap's cost no longer grows with them (above
# _stats.bootstrap.BUCKET_PATTERNS it reweights buckets of rows), but the atoms are read into Python: a row per
# (pattern, cell), up to the rows themselves when most rows have a pattern of their own. Measured: 63,623 patterns
# (10^7 rows, 20 identity columns, race x sex) peak at 1.6 GB for the review with intervals (0.5 GB without), about
# 20 KB a pattern, so this bound keeps the library and the command line within about 3 GB. The app keeps a lower
# bound of its own (fairness_dashboard.local.MAX_PATTERNS), for a server shared by many sessions.
MAX_PATTERNS = 150_000
TOO_MANY_PATTERNS_REASON = (
    "Intervals from count tables read the counts of each membership pattern (a combination of subgroups and "
    "backgrounds: protected values and identity columns), and these rows have {n:,} patterns, more than {max:,}: "
    "reading them would take about as long as reading the rows."
)
TOO_MANY_PATTERNS = TOO_MANY_PATTERNS_REASON + (
    " Tip: compute the review without intervals "
    "(--no-intervals on the command line, ci=None in the library), choose fewer identity columns, or compute "
    "intervals on a random sample of the rows."
)


class TooManyPatterns(ValueError):
    """``ScoredCounts.with_atoms`` refused: more membership patterns than its bound (``TOO_MANY_PATTERNS``).

    Attributes
    ----------
    n_patterns : int
        The distinct membership keys counted (at least the patterns).
    max_patterns : int
        The bound.
    reason : str
        The message without its tip (``TOO_MANY_PATTERNS_REASON``), for a caller with tips of its own.
    """

    def __init__(self, n_patterns: int, max_patterns: int):
        super().__init__(TOO_MANY_PATTERNS.format(n=n_patterns, max=max_patterns))
        self.n_patterns, self.max_patterns = int(n_patterns), int(max_patterns)
        self.reason = TOO_MANY_PATTERNS_REASON.format(n=n_patterns, max=max_patterns)
