"""Review Parquet logs where they live: the driver script of the Spark example in docs/data-beyond-memory.md.

    spark-submit --master spark://host:7077 --py-files dist/fairness_core-<version>-py3-none-any.whl \\
        benchmarks/review_logs.py hdfs:///logs/2026-11/ --out review.json
    python benchmarks/review_logs.py /data/logs/ --engine duckdb --out review-duckdb.json   (the same, on DuckDB)

The logs are those of ``benchmarks/engines.py`` (a 0/1 label ``y``, a score ``score``, protected ``race`` and
``sex``, identity columns ``id_00`` ... ``id_19``); change ``MAPPING`` for yours. Under ``spark-submit`` the
session it started is used (its ``--master``); DATA is any path or URI Spark reads (``hdfs://``, ``s3a://``,
``file://``). The review (no intervals unless ``--intervals``: they cost one more pass per table) is written
as JSON to ``--out``; one line of timings goes to stdout.
"""

from __future__ import annotations

import argparse
import json
import time

import fairness_core as fc
from fairness_core.engines import read_source, scored_counts

MAPPING = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("race", "sex"),
                           indicators=tuple(f"id_{j:02d}" for j in range(20)))


def main(argv=None) -> dict:
    """Read DATA with the engine, compute the counts and the review from them, write it; return the timings."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", metavar="DATA", help="a Parquet folder, file, glob or URI")
    parser.add_argument("--engine", choices=["spark", "duckdb", "polars"], default="spark")
    parser.add_argument("--out", default="review.json", help="where the review's JSON is written")
    parser.add_argument("--intervals", action="store_true", help="bootstrap intervals (one more pass per table)")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    source = read_source(args.data, args.engine)   # Spark: the active session (spark-submit's), files checked
    read = time.perf_counter()
    counts = scored_counts(source, MAPPING, engine=args.engine)
    if args.intervals:
        counts = counts.with_atoms()
    counted = time.perf_counter()
    config = fc.ReviewConfig(mapping=MAPPING, ci=0.95 if args.intervals else None)
    review = fc.build_review_from_counts(counts, config, source={"name": args.data})
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(review.to_json())
    done = time.perf_counter()
    timings = {"engine": counts.engine, "rows": counts.n_input, "read_s": round(read - start, 2),
               "counts_s": round(counted - read, 2), "review_s": round(done - counted, 2),
               "fairness_core": fc.__file__}
    if args.engine == "spark":
        timings["master"] = source.sparkSession.sparkContext.master
    print(json.dumps(timings))
    return timings


if __name__ == "__main__":
    main()
