"""Benchmark of subgroup discovery counted where the data lies (``engines.discover_subgroups_counted``, DuckDB).

    python benchmarks/discovery_engine.py [--rows 1000000 10000000] [--depth 3] [--identities 6] [--repeats 3]
                                          [--threads 2] [--data DIR] [--out benchmarks/results-discovery-engine.json]

On the generated Parquet logs of ``benchmarks/engines.py`` (its ``make_files``: race x sex, boolean identity columns,
a 0/1 label and a float32 score; one file per size), the columns searched are race, sex and the first
``--identities`` identity columns (each a categorical column of two values here), up to ``--depth`` of them at once.
Timed, each ``--repeats`` times interleaved, CPU seconds of this process (DuckDB's threads included) and wall
seconds, the median reported:

1. ``counts_scan``: one GROUP BY of the same rows by the searched columns, the label and the prediction at 0.5 (one
   counts scan of the rows, ``_sql_discovery.counts_query``);
2. ``review_counts``: ``scored_counts`` of the logs' mapping (every count table of a single review: rates at 0.5,
   AUC counts with 10,000 bins, calibration), the scan a review of the same logs costs;
3. ``discovery``: ``discover_subgroups_counted`` with its default hashed split (half held out, each row's half from
   its position: ``ROW_NUMBER() OVER ()``), the selection rate, depth ``--depth``: one GROUPING SETS query, then the
   search and estimates from its counts;
4. ``discovery_no_holdout``: the same without a holdout (no row numbers: the GROUPING SETS query alone).

Each run's load average (``/proc/loadavg``) is kept beside it; the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import fairness_core as fc  # noqa: E402
from engines import make_files, mapping  # noqa: E402


def _load() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def _timed(fn) -> dict:
    load = _load()
    started, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return {"wall_s": time.perf_counter() - started, "cpu_s": time.process_time() - cpu, "load": load,
            "value": value}


def runs(glob: str, columns: list, depth: int, threads: int) -> dict:
    """One run of each measured step on `glob`: {step: {wall_s, cpu_s, load, value}}."""
    import duckdb

    from fairness_core.engines import discover_subgroups_counted, scored_counts
    from fairness_core.engines import _sql
    from fairness_core.engines._runners import _runner
    from fairness_core.engines._sql_discovery import counts_query

    m = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=tuple(columns))

    def counts_scan():
        con = duckdb.connect()
        con.execute(f"SET threads = {int(threads)}")
        run, _, _ = _runner(glob, "duckdb", con, None)
        plan = _sql.Plan("y", 1, ("score",), tuple(columns), (), 0.5)
        return len(run(counts_query(plan, "score", 0.5)))

    def review_counts():
        return scored_counts(glob, mapping(), threshold=0.5, n_bins=10, auc_bins=10_000, threads=threads).n_rows

    def discovery(holdout):
        def go():
            found = discover_subgroups_counted(glob, m, depth=depth, holdout=holdout, threads=threads)
            top = found.table.iloc[0]
            return {"examined": found.examined, "pruned": found.pruned, "search_rows": found.search_rows,
                    "estimate_rows": found.estimate_rows, "first": top["subgroup"],
                    "first_difference": float(top["difference"]),
                    "discoveries": int(found.table["excludes_parity"].sum())}
        return go

    steps = {"counts_scan": counts_scan, "review_counts": review_counts, "discovery": discovery(0.5),
             "discovery_no_holdout": discovery(0.0)}
    return {name: _timed(fn) for name, fn in steps.items()}


def warm_up(glob: str, threads: int) -> None:
    """One discovery of depth 1 on race alone, untimed: every module it uses imported before any timing."""
    from fairness_core.engines import discover_subgroups_counted

    m = fc.ColumnMapping(label="y", positive_label=1, scores=("score",), protected=("race",))
    discover_subgroups_counted(glob, m, depth=1, threads=threads)


def main(argv=None) -> dict:
    """Run the benchmark; returns the results (also written as JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--identities", type=int, default=6, help="identity columns searched beside race and sex")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data", default="/tmp/fairness-engine-bench")
    parser.add_argument("--out", default=str(HERE / "results-discovery-engine.json"))
    args = parser.parse_args(argv)
    columns = ["race", "sex"] + [f"id_{j:02d}" for j in range(args.identities)]
    results = {"engine": "duckdb", "threads": args.threads, "cpus": os.cpu_count(), "depth": args.depth,
               "columns": columns, "quantity": "selection_rate", "repeats": args.repeats, "sizes": {}}
    for rows in args.rows:
        glob = make_files(Path(args.data) / f"{rows}-1", rows, 1)
        warm_up(glob, args.threads)
        repeats = [runs(glob, columns, args.depth, args.threads) for _ in range(args.repeats)]
        size = {}
        for step in repeats[0]:
            size[step] = {"cpu_s": statistics.median(r[step]["cpu_s"] for r in repeats),
                          "wall_s": statistics.median(r[step]["wall_s"] for r in repeats),
                          "loads": [r[step]["load"] for r in repeats], "value": repeats[0][step]["value"]}
        for base in ("counts_scan", "review_counts"):
            for step in ("discovery", "discovery_no_holdout"):
                size[f"{step}_over_{base}_cpu"] = size[step]["cpu_s"] / size[base]["cpu_s"]
        results["sizes"][str(rows)] = size
        print(json.dumps({str(rows): {k: (v["cpu_s"] if isinstance(v, dict) else v) for k, v in size.items()}}),
              file=sys.stderr)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    return results


if __name__ == "__main__":
    main()
