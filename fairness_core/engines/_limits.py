"""The engines' names and shared limits and messages (sources, patterns of membership)."""

ENGINES = ("duckdb", "spark", "polars", "ibis")
CSV_TYPES = ["BIGINT", "DOUBLE", "DATE", "TIMESTAMP", "VARCHAR"]   # what DuckDB may guess for a CSV column
SOURCE_MESSAGE = (
    "scored_counts: cannot read {source!r}. Give a Parquet or CSV path or glob (e.g. 'logs/*.parquet'), "
    "a DuckDB relation, a table name with its DuckDB connection, or a pyspark DataFrame."
)
NO_FILES = "scored_counts: no file matches {source!r}. Tip: check the path or glob."
MAX_PATTERNS = 5_000          # membership patterns with_atoms accepts by default (each a stratum of the bootstrap)
TOO_MANY_PATTERNS = (
    "Intervals from count tables resample the counts of each membership pattern (a combination of subgroups and "
    "backgrounds: protected values and identity columns), and these rows have {n:,} patterns, more than {max:,}: "
    "a bootstrap over them would take minutes per table. Tip: choose fewer identity columns, or compute intervals "
    "on a random sample of the rows."
)
