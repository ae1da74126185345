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
# (pattern, cell), up to the rows themselves when most rows have a pattern of their own.
MAX_PATTERNS = 50_000
TOO_MANY_PATTERNS = (
    "Intervals from count tables read the counts of each membership pattern (a combination of subgroups and "
    "backgrounds: protected values and identity columns), and these rows have {n:,} patterns, more than {max:,}: "
    "reading them would take about as long as reading the rows. Tip: compute the review without intervals "
    "(--no-intervals on the command line, ci=None in the library), choose fewer identity columns, or compute "
    "intervals on a random sample of the rows."
)
