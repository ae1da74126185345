"""The engines' names and shared limits and messages (sources, patterns of membership, memory)."""

import os

ENGINES = ("duckdb", "spark", "polars", "ibis")
CSV_TYPES = ["BIGINT", "DOUBLE", "DATE", "TIMESTAMP", "VARCHAR"]   # what DuckDB may guess for a CSV column
SOURCE_MESSAGE = (
    "scored_counts: cannot read {source!r}. Give a Parquet or CSV path or glob (e.g. 'logs/*.parquet'), "
    "a DuckDB relation, a table name with its DuckDB connection, or a pyspark DataFrame."
)
NO_FILES = "scored_counts: no file matches {source!r}. Tip: check the path or glob."
# Membership patterns whose atoms with_atoms reads by default. The bootstrap's cost no longer grows with them (above
# _stats.bootstrap.BUCKET_PATTERNS it reweights buckets of rows), but the atoms are read into Python: a row per
# (pattern, cell), up to the rows themselves when most rows have a pattern of their own. Measured: 63,623 patterns
# (10^7 rows, 20 identity columns, race x sex) peak at 1.6 GB for the review with intervals (0.5 GB without), about
# 20 KB a pattern, so this bound keeps the library and the command line within about 3 GB. Beyond it the counts get
# per-bucket tables instead (_bucket_atoms: buckets x keys x cells rows, whatever the patterns; sums of weights with a
# weight column, whose bias AUC score then has no interval: WEIGHTED_AUC_NOT_COMPUTED), or are refused (too_many
# "raise"). The app keeps a lower bound of its own
# (fairness_dashboard.data.local.MAX_PATTERNS), for a server shared by many sessions.
MAX_PATTERNS = 150_000
TOO_MANY_PATTERNS_REASON = (
    "Intervals from count tables read the counts of each membership pattern (a combination of subgroups and "
    "backgrounds: protected values and identity columns), and these rows have {n:,} patterns, more than {max:,}: "
    "reading them would take about as long as reading the rows."
)
# Kept rows from which with_atoms past the bound counts a score's confusion, AUC and calibration tables in one bucket
# query rather than two (_bucket_atoms.confusion_auc_and_calibration). The one query saves a scan of the rows but
# returns about twice the cells (buckets x keys x (level groups + calibration bins), each identity column's three
# sums), a cost that does not grow with the rows. Measured (DuckDB, 2 cores, CPU-s of the command line's review with
# per-bucket intervals): 10^6 rows x 20 identity columns 6.4 -> 6.2 CPU-s (noise) but peak RSS 430 -> 673 MiB;
# 10^7 rows x 4 identity columns 16.4 -> 13.5 CPU-s, peak RSS 590 -> 704 MiB.
MERGED_SCAN_ROWS = 4_000_000
# What a review of weighted counts past the bound says it lacks: per-bucket tables give every other interval.
WEIGHTED_AUC_NOT_COMPUTED = (
    "the bias AUC score's interval: the weighted rows have {n:,} membership patterns, more than the limit of "
    "{max:,}, and the replicates of its weighted power means need sums of weights per pattern (every other interval "
    "is the bucket bootstrap's)"
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

# Where a cgroup's memory limit is written: cgroup v2, then v1.
CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def default_memory_limit() -> str:
    """DuckDB's memory limit that leaves room for the rest of the machine: half of its memory, or of the memory
    limit of the cgroup this process runs in (a container's) when that is lower.

    DuckDB's own default is 80 % of the machine's memory, whatever a container allows; its limit bounds its
    buffers (hash tables and sorts spill to disk beyond it), not the Python side of the review, which the other
    half is left for.

    Returns
    -------
    str
        E.g. ``"11986MiB"``, as DuckDB's ``SET memory_limit`` reads it.

    Notes
    -----
    The cgroup's limit is read from ``/sys/fs/cgroup/memory.max`` (cgroup v2) or
    ``/sys/fs/cgroup/memory/memory.limit_in_bytes`` (v1); the machine's memory from ``os.sysconf``
    (``SC_PHYS_PAGES`` x ``SC_PAGE_SIZE``), as in the Linux kernel's documentation of cgroups
    (https://docs.kernel.org/admin-guide/cgroup-v2.html).
    """
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    for path in CGROUP_LIMITS:
        try:
            with open(path) as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit():   # "max" (v2) means no limit; v1 writes a huge number instead
            total = min(total, int(text))
        break
    return f"{max(total // 2, 2 ** 28) // 2 ** 20}MiB"   # at least 256 MiB, as DuckDB needs some to start
